"""The witness: what a real run of PyTorch shows, stage by stage, beside what the atlas documents.

``witness(mode, device, model=...)`` runs a model (by default a tiny one) with the installed
PyTorch (an optional extra: ``pip install 'execution-atlas[witness]'``) in a child process with
fresh temporary caches and returns a :class:`WitnessRecord`. Nothing here imports torch; only
``collect.py`` and its helpers (``_tiny_model``, ``_workload``, ``_torch_capture``,
``_environment``) do, in the child. Records are read,
written and turned into TriG by ``files.py``.

The comparison with the atlas is ``atlas._witness.compare.compare(record)`` (the function is not
re-exported here, so that ``atlas._witness.compare`` stays the module).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # spares importing typing (atlas path imports this package)

if TYPE_CHECKING:
    from pathlib import Path

    from atlas._witness.compare import ModeComparison, StepComparison
    from atlas._witness.errors import (
        ModelSpecError,
        TorchNotInstalledError,
        WitnessError,
        WitnessRunError,
    )
    from atlas._witness.files import load_record, to_trig
    from atlas.models._witness import WitnessRecord, dump_json, json_schema

# Imported on first use, so that ``atlas --help`` does not build the record models (nor
# ``atlas path`` import the error classes).
_LAZY = {
    "ModelSpecError": "atlas._witness.errors",
    "TorchNotInstalledError": "atlas._witness.errors",
    "WitnessError": "atlas._witness.errors",
    "WitnessRunError": "atlas._witness.errors",
    "ModeComparison": "atlas._witness.compare",
    "StepComparison": "atlas._witness.compare",
    "WitnessRecord": "atlas.models._witness",
    "dump_json": "atlas.models._witness",
    "json_schema": "atlas.models._witness",
    "load_record": "atlas._witness.files",
    "to_trig": "atlas._witness.files",
}


def __getattr__(name: str) -> object:
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'atlas._witness' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "ModeComparison",
    "ModelSpecError",
    "StepComparison",
    "TorchNotInstalledError",
    "WitnessError",
    "WitnessRecord",
    "WitnessRunError",
    "dump_json",
    "json_schema",
    "load_record",
    "to_trig",
    "witness",
]


def witness(
    mode: str = "all",
    device: str = "auto",
    *,
    raw_output: Path | None = None,
    model: str | None = None,
    inputs: str | None = None,
) -> WitnessRecord:
    """Run a model and return what each stage showed, and what its graphs and kernels were.

    Args:
        mode: ``eager``, ``compile`` (or ``torch-compile``) or ``all``.
        device: ``cpu``, ``cuda`` (or ``nvidia-gpu``) or ``auto`` (cuda when available).
        raw_output: where to save the collector's raw JSON as well (optional).
        model: the factory of the model to run, ``"module:function"`` or
            ``"path/to/file.py:function"``: called with no arguments (or ``device=``), it
            returns ``(model, inputs)``, or the model alone when ``inputs`` is given. By
            default the witness's own tiny model (Linear/GELU/LayerNorm and a graph break).
        inputs: the factory of the model's example inputs (a tensor, a tuple of arguments or
            a dict of keyword arguments), when ``model`` returns the model alone.

    Raises:
        TorchNotInstalledError: PyTorch is not installed (the message says how to install it).
        WitnessError: an unknown mode or device (a ``ValueError`` too).
        ModelSpecError: ``model``/``inputs`` name no usable factory, or it failed.
        CudaUnavailableError: ``device="cuda"`` where PyTorch sees no CUDA GPU.
        WitnessRunError: the run failed; its messages went to standard error.
    """
    from atlas._witness.observe import build_record  # noqa: PLC0415
    from atlas._witness.run import run_collector  # noqa: PLC0415

    raw = run_collector(mode, device, raw_output=raw_output, model=model, inputs=inputs)
    return build_record(raw)
