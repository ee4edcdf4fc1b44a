"""Probes for the steps of Python and ATen: the interpreter, the dispatcher and its kernels.

These steps show in both modes: in eager mode through the dispatch mode's log and the profiler,
under torch.compile through the aten operators the compiled function still calls (Inductor's
extern kernels, the code around the graph break).
"""

from __future__ import annotations

from atlas._witness import parse
from atlas._witness._run_view import Probe, RunView, clip, listing
from atlas.models._witness import Excerpt

__all__ = [
    "aten_cpu_runs",
    "aten_cuda_launched",
    "cpython_calls_dispatch",
    "dispatch_to",
    "model_code_in_cpython",
]


def model_code_in_cpython(view: RunView) -> list[Excerpt]:
    """The model's code ran in CPython (and, after a graph break, the rest of the frame)."""
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
                text=clip(
                    f"after the graph break CPython ran the rest of the frame: {listing(resumes)}"
                ),
            )
        )
    return found


def cpython_calls_dispatch(view: RunView) -> list[Excerpt]:
    """Python called aten operators through the dispatcher."""
    if view.run.dispatched:
        total = sum(op.count for op in view.run.dispatched)
        ops = [op.op for op in view.run.dispatched]
        return [
            Excerpt(
                source="dispatch-mode",
                text=clip(f"{total} aten calls from Python: {listing(ops)}"),
            )
        ]
    if view.run.mode == "torch-compile" and view.aten_events():
        where = ["Inductor's library calls"]
        if parse.graph_breaks(view.run.dynamo_counters):
            where.append("the code around the graph break")
        return [
            Excerpt(
                source="profiler",
                text=clip(
                    "inside the compiled function, aten operators were still called through the "
                    f"dispatcher (the profiler timed them; {' or '.join(where)} make such calls): "
                    + listing(view.aten_events())
                ),
            )
        ]
    return []


def dispatch_to(kernel_key: str, device_prefix: str, *, on_cpu: bool) -> Probe:
    """A probe for the dispatcher routing aten operators to ``kernel_key`` kernels."""

    def probe(view: RunView) -> list[Excerpt]:
        if view.cpu != on_cpu:
            return []
        routed = [
            f"{op.op} on {'/'.join(op.devices)} tensors"
            for op in view.run.dispatched
            if kernel_key in op.kernels and any(d.startswith(device_prefix) for d in op.devices)
        ]
        if routed:
            text = (
                f"the dispatch mode saw {listing(routed)}; the dispatcher's table has a "
                f"{kernel_key} kernel for each"
            )
            return [Excerpt(source="dispatch-mode", text=clip(text))]
        return []

    return probe


def aten_cpu_runs(view: RunView) -> list[Excerpt]:
    """The profiler timed aten operators on the CPU."""
    if not view.cpu or not view.aten_events():
        return []
    where = "inside the compiled call" if view.run.mode == "torch-compile" else "in the eager call"
    return [
        Excerpt(
            source="profiler",
            text=clip(f"CPU events (device type CPU) {where}: {listing(view.aten_events())}"),
        )
    ]


def _short(kernel: str) -> str:
    """A CUDA kernel's name without ``void`` and its parameter list (the profiler's full name).

    >>> _short("void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)")
    'at::native::reduce_kernel<512, 1>'
    """
    name = kernel.removeprefix("void ").strip()
    depth = 0
    for i, char in enumerate(name):
        depth += (char == "<") - (char == ">")
        if char == "(" and depth == 0 and i > 0:
            return name[:i]
    return name


def aten_cuda_launched(view: RunView) -> list[Excerpt]:
    """Non-Triton CUDA kernels (cuBLAS, ATen) ran on the GPU."""
    kernels = [
        (n, c)
        for n, c in view.events("CUDA")
        if parse.is_gpu_kernel(n) and not parse.is_triton_kernel(n)
    ]
    if view.cpu or not kernels:
        return []
    gemms = [_short(n) for n, _ in kernels if parse.is_gemm_kernel(n)]
    found = []
    if gemms:  # the kernels that did the matrix products first: the telling ones
        found.append(
            Excerpt(
                source="profiler",
                text=clip(f"GEMM kernels (cuBLAS, cuBLASLt, CUTLASS): {listing(gemms)}"),
            )
        )
    named = [f"{_short(n)} x{c}" for n, c in kernels]
    found.append(
        Excerpt(source="profiler", text=clip(f"CUDA kernels on the GPU: {listing(named)}"))
    )
    libraries = [n for n in view.run.mapped_files if n.startswith(("libcublas", "libcudnn"))]
    if libraries:
        found.append(Excerpt(source="process-maps", text=clip(f"loaded: {listing(libraries)}")))
    return found
