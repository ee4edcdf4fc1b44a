"""The versioned JSON (and JSON-LD) export: build it from Turtle, write it atomically, read it.

The export is canonical: sorted keys, records in a stable order, two-space indentation and a
final newline, so that the diff of two releases shows only what changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.errors import DatasetError, Problem
from atlas.models import AtlasDocument

if sys.platform != "win32":
    import fcntl

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import FrameType

__all__ = ["build", "dumps", "read", "with_witnesses", "write"]


def build(files: Any = None) -> AtlasDocument:
    """Read the Turtle files (default: the shipped ones) and check their consistency.

    Raises:
        DatasetError: every violation found, at once.
    """
    from atlas import turtle, verify  # noqa: PLC0415 - rdflib is only needed to build

    document = turtle.read_turtle(files)
    problems = [p for p in verify.consistency_problems(document) if p.severity == "violation"]
    if problems:
        raise DatasetError(problems, source="Turtle dataset")
    # the shipped dataset carries its witness records
    return with_witnesses(document) if files is None else document


def with_witnesses(document: AtlasDocument) -> AtlasDocument:
    """The document with the shipped witness records (``dataset/witness/*.json``) added."""
    from atlas._witness import shipped_records  # noqa: PLC0415

    records = shipped_records()
    counts = document.counts.model_copy(update={"witnesses": len(records)})
    return document.model_copy(update={"witnesses": records, "counts": counts})


def to_data(document: AtlasDocument) -> dict[str, Any]:
    """The document as plain JSON data (aliases as keys, absent values left out)."""
    return document.model_dump(mode="json", by_alias=True, exclude_none=True)


def dumps(document: AtlasDocument) -> str:
    """The canonical JSON text of a document.

    >>> from atlas.query import load
    >>> dumps(load()) == dumps(AtlasDocument.model_validate_json(dumps(load())))
    True
    """
    return json.dumps(to_data(document), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never half a file.

    The temporary file, ``.<name>.<random>.tmp`` beside ``path``, is removed on any exception
    and on SIGTERM, SIGHUP or SIGINT (which then end the process as before; in the main thread
    only); one left by a SIGKILL or a crash is removed by a later write to ``path``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(path)
    with _unwind_on_signals() as signals:
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


def _remove_stale_temporaries(path: Path) -> None:
    """Remove the temporary files that killed writes to ``path`` left beside it."""
    pattern = re.compile(re.escape(f".{path.name}.") + r"[a-z0-9_]{8}\.tmp")
    with contextlib.suppress(OSError), os.scandir(path.parent) as entries:  # best effort
        found = [
            Path(entry.path)
            for entry in entries
            if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)
        ]
        for tmp in found:
            with contextlib.suppress(OSError):
                _remove_if_stale(tmp)


def _remove_if_stale(tmp: Path) -> None:
    fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    try:
        if time.time() - os.fstat(fd).st_mtime > _STALE_AFTER_S and _lock(fd) is True:
            tmp.unlink(missing_ok=True)
    finally:
        os.close(fd)


def _hold(fd: int) -> int | None:
    """A new descriptor holding an exclusive lock on ``fd``'s file, or None (no locks here)."""
    if sys.platform == "win32":  # where a file with another descriptor open cannot be renamed
        return None
    lock = os.dup(fd)  # a descriptor of its own: the lock outlives the closing of ``fd``
    if _lock(lock) is not True:
        os.close(lock)
        return None
    return lock


def _lock(fd: int) -> bool | None:
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
    """Raised by a signal inside :func:`_unwind_on_signals` (a BaseException, as Ctrl-C's is)."""


_UNWOUND = ("SIGTERM", "SIGHUP", "SIGINT")


class _Unwinding:
    """The signals :func:`_unwind_on_signals` took over, and what they did.

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
def _unwind_on_signals() -> Iterator[_Unwinding]:
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


def write(document: AtlasDocument, path: Path) -> Path:
    """Write the canonical export of ``document`` to ``path`` atomically."""
    write_text_atomic(Path(path), dumps(document))
    return Path(path)


def read(path: Path, *, any_context: bool = False) -> AtlasDocument:
    """Read and validate an export file.

    The file is read strictly (UTF-8, JSON without NaN, bounded numbers and nesting: see
    :func:`atlas.schema.load_json`), then checked against the models and for consistency as
    ``atlas export`` checks the Turtle: every id a record names is a record of the export, no
    id (no source URL) is held twice, and so on (:func:`atlas.verify.export_problems`).
    ``any_context`` accepts an inline ``@context`` other than this version's (an older
    release's terms; ``atlas diff`` compares records, not terms).

    Raises:
        DatasetError: naming the file, and the line (and JSON pointer) where it can.
    """
    import pydantic  # noqa: PLC0415 - only needed for its error type

    from atlas import schema, verify  # noqa: PLC0415 - jsonschema and the checks: on demand
    from atlas._files import UnsafeFileError, read_bytes  # noqa: PLC0415

    name = str(path)
    try:
        raw = read_bytes(Path(path), schema.MAX_EXPORT_BYTES)
    except UnsafeFileError as error:
        problem = Problem("violation", f"refused: {error}", file=name, code="unsafe")
        raise DatasetError([problem], source=name) from None
    except OSError as error:
        raise DatasetError(
            [Problem("violation", f"cannot read: {error.strerror}", file=name, code="io")],
            source=name,
        ) from None
    text, data = schema.load_json(raw, name)
    problems = [p for p in _shape_problems(data, name) if not (any_context and p.code == "context")]
    if problems:
        raise DatasetError(problems, source=name)
    try:
        document = AtlasDocument.model_validate(data)
    except pydantic.ValidationError as error:
        raise DatasetError(
            [
                Problem(
                    "violation",
                    f"{_json_pointer(e['loc'], data)}: {e['msg']}",
                    file=name,
                    code=str(e["type"]),
                    hint="the export's format is described by schema/atlas.schema.json",
                )
                for e in error.errors()
            ],
            source=name,
        ) from None
    problems = verify.export_problems(
        data, file=name, lines=lambda: schema.json_lines(text), document=document
    )
    if problems:
        raise DatasetError(problems, source=name)
    return document


def _shape_problems(data: Any, name: str) -> list[Problem]:
    from atlas._vocab import context  # noqa: PLC0415

    if not isinstance(data, dict):
        return [Problem("violation", "the export must be a JSON object", file=name, code="json")]
    problems = []
    ctx = data.get("@context")
    if isinstance(ctx, str | list):
        problems.append(
            Problem(
                "violation",
                f"@context must be inline, found a reference {ctx!r}",
                file=name,
                hint="exports carry their JSON-LD context inline; remote contexts are refused",
                code="remote-context",
            )
        )
    elif isinstance(ctx, dict) and ctx != context():
        problems.append(
            Problem(
                "violation",
                "@context differs from the context of this schema version",
                file=name,
                hint="export again with this version of the package",
                code="context",
            )
        )
    version = data.get("schemaVersion")
    if isinstance(version, str) and not version.startswith("1."):
        problems.append(
            Problem(
                "violation",
                f"schemaVersion {version!r} is not supported; this package reads 1.x",
                file=name,
                code="schema-version",
            )
        )
    return problems


def _json_pointer(loc: tuple[Any, ...], data: Any) -> str:
    parts = []
    node = data
    for part in loc:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            node = None
        if isinstance(node, dict) and "id" in node and isinstance(part, int):
            parts.append(f"{part}({node['id']})")
        else:
            parts.append(str(part))
    return "/" + "/".join(parts)
