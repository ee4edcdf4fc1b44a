"""The raw artifacts of one witness run, as the collector hands them to the analysis.

The collector (``collect.py``, which imports torch) runs in a child process and writes one
:class:`RawRun` as JSON; everything after that (``parse.py``, ``observe.py``) is plain text
processing, so it runs without torch and is tested on recorded runs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "RAW_FORMAT",
    "Artifact",
    "CallTrace",
    "CapturedGraph",
    "DispatchedOp",
    "FirstCall",
    "ModeRun",
    "PackageMember",
    "PackageTrace",
    "ProfiledEvent",
    "RawRun",
    "Versions",
    "WarmCall",
]

RAW_FORMAT = 1
"""Version of the raw format; bump it when a field changes meaning."""

FirstCall = Annotated[
    float | None,
    Field(
        ge=0,
        description="Seconds of the first call (under torch.compile: capture, compile and run).",
    ),
]
"""The time of a mode's first call (the raw run's and the record's)."""
WarmCall = Annotated[
    float | None, Field(ge=0, description="Seconds of a warm call (the fastest of three).")
]
"""The time of a mode's warm call (the raw run's and the record's)."""

RawMode = Literal["eager", "torch-compile", "reduce-overhead", "aotinductor"]
RawDevice = Literal["cpu", "nvidia-gpu"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Versions(_Frozen):
    """Versions of the software the run used, and the hardware it ran on.

    ``None`` where a tool, a library or the GPU is absent, and in records made before the field
    existed. The GPU fields are filled for runs on a CUDA device only.
    """

    python: str = Field(description="Python version, e.g. '3.11.7'.")
    python_implementation: str = Field(description="sys.implementation.name, e.g. 'cpython'.")
    torch: str = Field(description="torch.__version__, e.g. '2.13.0+cpu'.")
    torch_cuda: str | None = Field(
        default=None, description="torch.version.cuda (None for a CPU build)."
    )
    triton: str | None = Field(default=None, description="Installed Triton version, if any.")
    cxx_compiler: str | None = Field(
        default=None, description="First line of '<CXX> --version' for the compiler Inductor uses."
    )
    cuobjdump: str | None = Field(
        default=None,
        description=(
            "The 'release' line of 'cuobjdump --version' for the cuobjdump that disassembled the "
            "cubins (see cuobjdump_path), if present."
        ),
    )
    platform: str = Field(description="platform.platform() of the machine.")
    cxx_compiler_path: str | None = Field(
        default=None, description="Where the C++ compiler of cxx_compiler is, e.g. '/usr/bin/g++'."
    )
    cuobjdump_path: str | None = Field(
        default=None,
        description="Where the cuobjdump of cuobjdump is, e.g. '/usr/local/cuda/bin/cuobjdump'.",
    )
    cpu_model: str | None = Field(
        default=None, description="The CPU's model name, e.g. 'AMD EPYC 9654'."
    )
    cpu_capability: str | None = Field(
        default=None,
        description=(
            "The CPU kernels ATen dispatches to, torch.backends.cpu.get_cpu_capability(), "
            "e.g. 'AVX2' or 'AVX512'."
        ),
    )
    cpu_isa: tuple[str, ...] | None = Field(
        default=None,
        description=(
            "The vector and matrix instruction-set flags the CPU reports (/proc/cpuinfo), among "
            "sse4_2, avx, avx2, fma, f16c, avx_vnni, avx512f, avx512bw, avx512vl, avx512_vnni, "
            "avx512_bf16, avx512_fp16, amx_tile, amx_bf16, amx_int8 and, on AArch64, asimd, "
            "asimddp, sve, sve2, bf16, i8mm, sme; e.g. ('sse4_2', 'avx', 'avx2', 'fma')."
        ),
    )
    blas: str | None = Field(
        default=None, description="torch's BLAS_INFO build setting, e.g. 'mkl' or 'open'."
    )
    lapack: str | None = Field(
        default=None, description="torch's LAPACK_INFO build setting, e.g. 'mkl' or 'open'."
    )
    blas_version: str | None = Field(
        default=None,
        description=(
            "The line of torch.__config__.show() naming the BLAS library and its version, e.g. "
            "'Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build 20240605 for "
            "Intel(R) 64 architecture applications'."
        ),
    )
    blas_library: str | None = Field(
        default=None,
        description=(
            "The BLAS shared library loaded in the run's process (OpenBLAS, MKL, BLIS, ArmPL), "
            "None where torch links it statically (MKL in the x86-64 wheels)."
        ),
    )
    parallel_backend: str | None = Field(
        default=None,
        description="ATen's parallel backend (torch.__config__.parallel_info()), e.g. 'OpenMP'.",
    )
    openmp: str | None = Field(
        default=None,
        description=(
            "The OpenMP line of torch.__config__.parallel_info(), e.g. "
            "'OpenMP 201511 (a.k.a. OpenMP 4.5)'."
        ),
    )
    openmp_library: str | None = Field(
        default=None,
        description=(
            "The OpenMP runtime loaded in the run's process (libgomp, libiomp5 or libomp), "
            "e.g. '.../torch/lib/libgomp.so.1'."
        ),
    )
    gpu_name: str | None = Field(
        default=None, description="The CUDA device's name, e.g. 'NVIDIA H200'."
    )
    compute_capability: str | None = Field(
        default=None,
        pattern=r"^\d+\.\d+$",
        description="The CUDA device's compute capability, 'major.minor', e.g. '9.0'.",
    )
    cuda_driver: str | None = Field(
        default=None, description="The NVIDIA driver's version, e.g. '580.159.03'."
    )
    cuda_runtime: str | None = Field(
        default=None,
        description=(
            "The CUDA runtime loaded in the run's process (cudaRuntimeGetVersion), else the "
            "installed nvidia-cuda-runtime distribution's version; e.g. '13.0'."
        ),
    )
    cuda_runtime_path: str | None = Field(
        default=None, description="The libcudart shared library loaded in the run's process."
    )
    cublas: str | None = Field(
        default=None,
        description=(
            "The cuBLAS loaded in the run's process (cublasGetProperty, 'major.minor.patch'), "
            "else the installed nvidia-cublas distribution's version; e.g. '13.1.0'."
        ),
    )
    cublas_path: str | None = Field(
        default=None, description="The libcublas shared library loaded in the run's process."
    )
    cudnn: str | None = Field(
        default=None, description="torch.backends.cudnn.version() as text, e.g. '9.10.2'."
    )
    ptxas: str | None = Field(
        default=None,
        description=(
            "The 'release' line of 'ptxas --version' for the ptxas Triton assembles PTX with "
            "for this device at the end of the run, e.g. "
            "'Cuda compilation tools, release 13.0, V13.0.88'."
        ),
    )
    ptxas_path: str | None = Field(
        default=None,
        description=(
            "Where that ptxas is: torch's own '.../torch/bin/ptxas' once Inductor has pointed "
            "Triton at it (TRITON_PTXAS_PATH), else Triton's "
            "'.../triton/backends/nvidia/bin/ptxas'."
        ),
    )


class DispatchedOp(_Frozen):
    """One aten overload seen by the dispatch mode, with the devices of its tensors."""

    op: str = Field(
        description="The overload as the dispatcher names it, e.g. 'aten.addmm.default'."
    )
    devices: tuple[str, ...] = Field(description="Devices of the tensor arguments, e.g. ('cpu',).")
    kernels: tuple[str, ...] = Field(
        description=(
            "Dispatch keys among CPU, CUDA and the composite keys that register a kernel for it."
        )
    )
    count: int = Field(ge=1, description="How many times the overload was called.")


class ProfiledEvent(_Frozen):
    """One distinct event name of the profiler, per device type."""

    name: str = Field(description="Event name, e.g. 'aten::addmm' or a CUDA kernel name.")
    device_type: str = Field(description="'CPU' or 'CUDA' (the profiler's DeviceType name).")
    count: int = Field(ge=1, description="How many events of this name the profiler recorded.")


class CapturedGraph(_Frozen):
    """One FX GraphModule that Dynamo handed to the recording backend."""

    compile_id: str = Field(description="Dynamo's compile id, e.g. '0/0'.")
    ops: tuple[str, ...] = Field(description="Targets of the graph's call nodes, in order.")
    code: str = Field(description="The GraphModule's generated Python code.")
    written: tuple[str, ...] = Field(
        default=(),
        description=(
            "Files that appeared in the temporary caches while Inductor compiled this graph "
            "(paths relative to the run's temporary folder): its output module among them."
        ),
    )
    compile_s: float | None = Field(
        default=None, ge=0, description="Seconds Inductor took to compile this graph."
    )


class Artifact(_Frozen):
    """A file written during the run in the temporary caches."""

    path: str = Field(
        description="Path relative to the run's temporary folder, e.g. 'inductor/2c/c2ck.py'."
    )
    size: int = Field(ge=0, description="Size in bytes.")
    text: str | None = Field(
        default=None, description="The text, or its head for large files; None for binaries."
    )
    truncated: bool = Field(
        default=False, description="Whether text holds only the head of the file."
    )


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
    mapped_by_load: tuple[str, ...] = Field(
        default=(),
        description=(
            "Shared objects that loading the package mapped into the process, wherever they lie:"
            " relative to the run's temporary folder inside it, else absolute (' (deleted)' when"
            " the file was removed once mapped). Empty in runs recorded before it was kept."
        ),
    )
    export_s: float | None = Field(default=None, ge=0, description="Seconds torch.export took.")
    compile_s: float | None = Field(
        default=None, ge=0, description="Seconds aoti_compile_and_package took."
    )
    load_s: float | None = Field(default=None, ge=0, description="Seconds loading took.")


class ModeRun(_Frozen):
    """What one mode of the run left behind.

    Under reduce-overhead and AOTInductor also the calls one by one, the ``cudagraphs`` log and
    the ``.pt2`` package.
    """

    mode: RawMode = Field(description="The mode, named as in the atlas.")
    started_at: datetime = Field(description="When the mode started (UTC).")
    ended_at: datetime = Field(description="When the mode ended (UTC).")
    dispatched: tuple[DispatchedOp, ...] = Field(
        default=(), description="aten ops seen by the dispatch mode."
    )
    profiled: tuple[ProfiledEvent, ...] = Field(
        default=(), description="Profiler events of one warm call."
    )
    graphs: tuple[CapturedGraph, ...] = Field(default=(), description="FX graphs Dynamo captured.")
    dynamo_counters: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="torch._dynamo.utils.counters after the compile."
    )
    artifacts: tuple[Artifact, ...] = Field(
        default=(), description="Files written in the temporary caches."
    )
    commands: tuple[tuple[str, ...], ...] = Field(
        default=(), description="argv of each subprocess started during the compile (audit hook)."
    )
    disassembly: dict[str, str] = Field(
        default_factory=dict,
        description="Head of 'cuobjdump --dump-sass' per .cubin artifact path.",
    )
    mapped_files: tuple[str, ...] = Field(
        default=(),
        description="Shared objects mapped into the process after the run (/proc/self/maps).",
    )
    outputs_match: bool | None = Field(
        default=None,
        description="Whether the compiled output matched eager (None when not compared).",
    )
    error: str | None = Field(
        default=None, description="'ExceptionName: message' when the mode failed."
    )
    graph_break_log: tuple[str, ...] = Field(
        default=(),
        description=(
            "Dynamo's 'graph_breaks' log messages, verbatim (each names the user code location "
            "and the reason of one graph break)."
        ),
    )
    first_call_s: FirstCall = None
    warm_call_s: WarmCall = None
    calls: tuple[CallTrace, ...] = Field(
        default=(), description="The calls after the first, each watched on its own."
    )
    log: tuple[str, ...] = Field(
        default=(), description="Messages of Inductor's 'cudagraphs' log, verbatim."
    )
    package: PackageTrace | None = Field(default=None, description="AOTInductor's package.")


class RawRun(_Frozen):
    """Everything one witness run collected, before analysis."""

    format: int = Field(default=RAW_FORMAT, description="Version of this raw format.")
    device: RawDevice = Field(description="Device kind of the run, named as in the atlas.")
    device_name: str = Field(description="CPU model or GPU name.")
    device_detail: str = Field(default="", description="Threads, compute capability or similar.")
    versions: Versions = Field(description="Software versions.")
    settings: dict[str, str] = Field(
        default_factory=dict, description="Settings the collector changed from their defaults."
    )
    model: str = Field(description="Short description of the model that ran.")
    model_source: str | None = Field(
        default=None,
        description=(
            "The factory that built the model, as given ('module:function' or "
            "'path/to/file.py:function'); None for the witness's own tiny model."
        ),
    )
    environment: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "Environment variables set for the run that change what torch, Inductor or Triton "
            "do or keep (TORCH*, TRITON*, CUDA_*), except the witness's own cache folders."
        ),
    )
    started_at: datetime = Field(description="When the run started (UTC).")
    ended_at: datetime = Field(description="When the run ended (UTC).")
    modes: tuple[ModeRun, ...] = Field(description="One entry per mode run.")
