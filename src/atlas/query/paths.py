"""Execution paths and lookups, served from an index of the shipped JSON export (no rdflib).

The index is built once, on first use, from ``dataset/atlas.json``; :func:`path` then answers
from plain dictionaries and memoises each distinct selection.
"""

from __future__ import annotations

import functools
import heapq
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from atlas.data import _resources
from atlas.errors import (
    ArgumentTypeError,
    BranchNotApplicableError,
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
from atlas.models._names import fold, optional_text, text

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
# what the parameters take, as the errors of a wrong argument say
_VALUE = "a str (a dimension value, e.g. 'eager' or 'cpu')"
_ATLAS = "a str (an atlas id or label, e.g. 'pytorch')"
_OPTIONAL_ATLAS = "a str (an atlas id or label, e.g. 'pytorch') or None"
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
    lookup: dict[str, Concept]  # casefolded label, alias, name or id -> value


class _Value:
    """A dimension value of one atlas with its step mask: one object per value, however named.

    Compared and hashed by identity, so that a tuple of them keys the atlas's memo of paths
    without building a key.
    """

    __slots__ = ("concept", "mask", "selection")

    def __init__(self, concept: Concept, mask: int) -> None:
        self.concept = concept
        self.mask = mask  # the steps that apply under this value
        self.selection = (concept,)  # its part of a path's selection, joined by +

    def __repr__(self) -> str:
        return f"_Value({self.concept.id!r}, {self.mask:#b})"


_I = TypeVar("_I")
_MAX_WIDTH = 11  # bits per lookup table of a _BitTable or _RankedTable: at most 2048 entries each


def _subsets(size: int) -> list[tuple[int, int]]:
    """For bits 1 to 2**size - 1 in turn: the index of the highest set bit, and the bits without it.

    Tables indexed by bits are filled in this order, each entry from an earlier one: the entry
    without the highest bit, then the highest bit's item.
    """
    return [
        (bits.bit_length() - 1, bits ^ 1 << bits.bit_length() - 1) for bits in range(1, 1 << size)
    ]


class _BitTable(Generic[_I]):
    """Items numbered 0..n-1, looked up as the set bits of a mask, a few bits at a time.

    :meth:`select` gives the items whose bits are set, in order, and the union of the ints
    given with each of them (0 without): a lookup in a table per ``width`` bits (at most
    2**11 entries each) where a loop would visit every item. The tables depend only on the
    items, never on a query.
    """

    __slots__ = ("chunks", "low", "width")

    def __init__(self, items: Sequence[_I], extra: Sequence[int] = ()) -> None:
        count = -(-len(items) // _MAX_WIDTH)  # so many tables, as few as the width allows
        self.width = -(-len(items) // count) if items else 1
        self.low = (1 << self.width) - 1
        chunks: list[tuple[tuple[tuple[_I, ...], int], ...]] = []
        for base in range(0, len(items), self.width):
            entries: list[tuple[tuple[_I, ...], int]] = [((), 0)]
            for top, rest in _subsets(min(self.width, len(items) - base)):
                found, union = entries[rest]
                more = extra[base + top] if extra else 0
                entries.append(((*found, items[base + top]), union | more))
            chunks.append(tuple(entries))
        self.chunks = tuple(chunks)

    def select(self, mask: int) -> tuple[tuple[_I, ...], int]:
        """The items whose bits are set in ``mask``, and the union of their ints."""
        chunks = self.chunks
        if len(chunks) == 2:  # noqa: PLR2004 - two tables (12 to 22 items), without a loop
            first, a = chunks[0][mask & self.low]
            second, b = chunks[1][mask >> self.width]
            return first + second, a | b
        found: tuple[_I, ...] = ()
        union = 0
        low, width = self.low, self.width
        for chunk in chunks:
            items, bits = chunk[mask & low]
            found += items
            union |= bits
            mask >>= width
        return found, union


_MAX_ENTRIES = 1 << 13  # entries of the tables of a _RankedTable, all chunks together


def _ranked_width(count: int) -> int | None:
    """The chunk width giving a _RankedTable the fewest chunks, then the fewest entries.

    None when even the smallest tables would exceed ``_MAX_ENTRIES``.
    """
    best: tuple[int, int, int] | None = None
    for width in range(1, max(1, min(count, _MAX_WIDTH)) + 1):
        # a table per chunk and per rank of its first item (0..base), 2**bits entries each
        entries = sum((base + 1) << min(width, count - base) for base in range(0, count, width))
        candidate = (-(-count // width), entries, width)
        if entries <= _MAX_ENTRIES and (best is None or candidate < best):
            best = candidate
    return best[2] if best else None


class _RankedTable(Generic[_I]):
    """Items picked by the set bits of a mask, each as the variant for its rank among them.

    ``variants[k][r]`` stands for item ``k`` when ``r`` picked items come before it (so
    ``r <= k``), e.g. a step as the (r+1)-th step of a journey. :meth:`select` gives the
    picked items' variants in order, and the union of the ints given with them: one lookup
    per chunk of bits, in the table for that chunk and the rank of its first pick. Every
    entry is made when the table is built, from the items alone; none on a query. Where
    such tables would hold more than ``_MAX_ENTRIES`` entries, the items are picked from a
    :class:`_BitTable` and each variant then looked up by its rank.
    """

    __slots__ = ("low", "plain", "tables", "unions", "width")

    def __init__(self, variants: Sequence[tuple[_I, ...]], extra: Sequence[int] = ()) -> None:
        width = _ranked_width(len(variants))
        self.plain = None if width else _BitTable(variants, extra)
        self.width = width or 1
        self.low = (1 << self.width) - 1
        tables: list[tuple[tuple[tuple[_I, ...], ...], ...]] = []
        unions: list[tuple[int, ...]] = []
        for base in range(0, len(variants) if width else 0, self.width):
            size = min(self.width, len(variants) - base)
            tops = _subsets(size)
            chunk_unions = [0]
            for top, rest in tops:
                chunk_unions.append((chunk_unions[rest] | extra[base + top]) if extra else 0)
            unions.append(tuple(chunk_unions))
            ranked = []
            for rank in range(base + 1):
                table: list[tuple[_I, ...]] = [()]
                for top, rest in tops:
                    before = table[rest]
                    table.append((*before, variants[base + top][rank + len(before)]))
                ranked.append(tuple(table))
            tables.append(tuple(ranked))
        self.tables = tuple(tables)
        self.unions = tuple(unions)

    def select(self, mask: int) -> tuple[tuple[_I, ...], int]:
        """The variants of the items whose bits are set in ``mask``, and the union of their ints."""
        tables, unions = self.tables, self.unions
        if len(tables) == 2:  # noqa: PLR2004 - two chunks, without a loop
            low, high = mask & self.low, mask >> self.width
            first = tables[0][0][low]
            return first + tables[1][len(first)][high], unions[0][low] | unions[1][high]
        if self.plain is not None:
            items, union = self.plain.select(mask)
            return tuple([variant[r] for r, variant in enumerate(items)]), union
        found: tuple[_I, ...] = ()
        union = 0
        low, width = self.low, self.width
        for table, chunk_unions in zip(tables, unions, strict=True):
            bits = mask & low
            found += table[len(found)][bits]
            union |= chunk_unions[bits]
            mask >>= width
        return found, union


@dataclass(frozen=True)
class _AtlasIndex:
    atlas: Atlas
    dimensions: tuple[_Dimension, ...]
    steps: tuple[Step, ...]  # live (not deprecated) steps, in curated order
    # Steps are numbered in journey order (curated order when the atlas has a cycle): bit j
    # of a step mask stands for the j-th step in that order.
    full: int  # every step
    rank: Mapping[str, tuple[bool, int, str]]  # stage id -> its tie-breaking rank
    # stage id -> position in one journey order of all live steps together, when they have one
    # (no cycle): the order of any path is then this order restricted to its stages, and
    # bit p of a stage mask stands for the stage at position p
    position: Mapping[str, int] | None
    # with a position: per step in journey order, (its bit, its from-stage's bit, its
    # to-stage's bit, its index j in journey order)
    journey: tuple[tuple[int, int, int, int], ...]
    entry: int  # with a position: the entry stage's bit
    # with a position: step bits -> the steps numbered from 1 (variants, below), and the
    # union of their from- and to-stage bits
    step_table: _RankedTable[JourneyStep]
    stages_bits: int  # with a position: how many stage bits (the atlas's stages)
    stage_table: _BitTable[Stage]  # with a position: stage bits -> the stages
    names: tuple[str, ...]  # the dimensions' labels, in order
    # the dimensions' lookups, in order: casefolded label, alias, name or id -> the value
    lookups: tuple[dict[str, _Value], ...]
    paths: dict[tuple[object, ...], ExecutionPath]  # memo: the paths computed, by their values
    plain: int  # the steps in no branch: the only ones a path has unless a branch is asked for
    # the branches of the atlas's steps: every folded label, alias, name or id -> the branch
    branches: dict[str, _Value]
    # per live step in journey order: the step as the 1st, 2nd... step of a journey, as far as
    # it can come (its own place in journey order; any place when the atlas has a cycle)
    variants: tuple[tuple[JourneyStep, ...], ...]


_T = TypeVar("_T", bound=BaseModel)


_CONCEPT = operator.attrgetter("concept")
_new = object.__new__
# pydantic keeps these four in slots of BaseModel: their descriptors set them directly
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _build(cls: type[_T], fields: dict[str, object], names: set[str] | None = None) -> _T:
    """An instance of a frozen model from already-valid fields, without validation.

    What ``model_construct`` does for a model whose every field is given, at a fraction of its
    cost; used on the hot path for results assembled from validated records. ``names``, the
    set of the fields' names, may be shared by instances: a frozen model never changes it
    (pydantic copies it before updating a copy).
    """
    instance = _new(cls)  # pydantic models have no __new__ of their own
    _set_dict(instance, fields)
    _set_fields_set(instance, set(fields) if names is None else names)
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance


# the fields' names, shared by every path and every numbered step made with _build
_PATH_FIELDS = set(ExecutionPath.model_fields)
_STEP_FIELDS = set(JourneyStep.model_fields)


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
        self._atlas_index: dict[str, _AtlasIndex] = {}  # each with its memo of paths
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

    def concept(self, concept_id: str) -> Concept:
        """The concept with this id (``scheme/value``), e.g. a branch."""
        scheme = self.schemes.get(concept_id.split("/", 1)[0])
        found = next((c for c in scheme.values if c.id == concept_id), None) if scheme else None
        if found is None:
            raise UnknownIdError("concept", concept_id, [])
        return found

    def _index_of(self, atlas: Atlas) -> _AtlasIndex:
        cached = self._atlas_index.get(atlas.id)
        if cached is not None:
            return cached
        dimensions = [self._dimension(scheme_id) for scheme_id in atlas.dimensions]
        live = sorted(
            self._by_atlas.get(atlas.id, ()), key=lambda s: (s.order is None, s.order or 0, s.id)
        )
        rank = self._rank
        try:
            whole = self._topological(atlas, live, rank)
        except CycleError:
            whole, position = [], None  # some paths may still be acyclic: each sorted on its own
            order = list(range(len(live)))
        else:
            position = {sid: p for p, sid in enumerate(whole)}
            where = position  # sorted is stable: curated order breaks ties
            order = sorted(range(len(live)), key=lambda i: where[live[i].from_stage])
        lookups: list[dict[str, _Value]] = []
        for dim in dimensions:
            wrapped = {
                value.id: _Value(
                    value,
                    sum(
                        1 << j
                        for j, i in enumerate(order)
                        if dim.scheme.id in live[i].when_any or value.id in live[i].when
                    ),
                )
                for value in dim.scheme.values
            }
            lookups.append({key: wrapped[value.id] for key, value in dim.lookup.items()})
        in_branch: dict[str, int] = {}
        for j, i in enumerate(order):
            branch_id = live[i].branch
            if branch_id is not None:
                in_branch[branch_id] = in_branch.get(branch_id, 0) | 1 << j
        branches: dict[str, _Value] = {}
        for concept_id, mask in sorted(in_branch.items()):
            branch = _Value(self.concept(concept_id), mask)
            for key in sorted(value_keys(branch.concept)):
                branches.setdefault(key, branch)
        bits = {sid: 1 << p for p, sid in enumerate(whole)}
        ends = [(bits[live[i].from_stage], bits[live[i].to_stage]) for i in order] if bits else None
        # in journey order a step comes at most as the (j+1)-th; with a cycle, anywhere
        variants = tuple(
            self._numbered(live[i], j + 1 if ends else len(live)) for j, i in enumerate(order)
        )
        built = _AtlasIndex(
            atlas=atlas,
            dimensions=tuple(dimensions),
            steps=tuple(live),
            full=(1 << len(live)) - 1,
            rank=rank,
            position=position,
            journey=tuple((1 << j, *ends[j], j) for j in range(len(order))) if ends else (),
            entry=bits.get(atlas.entry_stage or "", 0),
            # with each step, its from-stage's bit shifted above every stage bit, and its
            # to-stage's bit: one union then gives both the from-stages and the to-stages
            step_table=_RankedTable(
                variants if ends else (), [f << len(whole) | t for f, t in ends or ()]
            ),
            stages_bits=len(whole),
            stage_table=_BitTable([self.stages[sid] for sid in whole]),
            names=tuple(d.scheme.label for d in dimensions),
            lookups=tuple(lookups),
            paths={},
            variants=variants,
            plain=((1 << len(live)) - 1) & ~functools.reduce(operator.or_, in_branch.values(), 0),
            branches=branches,
        )
        self._atlas_index[atlas.id] = built
        return built

    def resolve(
        self, values: tuple[str, ...], named: Mapping[str, str], atlas: str = DEFAULT_ATLAS
    ) -> tuple[Atlas, tuple[Concept, ...]]:
        """Resolve dimension values given by position and by name to concepts of ``atlas``."""
        found = self.atlas(atlas)
        chosen = self._resolved(self._index_of(found), values, named)
        return found, tuple(map(_CONCEPT, chosen))

    def _resolved(
        self, aindex: _AtlasIndex, values: tuple[str, ...], named: Mapping[str, str]
    ) -> tuple[_Value, ...]:
        if not named and len(values) == len(aindex.lookups):  # the common case, quickly
            chosen = tuple(map(dict.get, aindex.lookups, map(fold, values)))
            if all(chosen):  # a miss is None
                return chosen  # type: ignore[return-value]  # no None left
        return self._chosen(aindex, values, named)  # explains what is wrong

    @staticmethod
    def _chosen(
        aindex: _AtlasIndex, values: tuple[str, ...], named: Mapping[str, str]
    ) -> tuple[_Value, ...]:
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
        chosen: list[_Value] = []
        for dim, lookup in zip(aindex.dimensions, aindex.lookups, strict=True):
            name = dim.scheme.label
            if name not in given:
                labels = [v.label for v in dim.scheme.values]
                raise MissingValueError(name, found.id, labels, names)
            known = lookup.get(fold(given[name]))
            if known is None:
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
            chosen.append(known)
        return tuple(chosen)

    def path(
        self,
        *values: str,
        atlas: str = DEFAULT_ATLAS,
        branches: tuple[str, ...] = (),
        **named: str,
    ) -> ExecutionPath:
        """The execution path of ``atlas`` under the given dimension values (and branches)."""
        # an atlas given by its id, with its index built, needs no lookup
        aindex = self._atlas_index.get(atlas) or self._index_of(self.atlas(atlas))
        # values given positionally as keys of the lookups (folded) are found at once
        chosen = tuple(map(dict.get, aindex.lookups, values))
        if named or len(values) != len(aindex.lookups) or not all(chosen):  # a miss is None
            chosen = self._resolved(aindex, values, named)
        if not chosen:
            found = aindex.atlas
            raise UnknownValueError(
                "atlas for paths",
                found.id,
                [a.id for a in self.atlases.values() if a.dimensions],
                extra=f"atlas {found.id!r} has no dimensions and so no execution paths",
            )
        key: tuple[object, ...] = chosen
        picked: tuple[_Value, ...] = ()
        if branches:
            picked = self._branches(aindex, branches)
            key = (*chosen, *picked)
        cached = aindex.paths.get(key)
        if cached is None:
            cached = self._compute(aindex, chosen, picked)  # type: ignore[arg-type]
            self._check_branches(aindex, chosen, picked)  # type: ignore[arg-type]
            aindex.paths[key] = cached
        return cached

    def branch(self, atlas: str, name: str) -> Concept:
        """The branch of ``atlas`` with this label, alias, name or id (graph breaks)."""
        (picked,) = self._branches(self._index_of(self.atlas(atlas)), (name,))
        return picked.concept

    @staticmethod
    def _branches(aindex: _AtlasIndex, names: tuple[str, ...]) -> tuple[_Value, ...]:
        """The branches named, in curated order, each once."""
        picked: dict[int, _Value] = {}
        for name in names:
            branch = aindex.branches.get(fold(name)) if isinstance(name, str) else None
            if branch is None:
                known = sorted({b.concept.label for b in aindex.branches.values()})
                extra = "" if known else f"atlas {aindex.atlas.id!r} has no branches"
                raise UnknownValueError(
                    f"branch of atlas {aindex.atlas.id!r}", str(name), known, extra=extra
                )
            picked[id(branch)] = branch
        return tuple(sorted(picked.values(), key=lambda b: (b.concept.order or 0, b.concept.id)))

    @staticmethod
    def _check_branches(
        aindex: _AtlasIndex, chosen: tuple[_Value, ...], picked: tuple[_Value, ...]
    ) -> None:
        """A branch asked for must add steps under the chosen values (graph breaks: compile)."""
        mask = aindex.full
        for value in chosen:
            mask &= value.mask
        for branch in picked:
            if not mask & branch.mask:
                under: list[str] = []
                for lookup in aindex.lookups:  # the values of the dimensions it is limited by
                    values = list(dict.fromkeys(lookup.values()))
                    fit = [v.concept.label for v in values if v.mask & branch.mask]
                    if len(fit) < len(values):
                        under += fit
                raise BranchNotApplicableError(
                    branch.concept.label,
                    list(dict.fromkeys(under)),
                    [v.concept.phrase for v in chosen],
                )

    def _compute(
        self, aindex: _AtlasIndex, chosen: tuple[_Value, ...], picked: tuple[_Value, ...] = ()
    ) -> ExecutionPath:
        mask = aindex.full
        selection: tuple[Concept, ...] = ()
        for value in chosen:
            mask &= value.mask
            selection += value.selection
        mask &= functools.reduce(operator.or_, (b.mask for b in picked), aindex.plain)
        journey: tuple[JourneyStep, ...]
        if aindex.position is not None:
            # the steps numbered 1, 2, 3... in journey order, and their stages' bits
            journey, union = aindex.step_table.select(mask)
            froms = union >> aindex.stages_bits
            reached = aindex.entry | union ^ froms << aindex.stages_bits
            if froms & ~reached:
                # a step starts at a stage no step reaches: keep only the steps reached from
                # the entry, in one pass over the journey order. Otherwise every step is
                # reached: in a journey order each from-stage is the entry or the target of
                # an earlier step, so by induction all of them are reached.
                journey, reached = self._reach(aindex, mask)
            stages = aindex.stage_table.select(reached)[0] if journey else ()
        else:
            step_order, stage_order = self._walk(aindex, mask)
            variants = aindex.variants
            journey = tuple(variants[j][number] for number, j in enumerate(step_order))
            stages = tuple(map(self.stages.__getitem__, stage_order))
        return _build(
            ExecutionPath,
            {
                "atlas": aindex.atlas.id,
                "selection": selection,
                "branches": tuple(map(_CONCEPT, picked)),
                "stages": stages,
                "steps": journey,
            },
            _PATH_FIELDS,
        )

    @staticmethod
    def _reach(aindex: _AtlasIndex, mask: int) -> tuple[tuple[JourneyStep, ...], int]:
        """The steps of ``mask`` reached from the entry, numbered, and the stages reached."""
        picked: list[JourneyStep] = []
        reached = aindex.entry
        for bit, source, target, j in aindex.journey:
            if mask & bit and reached & source:
                reached |= target
                picked.append(aindex.variants[j][len(picked)])
        return tuple(picked), reached

    def _numbered(self, step: Step, count: int) -> tuple[JourneyStep, ...]:
        """The step as the 1st, 2nd... ``count``-th step of a journey."""
        fields = {
            "step": step,
            "from_stage": self.stages[step.from_stage],
            "to_stage": self.stages[step.to_stage],
            "evidence": self.evidence(step.citations),
        }
        return tuple(
            _build(JourneyStep, {"number": number, **fields}, _STEP_FIELDS)
            for number in range(1, count + 1)
        )

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


def path(
    *values: str,
    atlas: str = DEFAULT_ATLAS,
    graph_breaks: bool = False,
    branches: Sequence[str] = (),
    **dimensions: str,
) -> ExecutionPath:
    """The execution path of an atlas under one value of each of its dimensions.

    Values are given in the atlas's dimension order or by dimension name, as labels, aliases or
    ids, case-insensitively. A branch, off by default, adds the steps of a case the default
    path leaves out: ``graph_breaks=True`` (the same as ``branches=["graph breaks"]``) adds the
    code TorchDynamo cannot trace, which runs in normal Python between compiled graphs; it
    applies under torch.compile only.

    >>> print(path("torch.compile", "NVIDIA GPU"))
    torch.compile on an NVIDIA GPU: 12 stages, 12 steps
    >>> path(mode="eager", device="cpu").summary
    'eager mode on a CPU: 5 stages, 4 steps'
    >>> path("compile", "gpu", graph_breaks=True).summary
    'torch.compile on an NVIDIA GPU with graph breaks: 13 stages, 14 steps'

    Raises:
        UnknownValueError: a value no dimension knows; the message lists the valid ones.
        UnknownIdError: an unknown atlas.
        ArgumentTypeError: a value or atlas that is not a ``str`` (a ``TypeError``).
        ArgumentValueError: text that is not valid Unicode (a ``ValueError``).
    """
    idx = index()
    named: tuple[str, ...] = ()
    if graph_breaks or branches:
        named = _branch_names(graph_breaks, branches)
    key = (atlas, values, named, *dimensions.items()) if dimensions or named else (atlas, values)
    try:
        found = idx._calls.get(key)  # noqa: SLF001 - the module's own memo on its index
    except TypeError:  # an unhashable argument: never a str, so refused just below
        found = None
    if found is None:  # arguments are checked once, before they are first remembered
        for number, value in enumerate(values, 1):
            text(value, f"value {number}", _VALUE)
        for name, value in dimensions.items():
            text(value, name, _VALUE)
        text(atlas, "atlas", _ATLAS)
        found = idx.path(*values, atlas=atlas, branches=named, **dict[str, Any](dimensions))
        if len(idx._calls) < _MAX_CALLS:  # noqa: SLF001 - bounded: values come from users
            idx._calls[key] = found  # noqa: SLF001
    return found


def _branch_names(graph_breaks: object, branches: object) -> tuple[str, ...]:
    """The branches :func:`path` is asked for, checked: ``graph_breaks`` is "graph breaks"."""
    if not isinstance(graph_breaks, bool):
        raise ArgumentTypeError("graph_breaks", graph_breaks, "a bool (True or False)")
    if isinstance(branches, str) or not isinstance(branches, Sequence):
        raise ArgumentTypeError("branches", branches, "a list of branch names")
    names = [text(value, "branch", _VALUE) for value in branches]
    return (*names, *(["graph breaks"] if graph_breaks else []))


def atlases() -> tuple[Atlas, ...]:
    """Every atlas of the dataset, in curated order."""
    return load().atlases


def get(name: str) -> Atlas:
    """The atlas with this id or label, e.g. ``get("pytorch")``.

    Raises:
        UnknownIdError: a ``LookupError`` naming the atlases.
        ArgumentTypeError, ArgumentValueError: ``name`` is not a ``str``, or not valid text.
    """
    return index().atlas(text(name, "name", _ATLAS))


def stages(atlas: str | None = None) -> tuple[Stage, ...]:
    """Every stage, or those of one atlas.

    Raises:
        UnknownIdError: an unknown atlas.
        ArgumentTypeError, ArgumentValueError: ``atlas`` is not a ``str`` or None, or not text.
    """
    chosen = optional_text(atlas, "atlas", _OPTIONAL_ATLAS)
    found = None if chosen is None else index().atlas(chosen).id
    return tuple(s for s in load().stages if found is None or found in s.atlases)


def steps(atlas: str | None = None) -> tuple[Step, ...]:
    """Every step, or those of one atlas, in curated order.

    Raises:
        UnknownIdError: an unknown atlas.
        ArgumentTypeError, ArgumentValueError: ``atlas`` is not a ``str`` or None, or not text.
    """
    chosen = optional_text(atlas, "atlas", _OPTIONAL_ATLAS)
    found = None if chosen is None else index().atlas(chosen).id
    return tuple(s for s in load().steps if found is None or s.atlas == found)


def stage(stage_id: str) -> Stage:
    """The stage with this id, e.g. ``stage("torchdynamo")``.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
        ArgumentTypeError, ArgumentValueError: ``stage_id`` is not a ``str``, or not valid text.
    """
    return index().stage(text(stage_id, "stage_id", "a str (a stage id, e.g. 'cpu')"))


def step(step_id: str) -> Step:
    """The step with this id.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
        ArgumentTypeError, ArgumentValueError: ``step_id`` is not a ``str``, or not valid text.
    """
    return index().step(text(step_id, "step_id", "a str (a step id)"))


def technology(technology_id: str) -> Technology:
    """The technology with this id.

    Raises:
        UnknownIdError: a ``LookupError`` naming the technologies.
        ArgumentTypeError, ArgumentValueError: ``technology_id`` is not a ``str``, or not text.
    """
    text(technology_id, "technology_id", "a str (a technology id, e.g. 'python')")
    try:
        return index().technologies[technology_id]
    except KeyError:
        raise UnknownIdError("technology", technology_id, sorted(index().technologies)) from None


def citation(citation_id: str) -> Citation:
    """The citation with this id.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
        ArgumentTypeError, ArgumentValueError: ``citation_id`` is not a ``str``, or not text.
    """
    text(citation_id, "citation_id", "a str (a citation id)")
    try:
        return index().citations[citation_id]
    except KeyError:
        raise UnknownIdError("citation", citation_id, sorted(index().citations)) from None


def source(url_or_id: str) -> Source:
    """The source with this URL or short id.

    Raises:
        UnknownIdError: a ``LookupError`` naming the closest ids.
        ArgumentTypeError, ArgumentValueError: ``url_or_id`` is not a ``str``, or not text.
    """
    text(url_or_id, "url_or_id", "a str (a source's URL or id)")
    idx = index()
    found = idx.sources.get(url_or_id) or next(
        (s for s in idx.sources.values() if s.id == url_or_id), None
    )
    if found is None:
        raise UnknownIdError("source", url_or_id, sorted(s.id for s in idx.sources.values()))
    return found
