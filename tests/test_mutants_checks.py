"""The check rules: tests that kill mutants the other tests let survive (issue 17).

Each test compares whole problems (severity, message, subject, hint and code), so that a rule
reporting the right thing with a wrong field is caught. All run on the mini export.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from atlas.checks import _claims
from atlas.checks.dates import date_problems
from atlas.data import export
from atlas.errors import Problem
from atlas.models import AtlasDocument
from atlas.models._iri import BASE_IRI
from checkkit import MINI, changed_export

GOOD = AtlasDocument.model_validate_json((MINI / "atlas.json").read_bytes())
CHECKED = dt.date(2026, 11, 30)  # every check date, snapshot date and the release of the mini
CITATION = f"{BASE_IRI}citation/guide-interpreter"


def _data(key: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = export.to_data(GOOD)[key]
    return items


def _one_citation_checked(day: str) -> AtlasDocument:
    citations = _data("citations")
    citations[0]["retrievedOn"] = f"{day}T00:00:00Z"
    changed: AtlasDocument = changed_export(GOOD, citations=citations)
    return changed


# --- checks/dates.py ----------------------------------------------------------------------------


def test_a_clean_document_has_no_date_problem() -> None:
    assert date_problems(GOOD, today=CHECKED) == []


def test_a_check_date_in_the_future_is_a_violation_naming_the_citation_and_today() -> None:
    document = _one_citation_checked("2026-12-01")
    assert date_problems(document, today=CHECKED) == [
        Problem(
            "violation",
            "check date 2026-12-01 is in the future",
            subject=CITATION,
            hint="use the day you verified the quote (today is 2026-11-30)",
            code="future-date",
        )
    ]


@pytest.mark.parametrize(
    ("max_age", "days", "stale"),
    [(None, 365, False), (None, 366, True), (30, 30, False), (30, 31, True)],
)
def test_a_quote_checked_longer_ago_than_the_limit_is_a_warning(
    max_age: int | None,
    days: int,
    stale: bool,  # noqa: FBT001
) -> None:
    today = CHECKED + dt.timedelta(days=days)
    limits = {} if max_age is None else {"max_age_days": max_age}
    problems = date_problems(GOOD, today=today, **limits)
    citations = [f"{BASE_IRI}citation/{c.id}" for c in GOOD.citations]
    limit = 365 if max_age is None else max_age
    expected = [
        Problem(
            "warning",
            f"quote last checked 2026-11-30, {days} days ago (limit {limit})",
            subject=subject,
            hint="verify the quote again and update the date",
            code="stale-date",
        )
        for subject in citations
    ]
    assert problems == (expected if stale else [])


def test_a_snapshot_and_a_release_in_the_future_are_violations() -> None:
    sources = _data("sources")
    sources[1]["retrievedOn"] = "2026-12-02T00:00:00Z"
    document = changed_export(GOOD, sources=sources, issued="2026-12-03")
    today = dt.date(2026, 12, 1)
    assert date_problems(document, today=today) == [
        Problem(
            "violation",
            "snapshot date 2026-12-02 is in the future",
            subject=sources[1]["url"],
            hint="use the day the snapshot was taken (today is 2026-12-01)",
            code="future-date",
        ),
        Problem(
            "violation",
            "release date 2026-12-03 is in the future",
            subject=BASE_IRI,
            code="future-date",
        ),
    ]
    # the other source, checked before today, is no problem; nor is a date of today
    assert date_problems(document, today=dt.date(2026, 12, 3)) == []


# --- checks/_claims.py --------------------------------------------------------------------------


def _claim(cid: str, text: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": "Claim",
        "id": cid,
        "text": text,
        "order": 1,
        "citations": [],
        "observedIn": [],
        "unsupported": True,
        **fields,
    }


def test_every_resource_with_a_text_is_an_owner_of_its_kind_and_atlases() -> None:
    schemes = _data("schemes")
    schemes[0]["values"][1]["claims"] = [_claim("concept-toy-compiled-1", "Compiled ahead.")]
    schemes.append(
        {
            "type": "ConceptScheme",
            "id": "toy-extra",
            "label": "extra",
            "order": 3,
            "values": [
                {
                    "type": "Concept",
                    "id": "toy-extra/x",
                    "label": "x",
                    "altLabels": [],
                    "order": 1,
                    "claims": [_claim("concept-toy-extra-x-1", "An extra value.")],
                }
            ],
        }
    )
    document = changed_export(GOOD, schemes=schemes)
    owners = [(o.kind, o.id, o.atlases, o.iri) for o in _claims.claimed(document)]
    toy = ("toy",)
    expected = [
        ("atlas", "toy", toy),
        ("concept", "toy-mode/compiled", toy),
        ("concept", "toy-extra/x", ()),  # a scheme that is no atlas's dimension counts in none
        *(("stage", s, toy) for s in ("toy-source", "toy-interpreter", "toy-compiler")),
        *(("stage", s, toy) for s in ("toy-cpu", "toy-gpu")),
        *(("step", s["id"], toy) for s in _data("steps")),
        ("technology", "toy-lang", toy),
        ("technology", "toy-c", toy),
        ("relation", "toy-lang-written-in-toy-c", toy),
    ]
    base = {"concept": "scheme"}
    assert owners == [(k, i, a, f"{BASE_IRI}{base.get(k, k)}/{i}") for k, i, a in expected]


def test_a_text_without_claims_is_a_violation_except_for_a_value() -> None:
    stages = _data("stages")
    stages[1]["claims"] = []
    document = changed_export(GOOD, stages=stages)
    no_claim = [p for p in _claims.claim_problems(document) if p.code == "no-claim"]
    assert no_claim == [
        Problem(
            "violation",
            "stage 'toy-interpreter' has no text: it needs at least one claim",
            subject=f"{BASE_IRI}stage/toy-interpreter",
            hint="add an ea:Claim with ea:about naming it and its sentence as rdf:value",
            code="no-claim",
        )
    ]
    # the values of the mini have no claims: they are not texts a user must read
    assert all(not v.claims for s in GOOD.schemes for v in s.values)
    assert not [p for p in _claims.claim_problems(GOOD) if p.severity == "violation"]


def test_a_claim_about_two_resources_is_one_violation_naming_the_count() -> None:
    stages = _data("stages")
    stages[3]["claims"] = [*stages[3]["claims"], stages[0]["claims"][0]]
    document = changed_export(GOOD, stages=stages)
    owners = [p for p in _claims.claim_problems(document) if p.code == "claim-owners"]
    claim = stages[0]["claims"][0]["id"]
    assert owners == [
        Problem(
            "violation",
            f"claim {claim!r} is about 2 resources; a claim is part of one text",
            subject=f"{BASE_IRI}claim/{claim}",
            code="claim-owners",
        )
    ]


def test_a_claim_naming_an_observation_no_record_made_is_dangling() -> None:
    from atlas import load  # noqa: PLC0415 - the shipped data: it has witness records

    shipped = load()
    data = export.to_data(shipped)
    step = next(s for s in data["steps"] if any(c["observedIn"] for c in s["claims"]))
    claim = next(c for c in step["claims"] if c["observedIn"])
    claim["observedIn"] = [*claim["observedIn"], "no-such-record#eager-nowhere"]
    document = changed_export(shipped, steps=data["steps"])
    dangling = [p for p in _claims.claim_problems(document) if p.code == "dangling"]
    assert dangling == [
        Problem(
            "violation",
            f"claim {claim['id']!r} names 'no-such-record#eager-nowhere', which no witness "
            "record observed",
            subject=f"{BASE_IRI}claim/{claim['id']}",
            hint='name an ea:Observation with ea:status "observed" in dataset/witness/',
            code="dangling",
        )
    ]


def test_the_summary_line_names_each_count_and_the_unbacked_only_when_there_are_some() -> None:
    summary = _claims.ClaimSummary("toy", 9, 1, 2, 3, 2, 0)
    text = "toy: 9 claims; 1 fully cited, 2 partially cited, 3 observed, 2 flagged unsupported"
    assert str(summary) == text
    unbacked = _claims.ClaimSummary("toy", 10, 1, 2, 3, 2, 1)
    assert str(unbacked) == text.replace("9 claims", "10 claims") + (", 1 without support or flag")


def _stage_claim_problems(**fields: Any) -> list[Problem]:
    """The problems of the first stage's claim (``stage-toy-source-1``) with ``fields`` set."""
    stages = _data("stages")
    stages[0]["claims"] = [{**stages[0]["claims"][0], **fields}]
    document = changed_export(GOOD, stages=stages)
    subject = f"{BASE_IRI}claim/stage-toy-source-1"
    return [p for p in _claims.claim_problems(document) if p.subject == subject]


