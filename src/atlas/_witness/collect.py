"""Run the tiny model with the installed PyTorch and collect raw evidence.

This is the only module that imports torch. It runs in a child process started by
``atlas._witness.run`` with ``TORCHINDUCTOR_CACHE_DIR``, ``TRITON_CACHE_DIR`` and ``TMPDIR``
pointing into a fresh temporary folder, so every file found there was written by this run::

    python -m atlas._witness.collect --mode all --device cpu --root DIR --raw-output FILE

It reads no private text format: the files, commands and counters it gathers are handed on
verbatim (as a :class:`~atlas.models._raw.RawRun`) and parsed by ``parse.py``.
"""

# torch is imported inside functions only, so that importing this module stays cheap, and the
# collector reads a few private torch APIs (the dispatcher table, Dynamo) on purpose.
# ruff: noqa: PLC0415, SLF001

from __future__ import annotations

import argparse
import collections
import importlib.util
import logging
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.models._raw import (
    Artifact,
    CapturedGraph,
    DispatchedOp,
    ModeRun,
    ProfiledEvent,
    RawRun,
    Versions,
)

if TYPE_CHECKING:
    import torch

__all__ = ["collect", "main"]

_TEXT_LIMIT = 64 * 1024
"""Most bytes of a generated source kept in the raw run."""
_HEAD_LINES = 40
"""Lines kept from the head of Triton's intermediate files and of the SASS listing."""
_TRITON_TEXT = (".source", ".ttir", ".ttgir", ".llir", ".ptx", ".json")
_KERNEL_KEYS = ("CPU", "CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd")
_MAPPED_HINTS = (
    "libgomp",
    "libiomp",
    "libomp",
    "libcublas",
    "libcudnn",
    "libtorch_cpu",
    "libtorch_cuda",
)
_MODEL = (
    "Linear(256->512) -> GELU -> LayerNorm(512) -> Linear(512->256) on a 64x256 batch, "
    "then a Tensor.item() graph break and mul/relu"
)
_MAPS_FIELDS = 6

Progress = Callable[[str], None]


def _now() -> datetime:
    return datetime.now(UTC)


def _stderr_progress(message: str) -> None:
    sys.stderr.write(f"[witness] {message}\n")
    sys.stderr.flush()


@contextmanager
def _heartbeat(progress: Progress, what: str, every: float = 10.0) -> Iterator[None]:
    """Report ``what`` every ``every`` seconds until the block ends."""
    stop = threading.Event()
    start = time.monotonic()

    def beat() -> None:
        while not stop.wait(every):
            progress(f"{what}: still running ({time.monotonic() - start:.0f} s)")

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _build_model(torch_device: str) -> tuple[Callable[[Any], Any], Any]:
    """Return the function with a deliberate graph break, and its input."""
    import torch
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

    torch.manual_seed(0)
    model = TinyModel().to(torch_device).eval()

    def run_model(x: torch.Tensor) -> torch.Tensor:
        y = model(x)
        if y.sum().item() > 0:  # Tensor.item(): a deliberate graph break
            y = y * 2
        return torch.relu(y)

    return run_model, torch.randn(64, 256, device=torch_device)


def _dispatched(fn: Callable[[Any], Any], x: Any) -> tuple[DispatchedOp, ...]:
    """Run ``fn(x)`` under a dispatch mode that logs each aten overload and its devices."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    seen: collections.Counter[tuple[str, tuple[str, ...]]] = collections.Counter()
    kernels: dict[str, tuple[str, ...]] = {}

    class Recorder(TorchDispatchMode):  # type: ignore[no-untyped-call]  # untyped in torch
        def __torch_dispatch__(
            self,
            func: Any,
            types: Sequence[type],
            args: Sequence[Any] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            leaves = tree_leaves((args, kwargs or {}))
            devices = tuple(sorted({str(a.device) for a in leaves if isinstance(a, torch.Tensor)}))
            name = str(func)
            seen[(name, devices)] += 1
            if name not in kernels:
                kernels[name] = tuple(
                    key
                    for key in _KERNEL_KEYS
                    if torch._C._dispatch_has_kernel_for_dispatch_key(func.name(), key)
                )
            return func(*args, **(kwargs or {}))

    with torch.no_grad(), Recorder():  # type: ignore[no-untyped-call]  # untyped in torch
        fn(x)
    return tuple(
        DispatchedOp(op=name, devices=devices, kernels=kernels[name], count=count)
        for (name, devices), count in seen.items()
    )


def _profiled(fn: Callable[[Any], Any], x: Any, *, cuda: bool) -> tuple[ProfiledEvent, ...]:
    """Profile one warm call of ``fn(x)``; return each event name per device type."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with torch.no_grad():
        fn(x)
        if cuda:
            torch.cuda.synchronize()
        with profile(activities=activities) as prof:
            fn(x)
            if cuda:
                torch.cuda.synchronize()
    counts: collections.Counter[tuple[str, str]] = collections.Counter(
        (str(event.name), str(event.device_type).rsplit(".", 1)[-1]) for event in prof.events()
    )
    return tuple(
        ProfiledEvent(name=name, device_type=device_type, count=count)
        for (name, device_type), count in sorted(counts.items())
    )


