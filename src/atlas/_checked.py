"""The checks of the arguments of the public functions that take them on trust.

``atlas.check``, ``atlas.graph``, ``atlas.witness`` and ``atlas.observe`` live in modules that
trust their arguments (the CLI gives them the right types); the face of the package
(``atlas/__init__.py``) wraps them with :func:`checked`, so that a wrong type from Python code
is a precise :class:`~atlas.errors.ArgumentTypeError`, not a traceback from deep inside.
Imported only when one of them is first used.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from atlas.models._names import file_name, text

__all__ = ["checked"]

_F = TypeVar("_F", bound=Callable[..., Any])


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
    from atlas.data._files import TurtleFile  # noqa: PLC0415
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


def _optional_text(value: object, parameter: str) -> object:
    return None if value is None else text(value, parameter)


def _optional_witness_choice(value: object, parameter: str) -> object:
    return None if value is None else _witness_choice(value, parameter)


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
        "model": _optional_text,
        "inputs": _optional_text,
    },
    "observe": {"mode": _witness_choice, "device": _optional_witness_choice},
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
