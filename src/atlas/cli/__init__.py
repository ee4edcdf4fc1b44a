"""The ``atlas`` command: thin sub-commands over the API. Each parses, calls and prints.

Library errors become one line on stderr and exit status 1, never a traceback; wrong usage is
argparse's message and exit status 2. Arguments that are not UTF-8 reach Python as lone
surrogates: they may name files (any bytes may), but as text (a value, an id, a query) they are
refused with a message that says so. What is printed escapes such characters instead of failing.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from pathlib import Path

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Sequence
    from typing import Any, NoReturn, TypeVar

    _R = TypeVar("_R")
    Handler = Callable[[argparse.Namespace], int]

__all__ = ["main"]
_MAX_PATH = 4096
_MAX_QUERY_BYTES = 4 << 20  # a query file: four bytes for each of the guard's 2**20 characters
_MAX_PORT = 65535
# characters that would break the one line of an error, or drive a terminal: shown escaped
_CONTROLS = {
    code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0)) if code != ord("\t")
} | {0x2028: "\\u2028", 0x2029: "\\u2029"}


def _printable(text: str) -> str:
    r"""``text`` as it can be written in UTF-8: a byte that was not UTF-8 shown as ``\xNN``.

    >>> _printable("caf\udce9")
    'caf\\xe9'
    """
    if text.isascii():
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")  # the bytes the text was read from
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def _one_line(text: str) -> str:
    """``text`` as one printable line: line breaks become spaces, control characters escapes."""
    return _printable(" ".join(text.splitlines())).translate(_CONTROLS)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors stay printable whatever the arguments held.

    An option typed ``Path`` (those of ``atlas witness``, all files) is read by ``_file_path``:
    a name no file can have (empty, with a NUL, a folder's) is a usage error, not a traceback.
    """

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """Add an argument; ``type=Path`` becomes a checked file name."""
        if kwargs.get("type") is Path:
            kwargs["type"] = _file_path
        return super().add_argument(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print the usage and the error in one line, then exit with status 2."""
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {_one_line(message)}\n")


def _print_json(data: Any) -> None:
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a file name that is not UTF-8: JSON escapes it
            text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=True, default=str)
    print(text)


def _quoted(text: str) -> str:
    """``text`` quoted for a usage error: its repr, cut when long."""
    from atlas.errors import shown  # noqa: PLC0415

    return shown(text)


def _dump(model: Any) -> Any:
    if isinstance(model, tuple | list):
        return [_dump(m) for m in model]
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


# --- path, stages, steps, stage ------------------------------------------------------------


def _cmd_path(args: argparse.Namespace) -> int:
    from atlas.query import _pathtable  # noqa: PLC0415 - standard library only

    branches = tuple(args.branch) + (("graph breaks",) if args.graph_breaks else ())
    if not args.json and not branches:  # the table holds the default paths
        from atlas.data import _resources  # noqa: PLC0415

        try:
            export = _resources.export_file().read_bytes()
            table = _resources.path_table_file().read_bytes()
        except OSError:
            text = None  # no table: the models answer
        else:
            text = _pathtable.lookup(args.values, args.atlas, export, table)
        if text is not None:
            sys.stdout.write(text)
            return 0
    from atlas.query import paths as query  # noqa: PLC0415

    result = query.path(*args.values, atlas=args.atlas, branches=branches)
    if args.json:
        _print_json(_dump(result))
    else:
        sys.stdout.write(_pathtable.render(result))
    return 0


def _cmd_stages(args: argparse.Namespace) -> int:
    from atlas.query import paths as query  # noqa: PLC0415

    found = query.stages(args.atlas)
    if args.json:
        _print_json(_dump(found))
        return 0
    width = max((len(s.id) for s in found), default=0)
    for stage in found:
        print(f"{stage.id:<{width}}  {stage.label} ({stage.kind.split('/', 1)[1]})")
    return 0


def _cmd_steps(args: argparse.Namespace) -> int:
    from atlas.query import paths as query  # noqa: PLC0415

    index = query.index()
    found = query.steps(args.atlas)
    if args.json:
        _print_json(_dump(found))
        return 0
    for step in found:
        when = ", ".join(
            [*(v.split("/", 1)[1] for v in step.when), *(f"any {d}" for d in step.when_any)]
        )
        print(
            f"{step.id}\n  {index.stage(step.from_stage).label} \u2014 {step.verb} \u2192 "
            f"{index.stage(step.to_stage).label}  [{when}]"
        )
    return 0


def _cmd_stage(args: argparse.Namespace) -> int:
    from atlas.query import paths as query  # noqa: PLC0415

    index = query.index()
    stage = query.stage(args.id)
    if args.json:
        _print_json(_dump(stage))
        return 0
    print(f"{stage.label} ({stage.id})")
    print(f"kind: {stage.kind.split('/', 1)[1]}")
    if stage.technology:
        print(f"technology: {index.technologies[stage.technology].label}")
    print(f"atlases: {', '.join(stage.atlases)}")
    print(f"runs in the Python interpreter: {'yes' if stage.executes_in_python else 'no'}")
    print()
    print(stage.description)
    for item in index.evidence(stage.citations):
        print()
        print(f"Source: {item}")
    return 0


# --- sparql, export, check -----------------------------------------------------------------


def _sandboxed(program: bool, call: Callable[..., _R], *args: Any) -> _R:  # noqa: FBT001
    """Call; in the program, first load the graph and take the network from this process.

    The parser guard reads the query in ``call``; the sandbox holds even if it were fooled.
    """
    if program:
        from atlas.publish._sandbox import forbid_network  # noqa: PLC0415
        from atlas.query import store  # noqa: PLC0415

        store.store()
        forbid_network()
    return call(*args)


def _query_text(argument: str) -> str:
    """The query given as an argument: its text, or that of the file it names (``.rq``)."""
    from atlas.data._files import read_bytes  # noqa: PLC0415
    from atlas.errors import shown  # noqa: PLC0415
    from atlas.query import store  # noqa: PLC0415

    path = Path(argument)
    if path.suffix != ".rq":
        try:
            named = len(argument) < _MAX_PATH and "\n" not in argument and path.is_file()
        except (OSError, ValueError):  # no name a file could have (too long, a NUL): a query
            named = False
        if not named:
            return argument
    try:
        data = read_bytes(path, _MAX_QUERY_BYTES)
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or error
        raise store.SparqlError(f"cannot read the query file {shown(argument)}: {reason}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise store.SparqlError(
            f"the query file {shown(argument)} is not UTF-8 text: byte "
            f"{data[error.start]:#04x} at offset {error.start}"
        ) from None


def _cmd_sparql(args: argparse.Namespace) -> int:
    from atlas.query import store  # noqa: PLC0415

    if args.list:
        for named in store.named_queries().values():
            print(f"{named.name}: {named.summary}")
            for param in named.parameters:
                print(f"    --bind {param.name}=...  {param.description}")
            if named.selection:
                print("    --bind DIMENSION=VALUE  one per dimension, e.g. mode=compile device=gpu")
        return 0
    bindings = dict(store.parse_binding(b) for b in args.bind)
    if args.name:
        if args.query:
            raise store.SparqlError("give either a query or --name NAME, not both")
        result = _sandboxed(args.program, store.run, args.name, bindings)
    else:
        if not args.query:
            raise store.SparqlError("give a query, a .rq file, --name NAME or --list")
        text = _query_text(args.query)
        result = _sandboxed(args.program, store.execute, text, bindings)
    sys.stdout.write(store.write(result, "json" if args.json else args.format).decode())
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from atlas.publish import serve  # noqa: PLC0415

    settings = serve.Settings(
        timeout=args.timeout,
        max_rows=args.max_rows,
        max_request_bytes=args.max_request_bytes,
        max_answer_bytes=args.max_answer_bytes,
        worker_memory=args.worker_memory_mib * 1024 * 1024,
        workers=args.workers,
        per_client=args.per_client,
        client_queue=args.client_queue,
        max_connections=args.max_connections,
        max_connections_per_client=args.max_connections_per_client,
        read_timeout=args.read_timeout,
        client_header=args.client_header,
        allowed_hosts=tuple(args.allow_host),
        cors_origins=tuple(args.cors_origin),
        site=Path(args.site) if args.site else None,
    )
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"atlas serve: warning: {args.host} is reachable from other machines", file=sys.stderr
        )
    print(f"atlas serve: SPARQL endpoint at http://{args.host}:{args.port}/sparql", file=sys.stderr)
    serve.serve(settings, host=args.host, port=args.port)
    return 0


def _cmd_publish(args: argparse.Namespace) -> int:
    from atlas.publish import graphstore as publish  # noqa: PLC0415

    endpoints = publish.Endpoints.of(args.store)
    endpoints = publish.Endpoints(
        args.graph_store or endpoints.graph_store,
        args.query_endpoint or endpoints.query,
        args.update_endpoint or endpoints.update,
    )
    done = publish.publish(
        args.store,
        args.graph,
        endpoints=endpoints,
        timeout=args.timeout,
        stale_after=args.stale_after,
    )
    if args.json:
        _print_json(
            {
                "graph": done.graph,
                "triples": done.triples,
                "seconds": done.seconds,
                "removed": list(done.removed),
            }
        )
    else:
        print(done)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    """Export a dataset folder beside its Turtle, or any dataset to a file or standard output.

    Never into the installed package: without --dataset and -o, the export goes to standard
    output, and is refused when that is a terminal (as gzip refuses to write binary to one).
    """
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
    folder = Path(args.dataset) if args.dataset else None
    document = export.build() if folder is None else export.build_folder(folder)
    if to_stdout:
        sys.stdout.write(export.dumps(document))
        return 0
    if args.output:
        written = [export.write(document, Path(args.output))]
    else:
        assert folder is not None  # noqa: S101 - neither stdout nor -o: the folder
        written = list(export.write_folder(document, folder))
    counts = document.counts
    print(
        _printable(
            f"wrote {' and '.join(map(str, written))}: data version {document.version}, "
            f"{counts.atlases} atlases, {counts.stages} stages, {counts.steps} steps, "
            f"{counts.citations} citations"
        ),
        file=sys.stderr,
    )
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from atlas.checks import verify  # noqa: PLC0415

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
    report = verify.check(
        sources=sources,
        online=args.online,
        max_age_days=args.max_age,
        today=args.today,
        dataset=Path(dataset) if dataset else None,
        export_path=Path(args.export) if args.export else None,
    )
    if args.json:
        _print_json(report.to_json())
    else:
        print(_printable(report.text()))
    for failed in report.errors:
        print(f"atlas check: error: {_one_line(f'{failed.title}: {failed.note}')}", file=sys.stderr)
    return report.exit_code


def _cmd_diff(args: argparse.Namespace) -> int:
    from atlas.publish import diff  # noqa: PLC0415

    result = diff.diff_files(Path(args.old), Path(args.new))
    if args.json:
        _print_json(result.to_json())
    else:
        print(_printable(result.changelog()), end="")
    print(f"atlas diff: {_one_line(result.summary())}", file=sys.stderr)
    for problem in result.problems:
        print(f"atlas diff: {_one_line(str(problem))}", file=sys.stderr)
    return result.exit_code


def _cmd_sources_fetch(args: argparse.Namespace) -> int:
    from atlas.data import sources  # noqa: PLC0415
    from atlas.data._fetch import FetchPolicy  # noqa: PLC0415

    if args.dataset:
        from atlas.data import _dataset, turtle  # noqa: PLC0415

        document = turtle.read_turtle(_dataset.turtle_files(Path(args.dataset)))
    else:
        from atlas.query import paths as query  # noqa: PLC0415

        document = query.load()
    folder = Path(args.dir) if args.dir else sources.default_folder()
    report = sources.fetch_sources(
        document, folder, policy=FetchPolicy(timeout=args.timeout), only=args.source
    )
    if args.json:
        _print_json(report.to_json())
    else:
        print(_printable(report.text()))
    return report.exit_code


def _cmd_site_build(args: argparse.Namespace) -> int:
    from atlas.data import export  # noqa: PLC0415
    from atlas.publish import site  # noqa: PLC0415

    document = export.read(Path(args.export)) if args.export else None
    report = site.build(Path(args.outdir), document)
    page, weight = report.heaviest
    print(
        _printable(
            f"wrote {len(report.weights)} pages to {report.outdir} in {report.seconds:.2f} s;"
            f" heaviest: {page}, {weight / 1024:.0f} KiB with its CSS and JS"
        )
    )
    return 0


def _cmd_site_serve(args: argparse.Namespace) -> int:
    from atlas.publish import site  # noqa: PLC0415

    with site.server(Path(args.dir), args.port) as httpd:
        where = f"http://127.0.0.1:{httpd.server_address[1]}/"
        print(_printable(f"serving {args.dir} on {where} (Ctrl-C stops)"))
        sys.stdout.flush()
        httpd.serve_forever()
    return 0


# --- the parser ----------------------------------------------------------------------------


@functools.cache  # built once: main() may be called many times in one process
def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="atlas",
        description="Execution Atlas: what actually happens when software runs a model.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(
        name: str, handler: Handler, help_text: str, *, json_flag: bool = True
    ) -> argparse.ArgumentParser:
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        if json_flag:
            cmd.add_argument("--json", action="store_true", help="print JSON for tools")
        cmd.set_defaults(handler=handler)
        return cmd

    cmd = command("path", _cmd_path, "print the journey of one mode and device, step by step")
    cmd.add_argument(
        "values",
        nargs="+",
        metavar="VALUE",
        help="one value per dimension, in order (PyTorch: MODE DEVICE, e.g. compile gpu)",
    )
    cmd.add_argument("--atlas", default="pytorch", help="the atlas (default: pytorch)")
    cmd.add_argument(
        "--graph-breaks",
        action="store_true",
        help="torch.compile only: add the code TorchDynamo cannot trace, which runs in normal "
        "Python between compiled graphs (the same as --branch 'graph breaks')",
    )
    cmd.add_argument(
        "--branch",
        action="append",
        default=[],
        metavar="NAME",
        help="add a branch the default path leaves out (repeatable)",
    )

    for name, handler, text in (
        ("stages", _cmd_stages, "list the stages"),
        ("steps", _cmd_steps, "list the steps with their conditions"),
    ):
        cmd = command(name, handler, text)
        cmd.add_argument("--atlas", default=None, help="only this atlas")

    cmd = command("stage", _cmd_stage, "describe one stage, with its sources")
    cmd.add_argument("id", help="the stage's id, e.g. torchdynamo")

    _sparql_options(command("sparql", _cmd_sparql, "run a read-only SPARQL query over the atlas"))
    _serve_options(
        command("serve", _cmd_serve, "serve a read-only SPARQL endpoint", json_flag=False)
    )
    _publish_options(command("publish", _cmd_publish, "push the atlas into a SPARQL 1.1 store"))

    cmd = command("export", _cmd_export, "write the versioned JSON(-LD) export", json_flag=False)
    cmd.add_argument(
        "--dataset",
        metavar="DIR",
        type=_folder,
        help="export the Turtle files and witness records of this folder (a checkout's dataset/)"
        " and write atlas.json and paths.json beside them",
    )
    cmd.add_argument(
        "--output",
        "-o",
        default=None,
        type=_file,
        help="the file to write ('-' for stdout); default: beside the Turtle of --dataset,"
        " else standard output (never into the installed package)",
    )

    cmd = command("check", _cmd_check, "verify every stage, step, citation, quote and date")
    cmd.add_argument(
        "folder",
        nargs="?",
        metavar="DIR",
        type=_folder,
        help="check this dataset folder (as --dataset DIR)",
    )
    cmd.add_argument(
        "--sources",
        metavar="DIR",
        nargs="?",
        const=True,  # not a str: argparse leaves it alone
        type=_folder,
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
        type=int,
        default=365,
        metavar="DAYS",
        help="warn about checks older than this (default 365)",
    )
    cmd.add_argument(
        "--dataset",
        metavar="DIR",
        type=_folder,
        help="check this folder's Turtle files (and its atlas.json) instead of the shipped ones",
    )
    cmd.add_argument("--export", metavar="FILE", type=_file, help="check this JSON export")
    cmd.add_argument(
        "--today",
        type=_date,
        default=None,
        metavar="YYYY-MM-DD",
        help="the day to check dates against (default: today)",
    )

    _sources_options(sub)

    cmd = command("diff", _cmd_diff, "compare two exports and print a changelog fragment")
    cmd.add_argument(
        "old", metavar="OLD.json", type=_file, help="the export of the previous release"
    )
    cmd.add_argument("new", metavar="NEW.json", type=_file, help="the export of the new release")

    cmd = command("site", _cmd_site_build, "build or serve the explainer site", json_flag=False)
    site_sub = cmd.add_subparsers(dest="site_command", metavar="SUBCOMMAND", required=True)
    text = (
        "write the static site (one page per atlas, an index, the full graph) as OUTDIR;"
        " it is built beside OUTDIR and swapped in whole, replacing the site built there before"
    )
    site_cmd = site_sub.add_parser("build", help=text, description=text)
    site_cmd.add_argument(
        "outdir",
        metavar="OUTDIR",
        type=_folder,
        help="the site's folder: new, empty, or a site built before (replaced as a whole;"
        " a folder holding other files is refused)",
    )
    site_cmd.add_argument(
        "--export",
        metavar="FILE",
        type=_file,
        help="build from this JSON export (default: the shipped one)",
    )
    site_cmd.set_defaults(handler=_cmd_site_build)
    text = "serve a built site on 127.0.0.1 with Python's http.server"
    site_cmd = site_sub.add_parser("serve", help=text, description=text)
    site_cmd.add_argument(
        "--port", type=_port, default=8000, help="the port (default 8000; 0: any)"
    )
    site_cmd.add_argument(
        "--dir", default="site", type=_folder, help="the built site (default: ./site)"
    )
    site_cmd.set_defaults(handler=_cmd_site_serve)

    from atlas._witness.cli import add_parser as add_witness_parser  # noqa: PLC0415

    add_witness_parser(sub)
    return parser


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
        type=_folder,
        help="where to store them (default: $XDG_CACHE_HOME/execution-atlas/sources)",
    )
    fetch.add_argument(
        "--dataset",
        metavar="DIR",
        type=_folder,
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
        "--timeout", type=_seconds, default=15.0, help="seconds per download (default 15)"
    )
    fetch.add_argument("--json", action="store_true", help="print JSON for tools")
    fetch.set_defaults(handler=_cmd_sources_fetch)


def _sparql_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("query", nargs="?", help="the query text, or a .rq file")
    cmd.add_argument("--list", action="store_true", help="list the named queries")
    cmd.add_argument("--name", metavar="NAME", help="run the named query NAME (see --list)")
    cmd.add_argument(
        "--bind",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a value for a variable or parameter (repeatable); <...> is an IRI",
    )
    cmd.add_argument(
        "--format",
        choices=["table", "json", "csv", "tsv", "xml", "turtle", "ntriples"],
        default=None,
        help="output format (default: table for rows, turtle for CONSTRUCT/DESCRIBE;"
        " json is SPARQL 1.1 Results JSON)",
    )


def _serve_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--host", default="127.0.0.1", help="the address (default 127.0.0.1)")
    cmd.add_argument("--port", type=_port, default=7878, help="the port (default 7878)")
    cmd.add_argument("--timeout", type=_seconds, default=5.0, help="seconds per query (default 5)")
    cmd.add_argument("--max-rows", type=int, default=10_000, help="rows per answer (default 10000)")
    cmd.add_argument(
        "--max-request-bytes", type=int, default=65_536, help="largest query (default 65536)"
    )
    cmd.add_argument("--workers", type=int, default=3, help="query processes (default 3)")
    cmd.add_argument(
        "--max-answer-bytes",
        type=int,
        default=16 * 1024 * 1024,
        help="largest answer; a larger one is refused with 413 (default 16 MiB)",
    )
    cmd.add_argument(
        "--worker-memory-mib",
        type=int,
        default=1024,
        metavar="MIB",
        help="memory a query process may take beyond the graph (default 1024)",
    )
    cmd.add_argument(
        "--per-client",
        type=int,
        default=1,
        help="queries of one client run at a time; its others wait (default 1)",
    )
    cmd.add_argument(
        "--client-queue",
        type=int,
        default=8,
        help="queries of one client that may wait; past that, 429 (default 8)",
    )
    cmd.add_argument(
        "--client-header",
        metavar="NAME",
        help="a header that names the client (a token, or X-Forwarded-For behind a proxy);"
        " default: the client's address",
    )
    cmd.add_argument(
        "--max-connections",
        type=int,
        default=256,
        help="open connections at most; past that, 503 at once (default 256)",
    )
    cmd.add_argument(
        "--max-connections-per-client",
        type=int,
        default=64,
        help="open connections from one address at most (default 64; behind a proxy, set it"
        " to --max-connections)",
    )
    cmd.add_argument(
        "--read-timeout",
        type=_seconds,
        default=10.0,
        help="seconds for a request's head, and again for its body (default 10)",
    )
    cmd.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="answer requests for this Host name (repeatable; default: loopback names and --host)",
    )
    cmd.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="allow this origin through CORS (repeatable; default: no CORS)",
    )
    cmd.add_argument(
        "--site", metavar="DIR", type=_folder, help="also serve this built static site at /"
    )


def _publish_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--store", required=True, metavar="URL", help="the store's base URL")
    cmd.add_argument(
        "--graph",
        default="https://w3id.org/execution-atlas/",
        metavar="IRI",
        help="the named graph to replace (default: the dataset IRI)",
    )
    cmd.add_argument("--graph-store", metavar="URL", help="Graph Store endpoint (URL/store)")
    cmd.add_argument("--query-endpoint", metavar="URL", help="query endpoint (URL/query)")
    cmd.add_argument("--update-endpoint", metavar="URL", help="update endpoint (URL/update)")
    cmd.add_argument(
        "--timeout", type=_seconds, default=60.0, help="seconds per request (default 60)"
    )
    cmd.add_argument(
        "--stale-after",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="remove temporary graphs that killed runs left for this graph once older than"
        " this (default 3600; 0 removes all: only when no other publish can be running)",
    )


def _date(text: str) -> dt.date:
    import datetime as dt  # noqa: PLC0415

    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {_quoted(text)}") from None


def _port(text: str) -> int:
    """A TCP port from the command line: 0 (any free port) to 65535."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= _MAX_PORT:
        raise argparse.ArgumentTypeError(f"not a port (0 to {_MAX_PORT}): {_quoted(text)}")
    return port


def _seconds(text: str) -> float:
    """A number of seconds from the command line: finite, above 0."""
    import math  # noqa: PLC0415

    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise argparse.ArgumentTypeError(f"not a number of seconds above 0: {_quoted(text)}")
    return seconds


def _folder(text: str) -> str:
    """A folder (or file) name from the command line: any bytes, but no NUL, not empty."""
    from atlas.errors import AtlasError  # noqa: PLC0415
    from atlas.models._names import file_name  # noqa: PLC0415

    try:
        file_name(text, "value")
    except AtlasError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _file(text: str) -> str:
    """A file name from the command line: a folder name ('.', '..', ending in '/') is refused."""
    if Path(_folder(text)).name in ("", ".", "..") or text.endswith("/"):
        raise argparse.ArgumentTypeError(f"value {_quoted(text)} names a folder, not a file")
    return text


def _file_path(text: str) -> Path:
    """A file name from the command line, as a path."""
    return Path(_file(text))


def _version() -> str:
    from atlas._version import __version__  # noqa: PLC0415

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``atlas`` command; returns the exit status.

    Run as the program (``argv`` left out), ``atlas sparql`` takes the network from its own
    process before the query runs; called from Python with ``argv``, it leaves its host alone.

    Raises:
        SystemExit: for ``--help``, ``--version`` and wrong usage (status 2), as argparse does.
        ArgumentTypeError: ``argv`` is not a sequence of ``str``.
    """
    if argv is not None and (
        isinstance(argv, str | bytes) or not all(isinstance(item, str) for item in argv)
    ):
        from atlas.errors import ArgumentTypeError  # noqa: PLC0415

        raise ArgumentTypeError("argv", argv, "a sequence of str (the arguments, no program)")
    parser = _parser()
    args = parser.parse_args(argv)
    args.program = argv is None
    try:
        handler: Handler = args.handler
        return handler(args)
    except BrokenPipeError:
        # The reader went away (``atlas path ... | head``): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"atlas {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        from atlas.errors import AtlasError  # noqa: PLC0415 - imported only when needed

        if not isinstance(error, AtlasError | OSError | UnicodeError):
            raise
        print(f"atlas {args.command}: error: {_one_line(str(error))}", file=sys.stderr)
        return 1