def _read_text(path: Path, *, head_lines: int | None = None) -> tuple[str, bool]:
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    if head_lines is not None:
        lines = text.splitlines(keepends=True)
        if len(lines) > head_lines:
            return "".join(lines[:head_lines]), True
    if len(raw) > _TEXT_LIMIT:
        return raw[:_TEXT_LIMIT].decode("utf-8", errors="replace"), True
    return text, False


def _artifacts(root: Path) -> tuple[Artifact, ...]:
    """List the files the run wrote under ``root``, with the text of the telling ones."""
    found: list[Artifact] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        size = path.stat().st_size
        text: str | None = None
        truncated = False
        if rel.startswith("inductor/") and path.suffix == ".py" and "/fxgraph/" not in rel:
            text, truncated = _read_text(path)
        elif (rel.startswith("triton/") and path.suffix in _TRITON_TEXT) or (
            rel.startswith("inductor/") and path.suffix == ".cpp"
        ):
            text, truncated = _read_text(path, head_lines=_HEAD_LINES)
        found.append(Artifact(path=rel, size=size, text=text, truncated=truncated))
    return tuple(found)


def _find_tool(name: str) -> str | None:
    """``name`` on PATH, else in CUDA_HOME/bin, /usr/local/cuda/bin or Triton's bundled tools."""
    found = shutil.which(name)
    if found:
        return found
    folders = [
        Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin",
        Path("/usr/local/cuda/bin"),
    ]
    spec = importlib.util.find_spec("triton")
    if spec is not None and spec.origin:
        folders.append(Path(spec.origin).parent / "backends" / "nvidia" / "bin")
    for folder in folders:
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _disassemble(root: Path, artifacts: Sequence[Artifact]) -> dict[str, str]:
    """Return the head of ``cuobjdump --dump-sass`` for each .cubin, when cuobjdump exists."""
    tool = _find_tool("cuobjdump")
    if tool is None:
        return {}
    heads: dict[str, str] = {}
    for artifact in artifacts:
        if artifact.path.endswith(".cubin"):
            done = subprocess.run(
                [tool, "--dump-sass", str(root / artifact.path)],
                capture_output=True,
                text=True,
                check=False,
                timeout=60,
            )
            lines = (done.stdout or done.stderr).splitlines()
            heads[artifact.path] = "\n".join(lines[: _HEAD_LINES + 20])
    return heads


def _mapped_files(root: Path) -> tuple[str, ...]:
    """Shared objects in /proc/self/maps that came from the run or are runtime libraries."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return ()
    names: set[str] = set()
    for line in maps.read_text(errors="replace").splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) < _MAPS_FIELDS or ".so" not in parts[5]:
            continue
        path = parts[5].strip()
        if path.startswith(str(root)):
            names.add(Path(path).relative_to(root).as_posix())
        elif any(hint in Path(path).name for hint in _MAPPED_HINTS):
            names.add(Path(path).name)
    return tuple(sorted(names))


class _CommandLog:
    """Records the argv of every subprocess started while :attr:`active` (an audit hook)."""

    def __init__(self) -> None:
        self.active = False
        self.commands: list[tuple[str, ...]] = []
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active or event != "subprocess.Popen":
            return
        argv = args[1]
        if isinstance(argv, (list, tuple)):
            self.commands.append(tuple(str(a) for a in argv))
        else:
            self.commands.append((str(argv),))


def _error_text(exc: BaseException) -> str:
    """'Name: message' of the innermost telling exception (InvalidCxxCompiler if in the chain)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    for item in chain:
        if type(item).__name__ == "InvalidCxxCompiler":
            return f"InvalidCxxCompiler: {str(item).strip()}"
    first = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {first[0] if first else ''}"


def _eager(torch_device: str, progress: Progress, *, cuda: bool) -> ModeRun:
    started = _now()
    progress("eager: running the model under a dispatch mode and the profiler")
    fn, x = _build_model(torch_device)
    dispatched = _dispatched(fn, x)
    profiled = _profiled(fn, x, cuda=cuda)
    return ModeRun(
        mode="eager",
        started_at=started,
        ended_at=_now(),
        dispatched=dispatched,
        profiled=profiled,
    )


