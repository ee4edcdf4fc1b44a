"""The ``atlas witness`` sub-command, without running PyTorch (recorded records and fixtures)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from atlas._witness import WitnessRecord, witness
from atlas._witness import cli as witness_cli
from atlas._witness import compare as compare_module
from atlas._witness import run as witness_run
from atlas._witness.compare import step_label
from atlas._witness.errors import WitnessValueError
from atlas._witness.observe import STEPS, build_record
from atlas.models._raw import RawRun
from atlas.models._witness import dump_json

FIXTURES = Path(__file__).parent / "fixtures" / "witness"


def documented(mode: str, device: str) -> tuple[str, ...]:
    return tuple(s.id for s in STEPS if s.applies(mode, device))


@pytest.fixture
def parser(monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    monkeypatch.setattr(compare_module, "documented_steps", documented)
    main = argparse.ArgumentParser(prog="atlas")
    sub = main.add_subparsers(dest="command", required=True)
    witness_cli.add_parser(sub)
    return main


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    raw = RawRun.model_validate_json(
        (FIXTURES / "raw-nvidia-h200.json").read_text(encoding="utf-8")
    )
    path = tmp_path / "record.json"
    path.write_text(dump_json(build_record(raw)), encoding="utf-8")
    return path


def run(parser: argparse.ArgumentParser, *argv: str) -> int:
    args = parser.parse_args(["witness", *argv])
    return int(args.handler(args))


def test_help_lists_every_option(
    parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["witness", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for option in (
        "--mode",
        "--device",
        "--output",
        "--compare",
        "--record",
        "--from-raw",
        "--raw",
    ):
        assert option in out


def test_without_torch_it_says_how_to_install_and_exits_3(
    parser: argparse.ArgumentParser,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(witness_run, "torch_installed", lambda: False)
    assert run(parser, "--mode", "eager", "--device", "cpu") == witness_cli.EXIT_NO_TORCH == 3
    err = capsys.readouterr().err
    assert "pip install 'execution-atlas[witness]'" in err
    assert "whl/cpu" in err


def test_unknown_mode_is_a_precise_value_error() -> None:
    with pytest.raises(
        WitnessValueError, match=r"unknown mode 'fast'; choose one of all, compile, eager"
    ):
        witness("fast")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        witness("eager", "tpu")


def test_record_compare_prints_each_step_and_exits_0(
    parser: argparse.ArgumentParser, record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(parser, "--record", str(record_file), "--compare") == witness_cli.EXIT_OK
    out = capsys.readouterr().out
    assert "NVIDIA H200" in out
    # each step in words, its id under it, and its evidence in full
    ptx = step_label("pytorch-ptx-translated-to-sass")
    assert ptx == "PTX is translated to GPU machine code"
    assert f"   documented and observed: {ptx}\n     step pytorch-ptx-translated-to-sass\n" in out
    calls = step_label("pytorch-cpython-calls-aten-dispatch")
    assert f"   observed, not documented: {calls}\n" in out
    assert "\u2026" not in out.split("eager on nvidia-gpu:")[1]  # nothing cut


def test_contradicted_step_exits_1(
    parser: argparse.ArgumentParser, record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = WitnessRecord.model_validate_json(record_file.read_text(encoding="utf-8"))
    compiled = record.modes[1]
    steps = tuple(
        o.model_copy(update={"status": "not-observed", "evidence": (), "note": "no cubin"})
        if o.step == "pytorch-ptx-translated-to-sass"
        else o
        for o in compiled.steps
    )
    broken = record.model_copy(
        update={"modes": (record.modes[0], compiled.model_copy(update={"steps": steps}))}
    )
    record_file.write_text(dump_json(broken), encoding="utf-8")
    assert run(parser, "--record", str(record_file), "--compare") == witness_cli.EXIT_CONTRADICTED
    out = capsys.readouterr().out
    ptx = step_label("pytorch-ptx-translated-to-sass")
    assert f" ! documented, not observed: {ptx}\n" in out
    assert "the run contradicts the atlas here" in out
    assert "why: no cubin" in out
    assert "contradicted by the run" in out


def test_from_raw_writes_json_and_trig_atomically(
    parser: argparse.ArgumentParser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = FIXTURES / "raw-cpu.json"
    json_out, trig_out = tmp_path / "out" / "r.json", tmp_path / "out" / "r.trig"
    assert run(parser, "--from-raw", str(raw), "--output", str(json_out)) == 0
    assert run(parser, "--record", str(json_out), "--output", str(trig_out)) == 0
    assert WitnessRecord.model_validate_json(json_out.read_text(encoding="utf-8")).device == "cpu"
    assert "prov:Activity" in trig_out.read_text(encoding="utf-8")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["r.json", "r.trig"]
    assert "cpp_fused_gelu_native_layer_norm_0" in capsys.readouterr().out


def test_unreadable_record_is_one_line_and_exit_1(
    parser: argparse.ArgumentParser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": 1}', encoding="utf-8")
    assert run(parser, "--record", str(bad)) == 1
    assert capsys.readouterr().err.startswith("atlas witness: error: ")


def test_importing_the_witness_does_not_import_torch() -> None:
    code = (
        "import sys, atlas._witness, atlas._witness.cli, atlas._witness.compare, "
        "atlas._witness.observe, atlas._witness.parse, atlas._witness.run;"
        "sys.exit('torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_doctests_of_run_pass() -> None:
    import doctest  # noqa: PLC0415

    failures, tried = doctest.testmod(witness_run)
    assert (failures, tried > 0) == (0, True)
