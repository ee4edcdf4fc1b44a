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
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from atlas.models._raw import CapturedGraph, DispatchedOp, ProfiledEvent

if TYPE_CHECKING:
    import torch

    from atlas._witness._progress import Progress

__all__ = [
    "compile_error_text",
    "dispatched_ops",
    "dynamo_counters",
    "profiled_events",
    "recording_backend",
    "reset_dynamo",
]

_KERNEL_KEYS = ("CPU", "CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd")


def dispatched_ops(fn: Callable[[Any], Any], x: Any) -> tuple[DispatchedOp, ...]:
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


def profiled_events(fn: Callable[[Any], Any], x: Any, *, cuda: bool) -> tuple[ProfiledEvent, ...]:
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


def recording_backend(graphs: list[CapturedGraph], progress: Progress) -> Callable[..., Any]:
    """A torch.compile backend that appends each graph to ``graphs``, then runs Inductor."""
    from torch._guards import CompileContext
    from torch._inductor.compile_fx import compile_fx

    def backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
        compile_id = CompileContext.current_compile_id()
        ops = tuple(
            str(getattr(node.target, "__name__", node.target))
            for node in gm.graph.nodes
            if node.op in ("call_function", "call_method", "call_module")
        )
        graphs.append(CapturedGraph(compile_id=str(compile_id), ops=ops, code=gm.code.strip()))
        progress(f"torch.compile: Dynamo captured graph {compile_id} ({len(ops)} ops)")
        return compile_fx(gm, example_inputs)

    return backend


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
