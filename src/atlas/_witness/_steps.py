"""The steps of the PyTorch atlas that a witness run can show, with their conditions.

Each :class:`StepSpec` names an atlas step, its two stages, the modes and devices the atlas
documents it for, and what the witness looks for to show it. ``observe.py`` pairs each with a
probe; the specs themselves read nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["STEPS", "StepSpec", "mode_name"]

_ANY_MODE = frozenset({"eager", "torch-compile"})
_ANY_DEVICE = frozenset({"cpu", "nvidia-gpu"})
_COMPILE = frozenset({"torch-compile"})
_EAGER = frozenset({"eager"})
_CPU = frozenset({"cpu"})
_GPU = frozenset({"nvidia-gpu"})


def mode_name(mode: str) -> str:
    """The mode as people write it: 'eager' or 'torch.compile'."""
    return "torch.compile" if mode == "torch-compile" else mode


@dataclass(frozen=True)
class StepSpec:
    """An atlas step as the witness knows it: its stages, conditions and what shows it."""

    id: str
    from_stage: str
    to_stage: str
    modes: frozenset[str]
    devices: frozenset[str]
    looked_for: str
    needs_compiled_code: bool = False

    def applies(self, mode: str, device: str) -> bool:
        """Whether the atlas documents the step for ``mode`` on ``device``."""
        return mode in self.modes and device in self.devices


STEPS: tuple[StepSpec, ...] = (
    StepSpec(
        "pytorch-model-code-runs-in-cpython",
        "model-code",
        "cpython",
        _ANY_MODE,
        _ANY_DEVICE,
        "a CPython interpreter running the model",
    ),
    StepSpec(
        "pytorch-cpython-calls-aten-dispatch",
        "cpython",
        "aten-dispatch",
        _EAGER,
        _ANY_DEVICE,
        "aten operators called from Python (dispatch mode, profiler)",
    ),
    StepSpec(
        "pytorch-dispatch-to-aten-cpu",
        "aten-dispatch",
        "aten-cpu-kernels",
        _EAGER,
        _CPU,
        "aten operators on CPU tensors with a CPU kernel in the dispatcher's table",
    ),
    StepSpec(
        "pytorch-dispatch-to-aten-cuda",
        "aten-dispatch",
        "aten-cuda-kernels",
        _EAGER,
        _GPU,
        "aten operators on CUDA tensors with a CUDA kernel in the dispatcher's table",
    ),
    StepSpec(
        "pytorch-aten-cpu-runs-on-cpu",
        "aten-cpu-kernels",
        "cpu",
        _ANY_MODE,
        _CPU,
        "aten operators the profiler timed on the CPU",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-aten-cuda-launched-on-gpu",
        "aten-cuda-kernels",
        "nvidia-gpu",
        _ANY_MODE,
        _GPU,
        "non-Triton CUDA kernels (cuBLAS, ATen) in the profiler",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-cpython-intercepted-by-dynamo",
        "cpython",
        "torchdynamo",
        _COMPILE,
        _ANY_DEVICE,
        "frames Dynamo converted (counters)",
    ),
    StepSpec(
        "pytorch-dynamo-captures-fx-graph",
        "torchdynamo",
        "fx-graph",
        _COMPILE,
        _ANY_DEVICE,
        "GraphModules handed to the recording backend",
    ),
    StepSpec(
        "pytorch-fx-graph-compiled-by-inductor",
        "fx-graph",
        "torchinductor",
        _COMPILE,
        _ANY_DEVICE,
        "output modules Inductor generated",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-inductor-generates-cpp-openmp",
        "torchinductor",
        "cpp-openmp-kernels",
        _COMPILE,
        _CPU,
        "cpp_fused_* kernels with '#pragma omp' in the generated code",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-inductor-generates-triton",
        "torchinductor",
        "triton-kernels",
        _COMPILE,
        _GPU,
        "@triton.jit kernels in the generated code",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-inductor-falls-back-to-aten-cpu",
        "torchinductor",
        "aten-cpu-kernels",
        _COMPILE,
        _CPU,
        "extern_kernels.* or aten calls in the generated wrapper",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-inductor-keeps-aten-cuda",
        "torchinductor",
        "aten-cuda-kernels",
        _COMPILE,
        _GPU,
        "extern_kernels.* or aten calls in the generated wrapper",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-cpp-openmp-runs-on-cpu",
        "cpp-openmp-kernels",
        "cpu",
        _COMPILE,
        _CPU,
        "a C++ compile with -fopenmp and the kernels running (profiler, loaded libraries)",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-triton-kernels-compiled-by-triton",
        "triton-kernels",
        "triton-compiler",
        _COMPILE,
        _GPU,
        "Triton IR (.ttir, .ttgir) in the Triton cache",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-triton-lowers-to-llvm-ir",
        "triton-compiler",
        "llvm-ir",
        _COMPILE,
        _GPU,
        "LLVM IR (.llir) in the Triton cache",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-llvm-ir-lowers-to-ptx",
        "llvm-ir",
        "ptx",
        _COMPILE,
        _GPU,
        "PTX (.ptx with .target) in the Triton cache",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-ptx-translated-to-sass",
        "ptx",
        "gpu-machine-code",
        _COMPILE,
        _GPU,
        "a .cubin, the ptxas command and its SASS",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-machine-code-launched-on-gpu",
        "gpu-machine-code",
        "nvidia-gpu",
        _COMPILE,
        _GPU,
        "Triton kernels in the profiler's CUDA events",
        needs_compiled_code=True,
    ),
)
"""The steps of the PyTorch atlas that a witness run can show, in atlas order."""
