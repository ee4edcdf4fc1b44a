"""``atlas serve``: a read-only SPARQL 1.1 Protocol endpoint over the atlas (Starlette + uvicorn).

Safe by default: it binds 127.0.0.1, sends no CORS headers unless origins are given, refuses
updates, LOAD, SERVICE, FROM and protocol datasets with 400, caps request size and result rows,
and stops every query at a deadline (default 5 s). Queries run in worker processes, each with its
own copy of the graph: pyoxigraph cannot cancel a query, so a worker that passes the deadline is
killed and replaced while the others keep answering. A worker parses each query with the SPARQL
guard under that deadline, and runs it in a process that cannot open network sockets (a seccomp
filter, on Linux; elsewhere the guard stands alone and the server says so at start).

Needs the ``serve`` extra (``pip install execution-atlas[serve]``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qsl

from atlas._results import media_type, serialize
from atlas._sandbox import forbid_network
from atlas._sparql import refuse_unsafe
from atlas.errors import AtlasError

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request

__all__ = ["ServeError", "Settings", "create_app", "negotiate", "serve"]

_T = TypeVar("_T")
_log = logging.getLogger(__name__)
_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>

_SOLUTION_TYPES = {
    "application/sparql-results+json": "json",
    "application/json": "json",
    "application/sparql-results+xml": "xml",
    "application/xml": "xml",
    "text/csv": "csv",
    "text/tab-separated-values": "tsv",
}
_BOOLEAN_TYPES = {k: v for k, v in _SOLUTION_TYPES.items() if v in ("json", "xml")}
_GRAPH_TYPES = {
    "text/turtle": "turtle",
    "application/n-triples": "ntriples",
    "text/plain": "ntriples",
}


class ServeError(AtlasError, ValueError):
    """The endpoint cannot start: bad settings, a missing site folder or extra."""


@dataclass(frozen=True)
class Settings:
    """How the endpoint runs; the defaults are the safe ones."""

    timeout: float = 5.0  # seconds a query may run before its worker is killed
    max_rows: int = 10_000  # rows (or triples) returned at most; the rest is cut
    max_request_bytes: int = 64 * 1024  # largest query, in the URL or the body
    workers: int = 2  # processes answering queries side by side
    cors_origins: tuple[str, ...] = ()  # origins allowed by CORS; none: no CORS headers
    site: Path | None = None  # a static site to serve at /
    data: tuple[Path, ...] = field(default=())  # Turtle files to serve; none: the shipped atlas

    def __post_init__(self) -> None:
        if self.timeout <= 0 or self.max_rows < 1 or self.max_request_bytes < 1 or self.workers < 1:
            raise ServeError(
                f"timeout, max_rows, max_request_bytes and workers must be positive: {self!r}"
            )
        if self.site is not None and not self.site.is_dir():
            raise ServeError(f"no site folder at {str(self.site)!r}; build the site first")


def negotiate(accept: str, form: str) -> str | None:
    """The result format for an ``Accept`` header and a query form, or ``None`` if none fits.

    >>> negotiate("text/csv;q=0.5, application/sparql-results+json", "SELECT")
    'json'
    >>> negotiate("*/*", "CONSTRUCT")
    'turtle'
    >>> negotiate("text/turtle", "ASK") is None
    True
    """
    offered = (
        _GRAPH_TYPES
        if form in ("CONSTRUCT", "DESCRIBE")
        else _BOOLEAN_TYPES
        if form == "ASK"
        else _SOLUTION_TYPES
    )
    ranges = _media_ranges(accept or "*/*")
    for kind in ranges:
        if kind in offered:
            return offered[kind]
        if kind == "*/*":
            return next(iter(offered.values()))
        if kind.endswith("/*"):
            match = next((v for k, v in offered.items() if k.startswith(kind[:-1])), None)
            if match:
                return match
    return None


def _media_ranges(accept: str) -> list[str]:
    """The media ranges of an ``Accept`` header, most wanted first (q=0 left out)."""
    ranges: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept.split(",")):
        kind, *params = (p.strip() for p in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if kind and quality > 0:
            ranges.append((-quality, position, kind.lower()))
    return [kind for _, _, kind in sorted(ranges)]


# --- the worker processes ------------------------------------------------------------------


def _worker_main(conn: Connection, files: tuple[Path, ...]) -> None:
    """Answer queries sent through ``conn`` until it closes."""
    from atlas import store  # noqa: PLC0415 - imported in the worker process

    _die_with_parent()
    target = store.load_store(files) if files else store.store()
    sandboxed = forbid_network()  # after loading: only the query runs without a network
    conn.send(("ready", sandboxed))
    while True:
        try:
            query, accept, max_rows = conn.recv()
        except (EOFError, OSError):
            return
        try:
            # The guard parses here, under the query's deadline: a text that is slow to parse
            # costs this worker, never the server.
            form = refuse_unsafe(query)
            fmt = negotiate(accept, form)
            if fmt is None:
                conn.send(("error", 406, f"no acceptable result format for a {form} query"))
                continue
            result = store.execute(query, target=target, max_rows=max_rows)
            truncated = getattr(result, "truncated", False)
            conn.send(("ok", fmt, serialize(result, fmt), truncated))
        except (AtlasError, ValueError) as error:
            conn.send(("error", 400, str(error)))
        except Exception as error:  # noqa: BLE001 - reported to the client, the worker lives on
            conn.send(("error", 500, f"the query failed: {type(error).__name__}: {error}"))


def _die_with_parent() -> None:
    """On Linux, ask for SIGKILL when the server goes, even mid-query (best effort)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    conn: Connection


