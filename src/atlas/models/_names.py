"""How values given by users are read: the check that text is text, and the one folding rule.

Standard library only (``atlas path`` imports it on its fast path); the error classes are imported
only when an argument is wrong. ``fold`` is shared by :func:`atlas.path`, the SPARQL bindings, the
path table and (in JavaScript) the site.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` reads words with this module
if TYPE_CHECKING:
    from typing import Protocol

    class Curated(Protocol):
        """A record with an id and, maybe, a curated place among its kind (a stage, step...)."""

        @property
        def id(self) -> str: ...

        @property
        def order(self) -> int | None: ...


__all__ = ["curated", "file_name", "fold", "optional_text", "text"]

_MAX_NAME_BYTES = 255  # the longest file name (one part of a path) of common file systems
_MAX_PATH_BYTES = 4095  # the longest path Linux takes (PATH_MAX less its NUL)
_ESCAPED_BYTES = 0xDC80  # surrogateescape reads the bytes 0x80 to 0xff as U+DC80 to U+DCFF


def curated(record: Curated) -> tuple[bool, int, str]:
    """The key that sorts records in their curated order, those without one last, then by id.

    >>> from types import SimpleNamespace as R
    >>> [r.id for r in sorted([R(id="c", order=None), R(id="b", order=2), R(id="a", order=2),
    ...                         R(id="d", order=0)], key=curated)]
    ['d', 'a', 'b', 'c']
    """
    return (record.order is None, record.order or 0, record.id)


def fold(text: str) -> str:
    """The form in which dimension values are compared: case and spacing ignored.

    >>> fold("  NVIDIA   gpu ")
    'nvidia gpu'
    """
    return " ".join(text.split()).casefold()


def text(value: object, parameter: str, expected: str = "a str") -> str:
    r"""``value``, once known to be a ``str`` that is valid Unicode; else a precise error.

    A string read from bytes that are not UTF-8 (``sys.argv`` holds such bytes as lone
    surrogates, ``'\udcff'``) is not valid text.

    >>> text("cpu", "device")
    'cpu'
    >>> text(b"cpu", "device")
    Traceback (most recent call last):
    ...
    atlas.errors.ArgumentTypeError: device must be a str (decode bytes first), not bytes: b'cpu'
    >>> text("\udcff", "device")
    Traceback (most recent call last):
    ...
    atlas.errors.ArgumentValueError: device '\udcff' is not valid text: ...

    Raises:
        ArgumentTypeError: ``value`` is not a ``str`` (a ``TypeError``).
        ArgumentValueError: ``value`` holds a lone surrogate (a ``ValueError``).
    """
    if not isinstance(value, str):
        from atlas.errors import ArgumentTypeError  # noqa: PLC0415 - only when wrong

        hint = " (decode bytes first)" if isinstance(value, bytes | bytearray) else ""
        raise ArgumentTypeError(parameter, value, expected + hint)
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            from atlas.errors import ArgumentValueError  # noqa: PLC0415 - only when wrong

            code = ord(value[error.start])
            what = (
                f"the byte {code - 0xDC00:#04x}, which is not UTF-8 (Python reads such bytes as "
                "lone surrogates)"
                if _ESCAPED_BYTES <= code <= _ESCAPED_BYTES + 0x7F
                else "a lone surrogate, which no UTF-8 text holds"
            )
            raise ArgumentValueError(
                parameter,
                value,
                f"is not valid text: at position {error.start} it holds {what}; give UTF-8 text",
            ) from None
    return value


def optional_text(value: object, parameter: str, expected: str = "a str or None") -> str | None:
    """``None``, or ``value`` checked by :func:`text`.

    >>> optional_text(None, "atlas") is None
    True
    """
    return None if value is None else text(value, parameter, expected)


def file_name(value: object, parameter: str) -> str | os.PathLike[str]:
    r"""``value``, once known to be a ``str`` or path-like that can name a file (not opened).

    >>> file_name("dataset/atlas.json", "export_path")
    'dataset/atlas.json'
    >>> file_name("a\x00b", "dataset")
    Traceback (most recent call last):
    ...
    atlas.errors.ArgumentValueError: dataset 'a\x00b' is not a file name: it holds a NUL character

    Raises:
        ArgumentTypeError: not a ``str`` or ``os.PathLike`` of ``str``.
        ArgumentValueError: empty, holding a NUL, not encodable, or too long for a file name.
    """
    from atlas.errors import ArgumentTypeError, ArgumentValueError  # noqa: PLC0415

    name = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(name, str):
        raise ArgumentTypeError(parameter, value, "a str or a pathlib.Path")
    problem = ""
    if not name:
        problem = "is empty: name a file or folder"
    elif "\x00" in name:
        problem = "is not a file name: it holds a NUL character"
    else:
        try:
            encoded = os.fsencode(name)
        except UnicodeEncodeError:
            problem = "is not a file name: it holds a lone surrogate that stands for no byte"
        else:
            if len(encoded) > _MAX_PATH_BYTES or any(
                len(part) > _MAX_NAME_BYTES for part in encoded.split(b"/")
            ):
                problem = "is not a file name: it is longer than the system allows"
    if problem:
        raise ArgumentValueError(parameter, value, problem)
    return value  # type: ignore[return-value]  # a str, or a PathLike of one
