"""In-process figures: ``atlas.path()`` as users call it, and the SPARQL path query.

``atlas.path("torch.compile", "NVIDIA GPU")`` is timed memoised (a repeated call) and with every
memo the public call goes through cleared before each call (:func:`path_memos` finds them), the
loaded export and its index kept. The SPARQL path query runs through pyoxigraph, against the same
text prepared once by rdflib, in alternating batches.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph
from _measure import Line, Spread, batch, fmt_time, interleave, samples, verdict
from startup import path_bindings

from atlas.data import _resources
from atlas.query import store
from atlas.query._results import Solutions

__all__ = ["CALL", "Memos", "path_memos", "warm_path", "warm_sparql"]

CALL = ("torch.compile", "NVIDIA GPU")  # as the README's first example calls it
SHOWN = '`atlas.path("torch.compile", "NVIDIA GPU")`'

# Where a memo on the way of atlas.path() may live: functools caches in these modules (and on
# their classes) are cleared, except those that hold the loaded data itself.
_MODULES = (
    "atlas.query.paths",
    "atlas.query._selection",
    "atlas.query._reading",
    "atlas.query._index",
    "atlas.query._atlasindex",
    "atlas.query._bittables",
    "atlas.models._names",
)
_LOADED = frozenset({"index", "load", "vocabulary", "_stage_names", "_step_names"})


@dataclass
class Memos:
    """The memos on the way of ``atlas.path()``: their names, and how to empty each."""

    names: list[str] = field(default_factory=list)
    clears: list[Callable[[], None]] = field(default_factory=list)

    def add(self, name: str, clear: Callable[[], None]) -> None:
        """One more memo."""
        self.names.append(name)
        self.clears.append(clear)

    def clear(self) -> None:
        """Empty every memo."""
        for clear in self.clears:
            clear()


def _caches(module_name: str) -> list[tuple[str, Any]]:
    """The functools caches of a module and of its classes: (qualified name, the cache)."""
    module = importlib.import_module(module_name)
    found: list[tuple[str, Any]] = []
    owners: list[tuple[str, dict[str, object]]] = [(module_name, vars(module))]
    owners += [
        (f"{module_name}.{name}", dict(vars(value)))
        for name, value in vars(module).items()
        if inspect.isclass(value) and value.__module__ == module_name
    ]
    for prefix, namespace in owners:
        for name, value in namespace.items():
            if callable(getattr(value, "cache_clear", None)) and name not in _LOADED:
                found.append((f"{prefix}.{name}", value))
    return found


def path_memos() -> Memos:
    """Every memo ``atlas.path()`` goes through, once the index is built (call it first).

    The raw-argument memo (``Index._calls``), each built atlas index's memo of paths
    (``AtlasIndex.paths``), and any functools cache of the modules that resolve the arguments
    (none at the time of writing; found by looking, so that a new one is cleared too). Not
    cleared: the export, its index and the vocabulary (``paths.load``, ``paths.index``,
    ``paths.vocabulary``), the loaded data that every call reads.
    """
    from atlas.query import paths  # noqa: PLC0415

    index = paths.index()
    memos = Memos()
    memos.add("Index._calls (raw arguments -> path)", index._calls.clear)  # noqa: SLF001
    for atlas_id, aindex in index._atlas_index.items():  # noqa: SLF001
        memos.add(f"AtlasIndex.paths of {atlas_id!r} (values -> path)", aindex.paths.clear)
    seen: set[int] = set()
    for module_name in _MODULES:
        for name, cache in _caches(module_name):
            if id(cache) not in seen:  # a cache imported into several modules is one cache
                seen.add(id(cache))
                memos.add(f"{name} (functools cache)", cache.cache_clear)
    return memos


def warm_path(repeat: int) -> list[Line]:
    """``atlas.path()`` once the index is built: memoised, and with every memo cleared."""
    import atlas  # noqa: PLC0415
    from atlas.query import paths  # noqa: PLC0415

    first = atlas.path(*CALL)
    memos = path_memos()
    memo = samples(lambda: atlas.path(*CALL), 20_000, repeat)

    def fresh() -> object:
        memos.clear()
        return atlas.path(*CALL)

    again = fresh()
    recomputed = again is not first and again == first
    pairs = interleave(batch(fresh, 500), batch(memos.clear, 500), repeat)
    cleared = Spread(tuple(a - b for a, b in zip(pairs.a, pairs.b, strict=True)))
    index = paths.index()
    found, _ = index.resolve(CALL, {}, "pytorch")
    aindex = index._index_of(found)  # noqa: SLF001 - the index of the atlas, built
    chosen = index._resolved(aindex, CALL, {})  # noqa: SLF001
    compute = samples(lambda: index._compute(aindex, chosen), 500, repeat)  # noqa: SLF001
    lines: list[Line] = [
        (f"warm {SHOWN}, memoised", memo.show(), "<= 1 µs", verdict(memo.median <= 1e-6)),
        (
            f"warm {SHOWN}, every memo cleared before each call",
            cleared.show(),
            "<= 10 µs",
            verdict(cleared.median <= 10e-6 and recomputed),
        ),
        ("  of which clearing the memos (subtracted)", Spread(pairs.b).show(), "", ""),
        ("  of which `Index._compute` (values resolved)", compute.show(), "", ""),
        (
            f"Cleared before each call: {'; '.join(memos.names)}. Kept: the loaded export, its "
            "index and the vocabulary (`paths.load`, `paths.index`, `paths.vocabulary`). The "
            "cleared calls alternate with batches of clearing alone, whose time is subtracted "
            f"pair by pair; {repeat} batches of 500 calls (memoised: of 20,000); median (min-max)."
        ),
    ]
    if not recomputed:
        lines.append(
            "WARNING: after clearing, the call returned the memoised object: a memo was not "
            "cleared, so the 'memo cleared' figure is not what it says."
        )
    return lines


def warm_sparql(repeat: int) -> list[Line]:
    """The path query on the shipped data: pyoxigraph against rdflib's prepared query."""
    from rdflib import Graph, URIRef  # noqa: PLC0415
    from rdflib.plugins.sparql import prepareQuery  # noqa: PLC0415

    text = store.named_query("path").text
    bindings = {k: pyoxigraph.NamedNode(v) for k, v in path_bindings().items()}
    graph = Graph()
    for file in _resources.turtle_files():
        graph.parse(data=file.read_text(encoding="utf-8"), format="turtle")
    prepared = prepareQuery(text)
    initial = {k: URIRef(v) for k, v in path_bindings().items()}
    rows_ox = store.execute(text, bindings)
    rows_rdf = list(graph.query(prepared, initBindings=initial))
    same = isinstance(rows_ox, Solutions) and len(rows_ox.rows) == len(rows_rdf)
    pairs = interleave(
        batch(lambda: list(graph.query(prepared, initBindings=initial)), 5),
        batch(lambda: store.execute(text, bindings), 200),
        repeat,
    )
    oxigraph = Spread(pairs.b)
    composite = samples(lambda: store.path("compile", "gpu"), 200, repeat)
    ratio = pairs.ratios.median
    return [
        (
            "warm SPARQL path query (pyoxigraph)",
            oxigraph.show(),
            "<= 1 ms",
            verdict(oxigraph.median <= 1e-3),
        ),
        (
            "  rdflib prepared query / pyoxigraph",
            pairs.show("rdflib", "pyoxigraph") + ("" if same else " (rows differ!)"),
            ">= 20x",
            verdict(ratio >= 20 and same),
        ),
        ("  store.path(): resolve + path + reachability", composite.show(), "", ""),
        (
            f"Batches alternate: 5 rdflib calls, 200 pyoxigraph calls, {repeat} pairs; the ratio "
            f"is per pair of batches (time per call). Both return {len(rows_rdf)} rows."
        ),
        (
            f"pyoxigraph parses the query text on every call; rdflib's is prepared once "
            f"({fmt_time(oxigraph.median)} per call here includes the parse)."
        ),
    ]
