"""The collector's two modes of issue 24: reduce-overhead (CUDA graphs) and AOTInductor.

reduce-overhead compiles the model as ``torch.compile(mode="reduce-overhead")`` does (Inductor
with the mode's options, through the recording backend), then watches the calls after the
compiling one, each on its own: CUDA Graph Trees warm a graph up on its first call, record it on
the next, and replay it from then on; the profiler shows the CUDA runtime's capture and launch
calls, Inductor's counters the graphs it skipped (every graph on a CPU). AOTInductor exports the
model (``torch.export.export``), compiles and packages it (``aoti_compile_and_package``), loads
the ``.pt2`` (``aoti_load_package``) and calls it. Imported by ``collect.py`` only; torch inside
functions.
"""

# ruff: noqa: PLC0415, SLF001

from __future__ import annotations

import time
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas._witness._progress import Progress, heartbeat
from atlas._witness._run_traces import (
    CommandLog,
    cache_artifacts,
    disassemble,
    mapped_files,
    newly_mapped,
    shared_objects,
)
from atlas._witness._torch_capture import (
    artifact_logs,
    compile_error_text,
    dynamo_counters,
    profiled_events,
    recording_backend,
    reset_dynamo,
)
from atlas.models._raw import CallTrace, CapturedGraph, ModeRun, PackageMember, PackageTrace

if TYPE_CHECKING:
    from atlas._witness._workload import Workload

__all__ = ["WATCHED_CALLS", "aotinductor", "first_call", "reduce_overhead", "same"]

WATCHED_CALLS = 3
"""Calls watched after the compiling one: CUDA graphs record on the 2nd and replay from the 3rd."""


def _now() -> datetime:
    return datetime.now(UTC)


def same(out: Any, expected: Any) -> bool | None:
    """Whether two outputs match (every tensor close); None when they cannot be compared."""
    import torch
    from torch.utils._pytree import tree_leaves

    got, want = tree_leaves(out), tree_leaves(expected)
    if len(got) != len(want):
        return False
    pairs = [(a, b) for a, b in zip(got, want, strict=True) if isinstance(a, torch.Tensor)]
    if not pairs:
        return None
    return all(
        a.shape == b.shape and bool(torch.allclose(a, b, rtol=1e-3, atol=1e-3)) for a, b in pairs
    )


def run_evidence(root: Path, log: CommandLog) -> dict[str, Any]:
    """What every compiled mode keeps of its run, as fields of its raw record.

    Dynamo's counters, the cache's files (and their disassembly), the compiler commands and the
    files the process mapped.
    """
    artifacts = cache_artifacts(root)
    return {
        "dynamo_counters": dynamo_counters(),
        "artifacts": artifacts,
        "commands": tuple(log.commands),
        "disassembly": disassemble(root, artifacts),
        "mapped_files": mapped_files(root),
    }


def first_call(
    compiled: Callable[..., Any], work: Workload, log: CommandLog, progress: Progress, *, cuda: bool
) -> tuple[bool | None, str | None, float | None]:
    """Compile by calling ``compiled``, logging commands; whether it matches eager, error, time."""
    import torch

    log.active = True
    try:
        with heartbeat(progress, "torch.compile"), torch.no_grad():
            started = time.perf_counter()
            out = work(compiled)
            if cuda:
                torch.cuda.synchronize()
            seconds = round(time.perf_counter() - started, 6)
            outputs_match = same(out, work())
    except Exception as exc:  # noqa: BLE001 - any compile failure is reported, not raised
        error = compile_error_text(exc)
        progress(f"the compile failed: {error}")
        return None, error, None
    finally:
        log.active = False
    return outputs_match, None, seconds


def _inductor_counters() -> dict[str, int]:
    from torch._dynamo.utils import counters

    return {str(k): int(v) for k, v in counters["inductor"].items()}


def watched_calls(call: Callable[[], Any], *, cuda: bool, first: int = 2) -> tuple[CallTrace, ...]:
    """Make :data:`WATCHED_CALLS` calls, each under the profiler; number them from ``first``."""
    traces: list[CallTrace] = []
    for number in range(first, first + WATCHED_CALLS):
        started = time.perf_counter()
        try:
            events = profiled_events(call, cuda=cuda, warm=False)
            error = None
        except Exception as exc:  # noqa: BLE001 - a profiler failure is kept, not raised
            events, error = (), compile_error_text(exc)
        seconds = round(time.perf_counter() - started, 6)
        trace = CallTrace(
            number=number,
            seconds=seconds,
            profiled=events,
            counters=_inductor_counters(),
            error=error,
        )
        traces.append(trace)
    return tuple(traces)


def _mode_options() -> dict[str, Any]:
    """Inductor's options for mode='reduce-overhead', set as torch.compile sets them."""
    import torch

    wrapper = torch._TorchCompileInductorWrapper("reduce-overhead", None, dynamic=None)  # type: ignore[no-untyped-call]  # untyped in torch
    return dict(wrapper.config)  # e.g. {'triton.cudagraphs': True}; sets CUPTI's variables too


