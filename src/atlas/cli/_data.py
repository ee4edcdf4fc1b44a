"""The sub-commands over the dataset: ``export``, ``check``, ``sources fetch`` and ``diff``.

Each writes its report on standard output (``--json`` for tools) and its errors, one line each,
on standard error; its exit status is the report's: 0 ok, 1 problems found, 3 could not run (a
check that could not run, an input that cannot be read). ``atlas diff`` reads either export from
standard input when it is named ``-``. The models are imported only when a command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from atlas.cli._args import (
    STDIO,
    add_command,
    date,
    file,
    folder,
    non_negative,
    read_input,
    seconds,
)
from atlas.cli._output import one_line, print_json, printable

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    import argparse
    from typing import Any

__all__ = ["add_parsers"]


def add_parsers(sub: Any) -> None:
    """Add ``export``, ``check``, ``sources`` and ``diff`` to the sub-commands ``sub``."""
    cmd = add_command(
        sub, "export", _cmd_export, "write the versioned JSON(-LD) export", json_flag=False
    )
    cmd.add_argument(
        "--dataset",
        metavar="DIR",
        type=folder,
        help="export the Turtle files and witness records of this folder (a checkout's dataset/)"
        " and write atlas.json, paths.json and the site's layouts.json (with Graphviz) beside them",
    )
    cmd.add_argument(
        "--output",
        "-o",
        default=None,
        type=file,
        help="the file to write ('-' for stdout); default: beside the Turtle of --dataset,"
        " else standard output (never into the installed package)",
    )
    _check_options(
        add_command(sub, "check", _cmd_check, "verify every stage, step, citation, quote and date")
    )
    _sources_options(sub)
    cmd = add_command(sub, "diff", _cmd_diff, "compare two exports and print a changelog fragment")
    cmd.add_argument(
        "old", metavar="OLD.json", type=file, help="the export of the previous release ('-': stdin)"
    )
    cmd.add_argument(
        "new", metavar="NEW.json", type=file, help="the export of the new release ('-': stdin)"
    )


def _export_file(text: str) -> str:
    """The export ``atlas check --export`` reads: a file, which standard input is not."""
    import argparse  # noqa: PLC0415

    if text == STDIO:
        raise argparse.ArgumentTypeError(
            "'-' (standard input) cannot be checked: the export is checked as a file, beside"
            " the Turtle it was made from; write it to a file and name that"
        )
    return file(text)


def _check_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "folder",
        nargs="?",
        metavar="DIR",
        type=folder,
        help="check this dataset folder (as --dataset DIR)",
    )
    cmd.add_argument(
        "--sources",
        metavar="DIR",
        nargs="?",
        const=True,  # not a str: argparse leaves it alone
        type=folder,
        help="verify quotes against the snapshots in DIR (alone: the folder that"
        " 'atlas sources fetch' fills)",
    )
    cmd.add_argument(
        "--online",
        action="store_true",
        help="fetch each cited source and verify its quotes; fails when a source cannot be reached",
    )
    cmd.add_argument(
        "--max-age",
        type=non_negative,
        default=365,
        metavar="DAYS",
        help="warn about checks older than this (default 365)",
    )
    cmd.add_argument(
        "--dataset",
        metavar="DIR",
        type=folder,
        help="check this folder's Turtle files (and its atlas.json) instead of the shipped ones",
    )
    cmd.add_argument(
        "--export",
        metavar="FILE",
        type=_export_file,
        help="check this JSON export (a file: it is compared with the Turtle beside it)",
    )
    cmd.add_argument(
        "--today",
        type=date,
        default=None,
        metavar="YYYY-MM-DD",
        help="the day to check dates against (default: today)",
    )
    cmd.add_argument(
        "--no-cache",
        action="store_true",
        help="run every check again, even when an identical check of the shipped data (the same"
        " package, data, libraries, options and day) has kept its report in the user's cache"
        " ($XDG_CACHE_HOME/execution-atlas/check; also: ATLAS_NO_CACHE=1)",
    )


def _sources_options(sub: Any) -> None:
    text = "the documents the dataset quotes: fetch them to verify the quotes"
    cmd = sub.add_parser("sources", help=text, description=text)
    sources_sub = cmd.add_subparsers(dest="sources_command", metavar="SUBCOMMAND", required=True)
    text = (
        "download every source into DIR: a complete snapshot at its pinned URL is checked against"
        " its sha256, any other page is stored as the text a reader sees and its quotes are"
        " looked up one by one"
    )
    fetch = sources_sub.add_parser("fetch", help=text, description=text)
    fetch.add_argument(
        "dir",
        nargs="?",
        metavar="DIR",
        type=folder,
        help="where to store them (default: $XDG_CACHE_HOME/execution-atlas/sources)",
    )
    fetch.add_argument(
        "--dataset",
        metavar="DIR",
        type=folder,
        help="the sources of this folder's Turtle files (default: the installed dataset)",
    )
    fetch.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="ID",
        help="only this source (repeatable), e.g. pep-523",
    )
    fetch.add_argument(
        "--timeout", type=seconds, default=15.0, help="seconds per download (default 15)"
    )
    fetch.add_argument("--json", action="store_true", help="print JSON for tools")
    fetch.set_defaults(handler=_cmd_sources_fetch)


def _cmd_export(args: argparse.Namespace) -> int:
    """Export a dataset folder beside its Turtle, or any dataset to a file or standard output.

    Never into the installed package: without --dataset and -o, the export goes to standard
    output, and is refused when that is a terminal (as gzip refuses to write binary to one).
    """
    from atlas.checks import build  # noqa: PLC0415
    from atlas.data import export  # noqa: PLC0415

    to_stdout = args.output == "-" or (args.output is None and args.dataset is None)
    if to_stdout and args.output is None and sys.stdout.isatty():
        print(
            "atlas export: error: say where to write the export: --dataset DIR (atlas.json and "
            "paths.json beside its Turtle), -o FILE, or -o - (standard output); "
            "it is not written to a terminal",
            file=sys.stderr,
        )
        return 2
    dataset = Path(args.dataset) if args.dataset else None
    document = build.build() if dataset is None else build.build_folder(dataset)
    if to_stdout:
        sys.stdout.write(export.dumps(document))
        return 0
    if args.output:
        written = [export.write(document, Path(args.output))]
    else:
        assert dataset is not None  # noqa: S101 - neither stdout nor -o: the folder
        written = list(build.write_folder(document, dataset))
    counts = document.counts
    print(
        printable(
            f"wrote {' and '.join(map(str, written))}: data version {document.version}, "
            f"{counts.atlases} atlases, {counts.stages} stages, {counts.steps} steps, "
            f"{counts.citations} citations"
        ),
        file=sys.stderr,
    )
    if dataset is not None and not args.output:
        _write_layouts(document, dataset)
    return 0


def _write_layouts(document: Any, folder: Path) -> None:
    """Lay out the site's drawings beside the export, so that the site builds without Graphviz.

    Without a working Graphviz this is a warning: the export is written, and a site built from
    it lays out again the drawings whose data changed (with ``dot``, where it is installed).
    """
    from atlas.publish.site import LayoutError, write_layouts  # noqa: PLC0415

    try:
        written = write_layouts(document, folder)
    except LayoutError as error:
        print(f"atlas export: warning: {one_line(str(error))}", file=sys.stderr)
        return
    print(printable(f"wrote {written}: the layouts of the site's drawings"), file=sys.stderr)


def _cmd_check(args: argparse.Namespace) -> int:
    from atlas.checks import cached  # noqa: PLC0415

    if args.folder and args.dataset and args.folder != args.dataset:
        print(
            "atlas check: error: name the dataset folder once: DIR or --dataset DIR",
            file=sys.stderr,
        )
        return 2
    dataset = args.folder or args.dataset
    sources = None
    if args.sources is not None:  # --sources alone: the folder 'atlas sources fetch' fills
        from atlas.data.sources import default_folder  # noqa: PLC0415

        sources = default_folder() if args.sources is True else Path(args.sources)
    report = cached.check(
        sources=sources,
        online=args.online,
        max_age_days=args.max_age,
        today=args.today,
        dataset=Path(dataset) if dataset else None,
        export_path=Path(args.export) if args.export else None,
        cache=not args.no_cache,
    )
    if args.json:
        print_json(report.to_json())
    else:
        print(printable(report.text()))
    for failed in report.errors:
        print(f"atlas check: error: {one_line(f'{failed.title}: {failed.note}')}", file=sys.stderr)
    return report.exit_code


def _cmd_diff(args: argparse.Namespace) -> int:
    from atlas.publish import diff  # noqa: PLC0415

    if args.old == args.new == STDIO:
        print(
            "atlas diff: error: only one export can be read from standard input ('-'):"
            " name the other's file",
            file=sys.stderr,
        )
        return 2
    result = diff.diff(_read_export(args.old), _read_export(args.new))
    if args.json:
        print_json(result.to_json())
    else:
        print(printable(result.changelog()), end="")
    print(f"atlas diff: {one_line(result.summary())}", file=sys.stderr)
    for problem in result.problems:
        print(f"atlas diff: {one_line(str(problem))}", file=sys.stderr)
    return result.exit_code


def _read_export(name: str) -> Any:
    """The export named on the command line (``-``: standard input), as ``atlas diff`` reads it.

    Raises:
        CouldNotRunError: it cannot be read (exit status 3).
        DatasetError: it is not a valid export, naming the file (or ``<stdin>``).
    """
    from atlas.checks import build  # noqa: PLC0415
    from atlas.data._json import MAX_EXPORT_BYTES  # noqa: PLC0415

    content = read_input(name, "the export", MAX_EXPORT_BYTES)
    # any @context: a comparison may span releases (as atlas.publish.diff.diff_files reads)
    return build.read(Path("<stdin>" if name == STDIO else name), any_context=True, content=content)


def _cmd_sources_fetch(args: argparse.Namespace) -> int:
    from atlas.data import sources  # noqa: PLC0415
    from atlas.data._fetch import FetchPolicy  # noqa: PLC0415

    if args.dataset:
        from atlas.data import _dataset, turtle  # noqa: PLC0415

        document = turtle.read_turtle(_dataset.turtle_files(Path(args.dataset)))
    else:
        from atlas.query import paths as query  # noqa: PLC0415

        document = query.load()
    into = Path(args.dir) if args.dir else sources.default_folder()
    report = sources.fetch_sources(
        document, into, policy=FetchPolicy(timeout=args.timeout), only=args.source
    )
    if args.json:
        print_json(report.to_json())
    else:
        print(printable(report.text()))
    return report.exit_code
