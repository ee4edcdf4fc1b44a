r"""Every parser of a private or unstable text format that the witness reads.

Inductor's generated wrapper code, the kernel names of the profiler, Dynamo's counters, Triton's
intermediate files, the PTX header and the ``cuobjdump`` SASS listing are not stable interfaces:
they change between releases. Their patterns are kept here, and only here, and each is tested on
files recorded from real runs (``tests/fixtures/witness/``).

>>> omp_pragmas("    #pragma omp parallel\n    for (;;) {}")
('#pragma omp parallel',)
>>> ptx_header(".version 9.0\n.target sm_90a\n.address_size 64").target
'sm_90a'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = [
    "CompilerCall",
    "GeneratedKernel",
    "LlirSummary",
    "PtxHeader",
    "SassSummary",
    "TritonKernelFiles",
    "compiler_calls",
    "cpp_kernels",
    "dynamo_frames",
    "extern_kernel_calls",
    "graph_breaks",
    "is_gemm_kernel",
    "is_gpu_kernel",
    "is_triton_kernel",
    "is_wrapper_module",
    "llir_summary",
    "omp_pragmas",
    "profiled_cpp_kernels",
    "ptx_header",
    "sass_summary",
    "short_path",
    "triton_kernel_files",
    "triton_kernels",
    "ttgir_target",
    "ttir_functions",
]

# --- Inductor's generated Python wrapper ----------------------------------------------------

_CPP_KERNEL = re.compile(
    r"^(cpp_fused_\w+)\s*=\s*async_compile\.cpp(?:_pybinding)?\(", re.MULTILINE
)
_TRITON_ASYNC = re.compile(r"^(triton_\w+)\s*=\s*async_compile\.triton\(", re.MULTILINE)
_TRITON_JIT = re.compile(r"@triton\.jit\s*\n\s*def\s+(\w+)\s*\(")
_OMP = re.compile(r"^[ \t]*(#pragma omp\b[^\n]*)", re.MULTILINE)
_EXTERN = re.compile(r"\bextern_kernels\.(\w+)\(")
_ATEN_FALLBACK = re.compile(r"\btorch\.ops\.aten\.(\w+)(?:\.\w+)?\(")
_WRAPPER_CALL = re.compile(r"^\s*def call\(", re.MULTILINE)


@dataclass(frozen=True)
class GeneratedKernel:
    """A kernel that Inductor generated, by name, with the language it is written in."""

    name: str
    language: str  # "C++" or "Triton"


def is_wrapper_module(code: str) -> bool:
    """Whether ``code`` is an Inductor output module (it defines ``call(args)``)."""
    return bool(_WRAPPER_CALL.search(code)) and "async_compile" in code


def cpp_kernels(code: str) -> tuple[GeneratedKernel, ...]:
    """The ``cpp_fused_*`` kernels an output module defines.

    >>> cpp_kernels("cpp_fused_relu_0 = async_compile.cpp_pybinding(['float*'], r'''")
    (GeneratedKernel(name='cpp_fused_relu_0', language='C++'),)
    """
    return tuple(GeneratedKernel(name, "C++") for name in dict.fromkeys(_CPP_KERNEL.findall(code)))


def triton_kernels(code: str) -> tuple[GeneratedKernel, ...]:
    r"""The Triton kernels a module defines (``async_compile.triton(...)`` or ``@triton.jit``).

    >>> triton_kernels("@triton.jit\ndef triton_poi_fused_relu_0(in_ptr0):")
    (GeneratedKernel(name='triton_poi_fused_relu_0', language='Triton'),)
    """
    names = dict.fromkeys([*_TRITON_ASYNC.findall(code), *_TRITON_JIT.findall(code)])
    return tuple(GeneratedKernel(name, "Triton") for name in names)


def omp_pragmas(code: str) -> tuple[str, ...]:
    """The distinct ``#pragma omp`` lines of generated C++, in order of appearance."""
    return tuple(dict.fromkeys(line.strip() for line in _OMP.findall(code)))


