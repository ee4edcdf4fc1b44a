"""Execution Atlas: a cited, checked knowledge graph of how software runs a model.

>>> import atlas
>>> print(atlas.path("torch.compile", "NVIDIA GPU"))
torch.compile on an NVIDIA GPU: 12 stages, 12 steps

Everything is loaded lazily: ``import atlas`` reads no data and imports neither pydantic nor
rdflib; the first call builds an index of the shipped JSON export.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # spares importing typing: ``import atlas`` must stay cheap
if TYPE_CHECKING:
    from atlas._witness import WitnessRecord, witness
    from atlas._witness.inprocess import observe
    from atlas.checks.verify import check
    from atlas.data._rdflib import dataset_graph as graph
    from atlas.errors import (
        ArgumentTypeError,
        ArgumentValueError,
        AtlasError,
        CycleError,
        DatasetError,
        MissingValueError,
        NetworkRefusedError,
        Problem,
        UnknownIdError,
        UnknownValueError,
    )
    from atlas.models import (
        Atlas,
        AtlasDocument,
        Citation,
        Concept,
        ConceptScheme,
        Evidence,
        ExecutionPath,
        JourneyStep,
        Source,
        Stage,
        Step,
        Technology,
    )
    from atlas.query._render import render
    from atlas.query.paths import (
        atlases,
        citation,
        get,
        load,
        path,
        source,
        stage,
        stages,
        step,
        steps,
        technology,
        values,
    )
    from atlas.query.store import sparql

__all__ = [
    "ArgumentTypeError",
    "ArgumentValueError",
    "Atlas",
    "AtlasDocument",
    "AtlasError",
    "Citation",
    "Concept",
    "ConceptScheme",
    "CycleError",
    "DatasetError",
    "Evidence",
    "ExecutionPath",
    "JourneyStep",
    "MissingValueError",
    "NetworkRefusedError",
    "Problem",
    "Source",
    "Stage",
    "Step",
    "Technology",
    "UnknownIdError",
    "UnknownValueError",
    "WitnessRecord",
    "__version__",
    "atlases",
    "check",
    "citation",
    "get",
    "graph",
    "load",
    "observe",
    "path",
    "render",
    "source",
    "sparql",
    "stage",
    "stages",
    "step",
    "steps",
    "technology",
    "values",
    "witness",
]

_LAZY: dict[str, tuple[str, str]] = {  # public name -> (module, attribute), imported on use
    **{
        name: ("atlas.errors", name)
        for name in (
            "ArgumentTypeError",
            "ArgumentValueError",
            "AtlasError",
            "CycleError",
            "DatasetError",
            "MissingValueError",
            "NetworkRefusedError",
            "Problem",
            "UnknownIdError",
            "UnknownValueError",
        )
    },
    **{
        name: ("atlas.models", name)
        for name in (
            "Atlas",
            "AtlasDocument",
            "Citation",
            "Concept",
            "ConceptScheme",
            "Evidence",
            "ExecutionPath",
            "JourneyStep",
            "Source",
            "Stage",
            "Step",
            "Technology",
        )
    },
    **{
        name: ("atlas.query.paths", name)
        for name in (
            "atlases",
            "citation",
            "get",
            "load",
            "path",
            "source",
            "stage",
            "stages",
            "step",
            "steps",
            "technology",
            "values",
        )
    },
    "check": ("atlas.checks.verify", "check"),
    "graph": ("atlas.data._rdflib", "dataset_graph"),
    "render": ("atlas.query._render", "render"),
    "sparql": ("atlas.query.store", "sparql"),
    "witness": ("atlas._witness", "witness"),
    "observe": ("atlas._witness.inprocess", "observe"),
    "WitnessRecord": ("atlas._witness", "WitnessRecord"),
}
_CHECKED = ("check", "graph", "observe", "witness")  # wrapped by atlas._checked.checked


def __getattr__(name: str) -> object:
    if name == "__version__":
        from atlas._version import __version__  # noqa: PLC0415

        return __version__
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'atlas' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    if name in _CHECKED:  # defined where arguments are taken on trust: checked on the way in
        from atlas._checked import checked  # noqa: PLC0415

        value = checked(name, value)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
