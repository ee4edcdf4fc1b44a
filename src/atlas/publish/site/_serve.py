"""Serve a built site on the loopback interface with the standard library's ``http.server``."""

from __future__ import annotations

import functools
import http
import http.server
from pathlib import Path
from typing import Any

from atlas.publish._hosts import LOOPBACK_NAMES, host_name
from atlas.publish.site._views import SiteError

__all__ = ["HOST", "server"]

HOST = "127.0.0.1"


class _ConfinedHandler(http.server.SimpleHTTPRequestHandler):
    """The standard static handler, kept inside its folder.

    A symbolic link that leads out of it, and anything that is neither a folder nor a regular
    file (a FIFO would block), is answered 404, as is a folder without an index (no listings).
    Only requests for loopback names are answered (421 otherwise: no DNS rebinding), and a
    connection that sends nothing for ``timeout`` seconds is closed.
    """

    timeout = 10  # seconds a connection may stay silent (socketserver's own setting)

    def send_head(self) -> Any:
        """Refuse what lies outside the folder or is not a plain file, then serve as usual."""
        if host_name(self.headers.get("Host", "")) not in LOOPBACK_NAMES:
            self.send_error(http.HTTPStatus.MISDIRECTED_REQUEST, "Host not served here")
            return None
        try:
            root = Path(self.directory).resolve()
            target = Path(self.translate_path(self.path)).resolve()
            refused = not target.is_relative_to(root) or (
                target.exists() and not (target.is_dir() or target.is_file())
            )
        except (OSError, RuntimeError, ValueError):  # a NUL, a loop of symbolic links
            refused = True
        if refused:
            self.send_error(http.HTTPStatus.NOT_FOUND, "File not found")
            return None
        return super().send_head()

    def list_directory(self, path: Any) -> None:  # noqa: ARG002 - the stdlib's signature
        """No listings: a folder without an index is not found."""
        self.send_error(http.HTTPStatus.NOT_FOUND, "File not found")


class _QuietHandler(_ConfinedHandler):
    """A confined handler that logs nothing (tests serve pages in a thread)."""

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
    handler = _QuietHandler if quiet else _ConfinedHandler
    return http.server.ThreadingHTTPServer(
        (HOST, port), functools.partial(handler, directory=str(directory))
    )
