"""The witness end to end with the installed PyTorch on the CPU (two compiles: one ok, one failing).

Skipped where torch is not installed; CI installs the CPU build. A cold compile of the tiny model
takes about 20 s on 2 cores.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import atlas
from atlas._witness import WitnessRecord, witness
from atlas._witness import cli as witness_cli
from atlas._witness.compare import compare, step_label
from atlas.models._raw import RawRun

pytest.importorskip("torch")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def raw_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("witness") / "raw.json"


@pytest.fixture(scope="module")
def cpu_record(raw_path: Path) -> WitnessRecord:
    return witness("all", "cpu", raw_output=raw_path)


def test_every_documented_cpu_step_is_observed(cpu_record: WitnessRecord) -> None:
    for mode in cpu_record.modes:
        documented = {step.id for step in atlas.path(mode.mode, "cpu").steps}
        seen = {o.step for o in mode.steps if o.status == "observed"}
        assert documented <= seen, (mode.mode, documented - seen)
    assert not any(c.contradicted for c in compare(cpu_record))


def test_cpu_run_records_openmp_kernels_graph_break_and_versions(cpu_record: WitnessRecord) -> None:
    eager, compiled = cpu_record.modes
    assert (eager.mode, compiled.mode) == ("eager", "torch-compile")
    assert any(k.startswith("cpp_fused_") for k in compiled.kernels)
    assert len(compiled.graphs) == 2
    assert compiled.graph_breaks
    assert "Tensor.item()" in compiled.graph_breaks[0].reason
    assert compiled.outputs_match is True
    assert cpu_record.versions.torch.startswith("2.")
    assert cpu_record.versions.cxx_compiler
    assert cpu_record.duration_s > 0


def test_cpu_run_leaves_a_raw_run_and_no_cache_in_the_users_folders(
    cpu_record: WitnessRecord, raw_path: Path
) -> None:
    raw = RawRun.model_validate_json(raw_path.read_text(encoding="utf-8"))
    compiled = raw.modes[1]
    assert all(not a.path.startswith("/") for a in compiled.artifacts)
    assert any(a.path.startswith("inductor/") for a in compiled.artifacts)
    # Inductor's own temporary files (the precompiled header) went to the run's TMPDIR too.
    header_args = [a for argv in compiled.commands for a in argv if "torchinductor_" in a]
    assert header_args
    assert all("atlas-witness-" in a for a in header_args)


def test_without_a_cxx_compiler_the_compile_is_reported_not_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CXX", "/nonexistent/g++")
    record = witness("compile", "cpu")
    (mode,) = record.modes
    assert mode.error is not None
    assert mode.error.startswith("InvalidCxxCompiler")
    statuses = {o.step: o.status for o in mode.steps}
    assert statuses["pytorch-cpython-intercepted-by-dynamo"] == "observed"
    assert statuses["pytorch-inductor-generates-cpp-openmp"] == "not-checked"
    assert not any(c.contradicted for c in compare(record))


def test_cli_eager_run_prints_the_steps(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    parser = witness_cli.configure(argparse.ArgumentParser(prog="atlas witness"))
    out = tmp_path / "eager.json"
    args = parser.parse_args(
        ["--mode", "eager", "--device", "cpu", "--output", str(out), "--compare"]
    )
    assert args.handler(args) == 0
    printed = capsys.readouterr().out
    label = step_label("pytorch-dispatch-to-aten-cpu")
    assert (
        f"   documented and observed: {label}\n     step pytorch-dispatch-to-aten-cpu\n" in printed
    )
    assert (
        WitnessRecord.model_validate_json(out.read_text(encoding="utf-8")).modes[0].mode == "eager"
    )
