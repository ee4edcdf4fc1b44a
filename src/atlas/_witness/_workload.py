"""What a witness run runs: the witness's tiny model, or a model that the user's factory builds.

A factory is named as ``module:function`` (imported as ``python -m`` would, from the current
folder) or ``path/to/file.py:function``. It is called with no arguments, or with ``device=`` when
it takes a parameter of that name, and returns the model and its example inputs (a pair), or the
model alone (then ``--inputs`` names a second factory for the inputs). Inputs are one tensor, a
tuple or list of positional arguments, or a dict of keyword arguments. The model (an
``nn.Module`` or any callable) and every tensor of the inputs are moved to the run's device.

:func:`check_spec` (no torch, no import) is called by the parent before it starts the child; the
rest runs in the child. A problem with the factory is a :class:`ModelSpecError` naming the spec.
"""

# torch is imported inside functions only, so that importing this module stays cheap.
# ruff: noqa: PLC0415

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas._witness.errors import ModelSpecError

__all__ = [
    "Workload",
    "check_spec",
    "held_workload",
    "load_workload",
    "tiny_block_workload",
    "tiny_workload",
]

_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")  # a module, or a name in one


@dataclass(frozen=True)
class Workload:
    """A model and the inputs it is called with, on the run's device."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    description: str
    source: str | None  # the factory as given; None for the witness's tiny model

    def __call__(self, fn: Callable[..., Any] | None = None) -> Any:
        """Call ``fn`` (by default the model) on the inputs."""
        return (self.fn if fn is None else fn)(*self.args, **self.kwargs)


def check_spec(spec: str, option: str = "--model") -> tuple[str, str]:
    """Split ``spec`` into what to import and the attribute; raise if it cannot name a factory.

    >>> check_spec("tests/witness_models.py:transformer_block")
    ('tests/witness_models.py', 'transformer_block')
    >>> check_spec("mypkg.models:build")
    ('mypkg.models', 'build')
    """
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        msg = f"{option} {spec!r}: expected 'module:function' or 'path/to/file.py:function'"
        raise ModelSpecError(msg)
    if not _DOTTED.match(name):
        raise ModelSpecError(f"{option} {spec!r}: {name!r} is not a Python name")
    if where.endswith(".py") or "/" in where or "\\" in where:
        if not Path(where).is_file():
            raise ModelSpecError(f"{option} {spec!r}: no file {where!r}")
    elif not _DOTTED.match(where):
        raise ModelSpecError(f"{option} {spec!r}: {where!r} is neither a module nor a .py file")
    return where, name


def _import(where: str, spec: str, option: str) -> Any:
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(where).resolve()
        sys.path.insert(0, str(path.parent))  # the file may import its neighbours
        name = f"atlas_witness_model_{abs(hash(str(path)))}"
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise ModelSpecError(f"{option} {spec!r}: {where!r} cannot be imported")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        module_spec.loader.exec_module(module)
        return module
    sys.path.insert(0, str(Path.cwd()))  # as `python -m` does
    return importlib.import_module(where)


def _factory(spec: str, option: str) -> Callable[..., Any]:
    where, name = check_spec(spec, option)
    try:
        found: Any = _import(where, spec, option)
    except ModelSpecError:
        raise
    except Exception as error:  # noqa: BLE001 - the user's module may raise anything
        detail = f"{type(error).__name__}: {error}"
        raise ModelSpecError(f"{option} {spec!r}: importing {where!r} failed: {detail}") from None
    for part in name.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise ModelSpecError(f"{option} {spec!r}: {where!r} has no {name!r}") from None
    if not callable(found):
        raise ModelSpecError(f"{option} {spec!r}: {name!r} is not callable")
    return found  # type: ignore[no-any-return]  # checked callable above


def _call(factory: Callable[..., Any], spec: str, option: str, device: str) -> Any:
    try:
        takes_device = "device" in inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        takes_device = False
    try:
        return factory(device=device) if takes_device else factory()
    except Exception as error:  # noqa: BLE001 - the user's factory may raise anything
        detail = f"{type(error).__name__}: {error}"
        raise ModelSpecError(f"{option} {spec!r}: calling it failed: {detail}") from None


def _to_device(value: Any, device: str) -> Any:
    from torch.utils._pytree import tree_map

    def move(item: Any) -> Any:
        return item.to(device) if hasattr(item, "to") and hasattr(item, "device") else item

    return tree_map(move, value)


def _inputs(value: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if isinstance(value, dict):
        return (), dict(value)
    if isinstance(value, (tuple, list)):
        return tuple(value), {}
    return (value,), {}


def load_workload(model: str, inputs: str | None, device: str) -> Workload:
    """Build the model (and its inputs) from the factories ``model`` and ``inputs``."""
    import torch

    built = _call(_factory(model, "--model"), model, "--model", device)
    if inputs is not None:
        fn, example = built, _call(_factory(inputs, "--inputs"), inputs, "--inputs", device)
    elif isinstance(built, (tuple, list)) and len(built) == 2 and callable(built[0]):  # noqa: PLR2004
        fn, example = built
    else:
        msg = (
            f"--model {model!r} returned {type(built).__name__}, not (model, inputs): return the "
            "pair, or name a factory of the inputs with --inputs"
        )
        raise ModelSpecError(msg)
    if not callable(fn):
        raise ModelSpecError(f"--model {model!r}: the model it returned is not callable")
    if isinstance(fn, torch.nn.Module):
        fn = fn.to(device).eval()
    args, kwargs = _inputs(_to_device(example, device))
    return Workload(fn, args, kwargs, _describe(fn, args, kwargs), model)


def _describe(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The model in one line: its class and parameter count, and the shapes of its inputs."""
    import torch

    name = type(fn).__name__ if isinstance(fn, torch.nn.Module) else getattr(fn, "__name__", "fn")
    params = sum(p.numel() for p in fn.parameters()) if isinstance(fn, torch.nn.Module) else None
    shapes = [
        "x".join(map(str, a.shape)) if isinstance(a, torch.Tensor) else type(a).__name__
        for a in (*args, *kwargs.values())
    ]
    counted = f" ({params:,} parameters)" if params is not None else ""
    return f"{name}{counted} on inputs {', '.join(shapes) or '(none)'}"


def held_workload(model: Any, inputs: Any, device: str) -> Workload:
    """A model the caller holds, and its inputs, moved to ``device`` (a module in place)."""
    import torch

    if not callable(model):
        raise ModelSpecError(f"the model to observe is not callable: {type(model).__name__}")
    if isinstance(model, torch.nn.Module):
        model = model.to(device)
    args, kwargs = _inputs(_to_device(inputs, device))
    return Workload(model, args, kwargs, _describe(model, args, kwargs), None)


def tiny_workload(device: str) -> Workload:
    """The witness's own tiny model (see ``_tiny_model``)."""
    from atlas._witness._tiny_model import MODEL, build_model

    fn, x = build_model(device)
    return Workload(fn, (x,), {}, MODEL, None)


def tiny_block_workload(device: str) -> Workload:
    """The tiny model's block without its graph break, an ``nn.Module`` (for torch.export)."""
    from atlas._witness._tiny_model import BLOCK, build_block

    module, x = build_block(device)
    return Workload(module, (x,), {}, BLOCK, None)