TEXT = "The program as toy source code."
SUBJECT = f"{BASE_IRI}claim/stage-toy-source-1"


def test_a_claim_citing_an_unknown_citation_is_dangling() -> None:
    problems = _stage_claim_problems(citations=["nowhere"], unsupported=False)
    assert problems == [
        Problem(
            "violation",
            "claim 'stage-toy-source-1' cites an unknown citation 'nowhere'",
            subject=SUBJECT,
            hint="declare cite:<id> as an ea:Citation, or fix the id",
            code="dangling",
        )
    ]


def test_a_claim_flagged_unsupported_but_cited_is_a_violation() -> None:
    problems = _stage_claim_problems(citations=["nowhere"])
    assert problems[1:] == [
        Problem(
            "violation",
            "claim 'stage-toy-source-1' is flagged unsupported but is cited or observed",
            subject=SUBJECT,
            hint="remove ea:unsupported true, or the citations that do not support it",
            code="unsupported-flag",
        )
    ]
    # observed only, and flagged: the same (an observation is support)
    observed = _stage_claim_problems(observedIn=["run#eager-x"])
    assert [p.code for p in observed] == ["unsupported-flag"]


@pytest.mark.parametrize(
    ("note", "shown"), [(None, ""), ("no source says so", " (no source says so)")]
)
def test_a_flagged_claim_is_a_warning_with_its_note(note: str | None, shown: str) -> None:
    fields = {} if note is None else {"note": note}
    assert _stage_claim_problems(**fields) == [
        Problem(
            "warning",
            f"unsupported claim 'stage-toy-source-1': {TEXT}{shown}",
            subject=SUBJECT,
            hint="find a source that supports it, or reword or remove it",
            code="unsupported",
        )
    ]


