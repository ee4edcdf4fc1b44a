"""The parts every sub-command's options are built from: the parser class and checked values.

A value the command line cannot hold (a port out of range, a file name with a NUL, a date that is
not one) is argparse's usage error, exit status 2, with the value quoted; never a traceback.
``-`` names standard input (or output) wherever one file is read (or written), and is refused
where a folder is named; an input that cannot be read is :class:`~atlas.errors.CouldNotRunError`
(exit status 3), as is a missing optional extra. Standard library only: ``atlas path`` must
start fast.
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

__all__ = [
    "STDIO",
    "Parser",
    "add_command",
    "date",
    "file",
    "file_path",
    "folder",
    "missing_extra",
    "non_negative",
    "port",
    "read_input",
    "require_extra",
    "seconds",
]
_MAX_PORT = 65535
STDIO = "-"  # as a file name: standard input (or output)
#: The optional extras, and the modules each brings.
EXTRAS = {"site": ("jinja2",), "serve": ("starlette", "uvicorn"), "witness": ("torch",)}


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors stay printable whatever the arguments held.

    An option typed ``Path`` (those of ``atlas witness``, all files) is read by ``file_path``:
    a name no file can have (empty, with a NUL, a folder's) is a usage error, not a traceback.
    Arguments made from the data (``atlas path --mode``) are added by :meth:`add_later` only
    when this parser parses options or shows its help, so that other commands (and ``atlas path``
    given no option) never read the data for them.
    """

    def add_later(self, adder: Callable[[Parser], None]) -> None:
        """Have ``adder`` add arguments (or help) the first time this parser is used."""
        self.__dict__["_later"] = adder

    def _add_now(self) -> None:
        adder = self.__dict__.pop("_later", None)
        if adder is not None:
            adder(self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """Parse, the arguments left for later added first if an option is given.

        Without one (``atlas path eager cpu``) no option can be meant: they are not needed.
        """
        if args is None or any(str(arg).startswith("-") for arg in args):
            self._add_now()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        """The usage line, with the arguments left for later."""
        self._add_now()
        return super().format_usage()

    def format_help(self) -> str:
        """The help, with the arguments left for later."""
        self._add_now()
        return super().format_help()

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


def non_negative(text: str) -> int:
    """A whole number from the command line: 0 or more."""
    try:
        number = int(text)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"not a whole number of 0 or more: {quoted(text)}")
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


def _name(text: str) -> str:
    """A file or folder name from the command line: any bytes, but no NUL, not empty."""
    from atlas.errors import AtlasError  # noqa: PLC0415
    from atlas.models._names import file_name  # noqa: PLC0415

    try:
        file_name(text, "value")
    except AtlasError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def folder(text: str) -> str:
    """A folder name from the command line; ``-`` (standard input or output) names none."""
    if text == STDIO:
        raise argparse.ArgumentTypeError(
            "'-' (standard input or output) cannot be a folder: name one ('./-' for a folder"
            " called '-')"
        )
    return _name(text)


def file(text: str) -> str:
    """A file name from the command line: ``-`` is standard input (or output); not a folder's."""
    if text == STDIO:
        return text
    if Path(_name(text)).name in ("", ".", "..") or text.endswith("/"):
        raise argparse.ArgumentTypeError(f"value {quoted(text)} names a folder, not a file")
    return text


def file_path(text: str) -> Path:
    """A file name from the command line, as a path."""
    return Path(file(text))


def read_input(name: str, what: str, limit: int) -> bytes:
    """The bytes of the input file ``name`` (``-``: standard input), at most ``limit`` of them.

    Raises:
        CouldNotRunError: it cannot be read (missing, a folder, no permission, too large); the
            message names ``what`` and the file.
    """
    from atlas.data._files import UnsafeFileError, read_bytes  # noqa: PLC0415
    from atlas.errors import CouldNotRunError  # noqa: PLC0415

    where = f"{what} '{name}'"  # printed escaped (bytes that are not UTF-8, controls)
    try:
        if name != STDIO:
            return read_bytes(Path(name), limit)
        if sys.stdin is None:
            raise CouldNotRunError(f"cannot read {what} from standard input: it is closed")
        where = f"{what} on standard input"
        data = sys.stdin.buffer.read(limit + 1)
    except IsADirectoryError:
        raise CouldNotRunError(f"cannot read {where}: it is a folder, not a file") from None
    except OSError as error:
        raise CouldNotRunError(f"cannot read {where}: {error.strerror or error}") from None
    except UnsafeFileError as error:
        reason = "it is a folder, not a file" if Path(name).is_dir() else str(error)
        raise CouldNotRunError(f"cannot read {where}: {reason}") from None
    except ValueError:  # a NUL in the name: the system refuses it before looking
        raise CouldNotRunError(f"cannot read {where}: no file can have a NUL in its name") from None
    if len(data) > limit:
        raise CouldNotRunError(f"cannot read {where}: it is over the limit of {limit} bytes")
    return data


def missing_extra(module: str) -> str:
    """What to say when ``module`` is not installed: the extra that brings it, and how to install.

    >>> print(missing_extra("jinja2"))
    jinja2 is not installed: install the 'site' extra: pip install 'execution-atlas[site]'
    """
    top = module.partition(".")[0]
    extra = next((name for name, modules in EXTRAS.items() if top in modules), None)
    if extra is None:
        return f"{top} is not installed: pip install {top} (or reinstall execution-atlas)"
    return (
        f"{top} is not installed: install the {extra!r} extra: "
        f"pip install 'execution-atlas[{extra}]'"
    )


def require_extra(extra: str) -> None:
    """Raise unless the modules of the optional ``extra`` (``site``, ``serve``...) are installed.

    Raises:
        CouldNotRunError: one is missing; the message says how to install the extra.
    """
    import importlib.util  # noqa: PLC0415

    from atlas.errors import CouldNotRunError  # noqa: PLC0415

    for module in EXTRAS[extra]:
        if importlib.util.find_spec(module) is None:
            raise CouldNotRunError(missing_extra(module))
