"""Probes of AOTInductor's steps: the export, the ``.pt2`` package, its loading and its calls.

Each reads one mode of a raw run (a :class:`RunView` of an ``aotinductor``
:class:`~atlas.models._raw.ModeRun`) and returns its evidence; any other run has none.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from atlas._witness import _parse_names, parse
from atlas._witness._run_view import Probe, RunView, clip, listing
from atlas.models._witness import Excerpt

if TYPE_CHECKING:
    from atlas.models._raw import ModeRun

__all__ = ["PROBES"]

_DELETED = " (deleted)"
"""What /proc/self/maps adds to a mapped file's path once the file is removed."""


def package_member_names(run: ModeRun) -> set[str]:
    """The file names of the package's members (for matching the mapped shared library)."""
    if run.package is None:
        return set()
    return {PurePosixPath(m.name).name for m in run.package.members}


def _aoti(view: RunView) -> ModeRun | None:
    run = view.run
    return run if run.mode == "aotinductor" else None


def traced_by_export(view: RunView) -> list[Excerpt]:
    """torch.export traced the model (the exported graph, and the time it took)."""
    run = _aoti(view)
    graph = next((g for g in run.graphs if g.compile_id == "export"), None) if run else None
    if run is None or graph is None:
        return []
    took = run.package.export_s if run.package else None
    when = f" in {took:.1f} s" if took is not None else ""
    text = f"torch.export.export traced the model{when}: {len(graph.ops)} operator calls"
    return [Excerpt(source="fx-graph", text=text)]


def produces_exported_program(view: RunView) -> list[Excerpt]:
    """The ExportedProgram's graph calls aten operators only."""
    run = _aoti(view)
    graph = next((g for g in run.graphs if g.compile_id == "export"), None) if run else None
    if graph is None or not graph.ops:
        return []
    text = f"ExportedProgram graph: {listing(list(dict.fromkeys(graph.ops)))}"
    return [Excerpt(source="fx-graph", text=clip(text))]


def _sources(view: RunView, suffix: str) -> list[str]:
    return [a.path for a in view.run.artifacts if a.path.endswith(suffix)]


def compiled_by_aoti(view: RunView) -> list[Excerpt]:
    """Inductor wrote a C++ wrapper (and kernel) source for the exported program."""
    if _aoti(view) is None:
        return []
    wrappers = _sources(view, ".wrapper.cpp")
    if not wrappers:
        return []
    names = [parse.short_path(p) for p in (*wrappers, *_sources(view, ".kernel.cpp"))]
    text = f"Inductor's C++ sources: {listing(list(dict.fromkeys(names)))}"
    return [Excerpt(source="generated-code", text=clip(text), artifact=wrappers[0])]


def builds_package(view: RunView) -> list[Excerpt]:
    """The .pt2 written, with a shared library among its members."""
    run = _aoti(view)
    if run is None or run.package is None:
        return []
    members = [(m.name, m.size) for m in run.package.members]
    if not any(_parse_names.member_kind(name) == "shared library" for name, _ in members):
        return []
    text = (
        f"{parse.short_path(run.package.path)} ({run.package.size:,} bytes, "
        f"{len(members)} members): {_parse_names.member_summary(members)}"
    )
    return [Excerpt(source="package", text=clip(text), artifact=run.package.path)]


def cubins_in_package(view: RunView) -> list[Excerpt]:
    """GPU machine code (.cubin) stored in the package."""
    run = _aoti(view)
    if run is None or run.package is None:
        return []
    cubins = [m.name for m in run.package.members if _parse_names.member_kind(m.name) == "cubin"]
    if not cubins:
        return []
    text = f"{len(cubins)} cubin members: {listing([parse.short_path(c) for c in cubins], 3)}"
    return [Excerpt(source="package", text=text, artifact=run.package.path)]


def kernels_compiled_into_package(view: RunView) -> list[Excerpt]:
    """g++ compiling, with OpenMP, a kernel source of Inductor's that defines a C++ kernel.

    A package for a GPU compiles a ``.kernel.cpp`` too, holding only comments (its kernels are
    cubins): that call is not C++ kernels compiled.
    """
    if _aoti(view) is None:
        return []
    defining = {
        PurePosixPath(a.path).name
        for a in view.run.artifacts
        if a.path.endswith(".kernel.cpp") and _defines_kernel(a.text or "")
    }
    calls = [
        c
        for c in parse.compiler_calls(view.run.commands)
        if c.openmp and c.source and PurePosixPath(c.source).name in defining
    ]
    return [Excerpt(source="compiler-command", text=calls[0].excerpt)] if calls else []


