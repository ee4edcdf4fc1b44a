"""The versions a witness run records: the text readers, the guarded probes, the model."""

from __future__ import annotations

import importlib.machinery
import json
import platform
import shutil
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
from pydantic import ValidationError

from atlas._witness import _environment as env
from atlas._witness import _versions as read
from atlas._witness.files import load_record, to_trig
from atlas.models._raw import RawRun, Versions

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "witness"

# --- samples, cut from real outputs ----------------------------------------------------------

CONFIG = """PyTorch built with:
  - GCC 13.3
  - C++ Version: 202002
  - Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build 20240605 for Intel(R) 64 \
architecture applications
  - Intel(R) MKL-DNN v3.12.0 (Git Hash 80afa71049cd69a3df32adcccb623b12cd7baa22)
  - OpenMP 201511 (a.k.a. OpenMP 4.5)
  - LAPACK is enabled (usually provided by MKL)
  - CPU capability usage: AVX2
  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, CXX_COMPILER=/opt/rh/bin/c++, \
LAPACK_INFO=mkl, PERF_WITH_AVX=1, TORCH_VERSION=2.13.0, USE_CUDA=0, USE_OPENMP=ON,
"""
CONFIG_OPENBLAS = """PyTorch built with:
  - GCC 11.2
  - LAPACK is enabled (usually provided by MKL)
  - OpenBLAS 0.3.29
  - Build settings: BLAS_INFO=open, BUILD_TYPE=Release, LAPACK_INFO=open, USE_CUDA=0,
"""
PARALLEL = """ATen/Parallel:
\tat::get_num_threads() : 2
\tat::get_num_interop_threads() : 2
OpenMP 201511 (a.k.a. OpenMP 4.5)
\tomp_get_max_threads() : 2
Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build 20240605
\tmkl_get_max_threads() : 2
std::thread::hardware_concurrency() : 2
Environment variables:
\tOMP_NUM_THREADS : [not set]
ATen parallel backend: OpenMP
"""
PARALLEL_NATIVE = """ATen/Parallel:
\tat::get_num_threads() : 8
OpenMP not found
MKL not found
ATen parallel backend: native thread pool
"""
CPUINFO_X86 = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu vme sse sse2 ssse3 sse4_1 sse4_2 avx f16c avx2 fma avx512f avx512bw \
avx512vl avx512_bf16 amx_bf16 amx_tile amx_int8 avx_vnni

