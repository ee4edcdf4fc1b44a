"""The consistency check: the named rules a dataset must keep, in one ordered list.

Each rule is a function of an :class:`~atlas.models.AtlasDocument` that returns the
:class:`~atlas.errors.Problem` list it finds. ``RULES`` holds them in the order they run; the
record rules come from :mod:`atlas.data._consistency` (reading an export checks those too), and
the next two, :func:`path_cycles` and :func:`~atlas.checks._journeys.journey_order` (an export's
journeys are those its steps make), walk the paths of the query layer, so they run only when the
rules before them found no violation. The last,
:func:`~atlas.checks._replacements.retired_replacements` (a retired id leads to a live record),
follows replacements as the query layer's lookups do; reading an export does not run it, so that
a broken chain fails the lookup of that id only. :func:`consistency_problems` runs the list.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from atlas.checks._journeys import journey_order
from atlas.checks._replacements import retired_replacements
from atlas.data._consistency import RECORD_RULES, Rule, iri
from atlas.errors import CycleError, Problem

if TYPE_CHECKING:
    from atlas.models import AtlasDocument

__all__ = ["ONLY_WHEN_CONSISTENT", "RULES", "consistency_problems", "path_cycles"]


def path_cycles(document: AtlasDocument) -> list[Problem]:
    """The cycles in the paths of each atlas whose steps form a cycle at all.

    A path takes some of its atlas's steps, so an atlas whose live steps form no cycle has no
    path with one: only the others are walked path by path, to name the cycle.
    """
    from graphlib import CycleError as GraphCycleError  # noqa: PLC0415
    from graphlib import TopologicalSorter  # noqa: PLC0415

    from atlas.query.paths import Index  # noqa: PLC0415 - the query layer: only for a cycle

    graphs: dict[str, TopologicalSorter[str]] = {}
    for step in document.steps:
        if not step.deprecated:
            graphs.setdefault(step.atlas, TopologicalSorter()).add(step.to_stage, step.from_stage)
    cyclic = set()
    for atlas_id, graph in graphs.items():
        try:
            graph.prepare()
        except GraphCycleError:
            cyclic.add(atlas_id)
    if not cyclic:
        return []
    problems: list[Problem] = []
    index = Index(document)
    for atlas in document.atlases:
        if atlas.id not in cyclic:
            continue
        try:
            index.all_paths(atlas.id)
        except CycleError as error:
            problems.extend(replace(p, subject=iri("atlas", atlas.id)) for p in error.problems)
    return problems


#: Every consistency rule, in the order it runs (and its problems are reported): the record rules
#: of the data layer, then those that need the query layer (its paths, its retired ids).
RULES: tuple[Rule, ...] = (*RECORD_RULES, path_cycles, journey_order, retired_replacements)

#: The rules that run only when those before them found no violation (a walk needs sound data).
ONLY_WHEN_CONSISTENT: frozenset[Rule] = frozenset({path_cycles, journey_order})


def consistency_problems(document: AtlasDocument) -> list[Problem]:
    """Dangling references, missing citations, uncovered dimensions, duplicates and cycles."""
    problems: list[Problem] = []
    for rule in RULES:
        if rule in ONLY_WHEN_CONSISTENT and any(p.severity == "violation" for p in problems):
            continue
        problems.extend(rule(document))
    return problems