def _defines_kernel(source: str) -> bool:
    """Whether C++ source text defines a kernel (Inductor's are ``extern "C"`` functions).

    >>> _defines_kernel('// Triton kernels are embedded as comments in x.wrapper.cpp')
    False
    >>> _defines_kernel('extern "C"  void  cpp_fused_relu_0(float* in_out_ptr0)')
    True
    """
    return any(
        'extern "C"' in line and not line.lstrip().startswith("//") for line in source.splitlines()
    )


def loaded_by_runner(view: RunView) -> list[Excerpt]:
    """The package's shared library mapped into the process after aoti_load_package."""
    run = _aoti(view)
    if run is None or run.package is None:
        return []
    names = package_member_names(run)
    before = set(run.package.mapped_before_load)
    # what loading mapped (kept since the H200's torch unpacked the package outside the run's
    # folder); in older runs, what was mapped at the end and not before
    candidates = run.package.mapped_by_load or tuple(p for p in run.mapped_files if p not in before)
    loaded = [
        path
        for path in candidates
        if PurePosixPath(path.removesuffix(_DELETED)).name in names
        and path.removesuffix(_DELETED).endswith(".so")
    ]
    if not loaded:
        return []
    text = f"mapped after loading ({run.package.loader or 'the loader'}): {loaded[0]}"
    return [Excerpt(source="process-maps", text=clip(text))]


def calls_runner(view: RunView) -> list[Excerpt]:
    """Calls of the loaded model: it answered, and Dynamo evaluated no frame."""
    run = _aoti(view)
    if run is None or run.error or not run.calls:
        return []
    frames = run.dynamo_counters.get("frames", {})
    if frames.get("total", 0):
        return []
    match = {True: "matched eager", False: "differed from eager", None: "not compared"}
    numbers = ", ".join(str(c.number) for c in run.calls)
    text = (
        f"call 1 of {run.package.loader if run.package else 'the loaded model'}: output "
        f"{match[run.outputs_match]}; calls 1, {numbers}: Dynamo's counters show no frame "
        "evaluated"
    )
    return [Excerpt(source="dynamo-counters", text=text)]


def runner_on_device(*, on_cpu: bool) -> Probe:
    """The loaded model's calls ran on the device (profiler of the last call)."""

    def probe(view: RunView) -> list[Excerpt]:
        run = _aoti(view)
        if run is None or run.error or not run.calls or view.cpu != on_cpu:
            return []
        last = run.calls[-1]
        kind = "CPU" if on_cpu else "CUDA"
        names = [f"{e.name} x{e.count}" for e in last.profiled if e.device_type == kind]
        names = [n for n in names if on_cpu or parse.is_gpu_kernel(n)]
        if not names:
            return []
        text = f"call {last.number}, profiler ({kind}): {listing(names)}"
        found = [Excerpt(source="profiler", text=clip(text))]
        host = [
            f"{e.name} x{e.count}"
            for e in last.profiled
            if not on_cpu and e.device_type == "CPU" and e.name.startswith(_HOST_CALLS)
        ]
        if host:  # who launched them: the package's calls into the runtime and its shim
            text = f"call {last.number}, profiler (CPU, the host): {listing(host, 6)}"
            found.append(Excerpt(source="profiler", text=clip(text)))
        return found

    return probe


_HOST_CALLS = ("cuLaunchKernel", "cudaLaunchKernel", "aoti_torch_")
"""Host-side events of a GPU call: kernel launches, and the C shim the package calls ATen by."""


PROBES: dict[str, Probe] = {
    "pytorch-cpython-traced-by-torch-export": traced_by_export,
    "pytorch-torch-export-produces-exported-program": produces_exported_program,
    "pytorch-exported-program-compiled-by-aoti": compiled_by_aoti,
    "pytorch-inductor-builds-aoti-package": builds_package,
    "pytorch-machine-code-stored-in-aoti-package": cubins_in_package,
    "pytorch-cpp-kernels-compiled-into-aoti-package": kernels_compiled_into_package,
    "pytorch-aoti-package-loaded-by-runner": loaded_by_runner,
    "pytorch-cpython-calls-aoti-runner": calls_runner,
    "pytorch-aoti-runner-launches-on-gpu": runner_on_device(on_cpu=False),
    "pytorch-aoti-runner-runs-on-cpu": runner_on_device(on_cpu=True),
}
"""The probes of AOTInductor's steps, by step id."""
