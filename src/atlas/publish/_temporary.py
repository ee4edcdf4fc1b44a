"""The temporary graphs of ``atlas publish``: their names, and their clean-up on SIGTERM.

A run uploads into a fresh temporary graph named
``<dataset IRI>publish-temporary/<key of the target>/<UTC time>-<uuid>``, so that a later run for
the same target knows it and its age (:mod:`atlas.publish.graphstore` says why). Inside
:func:`sigterm_raises`, SIGTERM becomes an exception, so that the run removes its graph first.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import re
import signal
import threading
import uuid
from collections.abc import Iterator
from types import FrameType

from atlas.publish._remote import PublishError
from atlas.query._results import BASE_IRI

__all__ = ["created", "prefix", "sigterm_raises", "temporary"]

_TEMPORARY_ROOT = f"{BASE_IRI}publish-temporary/"
_STAMP = "%Y%m%dT%H%M%SZ"
_NAME = re.compile(r"(\d{8}T\d{6}Z)-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}")


class _Terminated(BaseException):
    """SIGTERM, raised while publishing so that the clean-up runs."""


def prefix(target: str) -> str:
    """The start of the names of the temporary graphs for ``target``.

    >>> prefix("https://example.org/g")
    'https://w3id.org/execution-atlas/publish-temporary/17a9812f3fddc015/'
    """
    return f"{_TEMPORARY_ROOT}{hashlib.sha256(target.encode()).hexdigest()[:16]}/"


def temporary(target: str) -> str:
    """A fresh temporary graph for ``target``, named with the time it is made."""
    return f"{prefix(target)}{dt.datetime.now(dt.UTC).strftime(_STAMP)}-{uuid.uuid4()}"


def created(graph: str, prefix: str) -> dt.datetime | None:
    """When a temporary graph under ``prefix`` was made; ``None`` for a name that is not ours.

    >>> created("urn:x:/20250102T030405Z-" + str(uuid.UUID(int=1)), "urn:x:/")
    datetime.datetime(2025, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    """
    match = _NAME.fullmatch(graph[len(prefix) :]) if graph.startswith(prefix) else None
    if match is None:
        return None
    try:
        return dt.datetime.strptime(match[1], _STAMP).replace(tzinfo=dt.UTC)
    except ValueError:
        return None


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Turn SIGTERM into an exception inside the block, so that clean-up code runs.

    Only in the main thread, and not where SIGTERM is ignored or handled outside Python. After
    the clean-up the signal is delivered again to the handler that was there before (by default,
    the process ends); if that handler returns, a :class:`PublishError` says what happened.
    """
    previous = signal.getsignal(signal.SIGTERM)
    main = threading.current_thread() is threading.main_thread()
    if not main or previous is None or previous == signal.SIG_IGN:
        yield
        return

    def terminate(signum: int, frame: FrameType | None) -> None:  # noqa: ARG001
        raise _Terminated

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, previous)
        signal.raise_signal(signal.SIGTERM)
        raise PublishError("publishing was stopped by SIGTERM") from None
    finally:
        signal.signal(signal.SIGTERM, previous)
