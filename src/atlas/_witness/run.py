"""Start the collector in a child process with fresh temporary caches, and read its result."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from atlas._witness._workload import check_spec
from atlas._witness.errors import (
    CudaUnavailableError,
    ModelSpecError,
    TorchNotInstalledError,
    WitnessRunError,
    WitnessValueError,
)
from atlas.models._raw import RawRun

__all__ = [
    "DEVICES",
    "MODES",
    "CollectorMode",
    "normalise_device",
    "normalise_mode",
    "run_collector",
    "torch_installed",
]

CollectorMode = Literal["eager", "torch-compile", "all", "reduce-overhead", "aotinductor"]
MODES: dict[str, CollectorMode] = {
    "eager": "eager",
    "compile": "torch-compile",
    "torch-compile": "torch-compile",
    "all": "all",
    "reduce-overhead": "reduce-overhead",
    "aotinductor": "aotinductor",
    "aoti": "aotinductor",
}
"""Accepted spellings of the mode, mapped to the collector's names. ``all`` is eager and
torch.compile: reduce-overhead and AOTInductor run only when named (AOTInductor alone takes about
a minute on 2 CPU cores, and reduce-overhead on a CPU only shows that CUDA graphs were skipped)."""

DEVICES: dict[str, Literal["cpu", "cuda", "auto"]] = {
    "cpu": "cpu",
    "cuda": "cuda",
    "nvidia-gpu": "cuda",
    "gpu": "cuda",
    "auto": "auto",
}
"""Accepted spellings of the device, mapped to the collector's names."""

_EXIT_MODEL = 4  # the collector's: the factory named no usable model
_EXIT_RUN = 5  # the collector's: the model raised while it ran
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
"""The folder that holds the ``atlas`` package, put on the child's PYTHONPATH."""


def _mode_order(name: str) -> tuple[bool, str]:
    """The modes of ``all`` first, then those of issue 24."""
    return MODES[name] in ("reduce-overhead", "aotinductor"), name


def normalise_mode(mode: str) -> CollectorMode:
    """Map a mode spelling to the collector's name.

    >>> normalise_mode("compile")
    'torch-compile'
    """
    try:
        return MODES[mode.lower()]
    except KeyError:
        raise WitnessValueError(
            f"unknown mode {mode!r}; choose one of {', '.join(sorted(MODES, key=_mode_order))}"
        ) from None


def normalise_device(device: str) -> Literal["cpu", "cuda", "auto"]:
    """Map a device spelling to the collector's name.

    >>> normalise_device("nvidia-gpu")
    'cuda'
    """
    try:
        return DEVICES[device.lower()]
    except KeyError:
        raise WitnessValueError(
            f"unknown device {device!r}; choose one of {', '.join(sorted(DEVICES))}"
        ) from None


def torch_installed() -> bool:
    """Whether torch can be imported (without importing it)."""
    return importlib.util.find_spec("torch") is not None


def _cuda_available(env: dict[str, str]) -> bool:
    probe = "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, check=False, timeout=300
    )
    return done.returncode == 0


def run_collector(
    mode: str = "all",
    device: str = "auto",
    *,
    raw_output: Path | None = None,
    timeout: float = 1800.0,
    model: str | None = None,
    inputs: str | None = None,
) -> RawRun:
    """Run the collector in a fresh process and temporary caches; return what it collected.

    Progress goes to this process's standard error. ``raw_output``, if given, receives a copy
    of the raw JSON (the fixtures of the tests are made this way). ``model`` and ``inputs``
    name the factories of the model to run (``module:function`` or ``file.py:function``).
    """
    collector_mode = normalise_mode(mode)
    collector_device = normalise_device(device)
    if inputs is not None and model is None:
        raise ModelSpecError("--inputs names the inputs of a --model; give --model too")
    for spec, option in ((model, "--model"), (inputs, "--inputs")):
        if spec is not None:
            check_spec(spec, option)
    if not torch_installed():
        raise TorchNotInstalledError
    with tempfile.TemporaryDirectory(prefix="atlas-witness-") as tmp:
        root = Path(tmp)
        env = _fresh_caches(root)
        if collector_device == "auto":
            collector_device = "cuda" if _cuda_available(env) else "cpu"
        elif collector_device == "cuda" and not _cuda_available(env):
            raise CudaUnavailableError
        result = root / "raw.json"
        command = [
            *(sys.executable, "-m", "atlas._witness.collect"),
            *("--mode", collector_mode, "--device", collector_device),
            *("--root", str(root), "--raw-output", str(result)),
            *(("--model", model) if model is not None else ()),
            *(("--inputs", inputs) if inputs is not None else ()),
        ]
        _run_child(command, env, timeout)
        if not result.exists():
            raise WitnessRunError("the witness run failed (exit status 0); its messages are above")
        text = result.read_text(encoding="utf-8")
        if raw_output is not None:
            raw_output.parent.mkdir(parents=True, exist_ok=True)
            tmp_copy = raw_output.with_name(raw_output.name + ".tmp")
            shutil.copyfile(result, tmp_copy)
            tmp_copy.replace(raw_output)
    try:
        return RawRun.model_validate_json(text)
    except ValidationError as exc:
        raise WitnessRunError(f"the witness run wrote an unreadable result: {exc}") from None


def _fresh_caches(root: Path) -> dict[str, str]:
    """The child's environment: this one, with fresh Inductor, Triton and temporary folders."""
    for sub in ("inductor", "triton", "tmp"):
        (root / sub).mkdir()
    env = dict(os.environ)
    env.update(
        TORCHINDUCTOR_CACHE_DIR=str(root / "inductor"),
        TRITON_CACHE_DIR=str(root / "triton"),
        TMPDIR=str(root / "tmp"),
        PYTHONPATH=os.pathsep.join(p for p in (str(_PACKAGE_ROOT), env.get("PYTHONPATH", "")) if p),
    )
    return env


def _run_child(command: list[str], env: dict[str, str], timeout: float) -> None:
    """Run the collector; its progress goes to this process's standard error."""
    try:
        done = subprocess.run(
            command, env=env, stdout=subprocess.DEVNULL, check=False, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise WitnessRunError(
            f"the witness run took longer than {timeout:.0f} s and was stopped"
        ) from None
    if done.returncode == _EXIT_MODEL:
        raise ModelSpecError("the model could not be built; the reason is above")
    if done.returncode == _EXIT_RUN:
        raise WitnessRunError("the model failed while it ran; the reason is above")
    if done.returncode < 0:
        raise WitnessRunError(
            f"the witness run was killed by {_signal_name(-done.returncode)}, in PyTorch or a"
            " library it loaded (a compiled kernel or an AOTInductor package); its messages are"
            " above"
        )
    if done.returncode != 0:
        raise WitnessRunError(
            f"the witness run failed (exit status {done.returncode}); its messages are above"
        )


def _signal_name(number: int) -> str:
    """A signal by name and number.

    >>> _signal_name(11)
    'SIGSEGV (signal 11)'
    >>> _signal_name(200)
    'signal 200'
    """
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"