def extern_kernel_calls(code: str) -> tuple[str, ...]:
    """Operators the wrapper leaves to ATen: ``extern_kernels.addmm`` and ``torch.ops.aten.*``.

    >>> extern_kernel_calls("extern_kernels.addmm(a, b, c, out=buf0)")
    ('extern_kernels.addmm',)
    """
    calls = [f"extern_kernels.{name}" for name in _EXTERN.findall(code)]
    calls += [f"aten.{name}" for name in _ATEN_FALLBACK.findall(code)]
    return tuple(dict.fromkeys(calls))


def first_line_with(code: str, needle: str) -> str | None:
    """The first line of ``code`` that contains ``needle``, stripped."""
    for line in code.splitlines():
        if needle in line:
            return line.strip()
    return None


# --- profiler event names -------------------------------------------------------------------

_GEMM = re.compile(r"gemm|nvjet|cutlass|cublas|xmma|\bmma\b|_mma_", re.IGNORECASE)
_PROFILED_CPP = re.compile(r"^graph_\d+_(cpp_fused_\w+)$")


def is_gemm_kernel(name: str) -> bool:
    """Whether a CUDA kernel name is a cuBLAS/cuBLASLt/CUTLASS matrix multiply.

    >>> is_gemm_kernel("nvjet_tst_64x8_64x16_4x1_v_bz_TNT")
    True
    >>> is_gemm_kernel("triton_per_fused_gelu_native_layer_norm_0")
    False
    """
    return not is_triton_kernel(name) and bool(_GEMM.search(name))


def is_gpu_kernel(name: str) -> bool:
    """Whether a CUDA profiler event is a kernel (not a memory copy or set)."""
    return not name.startswith(("Memcpy", "Memset"))


def is_triton_kernel(name: str) -> bool:
    """Whether a kernel name is one Inductor gave a Triton kernel (``triton_<kind>_fused_...``)."""
    return name.startswith("triton_")


def profiled_cpp_kernels(names: Iterable[str]) -> tuple[str, ...]:
    """Inductor C++ kernels in profiler names (``graph_0_cpp_fused_...``, kernel profiling on)."""
    return tuple(dict.fromkeys(name for name in names if _PROFILED_CPP.match(name)))


# --- Dynamo's counters ----------------------------------------------------------------------


def graph_breaks(counters: Mapping[str, Mapping[str, int]]) -> tuple[tuple[str, int], ...]:
    r"""The graph breaks in ``torch._dynamo.utils.counters``: (first line of reason, count).

    >>> graph_breaks({"graph_break": {"Unsupported Tensor.item() call\n  Explanation: ...": 1}})
    (('Unsupported Tensor.item() call', 1),)
    """
    merged: dict[str, int] = {}
    for reason, count in counters.get("graph_break", {}).items():
        lines = [line.strip() for line in reason.splitlines() if line.strip()]
        key = lines[0] if lines else reason
        merged[key] = merged.get(key, 0) + int(count)
    return tuple(merged.items())


def dynamo_frames(counters: Mapping[str, Mapping[str, int]]) -> tuple[int, int, int]:
    """(frames seen, frames converted, unique graphs) from Dynamo's counters."""
    frames = counters.get("frames", {})
    stats = counters.get("stats", {})
    return int(frames.get("total", 0)), int(frames.get("ok", 0)), int(stats.get("unique_graphs", 0))


# --- compiler commands (audit hook) ---------------------------------------------------------

_CXX_NAMES = re.compile(r"^(?:g\+\+|gcc|c\+\+|cc|clang\+\+|clang|icpx|icx)(?:-\d+)?$")
_SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx", ".c", ".ptx")


