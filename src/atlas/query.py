"""Execution paths and lookups, served from an index of the shipped JSON export (no rdflib).

The index is built once, on first use, from ``dataset/atlas.json``; :func:`path` then answers
from plain dictionaries and memoises each distinct selection.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel

from atlas import _resources
from atlas._names import fold
from atlas.errors import (
    CycleError,
    DatasetError,
    MissingValueError,
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

__all__ = [
    "Index",
    "atlases",
    "citation",
    "fold",
    "get",
    "index",
    "load",
    "path",
    "source",
    "stage",
    "stages",
    "step",
    "steps",
    "technology",
    "value_keys",
]

DEFAULT_ATLAS = "pytorch"
_MAX_CALLS = 1024  # distinct path() calls remembered by their raw arguments


def value_keys(concept: Concept) -> frozenset[str]:
    """Every folded text that names a dimension value: its id, name, label and aliases.

    The one rule for reading a value, shared by ``path()``, SPARQL bindings and the site.
    """
    return frozenset(
        fold(k) for k in (concept.id, concept.name, concept.label, *concept.alt_labels)
    )


@dataclass(frozen=True)
class _Dimension:
    scheme: ConceptScheme
    lookup: Mapping[str, Concept]  # casefolded label, alias, name or id -> value


@dataclass(frozen=True)
class _AtlasIndex:
    atlas: Atlas
    dimensions: tuple[_Dimension, ...]
    steps: tuple[Step, ...]  # live (not deprecated) steps, in curated order
    masks: Mapping[str, int]  # value id -> bit i set when steps[i] applies under that value
    rank: Mapping[str, tuple[bool, int, str]]  # stage id -> its tie-breaking rank
    # stage id -> position in one journey order of all live steps together, when they have one
    # (no cycle): the order of any path is then this order restricted to its stages
    position: Mapping[str, int] | None
    # with a position: the live steps sorted by the position of their from-stage, each as
    # (its bit, from-stage, to-stage, its slots, whether it leaves Python, its index)
    journey: tuple[tuple[int, str, str, list[JourneyStep | None], bool, int], ...]
    names: tuple[str, ...]  # the dimensions' labels, in order
    # with a position: the atlas's stages (id, stage) in journey order
    stages: tuple[tuple[str, Stage], ...]
    # per live step: the step as the n-th step of a journey (slot n), made on first use
    slots: tuple[list[JourneyStep | None], ...]
    # per live step: whether it leaves Python (from a stage in Python to one that is not)
    leaves_python: tuple[bool, ...]


_T = TypeVar("_T", bound=BaseModel)


def _build(cls: type[_T], fields: dict[str, object]) -> _T:
    """An instance of a frozen model from already-valid fields, without validation.

    What ``model_construct`` does for a model whose every field is given, at a fraction of its
    cost; used on the hot path for results assembled from validated records.
    """
    instance = object.__new__(cls)  # pydantic models have no __new__ of their own
    object.__setattr__(instance, "__dict__", fields)
    object.__setattr__(instance, "__pydantic_fields_set__", set(fields))
    object.__setattr__(instance, "__pydantic_extra__", None)
    object.__setattr__(instance, "__pydantic_private__", None)
    return instance


class Index:
    """Dictionaries over one :class:`AtlasDocument`, answering lookups and paths quickly."""

    def __init__(self, document: AtlasDocument) -> None:
        self.document = document
        self.stages = {s.id: s for s in document.stages}
        self.steps = {s.id: s for s in document.steps}
        self.citations = {c.id: c for c in document.citations}
        self.sources = {s.url: s for s in document.sources}
        self.technologies = {t.id: t for t in document.technologies}
        self.schemes = {s.id: s for s in document.schemes}
        self.atlases = {a.id: a for a in document.atlases}
        self._by_atlas: dict[str, list[Step]] = {}  # live steps of each atlas, document order
        for step in document.steps:
            if not step.deprecated:
                self._by_atlas.setdefault(step.atlas, []).append(step)
        # stage id -> its tie-breaking rank in journey orders
        self._rank = {sid: (s.order is None, s.order or 0, sid) for sid, s in self.stages.items()}
        self._atlas_index: dict[str, _AtlasIndex] = {}
        self._paths: dict[tuple[str, tuple[str, ...]], ExecutionPath] = {}
        # path() calls by their raw arguments, so that a repeated call skips resolving values
        self._calls: dict[tuple[object, ...], ExecutionPath] = {}

    # --- lookups -----------------------------------------------------------------------
    def atlas(self, name: str) -> Atlas:
        """The atlas with this id or label (case-insensitive)."""
        found = self.atlases.get(name)
        if found is None:
            folded = name.casefold()
            found = next(
                (a for a in self.atlases.values() if folded in (a.id, a.label.casefold())), None
            )
        if found is None:
            raise UnknownIdError("atlas", name, sorted(self.atlases))
        return found

    def stage(self, stage_id: str) -> Stage:
        """The stage with this id."""
        try:
            return self.stages[stage_id]
        except KeyError:
            raise UnknownIdError("stage", stage_id, sorted(self.stages)) from None

    def step(self, step_id: str) -> Step:
        """The step with this id."""
        try:
            return self.steps[step_id]
        except KeyError:
            raise UnknownIdError("step", step_id, sorted(self.steps)) from None

    def evidence(self, citation_ids: tuple[str, ...]) -> tuple[Evidence, ...]:
        """The citations with these ids, each with its source."""
        items = []
        for cid in citation_ids:
            citation = self.citations.get(cid)
            if citation is None:
                raise UnknownIdError("citation", cid, sorted(self.citations))
            source = self.sources.get(citation.source)
            if source is None:
                raise DatasetError(
                    [
                        Problem(
                            "violation",
                            f"cites an unlisted source <{citation.source}>",
                            subject=cid,
                        )
                    ]
                )
            items.append(Evidence.model_construct(citation=citation, source=source))
        return tuple(items)

    # --- paths -------------------------------------------------------------------------
    def _dimension(self, scheme_id: str) -> _Dimension:
        scheme = self.schemes.get(scheme_id)
        if scheme is None:
            raise UnknownIdError("dimension", scheme_id, sorted(self.schemes))
        lookup: dict[str, Concept] = {}
        for value in scheme.values:
            for key in sorted(value_keys(value)):
                lookup.setdefault(key, value)
        return _Dimension(scheme, lookup)

    def _index_of(self, atlas: Atlas) -> _AtlasIndex:
        cached = self._atlas_index.get(atlas.id)
        if cached is not None:
            return cached
        dimensions = [self._dimension(scheme_id) for scheme_id in atlas.dimensions]
        live = sorted(
            self._by_atlas.get(atlas.id, ()), key=lambda s: (s.order is None, s.order or 0, s.id)
        )
        masks: dict[str, int] = {}
        for dim in dimensions:
            for value in dim.scheme.values:
                masks[value.id] = sum(
                    1 << i
                    for i, step in enumerate(live)
                    if dim.scheme.id in step.when_any or value.id in step.when
                )
        rank = self._rank
        try:
            whole = self._topological(atlas, live, rank)
        except CycleError:
            whole, position = [], None  # some paths may still be acyclic: each sorted on its own
        else:
            position = {sid: i for i, sid in enumerate(whole)}
        empty: list[JourneyStep | None] = [None] * (len(live) + 1)
        slots = tuple(empty.copy() for _ in live)
        leaves = tuple(
            self.stages[s.from_stage].executes_in_python
            and not self.stages[s.to_stage].executes_in_python
            for s in live
        )
        journey: tuple[tuple[int, str, str, list[JourneyStep | None], bool, int], ...] = ()
        if position is not None:
            where = position
            journey = tuple(
                (1 << i, step.from_stage, step.to_stage, slots[i], leaves[i], i)
                for i, step in sorted(enumerate(live), key=lambda item: where[item[1].from_stage])
            )  # sorted is stable: curated order breaks ties
        names = tuple(d.scheme.label for d in dimensions)
        in_order = tuple((sid, self.stages[sid]) for sid in whole)
        built = _AtlasIndex(
            atlas,
            tuple(dimensions),
            tuple(live),
            masks,
            rank,
            position,
            journey,
            names,
            in_order,
            slots,
            leaves,
        )
        self._atlas_index[atlas.id] = built
        return built

    def resolve(
        self, values: tuple[str, ...], named: Mapping[str, str], atlas: str = DEFAULT_ATLAS
    ) -> tuple[Atlas, tuple[Concept, ...]]:
        """Resolve dimension values given by position and by name to concepts of ``atlas``."""
        found = self.atlas(atlas)
        return found, self._resolved(self._index_of(found), values, named)

    def _resolved(
        self, aindex: _AtlasIndex, values: tuple[str, ...], named: Mapping[str, str]
    ) -> tuple[Concept, ...]:
        if not named and len(values) == len(aindex.dimensions):  # the common case, quickly
            quick: list[Concept] = []
            for dim, value in zip(aindex.dimensions, values):  # noqa: B905 - lengths equal
                concept = dim.lookup.get(fold(value))
                if concept is None:
                    break  # the general way below explains what is wrong
                quick.append(concept)
            else:
                return tuple(quick)
        return self._chosen(aindex, values, named)

    @staticmethod
    def _chosen(
        aindex: _AtlasIndex, values: tuple[str, ...], named: Mapping[str, str]
    ) -> tuple[Concept, ...]:
        """The values resolved one by one, with an error that says what is wrong."""
        found = aindex.atlas
        names = list(aindex.names)
        if len(values) > len(names):
            raise UnknownValueError(
                "number of values",
                str(len(values)),
                [str(len(names))],
                extra=f"atlas {found.id!r} has dimensions {', '.join(names)}",
            )
        given: dict[str, str] = dict(zip(names, values, strict=False))
        for key, value in named.items():
            if key not in names:
                raise UnknownValueError(f"dimension of atlas {found.id!r}", key, names)
            if key in given:
                raise UnknownValueError(f"repeated dimension {key!r}; value", value, [given[key]])
            given[key] = value
        chosen: list[Concept] = []
        for dim in aindex.dimensions:
            name = dim.scheme.label
            if name not in given:
                labels = [v.label for v in dim.scheme.values]
                raise MissingValueError(name, found.id, labels, names)
            concept = dim.lookup.get(fold(given[name]))
            if concept is None:
                other = [
                    d.scheme.label
                    for d in aindex.dimensions
                    if d is not dim and fold(given[name]) in d.lookup
                ]
                extra = (
                    f"{given[name]!r} is a {other[0]}: check the order of the values"
                    if other
                    else ""
                )
                raise UnknownValueError(
                    name, given[name], [v.label for v in dim.scheme.values], extra=extra
                )
            chosen.append(concept)
        return tuple(chosen)

    def path(self, *values: str, atlas: str = DEFAULT_ATLAS, **named: str) -> ExecutionPath:
        """The execution path of ``atlas`` under the given dimension values."""
        found = self.atlas(atlas)
        aindex = self._index_of(found)
        chosen = self._resolved(aindex, values, named)
        if not aindex.dimensions:
            raise UnknownValueError(
                "atlas for paths",
                found.id,
                [a.id for a in self.atlases.values() if a.dimensions],
                extra=f"atlas {found.id!r} has no dimensions and so no execution paths",
            )
        key = (found.id, tuple([c.id for c in chosen]))
        cached = self._paths.get(key)
        if cached is None:
            cached = self._paths[key] = self._compute(aindex, chosen)
        return cached

    def _compute(self, aindex: _AtlasIndex, chosen: tuple[Concept, ...]) -> ExecutionPath:
        atlas = aindex.atlas
        masks = aindex.masks
        mask = (1 << len(aindex.steps)) - 1
        for concept in chosen:
            mask &= masks[concept.id]
        journey: list[JourneyStep] = []
        ends: list[JourneyStep] = []
        if aindex.position is not None:
            # one pass over the journey order: a from-stage is only reached by earlier steps
            reached = {atlas.entry_stage or ""}
            for bit, source, target, slots, leaves, i in aindex.journey:
                if mask & bit and source in reached:
                    reached.add(target)
                    number = len(journey) + 1
                    item = slots[number] or self._journey_step(aindex, i, number)
                    journey.append(item)
                    if leaves:
                        ends.append(item)
            # the entry is the first step's from-stage, and every stage reached is on the path
            stages = tuple([s for sid, s in aindex.stages if sid in reached]) if journey else ()
        else:
            picked, order = self._walk(aindex, mask)
            for number, i in enumerate(picked, start=1):
                item = aindex.slots[i][number] or self._journey_step(aindex, i, number)
                journey.append(item)
                if aindex.leaves_python[i]:
                    ends.append(item)
            stages = tuple(map(self.stages.__getitem__, order))
        phrase = " ".join([c.summary_phrase or c.label for c in chosen])  # their .phrase
        n_stages, n_steps = len(stages), len(journey)
        summary = (
            f"{phrase}: {n_stages} stage{'s' * (n_stages != 1)},"
            f" {n_steps} step{'s' * (n_steps != 1)}"
        )
        return _build(
            ExecutionPath,
            {
                "atlas": atlas.id,
                "selection": chosen,
                "summary": summary,
                "stages": stages,
                "steps": tuple(journey),
                "python_ends": tuple(ends),
            },
        )

    def _journey_step(self, aindex: _AtlasIndex, i: int, number: int) -> JourneyStep:
        """The ``i``-th live step as the ``number``-th step of a journey, kept in its slot."""
        step = aindex.steps[i]
        item = _build(
            JourneyStep,
            {
                "number": number,
                "step": step,
                "from_stage": self.stages[step.from_stage],
                "to_stage": self.stages[step.to_stage],
                "evidence": self.evidence(step.citations),
            },
        )
        aindex.slots[i][number] = item
        return item

    def _walk(self, aindex: _AtlasIndex, mask: int) -> tuple[list[int], list[str]]:
        """The path's steps and stages when the atlas as a whole has a cycle (Kahn per path)."""
        live = aindex.steps
        matching = [i for i in range(len(live)) if mask >> i & 1]
        outgoing: dict[str, list[Step]] = {}
        for i in matching:
            outgoing.setdefault(live[i].from_stage, []).append(live[i])
        reached = {aindex.atlas.entry_stage or ""}
        todo = list(reached)
        while todo:
            for step in outgoing.get(todo.pop(), ()):
                if step.to_stage not in reached:
                    reached.add(step.to_stage)
                    todo.append(step.to_stage)
        picked = [i for i in matching if live[i].from_stage in reached]
        order = self._topological(aindex.atlas, [live[i] for i in picked], aindex.rank)
        position = {sid: i for i, sid in enumerate(order)}
        picked.sort(key=lambda i: position[live[i].from_stage])  # stable: curated order first
        return picked, order

    def _topological(
        self, atlas: Atlas, steps: list[Step], rank: Mapping[str, tuple[bool, int, str]]
    ) -> list[str]:
        """Kahn's algorithm from the entry stage; ties broken by curated order, then id."""
        # the endpoints of the path's steps (no steps, no stages), each with its in-degree
        indegree: dict[str, int] = {}
        outgoing: dict[str, list[str]] = {}
        for step in steps:
            indegree.setdefault(step.from_stage, 0)
            indegree[step.to_stage] = indegree.get(step.to_stage, 0) + 1
            outgoing.setdefault(step.from_stage, []).append(step.to_stage)
        nodes = indegree.keys()
        ready = [(rank[n], n) for n, degree in indegree.items() if degree == 0]
        heapq.heapify(ready)
        order: list[str] = []
        while ready:
            _, node = heapq.heappop(ready)
            order.append(node)
            for target in outgoing.get(node, ()):
                indegree[target] -= 1
                if indegree[target] == 0:
                    heapq.heappush(ready, (rank[target], target))
        if len(order) != len(nodes):
            stuck = sorted(n for n in nodes if n not in order)
            cycle_steps = sorted(
                s.id for s in steps if s.from_stage in stuck and s.to_stage in stuck
            )
            raise CycleError(
                [
                    Problem(
                        "violation",
                        f"the steps {', '.join(cycle_steps)} form a cycle through the stages "
                        f"{', '.join(stuck)}; a path must have a journey order",
                        subject=atlas.id,
                        hint="remove or re-condition one of these steps",
                        code="cycle",
                    )
                ],
                source=f"atlas {atlas.id!r}",
            )
        return order

    def all_paths(self, atlas: str = DEFAULT_ATLAS) -> list[ExecutionPath]:
        """Every combination of dimension values of ``atlas``, in curated order."""
        found = self.atlas(atlas)
        if not found.dimensions:
            return []
        aindex = self._index_of(found)
        combos: list[tuple[Concept, ...]] = [()]
        for dim in aindex.dimensions:
            combos = [(*c, v) for c in combos for v in dim.scheme.values]
        return [self.path(*(v.id for v in combo), atlas=found.id) for combo in combos]


