"""Probes for the steps of the Triton toolchain on the GPU: IR, LLVM IR, PTX, SASS, the launch.

They read the files of the Triton cache (one set per kernel, the most fused first), the SASS
listings of the .cubin files, the ptxas commands and the profiler's CUDA events.
"""

from __future__ import annotations

from atlas._witness import parse
from atlas._witness._run_view import RunView, clip, listing
from atlas.models._witness import Excerpt

__all__ = [
    "launched_on_gpu",
    "lowers_to_llvm_ir",
    "lowers_to_ptx",
    "lowers_to_triton_ir",
    "translated_to_sass",
]


def lowers_to_triton_ir(view: RunView) -> list[Excerpt]:
    """Triton IR (.ttir, .ttgir) in the Triton cache."""
    found: list[Excerpt] = []
    for kernel in view.triton_files:
        ttir = kernel.files.get(".ttir")
        if ttir is None:
            continue
        functions = parse.ttir_functions(view.text(ttir))
        target = parse.ttgir_target(view.text(kernel.files.get(".ttgir", "")))
        text = f"{kernel.kernel}: .ttir (tt.func {listing(list(functions)) or '?'})"
        if target:
            text += f", .ttgir (ttg.target = {target})"
        found.append(Excerpt(source="triton-cache", text=clip(text), artifact=ttir))
    return found


def lowers_to_llvm_ir(view: RunView) -> list[Excerpt]:
    """LLVM IR (.llir) in the Triton cache."""
    found: list[Excerpt] = []
    for kernel in view.triton_files:
        llir = kernel.files.get(".llir")
        if llir is None:
            continue
        summary = parse.llir_summary(view.text(llir))
        found.append(
            Excerpt(
                source="triton-cache",
                text=clip(f"{kernel.kernel}.llir: {summary.excerpt}"),
                artifact=llir,
            )
        )
    return found


def lowers_to_ptx(view: RunView) -> list[Excerpt]:
    """PTX (.ptx) with its version and target in the Triton cache."""
    found: list[Excerpt] = []
    for kernel in view.triton_files:
        ptx = kernel.files.get(".ptx")
        if ptx is None:
            continue
        header = parse.ptx_header(view.text(ptx))
        found.append(
            Excerpt(
                source="triton-cache",
                text=clip(
                    f"{kernel.kernel}.ptx: .version {header.version} .target {header.target}"
                ),
                artifact=ptx,
            )
        )
    return found


def translated_to_sass(view: RunView) -> list[Excerpt]:
    """A .cubin, its SASS (when cuobjdump exists) and the ptxas command."""
    found: list[Excerpt] = []
    for kernel in view.triton_files:
        cubin = kernel.files.get(".cubin")
        if cubin is None:
            continue
        dump = view.run.disassembly.get(cubin)
        if dump:
            sass = parse.sass_summary(dump)
            arches = listing(list(sass.architectures)) or "?"
            text = (
                f"cuobjdump --dump-sass {kernel.kernel}.cubin: code for {arches}; "
                f"{listing(list(sass.instructions), 3)}"
            )
            found.append(Excerpt(source="disassembly", text=clip(text), artifact=cubin))
        else:
            text = f"{kernel.kernel}.cubin (machine code) written; no cuobjdump to disassemble it"
            found.append(Excerpt(source="triton-cache", text=text, artifact=cubin))
    found += [
        Excerpt(source="compiler-command", text=clip(call.excerpt))
        for call in parse.compiler_calls(view.run.commands)
        if call.compiler == "ptxas"
    ][:3]
    return found


def launched_on_gpu(view: RunView) -> list[Excerpt]:
    """Triton kernels in the profiler's CUDA events."""
    kernels = [f"{n} x{c}" for n, c in view.events("CUDA") if parse.is_triton_kernel(n)]
    if not kernels:
        return []
    found = [
        Excerpt(source="profiler", text=clip(f"Triton kernels ran on the GPU: {listing(kernels)}"))
    ]
    # Triton's launcher (a C stub built against libcuda) is part of this step: the atlas has no
    # stage for it, so it is shown here, as evidence of how the kernels were launched.
    stubs = [
        call.excerpt
        for call in parse.compiler_calls(view.run.commands)
        if call.source and call.source.endswith(".c") and call.compiler != "ptxas"
    ]
    if stubs:
        text = f"Triton built its launcher stub with the C compiler: {listing(stubs)}"
        found.append(Excerpt(source="compiler-command", text=clip(text)))
    return found
