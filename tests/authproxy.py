"""A hosted store in miniature: a loopback reverse proxy that asks for credentials and speaks TLS.

:class:`AuthProxy` stands in front of a store (the Oxigraph server of the publish tests): it
answers ``401`` to a request without the expected ``Authorization`` header, serves TLS with a
certificate from a ``trustme`` CA (or plain HTTP), and relays every other request to the store.
"""

from __future__ import annotations

import base64
import http.server
import socket
import ssl
import threading
from pathlib import Path
from typing import Literal, Self

import httpx
import trustme

__all__ = ["AuthProxy", "TestCA"]

_RELAYED_HEADERS = ("Content-Type", "Accept")


class TestCA:
    """A private certificate authority, its certificate for ``127.0.0.1``, and its PEM file."""

    __test__ = False  # not a test class, whatever its name

    def __init__(self, folder: Path) -> None:
        self.ca = trustme.CA()
        self.cert = self.ca.issue_cert("127.0.0.1", "localhost")
        self.bundle = folder / "private-ca.pem"
        self.ca.cert_pem.write_to_path(str(self.bundle))

    def server_context(self) -> ssl.SSLContext:
        """The TLS context a server presents the certificate with."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.cert.configure_cert(context)
        return context


class _Server(http.server.ThreadingHTTPServer):
    """A threading HTTP server whose connections are wrapped in TLS in their own thread."""

    daemon_threads = True
    tls: ssl.SSLContext | None = None

    def finish_request(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        if self.tls is None:
            super().finish_request(request, client_address)  # type: ignore[arg-type]
            return
        try:
            wrapped = self.tls.wrap_socket(request, server_side=True)  # the socket moves in
        except OSError:  # ssl.SSLError too: a client that refused the certificate
            return
        with wrapped:
            super().finish_request(wrapped, client_address)  # type: ignore[arg-type]

    def handle_error(self, request: object, client_address: object) -> None:
        """Stay quiet: a client that went away is part of what the tests do."""


class AuthProxy:
    """A reverse proxy to ``upstream`` that asks for ``scheme`` credentials (``None``: none).

    ``secret`` is ``user:password`` for basic, the token for bearer. A request without them is
    answered ``refusal`` (401, or 403 as some stores do), with a body that echoes the
    ``Authorization`` header it got, as a careless store might: the client must not show it.
    ``statuses`` lists what it answered, in order.
    """

    def __init__(
        self,
        upstream: str,
        scheme: Literal["basic", "bearer"] | None,
        secret: str = "",
        *,
        tls: TestCA | None = None,
        refusal: int = 401,
    ) -> None:
        self.upstream = upstream
        self.expected = _header(scheme, secret)
        self.refusal = refusal
        self.statuses: list[int] = []
        proxy = self

        class Relay(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                proxy.relay(self)

            def do_POST(self) -> None:
                proxy.relay(self)

            def do_PUT(self) -> None:
                proxy.relay(self)

            def do_DELETE(self) -> None:
                proxy.relay(self)

            def log_message(self, *args: object) -> None:
                pass

        self.server = _Server(("127.0.0.1", 0), Relay)
        self.server.tls = tls.server_context() if tls is not None else None
        scheme_of_url = "https" if tls is not None else "http"
        self.url = f"{scheme_of_url}://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(10)

    def relay(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        """Refuse a request without the credentials; relay the others to the store."""
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        if self.expected is not None and handler.headers.get("Authorization") != self.expected:
            echo = f"refused: {handler.headers.get('Authorization')}".encode()
            self._answer(handler, self.refusal, echo, "text/plain")
            return
        headers = {k: v for k, v in handler.headers.items() if k in _RELAYED_HEADERS}
        answer = httpx.request(
            handler.command, self.upstream + handler.path, content=body, headers=headers
        )
        self._answer(
            handler, answer.status_code, answer.content, answer.headers.get("Content-Type")
        )

    def _answer(
        self,
        handler: http.server.BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        media: str | None,
    ) -> None:
        self.statuses.append(status)
        handler.send_response(status)
        if status == self.refusal:
            handler.send_header("WWW-Authenticate", 'Basic realm="store", Bearer')
        if media:
            handler.send_header("Content-Type", media)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)


def _header(scheme: str | None, secret: str) -> str | None:
    if scheme == "basic":
        return "Basic " + base64.b64encode(secret.encode()).decode()
    if scheme == "bearer":
        return f"Bearer {secret}"
    return None
