"""The index of a dataset: dictionaries over one document, answering lookups and paths quickly.

:class:`Index` finds records by id, resolves dimension values and computes execution paths from
the per-atlas indexes of :mod:`atlas.query._atlasindex`, built on first use and memoising each
path computed. Nothing here reads a file: :mod:`atlas.query.paths` gives it the shipped export.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping

from atlas.errors import (
    BranchNotApplicableError,
    DatasetError,
    MissingValueError,
    Problem,
    UnknownIdError,
    UnknownValueError,
)
from atlas.models import (
    Atlas,
    AtlasDocument,
    Concept,
    Evidence,
    ExecutionPath,
    JourneyStep,
    Stage,
    Step,
)
from atlas.models._names import curated, fold
from atlas.query import _atlasindex, _nopaths
from atlas.query._atlasindex import AtlasIndex, Dimension, Value, read_after, topological
from atlas.query._construct import PATH_FIELDS, STEP_FIELDS, construct

__all__ = ["DEFAULT_ATLAS", "Index"]

DEFAULT_ATLAS = "pytorch"
_CONCEPT = operator.attrgetter("concept")


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
        self._rank = {sid: curated(s) for sid, s in self.stages.items()}
        self._atlas_index: dict[str, AtlasIndex] = {}  # each with its memo of paths
        # per atlas: the selections that have no path (their values' ids) -> their record
        self._no_paths = _nopaths.by_atlas(document.no_paths)
        # path() calls by their raw arguments, so that a repeated call skips resolving values
        self._calls: dict[tuple[object, ...], ExecutionPath] = {}

    # --- lookups -----------------------------------------------------------------------
    def atlas(self, name: str) -> Atlas:
        """The atlas with this id or label (case-insensitive)."""
        found = self.atlases.get(name)
        if found is None:  # an id in other letters before any label, as in the exact case
            folded = name.casefold()
            found = self.atlases.get(folded) or next(
                (a for a in self.atlases.values() if folded == a.label.casefold()), None
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
    def _dimension(self, scheme_id: str) -> Dimension:
        scheme = self.schemes.get(scheme_id)
        if scheme is None:
            raise UnknownIdError("dimension", scheme_id, sorted(self.schemes))
        return _atlasindex.dimension(scheme)

    def concept(self, concept_id: str) -> Concept:
        """The concept with this id (``scheme/value``), e.g. a branch."""
        scheme = self.schemes.get(concept_id.split("/", 1)[0])
        found = next((c for c in scheme.values if c.id == concept_id), None) if scheme else None
        if found is None:
            raise UnknownIdError("concept", concept_id, [])
        return found

    def _index_of(self, atlas: Atlas) -> AtlasIndex:
        cached = self._atlas_index.get(atlas.id)
        if cached is not None:
            return cached
        built = _atlasindex.build(
            atlas,
            [self._dimension(scheme_id) for scheme_id in atlas.dimensions],
            self._by_atlas.get(atlas.id, ()),
            rank=self._rank,
            stages=self.stages,
            concept=self.concept,
            numbered=self._numbered,
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
        self, aindex: AtlasIndex, values: tuple[str, ...], named: Mapping[str, str]
    ) -> tuple[Value, ...]:
        if not named and len(values) == len(aindex.lookups):  # the common case, quickly
            chosen = tuple(map(dict.get, aindex.lookups, map(fold, values)))
            if all(chosen):  # a miss is None
                return chosen  # type: ignore[return-value]  # no None left
        return self._chosen(aindex, values, named)  # explains what is wrong

    @staticmethod
    def _chosen(
        aindex: AtlasIndex, values: tuple[str, ...], named: Mapping[str, str]
    ) -> tuple[Value, ...]:
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
        chosen: list[Value] = []
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
        picked: tuple[Value, ...] = ()
        if branches:
            picked = self._branches(aindex, branches)
            key = (*chosen, *picked)
        cached = aindex.paths.get(key)
        if cached is None:
            self._refuse_no_path(aindex, chosen)  # type: ignore[arg-type]
            cached = self._compute(aindex, chosen, picked)  # type: ignore[arg-type]
            self._check_branches(aindex, chosen, picked)  # type: ignore[arg-type]
            aindex.paths[key] = cached
        return cached

    def _refuse_no_path(self, aindex: AtlasIndex, chosen: tuple[Value, ...]) -> None:
        """A selection that a no-path record names has no path: say why (it wins over steps)."""
        no_paths = self._no_paths.get(aindex.atlas.id)
        if no_paths:
            concepts = tuple(map(_CONCEPT, chosen))
            record = no_paths.get(frozenset([c.id for c in concepts]))
            if record is not None:
                atlas = None if aindex.atlas.id == DEFAULT_ATLAS else aindex.atlas.id
                raise _nopaths.error(record, concepts, self.concept, atlas)

    def branch(self, atlas: str, name: str) -> Concept:
        """The branch of ``atlas`` with this label, alias, name or id (graph breaks)."""
        (picked,) = self._branches(self._index_of(self.atlas(atlas)), (name,))
        return picked.concept

    @staticmethod
    def _branches(aindex: AtlasIndex, names: tuple[str, ...]) -> tuple[Value, ...]:
        """The branches named, in curated order, each once."""
        picked: dict[int, Value] = {}
        for name in names:
            branch = aindex.branches.get(fold(name)) if isinstance(name, str) else None
            if branch is None:
                known = sorted({b.concept.label for b in aindex.branches.values()})
                extra = "" if known else f"atlas {aindex.atlas.id!r} has no branches"
                raise UnknownValueError(
                    f"branch of atlas {aindex.atlas.id!r}", str(name), known, extra=extra
                )
            picked[id(branch)] = branch
        return tuple(sorted(picked.values(), key=lambda b: curated(b.concept)))

    @staticmethod
    def _check_branches(
        aindex: AtlasIndex, chosen: tuple[Value, ...], picked: tuple[Value, ...]
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
        self, aindex: AtlasIndex, chosen: tuple[Value, ...], picked: tuple[Value, ...] = ()
    ) -> ExecutionPath:
        mask = aindex.full
        selection: tuple[Concept, ...] = ()
        for value in chosen:
            mask &= value.mask
            selection += value.selection
        if picked:  # the branches' steps join the plain ones
            mask &= functools.reduce(operator.or_, (b.mask for b in picked), aindex.plain)
        else:
            mask &= aindex.plain
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
        return construct(
            ExecutionPath,
            {
                "atlas": aindex.atlas.id,
                "selection": selection,
                "branches": tuple(map(_CONCEPT, picked)),
                "stages": stages,
                "steps": journey,
            },
            PATH_FIELDS,
        )

    @staticmethod
    def _reach(aindex: AtlasIndex, mask: int) -> tuple[tuple[JourneyStep, ...], int]:
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
            construct(JourneyStep, {"number": number, **fields}, STEP_FIELDS)
            for number in range(1, count + 1)
        )

    def _walk(self, aindex: AtlasIndex, mask: int) -> tuple[list[int], list[str]]:
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
        order = topological(aindex.atlas, [live[i] for i in picked], aindex.rank)
        position = {sid: i for i, sid in enumerate(order)}
        picked.sort(key=lambda i: position[live[i].from_stage])  # stable: curated order first
        return read_after(live, picked), order

    # Kahn's algorithm from the entry stage; ties broken by curated order, then id
    _topological = staticmethod(topological)

    def all_paths(self, atlas: str = DEFAULT_ATLAS) -> list[ExecutionPath]:
        """Every combination of dimension values of ``atlas`` with a path, in curated order.

        The selections that a no-path record names are left out.
        """
        found = self.atlas(atlas)
        if not found.dimensions:
            return []
        aindex = self._index_of(found)
        combos: list[tuple[Concept, ...]] = [()]
        for dim in aindex.dimensions:
            combos = [(*c, v) for c in combos for v in dim.scheme.values]
        no_paths = self._no_paths.get(found.id, {})
        return [
            self.path(*(v.id for v in combo), atlas=found.id)
            for combo in combos
            if frozenset(v.id for v in combo) not in no_paths
        ]
