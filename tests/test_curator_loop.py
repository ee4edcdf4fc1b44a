"""The curator's loop on a checkout's dataset folder: edit the Turtle, check, export, diff.

``atlas check DIR`` and ``atlas export --dataset DIR`` act on the files of DIR (its witness
records included) and write beside its Turtle; ``atlas export`` never writes into the package.
Each test works on a copy of a tiny dataset in a temporary folder (``sourcekit.make_dataset``).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from atlas.checks import verify
from atlas.cli import main
from atlas.data import _resources
from checkkit import snapshot
from sourcekit import make_dataset

TODAY = dt.date(2026, 12, 2)
CLAIM = '"Reads the source and runs it."'
EDITED = '"Reads the source and runs it, statement by statement."'


@pytest.fixture
def dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    folder = make_dataset(tmp_path)
    assert main(["export", "--dataset", str(folder)]) == 0
    capsys.readouterr()
    return folder


def _check(folder: Path) -> verify.Report:
    return verify.check(dataset=folder, today=TODAY)


def _export_problems(report: verify.Report) -> list[tuple[str, str | None]]:
    result = next(c for c in report.checks if c.name == "export")
    assert result.status == "ran", result.note
    return [(p.code, p.file) for p in result.problems]


def test_export_writes_the_export_and_its_table_beside_the_turtle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_dataset(tmp_path)
    assert main(["export", "--dataset", str(folder)]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"wrote {folder / 'atlas.json'} and {folder / 'paths.json'}: data ")
    data = json.loads((folder / "atlas.json").read_text(encoding="utf-8"))
    record = next((folder / "witness").iterdir()).name.removesuffix(".json")
    assert [w["id"] for w in data["witnesses"]] == [record]  # the folder's witness records
    assert data["counts"]["witnesses"] == 1
    table = json.loads((folder / "paths.json").read_text(encoding="utf-8"))
    assert table["format"] == 2


def test_an_unchanged_copy_is_clean(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _check(dataset)
    assert _export_problems(report) == []
    assert report.exit_code == 0, report.text()
    assert main(["check", str(dataset), "--today", "2026-12-02"]) == 0  # DIR, as --dataset DIR
    assert "JSON export: ok" in capsys.readouterr().out


def test_edit_check_export_diff(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.json"
    shutil.copyfile(dataset / "atlas.json", old)
    toy = dataset / "toy.ttl"
    text = toy.read_text(encoding="utf-8")
    assert text.count(CLAIM) == 1
    toy.write_text(text.replace(CLAIM, EDITED), encoding="utf-8")

    stale = _export_problems(_check(dataset))  # edit the Turtle -> atlas check
    assert stale == [("stale", str(dataset / "atlas.json"))]

    assert main(["export", "--dataset", str(dataset)]) == 0  # -> atlas export
    assert _export_problems(_check(dataset)) == []

    capsys.readouterr()
    assert main(["diff", str(old), str(dataset / "atlas.json")]) == 0  # -> atlas diff
    fragment = capsys.readouterr().out
    assert "toy-interpreter" in fragment


def test_a_stale_table_of_printed_paths_is_reported(dataset: Path) -> None:
    table = dataset / "paths.json"
    table.write_text('{"format": 1}\n', encoding="utf-8")
    problems = _export_problems(_check(dataset))
    assert problems == [("stale", str(table))]
    table.unlink()  # a cache: none is no problem
    assert _export_problems(_check(dataset)) == []


def test_a_broken_witness_record_is_named(
    dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = next((dataset / "witness").iterdir())
    record.write_text('{"id": 3}', encoding="utf-8")
    result = next(c for c in _check(dataset).checks if c.name == "export")
    (problem,) = result.problems
    assert (problem.code, problem.file) == ("witness", str(record))
    assert main(["export", "--dataset", str(dataset)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("atlas export: error: ")
    assert str(record) in err
    assert "Traceback" not in err


def test_export_never_writes_into_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = Path(str(_resources.dataset_dir()))
    before = snapshot(shipped)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert main(["export"]) == 2
    err = capsys.readouterr().err
    assert "say where to write the export: --dataset DIR" in err
    monkeypatch.setattr("sys.stdout.isatty", lambda: False)
    folder = make_dataset(tmp_path, witness=False)
    assert main(["export", "--dataset", str(folder), "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["counts"]["stages"] == 5
    assert not (folder / "atlas.json").exists()  # -o names the one file written
    assert main(["export", "--dataset", str(folder), "-o", str(tmp_path / "x.json")]) == 0
    assert not (folder / "paths.json").exists()
    assert snapshot(shipped) == before


def test_the_folder_is_named_once(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(dataset), "--dataset", str(dataset.parent)]) == 2
    assert "name the dataset folder once" in capsys.readouterr().err
    assert main(["check", str(dataset), "--dataset", str(dataset), "--today", "2026-12-02"]) == 0