class _QueryTimeoutError(Exception):
    pass


class _Pool:
    """Worker processes; a query that passes its deadline costs its worker, never the server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._context = multiprocessing.get_context("spawn")
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._tasks: set[asyncio.Task[Any]] = set()  # keeps background tasks alive
        self._warned = False

    def _spawn(self) -> _Worker:
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=_worker_main, args=(child, self.settings.data), daemon=True
        )
        process.start()
        child.close()
        try:
            reply: tuple[Any, ...] = parent.recv() if parent.poll(60) else ()
        except (EOFError, OSError):
            reply = ()
        ready = reply[:1] == ("ready",)  # ("ready", sandboxed)
        if ready and not reply[-1] and not self._warned:
            self._warned = True
            _log.warning(
                "this system offers no network sandbox for the query workers: the SPARQL "
                "parser guard alone keeps queries off the network"
            )
        if not ready:
            process.kill()
            parent.close()
            raise ServeError("a query worker failed to start (see its error above)")
        worker = _Worker(process, parent)
        with self._lock:
            self._all.add(worker)
        return worker

    async def start(self) -> None:
        workers = await asyncio.gather(
            *(asyncio.to_thread(self._spawn) for _ in range(self.settings.workers))
        )
        for worker in workers:
            self._idle.put_nowait(worker)

    def _kill(self, worker: _Worker) -> None:
        worker.process.kill()
        worker.process.join(5)
        worker.conn.close()
        with self._lock:
            self._all.discard(worker)

    async def _replace(self, worker: _Worker) -> None:
        await asyncio.to_thread(self._kill, worker)
        for _ in range(3):  # a worker that fails to start is tried again, then given up
            if self._closed:
                return
            with contextlib.suppress(ServeError):
                self._idle.put_nowait(await asyncio.to_thread(self._spawn))
                return

    async def run(self, query: str, accept: str) -> tuple[Any, ...]:
        """The worker's reply to a query; raises :class:`_QueryTimeoutError` at the deadline."""
        deadline = time.monotonic() + self.settings.timeout
        try:
            async with asyncio.timeout(self.settings.timeout):
                worker = await self._idle.get()
        except TimeoutError:
            raise _QueryTimeoutError from None
        try:
            worker.conn.send((query, accept, self.settings.max_rows))
        except (OSError, ValueError):  # the worker died while idle
            self._background(self._replace(worker))
            return ("error", 503, "a query worker stopped; send the query again")
        # Shielded: if the client goes away, the worker still comes back to the pool.
        job = self._background(self._finish(worker, max(0.0, deadline - time.monotonic())))
        reply = await asyncio.shield(job)
        if reply is None:
            raise _QueryTimeoutError
        return reply

    async def _finish(self, worker: _Worker, seconds: float) -> tuple[Any, ...] | None:
        reply = await asyncio.to_thread(_receive, worker.conn, seconds)
        if reply is None or not worker.process.is_alive():
            self._background(self._replace(worker))
        else:
            self._idle.put_nowait(worker)
        return reply

    def _background(self, job: Coroutine[Any, Any, _T]) -> asyncio.Task[_T]:
        task = asyncio.get_running_loop().create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._all)
        for worker in workers:
            await asyncio.to_thread(self._kill, worker)


def _receive(conn: Connection, timeout: float) -> tuple[Any, ...] | None:
    """The worker's reply, or ``None`` when it has not come within ``timeout`` seconds."""
    try:
        return conn.recv() if conn.poll(timeout) else None
    except (EOFError, OSError):
        return ("error", 500, "the query worker stopped")


# --- the application -----------------------------------------------------------------------


