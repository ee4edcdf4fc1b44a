"""Turn a raw run into a witness record: which atlas steps it showed, with what evidence.

Each step of the PyTorch atlas (``_steps.py``) has a probe that looks for it in the raw run (the
collector's files, commands, counters and profiler names, read through ``parse.py``); the probes
live in ``_probes_aten.py``, ``_probes_inductor.py`` and ``_probes_triton.py``, and this module
holds their registry. A step the atlas documents for the run's mode and device is always
reported, observed or not; a step seen outside its documented conditions is reported too, so
that the comparison can show it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from atlas._witness import _probes_aoti, _probes_cudagraphs, _switches, parse
from atlas._witness import _probes_aten as aten
from atlas._witness import _probes_inductor as inductor
from atlas._witness import _probes_triton as triton
from atlas._witness import _summaries as summaries
from atlas._witness._run_view import Probe, RunView, clip
from atlas._witness._steps import STEPS, StepSpec, mode_name
from atlas.models._witness import (
    ModeWitness,
    StepObservation,
    StepStatus,
    WitnessRecord,
)

if TYPE_CHECKING:
    from atlas.models._raw import ModeRun, RawRun

__all__ = ["ATLAS", "STEPS", "StepSpec", "build_record", "record_id"]

ATLAS = "pytorch"
_PLUS_MODES = frozenset({"reduce-overhead", "aotinductor"})

_PROBES: dict[str, Probe] = {
    "pytorch-model-code-runs-in-cpython": aten.model_code_in_cpython,
    "pytorch-cpython-calls-aten-dispatch": aten.cpython_calls_dispatch,
    "pytorch-dispatch-to-aten-cpu": aten.dispatch_to("CPU", "cpu", on_cpu=True),
    "pytorch-dispatch-to-aten-cuda": aten.dispatch_to("CUDA", "cuda", on_cpu=False),
    "pytorch-aten-cpu-runs-on-cpu": aten.aten_cpu_runs,
    "pytorch-aten-cuda-launched-on-gpu": aten.aten_cuda_launched,
    "pytorch-cpython-intercepted-by-dynamo": inductor.intercepted_by_dynamo,
    "pytorch-dynamo-captures-fx-graph": inductor.captures_fx_graph,
    "pytorch-fx-graph-compiled-by-inductor": inductor.compiled_by_inductor,
    "pytorch-inductor-generates-cpp-openmp": inductor.generates_cpp_openmp,
    "pytorch-inductor-generates-triton": inductor.generates_triton,
    "pytorch-inductor-falls-back-to-aten-cpu": inductor.keeps_aten(on_cpu=True),
    "pytorch-inductor-keeps-aten-cuda": inductor.keeps_aten(on_cpu=False),
    "pytorch-cpp-openmp-runs-on-cpu": inductor.cpp_openmp_runs,
    "pytorch-triton-kernels-compiled-by-triton": triton.lowers_to_triton_ir,
    "pytorch-triton-lowers-to-llvm-ir": triton.lowers_to_llvm_ir,
    "pytorch-llvm-ir-lowers-to-ptx": triton.lowers_to_ptx,
    "pytorch-ptx-translated-to-sass": triton.translated_to_sass,
    "pytorch-machine-code-launched-on-gpu": triton.launched_on_gpu,
    **_probes_cudagraphs.PROBES,
    **_probes_aoti.PROBES,
}
"""The probe of each step in :data:`STEPS`, by step id."""


def _observe(spec: StepSpec, view: RunView) -> StepObservation | None:
    if view.run.mode in _PLUS_MODES and view.run.mode not in spec.modes:
        return None  # e.g. no Dynamo under AOTInductor: its graph is torch.export's
    documented = spec.applies(view.run.mode, view.raw.device)
    failed = view.run.error is not None
    evidence = _PROBES[spec.id](view)
    hiding = [s for s in _switches.active(view.raw.environment) if spec.id in s.steps]
    status: StepStatus
    if evidence:
        status, note = "observed", None
    elif not documented:
        return None
    elif failed:  # the run stopped: what it did not reach was not looked for
        status, note = "not-checked", f"the {view.run.mode} run failed: {view.run.error}"
    elif hiding:
        status = "not-checked"
        note = "; ".join(f"{s.name} is set: {s.effect}" for s in hiding)
    else:
        status, note = "not-observed", f"looked for {spec.looked_for}; found none"
    return StepObservation(
        step=spec.id,
        from_stage=spec.from_stage,
        to_stage=spec.to_stage,
        status=status,
        evidence=tuple(evidence),
        note=clip(note, 400) if note else None,
    )


def _stages(observations: Iterable[StepObservation]) -> tuple[str, ...]:
    stages: dict[str, None] = {}
    for observation in observations:
        if observation.status == "observed":
            stages.setdefault(observation.from_stage)
            stages.setdefault(observation.to_stage)
    return tuple(stages)


def _unobservable(run: ModeRun, observations: Iterable[StepObservation], raw: RawRun) -> list[str]:
    """Why the run could not observe some steps: a failed mode, a switch that hid evidence."""
    found = [f"the {run.mode} run failed: {run.error}"] if run.error else []
    hidden = {o.step for o in observations if o.status == "not-checked"}
    found += [
        f"{s.name} is set: {s.effect}"
        for s in _switches.active(raw.environment)
        if hidden & s.steps and not run.error
    ]
    return found


def _mode_witness(raw: RawRun, run: ModeRun) -> ModeWitness:
    view = RunView(raw, run)
    observations = tuple(o for spec in STEPS if (o := _observe(spec, view)) is not None)
    kernels = [
        k.name
        for a in view.generated
        for k in (*parse.cpp_kernels(a.text or ""), *parse.triton_kernels(a.text or ""))
    ]
    graphs = summaries.graph_summaries(view)
    breaks = summaries.graph_breaks(run)
    return ModeWitness(
        mode=run.mode,
        started_at=run.started_at,
        ended_at=run.ended_at,
        duration_s=round((run.ended_at - run.started_at).total_seconds(), 3),
        stages=_stages(observations),
        steps=observations,
        graphs=graphs,
        graph_breaks=breaks,
        kernels=tuple(dict.fromkeys(kernels)),
        outputs_match=run.outputs_match,
        error=run.error,
        first_call_s=run.first_call_s,
        warm_call_s=run.warm_call_s,
        python_ends=summaries.python_ends(run, graphs, breaks),
        notes=_probes_cudagraphs.mode_notes(view),
        unobservable=tuple(_unobservable(run, observations, raw)),
    )


def record_id(raw: RawRun) -> str:
    """The record id: atlas, device and start time, e.g. 'pytorch-cpu-20261202-170501'."""
    return f"{ATLAS}-{raw.device}-{raw.started_at:%Y%m%d-%H%M%S}"


def build_record(raw: RawRun) -> WitnessRecord:
    """Analyse a raw run into a witness record."""
    modes = tuple(_mode_witness(raw, run) for run in raw.modes)
    names = " and ".join(mode_name(m.mode) for m in modes)
    model = f"{raw.model_source} under " if raw.model_source else ""
    title = (
        f"{model}PyTorch {names} on {raw.device_name} ({raw.device}) with torch "
        f"{raw.versions.torch}, "
        f"{raw.started_at:%Y-%m-%d}"
    )
    return WitnessRecord(
        id=record_id(raw),
        atlas=ATLAS,
        title=title,
        device=raw.device,
        device_name=raw.device_name,
        device_detail=raw.device_detail,
        model=raw.model,
        model_source=raw.model_source,
        started_at=raw.started_at,
        ended_at=raw.ended_at,
        duration_s=round((raw.ended_at - raw.started_at).total_seconds(), 3),
        versions=raw.versions,
        settings=raw.settings,
        modes=modes,
    )
