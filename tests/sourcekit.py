"""Helpers for the tests of pinned sources and of the curator's loop: a dataset, a page server.

:func:`make_dataset` lays out a tiny dataset folder as a checkout's ``dataset/`` is laid out:
the mini dataset's ``catalog.ttl`` and ``toy.ttl``, the pinned and hashed ``sources.ttl`` of
``fixtures/sourced``, and (optionally) a witness record. :class:`PageServer` serves the pages of
``fixtures/sourced/pages`` on 127.0.0.1, in this process; :meth:`PageServer.policy` sends the
dataset's ``https://example.org/`` URLs to it.
"""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Self

from atlas.data import _resources
from atlas.data._fetch import FetchPolicy
from checkkit import MINI

SOURCED = Path(__file__).resolve().parent / "fixtures" / "sourced"
SNAPSHOTS = SOURCED / "sources"
PAGES = SOURCED / "pages"
GUIDE_URL = "/raw/0123abc/guide.md"
SPEC_URL = "/toy/spec.html"


def make_dataset(target: Path, *, witness: bool = True) -> Path:
    """A dataset folder under ``target``: Turtle files, and a witness record when asked."""
    folder = target / "dataset"
    folder.mkdir()
    for name in ("catalog.ttl", "toy.ttl"):
        shutil.copyfile(MINI / name, folder / name)
    shutil.copyfile(SOURCED / "sources.ttl", folder / "sources.ttl")
    if witness:
        shipped = _resources.dataset_dir() / "witness"
        records = sorted(f.name for f in shipped.iterdir() if f.name.endswith(".json"))
        (folder / "witness").mkdir()
        (folder / "witness" / records[0]).write_bytes((shipped / records[0]).read_bytes())
    return folder


@dataclass
class PageServer:
    """An HTTP server on 127.0.0.1 answering ``routes``: path -> (status, content type, body)."""

    routes: dict[str, tuple[int, str, bytes]] = field(default_factory=dict)
    hits: list[str] = field(default_factory=list)
    port: int = 0
    _server: ThreadingHTTPServer | None = None

    def __post_init__(self) -> None:
        self.page(GUIDE_URL, (PAGES / "guide.md").read_bytes(), "text/plain; charset=utf-8")
        self.page(SPEC_URL, (PAGES / "spec.html").read_bytes(), "text/html; charset=utf-8")

    def page(self, path: str, body: bytes | str, kind: str = "text/html; charset=utf-8") -> None:
        """Serve ``body`` at ``path``."""
        data = body.encode() if isinstance(body, str) else body
        self.routes[path] = (200, kind, data)

    def policy(self, **changes: object) -> FetchPolicy:
        """A fetch policy that sends https://example.org/ to this server (plain http)."""
        options: dict[str, object] = {
            "timeout": 5.0,
            "allow_http_loopback": True,
            "rewrite": {"https://example.org/": f"http://127.0.0.1:{self.port}/"},
            "workers": 2,
        }
        options.update(changes)
        return FetchPolicy(**options)  # type: ignore[arg-type]

    def __enter__(self) -> Self:
        state = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                state.hits.append(self.path)
                status, kind, body = state.routes.get(self.path, (404, "text/plain", b"no"))
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()


def closed_port() -> int:
    """A loopback port where nothing listens (bound, then released)."""
    import socket  # noqa: PLC0415

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
