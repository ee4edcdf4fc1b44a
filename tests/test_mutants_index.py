"""The path index: tests that kill mutants of ``_index.py`` other tests let survive (issue 17).

Lookups and their errors (whole messages, values and choices), the resolution of too many or
unknown named values, an atlas without dimensions or without steps, branches in curated order,
the fast path of a path's stages, and the memo of an atlas's index, all on the tiny fixture atlas
(``fixtures_api.tiny_document``) with one change each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from atlas.errors import DatasetError, Problem, UnknownIdError, UnknownValueError
from atlas.query._index import Index
from fixtures_api import tiny_document

if TYPE_CHECKING:
    from atlas.models import AtlasDocument

_DERIVED = ("description", "whatHappens", "citations", "unsupportedClaims")


def _json(document: AtlasDocument, key: str) -> list[dict[str, Any]]:
    """The records under ``key`` as JSON data, without the fields derived from their claims."""
    records: list[dict[str, Any]] = document.model_dump(mode="json", by_alias=True)[key]
    for record in records:
        if key != "citations":
            for derived in _DERIVED:
                record.pop(derived, None)
    return records


TOY = tiny_document()
TOY_ATLAS = _json(TOY, "atlases")[0]
TOY_STEPS = _json(TOY, "steps")


def _plain_atlas(atlas_id: str, label: str) -> dict[str, Any]:
    """An atlas with no dimensions and no steps (like the shipped 'technologies')."""
    return {
        "id": atlas_id,
        "label": label,
        "question": f"What is {atlas_id}?",
        "claims": [{"id": f"atlas-{atlas_id}-1", "text": "Plain.", "citations": ["c1"]}],
    }


def _ids(items: tuple[Any, ...]) -> list[str]:
    return [item.id for item in items]


# --- lookups: an exact id first, and errors that name what is unknown ------------------------


def test_an_atlas_id_wins_over_an_earlier_atlas_labelled_with_it() -> None:
    # kills atlas 1, 2 (always the case-insensitive scan, which finds 'other' first)
    index = Index(tiny_document(atlases=[_plain_atlas("other", "toy"), TOY_ATLAS]))
    assert index.atlas("toy").id == "toy"
    assert index.atlas("other").id == "other"
    # in other letters too: an id before any label, as in the exact case
    assert index.atlas("TOY").id == "toy"
    assert index.atlas("Toy").id == "toy"


@pytest.mark.parametrize(
    ("what", "message"),
    [
        ("stage", "unknown stage id 'nope'; valid: chip, fastlib, interp, slowlib, src"),
        (
            "step",
            (
                "unknown step id 'nope'; valid: toy-fast-chip, toy-fast-slow, toy-interp-fast, "
                "toy-interp-slow, toy-slow-chip, toy-src-interp"
            ),
        ),
    ],
)
def test_an_unknown_stage_or_step_id_is_named_as_such(what: str, message: str) -> None:
    # kills stage 1, 7, 8 and step 1, 7, 8 (the kind of id in the message)
    with pytest.raises(UnknownIdError) as caught:
        getattr(Index(TOY), what)("nope")
    assert str(caught.value) == message
    assert caught.value.value == "nope"


def test_an_unknown_citation_id_is_named_with_the_known_ones() -> None:
    # kills evidence 6, 8, 9, 11
    with pytest.raises(UnknownIdError) as caught:
        Index(TOY).evidence(("c1", "nope"))
    assert str(caught.value) == "unknown citation id 'nope'; valid: c1"
    assert (caught.value.value, caught.value.choices) == ("nope", ("c1",))


def test_a_citation_of_an_unlisted_source_is_a_violation_of_the_dataset() -> None:
    # kills evidence 24, 25 (the problem's severity)
    citation = {**_json(TOY, "citations")[0], "source": "https://example.org/other"}
    with pytest.raises(DatasetError) as caught:
        Index(tiny_document(citations=[citation])).evidence(("c1",))
    message = "cites an unlisted source <https://example.org/other>"
    assert caught.value.problems == (Problem("violation", message, subject="c1"),)
    assert str(caught.value) == f"dataset is invalid: violation: c1: {message}"


def test_a_dimension_the_document_does_not_hold_is_an_unknown_id() -> None:
    # kills _dimension 5, 6, 7, 8, 9, 10, 12
    index = Index(tiny_document(atlases=[{**TOY_ATLAS, "dimensions": ["toy-mode", "qqq"]}]))
    with pytest.raises(UnknownIdError) as caught:
        index.path("fast", "x", atlas="toy")
    assert str(caught.value) == "unknown dimension id 'qqq'; valid: stage-kind, toy-hw, toy-mode"
    assert caught.value.value == "qqq"
    assert caught.value.choices == ("stage-kind", "toy-hw", "toy-mode")


@pytest.mark.parametrize("concept_id", ["nope/x", "toy-mode/nope", "nope"])
def test_an_unknown_concept_id_is_an_unknown_id(concept_id: str) -> None:
    # kills concept 13 (an unknown scheme), 16 (a known scheme), 19 to 26 (the error's fields)
    index = Index(TOY)
    assert index.concept("toy-mode/fast").label == "fast"
    with pytest.raises(UnknownIdError) as caught:
        index.concept(concept_id)
    assert str(caught.value) == f"unknown concept id {concept_id!r}"  # no empty "valid: " list
    assert (caught.value.value, caught.value.choices) == (concept_id, ())


# --- values: too many, or a dimension the atlas does not have -------------------------------


def test_too_many_values_are_refused_with_the_atlas_s_dimensions() -> None:
    # kills _chosen 5, 13, 14, 15, 16
    with pytest.raises(UnknownValueError) as caught:
        Index(TOY).path("fast", "x", "y", atlas="toy")
    assert str(caught.value) == (
        "unknown number of values '3'; valid: 2; atlas 'toy' has dimensions mode, device"
    )
    assert (caught.value.value, caught.value.choices) == ("3", ("2",))


def test_a_named_value_of_an_unknown_dimension_is_refused() -> None:
    # kills _chosen 29
    with pytest.raises(UnknownValueError) as caught:
        Index(TOY).path("fast", atlas="toy", colour="red")
    assert str(caught.value) == "unknown dimension of atlas 'toy' 'colour'; valid: mode, device"
    assert (caught.value.value, caught.value.choices) == ("colour", ("mode", "device"))


# --- an atlas without dimensions (and without steps) ------------------------------------------


def test_an_atlas_without_dimensions_has_no_path() -> None:
    # kills path 27, 29, 30, 33, 34, 36, 37 and _index_of 21, 23 (an atlas with no steps)
    index = Index(tiny_document(atlases=[TOY_ATLAS, _plain_atlas("plain", "Plain")]))
    with pytest.raises(UnknownValueError) as caught:
        index.path(atlas="plain")
    assert str(caught.value) == (
        "unknown atlas for paths 'plain'; valid: toy; "
        "atlas 'plain' has no dimensions and so no execution paths"
    )
    assert (caught.value.value, caught.value.choices) == ("plain", ("toy",))
    assert index.all_paths("plain") == []


# --- the memo of an atlas's index ---------------------------------------------------------


def test_an_atlas_named_by_its_label_keeps_its_memo_of_paths() -> None:
    # kills _index_of 1, 2: the atlas's index (and its paths) built anew on each call
    index = Index(TOY)
    first = index.path("fast", "x", atlas="Toy")
    assert index.path("fast", "x", atlas="TOY") is first
    assert index.all_paths("Toy")[0] is first


# --- branches: in curated order, each once -----------------------------------------------------


def _with_branches() -> AtlasDocument:
    """The tiny atlas with three branches, each a step interp -> chip under any values.

    Their curated order (gamma 0, beta 1, alpha 2) is neither their ids' order nor the one
    in which the tests name them.
    """
    schemes = _json(TOY, "schemes")
    values = [("alpha", 2), ("beta", 1), ("gamma", 0)]
    schemes.append(
        {
            "id": "toy-branch",
            "label": "branch",
            "values": [
                {"id": f"toy-branch/{name}", "label": name, "order": order}
                for name, order in values
            ],
        }
    )
    steps = [
        {
            **TOY_STEPS[0],
            "id": f"toy-interp-{name}",
            "from": "interp",
            "to": "chip",
            "branch": f"toy-branch/{name}",
            "claims": [{"id": f"step-toy-{name}-1", "text": "A detour.", "citations": ["c1"]}],
            "order": 10 + order,
        }
        for name, order in values
    ]
    return tiny_document(schemes=schemes, steps=TOY_STEPS + steps)


@pytest.fixture(scope="module")
def branched() -> Index:
    return Index(_with_branches())


def test_branches_come_in_curated_order_each_once(branched: Index) -> None:
    # kills _branches 24 (one kept), 27, 29 (Values compared), 30 (the order given),
    # 31 (ids' order), 32 (an order 0 read as 1)
    path = branched.path("fast", "x", atlas="toy", branches=("alpha", "gamma", "beta", "ALPHA"))
    assert _ids(path.branches) == ["toy-branch/gamma", "toy-branch/beta", "toy-branch/alpha"]
    assert _ids(path.steps) == [
        "toy-src-interp",
        "toy-interp-fast",
        "toy-interp-gamma",  # steps in their curated order: 10 + the branch's
        "toy-interp-beta",
        "toy-interp-alpha",
        "toy-fast-chip",
    ]


def test_a_branch_without_an_order_comes_after_the_ordered_ones() -> None:
    """As stages and steps without an order come after those with one."""
    document = _with_branches()
    schemes = _json(document, "schemes")
    for value in schemes[-1]["values"]:
        if value["id"] == "toy-branch/gamma":
            value["order"] = None
    index = Index(tiny_document(schemes=schemes, steps=_json(document, "steps")))
    path = index.path("fast", "x", atlas="toy", branches=("alpha", "gamma", "beta"))
    assert _ids(path.branches) == ["toy-branch/beta", "toy-branch/alpha", "toy-branch/gamma"]


def test_an_unknown_branch_is_refused_with_the_atlas_s_branches(branched: Index) -> None:
    # kills _branches 11, 13 (the extra text said when the atlas has branches)
    with pytest.raises(UnknownValueError) as caught:
        branched.path("fast", "x", atlas="toy", branches=("zzz",))
    assert str(caught.value) == "unknown branch of atlas 'toy' 'zzz'; valid: alpha, beta, gamma"
    assert caught.value.choices == ("alpha", "beta", "gamma")


def test_a_branch_named_by_no_text_is_refused(branched: Index) -> None:
    # kills _branches 4 (a name that is not a str folded as one)
    with pytest.raises(UnknownValueError) as caught:
        branched.path("fast", "x", atlas="toy", branches=(3,))  # type: ignore[arg-type]
    assert str(caught.value) == "unknown branch of atlas 'toy' '3'; valid: alpha, beta, gamma"


# --- a path's stages on the fast path (an atlas with a journey order) --------------------------


def test_a_path_whose_steps_all_start_at_the_entry_has_their_targets_as_stages() -> None:
    # kills _compute 22: the stages reached taken as the from-stages, i.e. the entry alone
    index = Index(tiny_document(steps=TOY_STEPS[:1]))
    path = index.path("fast", "x", atlas="toy")
    assert _ids(path.steps) == ["toy-src-interp"]
    assert _ids(path.stages) == ["src", "interp"]


def test_a_path_with_no_step_reached_from_the_entry_is_empty() -> None:
    # kills _compute 25 (the unreached step kept) and 33 (the entry kept as a stage)
    slow_only = {**TOY_STEPS[0], "when": ["toy-mode/slow"], "whenAny": ["toy-hw"]}
    index = Index(tiny_document(steps=[slow_only, TOY_STEPS[1]]))
    path = index.path("fast", "x", atlas="toy")  # only toy-interp-fast: interp is not reached
    assert index._atlas_index["toy"].position is not None  # a journey order: the fast path
    assert (path.steps, path.stages) == ((), ())
    assert path.summary == "fast on an X: 0 stages, 0 steps"
    slow = index.path("slow", "x", atlas="toy")
    assert (_ids(slow.steps), _ids(slow.stages)) == (["toy-src-interp"], ["src", "interp"])
