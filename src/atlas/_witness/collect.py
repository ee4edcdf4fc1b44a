"""Run a model with the installed PyTorch and collect raw evidence.

The model is the witness's tiny one, or the one a factory builds (``--model module:function``,
see ``_workload``). This module and the helpers it alone imports (``_tiny_model``,
``_workload``, ``_torch_capture``, ``_environment``; ``_run_traces`` and ``_progress`` need no
torch) are the only code that imports torch. It runs in a child process started by
``atlas._witness.run`` with ``TORCHINDUCTOR_CACHE_DIR``, ``TRITON_CACHE_DIR`` and ``TMPDIR``
pointing into a fresh temporary folder, so every file found there was written by this run::

    python -m atlas._witness.collect --mode all --device cpu --root DIR --raw-output FILE \
        [--model module:function [--inputs module:function]]

Exit status: 0 written; 4 the factory named no usable model; 5 the model raised while it ran
(each with a one-line message on standard error).

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
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from atlas._witness._collect_cudagraphs_aoti import (
    aotinductor,
    first_call,
    reduce_overhead,
    run_evidence,
)
from atlas._witness._environment import configure_torch, describe_device, versions
from atlas._witness._progress import Progress, stderr_progress
from atlas._witness._run_traces import CommandLog
from atlas._witness._torch_capture import (
    dispatched_ops,
    graph_break_log,
    profiled_events,
    recording_backend,
    reset_dynamo,
    warm_seconds,
)
from atlas._witness._workload import (
    Workload,
    load_workload,
    tiny_block_workload,
    tiny_workload,
)
from atlas._witness.errors import ModelSpecError
from atlas.models._raw import CapturedGraph, ModeRun, ProfiledEvent, RawRun

__all__ = ["collect", "main", "run_environment"]

EXIT_MODEL = 4  # the factory named no usable model (its message is on standard error)
EXIT_RUN = 5  # the model raised while it ran
_MODES = ("eager", "torch-compile", "all", "reduce-overhead", "aotinductor")
_OWN = frozenset({"TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"})
_PREFIXES = ("TORCH", "PYTORCH", "TRITON", "CUDA_", "INDUCTOR")


def _now() -> datetime:
    return datetime.now(UTC)


def run_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``environ`` that change what torch, Inductor or Triton do or keep.

    >>> run_environment({"TRITON_STORE_BINARY_ONLY": "1", "HOME": "/root", "TRITON_CACHE_DIR": "x"})
    {'TRITON_STORE_BINARY_ONLY': '1'}
    """
    return {k: v for k, v in sorted(environ.items()) if k.startswith(_PREFIXES) and k not in _OWN}


def _timed(call: Callable[[], Any], *, cuda: bool) -> float:
    import torch

    started = time.perf_counter()
    with torch.no_grad():
        call()
        if cuda:
            torch.cuda.synchronize()
    return round(time.perf_counter() - started, 6)


def _eager(work: Workload, progress: Progress, *, cuda: bool) -> ModeRun:
    started = _now()
    progress("eager: running the model under a dispatch mode and the profiler")
    first = _timed(work, cuda=cuda)
    dispatched = dispatched_ops(work)
    profiled = profiled_events(work, cuda=cuda)
    return ModeRun(
        mode="eager",
        started_at=started,
        ended_at=_now(),
        dispatched=dispatched,
        profiled=profiled,
        first_call_s=first,
        warm_call_s=warm_seconds(work, cuda=cuda),
    )


