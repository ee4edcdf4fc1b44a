"""Probes of the steps of issue 24: CUDA graphs under reduce-overhead, and AOTInductor's package.

Each probe reads one mode of a raw run (a :class:`RunView` of a
:class:`~atlas.models._raw.ModeRun` of reduce-overhead) and returns its evidence; a run of another
mode has none. :func:`mode_notes` says what a run showed of the mode itself, such as CUDA graphs
skipped on a CPU: an honest "not applicable", not an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas._witness import _parse_names, parse
from atlas._witness._run_view import Probe, RunView, clip, listing
from atlas.models._witness import Excerpt

if TYPE_CHECKING:
    from atlas.models._raw import CallTrace, ModeRun

__all__ = ["PROBES", "mode_notes"]


def _either_mode(view: RunView) -> ModeRun | None:
    return view.run if view.run.mode in ("reduce-overhead", "aotinductor") else None


def _names(call: CallTrace, device_type: str) -> list[str]:
    return [e.name for e in call.profiled if e.device_type == device_type]


def _counted(call: CallTrace, names: tuple[str, ...]) -> str:
    counts = {e.name: e.count for e in call.profiled}
    return listing([f"{n} x{counts.get(n, 1)}" for n in names])


def _capture_call(view: RunView) -> CallTrace | None:
    run = _either_mode(view)
    if run is None or run.mode != "reduce-overhead":
        return None
    return next((c for c in run.calls if _parse_names.capture_events(_names(c, "CPU"))), None)


def _replays(view: RunView) -> list[CallTrace]:
    run = _either_mode(view)
    if run is None or run.mode != "reduce-overhead":
        return []
    return [
        c
        for c in run.calls
        if _parse_names.graph_launches(_names(c, "CPU"))
        and not _parse_names.capture_events(_names(c, "CPU"))
    ]


def _skips(run: ModeRun) -> int:
    counters = run.calls[-1].counters if run.calls else run.dynamo_counters.get("inductor", {})
    return int(counters.get("cudagraph_skips", 0))


def wraps_in_trees(view: RunView) -> list[Excerpt]:
    """Inductor handed its graphs to CUDA Graph Trees: a capture or replay, fewer skips."""
    run = _either_mode(view)
    if run is None or run.mode != "reduce-overhead" or run.error or view.cpu:
        return []
    if _capture_call(view) is None and not _replays(view):
        return []
    graphs, skips = len(run.graphs), _skips(run)
    if skips >= graphs > 0:
        return []
    counters = _parse_names.cudagraph_counters(run.calls[-1].counters) if run.calls else {}
    text = (
        f"{graphs} compiled graphs under triton.cudagraphs, {skips} skipped; "
        f"Inductor's cudagraph counters: {counters or 'none'}"
    )
    return [Excerpt(source="dynamo-counters", text=text)]


def records_cuda_graph(view: RunView) -> list[Excerpt]:
    """A call in which the CUDA runtime captured a stream into a graph and instantiated it."""
    call = _capture_call(view)
    if call is None:
        return []
    events = _parse_names.capture_events(_names(call, "CPU"))
    return [Excerpt(source="profiler", text=f"call {call.number}: {_counted(call, events)}")]


def _recorded(view: RunView, *, triton: bool) -> list[Excerpt]:
    call = _capture_call(view)
    if call is None:
        return []
    kernels = [
        n
        for n in dict.fromkeys(_names(call, "CUDA"))
        if parse.is_gpu_kernel(n)
        and (parse.is_triton_kernel(n) if triton else parse.is_gemm_kernel(n))
    ]
    if not kernels:
        return []
    launches = _parse_names.kernel_launches(_names(call, "CPU"))
    text = (
        f"call {call.number} (the stream capture): {listing(kernels, 3)}; "
        f"launched by {_counted(call, launches) or 'the graph'}"
    )
    return [Excerpt(source="profiler", text=clip(text))]


def machine_code_recorded(view: RunView) -> list[Excerpt]:
    """Triton kernels launched in the call that captured the stream."""
    return _recorded(view, triton=True)


def aten_cuda_recorded(view: RunView) -> list[Excerpt]:
    """Library (cuBLAS, CUTLASS) kernels launched in the call that captured the stream."""
    return _recorded(view, triton=False)


def replayed_on_gpu(view: RunView) -> list[Excerpt]:
    """Later calls that launched the graph (cudaGraphLaunch), with its kernels on the GPU."""
    replays = _replays(view)
    if not replays:
        return []
    last = replays[-1]
    kernels = [n for n in dict.fromkeys(_names(last, "CUDA")) if parse.is_gpu_kernel(n)]
    launches = _parse_names.kernel_launches(_names(last, "CPU"))
    numbers = ", ".join(str(c.number) for c in replays)
    text = (
        f"calls {numbers}: {_counted(last, _parse_names.graph_launches(_names(last, 'CPU')))}, "
        f"{'no single kernel launch' if not launches else _counted(last, launches)}; "
        f"kernels on the GPU: {listing(kernels, 3)}"
    )
    return [Excerpt(source="profiler", text=clip(text))]


PROBES: dict[str, Probe] = {
    "pytorch-inductor-wraps-graph-in-cudagraph-trees": wraps_in_trees,
    "pytorch-cudagraph-trees-records-cuda-graph": records_cuda_graph,
    "pytorch-machine-code-recorded-into-cuda-graph": machine_code_recorded,
    "pytorch-aten-cuda-recorded-into-cuda-graph": aten_cuda_recorded,
    "pytorch-cuda-graph-replayed-on-gpu": replayed_on_gpu,
}
"""The probes of the reduce-overhead steps (the AOTInductor ones are in ``_probes_aoti``)."""


def mode_notes(view: RunView) -> tuple[str, ...]:
    """What the run showed of its mode itself: CUDA graphs skipped, or recorded and replayed."""
    run = _either_mode(view)
    if run is None or run.mode != "reduce-overhead" or run.error:
        return ()
    skips, graphs = _skips(run), len(run.graphs)
    if view.cpu:
        note = (
            f"not applicable on a CPU: CUDA graphs were skipped for {skips} of {graphs} compiled "
            f"graphs (Inductor's counter cudagraph_skips = {skips}; the graphs ran on the CPU, "
            "and Inductor counts a graph without a CUDA device as skipped without a log line), "
            "so the calls ran as under plain torch.compile"
        )
        return (note,)
    notes = [f"the cudagraphs log: {clip(message, 300)}" for message in run.log[:3]]
    replays = _replays(view)
    if replays:
        notes.append(
            f"{len(run.calls) + 1} calls: the first compiled and warmed up; CUDA graphs were "
            f"replayed in calls {', '.join(str(c.number) for c in replays)}"
        )
    return tuple(notes)
