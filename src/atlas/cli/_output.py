"""What the ``atlas`` command prints: text that is always printable, JSON for tools.

Arguments that are not UTF-8 reach Python as lone surrogates; what is printed escapes such
characters, and the control characters that would break the one line of an error, instead of
failing. On a terminal that is not UTF-8 (cp1252, ASCII), :func:`tolerate_encoding` makes the
characters it cannot show print as escapes (``\u2192``), and JSON is written in ASCII.
Standard library only: ``atlas path`` must start fast.
"""

from __future__ import annotations

import codecs
import json
import sys

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    from typing import Any

__all__ = ["dump", "one_line", "print_json", "printable", "quoted", "tolerate_encoding"]

# characters that would break the one line of an error, or drive a terminal: shown escaped
_CONTROLS = {
    code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0)) if code != ord("\t")
} | {0x2028: "\\u2028", 0x2029: "\\u2029"}


def printable(text: str) -> str:
    r"""``text`` as it can be written in UTF-8: a byte that was not UTF-8 shown as ``\xNN``.

    >>> printable("caf\udce9")
    'caf\\xe9'
    """
    if text.isascii():
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")  # the bytes the text was read from
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def one_line(text: str) -> str:
    """``text`` as one printable line: line breaks become spaces, control characters escapes."""
    return printable(" ".join(text.splitlines())).translate(_CONTROLS)


def _utf8(encoding: str | None) -> bool:
    """Whether ``encoding`` (a stream's) is UTF-8; an unknown one is taken to be."""
    try:
        return codecs.lookup(encoding or "utf-8").name == "utf-8"
    except LookupError:
        return True


def tolerate_encoding() -> None:
    r"""Let standard output and error escape what their encoding cannot write, not fail.

    Only where the encoding is not UTF-8 (``PYTHONIOENCODING=cp1252``, a Windows console) and
    the stream would fail on such a character: ``→`` then prints as ``→``.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if (
            reconfigure is not None
            and getattr(stream, "errors", None) in ("strict", "surrogateescape")
            and not _utf8(getattr(stream, "encoding", None))
        ):
            reconfigure(errors="backslashreplace")


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON, in ASCII where standard output cannot write it all.

    A file name that is not UTF-8, or a terminal that is not, makes it ASCII (JSON escapes).
    """
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    if not text.isascii():
        try:
            text.encode(getattr(sys.stdout, "encoding", None) or "utf-8")
        except (UnicodeEncodeError, LookupError):
            text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=True, default=str)
    print(text)


def quoted(text: str) -> str:
    """``text`` quoted for a usage error: its repr, cut when long."""
    from atlas.errors import shown  # noqa: PLC0415

    return shown(text)


def dump(model: Any) -> Any:
    """A model, or a sequence of them, as JSON data (by alias, without the unset fields)."""
    if isinstance(model, tuple | list):
        return [dump(m) for m in model]
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
