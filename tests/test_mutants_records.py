"""The record rules and the integrity of an export: tests that kill surviving mutants (issue 17).

Each test builds the mini export with one fault and compares the WHOLE problems a rule returns
(severity, message, subject, hint) and, since ``Problem.code`` is left out of equality, their
codes too. Each names the mutation it kills; every rule of ``RECORD_RULES`` has a clean test.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest

from atlas.data import _consistency as rules
from atlas.data import _json, export
from atlas.data._integrity import export_problems
from atlas.errors import Problem
from atlas.models import AtlasDocument
from atlas.models._iri import BASE_IRI
from checkkit import MINI, changed_export

GOOD = AtlasDocument.model_validate_json((MINI / "atlas.json").read_bytes())
DANGLING_HINT = (
    "a record names a record the export does not hold; export it again with "
    "'atlas export', which checks every reference"
)
DUPLICATE_HINT = (
    "every id (every source URL) names one record; export it again with "
    "'atlas export', which checks them"
)


def _data(key: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = export.to_data(GOOD)[key]
    return items


def _bad(kind: str, local: str, message: str, code: str, hint: str | None = None) -> Problem:
    """A violation as the record rules report it, its code set (compared on its own)."""
    return Problem("violation", message, subject=f"{BASE_IRI}{kind}/{local}", hint=hint, code=code)


def _assert_found(rule: rules.Rule, document: AtlasDocument, expected: list[Problem]) -> None:
    """``rule`` finds exactly ``expected`` in ``document``: whole problems, and their codes."""
    found = rule(document)
    assert found == expected
    assert [p.code for p in found] == [p.code for p in expected]


def _changed(**records: Any) -> AtlasDocument:
    document: AtlasDocument = changed_export(GOOD, **records)
    return document


# --- every rule: a clean document ----------------------------------------------------------------


@pytest.mark.parametrize("rule", rules.RECORD_RULES, ids=lambda r: r.__name__)
def test_each_rule_finds_nothing_in_the_mini(rule: rules.Rule) -> None:
    assert rule(GOOD) == []


def test_record_problems_runs_every_rule_in_order() -> None:
    """A fault for two rules: the problems come rule by rule, in the order of ``RECORD_RULES``."""
    citations = _data("citations")
    citations[0]["source"] = "https://example.org/elsewhere"
    technologies = _data("technologies")
    technologies[1]["kind"] = "technology-kind/none"
    found = rules.record_problems(_changed(citations=citations, technologies=technologies))
    assert [p.subject for p in found] == [
        f"{BASE_IRI}technology/toy-c",
        f"{BASE_IRI}citation/guide-interpreter",
    ]


# --- unique_ids ----------------------------------------------------------------------------------


def test_a_duplicate_id_is_reported_once_with_its_count_per_collection() -> None:
    """Kills the count (``n > 1`` to ``n > 2`` / ``>= 1``), the fields and the sort order."""
    stages = _data("stages")
    steps = _data("steps")
    document = _changed(
        stages=[*stages, copy.deepcopy(stages[1]), copy.deepcopy(stages[1]), stages[0]],
        steps=[*steps, copy.deepcopy(steps[0])],
    )
    hint = "every id names one record: rename one of them"
    _assert_found(
        rules.unique_ids,
        document,
        [
            _bad(
                "stage",
                "toy-interpreter",
                "duplicate id 'toy-interpreter' (3 stages)",
                "duplicate",
                hint,
            ),
            _bad("stage", "toy-source", "duplicate id 'toy-source' (2 stages)", "duplicate", hint),
            _bad(
                "step",
                "toy-source-runs-in-interpreter",
                "duplicate id 'toy-source-runs-in-interpreter' (2 steps)",
                "duplicate",
                hint,
            ),
        ],
    )


def test_a_duplicate_source_id_names_its_urls_and_is_at_the_last() -> None:
    sources = _data("sources")
    twin = {**sources[0], "url": "https://example.org/toy/a.html"}
    document = _changed(sources=[*sources, twin])
    _assert_found(
        rules.unique_ids,
        document,
        [
            Problem(
                "violation",
                "duplicate id 'toy-guide' (2 sources, <https://example.org/toy/a.html>, "
                "<https://example.org/toy/guide.html>)",
                subject="https://example.org/toy/guide.html",
                hint="every id names one record: rename one of them",
                code="duplicate",
            )
        ],
    )


def test_a_duplicate_id_of_another_collection_that_a_source_shares_lists_no_url() -> None:
    """Kills ``s.id == dup and key == "sources"`` to ``or``: a stage named as a source."""
    stages = _data("stages")
    named = {**stages[4], "id": "toy-guide"}
    document = _changed(stages=[*stages, named, copy.deepcopy(named)])
    _assert_found(
        rules.unique_ids,
        document,
        [
            _bad(
                "stage",
                "toy-guide",
                "duplicate id 'toy-guide' (2 stages)",
                "duplicate",
                "every id names one record: rename one of them",
            ),
        ],
    )


def test_a_duplicate_no_path_id_is_found_in_its_attribute() -> None:
    """Kills ``_ATTRIBUTES.get(key, key)``: ``noPaths`` is the document's ``no_paths``."""
    record = _no_path("toy-none", ["toy-mode/compiled", "toy-device/gpu"])
    document = _changed(noPaths=[record, copy.deepcopy(record)])
    _assert_found(
        rules.unique_ids,
        document,
        [
            _bad(
                "nopath",
                "toy-none",
                "duplicate id 'toy-none' (2 noPaths)",
                "duplicate",
                "every id names one record: rename one of them",
            ),
        ],
    )


