"""The index of one atlas: its dimensions' values with their steps, and its journey order.

:func:`build` makes an :class:`AtlasIndex` once per atlas from its live steps: every value of a
dimension (and every branch) with the mask of the steps that apply under it, the steps numbered
in journey order (found by :func:`topological`), and the lookup tables that give a path's steps
and stages from a mask. Nothing here reads a file; the records come from the caller.
"""

from __future__ import annotations

import functools
import heapq
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.errors import CycleError, Problem
from atlas.models._names import curated, fold
from atlas.query._bittables import BitTable, RankedTable

if TYPE_CHECKING:
    from atlas.models import Atlas, Concept, ConceptScheme, ExecutionPath, JourneyStep, Stage, Step

__all__ = [
    "AtlasIndex",
    "Dimension",
    "Rank",
    "Value",
    "build",
    "dimension",
    "read_after",
    "topological",
    "value_keys",
]

Rank = tuple[bool, int, str]  # a stage's tie-breaking rank in journey orders


def value_keys(concept: Concept) -> frozenset[str]:
    """Every folded text that names a dimension value: its id, name, label and aliases.

    The one rule for reading a value, shared by ``path()``, SPARQL bindings and the site.
    """
    return frozenset(
        fold(k) for k in (concept.id, concept.name, concept.label, *concept.alt_labels)
    )


@dataclass(frozen=True)
class Dimension:
    """A dimension of an atlas, with its values by every name they have."""

    scheme: ConceptScheme
    lookup: dict[str, Concept]  # casefolded label, alias, name or id -> value


class Value:
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
        return f"Value({self.concept.id!r}, {self.mask:#b})"


@dataclass(frozen=True)
class AtlasIndex:
    """What :meth:`Index.path <atlas.query._index.Index.path>` needs of one atlas, made once."""

    atlas: Atlas
    dimensions: tuple[Dimension, ...]
    steps: tuple[Step, ...]  # live (not deprecated) steps, in curated order
    # Steps are numbered in journey order (curated order when the atlas has a cycle): bit j
    # of a step mask stands for the j-th step in that order.
    full: int  # every step
    rank: Mapping[str, Rank]  # stage id -> its tie-breaking rank
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
    step_table: RankedTable[JourneyStep]
    stages_bits: int  # with a position: how many stage bits (the atlas's stages)
    stage_table: BitTable[Stage]  # with a position: stage bits -> the stages
    names: tuple[str, ...]  # the dimensions' labels, in order
    # the dimensions' lookups, in order: casefolded label, alias, name or id -> the value
    lookups: tuple[dict[str, Value], ...]
    paths: dict[tuple[object, ...], ExecutionPath]  # memo: the paths computed, by their values
    plain: int  # the steps in no branch: the only ones a path has unless a branch is asked for
    # the branches of the atlas's steps: every folded label, alias, name or id -> the branch
    branches: dict[str, Value]
    # per live step in journey order: the step as the 1st, 2nd... step of a journey, as far as
    # it can come (its own place in journey order; any place when the atlas has a cycle)
    variants: tuple[tuple[JourneyStep, ...], ...]


def dimension(scheme: ConceptScheme) -> Dimension:
    """The dimension ``scheme``: each of its values under every folded text that names it."""
    lookup: dict[str, Concept] = {}
    for value in scheme.values:
        for key in sorted(value_keys(value)):
            lookup.setdefault(key, value)
    return Dimension(scheme, lookup)


