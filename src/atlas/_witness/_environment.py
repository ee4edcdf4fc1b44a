"""The machine a witness run ran on: its device, tools and versions, and torch's settings.

:func:`configure_torch` imports torch and sets the documented Inductor options the collector
relies on (returning them, so that the raw run records them); :func:`describe_device` names the
CPU or GPU; :func:`versions` records Python, torch, Triton, the C++ compiler, the CPU and its
BLAS and OpenMP, and on a GPU the driver, CUDA runtime, cuBLAS, cuDNN and Triton's ptxas.
Imported by the collector only; torch is imported inside functions. Every probe is guarded: what
cannot be found is ``None``, never an exception; subprocesses run with a timeout.
"""

# torch and triton are imported inside functions only, so that importing this module stays cheap.
# ruff: noqa: PLC0415

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import logging
import os
import platform
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from atlas._witness import _versions as read
from atlas.models._raw import Versions

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["configure_torch", "describe_device", "find_tool", "versions"]

_T = TypeVar("_T")
_TIMEOUT_S = 30


def find_tool(name: str) -> str | None:
    """``name`` on PATH, else in CUDA_HOME/bin, /usr/local/cuda/bin or Triton's bundled tools."""
    found = shutil.which(name)
    if found:
        return found
    folders = [
        Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin",
        Path("/usr/local/cuda/bin"),
    ]
    spec = importlib.util.find_spec("triton")
    if spec is not None and spec.origin:
        folders.append(Path(spec.origin).parent / "backends" / "nvidia" / "bin")
    for folder in folders:
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def configure_torch() -> dict[str, str]:
    """Import torch, quieten Dynamo and set Inductor's options; return the options set."""
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    import torch  # noqa: F401 - imported here, after the caller's audit hook

    # Graph breaks are recorded from Dynamo's counters; their warnings would only be noise here.
    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)
    import torch._inductor.config as inductor_config

    # Compile in this process, so that the audit hook sees g++ and ptxas, and time the C++
    # kernels in the profiler; both are documented Inductor settings.
    inductor_config.compile_threads = 1
    inductor_config.cpp.enable_kernel_profile = True
    return {
        "torch._inductor.config.compile_threads": "1",
        "torch._inductor.config.cpp.enable_kernel_profile": "True",
    }


def _read(path: str) -> str:
    """The text of ``path``, or '' where it cannot be read (no /proc, no driver)."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _safely(probe: Callable[[], _T]) -> _T | None:
    """``probe()``, or None where it fails: a version probe must never fail the run."""
    try:
        return probe()
    except Exception:  # noqa: BLE001 - torch, Triton and ctypes raise many kinds; None says "unknown"
        return None


def _cpu_name() -> str:
    name = read.cpuinfo_field(_read("/proc/cpuinfo"), "model name")
    return name or platform.processor() or platform.machine()


def describe_device(*, cuda: bool) -> tuple[str, str]:
    """The device's name and a line of detail (compute capability and SMs, or threads)."""
    import torch

    if cuda:
        props = torch.cuda.get_device_properties(0)
        return (
            str(props.name),
            f"compute capability {props.major}.{props.minor}, {props.multi_processor_count} SMs",
        )
    return (
        _cpu_name(),
        f"{torch.get_num_threads()} intra-op threads, {os.cpu_count()} logical CPUs",
    )


