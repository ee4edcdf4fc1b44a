"""Models for ``atlas witness --model tests/witness_models.py:<factory>`` (and its tests).

``transformer_block`` is a realistic small model written in plain torch: a pre-norm transformer
block (causal self-attention and a GELU MLP) with a deliberate graph break between them
(``Tensor.item()`` in a data-dependent branch). The other factories exercise the ways a
factory can be written, or be wrong.
"""

# torch is imported inside the factories, so that collecting this module needs no torch.
# ruff: noqa: PLC0415

from __future__ import annotations

from typing import Any

DIM = 64
HEADS = 4


def _block() -> Any:
    import torch
    from torch import nn
    from torch.nn import functional

    class TransformerBlock(nn.Module):
        """Pre-norm block: x + attention(norm(x)), then x + mlp(norm(x))."""

        def __init__(self, dim: int = DIM, heads: int = HEADS) -> None:
            super().__init__()
            self.heads = heads
            self.norm1 = nn.LayerNorm(dim)
            self.qkv = nn.Linear(dim, 3 * dim)
            self.proj = nn.Linear(dim, dim)
            self.norm2 = nn.LayerNorm(dim)
            self.fc1 = nn.Linear(dim, 4 * dim)
            self.fc2 = nn.Linear(4 * dim, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            batch, tokens, dim = x.shape
            q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
            shape = (batch, tokens, self.heads, dim // self.heads)
            q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
            attended = functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(attended.transpose(1, 2).reshape(batch, tokens, dim))
            if x.abs().max().item() > 1e4:  # a deliberate graph break: Tensor.item()
                x = x / 1e4
            out: torch.Tensor = x + self.fc2(functional.gelu(self.fc1(self.norm2(x))))
            return out

    torch.manual_seed(0)
    return TransformerBlock()


def transformer_block(device: str = "cpu") -> tuple[Any, tuple[Any, ...]]:
    """The block and a batch of 4 sequences of 32 tokens (on ``device``)."""
    import torch

    torch.manual_seed(0)
    return _block(), (torch.randn(4, 32, DIM, device=device),)


def block_only() -> Any:
    """The model alone: its inputs come from :func:`block_inputs` (``--inputs``)."""
    return _block()


def block_inputs() -> Any:
    """One tensor: the example input of :func:`block_only`."""
    import torch

    torch.manual_seed(0)
    return torch.randn(2, 16, DIM)


def failing_factory() -> Any:
    """A factory that raises."""
    msg = "no weights found at /nonexistent/weights.pt"
    raise FileNotFoundError(msg)


def not_a_pair() -> int:
    """A factory that returns something else than (model, inputs)."""
    return 42


def crashing_model() -> tuple[Any, tuple[Any, ...]]:
    """A model whose process dies of SIGSEGV when it runs (as a bad native library would)."""
    import os
    import signal

    import torch

    def model(x: torch.Tensor) -> torch.Tensor:
        os.kill(os.getpid(), signal.SIGSEGV)
        return x

    return model, (torch.zeros(2),)


def failing_model() -> tuple[Any, tuple[Any, ...]]:
    """A model that raises when it runs."""
    import torch

    def model(x: torch.Tensor) -> torch.Tensor:
        msg = "shapes do not match"
        raise RuntimeError(msg)

    return model, (torch.zeros(2),)
