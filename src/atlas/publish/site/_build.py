"""Write the explainer site for one :class:`~atlas.models.AtlasDocument` (the JSON export).

The pages are rendered by :mod:`atlas.publish.site._render` (an index, the full graph, and per
atlas its views and reference pages); here they are written and put in place.

The output folder is the build's alone: the site is written into a hidden sibling folder
(``.<name>.building-<random>``) and swapped in once whole, so that the folder holds the old site
or the new one, never a mix, whether the build succeeds, fails or is killed.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import re
import secrets
import shutil
import stat
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.data import _atomic
from atlas.publish.site._deferred import unindent
from atlas.publish.site._render import STATIC_FILES, environment, site_files
from atlas.publish.site._views import SiteError, tracker

if TYPE_CHECKING:
    from atlas.models import AtlasDocument

__all__ = ["BuildReport", "build"]
MARKER = ".atlas-site"  # every build writes it: the folder may be replaced as a whole
_MARKER_TEXT = (
    "Written by 'atlas site build' (Execution Atlas); the next build replaces this folder.\n"
)
# a site written before builds left a marker: these files, and the JSON export beside them
_EARLIER_SITE = frozenset({"index.html", "graph.html", *STATIC_FILES})
_DOWNLOAD = re.compile(r"execution-atlas-.+\.json")
_AT_FDCWD = -100  # <fcntl.h>: paths relative to the current folder
_RENAME_EXCHANGE = 2  # <linux/fs.h>: renameat2 swaps the two paths


@dataclass(frozen=True)
class BuildReport:
    """What :func:`build` wrote: the files, each page's weight and the time it took."""

    outdir: Path
    files: tuple[Path, ...]
    weights: dict[str, int] = field(default_factory=dict)  # page -> bytes, with its CSS and JS
    seconds: float = 0.0

    @property
    def heaviest(self) -> tuple[str, int]:
        """The page with the largest weight, and that weight in bytes."""
        return max(self.weights.items(), key=lambda item: (item[1], item[0]))


def build(
    outdir: Path, document: AtlasDocument | None = None, *, issues_url: str | None = None
) -> BuildReport:
    """Write the whole site for ``document`` (default: the shipped export) as ``outdir``.

    Each stage and step links to a new issue about it on ``issues_url`` (default: the issue
    tracker that the dataset's metadata names; without one, no such links).

    ``outdir`` becomes wholly the build's output: it must be new, empty, or a site that an
    earlier build wrote (marked by a ``.atlas-site`` file). The site is written into a hidden
    sibling folder and swapped in once whole, so ``outdir`` keeps the old site until then, and
    keeps it if the build fails; what a killed build leaves beside it, the next build removes.

    Raises:
        SiteError: ``outdir`` is not a folder, holds other files, is a mount point, or holds
            the current folder; ``issues_url`` is not an https URL; Jinja2 is not installed;
            or the data cannot be shown.
        LayoutError: a drawing has no shipped layout made from this data (``layouts.json``),
            and Graphviz ``dot`` is missing or fails; nothing is written.
    """
    start = time.perf_counter()
    outdir = Path(outdir)
    tracker(issues_url)  # checked before anything is written
    target = _target(outdir)
    if document is None:
        from atlas.query.paths import load  # noqa: PLC0415

        document = load()
    env = environment()
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(target)
    # SIGTERM, SIGHUP and SIGINT unwind the build, removing its folder, then act as they would
    with _atomic.unwind_on_signals() as signals:
        signals.hold()  # a signal waits until the clean-up below knows the folder
        folder, lock = _new_folder(target)
        try:
            signals.release()
            written = [_write(folder, MARKER, _MARKER_TEXT)]
            written += [
                _write(folder, name, text) for name, text in site_files(document, env, issues_url)
            ]
            weights = _weights(folder, written)
            _sync_folders(folder, written)
            _check_replaceable(target, outdir)
            old = _swap(folder, target)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        finally:
            if lock is not None:
                os.close(lock)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    files = tuple(outdir / name for name in written)
    return BuildReport(outdir, files, weights, time.perf_counter() - start)


def _write(folder: Path, name: str, text: str) -> str:
    """Write one file of the site into ``folder``, on disk before the swap; return ``name``."""
    if name.endswith(".html"):
        text = unindent(text)
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())  # else a crash after the swap could leave it empty
    return name


def _weights(folder: Path, written: list[str]) -> dict[str, int]:
    """Each page's bytes plus those of the stylesheet and script it loads."""
    extra = {name: (folder / name).stat().st_size for name in STATIC_FILES}
    weights = {}
    for name in written:
        if name.endswith(".html"):
            text = (folder / name).read_text(encoding="utf-8")
            loads = sum(size for static, size in extra.items() if f'{static}"' in text)
            weights[name] = len(text.encode()) + loads
    return weights


# --- the output folder: checked, built beside, swapped in ----------------------------------


def _target(outdir: Path) -> Path:
    """The real folder that ``outdir`` names (a symbolic link to it stays a link), checked."""
    target = Path(os.path.realpath(outdir))
    if not target.name:
        raise SiteError(f"cannot build a site as {str(outdir)!r}: choose a folder inside it")
    if Path.cwd().resolve().is_relative_to(target):
        raise SiteError(
            f"cannot build a site into {str(outdir)!r}: the build replaces the folder, and it is"
            " (or holds) the current folder; run the build from outside it"
        )
    _check_replaceable(target, outdir)
    return target


