"""A release folder: its files written whole or not at all, its checksums, and its check.

:func:`write_folder` writes the files into a hidden sibling of the output folder
(``.<name>.<random>.partial``), checks them there and renames that folder into place, so that a
release that fails or is interrupted leaves no output folder; the next write removes a folder
that a killed one left. :func:`sha256sums` is the ``SHA256SUMS`` file that ``sha256sum -c``
reads, and :func:`verify_folder` checks a folder: every file listed there with its digest, and
in the DCAT description (``*.dcat.ttl``) with its checksum and size.

>>> print(sha256sums({"a.txt": b"a"}), end="")
ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  a.txt
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.data import _atomic
from atlas.data._releasedcat import described
from atlas.errors import ArgumentValueError, AtlasError, DatasetError, Problem

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = [
    "DCAT_SUFFIX",
    "SUMS_NAME",
    "ReleaseFolderError",
    "read_sums",
    "sha256sums",
    "verify_folder",
    "write_folder",
]

SUMS_NAME = "SHA256SUMS"
DCAT_SUFFIX = ".dcat.ttl"
#: A file name that needs no escaping in SHA256SUMS nor in a URL, and hides nothing (no dot first).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_SUM_LINE = re.compile(r"([0-9a-f]{64}) [ *](.+)")
_STALE_AFTER_S = 2.0


class ReleaseFolderError(AtlasError, ValueError):
    """The output folder cannot be the release's: it exists and holds files, or is no folder."""


def sha256sums(files: Mapping[str, bytes]) -> str:
    """The ``SHA256SUMS`` text of ``files`` (name -> bytes), one line each, sorted by name."""
    return "".join(f"{hashlib.sha256(files[n]).hexdigest()}  {n}\n" for n in sorted(files))


def read_sums(text: str, source: str = SUMS_NAME) -> tuple[dict[str, str], list[Problem]]:
    """The digests that a ``SHA256SUMS`` text lists, by name, and a problem per unreadable line."""
    sums: dict[str, str] = {}
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        match = _SUM_LINE.fullmatch(line)
        if match is None or match[2] in sums:
            what = "a name listed twice" if match else "not '<sha256 hex>  <name>'"
            problems.append(Problem("violation", f"{what}: {line!r}", file=source, line=number))
            continue
        sums[match[2]] = match[1]
    return sums, problems


