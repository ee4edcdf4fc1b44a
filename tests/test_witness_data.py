"""The shipped witness records (dataset/witness/) and the committed JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import atlas
from atlas._witness.files import to_trig
from atlas._witness.observe import build_record, record_id
from atlas.data._dataset import shipped_records
from atlas.models._raw import RawRun
from atlas.models._witness import WitnessRecord, dump_json, schema_text

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "schema" / "witness.schema.json"
RECORDS = sorted((ROOT / "dataset" / "witness").glob("*.json"))
RAW = sorted((ROOT / "tests" / "fixtures" / "witness").glob("raw-*.json"))
REGENERATE = (
    "regenerate it with: PYTHONPATH=src python -c 'from pathlib import Path; "
    "from atlas._witness.files import write_atomic; from atlas.models._witness import schema_text; "
    'write_atomic(Path("schema/witness.schema.json"), schema_text())\''
)


def test_committed_schema_is_fresh() -> None:
    assert SCHEMA.read_text(encoding="utf-8") == schema_text(), f"{SCHEMA} is stale; {REGENERATE}"


def test_committed_schema_is_valid_json_schema() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
    assert [error.message for error in meta.iter_errors(schema)] == []


def test_one_cpu_and_one_gpu_record_ship() -> None:
    devices = {record.device for record in shipped_records()}
    assert devices == {"cpu", "nvidia-gpu"}


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_shipped_record_is_valid_canonical_and_named_by_its_id(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    problems = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(json.loads(text))
    ]
    assert not problems, f"{path.name} breaks the witness schema: {problems}"
    record = WitnessRecord.model_validate_json(text)
    assert path.stem == record.id, f"rename {path.name} to {record.id}.json"
    assert dump_json(record) == text, f"{path.name} is not canonical: rewrite it with dump_json"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # rdflib 7 calls its own deprecated API
@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_shipped_record_trig_matches_its_json(path: Path) -> None:
    from rdflib import Dataset, URIRef  # noqa: PLC0415
    from rdflib.compare import isomorphic  # noqa: PLC0415

    record = WitnessRecord.model_validate_json(path.read_text(encoding="utf-8"))
    trig = path.with_suffix(".trig")
    assert trig.exists(), (
        f"write {trig.name} with: python -m atlas._witness --record {path} --output {trig}"
    )
    shipped, fresh = Dataset(), Dataset()
    shipped.parse(data=trig.read_text(encoding="utf-8"), format="trig")
    fresh.parse(data=to_trig(record), format="trig")
    graph = record.iri
    assert isomorphic(shipped.graph(URIRef(graph)), fresh.graph(URIRef(graph))), (
        f"{trig.name} is stale"
    )


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_shipped_record_names_only_atlas_steps_and_stages(path: Path) -> None:
    record = WitnessRecord.model_validate_json(path.read_text(encoding="utf-8"))
    steps = {step.id: step for step in atlas.steps(record.atlas)}
    for mode in record.modes:
        for observation in mode.steps:
            assert observation.step in steps, (
                f"{path.name}: {mode.mode}: unknown step {observation.step!r}"
            )
            step = steps[observation.step]
            assert (observation.from_stage, observation.to_stage) == (
                step.from_stage,
                step.to_stage,
            ), f"{path.name}: {observation.step}: stages differ from the atlas"


@pytest.mark.parametrize("raw_path", RAW, ids=lambda p: p.name)
def test_shipped_record_is_the_analysis_of_its_recorded_raw_run(raw_path: Path) -> None:
    raw = RawRun.model_validate_json(raw_path.read_text(encoding="utf-8"))
    shipped = ROOT / "dataset" / "witness" / f"{record_id(raw)}.json"
    assert shipped.exists(), f"no shipped record for {raw_path.name}"
    expected = build_record(raw)
    fix = f"python -m atlas._witness --from-raw {raw_path} --output {shipped}"
    found = WitnessRecord.model_validate_json(shipped.read_text(encoding="utf-8"))
    assert found == expected, f"{shipped.name} is stale: {fix}"