# --- shared_source_urls --------------------------------------------------------------------------


def test_two_sources_with_one_url_are_one_violation_at_the_last_id() -> None:
    sources = _data("sources")
    document = _changed(sources=[*sources, {**sources[0], "id": "toy-alias"}])
    _assert_found(
        rules.shared_source_urls,
        document,
        [
            _bad(
                "source",
                "toy-guide",
                "sources source:toy-alias, source:toy-guide have the same URL "
                "<https://example.org/toy/guide.html> (foaf:page): a citation of it could be "
                "checked against either snapshot",
                "duplicate-url",
                "one source per document: merge them, or correct the foaf:page of one",
            )
        ],
    )


def test_one_source_held_twice_is_no_shared_url() -> None:
    """Kills ``len(distinct) > 1`` to ``>= 1`` / ``> 0`` and ``set(named)`` to ``named``."""
    sources = _data("sources")
    document = _changed(sources=[*sources, copy.deepcopy(sources[1])])
    _assert_found(rules.shared_source_urls, document, [])


# --- atlas_entries_and_dimensions ----------------------------------------------------------------


def _atlases(**fields: Any) -> list[dict[str, Any]]:
    atlas = {k: v for k, v in _data("atlases")[0].items() if k != "journeys"}
    atlas.update(fields)
    return [{k: v for k, v in atlas.items() if v is not None}]


def _other_atlas(**fields: Any) -> dict[str, Any]:
    """An atlas without steps (nor stages), ``fields`` changed."""
    atlas = {k: v for k, v in _atlases()[0].items() if k not in ("claims", "scopeNotes")}
    atlas.update({"id": "other", "order": 2, "claims": [], **fields})
    return {k: v for k, v in atlas.items() if v is not None}


def test_an_atlas_with_dimensions_but_no_entry_stage_is_missing_one() -> None:
    """Kills the ``if``/``elif`` of the entry stage: one problem, not also a dangling one."""
    _assert_found(
        rules.atlas_entries_and_dimensions,
        _changed(atlases=_atlases(entryStage=None)),
        [_bad("atlas", "toy", "has dimensions but no entry stage", "missing")],
    )


def test_an_atlas_without_dimensions_nor_entry_stage_nor_steps_is_no_problem() -> None:
    """Kills ``atlas.dimensions and entry is None`` to ``or``, and the steps rule's ``and``."""
    other = _other_atlas(entryStage=None, dimensions=[])
    document = _changed(atlases=[*_atlases(), other])
    _assert_found(rules.atlas_entries_and_dimensions, document, [])


def test_an_unknown_entry_stage_is_dangling() -> None:
    _assert_found(
        rules.atlas_entries_and_dimensions,
        _changed(atlases=_atlases(entryStage="toy-nowhere")),
        [_bad("atlas", "toy", "entry stage 'toy-nowhere' is not a stage", "dangling")],
    )


def test_an_unknown_dimension_is_dangling_and_an_empty_one_is_empty() -> None:
    schemes = _data("schemes")
    schemes.append({"type": "ConceptScheme", "id": "toy-empty", "label": "empty", "values": []})
    dimensions = ["toy-mode", "toy-nowhere", "toy-device", "toy-empty"]
    document = _changed(atlases=_atlases(dimensions=dimensions), schemes=schemes)
    _assert_found(
        rules.atlas_entries_and_dimensions,
        document,
        [
            _bad("atlas", "toy", "dimension 'toy-nowhere' is not a concept scheme", "dangling"),
            _bad("atlas", "toy", "dimension 'toy-empty' has no values", "empty-dimension"),
        ],
    )


def test_an_atlas_with_steps_but_no_dimension_is_missing_one() -> None:
    """The atlas without steps beside it is not reported (``atlas.id in with_steps``)."""
    other = _other_atlas(dimensions=[])
    document = _changed(atlases=[*_atlases(dimensions=[]), other])
    _assert_found(
        rules.atlas_entries_and_dimensions,
        document,
        [_bad("atlas", "toy", "has steps but declares no dimension", "missing")],
    )


# --- stage_references ----------------------------------------------------------------------------


