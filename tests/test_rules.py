"""Each consistency rule on its own: a document that breaks only it, and the mini fixture, clean.

The rules are those of :data:`atlas.checks.consistency.RULES`, in their order; each bad document
is the mini fixture's export with one record changed (:func:`checkkit.changed_export`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from atlas.checks import build, consistency
from atlas.checks._journeys import journey_order
from atlas.data import _consistency as rules
from atlas.data import export
from atlas.errors import DatasetError
from atlas.models import AtlasDocument
from checkkit import MINI, changed_export

GOOD = AtlasDocument.model_validate_json((MINI / "atlas.json").read_bytes())


def _records(collection: str, change: Callable[[list[dict[str, Any]]], None]) -> Any:
    """The JSON records of the mini document's ``collection``, with ``change`` made to them."""
    records = copy.deepcopy(export.to_data(GOOD)[collection])
    change(records)
    return records


def _changed(collection: str, change: Callable[[list[dict[str, Any]]], None]) -> AtlasDocument:
    """The mini document with ``change`` made to the JSON records of ``collection``."""
    return changed_export(GOOD, **{collection: _records(collection, change)})


def _duplicate_stage(stages: list[dict[str, Any]]) -> None:
    stages.append(copy.deepcopy(stages[-1]))


def _shared_url(sources: list[dict[str, Any]]) -> None:
    sources[1]["url"] = sources[0]["url"]


def _unknown_entry(atlases: list[dict[str, Any]]) -> None:
    atlases[0]["entryStage"] = "nowhere"


def _stage_of_no_atlas(stages: list[dict[str, Any]]) -> None:
    stages[-1]["atlases"] = []


def _technology_of_a_stage_kind(technologies: list[dict[str, Any]]) -> None:
    technologies[0]["kind"] = "stage-kind/language"


def _step_to_nowhere(steps: list[dict[str, Any]]) -> None:
    steps[-1]["to"] = "nowhere"


def _step_without_condition(steps: list[dict[str, Any]]) -> None:
    steps[0]["whenAny"] = ["toy-mode"]  # and no value of toy-device either


def _relation_to_nowhere(relations: list[dict[str, Any]]) -> None:
    relations[0]["to"] = "nowhere"


def _citation_of_an_unlisted_source(citations: list[dict[str, Any]]) -> None:
    citations[0]["source"] = "https://example.org/elsewhere"


def _no_path_of_an_unknown_value(no_paths: list[dict[str, Any]]) -> None:
    note = "No source covers it."
    when = ["toy-mode/interpreted", "toy-device/tpu"]
    no_paths.append(
        {"type": "NoPath", "id": "toy-tpu", "atlas": "toy", "when": when, "reason": "not-covered"}
        | {"note": note}
    )


def _cycle(steps: list[dict[str, Any]]) -> None:
    back = copy.deepcopy(steps[1])  # interpreter -> cpu, when interpreted
    steps.append({**back, "id": "toy-cpu-back", "from": "toy-cpu", "to": "toy-interpreter"})


def _journey_out_of_order(atlases: list[dict[str, Any]]) -> None:
    journey = atlases[0]["journeys"][-1]  # compiled on a GPU: three steps
    journey["steps"] = list(reversed(journey["steps"]))


#: Each rule, the collection changed, the change, and (code, start of the message) it reports.
CASES: dict[str, tuple[rules.Rule, str, Callable[[list[dict[str, Any]]], None], str, str]] = {
    "unique_ids": (
        rules.unique_ids,
        "stages",
        _duplicate_stage,
        "duplicate",
        "duplicate id 'toy-gpu' (2 stages)",
    ),
    "shared_source_urls": (
        rules.shared_source_urls,
        "sources",
        _shared_url,
        "duplicate-url",
        "sources source:toy-guide, source:toy-spec have the same URL",
    ),
    "atlas_entries_and_dimensions": (
        rules.atlas_entries_and_dimensions,
        "atlases",
        _unknown_entry,
        "dangling",
        "entry stage 'nowhere' is not a stage",
    ),
    "stage_references": (
        rules.stage_references,
        "stages",
        _stage_of_no_atlas,
        "missing",
        "is part of no atlas",
    ),
    "technology_kinds": (
        rules.technology_kinds,
        "technologies",
        _technology_of_a_stage_kind,
        "dangling",
        "kind 'stage-kind/language' is not a concept of the 'technology-kind' scheme",
    ),
    "step_references_and_conditions": (
        rules.step_references_and_conditions,
        "steps",
        _step_to_nowhere,
        "dangling",
        "to-stage 'nowhere' is not a stage",
    ),
    "relation_references": (
        rules.relation_references,
        "relations",
        _relation_to_nowhere,
        "dangling",
        "to-technology 'nowhere' is not a technology",
    ),
    "citation_sources": (
        rules.citation_sources,
        "citations",
        _citation_of_an_unlisted_source,
        "dangling",
        "cites an unlisted source <https://example.org/elsewhere>",
    ),
    "no_path_records": (
        rules.no_path_records,
        "noPaths",
        _no_path_of_an_unknown_value,
        "dangling",
        "value 'toy-device/tpu' is not a known dimension value",
    ),
    "path_cycles": (
        consistency.path_cycles,
        "steps",
        _cycle,
        "cycle",
        "the steps toy-cpu-back, toy-interpreter-runs-on-cpu form a cycle",
    ),
    "journey_order": (
        journey_order,
        "atlases",
        _journey_out_of_order,
        "journey-order",
        "journeys: the journey of toy-mode/compiled + toy-device/gpu is ['toy-compiler-",
    ),
}


