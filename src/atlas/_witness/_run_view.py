"""One mode of a raw run as the probes read it, and the helpers that shape their excerpts.

A :class:`RunView` pairs a raw run with one of its modes and parses, once, what several probes
share: Inductor's output modules, the Triton cache's kernels, the profiler's events. ``clip``
and ``listing`` keep every excerpt short and alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from atlas._witness import parse
from atlas.models._witness import Excerpt

if TYPE_CHECKING:
    from atlas.models._raw import Artifact, ModeRun, RawRun

__all__ = ["Probe", "RunView", "clip", "listing"]

_EXCERPT_LIMIT = 1000
_LIST_LIMIT = 6
_COMPUTE = re.compile(r"mm|gelu|norm|relu|sum|mul|add|softmax|conv|item|scalar")


def clip(text: str, limit: int = _EXCERPT_LIMIT) -> str:
    """``text`` on one line, cut to ``limit`` characters (an ellipsis marks the cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def listing(items: Sequence[str], limit: int = _LIST_LIMIT) -> str:
    """The first ``limit`` items joined by commas, and how many more there are."""
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


@dataclass(frozen=True)
class RunView:
    """One mode of a raw run, with the parsed views the probes share."""

    raw: RawRun
    run: ModeRun

    @property
    def cpu(self) -> bool:
        """Whether the run was on the CPU."""
        return self.raw.device == "cpu"

    @cached_property
    def wrappers(self) -> tuple[Artifact, ...]:
        """Inductor's output (wrapper) modules, the main graph's module first."""
        found = [a for a in self.run.artifacts if a.text and parse.is_wrapper_module(a.text)]
        return tuple(sorted(found, key=lambda a: -a.size))  # the main graph's module first

    @cached_property
    def generated(self) -> tuple[Artifact, ...]:
        """Inductor's Python modules: wrappers and (on GPU) the Triton kernel modules."""
        found = [
            a
            for a in self.run.artifacts
            if a.text and a.path.startswith("inductor/") and a.path.endswith(".py")
        ]
        return tuple(sorted(found, key=lambda a: -a.size))  # the main output module first

    @cached_property
    def triton_files(self) -> tuple[parse.TritonKernelFiles, ...]:
        """Triton kernels in the cache, the largest (the most fused) first."""
        sizes = {a.path: a.size for a in self.run.artifacts}
        kernels = parse.triton_kernel_files(sizes)
        return tuple(sorted(kernels, key=lambda k: -sizes.get(k.files.get(".source", ""), 0)))

    def text(self, path: str) -> str:
        """The kept text of the file at ``path`` ('' when none was kept)."""
        for artifact in self.run.artifacts:
            if artifact.path == path:
                return artifact.text or ""
        return ""

    def events(self, device_type: str) -> list[tuple[str, int]]:
        """The profiler's event names and counts on ``device_type`` (``CPU`` or ``CUDA``)."""
        return [(e.name, e.count) for e in self.run.profiled if e.device_type == device_type]

    def aten_events(self) -> list[str]:
        """The aten operators of the profiler, the compute ones (matmul, norm, ...) first."""
        events = [(name, count) for name, count in self.events("CPU") if name.startswith("aten::")]
        events.sort(key=lambda item: not _COMPUTE.search(item[0]))
        return [f"{name} x{count}" for name, count in events]


Probe = Callable[[RunView], list[Excerpt]]
"""Looks for one step in a view; returns its evidence (empty when the step did not show)."""