class _RefusalError(Exception):
    """A request answered with an error status and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


_NO_UPDATES = "SPARQL updates are refused: this endpoint is read-only"


async def _posted(request: Request, limit: int) -> dict[str, str]:
    """The parameters of a POST request: a form, or a query as the body."""
    declared = request.headers.get("content-length", "")
    too_large = _RefusalError(413, f"the request is larger than the limit of {limit} bytes")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > limit:
            raise too_large
    text = body.decode("utf-8", "replace")
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/sparql-update":
        raise _RefusalError(400, _NO_UPDATES)
    if kind == "application/sparql-query":
        return {**request.query_params, "query": text}
    if kind == "application/x-www-form-urlencoded":
        return dict(parse_qsl(text, keep_blank_values=True))
    raise _RefusalError(
        415,
        f"unsupported content type {kind!r}; send application/sparql-query or "
        "application/x-www-form-urlencoded",
    )


async def _query_of(request: Request, limit: int) -> str:
    """The query of a SPARQL Protocol request (the worker's guard judges it next)."""
    if request.method == "GET":
        if len(request.url.query) > limit:
            raise _RefusalError(414, f"the query is longer than the limit of {limit} bytes")
        params = dict(request.query_params)
    else:
        params = await _posted(request, limit)
    if "update" in params:
        raise _RefusalError(400, _NO_UPDATES)
    for name in ("default-graph-uri", "named-graph-uri"):
        if name in params:
            raise _RefusalError(400, f"{name} is refused: queries run over the atlas graph only")
    query = params.get("query", "")
    if not query.strip():
        raise _RefusalError(400, "no query: pass it as 'query' (GET or form POST) or as the body")
    return query


@dataclass
class _Endpoint:
    """Answers SPARQL Protocol requests with the worker pool."""

    settings: Settings
    pool: _Pool | None = None

    async def answer(self, request: Request) -> tuple[str, bytes, bool]:
        """The format, body and truncation of the answer; raises :class:`_RefusalError`."""
        query = await _query_of(request, self.settings.max_request_bytes)
        if self.pool is None:
            raise _RefusalError(503, "the endpoint is not running")
        try:
            reply = await self.pool.run(query, request.headers.get("accept", "*/*"))
        except _QueryTimeoutError:
            raise _RefusalError(
                503, f"the query was stopped after the {self.settings.timeout:g} s limit"
            ) from None
        if reply[0] == "error":
            raise _RefusalError(reply[1], reply[2])
        return reply[1], reply[2], reply[3]


def create_app(settings: Settings | None = None) -> Starlette:
    """The Starlette application of the endpoint: ``/sparql``, and the site at ``/`` if given.

    Raises:
        ServeError: when the ``serve`` extra is missing or the settings are invalid.
    """
    try:
        from starlette.applications import Starlette  # noqa: PLC0415
        from starlette.middleware import Middleware  # noqa: PLC0415
        from starlette.middleware.cors import CORSMiddleware  # noqa: PLC0415
        from starlette.responses import PlainTextResponse, Response  # noqa: PLC0415
        from starlette.routing import Mount, Route  # noqa: PLC0415
        from starlette.staticfiles import StaticFiles  # noqa: PLC0415
    except ImportError:
        raise ServeError(
            "atlas serve needs Starlette and uvicorn: pip install 'execution-atlas[serve]'"
        ) from None
    endpoint = _Endpoint(settings or Settings())
    settings = endpoint.settings

    async def sparql(request: Request) -> Response:
        try:
            fmt, body, truncated = await endpoint.answer(request)
        except _RefusalError as refusal:
            return PlainTextResponse(f"{refusal}\n", status_code=refusal.status)
        headers = {"X-Content-Type-Options": "nosniff", "Vary": "Accept"}
        if truncated:
            headers["Atlas-Results-Truncated"] = f"only the first {settings.max_rows} are sent"
        return Response(body, media_type=media_type(fmt), headers=headers)

    async def home(_: Request) -> Response:
        return PlainTextResponse("Execution Atlas SPARQL endpoint: GET or POST /sparql?query=...\n")

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        pool = _Pool(settings)
        await pool.start()
        endpoint.pool = pool
        try:
            yield
        finally:
            endpoint.pool = None
            await pool.close()

    routes: list[Route | Mount] = [Route("/sparql", sparql, methods=["GET", "POST"])]
    if settings.site is not None:
        routes.append(Mount("/", StaticFiles(directory=settings.site, html=True)))
    else:
        routes.append(Route("/", home))
    middleware = []
    if settings.cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings.cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["Accept", "Content-Type"],
            )
        )
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)


def serve(
    settings: Settings | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 7878,
    log_level: str = "warning",
) -> None:
    """Run the endpoint until interrupted.

    Raises:
        ServeError: when the ``serve`` extra is missing or the settings are invalid.
    """
    app = create_app(settings)
    import uvicorn  # noqa: PLC0415 - installed with starlette by the serve extra

    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        server_header=False,
        h11_max_incomplete_event_size=(settings or Settings()).max_request_bytes + 8192,
    )