@functools.cache
def index() -> Index:
    """The index of the shipped export, built on first use."""
    return Index(load())


@functools.cache
def load() -> AtlasDocument:
    """The whole shipped dataset, read once from the committed JSON export.

    Raises:
        DatasetError: when the shipped export is missing or invalid.
    """
    import pydantic  # noqa: PLC0415 - only needed for its error type

    file = _resources.export_file()
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise DatasetError(
            [
                Problem(
                    "violation",
                    "the JSON export is missing",
                    file=f"dataset/{file.name}",
                    hint="run 'atlas export' to generate it",
                )
            ],
            source="shipped export",
        ) from None
    try:
        return AtlasDocument.model_validate_json(data)
    except pydantic.ValidationError as error:
        problems = [
            Problem(
                "violation",
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}",
                file=f"dataset/{file.name}",
                code=str(e["type"]),
            )
            for e in error.errors()
        ]
        raise DatasetError(problems, source="shipped export") from None


def path(*values: str, atlas: str = DEFAULT_ATLAS, **dimensions: str) -> ExecutionPath:
    """The execution path of an atlas under one value of each of its dimensions.

    Values are given in the atlas's dimension order or by dimension name, as labels, aliases or
    ids, case-insensitively.

    >>> print(path("torch.compile", "NVIDIA GPU"))
    torch.compile on an NVIDIA GPU: 12 stages, 12 steps
    >>> path(mode="eager", device="cpu").summary
    'eager mode on a CPU: 5 stages, 4 steps'

    Raises:
        UnknownValueError: a value no dimension knows; the message lists the valid ones.
        UnknownIdError: an unknown atlas.
    """
    idx = index()
    key = (atlas, values, *dimensions.items()) if dimensions else (atlas, values)
    found = idx._calls.get(key)  # noqa: SLF001 - the module's own memo on its index
    if found is None:
        found = idx.path(*values, atlas=atlas, **dimensions)
        if len(idx._calls) < _MAX_CALLS:  # noqa: SLF001 - bounded: values come from users
            idx._calls[key] = found  # noqa: SLF001
    return found