def test_every_rule_has_a_case_in_the_order_they_run() -> None:
    assert list(CASES) == [rule.__name__ for rule in consistency.RULES]
    assert consistency.RULES[: len(rules.RECORD_RULES)] == rules.RECORD_RULES


@pytest.mark.parametrize("rule", consistency.RULES, ids=lambda r: r.__name__)
def test_the_mini_fixture_breaks_no_rule(rule: rules.Rule) -> None:
    assert rule(GOOD) == []


@pytest.mark.parametrize("name", list(CASES))
def test_a_document_that_breaks_one_rule_is_reported_by_it(name: str) -> None:
    rule, collection, change, code, message = CASES[name]
    bad = _changed(collection, change)
    problems = rule(bad)
    assert problems, name
    assert all(p.severity == "violation" for p in problems)
    assert [p.code for p in problems] == [code] * len(problems)
    assert problems[0].message.startswith(message), problems[0].message
    assert problems[0].subject


@pytest.mark.parametrize("name", list(CASES))
def test_the_consistency_check_reports_what_the_rule_reports(name: str) -> None:
    rule, collection, change, _, _ = CASES[name]
    bad = _changed(collection, change)
    assert set(rule(bad)) <= set(consistency.consistency_problems(bad))


def test_a_step_must_give_a_condition_for_each_dimension() -> None:
    bad = _changed("steps", _step_without_condition)
    (problem,) = rules.step_references_and_conditions(bad)
    assert problem.code == "condition"
    assert problem.message == "has no device condition (dimension 'toy-device')"
    assert problem.subject is not None
    assert problem.subject.endswith("step/toy-source-runs-in-interpreter")


def test_the_rules_run_in_order_and_the_cycles_only_without_violations() -> None:
    cyclic = _changed("steps", _cycle)
    assert consistency.consistency_problems(cyclic) == consistency.path_cycles(cyclic)
    both = changed_export(
        GOOD,
        steps=_records("steps", _cycle),
        citations=_records("citations", _citation_of_an_unlisted_source),
    )
    assert consistency.consistency_problems(both) == rules.citation_sources(both)
    broken = _changed("stages", _duplicate_stage)
    expected = [p for rule in consistency.RULES for p in rule(broken)]
    assert consistency.consistency_problems(broken) == expected
    assert rules.record_problems(broken) == expected


def test_an_export_read_above_the_query_layer_is_refused_for_a_cycle(tmp_path) -> None:
    # The data layer reads an export with the record rules; atlas diff and site build read it
    # through atlas.checks.build, with every rule, so a cycle is refused there as it always was.
    def cycle_with_its_own_claims(steps: list[dict[str, Any]]) -> None:
        _cycle(steps)
        for claim in steps[-1]["claims"]:
            claim["id"] = "back-" + claim["id"]

    cyclic = _changed("steps", cycle_with_its_own_claims)
    path = export.write(cyclic, tmp_path / "atlas.json")
    assert export.read(path) == cyclic
    with pytest.raises(DatasetError, match="form a cycle"):
        build.read(path)


# --- retired ids (issue 23): a retired stage, step or citation leads to a live record ---------

from atlas.checks._replacements import retired_replacements  # noqa: E402 - appended section


def _retired_without_replacement(stages: list[dict[str, Any]]) -> None:
    stages[-1]["deprecated"] = True  # toy-gpu, retired with no dcterms:isReplacedBy


# The rule runs last (after the walks of the paths), so its case comes last, as RULES has it.
CASES["retired_replacements"] = (
    retired_replacements,
    "stages",
    _retired_without_replacement,
    "no-replacement",
    "is deprecated but names no replacement (dcterms:isReplacedBy)",
)


