"""The ``site`` sub-command: ``site build`` writes the explainer site, ``site serve`` shows it.

The site is built from the shipped export, or from the one ``--export`` names (``-``: standard
input), and swapped in whole; ``site serve`` serves a built one on 127.0.0.1 with Python's
``http.server``. Without Jinja2 (the ``site`` extra) ``site build`` could not run: exit status 3.
"""

from __future__ import annotations

import sys
from pathlib import Path

from atlas.cli._args import STDIO, add_command, file, folder, port, read_input, require_extra
from atlas.cli._output import printable, quoted

TYPE_CHECKING = False  # spares importing typing: ``atlas path`` must start fast
if TYPE_CHECKING:
    import argparse
    from typing import Any

__all__ = ["add_parsers"]


def add_parsers(sub: Any) -> None:
    """Add ``site`` and its ``build`` and ``serve`` to the sub-commands ``sub``."""
    cmd = add_command(
        sub, "site", _cmd_site_build, "build or serve the explainer site", json_flag=False
    )
    site_sub = cmd.add_subparsers(dest="site_command", metavar="SUBCOMMAND", required=True)
    text = (
        "write the static site (one page per atlas, an index, the full graph) as OUTDIR;"
        " it is built beside OUTDIR and swapped in whole, replacing the site built there before"
    )
    site_cmd = site_sub.add_parser("build", help=text, description=text)
    site_cmd.add_argument(
        "outdir",
        metavar="OUTDIR",
        type=folder,
        help="the site's folder: new, empty, or a site built before (replaced as a whole;"
        " a folder holding other files is refused)",
    )
    site_cmd.add_argument(
        "--export",
        metavar="FILE",
        type=file,
        help="build from this JSON export ('-': standard input; default: the shipped one)",
    )
    site_cmd.add_argument(
        "--issues-url",
        metavar="URL",
        type=_issues_url,
        help="the issue tracker that 'Report a problem' opens a new issue on, at URL/new"
        " (default: the one in the dataset's metadata, dcat:contactPoint)",
    )
    site_cmd.set_defaults(handler=_cmd_site_build)
    text = "serve a built site on 127.0.0.1 with Python's http.server"
    site_cmd = site_sub.add_parser("serve", help=text, description=text)
    site_cmd.add_argument("--port", type=port, default=8000, help="the port (default 8000; 0: any)")
    site_cmd.add_argument(
        "--dir", default="site", type=folder, help="the built site (default: ./site)"
    )
    site_cmd.set_defaults(handler=_cmd_site_serve)


def _issues_url(text: str) -> str:
    """An https URL without a query or fragment (checked again by the build)."""
    import argparse  # noqa: PLC0415
    import re  # noqa: PLC0415

    if not re.fullmatch(r"https://[^\s/?#@]+(/[^\s?#]*)?", text):
        raise argparse.ArgumentTypeError(
            f"not an https:// URL without '?' or '#': {quoted(text)}"
            " (e.g. https://github.com/OWNER/REPO/issues)"
        )
    return text


def _cmd_site_build(args: argparse.Namespace) -> int:
    require_extra("site")
    from atlas.checks import build  # noqa: PLC0415
    from atlas.data._json import MAX_EXPORT_BYTES  # noqa: PLC0415
    from atlas.publish import site  # noqa: PLC0415

    document = None
    if args.export:
        content = read_input(args.export, "the export", MAX_EXPORT_BYTES)
        name = "<stdin>" if args.export == STDIO else args.export
        document = build.read(Path(name), content=content)
    report = site.build(Path(args.outdir), document, issues_url=args.issues_url)
    page, weight = report.heaviest
    print(
        printable(
            f"wrote {len(report.weights)} pages to {report.outdir} in {report.seconds:.2f} s;"
            f" heaviest: {page}, {weight / 1024:.0f} KiB with its CSS and JS"
        )
    )
    return 0


def _cmd_site_serve(args: argparse.Namespace) -> int:
    from atlas.errors import CouldNotRunError  # noqa: PLC0415
    from atlas.publish import site  # noqa: PLC0415

    try:
        served = site.server(Path(args.dir), args.port)
    except site.SiteError as error:  # no site built there: nothing to serve (exit status 3)
        raise CouldNotRunError(str(error)) from None
    with served as httpd:
        where = f"http://127.0.0.1:{httpd.server_address[1]}/"
        print(printable(f"serving {args.dir} on {where} (Ctrl-C stops)"))
        sys.stdout.flush()
        httpd.serve_forever()
    return 0
