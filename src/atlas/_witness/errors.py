"""Errors of the witness.

They subclass :class:`atlas.AtlasError` and the built-in exceptions that fit.
"""

from __future__ import annotations

from atlas.errors import AtlasError, CouldNotRunError

__all__ = [
    "CudaUnavailableError",
    "ModelSpecError",
    "TorchNotInstalledError",
    "WitnessError",
    "WitnessRunError",
    "WitnessValueError",
]

INSTALL_HINT = (
    "install it with: pip install 'execution-atlas[witness]' "
    "(for the smaller CPU-only build: pip install torch --index-url https://download.pytorch.org/whl/cpu)"
)


class WitnessError(AtlasError):
    """Base class of the witness's errors."""


class TorchNotInstalledError(WitnessError, CouldNotRunError, ImportError):
    """PyTorch, which the witness runs, is not installed (it could not run here: exit status 3)."""

    def __init__(self) -> None:
        super().__init__(f"the witness runs PyTorch, which is not installed; {INSTALL_HINT}")


class CudaUnavailableError(WitnessError, CouldNotRunError, RuntimeError):
    """``--device cuda`` where the installed PyTorch sees no CUDA GPU (exit status 3)."""

    def __init__(self) -> None:
        super().__init__(
            "--device cuda: the installed PyTorch sees no CUDA GPU (torch.cuda.is_available() is"
            " False: a CPU-only build, or no GPU or driver here); run with --device cpu, or"
            " install a CUDA build of PyTorch"
        )


class WitnessRunError(WitnessError, CouldNotRunError, RuntimeError):
    """The child process that runs the model failed or wrote no usable result (exit status 3)."""


class ModelSpecError(WitnessError, CouldNotRunError, ValueError):
    """``--model``/``--inputs`` names no usable factory, or the factory failed (exit status 3)."""


class WitnessValueError(WitnessError, ValueError):
    """An unknown mode or device; the message lists the valid ones."""
