"""Bounds that uvicorn's HTTP/1.1 protocol lacks: a connection cap and a deadline for headers.

uvicorn answers 503 past ``limit_concurrency`` only once a request has arrived, and it waits for
a request's headers for ever: idle or half-sent connections pile up until the process runs out
of file descriptors. The protocol here is uvicorn's own, with two additions:

- past ``max_connections`` open connections, or ``max_per_client`` from one address, a new one
  is answered ``503`` at once and closed, without a line in the log;
- a request's head (request line and headers) must arrive within ``header_timeout`` seconds of
  the connection opening, or of the end of the previous response; else the connection is closed;
- a client that stops reading an answer (the send buffer stays full) for ``header_timeout``
  seconds is disconnected, so an unread answer does not hold memory and a slot for ever.

Needs the ``serve`` extra (uvicorn).
"""

from __future__ import annotations

import asyncio
import logging
import time

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["QuietLog", "bounded_protocol"]

_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\n"
    b"retry-after: 1\r\n"
    b"content-length: 48\r\n\r\n"
    b"too many connections; try again in a moment :-(\n"
)


class _BoundedH11Protocol(H11Protocol):
    """One connection: refused past the cap, closed when its request head is late."""

    max_connections = 256
    max_per_client = 64
    header_timeout = 10.0
    _deadline: asyncio.TimerHandle | None = None
    _stalled: asyncio.TimerHandle | None = None  # an answer the client does not read

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else None
        same = sum(
            1
            for connection in self.connections
            if (address := getattr(connection, "client", None)) and address[0] == host
        )
        if len(self.connections) >= self.max_connections or same >= self.max_per_client:
            transport.write(_BUSY)
            transport.close()
            self.transport = transport
            return
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_timeout, self._late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        """The head has not come in time: close, unless a request is being answered."""
        self._deadline = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before:  # a request head has been read
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def pause_writing(self) -> None:
        """The client has stopped reading: it has ``header_timeout`` seconds to read on."""
        super().pause_writing()
        if self._stalled is None:
            self._stalled = self.loop.call_later(self.header_timeout, self.transport.abort)

    def resume_writing(self) -> None:
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        if self in self.connections:  # else refused at once: uvicorn never knew it
            super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self in self.connections:
            super().data_received(data)


def bounded_protocol(
    max_connections: int, header_timeout: float, max_per_client: int | None = None
) -> type[H11Protocol]:
    """The HTTP/1.1 protocol of uvicorn, with connection caps and a deadline for heads."""
    attributes = {
        "max_connections": max_connections,
        "max_per_client": max_per_client or max_connections,
        "header_timeout": header_timeout,
    }
    return type("BoundedH11Protocol", (_BoundedH11Protocol,), attributes)


class QuietLog(logging.Filter):
    """Keeps floods out of uvicorn's log: one line per kind of trouble a minute, with a count.

    Clients that go away, send bad requests or come past the caps are their own business; a
    line now and then says that it happens, never thousands of lines or tracebacks.
    """

    KINDS = ("Exceeded concurrency limit", "Invalid HTTP request", "ClientDisconnect")

    def __init__(self, every: float = 60.0) -> None:
        super().__init__()
        self.every = every
        self._last: dict[str, float] = {}
        self._dropped: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        """Let the first line of a kind through, then one a minute with the count dropped."""
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += type(record.exc_info[1]).__name__
        kind = next((k for k in self.KINDS if k in text), None)
        if kind is None:
            return True
        now = time.monotonic()
        if now - self._last.get(kind, -self.every) < self.every:
            self._dropped[kind] = self._dropped.get(kind, 0) + 1
            return False
        self._last[kind] = now
        dropped = self._dropped.pop(kind, 0)
        if dropped:
            record.msg = f"{record.getMessage()} ({dropped} more like it not logged)"
            record.args = ()
        record.exc_info = None  # a client's trouble needs no traceback
        return True
