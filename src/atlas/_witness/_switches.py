"""Settings of the environment that stop a run from leaving the evidence of some steps.

When one is set, a documented step without evidence was not contradicted by the run: the run
could not look. Such a step is reported as not checked, naming the setting, and the record says
that the run could not observe it (``atlas witness`` then exits with status 3).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["SWITCHES", "Switch", "active"]

_TRITON_FILES = frozenset(
    {
        "pytorch-triton-kernels-compiled-by-triton",
        "pytorch-triton-lowers-to-llvm-ir",
        "pytorch-llvm-ir-lowers-to-ptx",
    }
)
_COMPILED = frozenset(
    {
        "pytorch-cpython-intercepted-by-dynamo",
        "pytorch-dynamo-captures-fx-graph",
        "pytorch-fx-graph-compiled-by-inductor",
        "pytorch-inductor-generates-cpp-openmp",
        "pytorch-inductor-generates-triton",
        "pytorch-inductor-falls-back-to-aten-cpu",
        "pytorch-inductor-keeps-aten-cuda",
        "pytorch-cpp-openmp-runs-on-cpu",
        *_TRITON_FILES,
        "pytorch-ptx-translated-to-sass",
        "pytorch-machine-code-launched-on-gpu",
    }
)
_WRAPPER = frozenset(
    {
        "pytorch-fx-graph-compiled-by-inductor",
        "pytorch-inductor-generates-cpp-openmp",
        "pytorch-inductor-generates-triton",
        "pytorch-inductor-falls-back-to-aten-cpu",
        "pytorch-inductor-keeps-aten-cuda",
    }
)


@dataclass(frozen=True)
class Switch:
    """An environment variable that, when set to a true value, hides some steps' evidence."""

    name: str
    effect: str  # what it does, in words
    steps: frozenset[str]  # the steps whose evidence it hides


SWITCHES: tuple[Switch, ...] = (
    Switch(
        "TRITON_STORE_BINARY_ONLY",
        "Triton keeps only the compiled binaries in its cache, not the Triton IR, LLVM IR or PTX",
        _TRITON_FILES,
    ),
    Switch(
        "TORCH_COMPILE_DISABLE", "torch.compile does nothing: the model runs eagerly", _COMPILED
    ),
    Switch("TORCHDYNAMO_DISABLE", "Dynamo is turned off: the model runs eagerly", _COMPILED),
    Switch(
        "TORCHINDUCTOR_CPP_WRAPPER",
        "Inductor writes its wrapper in C++, not the Python output module the witness reads",
        _WRAPPER,
    ),
)
"""The settings the witness knows of."""

_FALSE = frozenset({"", "0", "false", "no", "off"})


def active(environment: Mapping[str, str]) -> tuple[Switch, ...]:
    """The switches that ``environment`` (the run's recorded variables) turns on.

    >>> [s.name for s in active({"TRITON_STORE_BINARY_ONLY": "1", "TORCHDYNAMO_DISABLE": "0"})]
    ['TRITON_STORE_BINARY_ONLY']
    """
    return tuple(s for s in SWITCHES if environment.get(s.name, "").strip().lower() not in _FALSE)