@dataclass(frozen=True)
class CompilerCall:
    """A compiler command seen by the audit hook."""

    compiler: str
    source: str | None
    output: str | None
    openmp: bool
    gpu_arch: str | None

    @property
    def excerpt(self) -> str:
        """A short form of the command, e.g. ``g++ k.main.cpp ... -fopenmp ... -o k.main.so``."""
        parts = [self.compiler]
        if self.source:
            parts.append(short_path(self.source))
        parts.append("...")
        if self.openmp:
            parts.append("-fopenmp ...")
        if self.gpu_arch:
            parts.append(f"--gpu-name {self.gpu_arch} ...")
        if self.output:
            parts.append(f"-o {short_path(self.output)}")
        return " ".join(parts)


def _option(argv: Sequence[str], *flags: str) -> str | None:
    for index, arg in enumerate(argv):
        for flag in flags:
            if arg == flag and index + 1 < len(argv):
                return argv[index + 1]
            if arg.startswith(flag + "="):
                return arg.split("=", 1)[1]
    return None


def compiler_calls(commands: Iterable[Sequence[str]]) -> tuple[CompilerCall, ...]:
    """The C++ compiler and ``ptxas`` calls among subprocess commands that compile a file.

    >>> compiler_calls([["g++", "/t/k.main.cpp", "-fopenmp", "-o", "/t/k.main.so"]])[0].excerpt
    'g++ k.main.cpp ... -fopenmp ... -o k.main.so'
    """
    calls: list[CompilerCall] = []
    for argv in commands:
        if not argv:
            continue
        name = PurePosixPath(argv[0]).name
        is_ptxas = name == "ptxas"
        if not (is_ptxas or _CXX_NAMES.match(name)):
            continue
        source = next((a for a in argv[1:] if a.endswith(_SOURCE_SUFFIXES)), None)
        output = _option(argv, "-o", "--output-file")
        if source is None or output is None:
            continue
        calls.append(
            CompilerCall(
                compiler=name,
                source=source,
                output=output,
                openmp="-fopenmp" in argv,
                gpu_arch=_option(argv, "--gpu-name", "-arch") if is_ptxas else None,
            )
        )
    return tuple(calls)


def short_path(path: str) -> str:
    """The file name of a path (generated names are unique hashes).

    >>> short_path("/tmp/x/inductor/2c/c2ck.py")
    'c2ck.py'
    """
    return PurePosixPath(path).name


# --- Triton's cache and the GPU toolchain ---------------------------------------------------

_TTIR_FUNC = re.compile(r"tt\.func\s+(?:public\s+)?@(\w+)")
_TTG_TARGET = re.compile(r"\"?ttg\.target\"?\s*=\s*\"([^\"]+)\"")
_LLIR_TRIPLE = re.compile(r"^target triple\s*=\s*\"([^\"]+)\"", re.MULTILINE)
_LLIR_KERNEL = re.compile(r"^define\s+(?:[\w()]+\s+)*?ptx_kernel\s+void\s+@(\w+)", re.MULTILINE)
_PTX_VERSION = re.compile(r"^\s*\.version\s+(\S+)", re.MULTILINE)
_PTX_TARGET = re.compile(r"^\s*\.target\s+([\w,. ]+?)\s*$", re.MULTILINE)
_PTX_ENTRY = re.compile(r"\.entry\s+(\w+)")
_SASS_ARCH = re.compile(r"code for (sm_\w+)")
_SASS_FUNCTION = re.compile(r"Function\s*:\s*(\S+)")
_SASS_INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+([^;]+;)")


@dataclass(frozen=True)
class TritonKernelFiles:
    """The files Triton's cache holds for one kernel, by suffix (e.g. '.ptx' -> path)."""

    kernel: str
    files: Mapping[str, str]


