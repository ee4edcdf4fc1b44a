"""``atlas check`` of the shipped data, its report kept for an identical run.

A check of the shipped data reads nothing but the package: its code, its data files and the
distributions installed beside it. So a run that matches an earlier one in all of these (the same
bytes of every file of the package and of its data, the same ``sys.path``, installed distributions
and Python), in its options and in its day (the dates check depends on it) finds the same problems.
A distribution is known by its name, version and the size and time of its ``RECORD``: one changed
in place (an editable install, a folder on ``PYTHONPATH``) is not seen, and its changes call for
``--no-cache``. :func:`check` keeps the report of each such run in the user's cache
(``$XDG_CACHE_HOME/execution-atlas/check``, the newest :data:`KEPT`), and a run whose fingerprint
matches one kept gives that report, saying when it ran, without importing the models: as ruff and
mypy keep theirs. ``atlas check --no-cache``, or ``ATLAS_NO_CACHE`` set to anything but the empty
string, runs every check again.

Never kept: a check with snapshots (``sources``) or online, of a dataset folder or of given files
(they read what the fingerprint does not cover), and a report of a check that could not run (it
depends on the machine). A cache that cannot be read or written, or a file of the package or its
data that cannot be hashed, is passed over in silence: the check then runs, as without a cache.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sys
from pathlib import Path

from atlas.checks.report import Report
from atlas.data import _resources
from atlas.data._files import MAX_TURTLE_BYTES, UnsafeFileError, read_bytes

TYPE_CHECKING = False  # spares importing typing: a reused report is the fast path
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

__all__ = ["KEPT", "check", "fingerprint"]

#: How many reports the cache keeps (the newest); one per day, options and version of the code.
KEPT = 8
_FORMAT = 1  # of a kept report; another is not read
_MAX_BYTES = 64 * 1024 * 1024  # a kept report larger than this is not read


def check(
    *,
    sources: Path | None = None,
    online: bool = False,
    max_age_days: int = 365,
    today: dt.date | None = None,
    dataset: Path | None = None,
    export_path: Path | None = None,
    cache: bool = True,
) -> Report:
    """:func:`atlas.checks.verify.check`, its report of the shipped data kept for an identical run.

    ``cache`` false (or ``ATLAS_NO_CACHE`` set) runs every check and keeps nothing, as do
    ``sources``, ``online``, ``dataset`` and ``export_path``.
    """
    today = today or dt.datetime.now(dt.UTC).date()  # as the dates check has it: the key's day
    given = {"sources": sources, "online": online, "dataset": dataset, "export_path": export_path}
    options = {**given, "max_age_days": max_age_days, "today": today}
    if not cache or os.environ.get("ATLAS_NO_CACHE") or any(given.values()):
        return _run(options)
    key = fingerprint(max_age_days, today)
    try:
        folder = None if key is None else _resources.user_cache("check")
    except (RuntimeError, KeyError):  # no home folder to find the cache in
        folder = None
    if key is None or folder is None:
        return _run(options)
    kept = _read(folder / f"{key}.json", key)
    if kept is not None:
        return kept
    report = _run(options)
    if not report.errors:
        _keep(folder, key, report)
    return report


def _run(options: dict[str, Any]) -> Report:
    from atlas.checks import verify  # noqa: PLC0415 - the models, only when the check runs

    return verify.check(**options)


def fingerprint(max_age_days: int, today: dt.date) -> str | None:
    """What a check of the shipped data depends on, hashed; None where it cannot be known.

    The bytes of every file of the package (but its byte-code) and of its data folders; the
    entries of ``sys.path``, the names of the distributions there (name and version) and the
    size and time of each one's ``RECORD``; Python's version; and the options. None for a
    package that does not lie in a folder (a zip file), and where a file cannot be read or is
    not a regular file (a FIFO is never waited on) or a folder is a symbolic link.

    >>> len(fingerprint(365, dt.date(2026, 12, 4)) or "")
    64
    """
    found = (_package(), _resources.dataset_dir(), _resources.schema_dir())
    roots = [root for root in found if isinstance(root, Path) and root.is_dir()]
    if len(roots) < len(found):
        return None
    digest = hashlib.sha256()
    facts = [f"format {_FORMAT}", sys.version, sys.platform, f"max age {max_age_days}", str(today)]
    try:
        facts += _distributions()
        digest.update("\n".join(facts).encode("utf-8", "surrogateescape"))
        for number, root in enumerate(roots):
            for name, path in _files(root, skip=("_data",) if number == 0 else ()):
                data = read_bytes(path, MAX_TURTLE_BYTES)
                digest.update(f"\n{number} {name} {len(data)}\n".encode("utf-8", "surrogateescape"))
                digest.update(data)
    except (OSError, UnsafeFileError, _LinkedFolderError):
        return None
    return digest.hexdigest()


def _package() -> Path:
    """The folder of the package ``atlas`` (in a zip file, a path that is no folder)."""
    return Path(__file__).parent.parent


def _distributions() -> list[str]:
    """Each entry of ``sys.path``, and the distributions there.

    Each by its folder's name (name and version) and its RECORD's size and time, which a
    distribution installed again changes.
    """
    found = []
    for entry in sys.path:
        found.append(f"path {entry}")
        folder = Path(entry or ".")
        try:
            names = sorted(item.name for item in folder.iterdir())
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    record = (folder / name / "RECORD").stat()
                    found.append(f"{name} {record.st_size} {record.st_mtime_ns}")
                except OSError:
                    found.append(name)
    return found


class _LinkedFolderError(Exception):
    """A folder under a hashed root is a symbolic link: what it holds is not hashed."""


def _files(root: Path, skip: tuple[str, ...] = ()) -> Iterator[tuple[str, Path]]:
    """(name relative to ``root``, path) of every file under ``root``, by name; no byte-code.

    Raises:
        _LinkedFolderError: a folder under ``root`` is a symbolic link.
    """
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in ("__pycache__", *skip))
        if any(Path(folder, d).is_symlink() for d in subfolders):
            raise _LinkedFolderError(folder)
        for name in sorted(names):
            path = Path(folder, name)
            yield path.relative_to(root).as_posix(), path


def _read(file: Path, key: str) -> Report | None:
    """The report kept in ``file`` for ``key``, or None (none, another format, unreadable)."""
    try:
        kept = json.loads(read_bytes(file, _MAX_BYTES))
        if kept["format"] != _FORMAT or kept["fingerprint"] != key:
            return None
        return Report.from_json(kept["report"], reused=str(kept["ran"]))
    except (OSError, UnsafeFileError, ValueError, KeyError, TypeError):
        return None


def _keep(folder: Path, key: str, report: Report) -> None:
    """Keep ``report`` for ``key`` in ``folder``, and only the newest :data:`KEPT` reports there."""
    from atlas.data._atomic import write_text_atomic  # noqa: PLC0415 - when a report is kept

    ran = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    kept = {"format": _FORMAT, "fingerprint": key, "ran": ran, "report": report.to_json()}
    try:
        write_text_atomic(folder / f"{key}.json", json.dumps(kept, ensure_ascii=False) + "\n")
        reports = sorted(folder.glob("*.json"), key=lambda f: f.stat().st_mtime_ns, reverse=True)
        for old in reports[KEPT:]:
            old.unlink(missing_ok=True)
    except OSError:
        return  # a cache that cannot be written: the check ran all the same
