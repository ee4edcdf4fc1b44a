"""Progress of a witness run: one line per stage on standard error, and a heartbeat.

The collector reports what it does through a :data:`Progress` callable (by default
:func:`stderr_progress`); a compile that takes a while keeps reporting through
:func:`heartbeat`, so that a silent terminal never looks like a hang.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Progress", "heartbeat", "stderr_progress"]

Progress = Callable[[str], None]
"""Receives one progress message (without a newline)."""


def stderr_progress(message: str) -> None:
    """Write ``message`` to standard error as a ``[witness]`` line."""
    sys.stderr.write(f"[witness] {message}\n")
    sys.stderr.flush()


@contextmanager
def heartbeat(progress: Progress, what: str, every: float = 10.0) -> Iterator[None]:
    """Report ``what`` every ``every`` seconds until the block ends."""
    stop = threading.Event()
    start = time.monotonic()

    def beat() -> None:
        while not stop.wait(every):
            progress(f"{what}: still running ({time.monotonic() - start:.0f} s)")

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
