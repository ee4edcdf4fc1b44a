"""Public lookups: tests that kill mutants of ``query/paths.py`` others let survive (issue 17).

The whole message of a wrong-type argument to each public function (the parameter it names and
what it says the parameter takes), the bounded memo of ``atlas.path`` calls, a stage's exact id
before the names of other stages, the choices of an unknown step, and the lookups of sources (by
URL or id), citations and technologies: all on the tiny fixture atlas, put behind the public API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import atlas
from atlas.errors import AmbiguousIdError, ArgumentTypeError, UnknownIdError, UnknownValueError
from atlas.query import _pathtable
from atlas.query import paths as query
from atlas.query._index import Index
from atlas.query._selection import Vocabulary
from fixtures_api import tiny_document

PYTHON = {
    "id": "python",
    "label": "Python",
    "kind": "technology-kind/language",
    "claims": [{"id": "technology-python-1", "text": "Python runs.", "citations": ["c1"]}],
}


def _stages_with(stage_id: str, **fields: Any) -> list[dict[str, Any]]:
    """The tiny atlas's stages as JSON data, with ``fields`` set on the stage ``stage_id``."""
    stages = [s.model_dump(by_alias=True) for s in tiny_document().stages]
    return [{**s, **fields} if s["id"] == stage_id else s for s in stages]


def _use(monkeypatch: pytest.MonkeyPatch, **changes: Any) -> Index:
    """Make the public API answer from the tiny atlas (with ``changes``); its fresh index."""
    index = Index(tiny_document(**changes))
    words = Vocabulary.from_data(_pathtable.vocabulary_data(index))
    monkeypatch.setattr(query, "index", lambda: index)
    monkeypatch.setattr(query, "vocabulary", lambda: words)
    query._stage_names.cache_clear()
    query._step_names.cache_clear()
    return index


pytestmark = pytest.mark.usefixtures("fresh_name_caches")


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Index:
    """The public API answers from the tiny atlas, with one technology."""
    return _use(monkeypatch, technologies=[PYTHON])


# --- a wrong type: the parameter and what it takes, in the whole message ----------------------

VALUE = "a str (a dimension value or words, e.g. 'eager' or 'eager on CPU')"
ATLAS = "a str (an atlas id or label, e.g. 'pytorch')"
THREE: Any = 3  # a wrong type, as a caller without a type checker passes it
YES: Any = "yes"


@pytest.mark.parametrize(
    ("call", "parameter", "expected", "shown"),
    [
        (lambda: atlas.path(THREE, "x"), "value 1", VALUE, "int: 3"),
        (lambda: atlas.path("fast", device=THREE), "device", VALUE, "int: 3"),
        (lambda: atlas.path("fast", "x", atlas=THREE), "atlas", f"{ATLAS} or None", "int: 3"),
        (
            lambda: atlas.path("fast", "x", graph_breaks=YES),
            "graph_breaks",
            "a bool (True or False)",
            "str: 'yes'",
        ),
        (
            lambda: atlas.path("fast", "x", branches="graph breaks"),
            "branches",
            "a list of branch names",
            "str: 'graph breaks'",
        ),
        (lambda: atlas.path("fast", "x", branches=[THREE]), "branch", VALUE, "int: 3"),
        (lambda: atlas.values(THREE), "atlas", f"{ATLAS} or None", "int: 3"),
        (lambda: atlas.get(THREE), "name", ATLAS, "int: 3"),
        (lambda: atlas.stages(THREE), "atlas", f"{ATLAS} or None", "int: 3"),
        (lambda: atlas.steps(THREE), "atlas", f"{ATLAS} or None", "int: 3"),
        (lambda: atlas.step(THREE), "step_id", "a str (a step id)", "int: 3"),
        (
            lambda: atlas.technology(THREE),
            "technology_id",
            "a str (a technology id, e.g. 'python')",
            "int: 3",
        ),
        (lambda: atlas.citation(THREE), "citation_id", "a str (a citation id)", "int: 3"),
        (lambda: atlas.source(THREE), "url_or_id", "a str (a source's URL or id)", "int: 3"),
    ],
)
def test_a_wrong_type_is_refused_naming_the_parameter_and_what_it_takes(
    toy: Index, call: Callable[[], object], parameter: str, expected: str, shown: str
) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        call()
    error = caught.value
    assert (error.parameter, error.expected) == (parameter, expected)
    assert str(error) == f"{parameter} must be {expected}, not {shown}"