KIND_HINT = "see catalog.ttl for the stage kinds"


def _with_lookalike_schemes() -> list[dict[str, Any]]:
    """The schemes and two more, named as the kind schemes are with an ``s``, one value each."""
    schemes = _data("schemes")
    for name in ("stage-kinds", "technology-kinds"):
        value = {"type": "Concept", "id": f"{name}/language", "label": "language", "order": 1}
        schemes.append({"type": "ConceptScheme", "id": name, "label": name, "values": [value]})
    return schemes


@pytest.mark.parametrize(
    "kind",
    [
        "stage-kind/nothing",  # the right prefix, not a concept (the ``or``'s right side)
        "technology-kind/language",  # a concept of another scheme (its left side)
        "toy-mode/compiled",  # a concept of a dimension
        "stage-kinds/language",  # a concept of a scheme whose name starts with stage-kind
    ],
)
def test_a_stage_kind_that_is_not_a_stage_kind_concept_is_dangling(kind: str) -> None:
    """Kills each side of ``not startswith("stage-kind/") or kind not in concepts``."""
    stages = _data("stages")
    stages[2]["kind"] = kind
    message = f"kind {kind!r} is not a concept of the 'stage-kind' scheme"
    _assert_found(
        rules.stage_references,
        _changed(stages=stages, schemes=_with_lookalike_schemes()),
        [_bad("stage", "toy-compiler", message, "dangling", KIND_HINT)],
    )


def test_a_stage_kind_named_by_a_scheme_prefix_alone_is_a_concept_when_listed() -> None:
    """A concept id with the prefix is accepted: the prefix is ``stage-kind/``, with the slash."""
    schemes = _data("schemes")
    schemes[2]["values"].append({**schemes[2]["values"][0], "id": "stage-kind/extra", "order": 9})
    stages = _data("stages")
    stages[2]["kind"] = "stage-kind/extra"
    _assert_found(rules.stage_references, _changed(stages=stages, schemes=schemes), [])


def test_an_unknown_technology_of_a_stage_is_dangling() -> None:
    stages = _data("stages")
    stages[0]["technology"] = "toy-nothing"
    _assert_found(
        rules.stage_references,
        _changed(stages=stages),
        [_bad("stage", "toy-source", "technology 'toy-nothing' is not a technology", "dangling")],
    )


def test_each_unknown_atlas_of_a_stage_is_dangling_and_no_atlas_is_missing() -> None:
    stages = _data("stages")
    stages[1]["atlases"] = ["toy-a", "toy", "toy-b"]
    stages[3]["atlases"] = []
    _assert_found(
        rules.stage_references,
        _changed(stages=stages),
        [
            _bad("stage", "toy-interpreter", "is part of an unknown atlas 'toy-a'", "dangling"),
            _bad("stage", "toy-interpreter", "is part of an unknown atlas 'toy-b'", "dangling"),
            _bad(
                "stage",
                "toy-cpu",
                "is part of no atlas",
                "missing",
                "add dcterms:isPartOf atlas:<id>",
            ),
        ],
    )


def test_a_stage_replaced_by_an_unknown_stage_is_dangling_and_by_a_known_one_is_not() -> None:
    stages = _data("stages")
    stages[2]["deprecated"] = True
    stages[2]["replacedBy"] = "toy-nowhere"
    stages[3]["deprecated"] = True
    stages[3]["replacedBy"] = "toy-gpu"
    _assert_found(
        rules.stage_references,
        _changed(stages=stages),
        [
            _bad(
                "stage", "toy-compiler", "is replaced by an unknown stage 'toy-nowhere'", "dangling"
            )
        ],
    )


def test_every_fault_of_one_stage_is_reported_in_order() -> None:
    """One stage with each fault: four problems, in the rule's order (no branch is an ``elif``)."""
    stages = _data("stages")
    stages[2].update(kind="stage-kind/nothing", technology="toy-x", atlases=[], replacedBy="toy-y")
    assert [p.message for p in rules.stage_references(_changed(stages=stages))] == [
        "kind 'stage-kind/nothing' is not a concept of the 'stage-kind' scheme",
        "technology 'toy-x' is not a technology",
        "is part of no atlas",
        "is replaced by an unknown stage 'toy-y'",
    ]


# --- technology_kinds ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind",
    [
        "technology-kind/nothing",
        "stage-kind/language",
        "toy-mode/compiled",
        "technology-kinds/language",
    ],
)
def test_a_technology_kind_that_is_not_a_technology_kind_concept_is_dangling(kind: str) -> None:
    """Kills each side of the ``or``, as for the stage kinds."""
    technologies = _data("technologies")
    technologies[1]["kind"] = kind
    message = f"kind {kind!r} is not a concept of the 'technology-kind' scheme"
    _assert_found(
        rules.technology_kinds,
        _changed(technologies=technologies, schemes=_with_lookalike_schemes()),
        [_bad("technology", "toy-c", message, "dangling")],
    )


