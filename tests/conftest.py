"""Shared test set-up: make the helper modules in tests/ importable; shared fixtures."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# ``atlas check`` reuses no report kept by an earlier check (the user's or another test's): each
# test checks what it set up. tests/test_check_cache.py turns the cache on, in folders of its own.
os.environ["ATLAS_NO_CACHE"] = "1"


def _starts_in_turn() -> None:
    """Under coverage on CPython 3.11, ``Thread.start`` returns once the thread runs its target.

    Coverage installs a trace function in each new thread, and 3.11 lets one thread at a time
    install one (python/cpython#98257): a thread that loses the race dies before it runs, and a
    pool or server waits for it for ever (CI saw it in a thread pool and in the site server).
    Once the thread is in its target, both of coverage's installs are done. Python 3.12 and
    later trace through ``sys.monitoring``, without that limit.
    """
    start = threading.Thread.start

    def start_in_turn(self: threading.Thread) -> None:
        running = threading.Event()
        target = self.run

        def run() -> Any:
            running.set()
            return target()

        self.run = run  # type: ignore[method-assign]
        start(self)
        running.wait()

    threading.Thread.start = start_in_turn  # type: ignore[method-assign]


if sys.version_info < (3, 12) and sys.gettrace() is not None:
    _starts_in_turn()


@pytest.fixture
def fresh_name_caches() -> Iterator[None]:
    """The lookups' name caches hold the shipped data's names again after the test.

    For tests that make the lookups answer from other data (``pytestmark`` of their module).
    """
    from atlas.query import paths  # noqa: PLC0415 - only for the tests that ask for it

    yield
    paths._stage_names.cache_clear()
    paths._step_names.cache_clear()
