"""The limits of ``atlas serve``, taken from the code: the defaults of its settings and options.

``atlas.publish.serve.Settings`` holds every limit with its default and, beside each field, a
comment that says what it bounds; ``atlas serve`` has an option for most of them. The table is
made from both, and the build stops when an option's default disagrees with its setting's.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re

from atlas.publish import serve
from atlasdocs.clidoc import commands
from atlasdocs.markdown import code, escape, table

__all__ = ["LimitsError", "comments", "options", "reference"]

#: The option of ``atlas serve`` that sets a setting, where its name is not the setting's.
OPTION_OF = {
    "worker_memory": "worker_memory_mib",
    "allowed_hosts": "allow_host",
    "cors_origins": "cors_origin",
}
_SCALE = {"worker_memory": 1024 * 1024}  # the option counts MiB, the setting bytes
_FIELD = re.compile(r"^\s+(\w+): [^=]+= (.+?)\s+#\s*(.+)$")


class LimitsError(ValueError):
    """An option whose default is not its setting's, or a setting without its comment."""


def comments() -> dict[str, str]:
    """What each setting bounds: the comment beside its field in ``Settings``."""
    found = {}
    for line in inspect.getsource(serve.Settings).splitlines():
        match = _FIELD.match(line)
        if match:
            found[match.group(1)] = match.group(3)
    return found


def options() -> dict[str, argparse.Action]:
    """The options of ``atlas serve``, by their destination."""
    parser = next(p for words, p, _ in commands() if words == ("atlas", "serve"))
    return {a.dest: a for a in parser._actions if a.option_strings}  # noqa: SLF001


_UNITS = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


def _shown(value: object) -> str:
    """A default as people read it: sizes in KiB, MiB or GiB, times in seconds.

    >>> _shown(64 * 1024), _shown(5.0), _shown(()), _shown(10_000)
    ('64 KiB', '5 s', 'none', '10000')
    """
    if value is None or value == ():
        return "none"
    if isinstance(value, int) and not isinstance(value, bool):
        for unit, size in _UNITS:
            if value >= size and value % size == 0:
                return f"{value // size} {unit}"
    if isinstance(value, float) and value.is_integer():
        return f"{int(value)} s"
    return str(value)


def _row(
    setting: dataclasses.Field[object], what: dict[str, str], given: dict[str, argparse.Action]
) -> list[str]:
    name = setting.name
    default = setting.default
    if setting.default_factory is not dataclasses.MISSING:
        default = setting.default_factory()
    if name not in what:
        raise LimitsError(f"Settings.{name} has no comment saying what it bounds")
    action = given.get(OPTION_OF.get(name, name))
    option = "none: set it in Python"
    if action is not None:
        option = code(action.option_strings[-1])
        expected = action.default
        if isinstance(expected, list):
            expected = tuple(expected)
        elif expected is not None and name in _SCALE:
            expected = expected * _SCALE[name]
        if expected != default:
            raise LimitsError(
                f"atlas serve {action.option_strings[-1]} defaults to {action.default!r},"
                f" but Settings.{name} to {default!r}"
            )
    return [code(name), escape(_shown(default)), option, escape(what[name])]


def reference() -> str:
    """The table of the endpoint's settings: default, option, and what each bounds."""
    what, given = comments(), options()
    rows = [_row(setting, what, given) for setting in dataclasses.fields(serve.Settings)]
    return table(["setting", "default", "option of `atlas serve`", "what it bounds"], rows) + "\n"
