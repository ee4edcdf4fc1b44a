"""The parsers of private text formats, on artifacts recorded from real runs (no torch needed)."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest

from atlas._witness import parse

FIXTURES = Path(__file__).parent / "fixtures" / "witness"
KERNEL = "triton_per_fused_addmm_gelu_native_layer_norm_0"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_doctests_of_parse_pass() -> None:
    failures, tried = doctest.testmod(parse)
    assert tried > 0
    assert failures == 0


def test_cpu_output_module_has_openmp_cpp_kernels_and_an_aten_fallback() -> None:
    code = read("cpu-output-module.py.txt")
    assert parse.is_wrapper_module(code)
    names = [k.name for k in parse.cpp_kernels(code)]
    assert "cpp_fused_gelu_native_layer_norm_0" in names
    assert all(k.language == "C++" for k in parse.cpp_kernels(code))
    assert "#pragma omp parallel" in parse.omp_pragmas(code)
    assert "extern_kernels.addmm" in parse.extern_kernel_calls(code)
    assert parse.triton_kernels(code) == ()


def test_cuda_output_module_has_triton_kernels_and_keeps_a_cublas_matmul() -> None:
    code = read("cuda-output-module.py.txt")
    assert parse.is_wrapper_module(code)
    names = [k.name for k in parse.triton_kernels(code)]
    assert KERNEL in names
    assert "@triton.jit" in code
    assert "extern_kernels.mm" in parse.extern_kernel_calls(code)
    assert parse.cpp_kernels(code) == ()
    assert parse.omp_pragmas(code) == ()


def test_triton_intermediate_files_name_the_kernel_and_the_hopper_target() -> None:
    assert parse.ttir_functions(read(f"{KERNEL}.ttir.head.txt")) == (KERNEL,)
    assert parse.ttgir_target(read(f"{KERNEL}.ttgir.head.txt")) == "cuda:90"
    llir = parse.llir_summary(read(f"{KERNEL}.llir.head.txt"))
    assert llir.kernels == (KERNEL,)
    assert llir.nvvm
    ptx = parse.ptx_header(read(f"{KERNEL}.ptx.head.txt"))
    assert (ptx.version, ptx.target) == ("9.0", "sm_90a")


def test_sass_head_shows_sm90a_machine_code() -> None:
    sass = parse.sass_summary(read(f"{KERNEL}.sass.head.txt"))
    assert sass.architectures == ("sm_90a",)
    assert sass.functions == (KERNEL,)
    assert sass.instructions[0].startswith("LDC R1")


def test_profiler_kernel_names_split_into_gemm_triton_and_copies() -> None:
    names = read("cuda-profiler-kernels.txt").splitlines()
    gemms = [n for n in names if parse.is_gemm_kernel(n)]
    triton = [n for n in names if parse.is_triton_kernel(n)]
    assert any("cublas" in n for n in gemms)
    assert any("cutlass" in n for n in gemms)
    assert KERNEL in triton
    assert not parse.is_gpu_kernel("Memcpy DtoH (Device -> Pinned)")
    assert not any(parse.is_gemm_kernel(n) for n in triton)


def test_graph_breaks_and_frames_from_recorded_dynamo_counters() -> None:
    raw = json.loads(read("raw-cpu.json"))
    counters = next(m for m in raw["modes"] if m["mode"] == "torch-compile")["dynamo_counters"]
    breaks = parse.graph_breaks(counters)
    assert breaks == (("Unsupported Tensor.item() call with capture_scalar_outputs=False", 1),)
    total, converted, graphs = parse.dynamo_frames(counters)
    assert total >= converted >= 1
    assert graphs == 2


def test_compiler_calls_from_recorded_commands() -> None:
    for name, compiler in (("raw-cpu.json", "g++"), ("raw-nvidia-h200.json", "ptxas")):
        raw = json.loads(read(name))
        commands = next(m for m in raw["modes"] if m["mode"] == "torch-compile")["commands"]
        calls = [c for c in parse.compiler_calls(commands) if c.compiler == compiler]
        assert calls, name
        if compiler == "g++":
            assert any(c.openmp and (c.output or "").endswith(".so") for c in calls)
        else:
            assert {c.gpu_arch for c in calls} == {"sm_90a"}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["g++", "--version"], 0),
        (["openssl", "sha512", "x.i"], 0),
        (["gcc", "/t/cuda_utils.c", "-O3", "-shared", "-o", "/t/cuda_utils.so"], 1),
        (["clang++-17", "k.cpp", "-fopenmp", "-o", "k.so"], 1),
    ],
)
def test_compiler_calls_keep_only_compilations(argv: list[str], expected: int) -> None:
    assert len(parse.compiler_calls([argv])) == expected


def test_triton_kernel_files_group_by_kernel_and_skip_group_files() -> None:
    paths = ["triton/H/__grp__k.json", "triton/H/k.ptx", "triton/H/k.cubin", "inductor/a/b.py"]
    (kernel,) = parse.triton_kernel_files(paths)
    assert kernel.kernel == "k"
    assert set(kernel.files) == {".ptx", ".cubin"}