def _compiled(
    work: Workload, root: Path, log: CommandLog, progress: Progress, *, cuda: bool
) -> ModeRun:
    import torch

    started = _now()
    graphs: list[CapturedGraph] = []
    backend = recording_backend(graphs, progress, root)
    reset_dynamo()
    compiled = torch.compile(work.fn, backend=backend)
    profiled: tuple[ProfiledEvent, ...] = ()
    warm = None
    progress("torch.compile: compiling (about 20 s on 2 CPU cores; a few seconds on a GPU machine)")
    with graph_break_log() as breaks:
        outputs_match, error, first = first_call(compiled, work, log, progress, cuda=cuda)
    if error is None:
        progress("torch.compile: profiling one warm call of the compiled function")
        profiled = profiled_events(lambda: work(compiled), cuda=cuda)
        warm = warm_seconds(lambda: work(compiled), cuda=cuda)
    progress("torch.compile: collecting the generated files")
    return ModeRun(
        mode="torch-compile",
        started_at=started,
        ended_at=_now(),
        profiled=profiled,
        graphs=tuple(graphs),
        **run_evidence(root, log),
        outputs_match=outputs_match,
        error=error,
        graph_break_log=tuple(breaks),
        first_call_s=first,
        warm_call_s=warm,
    )


def collect(
    mode: str,
    device: str,
    root: Path,
    progress: Progress = stderr_progress,
    *,
    model: str | None = None,
    inputs: str | None = None,
    given: Callable[[str], Workload] | None = None,
) -> RawRun:
    """Run the modes (``eager``, ``torch-compile``, ``all``, ``reduce-overhead``, ``aotinductor``).

    ``all`` is eager and torch.compile; the other two run only when named.

    ``root`` must be the temporary folder that the cache variables point into. ``model`` (and
    ``inputs``) name the factories of the model to run (``_workload``); by default the tiny one.
    ``given`` (a device to a workload) runs a model the caller already holds, in this process.
    """
    log = CommandLog()  # installed before torch is imported, so nothing escapes it
    started = _now()
    settings = configure_torch()
    cuda = device == "cuda"
    device_name, detail = describe_device(cuda=cuda)
    torch_device = "cuda" if cuda else "cpu"

    def workload() -> Workload:  # a fresh model per mode: the modes do not share state
        if given is not None:
            return given(torch_device)
        if model is None:
            return tiny_workload(torch_device)
        return load_workload(model, inputs, torch_device)

    if mode == "aotinductor" and given is None and model is None:
        first = tiny_block_workload(torch_device)  # torch.export needs an nn.Module, no break
    else:
        first = workload()
    modes: list[ModeRun] = []
    if mode in ("eager", "all"):
        modes.append(_eager(first, progress, cuda=cuda))
    if mode in ("torch-compile", "all"):
        work = workload() if modes else first
        modes.append(_compiled(work, root, log, progress, cuda=cuda))
    if mode == "reduce-overhead":
        modes.append(reduce_overhead(first, root, log, progress, cuda=cuda))
    if mode == "aotinductor":
        modes.append(aotinductor(first, root, log, progress, cuda=cuda))
    return RawRun(
        device="nvidia-gpu" if cuda else "cpu",
        device_name=device_name,
        device_detail=detail,
        versions=versions(cuda=cuda),
        settings=settings,
        model=first.description,
        model_source=model,
        environment=run_environment(os.environ),
        started_at=started,
        ended_at=_now(),
        modes=tuple(modes),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the child process; writes the raw run as JSON to ``--raw-output``."""
    parser = argparse.ArgumentParser(prog="python -m atlas._witness.collect")
    parser.add_argument("--mode", choices=_MODES, required=True)
    parser.add_argument("--device", choices=("cpu", "cuda"), required=True)
    parser.add_argument("--root", type=Path, required=True, help="the temporary cache folder")
    parser.add_argument("--raw-output", type=Path, required=True)
    parser.add_argument("--model", help="the factory of the model (module:function)")
    parser.add_argument("--inputs", help="the factory of its inputs (module:function)")
    args = parser.parse_args(argv)
    try:
        raw = collect(args.mode, args.device, args.root, model=args.model, inputs=args.inputs)
    except ModelSpecError as error:
        sys.stderr.write(f"atlas witness: error: {error}\n")
        return EXIT_MODEL
    except Exception as error:  # noqa: BLE001 - the user's model may raise anything
        sys.stderr.write(f"atlas witness: error: the run failed: {type(error).__name__}: {error}\n")
        return EXIT_RUN
    tmp = args.raw_output.with_name(args.raw_output.name + ".tmp")
    tmp.write_text(raw.model_dump_json(indent=1), encoding="utf-8")
    tmp.replace(args.raw_output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
