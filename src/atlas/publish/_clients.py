"""Fair shares of the query workers: each client runs a few queries at a time, the rest wait.

So a few clients that send expensive queries hold a few workers at most, and the others stay
free for everyone else. A client is its address, or the value of a header that names it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.publish._protocol import RefusalError

if TYPE_CHECKING:
    from starlette.requests import Request

__all__ = ["Clients"]


@dataclass
class _Share:
    """One client's share of the pool: a turn to run, and how many of its queries are here."""

    turn: asyncio.Semaphore
    here: int = 0


class Clients:
    """A client runs ``per_client`` queries at a time; ``queue`` more wait; past that, 429.

    ``header``: the request header that names the client (a token, a proxy's), else its address.
    """

    def __init__(self, per_client: int, queue: int, header: str | None = None) -> None:
        self.per_client = per_client
        self.queue = queue
        self.header = header
        self._shares: dict[str, _Share] = {}

    def name(self, request: Request) -> str:
        """Who sent the request."""
        if self.header:
            named = request.headers.get(self.header)
            if named:
                return f"header:{named}"
        return request.client.host if request.client else "unknown"

    @contextlib.asynccontextmanager
    async def turn(self, client: str) -> AsyncIterator[None]:
        """Wait for the client's turn; past its queue, refuse with 429."""
        share = self._shares.get(client)
        if share is None:
            share = self._shares[client] = _Share(asyncio.Semaphore(self.per_client))
        if share.here >= self.per_client + self.queue:
            raise RefusalError(
                429, "too many queries from this client at once; wait for the answers first"
            )
        share.here += 1
        try:
            async with share.turn:
                yield
        finally:
            share.here -= 1
            if share.here == 0:
                del self._shares[client]