def reduce_overhead(
    work: Workload, root: Path, log: CommandLog, progress: Progress, *, cuda: bool
) -> ModeRun:
    """Compile with reduce-overhead's options and watch the calls after the compiling one."""
    import torch

    started = _now()
    graphs: list[CapturedGraph] = []
    options = _mode_options()
    compiled = torch.compile(work.fn, backend=recording_backend(graphs, progress, root, options))
    reset_dynamo()
    progress("reduce-overhead: compiling, then watching the warm-up, record and replay calls")
    calls: tuple[CallTrace, ...] = ()
    with artifact_logs("graph_breaks", "cudagraphs") as kept:
        outputs_match, error, first = first_call(compiled, work, log, progress, cuda=cuda)
        if error is None:
            with torch.no_grad():
                calls = watched_calls(lambda: work(compiled), cuda=cuda)
    return ModeRun(
        mode="reduce-overhead",
        started_at=started,
        ended_at=_now(),
        profiled=calls[-1].profiled if calls else (),
        graphs=tuple(graphs),
        **run_evidence(root, log),
        outputs_match=outputs_match,
        error=error,
        graph_break_log=tuple(kept["graph_breaks"]),
        first_call_s=first,
        warm_call_s=min((c.seconds for c in calls), default=None),
        calls=calls,
        log=tuple(kept["cudagraphs"]),
    )


def _exported_graph(program: Any) -> CapturedGraph:
    module = program.graph_module
    ops = tuple(
        str(getattr(node.target, "__name__", node.target))
        for node in module.graph.nodes
        if node.op == "call_function"
    )
    return CapturedGraph(compile_id="export", ops=ops, code=module.code.strip())


def _members(path: Path) -> tuple[PackageMember, ...]:
    with zipfile.ZipFile(path) as archive:
        return tuple(PackageMember(name=i.filename, size=i.file_size) for i in archive.infolist())


def _build_package(work: Workload, root: Path, log: CommandLog, progress: Progress) -> Any:
    """Export, compile and package; return (graph, package path, export s, compile s)."""
    import torch

    if not isinstance(work.fn, torch.nn.Module):
        msg = (
            f"AOTInductor exports an nn.Module (torch.export.export), not {type(work.fn).__name__}"
        )
        raise TypeError(msg)
    log.active = True
    try:
        with heartbeat(progress, "AOTInductor"):
            started = time.perf_counter()
            program = torch.export.export(work.fn, work.args, work.kwargs)
            exported = time.perf_counter()
            package = root / "aoti" / "model.pt2"
            package.parent.mkdir(exist_ok=True)
            torch._inductor.aoti_compile_and_package(program, package_path=str(package))
            compiled = time.perf_counter()
    finally:
        log.active = False
    return (
        _exported_graph(program),
        package,
        round(exported - started, 3),
        round(compiled - exported, 3),
    )


def aotinductor(
    work: Workload, root: Path, log: CommandLog, progress: Progress, *, cuda: bool
) -> ModeRun:
    """Export, compile and package the model, load the package and call it."""
    import torch

    started = _now()
    reset_dynamo()
    progress("AOTInductor: exporting, compiling and packaging (about a minute on 2 CPU cores)")
    try:
        graph, package, export_s, compile_s = _build_package(work, root, log, progress)
        before = mapped_files(root)
        every_before = shared_objects()
        loading = time.perf_counter()
        loaded = torch._inductor.aoti_load_package(str(package))
        load_s = round(time.perf_counter() - loading, 3)
        by_load = newly_mapped(every_before, root)
        reset_dynamo()  # from here on, the counters show what the calls did
        outputs_match, error, first = first_call(loaded, work, log, progress, cuda=cuda)
    except Exception as exc:  # noqa: BLE001 - a failed export or compile is reported
        error = compile_error_text(exc)
        progress(f"AOTInductor failed: {error}")
        return _failed_aoti(started, root, log, error)
    calls: tuple[CallTrace, ...] = ()
    if error is None:
        with torch.no_grad():
            calls = watched_calls(lambda: work(loaded), cuda=cuda)
    trace = PackageTrace(
        path=package.relative_to(root).as_posix(),
        size=package.stat().st_size,
        members=_members(package),
        loader=type(loaded).__name__,
        mapped_before_load=before,
        mapped_by_load=by_load,
        export_s=export_s,
        compile_s=compile_s,
        load_s=load_s,
    )
    return ModeRun(
        mode="aotinductor",
        started_at=started,
        ended_at=_now(),
        profiled=calls[-1].profiled if calls else (),
        graphs=(graph,),
        **run_evidence(root, log),
        outputs_match=outputs_match,
        error=error,
        first_call_s=first,
        warm_call_s=min((c.seconds for c in calls), default=None),
        calls=calls,
        package=trace,
    )


def _failed_aoti(started: datetime, root: Path, log: CommandLog, error: str) -> ModeRun:
    return ModeRun(
        mode="aotinductor",
        started_at=started,
        ended_at=_now(),
        artifacts=cache_artifacts(root),
        commands=tuple(log.commands),
        error=error,
    )
