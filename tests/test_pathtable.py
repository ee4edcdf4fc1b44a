"""The table of printed paths: made from the export, the same answers as the API, else declines."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from atlas.checks import verify
from atlas.cli import main
from atlas.data import _resources
from atlas.query import _pathtable
from atlas.query import paths as query

EXPORT = Path(str(_resources.export_file()))
TABLE = Path(str(_resources.path_table_file()))


def answer(
    values: list[str], atlas: str | None = "pytorch", table: bytes | None = None
) -> str | None:
    return _pathtable.lookup(
        values, atlas, EXPORT.read_bytes(), TABLE.read_bytes() if table is None else table
    )


def test_the_shipped_table_is_made_from_the_shipped_export() -> None:
    fresh = _pathtable.dumps(_pathtable.build(EXPORT.read_text(encoding="utf-8")))
    assert TABLE.read_text(encoding="utf-8") == fresh, "dataset/paths.json is stale: 'atlas export'"


def test_the_table_answers_as_the_api_for_every_combination_and_spelling() -> None:
    index = query.index()
    combinations = 0
    for atlas in index.document.atlases:
        for result in index.all_paths(atlas.id):
            expected = _pathtable.render(result)
            spellings = [
                [c.id for c in result.selection],
                [f"  {c.label.upper()} " for c in result.selection],
                [c.alt_labels[0] if c.alt_labels else c.name for c in result.selection],
            ]
            for values in spellings:
                for name in (atlas.id, atlas.label.upper()):
                    assert answer(values, name) == expected, (atlas.id, values, name)
            combinations += 1
    # PyTorch: the 9 combinations of mode x device that have a path (4 x 3 less reduce-overhead
    # on a CPU or an AMD GPU and AOTInductor on an AMD GPU); llama.cpp: device x offload
    assert combinations == 9 + 18


def test_the_table_gives_the_json_of_the_api_for_every_combination() -> None:
    index = query.index()
    export, table = EXPORT.read_bytes(), TABLE.read_bytes()
    combinations = 0
    for atlas in index.document.atlases:
        for result in index.all_paths(atlas.id):
            expected = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            values = [c.label for c in result.selection]
            assert _pathtable.lookup_json(values, atlas.id, export, table) == expected, values
            combinations += 1
    assert combinations == 9 + 18
    # the records are references into the export, not copies
    shapes = json.loads(table)["atlases"]["pytorch"]["json"]
    skeleton = shapes["pytorch-mode/torch-compile pytorch-device/nvidia-gpu"]
    assert '"$ref"' in json.dumps(skeleton)
    assert (
        len(json.dumps(skeleton))
        < len(json.dumps(_pathtable.expand(skeleton, json.loads(export)))) / 5
    )
    assert _pathtable.lookup_json(["compile", "tpu"], "pytorch", export, table) is None
    assert _pathtable.lookup_json(["eager", "cpu"], "pytorch", export + b"\n", table) is None


def test_atlas_path_json_answers_from_the_table_without_pydantic() -> None:
    script = (
        "import sys; from atlas import cli; code = cli.main(['path', 'compile', 'gpu', '--json']);"
        "assert code == 0; assert 'pydantic' not in sys.modules, 'pydantic imported'"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    result = query.path("compile", "gpu")
    expected = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert json.loads(done.stdout) == expected
    assert done.stdout == json.dumps(expected, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    ("values", "atlas"),
    [
        (["compile", "tpu"], "pytorch"),  # an unknown value
        (["compile"], "pytorch"),  # too few
        (["compile", "gpu", "cpu"], "pytorch"),  # too many: a device given twice
        (["eager", "compile", "gpu"], "pytorch"),  # a mode given twice
        (["cpu", "gpu"], "pytorch"),  # values of another atlas
        (["eager on CPU quickly"], None),  # an unknown word in a phrase
        (["compile", "gpu"], "no-such-atlas"),
        ([], "technologies"),  # an atlas without dimensions
    ],
)
def test_the_table_declines_what_only_the_models_can_explain(
    values: list[str], atlas: str | None
) -> None:
    assert answer(values, atlas) is None


def test_the_table_declines_another_export_or_format_or_garbage() -> None:
    export, table = EXPORT.read_bytes(), TABLE.read_bytes()
    assert _pathtable.lookup(["eager", "cpu"], "pytorch", export, table) is not None
    assert _pathtable.lookup(["eager", "cpu"], "pytorch", export + b"\n", table) is None
    data = json.loads(table)
    data["format"] += 1
    assert answer(["eager", "cpu"], table=json.dumps(data).encode()) is None
    for garbage in (b"", b"[]", b"{not json", b'{"format": 1}', table[: len(table) // 2]):
        assert answer(["eager", "cpu"], table=garbage) is None


def test_atlas_path_answers_from_the_table_without_pydantic() -> None:
    script = (
        "import sys; from atlas import cli; code = cli.main(['path', 'compile', 'gpu']);"
        "assert code == 0; assert 'pydantic' not in sys.modules, 'pydantic imported'"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == _pathtable.render(query.path("compile", "gpu"))


def test_atlas_path_without_a_table_answers_through_the_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["path", "eager", "gpu"]) == 0
    with_table = capsys.readouterr().out
    monkeypatch.setattr(_resources, "path_table_file", lambda: tmp_path / "missing.json")
    assert main(["path", "eager", "gpu"]) == 0
    assert capsys.readouterr().out == with_table == _pathtable.render(query.path("eager", "gpu"))


def test_atlas_export_writes_the_table_with_the_shipped_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "dataset"  # a checkout's dataset/: its Turtle and witness records
    shutil.copytree(Path(str(_resources.dataset_dir())), folder)
    export, table = folder / "atlas.json", folder / "paths.json"
    export.unlink()
    table.unlink()
    monkeypatch.setattr(_resources, "export_file", lambda: export)
    monkeypatch.setattr(_resources, "path_table_file", lambda: table)
    assert main(["export", "--dataset", str(folder)]) == 0
    assert export.read_bytes() == EXPORT.read_bytes()
    assert table.read_bytes() == TABLE.read_bytes()
    for written in (export, table):  # readable by all, as a file written by open() would be
        assert stat.S_IMODE(written.stat().st_mode) == 0o644
    capsys.readouterr()
    assert main(["path", "compile", "cpu"]) == 0
    assert capsys.readouterr().out == _pathtable.render(query.path("compile", "cpu"))


def test_export_to_another_file_leaves_the_table_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tmp_path / "paths.json"
    monkeypatch.setattr(_resources, "path_table_file", lambda: table)
    assert main(["export", "--output", str(tmp_path / "other.json")]) == 0
    assert not table.exists()


@pytest.mark.parametrize("table_text", [None, '{"format": 1}\n'])
def test_atlas_check_reports_a_missing_or_stale_table(
    table_text: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tmp_path / "paths.json"
    if table_text is not None:
        table.write_text(table_text, encoding="utf-8")
    monkeypatch.setattr(_resources, "path_table_file", lambda: table)
    report = verify.check()
    (problem,) = next(c for c in report.checks if c.name == "export").problems
    assert problem.severity == "violation"
    assert problem.code == ("missing" if table_text is None else "stale")
    assert problem.file == "dataset/paths.json"
    assert "atlas export" in (problem.hint or "")
    assert report.exit_code != 0