# --- step_references_and_conditions --------------------------------------------------------------

STEPS = rules.step_references_and_conditions


def _step(index: int, **fields: Any) -> list[dict[str, Any]]:
    steps = _data("steps")
    steps[index].update(fields)
    return steps


def test_a_step_of_an_unknown_atlas_is_dangling_and_its_conditions_are_not_checked() -> None:
    """Kills ``if atlas is not None`` (conditions) and the stages' atlas check to ``or``."""
    steps = _step(0, atlas="toy-nowhere", whenAny=[])
    _assert_found(
        STEPS,
        _changed(steps=steps),
        [
            _bad(
                "step",
                "toy-source-runs-in-interpreter",
                "belongs to an unknown atlas 'toy-nowhere'",
                "dangling",
            ),
        ],
    )


def test_an_unknown_stage_at_either_end_of_a_step_is_dangling_with_a_hint() -> None:
    steps = _step(3, to="toy-nowhere")
    steps[1]["from"] = "toy-elsewhere"
    _assert_found(
        STEPS,
        _changed(steps=steps),
        [
            _bad(
                "step",
                "toy-interpreter-runs-on-cpu",
                "from-stage 'toy-elsewhere' is not a stage",
                "dangling",
                "declare stage:toy-elsewhere or fix the id",
            ),
            _bad(
                "step",
                "toy-compiler-targets-cpu",
                "to-stage 'toy-nowhere' is not a stage",
                "dangling",
                "declare stage:toy-nowhere or fix the id",
            ),
        ],
    )


def test_a_step_joining_a_stage_of_another_atlas_is_dangling_with_a_hint() -> None:
    stages = _data("stages")
    stages[3]["atlases"] = ["elsewhere"]  # toy-cpu: the end of steps 1 and 3
    problems = [
        _bad(
            "step",
            step,
            "to-stage 'toy-cpu' is not part of atlas 'toy'",
            "dangling",
            "add dcterms:isPartOf atlas:toy to stage:toy-cpu",
        )
        for step in ("toy-interpreter-runs-on-cpu", "toy-compiler-targets-cpu")
    ]
    _assert_found(STEPS, _changed(stages=stages), problems)


def test_a_step_replaced_by_an_unknown_step_is_dangling_and_by_a_known_one_is_not() -> None:
    steps = _step(3, deprecated=True, replacedBy="toy-nowhere")
    steps[4].update(deprecated=True, replacedBy="toy-compiler-targets-cpu")
    _assert_found(
        STEPS,
        _changed(steps=steps),
        [
            _bad(
                "step",
                "toy-compiler-targets-cpu",
                "is replaced by an unknown step 'toy-nowhere'",
                "dangling",
            ),
        ],
    )


def test_a_condition_that_is_no_concept_is_dangling() -> None:
    steps = _step(1, when=["toy-mode/nothing"])  # of a dimension: no condition problem
    _assert_found(
        STEPS,
        _changed(steps=steps),
        [
            _bad(
                "step",
                "toy-interpreter-runs-on-cpu",
                "condition 'toy-mode/nothing' is not a known dimension value",
                "dangling",
            ),
        ],
    )


def test_an_unknown_branch_is_dangling_and_a_known_one_is_not() -> None:
    steps = _step(2, branch="toy-mode/nothing")
    steps[3]["branch"] = "toy-mode/compiled"
    _assert_found(
        STEPS,
        _changed(steps=steps),
        [
            _bad(
                "step",
                "toy-interpreter-calls-compiler",
                "branch 'toy-mode/nothing' is not a known concept",
                "dangling",
            ),
        ],
    )


def test_values_and_any_for_one_dimension_is_a_condition_problem() -> None:
    steps = _step(1, whenAny=["toy-device", "toy-mode"])
    _assert_found(
        STEPS,
        _changed(steps=steps),
        [
            _bad(
                "step",
                "toy-interpreter-runs-on-cpu",
                "gives both values and 'any' for dimension 'toy-mode'",
                "condition",
            ),
        ],
    )


def test_no_condition_for_a_dimension_names_its_label_with_a_hint() -> None:
    steps = _step(1, whenAny=[])  # has toy-mode/interpreted, nothing of toy-device
    _assert_found(
        STEPS,
        _changed(steps=steps),
        [
            _bad(
                "step",
                "toy-interpreter-runs-on-cpu",
                "has no device condition (dimension 'toy-device')",
                "condition",
                "add ea:when <a device> or ea:whenAny scheme:toy-device",
            ),
        ],
    )


