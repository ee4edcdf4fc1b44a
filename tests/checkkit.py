"""Helpers for the tests of ``atlas check``: the mini dataset, a network guard, file snapshots."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

MINI = Path(__file__).resolve().parent / "fixtures" / "mini"

_NETWORK_EVENTS = frozenset(
    {"socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto"}
)
_state: dict[str, Any] = {"installed": False, "active": False, "seen": []}


class NetworkUsedError(AssertionError):
    """Code under an offline test tried to use the network."""


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if _state["active"] and event in _NETWORK_EVENTS:
        _state["seen"].append((event, args))
        raise NetworkUsedError(f"network use in an offline test: {event} {args!r}")


@contextmanager
def no_network() -> Iterator[list[tuple[str, Any]]]:
    """Fail on any socket connection or name lookup inside the block.

    Audit hooks cannot be removed, so one hook is installed for the whole session and only acts
    while a block is active; events are also recorded, in case the code swallowed the error.
    """
    if not _state["installed"]:
        sys.addaudithook(_hook)
        _state["installed"] = True
    _state["seen"] = []
    _state["active"] = True
    try:
        yield _state["seen"]
    finally:
        _state["active"] = False
    assert not _state["seen"], f"network used: {_state['seen']}"


def copy_mini(target: Path) -> Path:
    """A private copy of the mini dataset (Turtle, export and snapshots) under ``target``."""
    folder = target / "mini"
    shutil.copytree(MINI, folder)
    return folder


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder`` with its bytes and modification time."""
    return {
        str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