def test_a_claim_neither_backed_nor_flagged_is_a_violation() -> None:
    assert _stage_claim_problems(unsupported=False) == [
        Problem(
            "violation",
            f"claim 'stage-toy-source-1' has no support and is not flagged unsupported: {TEXT}",
            subject=SUBJECT,
            hint=(
                "cite it (prov:wasDerivedFrom cite:<id>), name a witness observation "
                "(ea:observedIn), or flag it ea:unsupported true with a skos:editorialNote "
                "saying why"
            ),
            code="no-support",
        )
    ]


def test_an_observation_backs_a_claim_and_is_not_checked_without_witness_records() -> None:
    assert not GOOD.witnesses  # the mini has no witness records: nothing to check names against
    assert _stage_claim_problems(unsupported=False, observedIn=["run#eager-x"]) == []


def _citation_problems(code: str, **records: Any) -> list[Problem]:
    document = changed_export(GOOD, **records)
    return [p for p in _claims.claim_problems(document) if p.code == code]


def _cite(step: int, *citations: str) -> list[dict[str, Any]]:
    steps = _data("steps")
    steps[step]["claims"][0]["citations"] = list(citations)
    return steps


def test_a_citation_cited_by_two_claims_is_shared() -> None:
    steps = _cite(1, "guide-one-at-a-time", "guide-interpreter-step")
    assert _citation_problems("shared-citation", steps=steps) == [
        Problem(
            "violation",
            "citation 'guide-interpreter-step' is cited by 2 claims "
            "(step-toy-interpreter-runs-on-cpu-1, step-toy-source-runs-in-interpreter-1); "
            "its rating judges one pair",
            subject=f"{BASE_IRI}citation/guide-interpreter-step",
            hint="copy the citation under a new id for each further claim, rated for it",
            code="shared-citation",
        )
    ]


