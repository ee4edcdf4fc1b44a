"""The witness: what a real run of PyTorch shows, stage by stage, beside what the atlas documents.

``witness(mode, device)`` runs a tiny model with the installed PyTorch (an optional extra:
``pip install 'execution-atlas[witness]'``) in a child process with fresh temporary caches and
returns a :class:`WitnessRecord`. Nothing here imports torch; only ``collect.py`` does, in the
child.

The comparison with the atlas is ``atlas._witness.compare.compare(record)`` (the function is not
re-exported here, so that ``atlas._witness.compare`` stays the module).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # spares importing typing (atlas path imports this package)

if TYPE_CHECKING:
    from pathlib import Path

    from atlas._witness.compare import ModeComparison, StepComparison
    from atlas._witness.errors import TorchNotInstalledError, WitnessError, WitnessRunError
    from atlas.models._witness import (
        WitnessRecord,
        dump_json,
        json_schema,
        load_record,
        to_trig,
    )

# Imported on first use, so that ``atlas --help`` does not build the record models (nor
# ``atlas path`` import the error classes).
_LAZY = {
    "TorchNotInstalledError": "atlas._witness.errors",
    "WitnessError": "atlas._witness.errors",
    "WitnessRunError": "atlas._witness.errors",
    "ModeComparison": "atlas._witness.compare",
    "StepComparison": "atlas._witness.compare",
    "WitnessRecord": "atlas.models._witness",
    "dump_json": "atlas.models._witness",
    "json_schema": "atlas.models._witness",
    "load_record": "atlas.models._witness",
    "to_trig": "atlas.models._witness",
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
    "StepComparison",
    "TorchNotInstalledError",
    "WitnessError",
    "WitnessRecord",
    "WitnessRunError",
    "dump_json",
    "json_schema",
    "load_record",
    "shipped_records",
    "to_trig",
    "witness",
]


def witness(
    mode: str = "all", device: str = "auto", *, raw_output: Path | None = None
) -> WitnessRecord:
    """Run the tiny model and return what each stage showed.

    Args:
        mode: ``eager``, ``compile`` (or ``torch-compile``) or ``all``.
        device: ``cpu``, ``cuda`` (or ``nvidia-gpu``) or ``auto`` (cuda when available).
        raw_output: where to save the collector's raw JSON as well (optional).

    Raises:
        TorchNotInstalledError: PyTorch is not installed (the message says how to install it).
        WitnessError: an unknown mode or device (a ``ValueError`` too).
        WitnessRunError: the run failed; its messages went to standard error.
    """
    from atlas._witness.observe import build_record  # noqa: PLC0415
    from atlas._witness.run import run_collector  # noqa: PLC0415

    return build_record(run_collector(mode, device, raw_output=raw_output))


def shipped_records() -> tuple[WitnessRecord, ...]:
    """The witness records shipped with the data (``dataset/witness/*.json``), by id."""
    from atlas.data._resources import dataset_dir  # noqa: PLC0415
    from atlas.models._witness import WitnessRecord  # noqa: PLC0415

    folder = dataset_dir() / "witness"
    if not folder.is_dir():
        return ()
    found = [
        WitnessRecord.model_validate_json(item.read_text(encoding="utf-8"))
        for item in folder.iterdir()
        if item.name.endswith(".json")
    ]
    return tuple(sorted(found, key=lambda r: r.id))