def test_no_condition_for_a_dimension_that_is_no_scheme_names_the_dimension() -> None:
    """Kills ``schemes[dim].label if dim in schemes else dim`` (a dimension with no scheme)."""
    atlas = {k: v for k, v in _data("atlases")[0].items() if k != "journeys"}
    atlas["dimensions"] = ["toy-mode", "toy-device", "toy-x"]
    steps = _data("steps")[:1]
    _assert_found(
        STEPS,
        _changed(atlases=[atlas], steps=steps),
        [
            _bad(
                "step",
                "toy-source-runs-in-interpreter",
                "has no toy-x condition (dimension 'toy-x')",
                "condition",
                "add ea:when <a toy-x> or ea:whenAny scheme:toy-x",
            ),
        ],
    )


def test_any_and_values_of_schemes_that_are_no_dimension_are_condition_problems() -> None:
    steps = _step(0, whenAny=["toy-device", "toy-mode", "stage-kind"], when=["stage-kind/runtime"])
    _assert_found(
        STEPS,
        _changed(steps=steps),
        [
            _bad(
                "step",
                "toy-source-runs-in-interpreter",
                "'any' names 'stage-kind', not a dimension of atlas 'toy'",
                "condition",
            ),
            _bad(
                "step",
                "toy-source-runs-in-interpreter",
                "condition 'stage-kind/runtime' is not a value of a dimension of atlas 'toy'",
                "condition",
            ),
        ],
    )


def test_a_value_whose_prefix_is_a_dimension_name_but_not_its_scheme_is_not_its_value() -> None:
    """``startswith(dim + "/")``: ``toy-modes/x`` is no value of ``toy-mode``."""
    schemes = _data("schemes")
    schemes.append(
        {
            "type": "ConceptScheme",
            "id": "toy-modes",
            "label": "modes",
            "values": [{**schemes[0]["values"][0], "id": "toy-modes/x"}],
        }
    )
    steps = _step(1, when=["toy-modes/x"], whenAny=["toy-device"])
    step = "toy-interpreter-runs-on-cpu"
    _assert_found(
        STEPS,
        _changed(steps=steps, schemes=schemes),
        [
            _bad(
                "step",
                step,
                "has no mode condition (dimension 'toy-mode')",
                "condition",
                "add ea:when <a mode> or ea:whenAny scheme:toy-mode",
            ),
            _bad(
                "step",
                step,
                "condition 'toy-modes/x' is not a value of a dimension of atlas 'toy'",
                "condition",
            ),
        ],
    )


def test_the_references_of_a_step_come_before_its_conditions() -> None:
    steps = _step(1, when=["toy-mode/nothing", "stage-kind/runtime"], whenAny=[])
    steps[1]["from"] = "toy-x"
    assert [p.message for p in STEPS(_changed(steps=steps))] == [
        "from-stage 'toy-x' is not a stage",
        "condition 'toy-mode/nothing' is not a known dimension value",
        "has no device condition (dimension 'toy-device')",
        "condition 'stage-kind/runtime' is not a value of a dimension of atlas 'toy'",
    ]


# --- relation_references -------------------------------------------------------------------------


def test_a_relation_of_an_unknown_atlas_and_technologies_is_dangling_at_each() -> None:
    relations = _data("relations")
    relations[0].update({"atlas": "toy-x", "from": "toy-y", "to": "toy-z"})
    rid = relations[0]["id"]
    _assert_found(
        rules.relation_references,
        _changed(relations=relations),
        [
            _bad("relation", rid, "belongs to an unknown atlas 'toy-x'", "dangling"),
            _bad("relation", rid, "from-technology 'toy-y' is not a technology", "dangling"),
            _bad("relation", rid, "to-technology 'toy-z' is not a technology", "dangling"),
        ],
    )


def test_a_relation_to_one_unknown_technology_is_dangling_at_that_end_only() -> None:
    relations = _data("relations")
    relations[0]["to"] = "toy-z"
    _assert_found(
        rules.relation_references,
        _changed(relations=relations),
        [
            _bad(
                "relation",
                relations[0]["id"],
                "to-technology 'toy-z' is not a technology",
                "dangling",
            ),
        ],
    )


# --- citation_sources ----------------------------------------------------------------------------


def test_a_citation_of_an_unlisted_source_is_dangling_with_a_hint() -> None:
    citations = _data("citations")
    citations[4]["source"] = "https://example.org/toy/other.html"
    _assert_found(
        rules.citation_sources,
        _changed(citations=citations),
        [
            _bad(
                "citation",
                "spec-compiler",
                "cites an unlisted source <https://example.org/toy/other.html>",
                "dangling",
                "add the source to sources.ttl",
            ),
        ],
    )


# --- no_path_records (in RECORD_RULES; its branches are in tests/test_nopath.py) ----------------


def _no_path(nid: str, when: list[str], **fields: Any) -> dict[str, Any]:
    return {
        "type": "NoPath",
        "id": nid,
        "atlas": "toy",
        "when": when,
        "reason": "not-covered",
        "note": "Not written yet.",
        "claims": [],
        **fields,
    }


