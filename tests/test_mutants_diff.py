"""``atlas diff``: tests that kill mutants of ``diff.py`` the other tests let survive (issue 17).

Each test names the mutation it catches; all run on the mini export.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from atlas.data import export
from atlas.errors import DatasetError
from atlas.publish import diff
from checkkit import MINI, changed_export

if TYPE_CHECKING:
    from pathlib import Path

    from atlas.models import AtlasDocument

OLD = export.read(MINI / "atlas.json")

DERIVED = ("description", "whatHappens", "statement", "citations", "unsupportedClaims")
SPEC = "https://example.org/toy/spec.html"


def _data(key: str, document: AtlasDocument = OLD) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = export.to_data(document)[key]
    return items


def _changed(base: AtlasDocument = OLD, **records: Any) -> AtlasDocument:
    """``base`` (the mini export) with collections replaced by new JSON data."""
    changed: AtlasDocument = changed_export(base, **records)
    return changed


def _kinds(result: diff.Diff, collection: str) -> list[tuple[str, str, str | None]]:
    return [(c.kind, c.id, c.new_id) for c in result.changes if c.collection == collection]


def _with_deprecated_step() -> tuple[AtlasDocument, list[dict[str, Any]]]:
    """The mini export with its second step deprecated (replaced by the third), and its steps."""
    steps = _data("steps")
    steps[1]["deprecated"] = True
    steps[1]["replacedBy"] = steps[2]["id"]
    return _changed(steps=steps), _data("steps", _changed(steps=steps))


# --- rename detection: `and` -> `or` ----------------------------------------------------------


def test_a_removal_and_an_unrelated_addition_are_not_a_rename() -> None:
    steps = _data("steps")
    gone = steps.pop(1)
    unrelated = {
        **steps[0],
        "id": "toy-source-becomes-cpu-code",
        "from": "toy-source",
        "to": "toy-cpu",
        "verb": "becomes code for",
        "order": 9,
        "claims": [
            {**c, "id": f"step-toy-source-becomes-cpu-code-{n}"}
            for n, c in enumerate(steps[0]["claims"], 1)
        ],
    }
    steps.append(unrelated)
    result = diff.diff(OLD, _changed(steps=steps))
    assert _kinds(result, "steps") == [
        ("removed", gone["id"], None),
        ("added", "toy-source-becomes-cpu-code", None),
    ]
    assert [c.kind for c in result.changes] == ["removed", "added"]
    assert [c.violation for c in result.changes] == [True, False]
    assert "renamed" not in result.changelog()


# --- `continue` -> `break` after a deprecated record (both places) ----------------------------


def test_a_rename_after_a_deprecated_removal_is_still_found() -> None:
    old, steps = _with_deprecated_step()
    deprecated, renamed = steps[1], steps[2]
    # the deprecated step goes (no violation); the step after it gets a new id (a rename)
    new_steps = [s for s in steps if s["id"] != deprecated["id"]]
    new_steps[1] = {**renamed, "id": "toy-interpreter-hands-over-to-compiler"}
    result = diff.diff(old, _changed(old, steps=new_steps))
    # the removed records are paired in the old export's order: the deprecated one first
    order = [s["id"] for s in steps]
    assert order.index(deprecated["id"]) < order.index(renamed["id"])
    # and are listed by id
    assert _kinds(result, "steps") == [
        ("renamed", renamed["id"], "toy-interpreter-hands-over-to-compiler"),
        ("removed", deprecated["id"], None),
    ]
    assert [c.violation for c in result.changes] == [True, False]


def test_records_after_a_newly_deprecated_one_are_still_compared() -> None:
    steps = _data("steps")
    steps[1]["deprecated"] = True
    steps[1]["replacedBy"] = steps[2]["id"]
    steps[0]["verb"] = "is read by"
    assert steps[1]["id"] < steps[0]["id"]  # compared in id order: the deprecated one first
    result = diff.diff(OLD, _changed(steps=steps))
    assert [(c.kind, c.id, c.fields) for c in result.changes] == [
        ("deprecated", steps[1]["id"], ("deprecated", "replacedBy")),
        ("changed", steps[0]["id"], ("verb",)),
    ]


# --- the changed fields: `a.keys() | b.keys()` -> `&` -----------------------------------------


def test_a_field_only_in_the_new_record_is_a_change() -> None:
    sources = _data("sources")
    spec = next(s for s in sources if s["url"] == SPEC)
    assert "publisher" not in spec
    spec["publisher"] = "Toy standards body"
    (change,) = diff.diff(OLD, _changed(sources=sources)).changes
    assert (change.kind, change.id, change.fields, change.level) == (
        "changed",
        SPEC,
        ("publisher",),
        "minor",
    )


def test_a_field_only_in_the_old_record_is_a_change() -> None:
    sources = _data("sources")
    spec = next(s for s in sources if s["url"] == SPEC)
    del spec["version"]
    (change,) = diff.diff(OLD, _changed(sources=sources)).changes
    assert (change.kind, change.id, change.fields, change.level) == (
        "changed",
        SPEC,
        ("version",),
        "patch",
    )
    assert f"- Source `{SPEC}` (The Toy Specification): version refreshed." in (
        diff.diff(OLD, _changed(sources=sources)).changelog()
    )


# --- an already deprecated record is not deprecated again -------------------------------------


def test_a_change_to_an_already_deprecated_record_is_a_change() -> None:
    old, steps = _with_deprecated_step()
    steps[1]["replacedBy"] = steps[3]["id"]
    result = diff.diff(old, _changed(old, steps=steps))
    (change,) = result.changes
    assert (change.kind, change.id, change.fields, change.level) == (
        "changed",
        steps[1]["id"],
        ("replacedBy",),
        "minor",
    )
    assert "### Deprecated" not in result.changelog()


def test_a_deprecated_record_unchanged_is_no_change() -> None:
    old, _ = _with_deprecated_step()
    assert diff.diff(old, old).is_empty


# --- sources are keyed by URL, not by id ------------------------------------------------------


def test_a_source_whose_id_changes_but_url_stays_is_a_change_of_its_id() -> None:
    sources = _data("sources")
    spec = next(s for s in sources if s["url"] == SPEC)
    spec["id"] = "toy-specification"
    result = diff.diff(OLD, _changed(sources=sources))
    (change,) = result.changes
    assert (change.kind, change.collection, change.id, change.fields, change.level) == (
        "changed",
        "sources",
        SPEC,
        ("id",),
        "minor",
    )
    assert change.iri == SPEC
    assert result.exit_code == 0


def test_a_source_whose_url_changes_is_a_rename_of_its_url() -> None:
    moved = "https://example.org/toy/spec-v2.html"
    sources = _data("sources")
    spec = next(s for s in sources if s["url"] == SPEC)
    spec["url"] = moved
    citations = [{**c, "source": moved} if c["source"] == SPEC else c for c in _data("citations")]
    result = diff.diff(OLD, _changed(sources=sources, citations=citations))
    assert _kinds(result, "sources") == [("renamed", SPEC, moved)]
    (renamed,) = [c for c in result.changes if c.collection == "sources"]
    assert (renamed.level, renamed.violation, renamed.iri) == ("major", True, SPEC)
    # the citations of the source now name the new URL: each a change of its source
    cited = [c for c in result.changes if c.collection == "citations"]
    assert cited
    assert {(c.kind, c.fields) for c in cited} == {("changed", ("source",))}
    assert result.exit_code == 1


# --- labels of removed (and renamed) records --------------------------------------------------


def test_removed_records_are_listed_with_their_labels() -> None:
    stages = [s for s in _data("stages") if s["id"] != "toy-gpu"]
    steps = [s for s in _data("steps") if s["to"] != "toy-gpu"]
    result = diff.diff(OLD, _changed(stages=stages, steps=steps, version="2.0.0"))
    assert [(c.kind, c.collection, c.id, c.label) for c in result.changes] == [
        ("removed", "stages", "toy-gpu", "GPU"),
        (
            "removed",
            "steps",
            "toy-compiler-targets-gpu",
            "toy compiler \u2014 generates code for \u2192 GPU",
        ),
    ]
    changelog = result.changelog()
    assert (
        "### Removed\n"
        "- Stage `toy-gpu`: GPU (removed without a deprecation).\n"
        "- Step `toy-compiler-targets-gpu`: toy compiler \u2014 generates code for \u2192 GPU "
        "(removed without a deprecation).\n"
    ) in changelog


def test_a_renamed_record_is_listed_with_its_label() -> None:
    stages = _data("stages")
    stages[4] = {**stages[4], "id": "toy-graphics"}
    result = diff.diff(OLD, _changed(stages=stages))
    (change,) = result.changes
    assert change.label == "GPU"
    assert "- Stage `toy-gpu` renamed to `toy-graphics` without a deprecation: GPU." in (
        result.changelog()
    )


# --- an export of an unsupported format -------------------------------------------------------


def _future(tmp_path: Path) -> Path:
    data = json.loads((MINI / "atlas.json").read_text(encoding="utf-8"))
    data["schemaVersion"] = "3.0.0"
    future = tmp_path / "future.json"
    future.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    return future


@pytest.mark.parametrize("side", ["old", "new"])
def test_an_export_of_an_unsupported_format_is_an_error_naming_the_file(
    tmp_path: Path, side: str
) -> None:
    future = _future(tmp_path)
    files = (future, MINI / "atlas.json") if side == "old" else (MINI / "atlas.json", future)
    with pytest.raises(DatasetError) as caught:
        diff.diff_files(*files)
    error = caught.value
    assert error.source == str(future)
    (problem,) = error.problems
    assert (problem.severity, problem.file, problem.code) == (
        "violation",
        str(future),
        "schema-version",
    )
    assert "schemaVersion '3.0.0' is not supported; this package reads 2.x" in problem.message
    assert str(error).startswith(f"{future} is invalid: {future}: violation: schemaVersion")


# --- the JSON form of a diff, for tools (`atlas diff --json`) ----------------------------------


def test_each_change_in_json_names_every_field_it_has_and_only_those() -> None:
    steps = _data("steps")
    steps[2] = {**steps[2], "verb": "hands its code to"}  # changed
    stages = [s for s in _data("stages") if s["id"] != "toy-gpu"]  # removed, no deprecation
    steps = [s for s in steps if s["to"] != "toy-gpu"]
    result = diff.diff(OLD, _changed(stages=stages, steps=steps))
    removed = next(c for c in result.changes if c.kind == "removed")
    changed = next(c for c in result.changes if c.kind == "changed")
    assert removed.to_json() == {
        "kind": "removed",
        "collection": removed.collection,
        "id": removed.id,
        "iri": removed.iri,
        "level": "major",
        "label": removed.label,
        "violation": True,
    }
    assert changed.to_json()["fields"] == list(changed.fields) == ["verb"]
    assert changed.to_json()["violation"] is False
    assert "newId" not in changed.to_json()
    renamed = diff.Change("renamed", "stages", "toy-gpu", "major", "GPU", new_id="toy-graphics")
    assert renamed.to_json()["newId"] == "toy-graphics"
    assert "fields" not in renamed.to_json()


def test_the_json_of_a_diff_carries_versions_bump_changes_and_problems() -> None:
    stages = [s for s in _data("stages") if s["id"] != "toy-gpu"]
    steps = [s for s in _data("steps") if s["to"] != "toy-gpu"]
    result = diff.diff(OLD, _changed(stages=stages, steps=steps))  # a major change, same version
    data = result.to_json()
    assert (data["oldVersion"], data["newVersion"]) == (result.old_version, result.new_version)
    assert (data["bump"], data["requiredVersion"]) == ("major", result.required_version)
    assert data["changes"] == [c.to_json() for c in result.changes]
    assert data["problems"] == [
        {
            "severity": p.severity,
            "message": p.message,
            "subject": p.subject,
            "hint": p.hint,
            "code": p.code,
        }
        for p in result.problems
    ]
    assert data["problems"]
    assert json.loads(json.dumps(data)) == data


def test_the_summary_counts_the_changes_and_names_the_bump() -> None:
    same = diff.diff(OLD, OLD)
    assert same.summary() == f"no changes between {OLD.version} and {OLD.version}"
    steps = _data("steps")
    steps[2] = {**steps[2], "verb": "hands its code to"}
    one = diff.diff(OLD, _changed(steps=steps, version="9.0.0"))
    assert one.summary() == (
        f"1 change from {OLD.version} to 9.0.0: a {one.bump} bump, at least {one.required_version}"
    )


# --- changelog lines and labels ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (diff.Change("added", "stages", "x", "minor"), "- Stage `x`."),
        (
            diff.Change("renamed", "stages", "x", "major", new_id="y"),
            "- Stage `x` renamed to `y` without a deprecation.",
        ),
        (
            diff.Change("changed", "stages", "x", "minor", fields=("label", "order")),
            "- Stage `x`: label, order changed.",
        ),
        (
            diff.Change("changed", "stages", "x", "patch", fields=("label",)),
            "- Stage `x`: label refreshed.",
        ),
        (diff.Change("deprecated", "stages", "x", "minor"), "- Stage `x`."),
        (
            diff.Change("deprecated", "stages", "x", "minor", new_id="y"),
            "- Stage `x`, replaced by `y`.",
        ),
        (
            diff.Change("removed", "stages", "x", "major", violation=True),
            "- Stage `x` (removed without a deprecation).",
        ),
        (diff.Change("removed", "stages", "x", "major"), "- Stage `x`."),
    ],
)
def test_a_change_without_a_label_is_a_line_without_one(change: diff.Change, line: str) -> None:
    assert change.line() == line


def test_labels_come_from_the_new_document_then_the_old_one_then_the_id() -> None:
    labels = diff._Labels(
        {"stages": {"a": {"label": "Old A"}, "o": {"label": "Old O"}}, "technologies": {}},
        {"stages": {"a": {"label": "New A"}, "b": {}}, "technologies": {"u": {"label": "U"}}},
    )
    assert [labels.stage(s) for s in "aboc"] == ["New A", "b", "Old O", "c"]
    old_tech = diff._Labels({"stages": {}, "technologies": {"t": {"label": "Old T"}}}, labels.new)
    assert [old_tech.technology(t) for t in "tuv"] == ["Old T", "U", "v"]
    step = {"from": "a", "to": "o", "verb": "runs"}
    assert labels.of("steps", step) == "New A \u2014 runs \u2192 Old O"
    relation = {"from": "u", "relation": "is written in", "to": "t"}
    assert old_tech.of("relations", relation) == "U is written in Old T"


def test_labels_of_quotes_sources_and_other_records() -> None:
    labels = diff._Labels({"stages": {}, "technologies": {}}, {"stages": {}, "technologies": {}})
    assert labels.of("citations", {"selector": {"exact": "a  b\n c"}}) == "\u201ca b c\u201d"
    assert labels.of("citations", {"selector": {"exact": "x" * 60}}) == f"\u201c{'x' * 60}\u201d"
    assert labels.of("citations", {"selector": {"exact": "x" * 61}}) == (
        f"\u201c{'x' * 60}...\u201d"
    )
    assert (labels.of("sources", {"title": "T"}), labels.of("sources", {})) == ("T", "")
    assert (labels.of("stages", {"label": "L"}), labels.of("stages", {})) == ("L", "")


# --- the survivors of the first full run (tests/MUTATION.md) -----------------------------------


@pytest.mark.parametrize(
    ("level", "expected"),
    [("patch", "1.4.3"), ("minor", "1.5.0"), ("major", "2.0.0"), ("none", "1.4.2")],
)
def test_each_bump_level_gives_the_smallest_version_that_makes_it(
    level: diff.Level, expected: str
) -> None:
    assert diff.bumped("1.4.2", level) == expected


def test_the_summary_of_two_changes_says_changes() -> None:
    steps = _data("steps")
    steps[0] = {**steps[0], "verb": "is read by"}
    steps[2] = {**steps[2], "verb": "hands its code to"}
    two = diff.diff(OLD, _changed(steps=steps, version="9.0.0"))
    assert two.summary().startswith(f"2 changes from {OLD.version} to 9.0.0: ")


def test_a_changed_scheme_and_a_changed_value_are_changes_of_their_own_kind() -> None:
    schemes = _data("schemes")
    schemes[0]["label"] = "execution mode"
    schemes[1]["values"][1]["label"] = "NVIDIA GPU"
    result = diff.diff(OLD, _changed(schemes=schemes))
    assert [(c.kind, c.collection, c.id, c.fields, c.label) for c in result.changes] == [
        ("changed", "schemes", "toy-mode", ("label",), "execution mode"),
        ("changed", "concepts", "toy-device/gpu", ("label",), "NVIDIA GPU"),
    ]
    # a scheme's record is compared without its values: a value's change is not the scheme's
    assert "values" not in result.changes[0].fields


def test_a_removed_value_is_removed_from_its_scheme() -> None:
    schemes = _data("schemes")
    schemes[0]["values"].pop()
    result = diff.diff(OLD, _changed(schemes=schemes))
    assert [(c.kind, c.collection, c.id, c.label) for c in result.changes] == [
        ("removed", "concepts", "toy-mode/compiled", "compiled")
    ]


def test_a_deprecated_record_removed_is_never_a_rename_of_its_twin() -> None:
    old, steps = _with_deprecated_step()
    gone = steps[1]
    # a new step that is the deprecated one but for its id: removed (allowed) and added, no rename
    twin = {**gone, "id": "toy-a-twin-of-the-deprecated-step"}
    new_steps = [s for s in steps if s["id"] != gone["id"]] + [twin]
    result = diff.diff(old, _changed(old, steps=new_steps))
    assert _kinds(result, "steps") == [
        ("removed", gone["id"], None),
        ("added", twin["id"], None),
    ]
    assert [c.violation for c in result.changes] == [False, False]
    assert result.exit_code == 0


def test_a_newly_deprecated_record_and_an_added_one_carry_their_labels() -> None:
    steps = _data("steps")
    steps[1]["deprecated"] = True
    steps[1]["replacedBy"] = steps[2]["id"]
    schemes = _data("schemes")
    schemes[0]["values"].append(
        {
            "type": "Concept",
            "id": "toy-mode/traced",
            "label": "traced",
            "altLabels": [],
            "claims": [],
            "order": 3,
        }
    )
    result = diff.diff(OLD, _changed(steps=steps, schemes=schemes))
    labels = {(c.kind, c.id): c.label for c in result.changes}
    stages = {s["id"]: s["label"] for s in _data("stages")}
    step = steps[1]
    assert labels == {
        ("added", "toy-mode/traced"): "traced",
        ("deprecated", step["id"]): (
            f"{stages[step['from']]} \u2014 {step['verb']} \u2192 {stages[step['to']]}"
        ),
    }


def test_an_added_step_is_labelled_as_a_step() -> None:
    # diff: `labels.of(collection, ...)` -> `labels.of(None, ...)` for an added record would
    # label a step by its (absent) label instead of "from — verb → to"
    steps = _data("steps")
    added = {**steps[0], "id": "toy-an-added-step"}
    result = diff.diff(OLD, _changed(steps=[*steps, added]))
    stages = {s["id"]: s["label"] for s in _data("stages")}
    assert [(c.kind, c.id, c.label) for c in result.changes] == [
        (
            "added",
            "toy-an-added-step",
            f"{stages[added['from']]} \u2014 {added['verb']} \u2192 {stages[added['to']]}",
        )
    ]