def test_a_citation_no_claim_cites_is_unused_unless_retired() -> None:
    steps = _cite(1)
    unused = Problem(
        "violation",
        "citation 'guide-one-at-a-time' supports no claim",
        subject=f"{BASE_IRI}citation/guide-one-at-a-time",
        hint="cite it from the claim it supports (prov:wasDerivedFrom), or remove it",
        code="unused-citation",
    )
    assert _citation_problems("unused-citation", steps=steps) == [unused]
    citations = _data("citations")
    citations[3]["deprecated"] = True
    assert citations[3]["id"] == "guide-one-at-a-time"
    document = changed_export(GOOD, steps=steps, citations=citations)
    uses = {"unused-citation", "retired-citation", "shared-citation"}
    assert [p for p in _claims.claim_problems(document) if p.code in uses] == []


def test_a_retired_citation_still_cited_is_a_violation_naming_the_claims() -> None:
    citations = _data("citations")
    citations[2]["deprecated"] = True
    steps = _cite(1, "guide-one-at-a-time", "guide-interpreter-step")
    assert _citation_problems("retired-citation", steps=steps, citations=citations) == [
        Problem(
            "violation",
            "citation 'guide-interpreter-step' is retired (owl:deprecated) but claims still cite "
            "it: step-toy-interpreter-runs-on-cpu-1, step-toy-source-runs-in-interpreter-1",
            subject=f"{BASE_IRI}citation/guide-interpreter-step",
            hint="cite a live citation, or take the retirement back",
            code="retired-citation",
        )
    ]
    # retired: not also reported as shared
    assert _citation_problems("shared-citation", steps=steps, citations=citations) == []


def test_a_partial_rating_without_a_note_is_a_violation() -> None:
    citations = _data("citations")
    del citations[3]["supportNote"]
    assert _citation_problems("partial-without-note", citations=citations) == [
        Problem(
            "violation",
            "citation 'guide-one-at-a-time' is rated partial without a note of what it leaves out",
            subject=f"{BASE_IRI}citation/guide-one-at-a-time",
            hint='add ea:supportNote "what the quote does not support"',
            code="partial-without-note",
        )
    ]
    assert _citation_problems("partial-without-note") == []


# --- the codes (not part of a problem's equality) and the survivors of the verification run ---


def test_each_rule_names_its_code() -> None:
    """``Problem.code`` is left out of ``==``: the codes are compared on their own."""
    future = date_problems(_one_citation_checked("2026-12-01"), today=CHECKED)
    assert [p.code for p in future] == ["future-date"]
    sources = _data("sources")
    sources[1]["retrievedOn"] = "2026-12-02T00:00:00Z"
    later = changed_export(GOOD, sources=sources, issued="2026-12-03")
    assert [p.code for p in date_problems(later, today=dt.date(2026, 12, 1))] == [
        "future-date",
        "future-date",
    ]
    dangling = _stage_claim_problems(citations=["nowhere"], unsupported=False)
    assert [p.code for p in dangling] == ["dangling"]
    assert [p.code for p in _stage_claim_problems(unsupported=False)] == ["no-support"]


def test_a_value_without_claims_is_no_problem_while_a_stage_without_is() -> None:
    from atlas import load  # noqa: PLC0415 - the shipped data: its values have owners

    shipped = load()
    data = export.to_data(shipped)
    scheme = next(s for s in data["schemes"] if s["values"])
    value = scheme["values"][0]
    value["claims"] = []
    document = changed_export(shipped, schemes=data["schemes"])
    assert [p for p in _claims.claim_problems(document) if p.code == "no-claim"] == []
    owners = {(o.kind, o.id) for o in _claims.claimed(document)}
    assert ("concept", value["id"]) not in owners  # a value without claims owns no text
    assert any(kind == "concept" for kind, _ in owners)  # the others with claims do
    stages = data["stages"]
    stages[0]["claims"] = []
    no_text = changed_export(shipped, stages=stages)
    assert [p.subject for p in _claims.claim_problems(no_text) if p.code == "no-claim"] == [
        f"{BASE_IRI}stage/{stages[0]['id']}"
    ]


def test_the_summary_counts_a_claim_backed_by_an_observation_alone() -> None:
    stages = _data("stages")
    stages[0]["claims"] = [
        {**stages[0]["claims"][0], "citations": [], "unsupported": False, "observedIn": ["r#x"]}
    ]
    before = _claims.summaries(GOOD)[0]
    (after,) = _claims.summaries(changed_export(GOOD, stages=stages))
    assert after.observed == before.observed + 1
    assert after.claims == before.claims
    assert before.observed == 0  # the mini has no observed claim of its own
