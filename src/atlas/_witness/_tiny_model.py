"""The tiny model the witness runs: what it is, and how the collector builds it with torch.

A Linear/GELU/LayerNorm/Linear block, large enough for Inductor to generate OpenMP loops on the
CPU and fused Triton kernels on the GPU, followed by a deliberate graph break
(``Tensor.item()``) so that a compiled run shows Dynamo handing a frame back to CPython.
Imported by ``collect.py`` only; torch is imported inside :func:`build_model`.
"""

# torch is imported inside the function only, so that importing this module stays cheap.
# ruff: noqa: PLC0415

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

__all__ = ["BLOCK", "MODEL", "build_block", "build_model"]

MODEL = (
    "Linear(256->512) -> GELU -> LayerNorm(512) -> Linear(512->256) on a 64x256 batch, "
    "then a Tensor.item() graph break and mul/relu"
)
"""The model, in words, as the raw run records it."""
BLOCK = (
    "Linear(256->512) -> GELU -> LayerNorm(512) -> Linear(512->256) on a 64x256 batch "
    "(the tiny model without its graph break: torch.export captures whole graphs only)"
)
"""The model that AOTInductor runs, in words."""


def build_block(torch_device: str) -> tuple[Any, Any]:
    """Return the block (an ``nn.Module``, as torch.export wants) and its input."""
    import torch

    torch.manual_seed(0)
    model = _block_class()().to(torch_device).eval()
    return model, torch.randn(64, 256, device=torch_device)


def build_model(torch_device: str) -> tuple[Callable[[Any], Any], Any]:
    """Return the function with a deliberate graph break, and its input."""
    import torch

    torch.manual_seed(0)
    model = _block_class()().to(torch_device).eval()

    def run_model(x: torch.Tensor) -> torch.Tensor:
        y = model(x)
        if y.sum().item() > 0:  # Tensor.item(): a deliberate graph break
            y = y * 2
        return torch.relu(y)

    return run_model, torch.randn(64, 256, device=torch_device)


def _block_class() -> type[Any]:
    from torch import nn

    class TinyModel(nn.Module):
        """Linear -> GELU -> LayerNorm -> Linear, large enough for OpenMP loops."""

        def __init__(self) -> None:
            super().__init__()
            self.fc1 = nn.Linear(256, 512)
            self.act = nn.GELU()
            self.norm = nn.LayerNorm(512)
            self.fc2 = nn.Linear(512, 256)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out: torch.Tensor = self.fc2(self.norm(self.act(self.fc1(x))))
            return out

    return TinyModel
