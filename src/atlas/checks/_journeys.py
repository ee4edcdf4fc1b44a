"""Each selection's journey: made by the path index when building, checked when reading an export.

The export carries, per atlas with dimensions, the steps of every selection in the order
``atlas path`` prints them (:class:`~atlas.models.Journey`; the rule that orders them is
:data:`atlas.models._journey.JOURNEY_ORDER`). :func:`with_journeys` adds them to a document built
from Turtle; :func:`journey_order`, a consistency rule, reports an export whose journeys are not
the ones its steps make.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas.data._consistency import iri
from atlas.errors import AtlasError, BranchNotApplicableError, Problem

if TYPE_CHECKING:
    from atlas.models import AtlasDocument, Journey

__all__ = ["journey_order", "journeys", "with_journeys"]


def journeys(document: AtlasDocument) -> dict[str, tuple[Journey, ...]]:
    """Per atlas id, every selection's journey, in the order the export lists them.

    Per atlas with dimensions, every combination of values (as :meth:`Index.all_paths
    <atlas.query._index.Index.all_paths>` lists them) with its default path, then that path with
    each branch of the atlas on its own where the branch applies (graph breaks: under
    torch.compile only). An atlas without dimensions has none.

    Raises:
        CycleError: when a path has a cycle (the consistency check reports it first).
    """
    from atlas.models import Journey  # noqa: PLC0415 - pydantic, when building
    from atlas.query._index import Index  # noqa: PLC0415

    index = Index(document)
    found: dict[str, tuple[Journey, ...]] = {}
    for atlas in document.atlases:
        live = [s for s in document.steps if s.atlas == atlas.id and not s.deprecated]
        branches = sorted(
            {s.branch for s in live if s.branch}, key=lambda b: (index.concept(b).order or 0, b)
        )
        made: list[Journey] = []
        for path in index.all_paths(atlas.id):
            values = tuple(c.id for c in path.selection)
            made.append(Journey(values=values, steps=tuple(j.id for j in path.steps)))
            for branch in branches:
                try:
                    taken = index.path(*values, atlas=atlas.id, branches=(branch,))
                except BranchNotApplicableError:
                    continue
                steps = tuple(j.id for j in taken.steps)
                made.append(Journey(values=values, branches=(branch,), steps=steps))
        found[atlas.id] = tuple(made)
    return found


def with_journeys(document: AtlasDocument) -> AtlasDocument:
    """The document with each atlas's journeys (:func:`journeys`) in place of any it had."""
    made = journeys(document)
    atlases = tuple(a.model_copy(update={"journeys": made[a.id]}) for a in document.atlases)
    return document.model_copy(update={"atlases": atlases})


def journey_order(document: AtlasDocument) -> list[Problem]:
    """A violation for each atlas whose journeys are not those its steps make.

    An atlas without journeys is left alone: exports of format 2.0 carry none, and a document
    read from Turtle gets them only once it is checked.
    """
    if not any(atlas.journeys for atlas in document.atlases):
        return []
    try:
        made = journeys(document)
    except AtlasError:  # a path with a cycle: path_cycles reports it
        return []
    problems = []
    for atlas in document.atlases:
        if not atlas.journeys or atlas.journeys == made[atlas.id]:
            continue
        expected = {(j.values, j.branches): j.steps for j in made[atlas.id]}
        given = {(j.values, j.branches): j.steps for j in atlas.journeys}
        wrong = next((k for k in expected if given.get(k) != expected[k]), None)
        extra = next((k for k in given if k not in expected), None)
        if wrong is not None:
            named = f"the journey of {' + '.join(wrong[0] + wrong[1])}"
            what = (
                f"{named} is missing"
                if wrong not in given
                else f"{named} is {list(given[wrong])!r}, but its steps make "
                f"{list(expected[wrong])!r}"
            )
        elif extra is not None:
            what = f"the journey of {' + '.join(extra[0] + extra[1])} is not a selection it has"
        else:
            what = "its journeys are not in the order of its selections"
        problems.append(
            Problem(
                "violation",
                f"journeys: {what}",
                subject=iri("atlas", atlas.id),
                hint="the journeys are made from the steps: export again with 'atlas export'",
                code="journey-order",
            )
        )
    return problems
