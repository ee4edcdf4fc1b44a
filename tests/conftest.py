"""Shared test set-up: make the helper modules in tests/ importable; shared fixtures."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


@pytest.fixture
def fresh_name_caches() -> Iterator[None]:
    """The lookups' name caches hold the shipped data's names again after the test.

    For tests that make the lookups answer from other data (``pytestmark`` of their module).
    """
    from atlas.query import paths  # noqa: PLC0415 - only for the tests that ask for it

    yield
    paths._stage_names.cache_clear()
    paths._step_names.cache_clear()