def test_a_no_path_record_of_an_unknown_atlas_is_dangling_and_nothing_else() -> None:
    record = _no_path("toy-none", ["toy-mode/nothing"], atlas="toy-x")
    _assert_found(
        rules.no_path_records,
        _changed(noPaths=[record]),
        [_bad("nopath", "toy-none", "belongs to an unknown atlas 'toy-x'", "dangling")],
    )


NO_PATH = rules.no_path_records
ONE_HINT = "give one ea:when value of scheme:{}"


def _no_path_found(*records: dict[str, Any], **more: Any) -> list[Problem]:
    return NO_PATH(_changed(noPaths=list(records), **more))


def test_a_no_path_record_of_a_real_selection_is_no_problem() -> None:
    record = _no_path("n", ["toy-mode/interpreted", "toy-device/gpu"], seePath="toy-device/cpu")
    assert _no_path_found(record) == []


def test_unknown_values_of_a_no_path_record_and_its_see_path_are_dangling() -> None:
    record = _no_path("n", ["toy-mode/interpreted", "toy-device/tpu"], seePath="toy-device/npu")
    expected = [
        _bad("nopath", "n", f"value {v!r} is not a known dimension value", "dangling")
        for v in ("toy-device/tpu", "toy-device/npu")
    ]
    _assert_found(NO_PATH, _changed(noPaths=[record]), expected)


def test_a_no_path_record_of_an_atlas_without_dimensions_names_no_selection() -> None:
    other = _other_atlas(dimensions=[], entryStage=None)
    record = _no_path("n", ["toy-mode/interpreted"], atlas="other")
    _assert_found(
        NO_PATH,
        _changed(noPaths=[record], atlases=[*_atlases(), other]),
        [_bad("nopath", "n", "atlas 'other' has no dimensions, so no selections", "no-path")],
    )


def test_a_no_path_record_names_exactly_one_value_of_each_dimension() -> None:
    record = _no_path("n", ["toy-mode/interpreted", "toy-mode/compiled", "stage-kind/runtime"])
    _assert_found(
        NO_PATH,
        _changed(noPaths=[record]),
        [
            _bad(
                "nopath",
                "n",
                "names 2 values (toy-mode/interpreted, toy-mode/compiled) of the dimension "
                "'toy-mode'; a selection has exactly one",
                "no-path",
                ONE_HINT.format("toy-mode"),
            ),
            _bad(
                "nopath",
                "n",
                "names no value of the dimension 'toy-device'; a selection has exactly one",
                "no-path",
                ONE_HINT.format("toy-device"),
            ),
            _bad(
                "nopath",
                "n",
                "value 'stage-kind/runtime' is not a value of a dimension of atlas 'toy'",
                "no-path",
            ),
        ],
    )


@pytest.mark.parametrize("see", ["toy-device/gpu", "stage-kind/runtime"])
def test_a_see_path_is_another_value_of_a_dimension(see: str) -> None:
    record = _no_path("n", ["toy-mode/interpreted", "toy-device/gpu"], seePath=see)
    message = f"seePath {see!r} must be another value of one of the dimensions of 'toy'"
    _assert_found(NO_PATH, _changed(noPaths=[record]), [_bad("nopath", "n", message, "no-path")])


def test_a_no_path_reason_needs_its_claims_or_its_note() -> None:
    when = ["toy-mode/interpreted", "toy-device/gpu"]
    missing = _no_path("n", when, reason="does-not-exist", note=None)
    uncovered = _no_path("m", ["toy-mode/interpreted", "toy-device/cpu"], note=None)
    _assert_found(
        NO_PATH,
        _changed(
            noPaths=[{k: v for k, v in r.items() if v is not None} for r in (missing, uncovered)]
        ),
        [
            _bad(
                "nopath",
                "n",
                '"does-not-exist" needs its reason as claims',
                "no-path",
                "add claims (ea:about this record) saying why the combination does not exist",
            ),
            _bad(
                "nopath",
                "m",
                '"not-covered" needs a curator\'s note',
                "no-path",
                "add a skos:editorialNote saying what the sources lack",
            ),
        ],
    )


def test_two_no_path_records_of_one_selection_are_each_reported() -> None:
    first = _no_path("n", ["toy-mode/interpreted", "toy-device/gpu"])
    second = _no_path("m", ["toy-device/gpu", "toy-mode/interpreted"])
    other = _no_path("o", ["toy-mode/interpreted", "toy-device/cpu"])
    message = "another no-path record names the same selection ({})"
    _assert_found(
        NO_PATH,
        _changed(noPaths=[first, other, second]),
        [
            _bad("nopath", "n", message.format("toy-mode/interpreted, toy-device/gpu"), "no-path"),
            _bad("nopath", "m", message.format("toy-device/gpu, toy-mode/interpreted"), "no-path"),
        ],
    )


