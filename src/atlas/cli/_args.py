"""The parts every sub-command's options are built from: the parser class and checked values.

A value the command line cannot hold (a port out of range, a file name with a NUL, a date that is
not one) is argparse's usage error, exit status 2, with the value quoted; never a traceback.
Standard library only: ``atlas path`` must start fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from atlas.cli._output import one_line, quoted

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable
    from typing import Any, NoReturn

    Handler = Callable[[argparse.Namespace], int]

__all__ = ["Parser", "add_command", "date", "file", "file_path", "folder", "port", "seconds"]
_MAX_PORT = 65535


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors stay printable whatever the arguments held.

    An option typed ``Path`` (those of ``atlas witness``, all files) is read by ``file_path``:
    a name no file can have (empty, with a NUL, a folder's) is a usage error, not a traceback.
    """

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """Add an argument; ``type=Path`` becomes a checked file name."""
        if kwargs.get("type") is Path:
            kwargs["type"] = file_path
        return super().add_argument(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print the usage and the error in one line, then exit with status 2."""
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


def add_command(
    sub: Any, name: str, handler: Handler, help_text: str, *, json_flag: bool = True
) -> argparse.ArgumentParser:
    """Add the sub-command ``name`` to ``sub``, run by ``handler``; with ``--json`` unless told."""
    cmd: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text)
    if json_flag:
        cmd.add_argument("--json", action="store_true", help="print JSON for tools")
    cmd.set_defaults(handler=handler)
    return cmd


def date(text: str) -> dt.date:
    """A day from the command line: YYYY-MM-DD."""
    import datetime as dt  # noqa: PLC0415

    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {quoted(text)}") from None


def port(text: str) -> int:
    """A TCP port from the command line: 0 (any free port) to 65535."""
    try:
        number = int(text)
    except ValueError:
        number = -1
    if not 0 <= number <= _MAX_PORT:
        raise argparse.ArgumentTypeError(f"not a port (0 to {_MAX_PORT}): {quoted(text)}")
    return number


def seconds(text: str) -> float:
    """A number of seconds from the command line: finite, above 0."""
    import math  # noqa: PLC0415

    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number <= 0:
        raise argparse.ArgumentTypeError(f"not a number of seconds above 0: {quoted(text)}")
    return number


def folder(text: str) -> str:
    """A folder (or file) name from the command line: any bytes, but no NUL, not empty."""
    from atlas.errors import AtlasError  # noqa: PLC0415
    from atlas.models._names import file_name  # noqa: PLC0415

    try:
        file_name(text, "value")
    except AtlasError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def file(text: str) -> str:
    """A file name from the command line: a folder name ('.', '..', ending in '/') is refused."""
    if Path(folder(text)).name in ("", ".", "..") or text.endswith("/"):
        raise argparse.ArgumentTypeError(f"value {quoted(text)} names a folder, not a file")
    return text


def file_path(text: str) -> Path:
    """A file name from the command line, as a path."""
    return Path(file(text))
