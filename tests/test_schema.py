"""The JSON Schema of the export: generated from the models, committed, and used to validate."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema  # type: ignore[import-untyped,unused-ignore]
import pytest

from atlas.checks import shapes
from atlas.data import _json, _resources, schema
from atlas.models import SCHEMA_URL
from checkkit import MINI

COMMITTED = Path(str(_resources.schema_dir() / schema.SCHEMA_NAME))


def _mini() -> dict[str, object]:
    data: dict[str, object] = json.loads((MINI / "atlas.json").read_text(encoding="utf-8"))
    return data


def test_the_committed_schema_equals_a_fresh_generation() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == schema.dumps_schema(), (
        "schema/atlas.schema.json is stale: run 'python -m atlas.data.schema'"
    )


def test_the_schema_is_draft_2020_12_with_the_exports_id() -> None:
    generated = schema.json_schema()
    assert generated["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert generated["$id"] == SCHEMA_URL
    jsonschema.Draft202012Validator.check_schema(generated)
    assert generated["additionalProperties"] is False


def test_exports_carry_the_schema_url() -> None:
    shipped = json.loads(Path(str(_resources.export_file())).read_text(encoding="utf-8"))
    assert shipped["$schema"] == SCHEMA_URL
    assert _mini()["$schema"] == SCHEMA_URL


def test_the_shipped_and_mini_exports_are_valid() -> None:
    shipped = json.loads(Path(str(_resources.export_file())).read_text(encoding="utf-8"))
    assert schema.schema_problems(shipped, file="atlas.json") == []
    assert schema.schema_problems(_mini(), file="atlas.json") == []


def test_every_schema_error_is_reported_with_its_place() -> None:
    data = _mini()
    stages = data["stages"]
    assert isinstance(stages, list)
    stages[1]["label"] = ""
    stages[2]["colour"] = "red"
    data["version"] = "one"
    del data["counts"]
    text = json.dumps(data, indent=2, sort_keys=True)
    problems = schema.schema_problems(data, file="x.json", lines=_json.json_lines(text))
    messages = {p.message for p in problems}
    assert "/: 'counts' is a required property" in messages
    assert "/version: 'one' does not match '^\\\\d+\\\\.\\\\d+\\\\.\\\\d+$'" in messages
    label = next(p for p in problems if "/label" in p.message)
    assert label.message.startswith(f"/stages/1({stages[1]['id']})/label: ")
    assert label.subject == f"https://w3id.org/execution-atlas/stage/{stages[1]['id']}"
    colour = next(p for p in problems if "colour" in p.message)
    assert colour.line is not None
    assert '"colour"' in text.splitlines()[colour.line - 1]
    assert all(p.file == "x.json" and p.severity == "violation" for p in problems)


def test_dates_are_checked_as_dates() -> None:
    data = _mini()
    data["issued"] = "2026-02-30"
    (problem,) = schema.schema_problems(data, file="x.json")
    assert problem.message == "/issued: '2026-02-30' is not a 'date'"


@pytest.mark.parametrize("text", ['{"a": [1, {"b": "x\\"y"}], "c": {}}', "[]", '"s"', "3"])
def test_json_lines_maps_every_pointer(text: str) -> None:
    pretty = json.dumps(json.loads(text), indent=2)
    lines = _json.json_lines(pretty)
    assert lines["/"] == 1
    if text.startswith("{"):
        assert lines == {"/": 1, "/a": 2, "/a/0": 3, "/a/1": 4, "/a/1/b": 5, "/c": 8}


def test_json_lines_of_the_shipped_export_point_at_the_keys() -> None:
    text = Path(str(_resources.export_file())).read_text(encoding="utf-8")
    lines = _json.json_lines(text)
    rows = text.splitlines()
    for pointer in ("/schemaVersion", "/stages/3/label", "/steps/0/citations/0", "/counts/steps"):
        key = pointer.rsplit("/", 1)[1]
        row = rows[lines[pointer] - 1]
        assert f'"{key}"' in row or not key.isalpha(), (pointer, row)


def test_compact_names_read_like_the_turtle() -> None:
    assert shapes.compact("https://w3id.org/execution-atlas/stage/cpu") == "stage:cpu"
    assert shapes.compact("https://w3id.org/execution-atlas/scheme/toy-mode") == "scheme:toy-mode"
    assert shapes.compact("http://www.w3.org/ns/oa#exact") == "oa:exact"
    assert shapes.compact("https://example.org/x") == "<https://example.org/x>"
