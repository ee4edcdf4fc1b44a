"""Probes for the steps of torch.compile up to the kernels: Dynamo, FX, Inductor, its C++.

They read Dynamo's counters, the graphs handed to the recording backend, the modules Inductor
generated and the compiler commands that built the C++ kernels on the CPU.
"""

from __future__ import annotations

from atlas._witness import parse
from atlas._witness._run_view import Probe, RunView, clip, listing
from atlas.models._witness import Excerpt

__all__ = [
    "captures_fx_graph",
    "compiled_by_inductor",
    "cpp_openmp_runs",
    "generates_cpp_openmp",
    "generates_triton",
    "intercepted_by_dynamo",
    "keeps_aten",
]


def intercepted_by_dynamo(view: RunView) -> list[Excerpt]:
    """Dynamo intercepted Python frames and converted them."""
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
        found.append(Excerpt(source="profiler", text=clip(listing(regions))))
    return found


def captures_fx_graph(view: RunView) -> list[Excerpt]:
    """The recording backend received Dynamo's FX graphs."""
    return [
        Excerpt(
            source="fx-graph",
            text=clip(f"graph {g.compile_id}: {', '.join(g.ops) or '(no call nodes)'}"),
        )
        for g in view.run.graphs
    ]


def compiled_by_inductor(view: RunView) -> list[Excerpt]:
    """Inductor generated output modules for the graphs."""
    found = [
        Excerpt(
            source="generated-code",
            text=clip(
                f"Inductor output module {parse.short_path(a.path)}: "
                f"{parse.first_line_with(a.text or '', 'def call(') or 'def call(args)'}"
            ),
            artifact=a.path,
        )
        for a in view.wrappers
    ]
    aot = view.run.dynamo_counters.get("aot_autograd", {})
    if found and aot.get("ok"):  # AOT Autograd has no stage: it is part of Inductor's step
        text = (
            f"AOT Autograd prepared {aot['ok']} graph{'s' * (aot['ok'] != 1)} for Inductor "
            f"(aot_autograd counters: {listing([f'{k} {v}' for k, v in sorted(aot.items())])})"
        )
        found.append(Excerpt(source="dynamo-counters", text=clip(text)))
    inductor = view.run.dynamo_counters.get("inductor", {})
    if found and inductor:  # the counters alone do not show that Inductor generated code
        found.append(
            Excerpt(
                source="dynamo-counters",
                text=clip(
                    "Inductor counters: "
                    + listing([f"{k} {v}" for k, v in sorted(inductor.items())])
                ),
            )
        )
    return found


def generates_cpp_openmp(view: RunView) -> list[Excerpt]:
    """Inductor generated C++ kernels with OpenMP pragmas (CPU)."""
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
                    text=clip(f"{listing(kernels)} with {listing(list(pragmas))}"),
                    artifact=artifact.path,
                )
            )
    return found


def generates_triton(view: RunView) -> list[Excerpt]:
    """Inductor generated ``@triton.jit`` kernels (GPU)."""
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
                    text=clip(f"@triton.jit kernels: {listing(kernels)}"),
                    artifact=artifact.path,
                )
            )
    return found


def keeps_aten(*, on_cpu: bool) -> Probe:
    """A probe for the aten calls Inductor kept in its generated wrapper."""

    def probe(view: RunView) -> list[Excerpt]:
        if view.cpu != on_cpu:
            return []
        found: list[Excerpt] = []
        for artifact in view.wrappers:
            code = artifact.text or ""
            for call in parse.extern_kernel_calls(code):
                line = parse.first_line_with(code, call + "(") or call
                found.append(
                    Excerpt(source="generated-code", text=clip(line), artifact=artifact.path)
                )
        return found

    return probe


def cpp_openmp_runs(view: RunView) -> list[Excerpt]:
    """The C++ was compiled with -fopenmp, loaded and its kernels timed (CPU)."""
    if not view.cpu:
        return []
    found = [
        Excerpt(source="compiler-command", text=clip(call.excerpt))
        for call in parse.compiler_calls(view.run.commands)
        if call.openmp and call.output and call.output.endswith(".so") and ".main." in call.output
    ]
    ran = parse.profiled_cpp_kernels(name for name, _ in view.events("CPU"))
    if ran:
        found.append(
            Excerpt(
                source="profiler",
                text=clip(f"C++ kernels timed on the CPU: {listing(list(ran))}"),
            )
        )
    if found and view.run.mapped_files:
        found.append(
            Excerpt(
                source="process-maps",
                text=clip(f"loaded: {listing(list(view.run.mapped_files), 8)}"),
            )
        )
    return found