def test_a_live_step_written_for_a_no_path_selection_contradicts_it() -> None:
    record = _no_path("n", ["toy-mode/compiled", "toy-device/gpu"])
    message = (
        "step 'toy-compiler-targets-gpu' is written for this selection (its ea:when names each "
        "of toy-mode/compiled, toy-device/gpu), but the selection has no path"
    )
    hint = "remove the no-path record, or the selection's values from the step"
    _assert_found(
        NO_PATH,
        _changed(noPaths=[record]),
        [_bad("nopath", "n", message, "no-path-conflict", hint)],
    )
    retired = _step(4, deprecated=True, replacedBy="toy-compiler-targets-cpu")
    _assert_found(NO_PATH, _changed(noPaths=[record], steps=retired), [])


# --- data/_integrity.py: export_problems ---------------------------------------------------------


def _export(**records: Any) -> dict[str, Any]:
    """The mini's export data with collections replaced (no models made: it may be inconsistent)."""
    data: dict[str, Any] = export.to_data(GOOD)
    data.update(copy.deepcopy(records))
    return data


def _lines(data: dict[str, Any]) -> dict[str, int]:
    return _json.json_lines(json.dumps(data, indent=2))


def _reference(data: dict[str, Any], path: list[Any], message: str, **fields: Any) -> Problem:
    """A reference problem of ``export_problems`` at ``path`` of ``data`` (line from its table)."""
    return Problem(
        "violation",
        message,
        file="atlas.json",
        line=_json.line_of_pointer(_lines(data), path),
        **fields,
    )


def _assert_same(found: list[Problem], expected: list[Problem]) -> None:
    assert found == expected
    assert [p.code for p in found] == [p.code for p in expected]


@pytest.mark.parametrize("table", ["mapping", "function"])
def test_a_dangling_reference_has_its_hint_code_and_line(table: str) -> None:
    """Kills the hint and code of reference problems set to ``None`` or left out, and
    ``lines() if callable(lines) ... or True`` (a mapping is not called)."""
    steps = _data("steps")
    steps[0]["to"] = "toy-nowhere"
    data = _export(steps=steps)
    lines = _lines(data)
    given: Any = lines if table == "mapping" else (lambda: lines)
    expected = Problem(
        "violation",
        "/steps/0(toy-source-runs-in-interpreter)/to: no stage has the id 'toy-nowhere'",
        file="atlas.json",
        line=lines["/steps/0/to"],
        subject=f"{BASE_IRI}step/toy-source-runs-in-interpreter",
        hint=DANGLING_HINT,
        code="dangling",
    )
    assert expected.line is not None
    _assert_same(export_problems(data, file="atlas.json", lines=given), [expected])


def test_without_a_table_of_lines_a_problem_has_no_line() -> None:
    """Kills ``line_of_pointer(table, path) if table ... or True`` (no table: no line)."""
    steps = _data("steps")
    steps[0]["to"] = "toy-nowhere"
    found = export_problems(_export(steps=steps), file="atlas.json")
    assert [(p.file, p.line, p.code) for p in found] == [("atlas.json", None, "dangling")]
    assert export_problems(_export(steps=steps), file="atlas.json", lines={}) == [
        replace(found[0], line=None)
    ]


def test_an_id_held_twice_is_a_duplicate_at_the_second_with_its_hint() -> None:
    stages = _data("stages")
    data = _export(stages=[*stages, {**stages[0], "claims": []}])
    expected = _reference(
        data,
        ["stages", 5, "id"],
        "/stages/5(toy-source)/id: duplicate id 'toy-source', also at /stages/0(toy-source)",
        subject=f"{BASE_IRI}stage/toy-source",
        hint=DUPLICATE_HINT,
        code="duplicate",
    )
    _assert_same(export_problems(data, file="atlas.json", lines=_lines(data)), [expected])


def test_a_value_id_held_twice_is_at_its_path_under_schemes_and_values() -> None:
    """Kills the path ``["schemes", i, "values", j]`` of the concepts (each string mutated)."""
    schemes = _data("schemes")
    schemes[1]["values"].append(schemes[1]["values"][0])
    data = _export(schemes=schemes)
    found = export_problems(data, file="atlas.json", lines=_lines(data))
    _assert_same(
        found,
        [
            _reference(
                data,
                ["schemes", 1, "values", 2, "id"],
                "/schemes/1(toy-device)/values/2(toy-device/cpu)/id: duplicate id "
                "'toy-device/cpu', also at /schemes/1(toy-device)/values/0(toy-device/cpu)",
                subject=f"{BASE_IRI}scheme/toy-device/cpu",
                hint=DUPLICATE_HINT,
                code="duplicate",
            )
        ],
    )
    assert found[0].line == _lines(data)["/schemes/1/values/2/id"]


