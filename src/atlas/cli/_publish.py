"""The ``publish`` sub-command: push the atlas into a SPARQL 1.1 store, hosted ones included.

A hosted store asks for credentials and speaks TLS. The secret is never an argument: ``--auth
basic`` or ``--auth bearer`` reads ``user:password`` or a token from an environment variable
(``--auth-env NAME``) or from the first line of a file (``--auth-file PATH``, ``-`` for standard
input), and no message shows it. TLS certificates are verified unless ``--insecure`` (which
warns); ``--ca-bundle PATH`` trusts a private CA. httpx and pyoxigraph are imported only when the
command runs.
"""

from __future__ import annotations

import sys

from atlas.cli._args import add_command, file, read_input, seconds
from atlas.cli._output import print_json

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from atlas.publish.graphstore import Credentials, Published

__all__ = ["add_parsers"]
_MAX_AUTH_BYTES = 64 * 1024


def add_parsers(sub: Any) -> None:
    """Add ``publish`` to the sub-commands ``sub``."""
    cmd = add_command(sub, "publish", _cmd_publish, "push the atlas into a SPARQL 1.1 store")
    _store_options(cmd)
    _access_options(cmd)


def _store_options(cmd: argparse.ArgumentParser) -> None:
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
        "--timeout", type=seconds, default=60.0, help="seconds per request (default 60)"
    )
    cmd.add_argument(
        "--stale-after",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="remove temporary graphs that killed runs left for this graph once older than"
        " this (default 3600; 0 removes all: only when no other publish can be running)",
    )
    cmd.add_argument(
        "--no-witness",
        action="store_true",
        help="publish the atlas only, not the witness records (each a named graph of its own)",
    )


def _access_options(cmd: argparse.ArgumentParser) -> None:
    """Credentials and TLS: never a secret on the command line, TLS verified by default."""
    cmd.add_argument(
        "--auth",
        choices=["basic", "bearer"],
        help="send credentials: basic (user:password) or bearer (a token), read from"
        " --auth-env or --auth-file",
    )
    source = cmd.add_mutually_exclusive_group()
    source.add_argument(
        "--auth-env",
        metavar="NAME",
        help="the environment variable that holds the credentials (its name, not its value)",
    )
    source.add_argument(
        "--auth-file",
        metavar="PATH",
        type=file,
        help="the file whose first line holds the credentials (- for standard input)",
    )
    tls = cmd.add_mutually_exclusive_group()
    tls.add_argument(
        "--ca-bundle",
        metavar="PATH",
        type=_ca_bundle,
        help="trust only the CA certificates in this PEM file (a private CA)",
    )
    tls.add_argument(
        "--insecure",
        action="store_true",
        help="do not verify the store's TLS certificate (unsafe: warns)",
    )


def _ca_bundle(text: str) -> str:
    """A CA bundle from the command line: a file, not standard input."""
    import argparse  # noqa: PLC0415

    if text == "-":
        raise argparse.ArgumentTypeError("the CA bundle is a file: '-' (standard input) is not")
    return file(text)


def _credentials(args: argparse.Namespace) -> Credentials | None:
    """The credentials the options name, read from their source; ``None`` without ``--auth``."""
    import argparse  # noqa: PLC0415

    from atlas.publish.graphstore import Credentials  # noqa: PLC0415

    if args.auth is None:
        if args.auth_env or args.auth_file:
            raise argparse.ArgumentTypeError("--auth-env and --auth-file need --auth")
        return None
    if args.auth_env:
        return Credentials.from_env(args.auth, args.auth_env)
    if args.auth_file:
        data = read_input(args.auth_file, "the auth file", _MAX_AUTH_BYTES)
        shown = "standard input" if args.auth_file == "-" else f"the auth file {args.auth_file!r}"
        return Credentials.from_text(args.auth, data, shown)
    raise argparse.ArgumentTypeError(f"--auth {args.auth} needs --auth-env NAME or --auth-file")


def _cmd_publish(args: argparse.Namespace) -> int:
    import argparse  # noqa: PLC0415
    import warnings  # noqa: PLC0415

    from atlas.publish import graphstore as publish  # noqa: PLC0415

    try:
        credentials = _credentials(args)
    except argparse.ArgumentTypeError as error:  # a usage error, found once parsed
        print(f"atlas publish: error: {error}", file=sys.stderr)
        return 2
    endpoints = publish.Endpoints.of(args.store)
    endpoints = publish.Endpoints(
        args.graph_store or endpoints.graph_store,
        args.query_endpoint or endpoints.query,
        args.update_endpoint or endpoints.update,
    )
    with warnings.catch_warnings():  # said as one line each, before the first request
        warnings.simplefilter("always", publish.InsecureWarning)
        warnings.showwarning = _warn
        done = publish.publish(
            args.store,
            args.graph,
            endpoints=endpoints,
            timeout=args.timeout,
            stale_after=args.stale_after,
            witness=not args.no_witness,
            credentials=credentials,
            ca_bundle=args.ca_bundle,
            insecure=args.insecure,
        )
    _print(done, json=args.json)
    return 0


def _warn(message: Warning | str, *_: object, **__: object) -> None:
    print(f"atlas publish: warning: {message}", file=sys.stderr)


def _print(done: Published, *, json: bool) -> None:
    if json:
        print_json(
            {
                "graph": done.graph,
                "triples": done.triples,
                "seconds": done.seconds,
                "removed": list(done.removed),
                "witness": [{"graph": g, "triples": n} for g, n in done.witness],
            }
        )
    else:
        print(done)
