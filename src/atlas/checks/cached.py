"""``atlas check`` of the shipped data, its report kept for an identical run.

A check of the shipped data reads nothing but the package: its code, its data files and the
distributions installed beside it. So a run that matches an earlier one in all of these (the
same bytes of every file of the package and of its data, the same installed distributions and
Python), in its options and in its day (the dates check depends on it) finds the same
problems. :func:`check` keeps the report of each such run in the user's cache
(``$XDG_CACHE_HOME/execution-atlas/check``, the newest :data:`KEPT`), and a run whose
fingerprint matches one kept gives that report, saying when it ran, without importing the
models: as ruff and mypy keep theirs. ``atlas check --no-cache``, or ``ATLAS_NO_CACHE`` set to
anything but the empty string, runs every check again.

Never kept: a check with snapshots (``sources``) or online, of a dataset folder or of given
files (they read what the fingerprint does not cover), and a report of a check that could not
run (it depends on the machine). A cache that cannot be read or written is passed over in
silence: the check then runs, as without one.
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
from atlas.data._files import UnsafeFileError, read_bytes

TYPE_CHECKING = False  # spares importing typing: a reused report is the fast path
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from importlib.resources.abc import Traversable
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
    folder = _resources.user_cache("check")
    if key is not None:
        kept = _read(folder / f"{key}.json", key)
        if kept is not None:
            return kept
    report = _run(options)
    if key is not None and not report.errors:
        _keep(folder, key, report)
    return report


def _run(options: dict[str, Any]) -> Report:
    from atlas.checks import verify  # noqa: PLC0415 - the models, only when the check runs

    return verify.check(**options)


def fingerprint(max_age_days: int, today: dt.date) -> str | None:
    """What a check of the shipped data depends on, hashed; None where it cannot be known.

    The bytes of every file of the package (but its byte-code) and of its data folders, the
    names of the distributions on ``sys.path`` (which carry their versions), Python's version,
    and the options. None for a package that does not lie in a folder (a zip file).
    """
    package = _package()
    if not package.is_dir():
        return None
    digest = hashlib.sha256()
    facts = [f"format {_FORMAT}", sys.version, sys.platform, f"max age {max_age_days}", str(today)]
    facts += _distributions()
    digest.update("\n".join(facts).encode("utf-8", "surrogateescape"))
    for name, read in _files(package, _resources.dataset_dir(), _resources.schema_dir()):
        data = read()
        digest.update(f"\n{name} {len(data)}\n".encode("utf-8", "surrogateescape"))
        digest.update(data)
    return digest.hexdigest()


def _package() -> Path:
    """The folder of the package ``atlas`` (in a zip file, a path that is no folder)."""
    return Path(__file__).parent.parent


def _distributions() -> list[str]:
    """The names of the distributions' metadata folders on ``sys.path`` (name and version)."""
    found = []
    for entry in sys.path:
        try:
            names = [item.name for item in Path(entry or ".").iterdir()]
        except OSError:
            continue
        found += sorted(n for n in names if n.endswith((".dist-info", ".egg-info")))
    return found


def _files(package: Path, *data: Traversable) -> Iterator[tuple[str, Any]]:
    """(name, how to read it) of every file of ``package`` (no byte-code) and of ``data``."""
    for folder, subfolders, names in os.walk(package):
        subfolders[:] = sorted(d for d in subfolders if d not in ("__pycache__", "_data"))
        for name in sorted(names):
            path = Path(folder, name)
            yield f"code {path.relative_to(package).as_posix()}", path.read_bytes
    for number, root in enumerate(data):
        yield from ((f"data {number} {name}", read) for name, read in _walk(root, ""))


def _walk(folder: Traversable, prefix: str) -> Iterable[tuple[str, Any]]:
    """(relative name, how to read it) of every file under ``folder``, by name."""
    for item in sorted(folder.iterdir(), key=lambda i: i.name):
        name = f"{prefix}{item.name}"
        if item.is_dir():
            if item.name != "__pycache__":
                yield from _walk(item, f"{name}/")
        else:
            yield name, item.read_bytes


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