def build(
    atlas: Atlas,
    dimensions: list[Dimension],
    steps: Iterable[Step],
    *,
    rank: Mapping[str, Rank],
    stages: Mapping[str, Stage],
    concept: Callable[[str], Concept],
    numbered: Callable[[Step, int], tuple[JourneyStep, ...]],
) -> AtlasIndex:
    """The index of ``atlas`` from its live ``steps`` and the ``dimensions`` it has.

    ``concept`` finds a branch by its id; ``numbered`` gives a step as the 1st, 2nd... n-th
    step of a journey.
    """
    live = sorted(steps, key=curated)
    whole, position, order = _journey_order(atlas, live, rank)
    lookups = _lookups(dimensions, live, order)
    in_branch: dict[str, int] = {}
    for j, i in enumerate(order):
        branch_id = live[i].branch
        if branch_id is not None:
            in_branch[branch_id] = in_branch.get(branch_id, 0) | 1 << j
    branches = _branches(in_branch, concept)
    bits = {sid: 1 << p for p, sid in enumerate(whole)}
    ends = [(bits[live[i].from_stage], bits[live[i].to_stage]) for i in order] if bits else None
    # in journey order a step comes at most as the (j+1)-th; with a cycle, anywhere
    variants = tuple(numbered(live[i], j + 1 if ends else len(live)) for j, i in enumerate(order))
    return AtlasIndex(
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
        step_table=RankedTable(
            variants if ends else (), [f << len(whole) | t for f, t in ends or ()]
        ),
        stages_bits=len(whole),
        stage_table=BitTable([stages[sid] for sid in whole]),
        names=tuple(d.scheme.label for d in dimensions),
        lookups=tuple(lookups),
        paths={},
        variants=variants,
        plain=((1 << len(live)) - 1) & ~functools.reduce(operator.or_, in_branch.values(), 0),
        branches=branches,
    )


def _journey_order(
    atlas: Atlas, live: list[Step], rank: Mapping[str, Rank]
) -> tuple[list[str], dict[str, int] | None, list[int]]:
    """The stages in journey order, their positions, and the steps' indices in that order.

    With a cycle in the atlas as a whole: no stages, no positions, and curated order.
    """
    try:
        whole = topological(atlas, live, rank)
    except CycleError:  # some paths may still be acyclic: each sorted on its own
        return [], None, list(range(len(live)))
    position = {sid: p for p, sid in enumerate(whole)}
    # sorted is stable: curated order breaks ties
    by_stage = sorted(range(len(live)), key=lambda i: position[live[i].from_stage])
    return whole, position, read_after(live, by_stage)


def read_after(steps: Sequence[Step], order: list[int]) -> list[int]:
    """``order`` (indices into ``steps``), each step read after a later one moved behind it.

    A step's ``read_after`` names the step it is read right after; several behind one step keep
    their order. Only later: a step whose ``read_after`` is already before it stays, and so a
    journey order stays one (a step moved later still starts at a stage reached before it).

    >>> from types import SimpleNamespace as S
    >>> steps = [S(id="a", read_after=None), S(id="b", read_after="d"), S(id="c", read_after=None),
    ...          S(id="d", read_after=None), S(id="e", read_after="a")]
    >>> read_after(steps, [0, 1, 2, 3, 4])
    [0, 2, 3, 1, 4]
    """
    place = {steps[i].id: n for n, i in enumerate(order)}
    behind: dict[int, list[int]] = {}
    moved: set[int] = set()
    for n, i in enumerate(order):
        target = place.get(steps[i].read_after or "")
        if target is not None and target > n:
            behind.setdefault(order[target], []).append(i)
            moved.add(i)
    result: list[int] = []

    def put(i: int) -> None:
        result.append(i)
        for follower in behind.get(i, ()):
            put(follower)

    for i in order:
        if i not in moved:
            put(i)
    return result


def _lookups(
    dimensions: list[Dimension], live: list[Step], order: list[int]
) -> list[dict[str, Value]]:
    """Per dimension: every folded name of a value -> the value with the mask of its steps."""
    lookups: list[dict[str, Value]] = []
    for dim in dimensions:
        wrapped = {
            value.id: Value(
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
    return lookups


def _branches(in_branch: dict[str, int], concept: Callable[[str], Concept]) -> dict[str, Value]:
    """Every folded name of a branch -> the branch with the mask of its steps."""
    branches: dict[str, Value] = {}
    for concept_id, mask in sorted(in_branch.items()):
        branch = Value(concept(concept_id), mask)
        for key in sorted(value_keys(branch.concept)):
            branches.setdefault(key, branch)
    return branches


def topological(atlas: Atlas, steps: list[Step], rank: Mapping[str, Rank]) -> list[str]:
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
        cycle_steps = sorted(s.id for s in steps if s.from_stage in stuck and s.to_stage in stuck)
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
