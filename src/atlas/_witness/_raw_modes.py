"""The raw evidence of the two modes of issue 24: reduce-overhead (CUDA graphs) and AOTInductor.

A :class:`ModeRunPlus` is a :class:`~atlas.models._raw.ModeRun` whose mode may also be
``reduce-overhead`` or ``aotinductor``, with what only those modes leave behind: the calls made
one by one (their times, profiler events and Inductor counters, for CUDA graphs' warm-up, record
and replay), the messages of Inductor's ``cudagraphs`` log, and the ``.pt2`` package that
AOTInductor wrote. :class:`RawRunPlus` is a :class:`~atlas.models._raw.RawRun` whose modes may
be either; it reads every raw run the older format wrote.

These live here, not in ``atlas.models._raw``, only because that module was out of this
change's reach: folding them in means widening ``RawMode`` and moving the three fields.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from atlas.models._raw import ModeRun, ProfiledEvent, RawRun

__all__ = ["CallTrace", "ModeRunPlus", "PackageMember", "PackageTrace", "RawRunPlus"]

PlusMode = Literal["reduce-overhead", "aotinductor"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class CallTrace(_Frozen):
    """One call of the compiled (or loaded) model, after the first, watched on its own."""

    number: int = Field(ge=1, description="Which call it was (1 is the compiling call).")
    seconds: float = Field(ge=0, description="Seconds the call took (the GPU waited for).")
    profiled: tuple[ProfiledEvent, ...] = Field(
        default=(), description="The profiler's events of this call alone."
    )
    counters: dict[str, int] = Field(
        default_factory=dict,
        description="torch._dynamo.utils.counters['inductor'] after the call (cumulative).",
    )
    error: str | None = Field(
        default=None, description="'Name: message' when profiling this call failed."
    )


class PackageMember(_Frozen):
    """A file inside the ``.pt2`` zip archive."""

    name: str = Field(description="Its name in the archive.")
    size: int = Field(ge=0, description="Its uncompressed size in bytes.")


class PackageTrace(_Frozen):
    """The ``.pt2`` package AOTInductor wrote, and what loading it did."""

    path: str = Field(description="Path relative to the run's temporary folder.")
    size: int = Field(ge=0, description="Size in bytes.")
    members: tuple[PackageMember, ...] = Field(description="The archive's members.")
    loader: str | None = Field(
        default=None, description="The type of the loaded model, e.g. 'AOTICompiledModel'."
    )
    mapped_before_load: tuple[str, ...] = Field(
        default=(), description="Run-made shared objects mapped before the package was loaded."
    )
    export_s: float | None = Field(default=None, ge=0, description="Seconds torch.export took.")
    compile_s: float | None = Field(
        default=None, ge=0, description="Seconds aoti_compile_and_package took."
    )
    load_s: float | None = Field(default=None, ge=0, description="Seconds loading took.")


class ModeRunPlus(ModeRun):
    """A mode of the run, reduce-overhead and aotinductor included."""

    mode: PlusMode = Field(description="The mode, named as in the atlas.")  # type: ignore[assignment]  # widened on purpose
    calls: tuple[CallTrace, ...] = Field(
        default=(), description="The calls after the first, each watched on its own."
    )
    log: tuple[str, ...] = Field(
        default=(), description="Messages of Inductor's 'cudagraphs' log, verbatim."
    )
    package: PackageTrace | None = Field(default=None, description="AOTInductor's package.")


class RawRunPlus(RawRun):
    """A raw run whose modes may include reduce-overhead and aotinductor."""

    modes: tuple[ModeRun | ModeRunPlus, ...] = Field(description="One entry per mode run.")
