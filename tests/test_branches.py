"""Branches: steps a path holds only when asked for (graph breaks), on a tiny fixture atlas."""

from __future__ import annotations

from typing import Any

import pytest

from atlas.errors import BranchNotApplicableError, UnknownValueError
from atlas.models import AtlasDocument
from atlas.query._index import Index
from fixtures_api import tiny_document

BRANCH = "toy-branch/detour"


def _with_branch() -> AtlasDocument:
    """The tiny atlas with a branch: a detour from the interpreter to the chip, fast mode only."""
    data: dict[str, Any] = tiny_document().model_dump(mode="json", by_alias=True)
    data["schemes"].append(
        {
            "id": "toy-branch",
            "label": "branch",
            "values": [
                {
                    "id": BRANCH,
                    "label": "detour",
                    "altLabels": ["the long way"],
                    "summaryPhrase": "with a detour",
                }
            ],
        }
    )
    data["steps"].append(
        {
            "id": "toy-interp-detour",
            "atlas": "toy",
            "from": "interp",
            "to": "chip",
            "verb": "detours to",
            "when": ["toy-mode/fast"],
            "whenAny": ["toy-hw"],
            "branch": BRANCH,
            "endsPython": True,
            "claims": [{"id": "step-toy-interp-detour-1", "text": "A detour.", "citations": []}],
            "order": 7,
        }
    )
    for item in (*data["stages"], *data["steps"], *data["atlases"]):
        for derived in ("description", "whatHappens", "citations", "unsupportedClaims"):
            item.pop(derived, None)
    return AtlasDocument.model_validate(data)


@pytest.fixture
def index() -> Index:
    return Index(_with_branch())


def test_a_branch_is_left_out_unless_asked_for(index: Index) -> None:
    plain = index.path("fast", "x", atlas="toy")
    assert "toy-interp-detour" not in [j.id for j in plain.steps]
    assert plain.branches == ()
    assert plain.summary == "fast on an X: 4 stages, 3 steps"
    with_detour = index.path("fast", "x", atlas="toy", branches=("detour",))
    assert [j.id for j in with_detour.steps] == [
        "toy-src-interp",
        "toy-interp-fast",
        "toy-interp-detour",
        "toy-fast-chip",
    ]
    assert [c.id for c in with_detour.branches] == [BRANCH]
    assert with_detour.summary == "fast on an X with a detour: 4 stages, 4 steps"
    assert [j.id for j in with_detour.python_ends] == ["toy-interp-fast", "toy-interp-detour"]


def test_a_branch_is_named_by_label_alias_or_id_in_any_case(index: Index) -> None:
    expected = index.path("fast", "y", atlas="toy", branches=("detour",))
    for name in ("DETOUR", "the long way", BRANCH, "detour"):
        assert index.path("fast", "y", atlas="toy", branches=(name, name)) is expected


def test_a_branch_where_none_of_its_steps_apply_is_a_clear_error(index: Index) -> None:
    with pytest.raises(BranchNotApplicableError) as caught:
        index.path("slow", "x", atlas="toy", branches=("detour",))
    assert str(caught.value) == "detour apply under fast only, not under slowly on an X"
    assert isinstance(caught.value, ValueError)


def test_an_unknown_branch_lists_the_known_ones(index: Index) -> None:
    with pytest.raises(UnknownValueError, match=r"unknown branch of atlas 'toy' 'scenic'; valid"):
        index.path("fast", "x", atlas="toy", branches=("scenic",))
    plain = Index(tiny_document())
    with pytest.raises(UnknownValueError, match="atlas 'toy' has no branches"):
        plain.path("fast", "x", atlas="toy", branches=("detour",))
