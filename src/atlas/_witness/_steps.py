"""The steps of the PyTorch atlas that a witness run can show, with their conditions.

Each :class:`StepSpec` names an atlas step, its two stages, the modes and devices the atlas
documents it for, and what the witness looks for to show it. ``observe.py`` pairs each with a
probe; the specs themselves read nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PLUS_STEP_IDS", "STEPS", "StepSpec", "mode_name"]

# The steps of issue 24 (reduce-overhead, AOTInductor) are in the curator's draft, not yet in the
# dataset: until they are, `atlas path` knows neither mode, and the comparison says so.

_ANY_MODE = frozenset({"eager", "torch-compile", "reduce-overhead", "aotinductor"})
_ANY_DEVICE = frozenset({"cpu", "nvidia-gpu"})
_COMPILE = frozenset({"torch-compile"})
_DYNAMO = frozenset({"torch-compile", "reduce-overhead"})  # torch.compile, either mode
_TRITON = frozenset({"torch-compile", "reduce-overhead", "aotinductor"})
_RO = frozenset({"reduce-overhead"})
_AOTI = frozenset({"aotinductor"})
_NO_PATH = frozenset({("reduce-overhead", "cpu")})
"""Modes and devices with no path: CUDA graphs record and replay work on a CUDA device only."""
_NAMES = {
    "torch-compile": "torch.compile",
    "reduce-overhead": "torch.compile (reduce-overhead)",
    "aotinductor": "AOTInductor",
}
_EAGER = frozenset({"eager"})
_CPU = frozenset({"cpu"})
_GPU = frozenset({"nvidia-gpu"})


def mode_name(mode: str) -> str:
    """The mode as people write it: 'eager', 'torch.compile', 'AOTInductor', ...

    >>> mode_name("reduce-overhead")
    'torch.compile (reduce-overhead)'
    """
    return _NAMES.get(mode, mode)


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
        if (mode, device) in _NO_PATH:
            return False
        return mode in self.modes and device in self.devices


_PLUS_STEPS: tuple[StepSpec, ...] = (
    StepSpec(
        "pytorch-inductor-wraps-graph-in-cudagraph-trees",
        "torchinductor",
        "cudagraph-trees",
        _RO,
        _GPU,
        "Inductor's counters and cudagraphs log: compiled graphs handed on, none skipped",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-cudagraph-trees-records-cuda-graph",
        "cudagraph-trees",
        "cuda-graph",
        _RO,
        _GPU,
        "a stream capture and a graph instantiated (cudaStreamBeginCapture, cudaGraphInstantiate)",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-machine-code-recorded-into-cuda-graph",
        "gpu-machine-code",
        "cuda-graph",
        _RO,
        _GPU,
        "Triton kernels launched while a stream capture was under way",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-aten-cuda-recorded-into-cuda-graph",
        "aten-cuda-kernels",
        "cuda-graph",
        _RO,
        _GPU,
        "library (cuBLAS) kernels launched while a stream capture was under way",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-cuda-graph-replayed-on-gpu",
        "cuda-graph",
        "nvidia-gpu",
        _RO,
        _GPU,
        "cudaGraphLaunch in a later call, with the graph's kernels on the GPU",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-cpython-traced-by-torch-export",
        "cpython",
        "torch-export",
        _AOTI,
        _ANY_DEVICE,
        "torch.export.export tracing the model",
    ),
    StepSpec(
        "pytorch-torch-export-produces-exported-program",
        "torch-export",
        "exported-program",
        _AOTI,
        _ANY_DEVICE,
        "an ExportedProgram whose graph calls aten operators",
    ),
    StepSpec(
        "pytorch-exported-program-compiled-by-aoti",
        "exported-program",
        "torchinductor",
        _AOTI,
        _ANY_DEVICE,
        "Inductor's C++ wrapper (and kernel) sources in the cache",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-inductor-builds-aoti-package",
        "torchinductor",
        "aoti-package",
        _AOTI,
        _ANY_DEVICE,
        "a .pt2 package holding a shared library",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-machine-code-stored-in-aoti-package",
        "gpu-machine-code",
        "aoti-package",
        _AOTI,
        _GPU,
        ".cubin files among the package's members",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-cpp-kernels-compiled-into-aoti-package",
        "cpp-openmp-kernels",
        "aoti-package",
        _AOTI,
        _CPU,
        "a C++ compile of Inductor's kernel source with -fopenmp (audit hook)",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-aoti-package-loaded-by-runner",
        "aoti-package",
        "aoti-runner",
        _AOTI,
        _ANY_DEVICE,
        "the package's shared library mapped into the process once loaded (/proc/self/maps)",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-cpython-calls-aoti-runner",
        "cpython",
        "aoti-runner",
        _AOTI,
        _ANY_DEVICE,
        "calls of the loaded model with no Dynamo frame evaluated (counters, profiler)",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-aoti-runner-launches-on-gpu",
        "aoti-runner",
        "nvidia-gpu",
        _AOTI,
        _GPU,
        "CUDA kernels in the profiler of a call of the loaded model",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-aoti-runner-runs-on-cpu",
        "aoti-runner",
        "cpu",
        _AOTI,
        _CPU,
        "CPU time in the profiler of a call of the loaded model",
        needs_compiled_code=True,
    ),
)
"""The steps of issue 24's draft (reduce-overhead, AOTInductor), not yet in the dataset."""


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
        _EAGER | _COMPILE,
        _CPU,
        "aten operators the profiler timed on the CPU",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-aten-cuda-launched-on-gpu",
        "aten-cuda-kernels",
        "nvidia-gpu",
        _EAGER | _DYNAMO,
        _GPU,
        "non-Triton CUDA kernels (cuBLAS, ATen) in the profiler",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-cpython-intercepted-by-dynamo",
        "cpython",
        "torchdynamo",
        _DYNAMO,
        _ANY_DEVICE,
        "frames Dynamo converted (counters)",
    ),
    StepSpec(
        "pytorch-dynamo-captures-fx-graph",
        "torchdynamo",
        "fx-graph",
        _DYNAMO,
        _ANY_DEVICE,
        "GraphModules handed to the recording backend",
    ),
    StepSpec(
        "pytorch-fx-graph-compiled-by-inductor",
        "fx-graph",
        "torchinductor",
        _DYNAMO,
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
        _DYNAMO,
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
        _DYNAMO,
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
        _TRITON,
        _GPU,
        "Triton IR (.ttir, .ttgir) in the Triton cache",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-triton-lowers-to-llvm-ir",
        "triton-compiler",
        "llvm-ir",
        _TRITON,
        _GPU,
        "LLVM IR (.llir) in the Triton cache",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-llvm-ir-lowers-to-ptx",
        "llvm-ir",
        "ptx",
        _TRITON,
        _GPU,
        "PTX (.ptx with .target) in the Triton cache",
        needs_compiled_code=True,
    ),
    StepSpec(
        "pytorch-ptx-translated-to-sass",
        "ptx",
        "gpu-machine-code",
        _TRITON,
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
    *_PLUS_STEPS,
)
"""The steps of the PyTorch atlas that a witness run can show, in atlas order."""
PLUS_STEP_IDS = frozenset(spec.id for spec in _PLUS_STEPS)
"""The ids of the draft's steps: records naming them wait for the steps to be in the dataset."""