def test_a_wrong_type_of_graph_breaks_or_branches_is_the_value_given(toy: Index) -> None:
    wrong: list[object] = [["graph breaks"], "graph breaks"]
    with pytest.raises(ArgumentTypeError) as caught:
        atlas.path("fast", "x", graph_breaks=wrong)  # type: ignore[arg-type]
    assert caught.value.value is wrong
    with pytest.raises(ArgumentTypeError) as caught:
        atlas.path("fast", "x", branches="graph breaks")
    assert caught.value.value == "graph breaks"


def test_graph_breaks_asked_of_an_atlas_without_branches_is_named_as_asked(toy: Index) -> None:
    # the toy atlas has no branches: the error quotes the branch by the name it was asked by
    with pytest.raises(UnknownValueError) as caught:
        atlas.path("fast", "x", graph_breaks=True)
    assert caught.value.value == "graph breaks"
    assert str(caught.value) == (
        "unknown branch of atlas 'toy' 'graph breaks'; atlas 'toy' has no branches"
    )  # no empty "valid: " list
    with pytest.raises(UnknownValueError) as caught:
        atlas.path("fast", "x", branches=["Graph Breaks"])
    assert caught.value.value == "Graph Breaks"


# --- the memo of atlas.path() calls: each call's path, at most _MAX_CALLS of them -------------


def test_path_remembers_each_call_until_its_memo_is_full(toy: Index) -> None:
    filler = toy.path("slow", "y", atlas="toy")
    toy._calls.update({("filler", n): filler for n in range(query._MAX_CALLS - 1)})
    first = atlas.path("fast", "x", atlas="toy")
    assert len(toy._calls) == query._MAX_CALLS
    assert any(found is first for found in toy._calls.values())
    # full: a new call is answered, and not remembered
    second = atlas.path("slow", "x", atlas="toy")
    assert [j.id for j in second.steps] == ["toy-src-interp", "toy-interp-slow", "toy-slow-chip"]
    assert len(toy._calls) == query._MAX_CALLS
    assert not any(found is second for found in toy._calls.values())
    assert atlas.path("fast", "x", atlas="toy") is first


# --- stage(), step(): an exact id first, then names -------------------------------------------


def test_a_stage_id_wins_over_the_same_alias_of_another_stage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _use(monkeypatch, stages=_stages_with("fastlib", altLabels=["chip"]))
    assert atlas.stage("chip").id == "chip"
    assert atlas.stage("fastlib").id == "fastlib"
    # by name alone (not the exact id), "chip" names both stages
    with pytest.raises(AmbiguousIdError) as caught:
        atlas.stage("CHIP")
    assert caught.value.choices == ("fastlib", "chip")


def test_an_unknown_step_offers_the_step_ids(toy: Index) -> None:
    with pytest.raises(UnknownIdError) as caught:
        atlas.step("toy-src-interpp")
    assert caught.value.choices == tuple(sorted(toy.steps))
    assert str(caught.value) == (
        "unknown step id 'toy-src-interpp'; did you mean 'toy-src-interp', 'toy-interp-slow', "
        "'toy-interp-fast'?"
    )
    with pytest.raises(UnknownIdError) as caught:
        atlas.step("nothing")
    assert str(caught.value) == (
        "unknown step id 'nothing'; valid: toy-fast-chip, toy-fast-slow, toy-interp-fast, "
        "toy-interp-slow, toy-slow-chip, toy-src-interp"
    )


# --- source(), citation(), technology() ------------------------------------------------------


def test_a_source_is_found_by_its_url_or_its_id(toy: Index) -> None:
    doc = toy.sources["https://example.org/doc"]
    assert atlas.source("https://example.org/doc") is doc
    assert atlas.source("doc") is doc
    with pytest.raises(UnknownIdError) as caught:
        atlas.source("nothing")
    assert str(caught.value) == "unknown source id 'nothing'; valid: doc"
    assert caught.value.choices == ("doc",)


def test_an_unknown_citation_or_technology_is_named_as_such(toy: Index) -> None:
    assert atlas.citation("c1").id == "c1"
    assert atlas.technology("python").label == "Python"
    with pytest.raises(UnknownIdError) as caught:
        atlas.citation("nothing")
    assert str(caught.value) == "unknown citation id 'nothing'; valid: c1"
    with pytest.raises(UnknownIdError) as caught:
        atlas.technology("nothing")
    assert str(caught.value) == "unknown technology id 'nothing'; valid: python"
