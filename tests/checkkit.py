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


def serve_in_thread(settings: Any) -> Iterator[str]:
    """Run ``atlas serve`` with ``settings`` on a free loopback port in a thread; yield its URL.

    The server is configured as ``atlas serve`` configures it (every bound included).
    """
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    import uvicorn  # noqa: PLC0415

    from atlas.publish.serve import _uvicorn_config  # noqa: PLC0415

    server = uvicorn.Server(_uvicorn_config(settings, host="127.0.0.1", port=0))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive(), "the server stopped while starting"
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


#: The keys of an export's records that the models make from the claims.
DERIVED = ("description", "whatHappens", "statement", "citations", "unsupportedClaims")


def changed_export(base: Any, **records: Any) -> Any:
    """The export ``base`` with collections (or top-level fields) replaced by new JSON data.

    The keys made from claims (``DERIVED``) are dropped from the changed records: the models make
    them again from the claims. The atlases' journeys, made from the steps, are dropped when
    the steps, stages or schemes change and the atlases are not given (as in a format-2.0
    export, which has none).
    """
    from atlas.data import export  # noqa: PLC0415
    from atlas.models import AtlasDocument  # noqa: PLC0415

    data = export.to_data(base)
    for key, items in records.items():
        kept = items
        if isinstance(items, list) and key != "citations":
            kept = [{k: v for k, v in item.items() if k not in DERIVED} for item in items]
        data[key] = kept
    if records.keys() & {"steps", "stages", "schemes"} and "atlases" not in records:
        data["atlases"] = [{k: v for k, v in a.items() if k != "journeys"} for a in data["atlases"]]
    return AtlasDocument.model_validate(data)