def triton_kernel_files(paths: Iterable[str]) -> tuple[TritonKernelFiles, ...]:
    """Group Triton cache files (``triton/<hash>/<kernel>.<suffix>``) by kernel.

    >>> triton_kernel_files(["triton/ab/k.ptx", "triton/ab/k.cubin"])[0].files[".ptx"]
    'triton/ab/k.ptx'
    """
    grouped: dict[tuple[str, str], dict[str, str]] = {}
    for path in sorted(paths):
        pure = PurePosixPath(path)
        if len(pure.parts) < 3 or pure.parts[0] != "triton" or not pure.suffix:  # noqa: PLR2004
            continue
        if pure.stem.startswith("__grp__"):
            continue
        grouped.setdefault((str(pure.parent), pure.stem), {})[pure.suffix] = path
    return tuple(TritonKernelFiles(kernel, files) for (_, kernel), files in grouped.items())


def ttir_functions(text: str) -> tuple[str, ...]:
    """Functions (``tt.func``) of a Triton IR (.ttir) module."""
    return tuple(_TTIR_FUNC.findall(text))


def ttgir_target(text: str) -> str | None:
    """The ``ttg.target`` of a Triton GPU IR (.ttgir) module, e.g. ``cuda:90``."""
    found = _TTG_TARGET.search(text)
    return found.group(1) if found else None


@dataclass(frozen=True)
class LlirSummary:
    """What an LLVM IR (.llir) module shows of its target."""

    triple: str | None
    kernels: tuple[str, ...]
    nvvm: bool

    @property
    def excerpt(self) -> str:
        """E.g. ``define ptx_kernel void @k (llvm.nvvm.* intrinsics)``."""
        parts = [f"define ptx_kernel void @{k}" for k in self.kernels[:1]] or ["LLVM IR module"]
        if self.triple:
            parts.append(f"target triple = {self.triple!r}")
        if self.nvvm:
            parts.append("(llvm.nvvm.* intrinsics)")
        return " ".join(parts)


def llir_summary(text: str) -> LlirSummary:
    r"""Target triple (if written), PTX kernels and NVVM intrinsics of an LLVM IR module.

    >>> text = "define ptx_kernel void @k(ptr %0) {\n  call i32 @llvm.nvvm.read.ptx.sreg.tid.x()"
    >>> llir_summary(text).excerpt
    'define ptx_kernel void @k (llvm.nvvm.* intrinsics)'
    """
    found = _LLIR_TRIPLE.search(text)
    return LlirSummary(
        triple=found.group(1) if found else None,
        kernels=tuple(_LLIR_KERNEL.findall(text)),
        nvvm="@llvm.nvvm." in text,
    )


@dataclass(frozen=True)
class PtxHeader:
    """The header of a PTX file."""

    version: str | None
    target: str | None
    entries: tuple[str, ...]


def ptx_header(text: str) -> PtxHeader:
    """The ``.version``, ``.target`` and ``.entry`` names of PTX."""
    version = _PTX_VERSION.search(text)
    target = _PTX_TARGET.search(text)
    return PtxHeader(
        version=version.group(1) if version else None,
        target=target.group(1).strip() if target else None,
        entries=tuple(_PTX_ENTRY.findall(text)),
    )


@dataclass(frozen=True)
class SassSummary:
    """The head of a ``cuobjdump --dump-sass`` listing."""

    architectures: tuple[str, ...]
    functions: tuple[str, ...]
    instructions: tuple[str, ...]


def sass_summary(text: str) -> SassSummary:
    r"""Architectures (``code for sm_90a``), functions and first instructions of a SASS listing.

    >>> listing = "code for sm_90a\n Function : k\n /*0000*/ LDC R1, c[0x0][0x28] ;"
    >>> sass_summary(listing).instructions
    ('LDC R1, c[0x0][0x28] ;',)
    """
    return SassSummary(
        architectures=tuple(dict.fromkeys(_SASS_ARCH.findall(text))),
        functions=tuple(dict.fromkeys(_SASS_FUNCTION.findall(text))),
        instructions=tuple(" ".join(i.split()) for i in _SASS_INSTRUCTION.findall(text)),
    )
