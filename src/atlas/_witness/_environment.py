"""The machine a witness run ran on: its device, tools and versions, and torch's settings.

:func:`configure_torch` imports torch and sets the documented Inductor options the collector
relies on (returning them, so that the raw run records them); :func:`describe_device` names the
CPU or GPU; :func:`versions` records Python, torch, Triton, the C++ compiler and cuobjdump.
Imported by the collector only; torch is imported inside functions.
"""

# torch is imported inside functions only, so that importing this module stays cheap.
# ruff: noqa: PLC0415

from __future__ import annotations

import importlib.util
import logging
import os
import platform
import shutil
import subprocess
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from atlas.models._raw import Versions

__all__ = ["configure_torch", "describe_device", "find_tool", "versions"]


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


def _cpu_name() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


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


def _version_line(argv: Sequence[str], *, prefer: str | None = None) -> str | None:
    """The first output line of ``argv`` (or the first that contains ``prefer``)."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or not lines:
        return None
    preferred = [line for line in lines if prefer and prefer in line]
    return (preferred or lines)[0]


def versions() -> Versions:
    """Python, torch, Triton, the C++ compiler and cuobjdump, as this process finds them."""
    import importlib.metadata

    import torch

    try:
        triton: str | None = importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        triton = None
    cxx = os.environ.get("CXX", "g++")
    cuobjdump = find_tool("cuobjdump")
    return Versions(
        python=platform.python_version(),
        python_implementation=sys.implementation.name,
        torch=str(torch.__version__),
        torch_cuda=torch.version.cuda,
        triton=triton,
        cxx_compiler=_version_line([cxx, "--version"]),
        cuobjdump=_version_line([cuobjdump, "--version"], prefer="release") if cuobjdump else None,
        platform=platform.platform(),
    )