def _check_replaceable(target: Path, outdir: Path) -> None:
    """Refuse to replace anything but nothing, an empty folder, or a site a build wrote."""
    if not target.exists():
        return
    if not target.is_dir():
        raise SiteError(f"cannot build a site into {str(outdir)!r}: it is not a folder")
    if os.path.ismount(target):
        raise _mount_point(outdir)
    names = {path.name for path in target.iterdir()}
    earlier = names >= _EARLIER_SITE and any(_DOWNLOAD.fullmatch(name) for name in names)
    if names and MARKER not in names and not earlier:
        raise SiteError(
            f"will not replace {str(outdir)!r}: the build replaces the whole folder, and this one"
            f" holds files but no site built by 'atlas site build' (no {MARKER} file);"
            " choose a new or empty folder"
        )


def _mount_point(outdir: Path) -> SiteError:
    return SiteError(
        f"cannot build a site into {str(outdir)!r}: the build replaces the folder, and it is a"
        f" mount point; build into a folder inside it, such as {str(Path(outdir, 'site'))!r}"
    )


def _new_folder(target: Path) -> tuple[Path, int | None]:
    """A new hidden sibling of ``target`` to build in, and a descriptor holding its lock.

    The lock (released with the descriptor, or when the process dies) tells the
    :func:`_remove_leftovers` of other builds that the folder is in use.
    """
    for _ in range(8):
        folder = target.with_name(f".{target.name}.building-{secrets.token_hex(8)}")
        folder.mkdir()
        try:
            if target.is_dir():  # keep the mode the old folder has
                folder.chmod(stat.S_IMODE(target.stat().st_mode))
            if os.name == "nt":  # Windows opens no folder, so locks none: nor do other builds
                return folder, None
            fd = os.open(folder, os.O_RDONLY)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        if _atomic.try_lock(fd) is not False and _still_there(fd, folder):
            return folder, fd
        os.close(fd)  # another build's clean-up took it for a leftover: take another
    raise SiteError(f"cannot make a build folder beside {str(target)!r}")


def _still_there(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), path.stat())
    except FileNotFoundError:
        return False


def _remove_leftovers(target: Path) -> None:
    """Remove what killed builds of ``target`` left beside it.

    A build folder is removed only when no live build holds its lock. An old site moved aside
    by a two-step swap goes back in place if the swap was cut short, else is removed.
    """
    pattern = re.compile(re.escape(f".{target.name}.") + r"(building|old)-[0-9a-f]{16}")
    found: list[tuple[str, Path]] = []
    with contextlib.suppress(OSError), os.scandir(target.parent) as entries:  # best effort
        found = sorted(
            (match[1], Path(entry.path))
            for entry in entries
            if (match := pattern.fullmatch(entry.name)) and entry.is_dir(follow_symlinks=False)
        )
    for kind, folder in found:
        if kind == "building":
            _remove_unused(folder)
        elif target.exists():
            shutil.rmtree(folder, ignore_errors=True)
        else:  # the swap was cut between its two renames: put the old site back
            with contextlib.suppress(OSError):
                folder.rename(target)


def _remove_unused(folder: Path) -> None:
    """Remove the build folder ``folder`` unless a live build holds its lock."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        if _atomic.try_lock(fd) is True:
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        os.close(fd)


def _swap(folder: Path, target: Path) -> Path | None:
    """Put ``folder`` in ``target``'s place; return where the old site went, if there was one.

    On Linux the two folders are exchanged in one step; elsewhere the old one is renamed aside
    first, and put back if the second rename fails.
    """
    try:
        return _replace(folder, target)
    except OSError as error:
        if error.errno in {errno.EBUSY, errno.EXDEV}:  # a mount point, such as a bind mount
            raise _mount_point(target) from error
        raise
    finally:
        _atomic.sync_folder(target.parent)


def _replace(folder: Path, target: Path) -> Path | None:
    if not target.exists():
        folder.rename(target)
        return None
    if _exchange(folder, target):
        return folder
    aside = target.with_name(f".{target.name}.old-{secrets.token_hex(8)}")
    target.rename(aside)
    try:
        folder.rename(target)
    except BaseException:
        aside.rename(target)
        raise
    return aside


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths in one step (Linux's ``renameat2``); False where that is not supported."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    old, new = os.fsencode(first), os.fsencode(second)
    if renameat2(_AT_FDCWD, old, _AT_FDCWD, new, _RENAME_EXCHANGE) == 0:
        return True
    error = ctypes.get_errno()
    if error in {errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP}:
        return False  # an old kernel or C library, or a file system without it
    raise OSError(error, os.strerror(error), str(second))


@functools.cache
def _renameat2() -> Any:
    """The C library's ``renameat2`` (glibc 2.28, musl 1.2.3), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = (
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    )
    function.restype = ctypes.c_int
    return function


def _sync_folders(folder: Path, written: list[str]) -> None:
    """Make the names of the files written in ``folder`` durable, as their contents are."""
    for path in {(folder / name).parent for name in written}:
        _atomic.sync_folder(path)
