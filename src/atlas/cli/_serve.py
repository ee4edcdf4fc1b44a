"""The SPARQL sub-commands: ``sparql`` (one query), ``serve`` (an endpoint); ``publish`` is its own.

Run as the program, ``atlas sparql`` loads the graph and then takes the network from its own
process before the query runs (``atlas.publish._sandbox``); called from Python it leaves its host
alone. rdflib, pyoxigraph and the models are imported only when a command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from atlas.cli._args import add_command, folder, port, read_input, seconds
from atlas.cli._output import print_json

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any, TypeVar

    _R = TypeVar("_R")

__all__ = ["add_parsers"]
_MAX_PATH = 4096
_MAX_QUERY_BYTES = 4 << 20  # a query file: four bytes for each of the guard's 2**20 characters


def add_parsers(sub: Any) -> None:
    """Add ``sparql`` and ``serve`` to the sub-commands ``sub``."""
    _sparql_options(
        add_command(sub, "sparql", _cmd_sparql, "run a read-only SPARQL query over the atlas")
    )
    cmd = add_command(
        sub, "serve", _cmd_serve, "serve a read-only SPARQL endpoint", json_flag=False
    )
    _serve_options(cmd)


# --- sparql --------------------------------------------------------------------------------


def _sparql_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("query", nargs="?", help="the query text, a .rq file, or - (standard input)")
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
    """The query given as an argument: its text, or that of the file it names (``.rq``, ``-``)."""
    from atlas.errors import shown  # noqa: PLC0415
    from atlas.query import store  # noqa: PLC0415

    path = Path(argument)
    if path.suffix != ".rq" and argument != "-":
        try:
            named = len(argument) < _MAX_PATH and "\n" not in argument and path.is_file()
        except (OSError, ValueError):  # no name a file could have (too long, a NUL): a query
            named = False
        if not named:
            return argument
    data = read_input(argument, "the query file", _MAX_QUERY_BYTES)  # or CouldNotRunError: 3
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise store.SparqlError(
            f"the query file {shown(argument)} is not UTF-8 text: byte "
            f"{data[error.start]:#04x} at offset {error.start}"
        ) from None


def _cmd_sparql(args: argparse.Namespace) -> int:
    from atlas.query import store  # noqa: PLC0415

    if args.list and args.json:
        print_json([named.to_json() for named in store.named_queries().values()])
        return 0
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


# --- serve ---------------------------------------------------------------------------------


def _serve_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--host", default="127.0.0.1", help="the address (default 127.0.0.1)")
    cmd.add_argument("--port", type=port, default=7878, help="the port (default 7878)")
    _query_limits(cmd)
    _client_limits(cmd)
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
        "--site", metavar="DIR", type=folder, help="also serve this built static site at /"
    )


def _above_zero(text: str) -> int:
    """A count from the command line: a whole number above 0."""
    import argparse  # noqa: PLC0415

    from atlas.cli._output import quoted  # noqa: PLC0415

    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"not a whole number above 0: {quoted(text)}")
    return number


def _query_limits(cmd: argparse.ArgumentParser) -> None:
    """The options that bound one query: its time, rows, size, answer and memory."""
    cmd.add_argument("--timeout", type=seconds, default=5.0, help="seconds per query (default 5)")
    cmd.add_argument(
        "--max-rows", type=_above_zero, default=10_000, help="rows per answer (default 10000)"
    )
    cmd.add_argument(
        "--max-request-bytes",
        type=_above_zero,
        default=65_536,
        help="largest query (default 65536)",
    )
    cmd.add_argument("--workers", type=_above_zero, default=3, help="query processes (default 3)")
    cmd.add_argument(
        "--max-answer-bytes",
        type=_above_zero,
        default=16 * 1024 * 1024,
        help="largest answer; a larger one is refused with 413 (default 16 MiB)",
    )
    cmd.add_argument(
        "--worker-memory-mib",
        type=_above_zero,
        default=1024,
        metavar="MIB",
        help="memory a query process may take beyond the graph (default 1024)",
    )


def _client_limits(cmd: argparse.ArgumentParser) -> None:
    """The options that bound one client: its queries, connections and slowness."""
    cmd.add_argument(
        "--per-client",
        type=_above_zero,
        default=1,
        help="queries of one client run at a time; its others wait (default 1)",
    )
    cmd.add_argument(
        "--client-queue",
        type=_above_zero,
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
        type=_above_zero,
        default=256,
        help="open connections at most; past that, 503 at once (default 256)",
    )
    cmd.add_argument(
        "--max-connections-per-client",
        type=_above_zero,
        default=64,
        help="open connections from one address at most (default 64; behind a proxy, set it"
        " to --max-connections)",
    )
    cmd.add_argument(
        "--read-timeout",
        type=seconds,
        default=10.0,
        help="seconds for a request's head, and again for its body (default 10)",
    )


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

    def ready(url: str) -> None:  # said once it listens and its workers answer, never before
        print(f"atlas serve: SPARQL endpoint at {url} (Ctrl-C stops it)", file=sys.stderr)
        sys.stderr.flush()

    serve.serve(settings, host=args.host, port=args.port, ready=ready)
    return 0