def _output(argv: Sequence[str]) -> str | None:
    """The standard output of ``argv``, or None where it cannot run or fails."""
    try:
        done = subprocess.run(
            list(argv), capture_output=True, text=True, check=False, timeout=_TIMEOUT_S
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _version_line(argv: Sequence[str], *, prefer: str | None = None) -> str | None:
    """The first output line of ``argv`` (or the first that contains ``prefer``)."""
    lines = [line.strip() for line in (_output(argv) or "").splitlines() if line.strip()]
    if not lines:
        return None
    preferred = [line for line in lines if prefer and prefer in line]
    return (preferred or lines)[0]


def _distribution(*names: str) -> str | None:
    """The version of the first of the distributions ``names`` that is installed."""
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _c_int(path: str, function: str, *args: int) -> int | None:
    """Call ``function(*args, int *out)`` of the loaded library ``path``; ``out`` on success."""
    import ctypes

    def call() -> int | None:
        value = ctypes.c_int()
        status = getattr(ctypes.CDLL(path), function)(*args, ctypes.byref(value))
        return value.value if status == 0 else None

    return _safely(call)


def _tools() -> dict[str, Any]:
    """The C++ compiler Inductor runs and the cuobjdump that disassembles cubins."""
    cxx = os.environ.get("CXX", "g++")
    cuobjdump = find_tool("cuobjdump")
    return {
        "cxx_compiler": _version_line([cxx, "--version"]),
        "cxx_compiler_path": shutil.which(cxx),
        "cuobjdump": _version_line([cuobjdump, "--version"], prefer="release")
        if cuobjdump
        else None,
        "cuobjdump_path": cuobjdump,
    }


def _cpu(torch: ModuleType, maps: str) -> dict[str, Any]:
    """The CPU, the kernels ATen picked for it, and torch's BLAS and OpenMP."""
    cpuinfo = _read("/proc/cpuinfo")
    config = _safely(torch.__config__.show) or ""
    parallel = _safely(torch.__config__.parallel_info) or ""
    capability = _safely(torch.backends.cpu.get_cpu_capability)
    return {
        "cpu_model": _cpu_name(),
        "cpu_capability": str(capability) if capability else None,
        "cpu_isa": read.isa_flags(cpuinfo) if cpuinfo else None,
        "blas": read.build_setting(config, "BLAS_INFO"),
        "lapack": read.build_setting(config, "LAPACK_INFO"),
        "blas_version": read.blas_line(config),
        "blas_library": read.mapped_library(
            maps, ("libopenblas", "libopenblasp", "libmkl_rt", "libblis", "libarmpl_lp64")
        ),
        "parallel_backend": read.parallel_backend(parallel),
        "openmp": read.openmp_line(parallel),
        "openmp_library": read.mapped_library(maps, ("libgomp", "libiomp5", "libomp")),
    }


def _driver(maps: str) -> str | None:
    """The NVIDIA driver's version: nvidia-smi, else /proc, else the loaded libcuda's name."""
    smi = shutil.which("nvidia-smi")
    query = [smi, "--query-gpu=driver_version", "--format=csv,noheader"] if smi else None
    found = read.nvidia_smi_driver(_output(query) or "") if query else None
    found = found or read.proc_driver_version(_read("/proc/driver/nvidia/version"))
    libcuda = read.mapped_library(maps, ("libcuda",))
    return found or (read.libcuda_driver_version(libcuda) if libcuda else None)


def _cuda_libraries(maps: str) -> dict[str, Any]:
    """The CUDA runtime and cuBLAS loaded in this process, with their versions."""
    cudart = read.mapped_library(maps, ("libcudart",))
    runtime = _c_int(cudart, "cudaRuntimeGetVersion") if cudart else None
    cublas = read.mapped_library(maps, ("libcublas",))
    parts = [_c_int(cublas, "cublasGetProperty", part) for part in (0, 1, 2)] if cublas else []
    cublas_version = ".".join(map(str, parts)) if parts and None not in parts else None
    return {
        "cuda_runtime": (read.cuda_version_text(runtime) if runtime else None)
        or _distribution(
            "nvidia-cuda-runtime", "nvidia-cuda-runtime-cu13", "nvidia-cuda-runtime-cu12"
        ),
        "cuda_runtime_path": cudart,
        "cublas": cublas_version
        or _distribution("nvidia-cublas", "nvidia-cublas-cu13", "nvidia-cublas-cu12"),
        "cublas_path": cublas,
    }


def _triton_ptxas(arch: int) -> str | None:
    """The path of the ptxas Triton runs for ``arch`` (e.g. 90), as Triton itself finds it.

    That is TRITON_PTXAS_PATH where set (Inductor sets it to torch's own ``torch/bin/ptxas``
    before it compiles a Triton kernel), else Triton's bundled ``backends/nvidia/bin/ptxas``.
    """

    def from_compiler() -> str | None:
        compiler = importlib.import_module("triton.backends.nvidia.compiler")
        try:
            tool = compiler.get_ptxas(arch)
        except TypeError:  # Triton 3.3 and older take no architecture
            tool = compiler.get_ptxas()
        path = tool[0] if isinstance(tool, tuple) else tool.path  # a pair before Triton 3.3
        return str(path)

    def from_knobs() -> str | None:
        return str(importlib.import_module("triton.knobs").nvidia.ptxas.path)

    spec = _safely(lambda: importlib.util.find_spec("triton"))
    if spec is None or not spec.origin:
        return None
    bundled = Path(spec.origin).parent / "backends" / "nvidia" / "bin" / "ptxas"
    return (
        _safely(from_compiler)
        or _safely(from_knobs)
        or (str(bundled) if bundled.is_file() else None)
    )


def _gpu(torch: ModuleType, maps: str) -> dict[str, Any]:
    """CUDA device 0, its driver, the CUDA libraries loaded, cuDNN and Triton's ptxas."""
    props = _safely(lambda: torch.cuda.get_device_properties(0))
    capability = (int(props.major), int(props.minor)) if props is not None else None
    cudnn = _safely(torch.backends.cudnn.version)
    ptxas = _triton_ptxas(10 * capability[0] + capability[1]) if capability else None
    return {
        "gpu_name": str(props.name) if props is not None else None,
        "compute_capability": f"{capability[0]}.{capability[1]}" if capability else None,
        "cuda_driver": _driver(maps),
        **_cuda_libraries(maps),
        "cudnn": read.cudnn_version_text(int(cudnn)) if cudnn else None,
        "ptxas": _version_line([ptxas, "--version"], prefer="release") if ptxas else None,
        "ptxas_path": ptxas,
    }


def versions(*, cuda: bool | None = None) -> Versions:
    """The software and hardware of this process's run, as it finds them.

    ``cuda`` says whether the run used the CUDA device (then its GPU fields are filled); by
    default, whether torch finds one.
    """
    import torch

    if cuda is None:
        cuda = bool(_safely(torch.cuda.is_available))
    maps = _read("/proc/self/maps")
    fields: dict[str, Any] = {
        "python": platform.python_version(),
        "python_implementation": sys.implementation.name,
        "torch": str(torch.__version__),
        "torch_cuda": torch.version.cuda,
        "triton": _distribution("triton", "pytorch-triton"),
        "platform": platform.platform(),
        **_tools(),
        **_cpu(torch, maps),
    }
    if cuda:
        fields.update(_gpu(torch, maps))
    return Versions.model_validate(fields)