def atlases() -> tuple[Atlas, ...]:
    """Every atlas of the dataset, in curated order."""
    return load().atlases


def get(name: str) -> Atlas:
    """The atlas with this id or label, e.g. ``get("pytorch")``."""
    return index().atlas(name)


def stages(atlas: str | None = None) -> tuple[Stage, ...]:
    """Every stage, or those of one atlas."""
    found = None if atlas is None else index().atlas(atlas).id
    return tuple(s for s in load().stages if found is None or found in s.atlases)


def steps(atlas: str | None = None) -> tuple[Step, ...]:
    """Every step, or those of one atlas, in curated order."""
    found = None if atlas is None else index().atlas(atlas).id
    return tuple(s for s in load().steps if found is None or s.atlas == found)


def stage(stage_id: str) -> Stage:
    """The stage with this id, e.g. ``stage("torchdynamo")``.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
    """
    return index().stage(stage_id)


def step(step_id: str) -> Step:
    """The step with this id.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
    """
    return index().step(step_id)


def technology(technology_id: str) -> Technology:
    """The technology with this id."""
    try:
        return index().technologies[technology_id]
    except KeyError:
        raise UnknownIdError("technology", technology_id, sorted(index().technologies)) from None


def citation(citation_id: str) -> Citation:
    """The citation with this id."""
    try:
        return index().citations[citation_id]
    except KeyError:
        raise UnknownIdError("citation", citation_id, sorted(index().citations)) from None


def source(url_or_id: str) -> Source:
    """The source with this URL or short id."""
    idx = index()
    found = idx.sources.get(url_or_id) or next(
        (s for s in idx.sources.values() if s.id == url_or_id), None
    )
    if found is None:
        raise UnknownIdError("source", url_or_id, sorted(s.id for s in idx.sources.values()))
    return found
