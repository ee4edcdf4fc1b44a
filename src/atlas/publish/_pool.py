"""The query workers of ``atlas serve``: processes that each hold the graph and answer queries.

pyoxigraph cannot cancel a query, so a worker that passes its deadline is killed and replaced
while the others keep answering. A worker parses each query with the SPARQL guard under that
deadline, and runs it in a process that cannot open network sockets (a seccomp filter, on Linux).
Serving the shipped atlas, a worker also holds the witness records' named graphs. Workers ignore
Ctrl-C (the terminal sends it to them too): the server stops them when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from atlas.errors import AtlasError, CouldNotRunError
from atlas.publish._formats import NotWritableError
from atlas.publish._formats import body as answer_body
from atlas.publish._negotiate import negotiate
from atlas.publish._sandbox import forbid_network
from atlas.publish._witnessgraphs import add_witness_graphs
from atlas.query._sparql import refuse_unsafe

if TYPE_CHECKING:
    import pyoxigraph

__all__ = ["Limits", "Pool", "PoolError", "PoolStartError", "QueryTimeoutError"]

_T = TypeVar("_T")
_log = logging.getLogger("atlas.publish.serve")
_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>


_GONE = ("error", 500, "the query worker stopped (past its memory limit, or killed)")


class PoolError(AtlasError, RuntimeError):
    """A query worker could not load the data it serves (the message says why)."""


class PoolStartError(PoolError, CouldNotRunError):
    """A query worker could not be started here (it died or never answered)."""


@dataclass(frozen=True)
class Limits:
    """What the pool needs of the endpoint's settings."""

    workers: int
    timeout: float  # seconds for a query, the wait for a worker and the parse included
    max_rows: int
    max_answer_bytes: int
    data: tuple[Path, ...] = ()  # Turtle files; none: the shipped atlas
    worker_memory: int = 0  # bytes a worker may take beyond the loaded graph; 0: unbounded


def _worker_main(conn: Connection, files: tuple[Path, ...], memory: int = 0) -> None:
    """Answer queries sent through ``conn`` until it closes.

    ``memory``: bytes the worker may allocate beyond what it holds once the graph is loaded
    (0: no bound). Past it an allocation fails, the worker stops and is replaced.
    """
    from atlas.query import store  # noqa: PLC0415 - imported in the worker process

    _ignore_interrupts()
    _die_with_parent()
    try:
        target = store.load_store(files) if files else _shipped(store.store())
    except (AtlasError, SyntaxError, OSError) as error:
        conn.send(("failed", str(error)))
        return
    refuse_unsafe("ASK {}")  # loads the guard's parser now, not under a client's deadline
    if memory:
        _bound_memory(memory)
    sandboxed = forbid_network()  # after loading: only the query runs without a network
    conn.send(("ready", sandboxed))
    while True:
        try:
            query, accept, max_rows, max_bytes, base = conn.recv()
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
            result = store.execute(query, target=target, max_rows=max_rows, base_iri=base)
            truncated = getattr(result, "truncated", False)
            body = answer_body(result, fmt)
            if len(body) > max_bytes:
                conn.send(("error", 413, _too_large(len(body), max_bytes)))
                continue
            conn.send(("ok", fmt, body, truncated))
        except NotWritableError as error:
            conn.send(("error", 406, str(error)))
        except (AtlasError, ValueError) as error:
            conn.send(("error", 400, str(error)))
        except Exception as error:  # noqa: BLE001 - reported to the client, the worker lives on
            conn.send(("error", 500, f"the query failed: {type(error).__name__}: {error}"))


def _shipped(graph: pyoxigraph.Store) -> pyoxigraph.Store:
    """The shipped atlas with the witness graphs: this worker's own copy, changed in place."""
    add_witness_graphs(graph)
    return graph


def _ignore_interrupts() -> None:
    """Ignore SIGINT here: Ctrl-C reaches every process of the terminal, the server stops us.

    The pool starts a worker with SIGINT blocked (:func:`_interrupts_held`), so that one sent
    before this point waits, and is dropped now. (Run in a thread, as a test may, it leaves
    the process's signals alone.)
    """
    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Block SIGINT in this thread while a worker starts: the worker inherits the mask."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _bound_memory(extra: int) -> None:
    """Limit this process's data to what it holds now plus ``extra`` bytes (Linux, best effort).

    An allocation past the limit aborts the process (pyoxigraph's allocator cannot fail
    softly), quietly: the pool sees a worker gone and replaces it.
    """
    try:
        import resource  # noqa: PLC0415 - POSIX only

        status = Path("/proc/self/status").read_text(encoding="ascii")
        held = next(
            int(line.split()[1]) * 1024
            for line in status.splitlines()
            if line.startswith("VmData:")
        )
        resource.setrlimit(resource.RLIMIT_DATA, (held + extra, resource.RLIM_INFINITY))
    except (ImportError, OSError, StopIteration, ValueError):
        return
    os.environ["RUST_BACKTRACE"] = "0"  # one line on an aborted allocation, not a backtrace


def _too_large(size: int, limit: int) -> str:
    return (
        f"the answer is {size} bytes, over the limit of {limit} bytes: ask for less "
        "(LIMIT, fewer variables, shorter strings)"
    )


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


class QueryTimeoutError(Exception):
    """The query passed its deadline (waiting for a worker included)."""


class Pool:
    """Worker processes; a query that passes its deadline costs its worker, never the server."""

    def __init__(self, settings: Limits) -> None:
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
            target=_worker_main,
            args=(child, self.settings.data, self.settings.worker_memory),
            daemon=True,
        )
        with _interrupts_held():
            process.start()
        child.close()
        try:
            reply: tuple[Any, ...] = parent.recv() if parent.poll(60) else ()
        except (EOFError, OSError):
            reply = ()
        if reply[:1] == ("failed",):
            process.join(5)
            parent.close()
            raise PoolError(f"the query workers cannot load the data: {reply[-1]}")
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
            raise PoolStartError("a query worker failed to start (see its error above)")
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
            with contextlib.suppress(PoolError):
                self._idle.put_nowait(await asyncio.to_thread(self._spawn))
                return

    async def run(self, query: str, accept: str, base: str | None = None) -> tuple[Any, ...]:
        """The worker's reply to a query; raises :class:`QueryTimeoutError` at the deadline.

        ``base`` is the IRI that the query's relative IRIs resolve against (the endpoint's URL).
        """
        deadline = time.monotonic() + self.settings.timeout
        try:
            async with asyncio.timeout(self.settings.timeout):
                worker = await self._idle.get()
        except TimeoutError:
            raise QueryTimeoutError from None
        try:
            limits = self.settings
            worker.conn.send((query, accept, limits.max_rows, limits.max_answer_bytes, base))
        except (OSError, ValueError):  # the worker died while idle
            self._background(self._replace(worker))
            return ("error", 503, "a query worker stopped; send the query again")
        # Shielded: if the client goes away, the worker still comes back to the pool.
        job = self._background(self._finish(worker, max(0.0, deadline - time.monotonic())))
        reply = await asyncio.shield(job)
        if reply is None:
            raise QueryTimeoutError
        return reply

    async def _finish(self, worker: _Worker, seconds: float) -> tuple[Any, ...] | None:
        reply = await asyncio.to_thread(_receive, worker.conn, seconds)
        if reply is None or reply == _GONE or not worker.process.is_alive():
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
        return _GONE
