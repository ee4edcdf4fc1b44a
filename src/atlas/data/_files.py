"""Reading the files that data names: inside their folder, regular files only, of bounded size.

A dataset names its snapshots (``ea:snapshot``) and lies in a folder of Turtle files; neither may
lead the reader elsewhere. A name is refused when it is absolute, holds a NUL, or leads out of
its folder (through ``..`` or a symbolic link); a file is refused when it is not a regular file
(a device such as ``/dev/zero``, a FIFO that would block, a folder) or is larger than the limit.
Each refusal is an :class:`UnsafeFileError` that names the file and says why.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     inside(Path(folder), "../etc/passwd")
Traceback (most recent call last):
...
atlas.data._files.UnsafeFileError: '../etc/passwd' leads out of its folder ...
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from atlas.errors import AtlasError

__all__ = [
    "MAX_SNAPSHOT_BYTES",
    "MAX_TURTLE_BYTES",
    "TurtleFile",
    "UnsafeFileError",
    "inside",
    "read_bytes",
    "regular_file",
]

#: The largest snapshot read to check quotes (the largest shipped one is about 120 KB).
MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024
#: The largest Turtle file read (a million-triple data set split in a few files fits).
MAX_TURTLE_BYTES = 512 * 1024 * 1024


class UnsafeFileError(AtlasError, ValueError):
    """A file that data names and that may not be read: outside its folder, not regular, too big."""


def inside(folder: Path, name: str) -> Path:
    """The file ``name`` in ``folder``, resolved, once it is known to stay inside the folder.

    Raises:
        UnsafeFileError: ``name`` is absolute, holds a NUL, or leads out of ``folder``.
    """
    if "\x00" in name:
        raise UnsafeFileError(f"{name!r} holds a NUL character: no file has such a name")
    if Path(name).is_absolute():
        raise UnsafeFileError(f"{name!r} is an absolute path: name a file inside {str(folder)!r}")
    try:
        root = Path(folder).resolve()
        try:  # strict: from Python 3.13 on, a loop no longer raises otherwise
            target = (root / name).resolve(strict=True)
        except FileNotFoundError:  # a missing file: resolved as far as it goes, reported later
            target = (root / name).resolve()
    except (OSError, RuntimeError) as error:  # a loop of symbolic links (RuntimeError < 3.13)
        raise UnsafeFileError(f"{name!r} cannot be resolved: {error}") from None
    if not target.is_relative_to(root):
        raise UnsafeFileError(
            f"{name!r} leads out of its folder {str(root)!r} (to {str(target)!r}): "
            "name a file inside it, and no symbolic link out of it"
        )
    return target


def _refuse_irregular(path: Path, info: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFileError(f"{str(path)!r} is not a regular file: only files are read")
    if info.st_size > limit:
        raise UnsafeFileError(
            f"{str(path)!r} is {info.st_size} bytes, over the limit of {limit} bytes"
        )


def regular_file(path: Path, limit: int) -> Path:
    """``path``, once it is known to be a regular file of at most ``limit`` bytes.

    For readers that open files themselves, such as pyoxigraph's.

    Raises:
        UnsafeFileError: the file is not a regular file, or is larger than ``limit``.
        OSError: the file cannot be looked at (missing, no permission).
    """
    _refuse_irregular(path, Path(path).stat(), limit)
    return path


def read_bytes(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; never blocks on a FIFO.

    Raises:
        UnsafeFileError: the file is not a regular file, or is larger than ``limit``.
        OSError: the file cannot be opened or read (missing, no permission).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path, flags)
    try:
        _refuse_irregular(path, os.fstat(descriptor), limit)
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(descriptor, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(descriptor)
    data = b"".join(chunks)
    if len(data) > limit:  # it grew while being read
        raise UnsafeFileError(f"{str(path)!r} is over the limit of {limit} bytes")
    return data


@dataclass(frozen=True)
class TurtleFile:
    """A Turtle document: the name to report in messages, and its text."""

    name: str
    text: str

    @classmethod
    def load(cls, path: Path | Traversable, name: str | None = None) -> TurtleFile:
        """Read a file; ``name`` defaults to its path (or ``dataset/<file>`` when shipped)."""
        shown = name or (str(path) if isinstance(path, Path) else f"dataset/{path.name}")
        return cls(shown, path.read_text(encoding="utf-8"))
