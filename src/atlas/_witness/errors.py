"""Errors of the witness.

They subclass :class:`atlas.AtlasError` and the built-in exceptions that fit.
"""

from __future__ import annotations

from atlas.errors import AtlasError

__all__ = ["TorchNotInstalledError", "WitnessError", "WitnessRunError", "WitnessValueError"]

INSTALL_HINT = (
    "install it with: pip install 'execution-atlas[witness]' "
    "(for the smaller CPU-only build: pip install torch --index-url https://download.pytorch.org/whl/cpu)"
)


class WitnessError(AtlasError):
    """Base class of the witness's errors."""


class TorchNotInstalledError(WitnessError, ImportError):
    """PyTorch, which the witness runs, is not installed."""

    def __init__(self) -> None:
        super().__init__(f"the witness runs PyTorch, which is not installed; {INSTALL_HINT}")


class WitnessRunError(WitnessError, RuntimeError):
    """The child process that runs the model failed or wrote no usable result."""


class WitnessValueError(WitnessError, ValueError):
    """An unknown mode or device; the message lists the valid ones."""
