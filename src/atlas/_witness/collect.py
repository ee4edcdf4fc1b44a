"""Run the tiny model with the installed PyTorch and collect raw evidence.

This module and the helpers it alone imports (``_tiny_model``, ``_torch_capture``,
``_environment``; ``_run_traces`` and ``_progress`` need no torch) are the only code that imports
torch. It runs in a child process started by ``atlas._witness.run`` with
``TORCHINDUCTOR_CACHE_DIR``, ``TRITON_CACHE_DIR`` and ``TMPDIR`` pointing into a fresh temporary
folder, so every file found there was written by this run::

    python -m atlas._witness.collect --mode all --device cpu --root DIR --raw-output FILE

It reads no private text format: the files, commands and counters it gathers are handed on
verbatim (as a :class:`~atlas.models._raw.RawRun`) and parsed by ``parse.py``. Besides
``atlas._witness`` it imports only ``atlas.models`` (so it also runs where only those two
packages and ``atlas/errors.py`` were copied, as ``tests/fixtures/witness/record-gpu.sh`` does).
"""

# torch is imported inside functions only (here and in the helpers), so that importing this
# module stays cheap and the audit hook of :class:`CommandLog` is in place before torch loads.
# ruff: noqa: PLC0415

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from atlas._witness._environment import configure_torch, describe_device, versions
from atlas._witness._progress import Progress, heartbeat, stderr_progress
from atlas._witness._run_traces import CommandLog, cache_artifacts, disassemble, mapped_files
from atlas._witness._tiny_model import MODEL, build_model
from atlas._witness._torch_capture import (
    compile_error_text,
    dispatched_ops,
    dynamo_counters,
    profiled_events,
    recording_backend,
    reset_dynamo,
)
from atlas.models._raw import CapturedGraph, ModeRun, ProfiledEvent, RawRun

__all__ = ["collect", "main"]


def _now() -> datetime:
    return datetime.now(UTC)


def _eager(torch_device: str, progress: Progress, *, cuda: bool) -> ModeRun:
    started = _now()
    progress("eager: running the model under a dispatch mode and the profiler")
    fn, x = build_model(torch_device)
    dispatched = dispatched_ops(fn, x)
    profiled = profiled_events(fn, x, cuda=cuda)
    return ModeRun(
        mode="eager",
        started_at=started,
        ended_at=_now(),
        dispatched=dispatched,
        profiled=profiled,
    )


def _first_call(
    compiled: Callable[[Any], Any],
    fn: Callable[[Any], Any],
    x: Any,
    log: CommandLog,
    progress: Progress,
) -> tuple[bool | None, str | None]:
    """Compile by calling ``compiled(x)``, logging commands; whether it matches ``fn(x)``, error."""
    import torch

    log.active = True
    try:
        with heartbeat(progress, "torch.compile"), torch.no_grad():
            out = compiled(x)
            expected = fn(x)
            outputs_match = bool(torch.allclose(out, expected, rtol=1e-3, atol=1e-3))
    except Exception as exc:  # noqa: BLE001 - any compile failure is reported, not raised
        error = compile_error_text(exc)
        progress(f"torch.compile failed: {error}")
        return None, error
    finally:
        log.active = False
    return outputs_match, None


def _compiled(
    torch_device: str, root: Path, log: CommandLog, progress: Progress, *, cuda: bool
) -> ModeRun:
    import torch

    started = _now()
    graphs: list[CapturedGraph] = []
    backend = recording_backend(graphs, progress)
    fn, x = build_model(torch_device)
    reset_dynamo()
    compiled = torch.compile(fn, backend=backend)
    profiled: tuple[ProfiledEvent, ...] = ()
    progress("torch.compile: compiling (about 20 s on 2 CPU cores; a few seconds on a GPU machine)")
    outputs_match, error = _first_call(compiled, fn, x, log, progress)
    if error is None:
        progress("torch.compile: profiling one warm call of the compiled function")
        profiled = profiled_events(compiled, x, cuda=cuda)
    progress("torch.compile: collecting the generated files")
    artifacts = cache_artifacts(root)
    return ModeRun(
        mode="torch-compile",
        started_at=started,
        ended_at=_now(),
        profiled=profiled,
        graphs=tuple(graphs),
        dynamo_counters=dynamo_counters(),
        artifacts=artifacts,
        commands=tuple(log.commands),
        disassembly=disassemble(root, artifacts),
        mapped_files=mapped_files(root),
        outputs_match=outputs_match,
        error=error,
    )


def collect(mode: str, device: str, root: Path, progress: Progress = stderr_progress) -> RawRun:
    """Run the modes (``eager``, ``torch-compile`` or ``all``) on ``cpu`` or ``cuda``.

    ``root`` must be the temporary folder that the cache variables point into.
    """
    log = CommandLog()  # installed before torch is imported, so nothing escapes it
    started = _now()
    settings = configure_torch()
    cuda = device == "cuda"
    device_name, detail = describe_device(cuda=cuda)
    torch_device = "cuda" if cuda else "cpu"
    modes: list[ModeRun] = []
    if mode in ("eager", "all"):
        modes.append(_eager(torch_device, progress, cuda=cuda))
    if mode in ("torch-compile", "all"):
        modes.append(_compiled(torch_device, root, log, progress, cuda=cuda))
    return RawRun(
        device="nvidia-gpu" if cuda else "cpu",
        device_name=device_name,
        device_detail=detail,
        versions=versions(),
        settings=settings,
        model=MODEL,
        started_at=started,
        ended_at=_now(),
        modes=tuple(modes),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the child process; writes the raw run as JSON to ``--raw-output``."""
    parser = argparse.ArgumentParser(prog="python -m atlas._witness.collect")
    parser.add_argument("--mode", choices=("eager", "torch-compile", "all"), required=True)
    parser.add_argument("--device", choices=("cpu", "cuda"), required=True)
    parser.add_argument("--root", type=Path, required=True, help="the temporary cache folder")
    parser.add_argument("--raw-output", type=Path, required=True)
    args = parser.parse_args(argv)
    raw = collect(args.mode, args.device, args.root)
    tmp = args.raw_output.with_name(args.raw_output.name + ".tmp")
    tmp.write_text(raw.model_dump_json(indent=1), encoding="utf-8")
    tmp.replace(args.raw_output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