@pytest.mark.parametrize(
    ("collection", "index", "shown", "owner"),
    [
        ("stages", 0, "/stages/0(toy-source)", "stage-toy-source-1"),
        ("schemes", 0, "/schemes/0(toy-mode)/values/1(toy-mode/compiled)", "value-1"),
    ],
)
def test_a_claim_nested_in_a_record_citing_an_unknown_citation_is_dangling(
    collection: str, index: int, shown: str, owner: str
) -> None:
    """Claims are records of their own, nested in those with a text (values included)."""
    items = _data(collection)
    if collection == "schemes":
        claim = {
            "type": "Claim",
            "id": owner,
            "text": "x",
            "order": 1,
            "citations": ["nowhere"],
            "observedIn": [],
            "unsupported": False,
        }
        items[index]["values"][1]["claims"] = [claim]
        path: list[Any] = ["schemes", index, "values", 1, "claims", 0, "citations", 0]
    else:
        items[index]["claims"][0]["citations"] = ["nowhere"]
        path = [collection, index, "claims", 0, "citations", 0]
    data = _export(**{collection: items})
    expected = _reference(
        data,
        path,
        f"{shown}/claims/0({owner})/citations/0: no citation has the id 'nowhere'",
        subject=f"{BASE_IRI}claim/{owner}",
        hint=DANGLING_HINT,
        code="dangling",
    )
    _assert_same(export_problems(data, file="atlas.json", lines=_lines(data)), [expected])


def test_consistency_problems_are_at_their_record_or_at_the_top_and_warnings_are_left_out() -> None:
    """Kills ``if p.subject in at ... or True``: a subject that is no record stays as it is."""
    data = _export()
    stage = Problem("violation", "odd", subject=f"{BASE_IRI}stage/toy-interpreter", code="x")
    elsewhere = Problem("violation", "odd too", subject="https://example.org/toy/guide.html")
    warning = Problem("warning", "only a warning", subject=f"{BASE_IRI}stage/toy-cpu")
    lines = _lines(data)
    found = export_problems(
        data,
        file="atlas.json",
        lines=lines,
        document=GOOD,
        consistency=lambda _: [stage, warning, elsewhere],
    )
    _assert_same(
        found,
        [
            replace(
                stage,
                message="/stages/1(toy-interpreter): odd",
                file="atlas.json",
                line=lines["/stages/1/id"],
            ),
            replace(elsewhere, file="atlas.json", line=lines["/"]),
        ],
    )


def test_the_record_rules_run_only_when_given_the_document_and_no_reference_is_at_fault() -> None:
    document = _changed(steps=_step(1, whenAny=[]))
    data = export.to_data(document)
    lines = _lines(data)
    expected = Problem(
        "violation",
        "/steps/1(toy-interpreter-runs-on-cpu): has no device condition (dimension 'toy-device')",
        file="atlas.json",
        line=lines["/steps/1/id"],
        subject=f"{BASE_IRI}step/toy-interpreter-runs-on-cpu",
        hint="add ea:when <a device> or ea:whenAny scheme:toy-device",
        code="condition",
    )
    _assert_same(
        export_problems(data, file="atlas.json", lines=lines, document=document), [expected]
    )
    assert export_problems(data, file="atlas.json") == []  # no document: no record rules
    steps = data["steps"]
    steps[0]["to"] = "toy-nowhere"  # a reference at fault: the rules do not run
    found = export_problems(data, file="atlas.json", document=document)
    assert [p.code for p in found] == ["dangling"]


def test_data_without_some_collections_or_with_odd_schemes_is_read_as_far_as_it_goes() -> None:
    """Kills the ``isinstance(..., list) ... or True`` of missing collections and schemes, and
    ``isinstance(scheme, dict) and ...`` to ``or`` (a scheme without values)."""
    step = {"type": "Step", "id": "s", "from": "a", "to": "a", "when": ["v/x"], "citations": []}
    stages = [{"type": "Stage", "id": "a"}]
    for schemes in (None, "none", ["odd", {"type": "ConceptScheme", "id": "v"}]):
        data: dict[str, Any] = {"stages": stages, "steps": [step]}
        if schemes is not None:
            data["schemes"] = schemes
        found = export_problems(data, file="x.json")
        assert [(p.message, p.code) for p in found] == [
            ("/steps/0(s)/when/0: no value of a concept scheme has the id 'v/x'", "dangling")
        ]


def test_an_id_held_twice_after_a_record_without_an_id_is_found() -> None:
    """Kills ``continue`` to ``break`` in ``_known_ids`` (a record without an id string)."""
    stages = [
        {"type": "Stage", "label": "no id"},
        {"type": "Stage", "id": 3},
        {"type": "Stage", "id": "a"},
        {"type": "Stage", "id": "a"},
    ]
    found = export_problems({"stages": stages}, file="x.json")
    assert [(p.message, p.code) for p in found] == [
        ("/stages/3(a)/id: duplicate id 'a', also at /stages/2(a)", "duplicate")
    ]
