"""Outputs that are whole or absent: atomic file writes, and signals that unwind a block.

A file is written to a temporary sibling and renamed over its target; the temporary file is
removed on any exception and on SIGTERM, SIGHUP or SIGINT, and one left by a SIGKILL is removed
by a later write. :func:`unwind_on_signals` and :func:`try_lock` serve other outputs made the same
way (the site's build folder).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if sys.platform != "win32":
    import fcntl

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import FrameType

__all__ = ["leftovers", "sync_folder", "try_lock", "unwind_on_signals", "write_text_atomic"]


def sync_folder(path: Path) -> None:
    """Make the names in the folder ``path`` durable (best effort: not every system can)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never half a file.

    The temporary file, ``.<name>.<random>.tmp`` beside ``path``, is removed on any exception
    and on SIGTERM, SIGHUP or SIGINT (which then end the process as before; in the main thread
    only); one left by a SIGKILL or a crash is removed by a later write to ``path``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(path)
    with unwind_on_signals() as signals:
        signals.hold()  # a signal waits until the clean-up below knows tmp
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        lock = None
        try:
            lock = _hold(fd)  # until renamed: the clean-up of other writes leaves the file alone
            signals.release()
            # mkstemp makes the file private (0600): keep the mode of the file replaced, else 0644
            Path(tmp).chmod(stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            Path(tmp).replace(path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        finally:
            if lock is not None:
                os.close(lock)


# A temporary file left by a killed writer is removed by the next write when it is (1) named as
# write_text_atomic names them, ".<name>." + mkstemp's eight characters + ".tmp", so that no other
# file is touched; (2) a regular file; (3) not locked: a live writer holds an exclusive flock on
# its file from just after creating it until it has renamed it, and the kernel drops the lock of
# a killed one; and (4) unchanged for _STALE_AFTER_S, which covers the instant between mkstemp and
# flock, and file systems whose locks other machines do not see. Where flock is not available
# (Windows) nothing is removed.
_STALE_AFTER_S = 2.0


def leftovers(path: Path, suffix: str, *, folders: bool = False) -> list[Path]:
    """The siblings that writes of ``path`` name ``.<name>.<8 characters>.<suffix>``.

    Regular files (or, with ``folders``, folders) only, never through a symbolic link; none
    when the folder cannot be read (best effort).
    """
    pattern = re.compile(re.escape(f".{path.name}.") + r"[a-z0-9_]{8}\." + re.escape(suffix))
    with contextlib.suppress(OSError), os.scandir(path.parent) as entries:
        return [
            Path(entry.path)
            for entry in entries
            if pattern.fullmatch(entry.name)
            and (entry.is_dir if folders else entry.is_file)(follow_symlinks=False)
        ]
    return []


def _remove_stale_temporaries(path: Path) -> None:
    """Remove the temporary files that killed writes to ``path`` left beside it."""
    for tmp in leftovers(path, "tmp"):
        with contextlib.suppress(OSError):
            _remove_if_stale(tmp)


def _remove_if_stale(tmp: Path) -> None:
    fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    try:
        if time.time() - os.fstat(fd).st_mtime > _STALE_AFTER_S and try_lock(fd) is True:
            tmp.unlink(missing_ok=True)
    finally:
        os.close(fd)


def _hold(fd: int) -> int | None:
    """A new descriptor holding an exclusive lock on ``fd``'s file, or None (no locks here)."""
    if sys.platform == "win32":  # where a file with another descriptor open cannot be renamed
        return None
    lock = os.dup(fd)  # a descriptor of its own: the lock outlives the closing of ``fd``
    if try_lock(lock) is not True:
        os.close(lock)
        return None
    return lock


def try_lock(fd: int) -> bool | None:
    """Take an exclusive advisory lock on ``fd`` without waiting (until ``fd`` is closed).

    True: taken; False: another process holds one; None: no such locks here (Windows, or a
    file system without them).
    """
    if sys.platform == "win32":
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        return None
    return True


class _Signalled(BaseException):
    """Raised by a signal inside :func:`unwind_on_signals` (a BaseException, as Ctrl-C's is)."""


_UNWOUND = ("SIGTERM", "SIGHUP", "SIGINT")


class _Unwinding:
    """The signals :func:`unwind_on_signals` took over, and what they did.

    Between :meth:`hold` and :meth:`release` a signal only waits, so that what the block makes
    (a file, a folder) is in a variable that its clean-up sees before the signal unwinds it.
    """

    def __init__(self) -> None:
        self.received: list[int] = []
        self.armed = False
        self.held = False

    def handle(self, number: int, _frame: FrameType | None) -> None:
        self.received.append(number)
        if len(self.received) == 1 and self.armed and not self.held:
            raise _Signalled(number)

    def hold(self) -> None:
        """Let signals wait until :meth:`release`."""
        self.held = True

    def release(self) -> None:
        """Let a signal unwind again, and unwind now if one came meanwhile."""
        self.held = False
        if self.received and self.armed:
            raise _Signalled(self.received[0])


@contextlib.contextmanager
def unwind_on_signals() -> Iterator[_Unwinding]:
    """Within the block, let SIGTERM, SIGHUP and SIGINT unwind it, then act as they would.

    A signal left to its default action ends the process at once, skipping ``finally`` and
    ``except`` clauses: here it raises an exception instead, so that the block cleans up, and is
    raised again at the end of the block with its handler restored, which ends the process (or,
    for SIGINT, raises KeyboardInterrupt). Only signals at their default action, and SIGINT at
    Python's, are taken over (an ignored signal stays ignored, a program's own handler stays),
    and only in the main thread, the one that runs Python's signal handlers.
    """
    unwinding = _Unwinding()
    if threading.current_thread() is not threading.main_thread():
        yield unwinding
        return
    taken = {
        number: handler
        for number in (signal.Signals[name] for name in _UNWOUND if hasattr(signal, name))
        if (handler := signal.getsignal(number)) in {signal.SIG_DFL, signal.default_int_handler}
    }
    try:
        with contextlib.suppress(_Signalled):
            unwinding.armed = True
            for number in taken:
                signal.signal(number, unwinding.handle)
            yield unwinding
    finally:
        unwinding.armed = False
        for number, handler in taken.items():
            signal.signal(number, handler)
        if unwinding.received:  # the block has cleaned up: act as the signal would have
            signal.raise_signal(unwinding.received[0])
            raise SystemExit(128 + unwinding.received[0])  # only if the signal is blocked
