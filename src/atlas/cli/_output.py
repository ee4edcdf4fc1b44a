"""What the ``atlas`` command prints: text that is always printable, JSON for tools.

Arguments that are not UTF-8 reach Python as lone surrogates; what is printed escapes such
characters, and the control characters that would break the one line of an error, instead of
failing. Standard library only: ``atlas path`` must start fast.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    from typing import Any

__all__ = ["dump", "one_line", "print_json", "printable", "quoted"]

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


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON; a file name that is not UTF-8 makes it ASCII."""
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a file name that is not UTF-8: JSON escapes it
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
