"""What a run leaves outside Python: files in the caches, commands, SASS, loaded libraries.

The collector gathers these traces verbatim, without reading any private text format: the
files the run wrote under its temporary folder (with the text of the telling ones), the argv of
every subprocess it started (through an audit hook), the head of ``cuobjdump --dump-sass`` for
each .cubin, and the shared objects mapped into the process. ``parse.py`` reads them later.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from atlas._witness._environment import find_tool
from atlas.models._raw import Artifact

__all__ = [
    "CommandLog",
    "cache_artifacts",
    "disassemble",
    "mapped_files",
    "newly_mapped",
    "shared_objects",
]

_TEXT_LIMIT = 64 * 1024
"""Most bytes of a generated source kept in the raw run."""
_HEAD_LINES = 40
"""Lines kept from the head of Triton's intermediate files and of the SASS listing."""
_TRITON_TEXT = (".source", ".ttir", ".ttgir", ".llir", ".ptx", ".json")
_MAPPED_HINTS = (
    "libgomp",
    "libiomp",
    "libomp",
    "libcublas",
    "libcudnn",
    "libtorch_cpu",
    "libtorch_cuda",
)
_MAPS_FIELDS = 6


def _read_text(path: Path, *, head_lines: int | None = None) -> tuple[str, bool]:
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    if head_lines is not None:
        lines = text.splitlines(keepends=True)
        if len(lines) > head_lines:
            return "".join(lines[:head_lines]), True
    if len(raw) > _TEXT_LIMIT:
        return raw[:_TEXT_LIMIT].decode("utf-8", errors="replace"), True
    return text, False


def cache_artifacts(root: Path) -> tuple[Artifact, ...]:
    """List the files the run wrote under ``root``, with the text of the telling ones."""
    found: list[Artifact] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        size = path.stat().st_size
        text: str | None = None
        truncated = False
        if rel.startswith("inductor/") and path.suffix == ".py" and "/fxgraph/" not in rel:
            text, truncated = _read_text(path)
        elif (rel.startswith("triton/") and path.suffix in _TRITON_TEXT) or (
            rel.startswith("inductor/") and path.suffix == ".cpp"
        ):
            text, truncated = _read_text(path, head_lines=_HEAD_LINES)
        found.append(Artifact(path=rel, size=size, text=text, truncated=truncated))
    return tuple(found)


def disassemble(root: Path, artifacts: Sequence[Artifact]) -> dict[str, str]:
    """Return the head of ``cuobjdump --dump-sass`` for each .cubin, when cuobjdump exists."""
    tool = find_tool("cuobjdump")
    if tool is None:
        return {}
    heads: dict[str, str] = {}
    for artifact in artifacts:
        if artifact.path.endswith(".cubin"):
            done = subprocess.run(
                [tool, "--dump-sass", str(root / artifact.path)],
                capture_output=True,
                text=True,
                check=False,
                timeout=60,
            )
            lines = (done.stdout or done.stderr).splitlines()
            heads[artifact.path] = "\n".join(lines[: _HEAD_LINES + 20])
    return heads


def shared_objects() -> frozenset[str]:
    """Every shared object in /proc/self/maps, by path (`` (deleted)``: removed once mapped)."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return frozenset()
    paths: set[str] = set()
    for line in maps.read_text(errors="replace").splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) >= _MAPS_FIELDS and ".so" in parts[5]:
            paths.add(parts[5].strip())
    return frozenset(paths)


def newly_mapped(before: frozenset[str], root: Path) -> tuple[str, ...]:
    """The shared objects mapped since ``before`` was read, wherever they lie.

    Relative to ``root`` inside it, absolute outside it (a loader may unpack a package into the
    system's temporary folder).
    """
    return tuple(sorted(_relative(path, root) for path in shared_objects() - before))


def _relative(path: str, root: Path) -> str:
    return Path(path).relative_to(root).as_posix() if path.startswith(str(root)) else path


def mapped_files(root: Path) -> tuple[str, ...]:
    """Shared objects in /proc/self/maps that came from the run or are runtime libraries."""
    names: set[str] = set()
    for path in shared_objects():
        if path.startswith(str(root)):
            names.add(Path(path).relative_to(root).as_posix())
        elif any(hint in Path(path).name for hint in _MAPPED_HINTS):
            names.add(Path(path).name)
    return tuple(sorted(names))


class CommandLog:
    """Records the argv of every subprocess started while :attr:`active` (an audit hook)."""

    def __init__(self) -> None:
        self.active = False
        self.commands: list[tuple[str, ...]] = []
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active or event != "subprocess.Popen":
            return
        argv = args[1]
        if isinstance(argv, (list, tuple)):
            self.commands.append(tuple(str(a) for a in argv))
        else:
            self.commands.append((str(argv),))
