"""The raw artifacts of one witness run, as the collector hands them to the analysis.

The collector (``collect.py``, which imports torch) runs in a child process and writes one
:class:`RawRun` as JSON; everything after that (``parse.py``, ``observe.py``) is plain text
processing, so it runs without torch and is tested on recorded runs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "RAW_FORMAT",
    "Artifact",
    "CapturedGraph",
    "DispatchedOp",
    "ModeRun",
    "ProfiledEvent",
    "RawRun",
    "Versions",
]

RAW_FORMAT = 1
"""Version of the raw format; bump it when a field changes meaning."""

RawMode = Literal["eager", "torch-compile"]
RawDevice = Literal["cpu", "nvidia-gpu"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Versions(_Frozen):
    """Versions of the software the run used; ``None`` where a tool is absent."""

    python: str = Field(description="Python version, e.g. '3.11.7'.")
    python_implementation: str = Field(description="sys.implementation.name, e.g. 'cpython'.")
    torch: str = Field(description="torch.__version__, e.g. '2.13.0+cpu'.")
    torch_cuda: str | None = Field(
        default=None, description="torch.version.cuda (None for a CPU build)."
    )
    triton: str | None = Field(default=None, description="Installed Triton version, if any.")
    cxx_compiler: str | None = Field(
        default=None, description="First line of '<CXX> --version' for the compiler Inductor uses."
    )
    cuobjdump: str | None = Field(
        default=None, description="Last line of 'cuobjdump --version', if present."
    )
    platform: str = Field(description="platform.platform() of the machine.")


class DispatchedOp(_Frozen):
    """One aten overload seen by the dispatch mode, with the devices of its tensors."""

    op: str = Field(
        description="The overload as the dispatcher names it, e.g. 'aten.addmm.default'."
    )
    devices: tuple[str, ...] = Field(description="Devices of the tensor arguments, e.g. ('cpu',).")
    kernels: tuple[str, ...] = Field(
        description=(
            "Dispatch keys among CPU, CUDA and the composite keys that register a kernel for it."
        )
    )
    count: int = Field(ge=1, description="How many times the overload was called.")


class ProfiledEvent(_Frozen):
    """One distinct event name of the profiler, per device type."""

    name: str = Field(description="Event name, e.g. 'aten::addmm' or a CUDA kernel name.")
    device_type: str = Field(description="'CPU' or 'CUDA' (the profiler's DeviceType name).")
    count: int = Field(ge=1, description="How many events of this name the profiler recorded.")


class CapturedGraph(_Frozen):
    """One FX GraphModule that Dynamo handed to the recording backend."""

    compile_id: str = Field(description="Dynamo's compile id, e.g. '0/0'.")
    ops: tuple[str, ...] = Field(description="Targets of the graph's call nodes, in order.")
    code: str = Field(description="The GraphModule's generated Python code.")


class Artifact(_Frozen):
    """A file written during the run in the temporary caches."""

    path: str = Field(
        description="Path relative to the run's temporary folder, e.g. 'inductor/2c/c2ck.py'."
    )
    size: int = Field(ge=0, description="Size in bytes.")
    text: str | None = Field(
        default=None, description="The text, or its head for large files; None for binaries."
    )
    truncated: bool = Field(
        default=False, description="Whether text holds only the head of the file."
    )


class ModeRun(_Frozen):
    """What one mode of the run (eager or torch.compile) left behind."""

    mode: RawMode = Field(description="The mode, named as in the atlas.")
    started_at: datetime = Field(description="When the mode started (UTC).")
    ended_at: datetime = Field(description="When the mode ended (UTC).")
    dispatched: tuple[DispatchedOp, ...] = Field(
        default=(), description="aten ops seen by the dispatch mode."
    )
    profiled: tuple[ProfiledEvent, ...] = Field(
        default=(), description="Profiler events of one warm call."
    )
    graphs: tuple[CapturedGraph, ...] = Field(default=(), description="FX graphs Dynamo captured.")
    dynamo_counters: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="torch._dynamo.utils.counters after the compile."
    )
    artifacts: tuple[Artifact, ...] = Field(
        default=(), description="Files written in the temporary caches."
    )
    commands: tuple[tuple[str, ...], ...] = Field(
        default=(), description="argv of each subprocess started during the compile (audit hook)."
    )
    disassembly: dict[str, str] = Field(
        default_factory=dict,
        description="Head of 'cuobjdump --dump-sass' per .cubin artifact path.",
    )
    mapped_files: tuple[str, ...] = Field(
        default=(),
        description="Shared objects mapped into the process after the run (/proc/self/maps).",
    )
    outputs_match: bool | None = Field(
        default=None,
        description="Whether the compiled output matched eager (None when not compared).",
    )
    error: str | None = Field(
        default=None, description="'ExceptionName: message' when the mode failed."
    )


class RawRun(_Frozen):
    """Everything one witness run collected, before analysis."""

    format: int = Field(default=RAW_FORMAT, description="Version of this raw format.")
    device: RawDevice = Field(description="Device kind of the run, named as in the atlas.")
    device_name: str = Field(description="CPU model or GPU name.")
    device_detail: str = Field(default="", description="Threads, compute capability or similar.")
    versions: Versions = Field(description="Software versions.")
    settings: dict[str, str] = Field(
        default_factory=dict, description="Settings the collector changed from their defaults."
    )
    model: str = Field(description="Short description of the model that ran.")
    started_at: datetime = Field(description="When the run started (UTC).")
    ended_at: datetime = Field(description="When the run ended (UTC).")
    modes: tuple[ModeRun, ...] = Field(description="One entry per mode run.")