processor\t: 1
model name\t: Intel(R) Xeon(R) Platinum 8480+
"""
CPUINFO_ARM = """processor\t: 0
BogoMIPS\t: 2000.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics asimddp sve sve2 i8mm bf16
CPU implementer\t: 0x41
"""
MAPS = """\
55d0-55d1 r--p 00000000 08:01 12 /usr/bin/python3.12
7f00-7f01 r-xp 00000000 08:01 13 /venv/nvidia/cu13/lib/libcublasLt.so.13
7f01-7f02 r-xp 00000000 08:01 14 /venv/nvidia/cu13/lib/libcublas.so.13
7f02-7f03 r-xp 00000000 08:01 15 /venv/nvidia/cu13/lib/libcudart.so.13
7f03-7f04 r-xp 00000000 08:01 16 /venv/torch.libs/libgomp-a34b3233.so.1.0.0
7f04-7f05 r-xp 00000000 08:01 17 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04
7f05-7f06 rw-p 00000000 00:00 0
7f06-7f07 rw-p 00000000 00:00 0 [heap]
"""
PROC_DRIVER = """\
NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)
GCC version:  gcc version 15.3.0 (GCC)
"""
PROC_DRIVER_CLOSED = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 2024\n"


# --- the readers -------------------------------------------------------------------------------


def test_build_settings_are_read_from_torch_config() -> None:
    assert read.build_setting(CONFIG, "BLAS_INFO") == "mkl"
    assert read.build_setting(CONFIG, "LAPACK_INFO") == "mkl"
    assert read.build_setting(CONFIG, "CXX_COMPILER") == "/opt/rh/bin/c++"
    assert read.build_setting(CONFIG_OPENBLAS, "BLAS_INFO") == "open"
    # A key that is only the tail of another is not it; an absent or empty one is None.
    assert read.build_setting(CONFIG, "INFO") is None
    assert read.build_setting(CONFIG, "USE_ROCM") is None
    assert read.build_setting("Build settings: BLAS_INFO=, X=1", "BLAS_INFO") is None


def test_the_blas_line_names_the_library_not_lapacks_hint() -> None:
    assert read.blas_line(CONFIG) == (
        "Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build 20240605 for "
        "Intel(R) 64 architecture applications"
    )
    assert read.blas_line(CONFIG_OPENBLAS) == "OpenBLAS 0.3.29"
    assert read.blas_line("PyTorch built with:\n  - GCC 13.3\n") is None


def test_parallel_backend_and_openmp_are_read_from_parallel_info() -> None:
    assert read.parallel_backend(PARALLEL) == "OpenMP"
    assert read.openmp_line(PARALLEL) == "OpenMP 201511 (a.k.a. OpenMP 4.5)"
    assert read.parallel_backend(PARALLEL_NATIVE) == "native thread pool"
    assert read.openmp_line(PARALLEL_NATIVE) is None
    assert read.parallel_backend("") is None


def test_cpuinfo_gives_the_model_and_the_isa_flags_in_a_fixed_order() -> None:
    assert read.cpuinfo_field(CPUINFO_X86, "model name") == "Intel(R) Xeon(R) Platinum 8480+"
    assert read.isa_flags(CPUINFO_X86) == (
        "sse4_2",
        "avx",
        "avx2",
        "fma",
        "f16c",
        "avx_vnni",
        "avx512f",
        "avx512bw",
        "avx512vl",
        "avx512_bf16",
        "amx_tile",
        "amx_bf16",
        "amx_int8",
    )
    assert read.cpuinfo_field(CPUINFO_ARM, "model name") is None
    assert read.isa_flags(CPUINFO_ARM) == ("asimd", "asimddp", "sve", "sve2", "bf16", "i8mm")
    assert read.isa_flags("processor\t: 0\n") == ()


def test_mapped_library_finds_the_file_by_its_stem_only() -> None:
    assert read.mapped_library(MAPS, ("libcublas",)) == "/venv/nvidia/cu13/lib/libcublas.so.13"
    assert read.mapped_library(MAPS, ("libcublasLt",)) == (
        "/venv/nvidia/cu13/lib/libcublasLt.so.13"
    )
    # A wheel's bundled copy carries a hash in its name.
    assert read.mapped_library(MAPS, ("libiomp5", "libgomp")) == (
        "/venv/torch.libs/libgomp-a34b3233.so.1.0.0"
    )
    assert read.mapped_library(MAPS, ("libcuda",)) == (
        "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"
    )
    assert read.mapped_library(MAPS, ("libopenblas",)) is None
    assert read.mapped_library(MAPS, ("python3",)) is None  # not a shared library
    assert read.mapped_library("", ("libcublas",)) is None


def test_the_driver_version_is_read_from_smi_proc_and_libcuda() -> None:
    assert read.nvidia_smi_driver("580.159.04\n580.159.04\n") == "580.159.04"
    assert read.nvidia_smi_driver("\n") is None
    assert read.nvidia_smi_driver("NVIDIA-SMI has failed because it couldn't communicate") is None
    assert read.proc_driver_version(PROC_DRIVER) == "580.159.04"
    assert read.proc_driver_version(PROC_DRIVER_CLOSED) == "550.54.15"
    assert read.proc_driver_version("GCC version:  gcc version 15.3.0 (GCC)\n") is None
    assert read.libcuda_driver_version("/usr/lib64/libcuda.so.580.159.04") == "580.159.04"
    assert read.libcuda_driver_version("/usr/lib64/libcuda.so.1") is None


def test_cuda_and_cudnn_numbers_become_version_text() -> None:
    assert read.cuda_version_text(13000) == "13.0"
    assert read.cuda_version_text(12080) == "12.8"
    assert read.cuda_version_text(11020) == "11.2"
    assert read.cuda_version_text(0) is None
    assert read.cudnn_version_text(91900) == "9.19.0"
    assert read.cudnn_version_text(90100) == "9.1.0"
    assert read.cudnn_version_text(8907) == "8.9.7"
    assert read.cudnn_version_text(-1) is None


# --- the probes, without a GPU ------------------------------------------------------------------


def test_a_failing_probe_gives_none() -> None:
    def broken() -> str:
        raise RuntimeError("CUDA driver initialization failed")

    assert env._safely(broken) is None
    assert env._safely(lambda: "13.0") == "13.0"
    assert env._c_int("/nonexistent/libcudart.so.13", "cudaRuntimeGetVersion") is None


def test_a_missing_or_hanging_tool_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    assert env._output(["/nonexistent/nvidia-smi", "--version"]) is None
    assert env._output([sys.executable, "-c", "raise SystemExit(3)"]) is None
    monkeypatch.setattr(env, "_TIMEOUT_S", 0.5)
    assert env._output([sys.executable, "-c", "import time; time.sleep(30)"]) is None
    assert env._output([sys.executable, "-c", "print('ok')"]) == "ok\n"


def test_the_driver_falls_back_from_smi_to_proc_to_libcuda(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = {"/proc/driver/nvidia/version": PROC_DRIVER_CLOSED}
    monkeypatch.setattr(env.shutil, "which", lambda _name: None)
    monkeypatch.setattr(env, "_read", lambda path: files.get(path, ""))
    assert env._driver("") == "550.54.15"
    files.clear()
    assert env._driver(MAPS) == "580.159.04"
    assert env._driver("") is None


def _fake_torch(*, props: object, cudnn: int | None) -> ModuleType:
    torch = ModuleType("torch")

    def properties(index: int) -> object:
        if isinstance(props, Exception):
            raise props
        assert index == 0
        return props

    torch.cuda = SimpleNamespace(get_device_properties=properties)  # type: ignore[attr-defined]
    torch.backends = SimpleNamespace(  # type: ignore[attr-defined]
        cudnn=SimpleNamespace(version=lambda: cudnn)
    )
    return torch


def test_gpu_fields_come_from_the_device_and_its_libraries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(env, "_driver", lambda _maps: "580.159.04")
    monkeypatch.setattr(
        env,
        "_c_int",
        lambda _path, function, *args: {
            "cudaRuntimeGetVersion": 13000,
            "cublasGetProperty": (13, 1, 0)[args[0]] if args else None,
        }[function],
    )
    monkeypatch.setattr(env, "_triton_ptxas", lambda arch: f"/venv/torch/bin/ptxas-for-{arch}")
    monkeypatch.setattr(env, "_version_line", lambda argv, **_: f"release of {argv[0]}")
    props = SimpleNamespace(name="NVIDIA H200", major=9, minor=0)
    fields = env._gpu(_fake_torch(props=props, cudnn=91900), MAPS)
    assert fields == {
        "gpu_name": "NVIDIA H200",
        "compute_capability": "9.0",
        "cuda_driver": "580.159.04",
        "cuda_runtime": "13.0",
        "cuda_runtime_path": "/venv/nvidia/cu13/lib/libcudart.so.13",
        "cublas": "13.1.0",
        "cublas_path": "/venv/nvidia/cu13/lib/libcublas.so.13",
        "cudnn": "9.19.0",
        "ptxas": "release of /venv/torch/bin/ptxas-for-90",
        "ptxas_path": "/venv/torch/bin/ptxas-for-90",
    }
    Versions.model_validate(
        {"python": "3.12.3", "python_implementation": "cpython"}
        | {"torch": "2.11.0+cu130", "platform": "Linux", **fields}
    )


def test_gpu_fields_are_none_where_the_device_cannot_be_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(env, "_driver", lambda _maps: None)
    monkeypatch.setattr(env, "_distribution", lambda *_names: None)
    broken = _fake_torch(props=RuntimeError("no CUDA GPUs are available"), cudnn=None)
    fields = env._gpu(broken, "")
    assert set(fields.values()) == {None}


def _fake_triton(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **modules: object) -> Path:
    """Install a fake ``triton`` package with the given submodules; return its folder."""
    folder = tmp_path / "triton"
    triton = ModuleType("triton")
    triton.__spec__ = importlib.machinery.ModuleSpec(
        "triton", None, origin=str(folder / "__init__.py")
    )
    monkeypatch.setitem(sys.modules, "triton", triton)
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    return folder


def test_the_ptxas_is_the_one_triton_runs_in_each_triton_generation(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    compiler = ModuleType("triton.backends.nvidia.compiler")
    # Triton 3.4 and later: get_ptxas(arch) returns a tool; Blackwell has its own ptxas.
    compiler.get_ptxas = lambda arch: SimpleNamespace(  # type: ignore[attr-defined]
        path="/t/ptxas-blackwell" if arch >= 100 else "/torch/bin/ptxas"
    )
    _fake_triton(monkeypatch, tmp_path, **{"triton.backends.nvidia.compiler": compiler})
    assert env._triton_ptxas(90) == "/torch/bin/ptxas"
    assert env._triton_ptxas(100) == "/t/ptxas-blackwell"
    # Triton 3.3: no argument; older Triton: a (path, version) pair.
    compiler.get_ptxas = lambda: SimpleNamespace(path="/t/ptxas")  # type: ignore[attr-defined]
    assert env._triton_ptxas(90) == "/t/ptxas"
    compiler.get_ptxas = lambda _arch: ("/t/old-ptxas", "12.4")  # type: ignore[attr-defined]
    assert env._triton_ptxas(90) == "/t/old-ptxas"


def test_the_ptxas_falls_back_to_the_knobs_then_to_the_bundled_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    knobs = ModuleType("triton.knobs")
    knobs.nvidia = SimpleNamespace(  # type: ignore[attr-defined]
        ptxas=SimpleNamespace(path="/knob/ptxas")
    )
    folder = _fake_triton(monkeypatch, tmp_path, **{"triton.knobs": knobs})
    monkeypatch.setitem(sys.modules, "triton.backends.nvidia.compiler", None)  # not importable
    assert env._triton_ptxas(90) == "/knob/ptxas"
    monkeypatch.setitem(sys.modules, "triton.knobs", None)
    assert env._triton_ptxas(90) is None
    bundled = folder / "backends" / "nvidia" / "bin" / "ptxas"
    bundled.parent.mkdir(parents=True)
    bundled.write_text("", encoding="utf-8")
    assert env._triton_ptxas(90) == str(bundled)


# --- the real probes on this machine ------------------------------------------------------------


@pytest.fixture(scope="module")
def here() -> Versions:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("these checks are for a machine without CUDA")
    return env.versions()


def test_this_machine_records_its_cpu_blas_and_openmp(here: Versions) -> None:
    import torch  # noqa: PLC0415 - the fixture skipped the test without torch

    assert here.torch == torch.__version__
    assert here.cpu_model
    assert here.cpu_capability == torch.backends.cpu.get_cpu_capability()
    assert here.blas == read.build_setting(torch.__config__.show(), "BLAS_INFO")
    assert here.blas is not None
    assert here.lapack == read.build_setting(torch.__config__.show(), "LAPACK_INFO")
    assert here.parallel_backend == read.parallel_backend(torch.__config__.parallel_info())
    assert here.parallel_backend is not None
    assert here.openmp == read.openmp_line(torch.__config__.parallel_info())
    if platform.machine() in ("x86_64", "AMD64") and Path("/proc/cpuinfo").exists():
        assert here.cpu_isa
        assert set(here.cpu_isa) <= set(read.ISA_FLAGS)
    if here.openmp is not None and Path("/proc/self/maps").exists():
        assert here.openmp_library is not None
        assert Path(here.openmp_library).is_file()


def test_this_machine_records_no_gpu_fields_without_cuda(here: Versions) -> None:
    gpu = (
        "gpu_name",
        "compute_capability",
        "cuda_driver",
        "cuda_runtime",
        "cuda_runtime_path",
        "cublas",
        "cublas_path",
        "cudnn",
        "ptxas",
        "ptxas_path",
    )
    assert {name: getattr(here, name) for name in gpu} == dict.fromkeys(gpu)
    assert env.versions(cuda=False).gpu_name is None


def test_the_compiler_is_recorded_with_its_path_or_as_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv("CXX", "no-such-compiler-xyz")
    missing = env.versions(cuda=False)
    assert (missing.cxx_compiler, missing.cxx_compiler_path) == (None, None)
    if shutil.which("g++") is None:
        pytest.skip("no g++ here")
    monkeypatch.setenv("CXX", "g++")
    found = env.versions(cuda=False)
    assert found.cxx_compiler_path == shutil.which("g++")
    assert found.cxx_compiler


def test_versions_without_proc_still_name_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    monkeypatch.setattr(env, "_read", lambda _path: "")
    versions = env.versions(cuda=False)
    assert versions.cpu_isa is None
    assert versions.openmp_library is None
    assert versions.cpu_model == (platform.processor() or platform.machine())


# --- the model ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["raw-cpu.json", "raw-nvidia-h200.json"])
def test_raw_runs_recorded_before_these_fields_still_load(name: str) -> None:
    raw = RawRun.model_validate_json((FIXTURES / name).read_text(encoding="utf-8"))
    assert raw.versions.torch.startswith("2.")
    assert raw.versions.ptxas is None
    assert raw.versions.cpu_isa is None
    assert raw.versions.compute_capability is None


def test_shipped_records_still_load() -> None:
    paths = sorted((ROOT / "dataset" / "witness").glob("*.json"))
    assert paths
    for path in paths:
        assert load_record(path).versions.python


def test_compute_capability_must_be_major_dot_minor() -> None:
    base = {
        "python": "3.12.3",
        "python_implementation": "cpython",
        "torch": "2.11",
        "platform": "L",
    }
    assert Versions.model_validate(base | {"compute_capability": "9.0"}).compute_capability == "9.0"
    with pytest.raises(ValidationError, match="compute_capability"):
        Versions.model_validate(base | {"compute_capability": "sm_90"})
    with pytest.raises(ValidationError, match="gpu_model"):
        Versions.model_validate(base | {"gpu_model": "H200"})


def test_rdf_names_software_versions_only() -> None:
    record = load_record(min((ROOT / "dataset" / "witness").glob("*gpu*.json")))
    versions = record.versions.model_copy(
        update={
            "ptxas": "Cuda compilation tools, release 13.0, V13.0.88",
            "ptxas_path": "/venv/torch/bin/ptxas",
            "cublas": "13.1.0",
            "cpu_isa": ("avx2", "avx512f"),
            "gpu_name": "NVIDIA H200",
            "cxx_compiler_path": "/usr/bin/g++",
        }
    )
    trig = to_trig(record.model_copy(update={"versions": versions}))
    assert "#software-ptxas>" in trig
    assert "#software-cublas>" in trig
    assert "release 13.0, V13.0.88" in trig
    for absent in ("software-ptxas-path", "software-cpu-isa", "software-gpu-name", "/usr/bin/g++"):
        assert absent not in trig
    assert json.loads(versions.model_dump_json())["cpu_isa"] == ["avx2", "avx512f"]
