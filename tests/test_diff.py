"""``atlas diff``: what changed between two exports, the version bump, the changelog."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.cli import main
from atlas.data import export
from atlas.publish import diff

if TYPE_CHECKING:
    import pytest

    from atlas.models import AtlasDocument
from checkkit import MINI, changed_export

OLD = export.read(MINI / "atlas.json")


def _changed(base: AtlasDocument = OLD, **records: Any) -> AtlasDocument:
    """``base`` (the mini export) with collections replaced by new JSON data."""
    changed: AtlasDocument = changed_export(base, **records)
    return changed


def _renamed_claims(record: dict[str, Any], owner: str) -> dict[str, Any]:
    """A copy of a record whose claims have ids of their own (a claim is part of one text)."""
    claims = [{**c, "id": f"{owner}-{n}"} for n, c in enumerate(record["claims"], 1)]
    return {**record, "claims": claims}


def _data(key: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = export.to_data(OLD)[key]
    return items


def test_an_export_compared_with_itself_is_empty() -> None:
    result = diff.diff(OLD, OLD)
    assert result.is_empty
    assert result.bump == "none"
    assert result.exit_code == 0
    assert result.problems == ()
    assert result.changelog() == "## [1.2.3] - 2026-11-30\n\nNo changes to the data.\n"


def test_a_new_stage_is_an_addition_needing_a_minor_bump() -> None:
    stages = _data("stages")
    tpu = {**stages[-1], "id": "toy-tpu", "label": "TPU", "order": 6}
    stages.append(_renamed_claims(tpu, "stage-toy-tpu"))
    result = diff.diff(OLD, _changed(stages=stages, version="1.3.0"))
    (change,) = result.changes
    assert (change.kind, change.collection, change.id, change.level) == (
        "added",
        "stages",
        "toy-tpu",
        "minor",
    )
    assert result.bump == "minor"
    assert result.required_version == "1.3.0"
    assert result.problems == ()
    assert "### Added\n- Stage `toy-tpu`: TPU." in result.changelog()


def test_a_refreshed_quote_and_date_is_a_patch() -> None:
    citations = _data("citations")
    citations[0]["retrievedOn"] = "2026-12-01T00:00:00Z"
    citations[0]["selector"] = {"type": "TextQuoteSelector", "exact": "The toy interpreter reads"}
    result = diff.diff(OLD, _changed(citations=citations, version="1.2.4"))
    (change,) = result.changes
    assert (change.kind, change.id, change.fields, change.level) == (
        "changed",
        citations[0]["id"],
        ("retrievedOn", "selector"),
        "patch",
    )
    assert result.bump == "patch"
    assert ": retrievedOn, selector refreshed." in result.changelog()


def test_a_changed_description_is_minor() -> None:
    stages = _data("stages")
    stages[0]["claims"][0]["text"] = "Something else."
    (change,) = diff.diff(OLD, _changed(stages=stages)).changes
    # the claim was flagged unsupported: the list of flagged texts changed with it
    assert (change.kind, change.fields, change.level) == (
        "changed",
        ("claims", "description", "unsupportedClaims"),
        "minor",
    )


def test_a_removed_step_is_a_violation_needing_a_major_bump() -> None:
    steps = _data("steps")
    gone = steps.pop(1)
    result = diff.diff(OLD, _changed(steps=steps, version="2.0.0"))
    (change,) = result.changes
    assert (change.kind, change.id, change.level, change.violation) == (
        "removed",
        gone["id"],
        "major",
        True,
    )
    assert result.exit_code == 1
    (problem,) = result.problems
    assert problem.subject == f"https://w3id.org/execution-atlas/step/{gone['id']}"
    assert "removed without a deprecation" in problem.message
    assert "(removed without a deprecation)" in result.changelog()


def test_a_deprecation_is_minor_and_a_later_removal_no_violation() -> None:
    steps = _data("steps")
    steps[1]["deprecated"] = True
    steps[1]["replacedBy"] = steps[2]["id"]
    deprecated = _changed(steps=steps, version="1.3.0")
    result = diff.diff(OLD, deprecated)
    (change,) = result.changes
    assert (change.kind, change.level, change.new_id) == ("deprecated", "minor", steps[2]["id"])
    assert f"### Deprecated\n- Step `{steps[1]['id']}`, replaced by `{steps[2]['id']}`" in (
        result.changelog()
    )
    later = diff.diff(deprecated, _changed(steps=steps[:1] + steps[2:], version="2.0.0"))
    (removal,) = later.changes
    assert (removal.kind, removal.level, removal.violation) == ("removed", "major", False)
    assert later.exit_code == 0


def test_a_renamed_id_is_found_and_is_a_violation() -> None:
    stages = _data("stages")
    stages[4] = {**stages[4], "id": "toy-graphics"}
    result = diff.diff(OLD, _changed(stages=stages))
    (change,) = result.changes
    assert (change.kind, change.id, change.new_id, change.violation) == (
        "renamed",
        "toy-gpu",
        "toy-graphics",
        True,
    )
    assert "renamed to 'toy-graphics' without a deprecation" in result.problems[0].message


def test_sources_are_matched_by_url_and_values_by_id() -> None:
    sources = _data("sources")
    sources[0]["title"] = "A new title"
    schemes = _data("schemes")
    device = next(s for s in schemes if s["id"] == "toy-device")
    device["values"] = device["values"][:1]
    result = diff.diff(OLD, _changed(sources=sources, schemes=schemes))
    kinds = {(c.kind, c.collection, c.id) for c in result.changes}
    assert ("changed", "sources", sources[0]["url"]) in kinds
    removed = [c for c in result.changes if c.kind == "removed"]
    assert [(c.collection, c.id) for c in removed] == [("concepts", "toy-device/gpu")]
    assert removed[0].iri == "https://w3id.org/execution-atlas/scheme/toy-device/gpu"


def test_a_version_too_low_for_the_changes_is_a_warning() -> None:
    stages = _data("stages")
    stages[0]["label"] = "toy code"
    result = diff.diff(OLD, _changed(stages=stages, version="1.2.4"))
    (problem,) = result.problems
    assert problem.severity == "warning"
    assert "use at least '1.3.0'" in problem.message
    assert result.exit_code == 0


def _write(path: Path, document: AtlasDocument) -> Path:
    export.write(document, path)
    return path


def test_the_cli_prints_a_changelog_and_exits_1_on_a_removal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = _data("steps")
    stages = _data("stages")
    tpu = {**stages[-1], "id": "toy-tpu", "label": "TPU", "order": 6}
    stages.append(_renamed_claims(tpu, "stage-toy-tpu"))
    new = _write(tmp_path / "new.json", _changed(steps=steps[1:], stages=stages, version="2.0.0"))
    status = main(["diff", str(MINI / "atlas.json"), str(new)])
    out, err = capsys.readouterr()
    assert status == 1
    assert out.startswith("## [2.0.0] - 2026-11-30\n\n### Added\n- Stage `toy-tpu`: TPU.\n")
    assert "### Removed\n- Step `toy-source-runs-in-interpreter`" in out
    assert "a major bump, at least 2.0.0" in err
    assert "violation: https://w3id.org/execution-atlas/step/toy-source-runs-in-interpreter" in err
    assert "Traceback" not in err


def test_the_cli_prints_json_for_tools(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(MINI / "atlas.json"), str(MINI / "atlas.json"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {
        "oldVersion": "1.2.3",
        "newVersion": "1.2.3",
        "bump": "none",
        "requiredVersion": "1.2.3",
        "changes": [],
        "problems": [],
    }


def test_the_cli_names_a_bad_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"title": ', encoding="utf-8")
    assert main(["diff", str(broken), str(MINI / "atlas.json")]) == 1
    err = capsys.readouterr().err
    assert f"{broken}:1: violation: not valid JSON" in err
    assert "Traceback" not in err


def test_an_older_context_is_compared_but_a_dangling_reference_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads((MINI / "atlas.json").read_text(encoding="utf-8"))
    data["@context"]["Stage"]["@context"]["label"] = "skos:prefLabel"  # an older release's terms
    older = tmp_path / "older.json"
    older.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    assert diff.diff_files(older, MINI / "atlas.json").is_empty
    data["steps"][0]["to"] = "toy-nowhere"
    older.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    assert main(["diff", str(older), str(MINI / "atlas.json")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "/steps/0(toy-source-runs-in-interpreter)/to: no stage has the id 'toy-nowhere'" in err


def test_an_export_of_the_previous_format_is_compared_as_this_format() -> None:
    # the mini export of release 0.1.0 (format 1.0.0: texts whole, citations on the record)
    old = MINI.parent / "mini-format-1.json"
    result = diff.diff_files(old, MINI / "atlas.json")
    # the mini data kept its version: only that is said, as a warning
    assert [p.code for p in result.problems] == ["version"]
    assert result.exit_code == 0
    changed = {c.id: c for c in result.changes if c.kind == "changed"}
    # a text read as one claim: unchanged where the claim is the same, changed where it differs
    assert "toy-interpreter" not in changed
    assert "claims" in changed["toy-gpu"].fields  # now flagged unsupported
    added = {c.id for c in result.changes if c.kind == "added"}
    assert {"guide-interpreter-step", "spec-targets-gpu"} <= added
    assert not [c for c in result.changes if c.kind == "removed"]
