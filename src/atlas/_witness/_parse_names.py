r"""Parsers of the private names that reduce-overhead and AOTInductor runs leave behind.

The CUDA runtime's calls as the profiler names them (``cudaStreamBeginCapture``,
``cudaGraphInstantiate``, ``cudaGraphLaunch``), Inductor's counter keys (``cudagraph_skips``) and
the member names of AOTInductor's ``.pt2`` archive are not stable interfaces; their patterns are
kept here, beside ``parse.py``, and tested on fixtures recorded on a CPU and an H200.

>>> capture_events(["cudaStreamBeginCapture", "aten::mm", "cudaGraphInstantiateWithFlags"])
('cudaStreamBeginCapture', 'cudaGraphInstantiateWithFlags')
>>> member_kind("model/data/aotinductor/model/cw5g.wrapper.so")
'shared library'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

__all__ = [
    "capture_events",
    "cudagraph_counters",
    "graph_launches",
    "kernel_launches",
    "member_kind",
    "member_summary",
]

_CAPTURE = re.compile(
    r"^(?:cudaStreamBeginCapture\w*|cudaStreamEndCapture\w*|cudaGraphInstantiate\w*"
    r"|cuStreamBeginCapture\w*|cuStreamEndCapture\w*|cuGraphInstantiate\w*)$"
)
_LAUNCH_GRAPH = re.compile(r"^(?:cudaGraphLaunch\w*|cuGraphLaunch\w*)$")
_LAUNCH_KERNEL = re.compile(r"^(?:cudaLaunchKernel\w*|cuLaunchKernel\w*)$")
_KINDS: tuple[tuple[str, str], ...] = (
    (".so", "shared library"),
    (".wrapper.cpp", "wrapper source"),
    (".kernel.cpp", "kernel source"),
    (".cpp", "C++ source"),
    (".cubin", "cubin"),
    (".ptx", "PTX"),
    (".json", "metadata"),
)


def capture_events(names: Iterable[str]) -> tuple[str, ...]:
    """The CUDA runtime's stream-capture and graph-instantiation calls among profiler names."""
    return tuple(dict.fromkeys(n for n in names if _CAPTURE.match(n)))


def graph_launches(names: Iterable[str]) -> tuple[str, ...]:
    """The CUDA runtime's graph launches (``cudaGraphLaunch``) among profiler names.

    >>> graph_launches(["cudaLaunchKernel", "cudaGraphLaunch"])
    ('cudaGraphLaunch',)
    """
    return tuple(dict.fromkeys(n for n in names if _LAUNCH_GRAPH.match(n)))


def kernel_launches(names: Iterable[str]) -> tuple[str, ...]:
    """Single kernel launches (``cudaLaunchKernel``, the driver's ``cuLaunchKernel``)."""
    return tuple(dict.fromkeys(n for n in names if _LAUNCH_KERNEL.match(n)))


def cudagraph_counters(counters: Mapping[str, int]) -> dict[str, int]:
    """Inductor's counters about CUDA graphs (``cudagraph_skips``, ...), by key.

    >>> cudagraph_counters({"cudagraph_skips": 1, "extern_calls": 2})
    {'cudagraph_skips': 1}
    """
    return {k: v for k, v in sorted(counters.items()) if "cudagraph" in k}


def member_kind(name: str) -> str | None:
    """What a ``.pt2`` member is: shared library, wrapper source, cubin, weights, ..."""
    pure = PurePosixPath(name)
    if "weights" in pure.parts or "constants" in pure.parts or pure.suffix == ".ubj":
        return "weights"
    for suffix, kind in _KINDS:
        if pure.name.endswith(suffix):
            return kind
    return None


def member_summary(members: Iterable[tuple[str, int]]) -> str:
    """The package's telling members in a line: kind, file name and size.

    >>> member_summary([("m/a.wrapper.so", 2554760), ("m/version", 1)])
    'shared library a.wrapper.so (2,554,760 bytes)'
    """
    parts = [
        f"{kind} {PurePosixPath(name).name} ({size:,} bytes)"
        for name, size in members
        if (kind := member_kind(name)) is not None
    ]
    return ", ".join(parts)
