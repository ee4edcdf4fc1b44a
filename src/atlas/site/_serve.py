"""Serve a built site on the loopback interface with the standard library's ``http.server``."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path

from atlas.site._pages import SiteError

__all__ = ["HOST", "server"]

HOST = "127.0.0.1"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """A static file handler that logs nothing (tests serve pages in a thread)."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        """Discard the access log."""


def server(
    directory: Path, port: int = 0, *, quiet: bool = False
) -> http.server.ThreadingHTTPServer:
    """A server for the site in ``directory`` on 127.0.0.1 (port 0: any free port); not started.

    Raises:
        SiteError: ``directory`` holds no built site.
    """
    directory = Path(directory)
    if not (directory / "index.html").is_file():
        raise SiteError(
            f"no site in {str(directory)!r} (no index.html);"
            f" build it with 'atlas site build {directory}'"
        )
    handler = _QuietHandler if quiet else http.server.SimpleHTTPRequestHandler
    return http.server.ThreadingHTTPServer(
        (HOST, port), functools.partial(handler, directory=str(directory))
    )