def write_folder(
    out: Path, files: Mapping[str, bytes], check: Callable[[Path], list[Problem]] | None = None
) -> Path:
    """Write ``files`` (name -> bytes) as the new folder ``out``, whole or not at all.

    ``out`` must not exist or be an empty folder. The files are written into a hidden sibling
    folder, synced, checked by ``check`` (when given) and renamed into place: on any failure,
    and on SIGTERM, SIGHUP or SIGINT, that folder is removed and ``out`` is left as it was.

    Raises:
        ReleaseFolderError: ``out`` is not a folder, or holds files.
        ArgumentValueError: a name is not a plain file name.
        DatasetError: ``check`` found problems; nothing is written.
        OSError: the folder cannot be written.
    """
    out = Path(out)
    for name in files:
        if not _NAME.fullmatch(name):
            raise ArgumentValueError("file name", name, "is not a plain file name")
    _check_new(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(out)
    with _atomic.unwind_on_signals() as signals:
        signals.hold()  # a signal waits until the clean-up below knows the folder
        folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
        lock = None
        try:
            lock = _lock(folder)
            signals.release()
            _fill(folder, files, check, str(out))
            folder.chmod(0o755)  # mkdtemp's folder is private (0700)
            _check_new(out)
            folder.rename(out)  # over an empty folder too (POSIX)
            _atomic.sync_folder(out.parent)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        finally:
            if lock is not None:
                os.close(lock)
    return out


def _fill(
    folder: Path,
    files: Mapping[str, bytes],
    check: Callable[[Path], list[Problem]] | None,
    shown: str,
) -> None:
    """Write ``files`` into ``folder``, on disk, and check them there."""
    for name, data in sorted(files.items()):
        _write_file(folder / name, data)
    _atomic.sync_folder(folder)
    problems = check(folder) if check is not None else []
    if problems:
        raise DatasetError(problems, source=shown)


def _check_new(out: Path) -> None:
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ReleaseFolderError(f"cannot write a release as {str(out)!r}: it is not a folder")
    if out.is_dir() and any(out.iterdir()):
        raise ReleaseFolderError(
            f"will not write a release into {str(out)!r}: it holds files; choose a new or empty"
            " folder (a release folder is written whole)"
        )


def _write_file(path: Path, data: bytes) -> None:
    """Write one file of the release, on disk before the folder is renamed into place."""
    with path.open("xb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    path.chmod(0o644)


def _lock(folder: Path) -> int | None:
    """A descriptor holding a lock on ``folder`` while it is written (none on Windows)."""
    if os.name == "nt":
        return None
    fd = os.open(folder, os.O_RDONLY)
    _atomic.try_lock(fd)
    return fd


def _remove_leftovers(out: Path) -> None:
    """Remove the folders that killed writes of ``out`` left beside it (none a live one holds)."""
    for folder in _atomic.leftovers(out, "partial", folders=True):
        with contextlib.suppress(OSError):
            fd = os.open(folder, os.O_RDONLY)
            try:  # unchanged for a while (the instant before a live write locks it) and unlocked
                stale = time.time() - os.fstat(fd).st_mtime > _STALE_AFTER_S
                if stale and _atomic.try_lock(fd) is True:
                    shutil.rmtree(folder, ignore_errors=True)
            finally:
                os.close(fd)


# --- checking a release folder --------------------------------------------------------------


def verify_folder(folder: Path) -> list[Problem]:
    """The problems of the release folder ``folder``; none when all is well.

    Every file but ``SHA256SUMS`` is listed there with its SHA-256, and every file but that and
    the DCAT description (the one ``*.dcat.ttl``) is a distribution there whose download URL
    ends with its name, with its size and SHA-256; nothing else is listed or described.
    """
    folder = Path(folder)
    names = sorted(p.name for p in folder.iterdir())
    problems = [
        Problem("violation", "not a regular file", file=str(folder / n))
        for n in names
        if not (folder / n).is_file() or (folder / n).is_symlink()
    ]
    if problems:
        return problems
    data = {name: (folder / name).read_bytes() for name in names}
    problems += _sums_problems(folder, data)
    dcat = [n for n in names if n.endswith(DCAT_SUFFIX)]
    if len(dcat) != 1:
        found = ", ".join(dcat) or "none"
        message = f"one DCAT description (*{DCAT_SUFFIX}) expected; found {found}"
        return [*problems, Problem("violation", message, file=str(folder))]
    files = {n: d for n, d in data.items() if n not in {SUMS_NAME, dcat[0]}}
    return problems + _dcat_problems(str(folder / dcat[0]), data[dcat[0]], files)


def _sums_problems(folder: Path, data: dict[str, bytes]) -> list[Problem]:
    source = str(folder / SUMS_NAME)
    if SUMS_NAME not in data:
        return [Problem("violation", f"no {SUMS_NAME} file", file=str(folder))]
    try:
        sums, problems = read_sums(data[SUMS_NAME].decode("utf-8"), source)
    except UnicodeDecodeError:
        return [Problem("violation", "not UTF-8 text", file=source)]
    for name in sorted(set(sums) | set(data) - {SUMS_NAME}):
        if name not in data:
            problems.append(Problem("violation", f"lists {name!r}, which is missing", file=source))
        elif name not in sums:
            problems.append(Problem("violation", f"does not list {name!r}", file=source))
        elif hashlib.sha256(data[name]).hexdigest() != sums[name]:
            problems.append(Problem("violation", f"{name!r}: SHA-256 differs", file=source))
    return problems


def _dcat_problems(source: str, text: bytes, files: dict[str, bytes]) -> list[Problem]:
    try:
        said = described(text, source)
    except DatasetError as error:
        return list(error.problems)
    problems = []
    for name in sorted(set(files) | {d.name for d in said}):
        about = [d for d in said if d.name == name]
        if name not in files:
            message = f"describes {name!r}, which is missing"
        elif len(about) != 1:
            message = f"{name!r}: {len(about) or 'no'} distributions name it; one expected"
        elif about[0].byte_size != len(files[name]):
            message = f"{name!r}: byteSize {about[0].byte_size} but {len(files[name])} bytes"
        elif about[0].algorithm != "sha256" or about[0].media_type is None:
            message = f"{name!r}: no sha256 checksum or no media type"
        elif about[0].checksum != hashlib.sha256(files[name]).hexdigest():
            message = f"{name!r}: spdx:checksumValue differs from the file's SHA-256"
        else:
            continue
        problems.append(Problem("violation", message, file=source))
    return problems
