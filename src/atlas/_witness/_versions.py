"""Pure readers of the texts that name the versions of a witness run's software and hardware.

Each function takes the text a probe read (``torch.__config__.show()``, ``parallel_info()``,
``/proc/cpuinfo``, ``/proc/self/maps``, ``nvidia-smi``, ``/proc/driver/nvidia/version``, a tool's
``--version`` output) and returns the value, or ``None`` when the text does not hold it. They
import nothing and read nothing, so they are tested on sample strings;
:mod:`atlas._witness._environment` runs the probes.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

__all__ = [
    "ISA_FLAGS",
    "blas_line",
    "build_setting",
    "cpuinfo_field",
    "cuda_version_text",
    "cudnn_version_text",
    "isa_flags",
    "libcuda_driver_version",
    "mapped_library",
    "nvidia_smi_driver",
    "openmp_line",
    "parallel_backend",
    "proc_driver_version",
]

ISA_FLAGS = (
    # x86-64, from /proc/cpuinfo's "flags": the vector extensions ATen's and Inductor's C++
    # kernels are built for, and the matrix (AMX) and dot-product (VNNI) extensions.
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
    # AArch64, from its "Features": NEON, SVE and the bf16 / int8 matrix extensions.
    "asimd",
    "asimddp",
    "sve",
    "sve2",
    "bf16",
    "i8mm",
    "sme",
)
"""The instruction-set flags a run records, in this order, when the CPU reports them."""

_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)*")
_BLAS_NAMES = ("Math Kernel Library", "OpenBLAS", "BLIS", "Arm Performance Libraries")


def cpuinfo_field(cpuinfo: str, key: str) -> str | None:
    r"""The value of the first ``key : value`` line of ``/proc/cpuinfo``.

    >>> cpuinfo_field("processor\t: 0\nmodel name\t: AMD EPYC 9654\n", "model name")
    'AMD EPYC 9654'
    """
    for line in cpuinfo.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip() == key and value.strip():
            return value.strip()
    return None


def isa_flags(cpuinfo: str) -> tuple[str, ...]:
    r"""The flags of :data:`ISA_FLAGS` that ``/proc/cpuinfo`` lists (``flags`` or ``Features``).

    >>> isa_flags("flags\t\t: fpu sse4_2 avx avx2 fma avx512f amx_tile\n")
    ('sse4_2', 'avx', 'avx2', 'fma', 'avx512f', 'amx_tile')
    """
    listed = cpuinfo_field(cpuinfo, "flags") or cpuinfo_field(cpuinfo, "Features") or ""
    present = set(listed.split())
    return tuple(flag for flag in ISA_FLAGS if flag in present)


def build_setting(config: str, key: str) -> str | None:
    """A ``KEY=value`` of the "Build settings" line of ``torch.__config__.show()``.

    >>> build_setting("  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, ", "BLAS_INFO")
    'mkl'
    """
    found = re.search(rf"(?:^|[\s,]){re.escape(key)}=([^,\n]*)", config)
    if found is None or not found.group(1).strip():
        return None
    return found.group(1).strip()


def blas_line(config: str) -> str | None:
    r"""The line of ``torch.__config__.show()`` that names the BLAS library and its version.

    >>> blas_line("  - GCC 13.3\n  - Intel(R) oneAPI Math Kernel Library Version 2024.2\n")
    'Intel(R) oneAPI Math Kernel Library Version 2024.2'
    """
    for line in config.splitlines():
        text = line.strip().removeprefix("- ").strip()
        if any(name in text for name in _BLAS_NAMES):
            return text
    return None


def parallel_backend(parallel_info: str) -> str | None:
    r"""ATen's parallel backend, from ``torch.__config__.parallel_info()``.

    >>> parallel_backend("std::thread::hardware_concurrency() : 2\nATen parallel backend: OpenMP")
    'OpenMP'
    """
    return cpuinfo_field(parallel_info, "ATen parallel backend")


def openmp_line(parallel_info: str) -> str | None:
    r"""The OpenMP version line of ``torch.__config__.parallel_info()`` (None without OpenMP).

    >>> openmp_line("ATen/Parallel:\nOpenMP 201511 (a.k.a. OpenMP 4.5)\n")
    'OpenMP 201511 (a.k.a. OpenMP 4.5)'
    """
    for line in parallel_info.splitlines():
        if re.match(r"OpenMP \d", line.strip()):
            return line.strip()
    return None


def mapped_library(maps: str, stems: tuple[str, ...]) -> str | None:
    r"""The first file of ``/proc/self/maps`` that is a shared library named by one of ``stems``.

    A stem matches ``<stem>.so...`` and ``<stem>-<hash>.so...`` (a wheel's bundled copy), so
    that ``libcublas`` does not match ``libcublasLt.so``.

    >>> maps = "7f1-7f2 r-xp 0 08:01 1 /opt/nvidia/cublas/lib/libcublasLt.so.13\n"
    >>> maps += "7f3-7f4 r-xp 0 08:01 2 /opt/nvidia/cublas/lib/libcublas.so.13\n"
    >>> mapped_library(maps, ("libcublas",))
    '/opt/nvidia/cublas/lib/libcublas.so.13'
    """
    patterns = [re.compile(rf"{re.escape(stem)}(?:-[0-9a-f]+)?\.so(?:\.|$)") for stem in stems]
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) < 6 or not fields[5].startswith("/"):  # noqa: PLR2004 - a file mapping
            continue
        path = fields[5].strip()
        if any(pattern.match(PurePosixPath(path).name) for pattern in patterns):
            return path
    return None


def libcuda_driver_version(path: str) -> str | None:
    """The driver version in the file name of the mapped ``libcuda.so.<version>``.

    >>> libcuda_driver_version("/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05")
    '580.95.05'
    """
    found = re.fullmatch(r"libcuda\.so\.(\d+\.\d+(?:\.\d+)*)", PurePosixPath(path).name)
    return found.group(1) if found else None


def nvidia_smi_driver(output: str) -> str | None:
    r"""The driver version from ``nvidia-smi --query-gpu=driver_version --format=csv,noheader``.

    >>> nvidia_smi_driver("580.159.03\n580.159.03\n")
    '580.159.03'
    """
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if lines and _VERSION.fullmatch(lines[0]):
        return lines[0]
    return None


def proc_driver_version(text: str) -> str | None:
    """The driver version from ``/proc/driver/nvidia/version``.

    >>> proc_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Thu Sep")
    '580.95.05'
    """
    for line in text.splitlines():
        if line.startswith("NVRM version:"):
            found = _VERSION.search(line.partition("Module")[2])
            return found.group(0) if found else None
    return None


def cuda_version_text(version: int) -> str | None:
    """A CUDA version number as CUDA's API returns it (``1000 * major + 10 * minor``), as text.

    >>> cuda_version_text(13000), cuda_version_text(12080)
    ('13.0', '12.8')
    """
    if version <= 0:
        return None
    return f"{version // 1000}.{version % 1000 // 10}"


def cudnn_version_text(version: int) -> str | None:
    """``torch.backends.cudnn.version()`` as text (cuDNN 9 counts ``10000 * major``, 8 ``1000``).

    >>> cudnn_version_text(91002), cudnn_version_text(8907)
    ('9.10.2', '8.9.7')
    """
    if version <= 0:
        return None
    major_unit = 10000 if version >= 90000 else 1000  # noqa: PLR2004 - cuDNN 9's new numbering
    major, rest = divmod(version, major_unit)
    return f"{major}.{rest // 100}.{rest % 100}"
