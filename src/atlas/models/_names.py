"""How values given by users are read: the check that text is text, and the one folding rule.

Standard library only (``atlas path`` imports it on its fast path); the error classes are imported
only when an argument is wrong. ``fold`` is shared by :func:`atlas.path`, the SPARQL bindings, the
path table and (in JavaScript) the site.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # spares importing typing on the fast path of ``atlas path``
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    _F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["checked", "file_name", "fold", "optional_text", "text"]

_MAX_NAME_BYTES = 255  # the longest file name (one part of a path) of common file systems
_MAX_PATH_BYTES = 4095  # the longest path Linux takes (PATH_MAX less its NUL)
_ESCAPED_BYTES = 0xDC80  # surrogateescape reads the bytes 0x80 to 0xff as U+DC80 to U+DCFF


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


def _optional_file(value: object, parameter: str) -> object:
    return None if value is None else file_name(value, parameter)


def _boolean(value: object, parameter: str) -> object:
    if not isinstance(value, bool):
        from atlas.errors import ArgumentTypeError  # noqa: PLC0415

        raise ArgumentTypeError(parameter, value, "True or False")
    return value


def _whole_number(value: object, parameter: str) -> object:
    if isinstance(value, bool) or not isinstance(value, int):
        from atlas.errors import ArgumentTypeError  # noqa: PLC0415

        raise ArgumentTypeError(parameter, value, "an int")
    return value


def _optional_date(value: object, parameter: str) -> object:
    import datetime as dt  # noqa: PLC0415

    if value is not None and not isinstance(value, dt.date):
        from atlas.errors import ArgumentTypeError  # noqa: PLC0415

        raise ArgumentTypeError(parameter, value, "a datetime.date or None")
    return value


def _turtle_files(value: object, parameter: str, *, paths: bool) -> object:
    """None, or the items of an iterable of TurtleFile (or of file names, with ``paths``)."""
    from atlas.data._graph import TurtleFile  # noqa: PLC0415
    from atlas.errors import ArgumentTypeError  # noqa: PLC0415

    if value is None:
        return None
    expected = "an iterable of TurtleFile" + (" or file names" if paths else "") + ", or None"
    if isinstance(value, str | bytes | bytearray | os.PathLike) or not hasattr(value, "__iter__"):
        raise ArgumentTypeError(parameter, value, expected)
    items = list(value)  # iterable, checked just above
    for number, item in enumerate(items):
        where = f"{parameter}[{number}]"
        if isinstance(item, TurtleFile):
            text(item.name, f"{where}.name")
            text(item.text, f"{where}.text")
        elif paths:
            file_name(item, where)
        else:
            raise ArgumentTypeError(where, item, "a TurtleFile")
    return items


def _witness_choice(value: object, parameter: str) -> object:
    """A mode or device of the witness, as ``atlas._witness.run`` reads it (quoted short)."""
    from atlas._witness.errors import WitnessValueError  # noqa: PLC0415
    from atlas._witness.run import DEVICES, MODES  # noqa: PLC0415
    from atlas.errors import shown  # noqa: PLC0415

    choices = MODES if parameter == "mode" else DEVICES
    if text(value, parameter).lower() not in choices:
        raise WitnessValueError(
            f"unknown {parameter} {shown(value)}; choose one of {', '.join(sorted(choices))}"
        )
    return value


def _fetch_policy(value: object, parameter: str) -> object:
    from atlas.data._fetch import FetchPolicy  # noqa: PLC0415

    if value is not None and not isinstance(value, FetchPolicy):
        from atlas.errors import ArgumentTypeError  # noqa: PLC0415

        raise ArgumentTypeError(parameter, value, "an atlas.data._fetch.FetchPolicy or None")
    return value


# The checks of the parameters of public functions that live in modules which take their
# arguments on trust (the CLI gives them the right types): ``checked`` wraps them.
_CHECKS: dict[str, dict[str, Callable[[object, str], object]]] = {
    "check": {
        "sources": _optional_file,
        "online": _boolean,
        "max_age_days": _whole_number,
        "today": _optional_date,
        "files": lambda value, name: _turtle_files(value, name, paths=True),
        "export_path": _optional_file,
        "dataset": _optional_file,
        "fetch_policy": _fetch_policy,
    },
    "graph": {"files": lambda value, name: _turtle_files(value, name, paths=False)},
    "witness": {
        "mode": _witness_choice,
        "device": _witness_choice,
        "raw_output": _optional_file,
    },
}


def checked(name: str, function: _F) -> _F:
    """``function``, public as ``atlas.NAME``, with its arguments checked before each call.

    A wrong type raises :class:`~atlas.errors.ArgumentTypeError`, a value that can never be right
    :class:`~atlas.errors.ArgumentValueError`; a wrong number of arguments is Python's own
    ``TypeError``. Iterables of files are read into lists, so that they are read once.
    """
    import functools  # noqa: PLC0415
    import inspect  # noqa: PLC0415

    checks = _CHECKS.get(name)
    if checks is None:
        return function
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        for parameter, value in bound.arguments.items():
            check = checks.get(parameter)
            if check is not None:
                bound.arguments[parameter] = check(value, parameter)
        return function(*bound.args, **bound.kwargs)

    return wrapper  # type: ignore[return-value]  # same signature, by functools.wraps
