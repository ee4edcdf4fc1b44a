"""Property tests of execution paths over generated atlases."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from hypothesis import HealthCheck, given, settings

from atlas.query._index import Index
from strategies import atlas_documents

if TYPE_CHECKING:
    from atlas.models import AtlasDocument, Step

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _matches(step: Step, selection: dict[str, str]) -> bool:
    for dim, value in selection.items():
        if dim in step.when_any:
            continue
        if value not in step.when:
            return False
    return True


def _combinations(document: AtlasDocument, atlas_id: str) -> list[dict[str, str]]:
    atlas = next(a for a in document.atlases if a.id == atlas_id)
    schemes = {s.id: s for s in document.schemes}
    values = [[c.id for c in schemes[d].values] for d in atlas.dimensions]
    return [dict(zip(atlas.dimensions, combo, strict=True)) for combo in itertools.product(*values)]


@SETTINGS
@given(atlas_documents())
def test_paths_are_consistent_subgraphs(document: AtlasDocument) -> None:
    index = Index(document)
    for atlas in document.atlases:
        if not atlas.dimensions:
            assert index.all_paths(atlas.id) == []
            continue
        atlas_steps = [s for s in document.steps if s.atlas == atlas.id]
        atlas_stages = {s.id for s in document.stages if atlas.id in s.atlases}
        for selection in _combinations(document, atlas.id):
            path = index.path(*selection.values(), atlas=atlas.id)
            steps = [j.step for j in path.steps]
            stage_ids = [s.id for s in path.stages]
            position = {sid: i for i, sid in enumerate(stage_ids)}
            # every returned step matches the conditions and is live
            for step in steps:
                assert _matches(step, selection), (step.id, selection)
                assert not step.deprecated
            # a subgraph of the whole atlas
            assert {s.id for s in steps} <= {s.id for s in atlas_steps}
            assert set(stage_ids) <= atlas_stages
            # every returned stage is an endpoint of a returned step
            endpoints = {e for s in steps for e in (s.from_stage, s.to_stage)}
            assert set(stage_ids) == endpoints
            assert len(stage_ids) == len(set(stage_ids))
            # the journey order respects every edge, and steps are numbered in order
            for step in steps:
                assert position[step.from_stage] < position[step.to_stage]
            assert [j.number for j in path.steps] == list(range(1, len(steps) + 1))
            seen: set[str] = set()
            for step in steps:
                assert step.from_stage == atlas.entry_stage or step.from_stage in seen
                seen.add(step.to_stage)
            # "any" steps appear in every path where their endpoints do
            for step in atlas_steps:
                fully_any = set(atlas.dimensions) <= set(step.when_any)
                if (
                    fully_any
                    and not step.deprecated
                    and {step.from_stage, step.to_stage} <= set(stage_ids)
                ):
                    assert step in steps, (step.id, selection)
            # python_ends are exactly the returned steps the data marks as ending Python
            ends = [j.step.id for j in path.python_ends]
            assert ends == [j.step.id for j in path.steps if j.step.ends_python]
            # the summary counts what is returned
            assert path.summary.endswith(
                f": {len(stage_ids)} stage{'s' * (len(stage_ids) != 1)},"
                f" {len(steps)} step{'s' * (len(steps) != 1)}"
            )


@SETTINGS
@given(atlas_documents())
def test_paths_accept_every_label_and_alias(document: AtlasDocument) -> None:
    index = Index(document)
    schemes = {s.id: s for s in document.schemes}
    for atlas in document.atlases:
        if not atlas.dimensions:
            continue
        first = [schemes[d].values[0] for d in atlas.dimensions]
        reference = index.path(*(c.id for c in first), atlas=atlas.id)
        assert index.path(*(c.label.upper() for c in first), atlas=atlas.id) is reference
        for concept in first:
            for alias in concept.alt_labels:
                given_values = [c.id if c is not concept else alias for c in first]
                found = index.path(*given_values, atlas=atlas.id)
                # an alias may be shared with another value of the same dimension: then the
                # first declared value wins, consistently
                assert found.atlas == atlas.id


def _reference(
    index: Index, document: AtlasDocument, atlas_id: str, selection: dict[str, str]
) -> tuple[list[str], list[str]]:
    """The path by its definition, one step at a time: the steps that match the selection,
    taken in journey order when their from-stage is the entry or was reached before."""
    atlas = index.atlas(atlas_id)
    live = sorted(
        (s for s in document.steps if s.atlas == atlas_id and not s.deprecated),
        key=lambda s: (s.order is None, s.order or 0, s.id),
    )
    rank = {s.id: (s.order is None, s.order or 0, s.id) for s in document.stages}
    whole = index._topological(atlas, live, rank)
    position = {sid: p for p, sid in enumerate(whole)}
    reached = {atlas.entry_stage}
    taken = []
    for step in sorted(live, key=lambda s: position[s.from_stage]):
        if _matches(step, selection) and step.from_stage in reached:
            taken.append(step.id)
            reached.add(step.to_stage)
    stages = [sid for sid in whole if sid in reached] if taken else []
    return taken, stages


@SETTINGS
@given(atlas_documents(max_stages=14, max_steps=30))
def test_paths_match_their_definition_on_larger_atlases(document: AtlasDocument) -> None:
    # up to 30 steps and 14 stages: the lookup tables of steps and stages span several chunks,
    # and steps that match but start at a stage no step reaches are common
    index = Index(document)
    for atlas in document.atlases:
        for selection in _combinations(document, atlas.id):
            path = index.path(*selection.values(), atlas=atlas.id)
            taken, stages = _reference(index, document, atlas.id, selection)
            assert [j.step.id for j in path.steps] == taken, selection
            assert [j.number for j in path.steps] == list(range(1, len(taken) + 1))
            assert [s.id for s in path.stages] == stages, selection
