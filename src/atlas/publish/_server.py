"""Running the endpoint: its listening sockets first, then uvicorn's server, which says when ready.

The sockets are bound before anything else starts, so that a port that cannot be had (in use,
not allowed, an address that is not this machine's) fails at once with the reason, before any
query worker is started; uvicorn would log the error and exit the process. The server calls
``ready`` once the query workers have started and connections are accepted, never before; when
the workers could not start it stops, and ``failure`` says why.

Needs the ``serve`` extra (uvicorn).
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable

import uvicorn

__all__ = ["Server", "listen", "url"]

_BACKLOG = 2048  # uvicorn's default


def listen(host: str, port: int) -> list[socket.socket]:
    """Sockets listening on every address of ``host`` (one port for all, even when 0 is given).

    Raises:
        OSError: an address that cannot be had (in use, not allowed, unknown); none is left open.
    """
    try:
        found = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP, flags=socket.AI_PASSIVE
        )
    except UnicodeError as error:  # a name that IDNA cannot encode
        raise OSError(f"not a host name ({error})") from None
    sockets: list[socket.socket] = []
    unavailable: OSError | None = None
    try:
        for family, kind, proto, _, address in dict.fromkeys(found):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:  # the IPv4 addresses have sockets of their own
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            where = address
            if port == 0 and len(sockets) > 1:  # the port the first address got
                where = (address[0], sockets[0].getsockname()[1], *address[2:])
            try:
                sock.bind(where)
            except OSError as error:
                if error.errno != errno.EADDRNOTAVAIL:
                    raise
                unavailable = error  # a family this machine lacks (no IPv6): as asyncio does
                sockets.pop().close()
                continue
            sock.listen(_BACKLOG)
        if not sockets and unavailable is not None:
            raise unavailable
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class Server(uvicorn.Server):
    """uvicorn's server, which calls ``ready`` with the endpoint's URL once it serves.

    ``failed`` tells, after the application's start, why it cannot serve (its query workers did
    not start); the server then stops at once and keeps the reason in :attr:`failure`.
    """

    def __init__(
        self,
        config: uvicorn.Config,
        *,
        ready: Callable[[str], None] | None = None,
        failed: Callable[[], Exception | None] = lambda: None,
    ) -> None:
        super().__init__(config)
        self.ready = ready
        self.failed = failed
        self.failure: Exception | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start; then say that the endpoint serves, or stop if it cannot."""
        await super().startup(sockets)
        self.failure = self.failed()
        if self.failure is not None:
            self.should_exit = True
        elif self.started and not self.should_exit and self.ready is not None:
            port = sockets[0].getsockname()[1] if sockets else self.config.port
            self.ready(url(self.config.host, port))


def url(host: str, port: int) -> str:
    """The endpoint's URL, named by the host it was asked for.

    >>> url("::1", 7878)
    'http://[::1]:7878/sparql'
    """
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/sparql"
