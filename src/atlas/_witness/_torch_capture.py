"""What the collector records while torch runs: aten dispatches, profiler events, Dynamo's graphs.

Each helper wraps one way of watching torch: a dispatch mode that logs every aten overload with
its devices and registered kernels, the profiler over one warm call, a torch.compile backend
that keeps each FX graph before Inductor compiles it, and Dynamo's counters. Imported by the
collector only; torch is imported inside functions, and a few private torch APIs (the
dispatcher table, Dynamo) are read on purpose.
"""

# ruff: noqa: PLC0415, SLF001

from __future__ import annotations

import collections
import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.models._raw import CapturedGraph, DispatchedOp, ProfiledEvent

if TYPE_CHECKING:
    import torch

    from atlas._witness._progress import Progress

__all__ = [
    "artifact_logs",
    "compile_error_text",
    "dispatched_ops",
    "dynamo_counters",
    "graph_break_log",
    "profiled_events",
    "recording_backend",
    "reset_dynamo",
    "warm_seconds",
]

_KERNEL_KEYS = ("CPU", "CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd")


def dispatched_ops(call: Callable[[], Any]) -> tuple[DispatchedOp, ...]:
    """Run ``call()`` under a dispatch mode that logs each aten overload and its devices."""
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
        call()
    return tuple(
        DispatchedOp(op=name, devices=devices, kernels=kernels[name], count=count)
        for (name, devices), count in seen.items()
    )


def profiled_events(
    call: Callable[[], Any], *, cuda: bool, warm: bool = True
) -> tuple[ProfiledEvent, ...]:
    """Profile one ``call()`` (after a warm-up call unless ``warm`` is false); count each event."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with torch.no_grad():
        if warm:
            call()
        if cuda:
            torch.cuda.synchronize()
        with profile(activities=activities) as prof:
            call()
            if cuda:
                torch.cuda.synchronize()
    counts: collections.Counter[tuple[str, str]] = collections.Counter(
        (str(event.name), str(event.device_type).rsplit(".", 1)[-1]) for event in prof.events()
    )
    return tuple(
        ProfiledEvent(name=name, device_type=device_type, count=count)
        for (name, device_type), count in sorted(counts.items())
    )


def _files(root: Path) -> set[str]:
    """Every file under ``root``, relative to it, as POSIX paths."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def warm_seconds(call: Callable[[], Any], *, cuda: bool, repeat: int = 3) -> float:
    """The fastest of ``repeat`` warm calls, in seconds (the GPU's work waited for)."""
    import torch

    best = float("inf")
    with torch.no_grad():
        for _ in range(repeat):
            started = time.perf_counter()
            call()
            if cuda:
                torch.cuda.synchronize()
            best = min(best, time.perf_counter() - started)
    return round(best, 6)


def recording_backend(
    graphs: list[CapturedGraph],
    progress: Progress,
    root: Path,
    config_patches: dict[str, Any] | None = None,
) -> Callable[..., Any]:
    """A torch.compile backend that records each graph, then compiles it with Inductor.

    The files that appear under ``root`` (the run's temporary caches) while Inductor compiles a
    graph are recorded with it: its output module is among them. ``config_patches`` are the
    Inductor options of a torch.compile mode (reduce-overhead's turn on CUDA graphs).
    """
    from torch._guards import CompileContext
    from torch._inductor.compile_fx import compile_fx

    def backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
        compile_id = CompileContext.current_compile_id()
        ops = tuple(
            str(getattr(node.target, "__name__", node.target))
            for node in gm.graph.nodes
            if node.op in ("call_function", "call_method", "call_module")
        )
        progress(f"torch.compile: Dynamo captured graph {compile_id} ({len(ops)} ops)")
        before = _files(root)
        started = time.perf_counter()
        compiled = compile_fx(gm, example_inputs, config_patches=config_patches)
        seconds = round(time.perf_counter() - started, 3)
        written = tuple(sorted(_files(root) - before))
        graphs.append(
            CapturedGraph(
                compile_id=str(compile_id),
                ops=ops,
                code=gm.code.strip(),
                written=written,
                compile_s=seconds,
            )
        )
        progress(f"torch.compile: Inductor compiled graph {compile_id} in {seconds:.1f} s")
        return compiled

    return backend


class _Kept(logging.Handler):
    """Keeps the messages of the loggers it is attached to."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def graph_break_log() -> Iterator[list[str]]:
    """Keep Dynamo's ``graph_breaks`` log messages (location, reason, user stack) meanwhile."""
    with artifact_logs("graph_breaks") as kept:
        yield kept["graph_breaks"]


@contextlib.contextmanager
def artifact_logs(*artifacts: str) -> Iterator[dict[str, list[str]]]:
    """Keep the messages of torch's artifact loggers ``artifacts`` (e.g. ``cudagraphs``).

    The messages are kept, not printed: the artifact's loggers stop propagating to torch's
    handlers while the block runs.
    """
    import torch._dynamo
    import torch._inductor.cudagraph_utils  # noqa: F401 - creates the cudagraphs logger
    from torch._logging._internal import set_logs

    switches: dict[str, Any] = dict.fromkeys(artifacts, True)
    set_logs(**switches)
    kept = {name: _Kept() for name in artifacts}
    attached: list[tuple[logging.Logger, _Kept, bool, int]] = []
    for name in list(logging.root.manager.loggerDict):
        for artifact, handler in kept.items():
            if name.endswith(f".__{artifact}"):
                logger = logging.getLogger(name)
                attached.append((logger, handler, logger.propagate, logger.level))
                logger.addHandler(handler)
                logger.propagate = False
                logger.setLevel(logging.DEBUG)
    try:
        yield {name: handler.messages for name, handler in kept.items()}
    finally:
        for logger, handler, propagate, level in attached:
            logger.removeHandler(handler)
            logger.propagate = propagate
            logger.setLevel(level)
        set_logs()


def reset_dynamo() -> None:
    """Forget Dynamo's earlier compiles and zero its counters."""
    import torch
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()


def dynamo_counters() -> dict[str, dict[str, int]]:
    """Dynamo's counters that are not empty, as plain strings and numbers."""
    from torch._dynamo.utils import counters

    return {k: {str(n): int(c) for n, c in v.items()} for k, v in counters.items() if v}


def compile_error_text(exc: BaseException) -> str:
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
