"""Observe a model the caller holds, in this process: ``atlas.observe(model, inputs)``.

The witness usually runs its model in a child process with fresh caches (``run.py``). A model
object cannot travel there, so :func:`observe` runs the same collector here, inside a temporary
folder that Inductor's and Triton's caches and the temporary files point into while it runs,
and puts back what it changed: those variables, the Inductor options the collector sets and the
level of Dynamo's logger. Two things stay changed, and the docstring says so: Dynamo's caches
are reset (as ``torch._dynamo.reset()``), and a module moved to another device stays there.
"""

# torch is imported inside functions only, so that importing this module stays cheap.
# ruff: noqa: PLC0415

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas._witness.errors import CudaUnavailableError
from atlas._witness.run import normalise_device, normalise_mode

if TYPE_CHECKING:
    from atlas._witness._progress import Progress
    from atlas.models._witness import WitnessRecord

__all__ = ["observe"]

_VARIABLES = ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "TMPDIR")


def _device_of(model: Any, inputs: Any) -> str:
    """'cuda' when the model's parameters or the inputs are on a CUDA device, else 'cpu'."""
    import torch
    from torch.utils._pytree import tree_leaves

    tensors = [t for t in tree_leaves(inputs) if isinstance(t, torch.Tensor)]
    if isinstance(model, torch.nn.Module):
        tensors += list(model.parameters())[:1]
    return "cuda" if any(t.device.type == "cuda" for t in tensors) else "cpu"


def _clear_caches() -> None:
    from torch._inductor.utils import clear_caches

    clear_caches()


@contextlib.contextmanager
def _isolated(root: Path) -> Iterator[None]:
    """Point the caches and temporary files into ``root``; put everything back afterwards."""
    import torch._inductor.config as inductor_config

    saved_env = {name: os.environ.get(name) for name in _VARIABLES}
    saved_tempdir = tempfile.tempdir
    saved_options = (inductor_config.compile_threads, inductor_config.cpp.enable_kernel_profile)
    dynamo_log = logging.getLogger("torch._dynamo")
    saved_level = dynamo_log.level
    for sub in ("inductor", "triton", "tmp"):
        (root / sub).mkdir()
    os.environ.update(
        TORCHINDUCTOR_CACHE_DIR=str(root / "inductor"),
        TRITON_CACHE_DIR=str(root / "triton"),
        TMPDIR=str(root / "tmp"),
    )
    tempfile.tempdir = str(root / "tmp")
    _clear_caches()  # nothing Inductor keeps in memory from earlier compiles is reused
    try:
        yield
    finally:
        _clear_caches()
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        tempfile.tempdir = saved_tempdir
        inductor_config.compile_threads, inductor_config.cpp.enable_kernel_profile = saved_options
        dynamo_log.setLevel(saved_level)


def observe(
    model: Any,
    inputs: Any,
    *,
    mode: str = "all",
    device: str | None = None,
    progress: Progress | None = None,
) -> WitnessRecord:
    """Run ``model`` on ``inputs`` in this process and return what each stage showed.

    The same record as :func:`atlas.witness` (graphs and graph breaks with their places, the
    kernels of each graph, where Python ended, call times, versions), for a model object.

    Args:
        model: an ``nn.Module`` or any callable.
        inputs: its example inputs: one tensor, a tuple of arguments or a dict of keywords.
        mode: ``eager``, ``compile`` or ``all``.
        device: ``cpu`` or ``cuda``; by default where the inputs and the model's parameters
            are. A module given another device is moved there, in place.
        progress: called with each progress message (default: standard error).

    Dynamo's caches are reset before the compile (as ``torch._dynamo.reset()``), so functions
    compiled earlier in this process compile again on their next call.

    Raises:
        WitnessError: an unknown mode or device (a ``ValueError`` too), a model that is not
            callable (``ModelSpecError``).
        CudaUnavailableError: ``device="cuda"`` where PyTorch sees no CUDA GPU.
    """
    import torch

    from atlas._witness import collect as collector
    from atlas._witness._progress import stderr_progress
    from atlas._witness._workload import held_workload
    from atlas._witness.observe import build_record

    where = normalise_device(device) if device is not None else _device_of(model, inputs)
    if where == "auto":
        where = "cuda" if torch.cuda.is_available() else "cpu"
    if where == "cuda" and not torch.cuda.is_available():
        raise CudaUnavailableError
    collector_mode = normalise_mode(mode)
    with tempfile.TemporaryDirectory(prefix="atlas-observe-") as tmp, _isolated(Path(tmp)):
        raw = collector.collect(
            collector_mode,
            where,
            Path(tmp),
            progress or stderr_progress,
            given=lambda on: held_workload(model, inputs, on),
        )
    return build_record(raw)
