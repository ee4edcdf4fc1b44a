"""Turn a raw run into a witness record: which atlas steps it showed, with what evidence.

Each step of the PyTorch atlas has a probe that looks for it in the raw run (the collector's
files, commands, counters and profiler names, read through ``parse.py``). A step the atlas
documents for the run's mode and device is always reported, observed or not; a step seen
outside its documented conditions is reported too, so that the comparison can show it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from atlas._witness import parse
from atlas.models._witness import (
    CapturedGraphSummary,
    Excerpt,
    GraphBreak,
    ModeWitness,
    StepObservation,
    StepStatus,
    WitnessRecord,
)

if TYPE_CHECKING:
    from atlas.models._raw import Artifact, ModeRun, RawRun

__all__ = ["ATLAS", "STEPS", "StepSpec", "build_record", "record_id"]

ATLAS = "pytorch"
_ANY_MODE = frozenset({"eager", "torch-compile"})
_ANY_DEVICE = frozenset({"cpu", "nvidia-gpu"})
_COMPILE = frozenset({"torch-compile"})
_EAGER = frozenset({"eager"})
_CPU = frozenset({"cpu"})
_GPU = frozenset({"nvidia-gpu"})
_EXCERPT_LIMIT = 300
_LIST_LIMIT = 6
_COMPUTE = re.compile(r"mm|gelu|norm|relu|sum|mul|add|softmax|conv|item|scalar")


@dataclass(frozen=True)
class StepSpec:
    """An atlas step as the witness knows it: its stages, conditions and what shows it."""

    id: str
    from_stage: str
    to_stage: str
    modes: frozenset[str]
    devices: frozenset[str]
    looked_for: str
    needs_compiled_code: bool = False

    def applies(self, mode: str, device: str) -> bool:
        """Whether the atlas documents the step for ``mode`` on ``device``."""
        return mode in self.modes and device in self.devices


STEPS: tuple[StepSpec, ...] = (
    StepSpec(
        "pytorch-model-code-runs-in-cpython",
        "model-code",
        "cpython",
        _ANY_MODE,
        _ANY_DEVICE,
        "a CPython interpreter running the model",
    ),
    StepSpec(
        "pytorch-cpython-calls-aten-dispatch",
        "cpython",
        "aten-dispatch",
        _EAGER,
        _ANY_DEVICE,
        "aten operators called from Python (dispatch mode, profiler)",
    ),
    StepSpec(
        "pytorch-dispatch-to-aten-cpu",
        "aten-dispatch",
        "aten-cpu-kernels",
        _EAGER,
        _CPU,
        "aten operators on CPU tensors with a CPU kernel in the dispatcher's table",
    ),
    StepSpec(
        "pytorch-dispatch-to-aten-cuda",
        "aten-dispatch",
        "aten-cuda-kernels",
        _EAGER,
        _GPU,
        "aten operators on CUDA tensors with a CUDA kernel in the dispatcher's table",
    ),
    StepSpec(
        "pytorch-aten-cpu-runs-on-cpu",
        "aten-cpu-kernels",
        "cpu",
        _ANY_MODE,
        _CPU,
        "aten operators the profiler timed on the CPU",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-aten-cuda-launched-on-gpu",
        "aten-cuda-kernels",
        "nvidia-gpu",
        _ANY_MODE,
        _GPU,
        "non-Triton CUDA kernels (cuBLAS, ATen) in the profiler",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-cpython-intercepted-by-dynamo",
        "cpython",
        "torchdynamo",
        _COMPILE,
        _ANY_DEVICE,
        "frames Dynamo converted (counters)",
    ),
    StepSpec(
        "pytorch-dynamo-captures-fx-graph",
        "torchdynamo",
        "fx-graph",
        _COMPILE,
        _ANY_DEVICE,
        "GraphModules handed to the recording backend",
    ),
    StepSpec(
        "pytorch-fx-graph-compiled-by-inductor",
        "fx-graph",
        "torchinductor",
        _COMPILE,
        _ANY_DEVICE,
        "output modules Inductor generated",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-inductor-generates-cpp-openmp",
        "torchinductor",
        "cpp-openmp-kernels",
        _COMPILE,
        _CPU,
        "cpp_fused_* kernels with '#pragma omp' in the generated code",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-inductor-generates-triton",
        "torchinductor",
        "triton-kernels",
        _COMPILE,
        _GPU,
        "@triton.jit kernels in the generated code",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-inductor-falls-back-to-aten-cpu",
        "torchinductor",
        "aten-cpu-kernels",
        _COMPILE,
        _CPU,
        "extern_kernels.* or aten calls in the generated wrapper",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-inductor-keeps-aten-cuda",
        "torchinductor",
        "aten-cuda-kernels",
        _COMPILE,
        _GPU,
        "extern_kernels.* or aten calls in the generated wrapper",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-cpp-openmp-runs-on-cpu",
        "cpp-openmp-kernels",
        "cpu",
        _COMPILE,
        _CPU,
        "a C++ compile with -fopenmp and the kernels running (profiler, loaded libraries)",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-triton-kernels-compiled-by-triton",
        "triton-kernels",
        "triton-compiler",
        _COMPILE,
        _GPU,
        "Triton IR (.ttir, .ttgir) in the Triton cache",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-triton-lowers-to-llvm-ir",
        "triton-compiler",
        "llvm-ir",
        _COMPILE,
        _GPU,
        "LLVM IR (.llir) in the Triton cache",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-llvm-ir-lowers-to-ptx",
        "llvm-ir",
        "ptx",
        _COMPILE,
        _GPU,
        "PTX (.ptx with .target) in the Triton cache",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-ptx-translated-to-sass",
        "ptx",
        "gpu-machine-code",
        _COMPILE,
        _GPU,
        "a .cubin, the ptxas command and its SASS",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-machine-code-launched-on-gpu",
        "gpu-machine-code",
        "nvidia-gpu",
        _COMPILE,
        _GPU,
        "Triton kernels in the profiler's CUDA events",
        needs_compiled_code=True,
    ),
)
"""The steps of the PyTorch atlas that a witness run can show, in atlas order."""


def _clip(text: str, limit: int = _EXCERPT_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _listing(items: Sequence[str], limit: int = _LIST_LIMIT) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


@dataclass(frozen=True)
class _View:
    """One mode of a raw run, with the parsed views the probes share."""

    raw: RawRun
    run: ModeRun

    @property
    def cpu(self) -> bool:
        return self.raw.device == "cpu"

    @cached_property
    def wrappers(self) -> tuple[Artifact, ...]:
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
        for artifact in self.run.artifacts:
            if artifact.path == path:
                return artifact.text or ""
        return ""

    def events(self, device_type: str) -> list[tuple[str, int]]:
        return [(e.name, e.count) for e in self.run.profiled if e.device_type == device_type]

    def aten_events(self) -> list[str]:
        """The aten operators of the profiler, the compute ones (matmul, norm, ...) first."""
        events = [(name, count) for name, count in self.events("CPU") if name.startswith("aten::")]
        events.sort(key=lambda item: not _COMPUTE.search(item[0]))
        return [f"{name} x{count}" for name, count in events]


Probe = Callable[[_View], list[Excerpt]]


def _model_code_in_cpython(view: _View) -> list[Excerpt]:
    versions = view.raw.versions
    if versions.python_implementation != "cpython":
        return []
    found = [
        Excerpt(
            source="interpreter",
            text=f"the model's Python code ran in CPython {versions.python} "
            f"(sys.implementation.name == {versions.python_implementation!r})",
        )
    ]
    resumes = list(view.run.dynamo_counters.get("resumes", {}))
    if resumes:
        found.append(
            Excerpt(
                source="dynamo-counters",
                text=_clip(
                    f"after the graph break CPython ran the rest of the frame: {_listing(resumes)}"
                ),
            )
        )
    return found


def _cpython_calls_dispatch(view: _View) -> list[Excerpt]:
    if view.run.dispatched:
        total = sum(op.count for op in view.run.dispatched)
        ops = [op.op for op in view.run.dispatched]
        return [
            Excerpt(
                source="dispatch-mode",
                text=_clip(f"{total} aten calls from Python: {_listing(ops)}"),
            )
        ]
    if view.run.mode == "torch-compile" and view.aten_events():
        return [
            Excerpt(
                source="profiler",
                text=_clip(
                    "inside the compiled function Python still called aten operators through the "
                    "dispatcher (Inductor's extern_kernels, the code around the graph break): "
                    + _listing(view.aten_events())
                ),
            )
        ]
    return []


def _dispatch_to(kernel_key: str, device_prefix: str, *, on_cpu: bool) -> Probe:
    def probe(view: _View) -> list[Excerpt]:
        if view.cpu != on_cpu:
            return []
        routed = [
            f"{op.op} on {'/'.join(op.devices)} -> {kernel_key} kernel"
            for op in view.run.dispatched
            if kernel_key in op.kernels and any(d.startswith(device_prefix) for d in op.devices)
        ]
        if routed:
            return [Excerpt(source="dispatch-mode", text=_clip(_listing(routed)))]
        if view.run.mode == "torch-compile" and view.aten_events():
            return [
                Excerpt(
                    source="profiler",
                    text=_clip(
                        f"aten operators inside the compiled call, on {device_prefix} tensors: "
                        + _listing(view.aten_events())
                    ),
                )
            ]
        return []

    return probe


def _aten_cpu_runs(view: _View) -> list[Excerpt]:
    if not view.cpu or not view.aten_events():
        return []
    where = "inside the compiled call" if view.run.mode == "torch-compile" else "in the eager call"
    return [
        Excerpt(
            source="profiler",
            text=_clip(f"CPU events (device type CPU) {where}: {_listing(view.aten_events())}"),
        )
    ]


def _aten_cuda_launched(view: _View) -> list[Excerpt]:
    kernels = [
        (n, c)
        for n, c in view.events("CUDA")
        if parse.is_gpu_kernel(n) and not parse.is_triton_kernel(n)
    ]
    if view.cpu or not kernels:
        return []
    gemms = [n for n, _ in kernels if parse.is_gemm_kernel(n)]
    found = [
        Excerpt(
            source="profiler",
            text=_clip(f"CUDA kernels on the GPU: {_listing([f'{n} x{c}' for n, c in kernels])}"),
        )
    ]
    if gemms:
        found.append(
            Excerpt(
                source="profiler",
                text=_clip(f"GEMM kernels (cuBLAS, cuBLASLt, CUTLASS): {_listing(gemms)}"),
            )
        )
    libraries = [n for n in view.run.mapped_files if n.startswith(("libcublas", "libcudnn"))]
    if libraries:
        found.append(Excerpt(source="process-maps", text=_clip(f"loaded: {_listing(libraries)}")))
    return found


def _intercepted_by_dynamo(view: _View) -> list[Excerpt]:
    total, converted, graphs = parse.dynamo_frames(view.run.dynamo_counters)
    found: list[Excerpt] = []
    if total:
        found.append(
            Excerpt(
                source="dynamo-counters",
                text=f"Dynamo intercepted {total} Python frames and converted {converted} "
                f"into {graphs} graphs",
            )
        )
    regions = [
        f"{n} x{c}"
        for n, c in view.events("CPU")
        if n.startswith(("Torch-Compiled Region", "TorchDynamo"))
    ]
    if regions:
        found.append(Excerpt(source="profiler", text=_clip(_listing(regions))))
    return found


def _captures_fx_graph(view: _View) -> list[Excerpt]:
    return [
        Excerpt(
            source="fx-graph",
            text=_clip(f"graph {g.compile_id}: {', '.join(g.ops) or '(no call nodes)'}"),
        )
        for g in view.run.graphs
    ]


def _compiled_by_inductor(view: _View) -> list[Excerpt]:
    found = [
        Excerpt(
            source="generated-code",
            text=_clip(
                f"Inductor output module {parse.short_path(a.path)}: "
                f"{parse.first_line_with(a.text or '', 'def call(') or 'def call(args)'}"
            ),
            artifact=a.path,
        )
        for a in view.wrappers
    ]
    inductor = view.run.dynamo_counters.get("inductor", {})
    if inductor:
        found.append(
            Excerpt(
                source="dynamo-counters",
                text=_clip(
                    "Inductor counters: "
                    + _listing([f"{k} {v}" for k, v in sorted(inductor.items())])
                ),
            )
        )
    return found


def _generates_cpp_openmp(view: _View) -> list[Excerpt]:
    if not view.cpu:
        return []
    found: list[Excerpt] = []
    for artifact in view.wrappers:
        code = artifact.text or ""
        kernels = [k.name for k in parse.cpp_kernels(code)]
        pragmas = parse.omp_pragmas(code)
        if kernels and pragmas:
            found.append(
                Excerpt(
                    source="generated-code",
                    text=_clip(f"{_listing(kernels)} with {_listing(list(pragmas))}"),
                    artifact=artifact.path,
                )
            )
    return found


def _generates_triton(view: _View) -> list[Excerpt]:
    if view.cpu:
        return []
    found: list[Excerpt] = []
    for artifact in view.generated:
        code = artifact.text or ""
        kernels = [k.name for k in parse.triton_kernels(code)]
        if kernels and "@triton.jit" in code:
            found.append(
                Excerpt(
                    source="generated-code",
                    text=_clip(f"@triton.jit kernels: {_listing(kernels)}"),
                    artifact=artifact.path,
                )
            )
    return found


def _keeps_aten(*, on_cpu: bool) -> Probe:
    def probe(view: _View) -> list[Excerpt]:
        if view.cpu != on_cpu:
            return []
        found: list[Excerpt] = []
        for artifact in view.wrappers:
            code = artifact.text or ""
            for call in parse.extern_kernel_calls(code):
                line = parse.first_line_with(code, call + "(") or call
                found.append(
                    Excerpt(source="generated-code", text=_clip(line), artifact=artifact.path)
                )
        return found

    return probe


def _cpp_openmp_runs(view: _View) -> list[Excerpt]:
    if not view.cpu:
        return []
    found = [
        Excerpt(source="compiler-command", text=_clip(call.excerpt))
        for call in parse.compiler_calls(view.run.commands)
        if call.openmp and call.output and call.output.endswith(".so") and ".main." in call.output
    ]
    ran = parse.profiled_cpp_kernels(name for name, _ in view.events("CPU"))
    if ran:
        found.append(
            Excerpt(
                source="profiler",
                text=_clip(f"C++ kernels timed on the CPU: {_listing(list(ran))}"),
            )
        )
    if found and view.run.mapped_files:
        found.append(
            Excerpt(
                source="process-maps",
                text=_clip(f"loaded: {_listing(list(view.run.mapped_files), 8)}"),
            )
        )
    return found


def _triton_ir(view: _View) -> list[Excerpt]:
    found: list[Excerpt] = []
    for kernel in view.triton_files:
        ttir = kernel.files.get(".ttir")
        if ttir is None:
            continue
        functions = parse.ttir_functions(view.text(ttir))
        target = parse.ttgir_target(view.text(kernel.files.get(".ttgir", "")))
        text = f"{kernel.kernel}: .ttir (tt.func {_listing(list(functions)) or '?'})"
        if target:
            text += f", .ttgir (ttg.target = {target})"
        found.append(Excerpt(source="triton-cache", text=_clip(text), artifact=ttir))
    return found


def _llvm_ir(view: _View) -> list[Excerpt]:
    found: list[Excerpt] = []
    for kernel in view.triton_files:
        llir = kernel.files.get(".llir")
        if llir is None:
            continue
        summary = parse.llir_summary(view.text(llir))
        found.append(
            Excerpt(
                source="triton-cache",
                text=_clip(f"{kernel.kernel}.llir: {summary.excerpt}"),
                artifact=llir,
            )
        )
    return found


def _ptx(view: _View) -> list[Excerpt]:
    found: list[Excerpt] = []
    for kernel in view.triton_files:
        ptx = kernel.files.get(".ptx")
        if ptx is None:
            continue
        header = parse.ptx_header(view.text(ptx))
        found.append(
            Excerpt(
                source="triton-cache",
                text=_clip(
                    f"{kernel.kernel}.ptx: .version {header.version} .target {header.target}"
                ),
                artifact=ptx,
            )
        )
    return found


def _sass(view: _View) -> list[Excerpt]:
    found: list[Excerpt] = []
    for kernel in view.triton_files:
        cubin = kernel.files.get(".cubin")
        if cubin is None:
            continue
        listing = view.run.disassembly.get(cubin)
        if listing:
            sass = parse.sass_summary(listing)
            arches = _listing(list(sass.architectures)) or "?"
            text = (
                f"cuobjdump --dump-sass {kernel.kernel}.cubin: code for {arches}; "
                f"{_listing(list(sass.instructions), 3)}"
            )
            found.append(Excerpt(source="disassembly", text=_clip(text), artifact=cubin))
        else:
            text = f"{kernel.kernel}.cubin (machine code) written; no cuobjdump to disassemble it"
            found.append(Excerpt(source="triton-cache", text=text, artifact=cubin))
    found += [
        Excerpt(source="compiler-command", text=_clip(call.excerpt))
        for call in parse.compiler_calls(view.run.commands)
        if call.compiler == "ptxas"
    ][:3]
    return found


def _launched_on_gpu(view: _View) -> list[Excerpt]:
    kernels = [f"{n} x{c}" for n, c in view.events("CUDA") if parse.is_triton_kernel(n)]
    if not kernels:
        return []
    return [
        Excerpt(
            source="profiler", text=_clip(f"Triton kernels ran on the GPU: {_listing(kernels)}")
        )
    ]


_PROBES: dict[str, Probe] = {
    "pytorch-model-code-runs-in-cpython": _model_code_in_cpython,
    "pytorch-cpython-calls-aten-dispatch": _cpython_calls_dispatch,
    "pytorch-dispatch-to-aten-cpu": _dispatch_to("CPU", "cpu", on_cpu=True),
    "pytorch-dispatch-to-aten-cuda": _dispatch_to("CUDA", "cuda", on_cpu=False),
    "pytorch-aten-cpu-runs-on-cpu": _aten_cpu_runs,
    "pytorch-aten-cuda-launched-on-gpu": _aten_cuda_launched,
    "pytorch-cpython-intercepted-by-dynamo": _intercepted_by_dynamo,
    "pytorch-dynamo-captures-fx-graph": _captures_fx_graph,
    "pytorch-fx-graph-compiled-by-inductor": _compiled_by_inductor,
    "pytorch-inductor-generates-cpp-openmp": _generates_cpp_openmp,
    "pytorch-inductor-generates-triton": _generates_triton,
    "pytorch-inductor-falls-back-to-aten-cpu": _keeps_aten(on_cpu=True),
    "pytorch-inductor-keeps-aten-cuda": _keeps_aten(on_cpu=False),
    "pytorch-cpp-openmp-runs-on-cpu": _cpp_openmp_runs,
    "pytorch-triton-kernels-compiled-by-triton": _triton_ir,
    "pytorch-triton-lowers-to-llvm-ir": _llvm_ir,
    "pytorch-llvm-ir-lowers-to-ptx": _ptx,
    "pytorch-ptx-translated-to-sass": _sass,
    "pytorch-machine-code-launched-on-gpu": _launched_on_gpu,
}


def _observe(spec: StepSpec, view: _View) -> StepObservation | None:
    documented = spec.applies(view.run.mode, view.raw.device)
    failed = view.run.error is not None
    evidence = _PROBES[spec.id](view)
    status: StepStatus
    if evidence:
        status, note = "observed", None
    elif not documented:
        return None
    elif failed and (spec.needs_compiled_code or view.run.mode == "eager"):
        status, note = "not-checked", f"the {view.run.mode} run failed: {view.run.error}"
    else:
        status, note = "not-observed", f"looked for {spec.looked_for}; found none"
    return StepObservation(
        step=spec.id,
        from_stage=spec.from_stage,
        to_stage=spec.to_stage,
        status=status,
        evidence=tuple(evidence),
        note=_clip(note, 400) if note else None,
    )


def _stages(observations: Iterable[StepObservation]) -> tuple[str, ...]:
    stages: dict[str, None] = {}
    for observation in observations:
        if observation.status == "observed":
            stages.setdefault(observation.from_stage)
            stages.setdefault(observation.to_stage)
    return tuple(stages)


def _mode_witness(raw: RawRun, run: ModeRun) -> ModeWitness:
    view = _View(raw, run)
    observations = tuple(o for spec in STEPS if (o := _observe(spec, view)) is not None)
    kernels = [
        k.name
        for a in view.generated
        for k in (*parse.cpp_kernels(a.text or ""), *parse.triton_kernels(a.text or ""))
    ]
    return ModeWitness(
        mode=run.mode,
        started_at=run.started_at,
        ended_at=run.ended_at,
        duration_s=round((run.ended_at - run.started_at).total_seconds(), 3),
        stages=_stages(observations),
        steps=observations,
        graphs=tuple(CapturedGraphSummary(compile_id=g.compile_id, ops=g.ops) for g in run.graphs),
        graph_breaks=tuple(
            GraphBreak(reason=_clip(reason), count=count)
            for reason, count in parse.graph_breaks(run.dynamo_counters)
        ),
        kernels=tuple(dict.fromkeys(kernels)),
        outputs_match=run.outputs_match,
        error=run.error,
    )


def record_id(raw: RawRun) -> str:
    """The record id: atlas, device and start time, e.g. 'pytorch-cpu-20261202-170501'."""
    return f"{ATLAS}-{raw.device}-{raw.started_at:%Y%m%d-%H%M%S}"


def build_record(raw: RawRun) -> WitnessRecord:
    """Analyse a raw run into a witness record."""
    modes = tuple(_mode_witness(raw, run) for run in raw.modes)
    names = " and ".join("torch.compile" if m.mode == "torch-compile" else m.mode for m in modes)
    title = (
        f"PyTorch {names} on {raw.device_name} ({raw.device}) with torch {raw.versions.torch}, "
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
        started_at=raw.started_at,
        ended_at=raw.ended_at,
        duration_s=round((raw.ended_at - raw.started_at).total_seconds(), 3),
        versions=raw.versions,
        settings=raw.settings,
        modes=modes,
    )