def _compiled(
    torch_device: str, root: Path, log: _CommandLog, progress: Progress, *, cuda: bool
) -> ModeRun:
    import torch
    from torch._dynamo.utils import counters
    from torch._guards import CompileContext
    from torch._inductor.compile_fx import compile_fx

    started = _now()
    graphs: list[CapturedGraph] = []

    def recording_backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
        compile_id = CompileContext.current_compile_id()
        ops = tuple(
            str(getattr(node.target, "__name__", node.target))
            for node in gm.graph.nodes
            if node.op in ("call_function", "call_method", "call_module")
        )
        graphs.append(CapturedGraph(compile_id=str(compile_id), ops=ops, code=gm.code.strip()))
        progress(f"torch.compile: Dynamo captured graph {compile_id} ({len(ops)} ops)")
        return compile_fx(gm, example_inputs)

    fn, x = _build_model(torch_device)
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(fn, backend=recording_backend)
    error: str | None = None
    outputs_match: bool | None = None
    profiled: tuple[ProfiledEvent, ...] = ()
    progress("torch.compile: compiling (about 20 s on 2 CPU cores; a few seconds on a GPU machine)")
    log.active = True
    try:
        with _heartbeat(progress, "torch.compile"), torch.no_grad():
            out = compiled(x)
            expected = fn(x)
            outputs_match = bool(torch.allclose(out, expected, rtol=1e-3, atol=1e-3))
    except Exception as exc:  # noqa: BLE001 - any compile failure is reported, not raised
        error = _error_text(exc)
        progress(f"torch.compile failed: {error}")
    finally:
        log.active = False
    if error is None:
        progress("torch.compile: profiling one warm call of the compiled function")
        profiled = _profiled(compiled, x, cuda=cuda)
    progress("torch.compile: collecting the generated files")
    artifacts = _artifacts(root)
    return ModeRun(
        mode="torch-compile",
        started_at=started,
        ended_at=_now(),
        profiled=profiled,
        graphs=tuple(graphs),
        dynamo_counters={
            k: {str(n): int(c) for n, c in v.items()} for k, v in counters.items() if v
        },
        artifacts=artifacts,
        commands=tuple(log.commands),
        disassembly=_disassemble(root, artifacts),
        mapped_files=_mapped_files(root),
        outputs_match=outputs_match,
        error=error,
    )


def _version_line(argv: Sequence[str], *, prefer: str | None = None) -> str | None:
    """The first output line of ``argv`` (or the first that contains ``prefer``)."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or not lines:
        return None
    preferred = [line for line in lines if prefer and prefer in line]
    return (preferred or lines)[0]


def _versions() -> Versions:
    import importlib.metadata

    import torch

    try:
        triton: str | None = importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        triton = None
    cxx = os.environ.get("CXX", "g++")
    cuobjdump = _find_tool("cuobjdump")
    return Versions(
        python=platform.python_version(),
        python_implementation=sys.implementation.name,
        torch=str(torch.__version__),
        torch_cuda=torch.version.cuda,
        triton=triton,
        cxx_compiler=_version_line([cxx, "--version"]),
        cuobjdump=_version_line([cuobjdump, "--version"], prefer="release") if cuobjdump else None,
        platform=platform.platform(),
    )


def _cpu_name() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def collect(mode: str, device: str, root: Path, progress: Progress = _stderr_progress) -> RawRun:
    """Run the modes (``eager``, ``torch-compile`` or ``all``) on ``cpu`` or ``cuda``.

    ``root`` must be the temporary folder that the cache variables point into.
    """
    log = _CommandLog()  # installed before torch is imported, so nothing escapes it
    started = _now()
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    import torch

    # Graph breaks are recorded from Dynamo's counters; their warnings would only be noise here.
    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)
    import torch._inductor.config as inductor_config

    # Compile in this process, so that the audit hook sees g++ and ptxas, and time the C++
    # kernels in the profiler; both are documented Inductor settings.
    inductor_config.compile_threads = 1
    inductor_config.cpp.enable_kernel_profile = True
    settings = {
        "torch._inductor.config.compile_threads": "1",
        "torch._inductor.config.cpp.enable_kernel_profile": "True",
    }
    cuda = device == "cuda"
    if cuda:
        props = torch.cuda.get_device_properties(0)
        device_name = str(props.name)
        detail = (
            f"compute capability {props.major}.{props.minor}, {props.multi_processor_count} SMs"
        )
    else:
        device_name = _cpu_name()
        detail = f"{torch.get_num_threads()} intra-op threads, {os.cpu_count()} logical CPUs"
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
        versions=_versions(),
        settings=settings,
        model=_MODEL,
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
