"""The ``atlas`` command's argument parser, assembled from one part per group of sub-commands.

Each group's module adds its sub-commands, their options and their handlers (``handler=``):
``_paths`` (path, stages, steps, stage), ``_serve`` (sparql, serve, publish), ``_data``
(export, check, sources, diff), ``_site`` (site), then ``atlas._witness.cli`` (witness). The
order is that of ``atlas --help``. Nothing heavy is imported: ``atlas path`` must start fast.
"""

from __future__ import annotations

import functools

from atlas.cli import _data, _paths, _serve, _site
from atlas.cli._args import Parser

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    import argparse

__all__ = ["parser"]


@functools.cache  # built once: main() may be called many times in one process
def parser() -> argparse.ArgumentParser:
    """The parser of the ``atlas`` command, each sub-command's ``handler`` set as a default."""
    built = Parser(
        prog="atlas",
        description="Execution Atlas: what actually happens when software runs a model.",
    )
    built.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = built.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _paths.add_parsers(sub)
    _serve.add_parsers(sub)
    _data.add_parsers(sub)
    _site.add_parsers(sub)

    from atlas._witness.cli import add_parser as add_witness_parser  # noqa: PLC0415

    add_witness_parser(sub)
    return built


def _version() -> str:
    from atlas._version import __version__  # noqa: PLC0415

    return __version__