def test_a_document_that_breaks_the_retired_ids_rule_is_reported_by_it_alone() -> None:
    # CASES was parametrised before this case was appended: run the general tests on it here.
    test_a_document_that_breaks_one_rule_is_reported_by_it("retired_replacements")
    test_the_consistency_check_reports_what_the_rule_reports("retired_replacements")
    bad = _changed("stages", _retired_without_replacement)
    assert consistency.consistency_problems(bad) == retired_replacements(bad)
    (problem,) = retired_replacements(bad)
    assert problem.subject == rules.iri("stage", "toy-gpu")


def _retire(records: list[dict[str, Any]], rid: str, replaced_by: str | None) -> None:
    record = next(r for r in records if r["id"] == rid)
    record["deprecated"] = True
    if replaced_by is not None:
        record["replacedBy"] = replaced_by


def test_retired_ids_with_live_replacements_break_no_rule() -> None:
    def chain(stages: list[dict[str, Any]]) -> None:
        _retire(stages, "toy-gpu", "toy-compiler")  # toy-gpu -> toy-compiler -> toy-cpu
        _retire(stages, "toy-compiler", "toy-cpu")

    def retired_citation(citations: list[dict[str, Any]]) -> None:
        _retire(citations, "guide-interpreter", None)  # a retired citation may name none
        _retire(citations, "spec-targets", "spec-targets-gpu")

    good = changed_export(
        GOOD, stages=_records("stages", chain), citations=_records("citations", retired_citation)
    )
    assert retired_replacements(good) == []


def _stage_cycle(stages: list[dict[str, Any]]) -> None:
    _retire(stages, "toy-gpu", "toy-cpu")
    _retire(stages, "toy-cpu", "toy-gpu")


def _step_cycle_and_unknown(steps: list[dict[str, Any]]) -> None:
    _retire(steps, "toy-compiler-targets-cpu", "toy-compiler-targets-cpu")
    _retire(steps, "toy-compiler-targets-gpu", "toy-gone")  # the reference rule's to report


def _replaced_but_live(stages: list[dict[str, Any]]) -> None:
    next(s for s in stages if s["id"] == "toy-gpu")["replacedBy"] = "toy-cpu"


def _citation_dead_ends(citations: list[dict[str, Any]]) -> None:
    _retire(citations, "spec-targets", "nowhere")
    _retire(citations, "guide-interpreter", "guide-one-at-a-time")
    _retire(citations, "guide-one-at-a-time", None)


#: Each way a retired id leads nowhere live: (subject, code, message) of each problem, in order.
RETIRED_CASES: dict[str, tuple[str, Callable[[list[dict[str, Any]]], None], list[Any]]] = {
    "stage-cycle-once": (
        "stages",
        _stage_cycle,
        [
            (
                "stage/toy-cpu",
                "replacement-cycle",
                ("the replacements of stage 'toy-cpu' form a cycle: toy-cpu -> toy-gpu -> toy-cpu"),
            )
        ],
    ),
    "step-cycle-only": (
        "steps",
        _step_cycle_and_unknown,
        [
            (
                "step/toy-compiler-targets-cpu",
                "replacement-cycle",
                (
                    "the replacements of step 'toy-compiler-targets-cpu' form a cycle: "
                    "toy-compiler-targets-cpu -> toy-compiler-targets-cpu"
                ),
            )
        ],
    ),
    "replaced-but-live": (
        "stages",
        _replaced_but_live,
        [
            (
                "stage/toy-gpu",
                "replaced-but-live",
                "is replaced by stage 'toy-cpu' but is not deprecated",
            )
        ],
    ),
    "citation-dead-ends": (
        "citations",
        _citation_dead_ends,
        [
            (
                "citation/guide-interpreter",
                "no-replacement",
                (
                    "is replaced by citation 'guide-one-at-a-time', which is deprecated too "
                    "and names no replacement"
                ),
            ),
            ("citation/spec-targets", "dangling", "is replaced by an unknown citation 'nowhere'"),
        ],
    ),
}


@pytest.mark.parametrize("name", list(RETIRED_CASES))
def test_each_way_a_retired_id_leads_nowhere_live_is_reported_once(name: str) -> None:
    collection, change, expected = RETIRED_CASES[name]
    found = retired_replacements(_changed(collection, change))
    assert [(p.subject, p.code, p.message) for p in found] == [
        (rules.iri(*subject.split("/")), code, message) for subject, code, message in expected
    ]
    assert all(p.severity == "violation" and p.hint for p in found)
