"""The output options of ``atlas path``: ``--format`` (``--json``: ``--format json``), ``--brief``.

The renderings are :func:`atlas.render`'s (``atlas.query._render``); this module only adds the
options and prints. Standard library only: ``atlas path`` must start fast.
"""

from __future__ import annotations

import sys

from atlas.cli._output import print_json

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    import argparse

    from atlas.models import ExecutionPath

__all__ = ["FORMATS", "add_arguments", "chosen", "print_path"]

#: The formats of ``atlas.render`` (``atlas.query._render.FORMATS``: a test keeps them equal).
FORMATS = ("text", "json", "markdown", "csv", "dot", "mermaid")

_FORMAT_HELP = (
    "what to print (default: text): text for people; json (also --json), the path's model "
    "dump; markdown, a heading and a numbered list of the steps, citations as links; csv (RFC "
    "4180), a header row and one row per step: number, step, from, from_label, verb, to, "
    "to_label, ends_python, claims, citations, sources (ids and URLs space-separated, the n-th "
    "is [n] in claims); dot, a Graphviz digraph (dot -Tsvg draws it); mermaid, a Mermaid "
    "flowchart"
)
_BRIEF_HELP = (
    "the short view, one step per line, without claims or citations: text and markdown, the "
    "summary then 'from \u2014 verb \u2192 to' for each step and where Python ends; csv, the "
    "columns up to ends_python; json, the summary and those columns for each step; dot, no "
    "tooltips; mermaid, unchanged (already short)"
)


def add_arguments(cmd: argparse.ArgumentParser) -> None:
    """Add ``--format`` and ``--brief`` to ``cmd`` (which has ``--json`` already)."""
    cmd.add_argument("--format", choices=FORMATS, default=None, help=_FORMAT_HELP)
    cmd.add_argument("--brief", action="store_true", help=_BRIEF_HELP)


def chosen(args: argparse.Namespace) -> str:
    """The format asked for: ``--format``, else ``json`` for ``--json``, else ``text``.

    Raises:
        SystemExit: status 2 (a usage error) when ``--json`` and another ``--format`` are given.
    """
    if args.json and args.format not in (None, "json"):
        print(
            f"atlas path: error: --json and --format {args.format} disagree: give one of them",
            file=sys.stderr,
        )
        raise SystemExit(2)
    return str(args.format or ("json" if args.json else "text"))


def print_path(result: ExecutionPath, format: str, *, brief: bool) -> None:  # noqa: A002 - as --format
    """Print ``result`` in ``format``; JSON as every command prints it (ASCII where it must)."""
    from atlas.query._render import render  # noqa: PLC0415 - after the path is found

    text = render(result, format, brief=brief)
    if format == "json":
        import json  # noqa: PLC0415

        print_json(json.loads(text))
    else:
        sys.stdout.write(text)
