"""The ``atlas`` command's argument parser, assembled from one part per group of sub-commands.

Each group's module adds its sub-commands, their options and their handlers (``handler=``):
``_paths`` (path, atlases, values, stages, steps, stage, step), ``_serve`` (sparql, serve),
``_publish`` (publish), ``_data`` (export, check, sources, diff), ``_site`` (site),
``atlas._witness.cli`` (witness), then ``_completion`` (completion, made from this parser). The
order is that of ``atlas --help``, whose epilog holds the one table of exit statuses. Nothing
heavy is imported: ``atlas path`` must start fast.
"""

from __future__ import annotations

import argparse
import functools

from atlas.cli import _completion, _data, _paths, _publish, _serve, _site
from atlas.cli._args import Parser

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["EPILOG", "parser", "version"]

#: The end of ``atlas --help``: what ``-`` means, and the exit statuses of every command.
EPILOG = """\
A FILE that is read may be '-', standard input; one that is written, '-', standard output.

exit status (every command):
  0    ok
  1    problems found: in the data (a check's violations, a contradicted witness), or with a
       value asked for (an unknown mode, stage, query or value)
  2    usage error: an unknown option, a bad value on the command line
  3    could not run here: a missing tool or optional extra, a busy port, a service out of
       reach, an input that cannot be read
  130  interrupted (Ctrl-C)
"""


@functools.cache  # built once: main() may be called many times in one process
def parser() -> argparse.ArgumentParser:
    """The parser of the ``atlas`` command, each sub-command's ``handler`` set as a default."""
    built = Parser(
        prog="atlas",
        description="Execution Atlas: what actually happens when software runs a model.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    built.add_argument(
        "--version",
        action=_VersionAction,
        help="show the versions of the package and of its data, and exit",
    )
    sub = built.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _paths.add_parsers(sub)
    _serve.add_parsers(sub)
    _publish.add_parsers(sub)
    _data.add_parsers(sub)
    _site.add_parsers(sub)

    from atlas._witness.cli import add_parser as add_witness_parser  # noqa: PLC0415

    add_witness_parser(sub)
    _completion.add_parsers(sub, built)
    return built


class _VersionAction(argparse.Action):
    """``--version``: the package's version and the data's, read only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"{parser.prog} {version()}")
        parser.exit()


def version() -> str:
    """The package's version and that of the shipped data, e.g. ``0.1.0 (data 1.0.0, ...)``.

    The data's is read from the shipped export's metadata with the standard library alone (no
    models); an export that cannot be read says so instead.
    """
    import json  # noqa: PLC0415

    from atlas._version import __version__  # noqa: PLC0415
    from atlas.data import _resources  # noqa: PLC0415

    try:
        meta = json.loads(_resources.export_file().read_bytes())
        data = f"data {meta['version']}, issued {meta['issued']}"
    except (OSError, ValueError, KeyError, TypeError) as error:
        data = f"data version unknown: the shipped export cannot be read ({error})"
    return f"{__version__} ({data})"
