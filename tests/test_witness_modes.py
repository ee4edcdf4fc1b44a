"""The witness's modes of issue 24: reduce-overhead (CUDA graphs) and AOTInductor.

The GPU evidence is parsed from runs recorded on an H200 on 2026-12-04 (torch 2.11.0+cu130):
reduce-overhead (``raw-nvidia-h200-reduce-overhead.json``: capture in call 2, replay with
cudaGraphLaunch in calls 3 and 4) and AOTInductor (``raw-nvidia-h200-aotinductor.json``: its
loader unpacked the package into the system's temporary folder, outside the run's, and its
``.kernel.cpp`` held only comments); the CPU AOTInductor evidence from a run recorded here
(``raw-cpu-aotinductor.json``). The two real CPU runs are marked slow.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from atlas._witness import cli as witness_cli
from atlas._witness._report_markdown import to_markdown
from atlas._witness._steps import PLUS_STEP_IDS, STEPS
from atlas._witness.compare import compare, format_comparisons
from atlas._witness.observe import build_record
from atlas._witness.run import normalise_mode
from atlas.models._raw import RawRun
from atlas.models._witness import WitnessRecord

FIXTURES = Path(__file__).parent / "fixtures" / "witness"
RO_GPU = FIXTURES / "raw-nvidia-h200-reduce-overhead.json"  # recorded on an H200, 2026-12-04
AOTI_GPU = FIXTURES / "raw-nvidia-h200-aotinductor.json"  # recorded on an H200, 2026-12-04
AOTI_CPU = FIXTURES / "raw-cpu-aotinductor.json"
CUDA_GRAPH_STEPS = {
    "pytorch-inductor-wraps-graph-in-cudagraph-trees",
    "pytorch-cudagraph-trees-records-cuda-graph",
    "pytorch-machine-code-recorded-into-cuda-graph",
    "pytorch-aten-cuda-recorded-into-cuda-graph",
    "pytorch-cuda-graph-replayed-on-gpu",
}


def _raw(path: Path) -> RawRun:
    return RawRun.model_validate_json(path.read_text(encoding="utf-8"))


def _steps(record: WitnessRecord) -> dict[str, str]:
    return {o.step: o.status for o in record.modes[0].steps}


def _evidence(record: WitnessRecord, step: str) -> str:
    found = next(o for o in record.modes[0].steps if o.step == step)
    return " ".join(e.text for e in found.evidence)


def test_gpu_reduce_overhead_shows_capture_and_replay() -> None:
    record = build_record(_raw(RO_GPU))
    steps = _steps(record)
    assert {s: steps.get(s) for s in CUDA_GRAPH_STEPS} == dict.fromkeys(
        CUDA_GRAPH_STEPS, "observed"
    )
    assert "cudaStreamBeginCapture" in _evidence(
        record, "pytorch-cudagraph-trees-records-cuda-graph"
    )
    replay = _evidence(record, "pytorch-cuda-graph-replayed-on-gpu")
    assert "calls 3, 4: cudaGraphLaunch" in replay
    assert "triton_per_fused" in _evidence(record, "pytorch-machine-code-recorded-into-cuda-graph")
    assert "cublas" in _evidence(record, "pytorch-aten-cuda-recorded-into-cuda-graph")
    assert any("replayed in calls 3, 4" in note for note in record.modes[0].notes)


def test_without_a_replay_call_the_documented_replay_is_not_observed() -> None:
    raw = _raw(RO_GPU)
    mode = raw.modes[0]
    assert hasattr(mode, "calls")
    cut = mode.model_copy(update={"calls": mode.calls[:1]})
    record = build_record(raw.model_copy(update={"modes": (cut,)}))
    steps = _steps(record)
    assert steps["pytorch-cuda-graph-replayed-on-gpu"] == "not-observed"
    assert steps["pytorch-cudagraph-trees-records-cuda-graph"] == "observed"


def test_gpu_aotinductor_shows_package_cubins_loading_and_calls() -> None:
    record = build_record(_raw(AOTI_GPU))
    steps = _steps(record)
    for step in (
        "pytorch-cpython-traced-by-torch-export",
        "pytorch-inductor-builds-aoti-package",
        "pytorch-machine-code-stored-in-aoti-package",
        "pytorch-aoti-package-loaded-by-runner",
        "pytorch-cpython-calls-aoti-runner",
        "pytorch-aoti-runner-launches-on-gpu",
    ):
        assert steps[step] == "observed", step
    assert "pytorch-dynamo-captures-fx-graph" not in steps  # no Dynamo under AOTInductor
    assert "pytorch-aoti-runner-runs-on-cpu" not in steps
    assert "shared library" in _evidence(record, "pytorch-inductor-builds-aoti-package")
    # the loader unpacked the package outside the run's folder: found by what loading mapped
    loaded = _evidence(record, "pytorch-aoti-package-loaded-by-runner")
    assert loaded.startswith("mapped after loading (AOTICompiledModel): /tmp/")
    assert loaded.endswith(".wrapper.so")
    launches = _evidence(record, "pytorch-aoti-runner-launches-on-gpu")
    assert "triton_per_fused" in launches
    # and who launched them, on the host: the driver's launch, the shim calls into ATen
    assert "profiler (CPU, the host): aoti_torch_cuda_addmm_out x1" in launches
    assert "cuLaunchKernel x2" in launches
    calls = _evidence(record, "pytorch-cpython-calls-aoti-runner")
    # only the first call is compared with eager; every call is watched for Dynamo's frames
    assert calls == (
        "call 1 of AOTICompiledModel: output matched eager; calls 1, 2, 3, 4: Dynamo's counters"
        " show no frame evaluated"
    )


def test_gpu_package_kernel_source_of_comments_is_not_cpp_kernels_compiled() -> None:
    """On a GPU g++ compiles a .kernel.cpp holding only comments (the kernels are cubins)."""
    raw = _raw(AOTI_GPU)
    assert any(".kernel.cpp" in " ".join(c) and "-fopenmp" in c for c in raw.modes[0].commands)
    assert "pytorch-cpp-kernels-compiled-into-aoti-package" not in _steps(build_record(raw))


def test_package_loaded_only_when_loading_mapped_one_of_its_members() -> None:
    raw = _raw(AOTI_GPU)
    package = raw.modes[0].package
    assert package is not None
    others = package.model_copy(update={"mapped_by_load": ("/usr/lib/libother.so",)})
    record = build_record(
        raw.model_copy(update={"modes": (raw.modes[0].model_copy(update={"package": others}),)})
    )
    assert _steps(record)["pytorch-aoti-package-loaded-by-runner"] == "not-observed"


def test_cpu_aotinductor_recorded_run_shows_compiler_library_and_call() -> None:
    record = build_record(_raw(AOTI_CPU))
    steps = _steps(record)
    for step in (
        "pytorch-exported-program-compiled-by-aoti",
        "pytorch-cpp-kernels-compiled-into-aoti-package",
        "pytorch-aoti-package-loaded-by-runner",
        "pytorch-aoti-runner-runs-on-cpu",
    ):
        assert steps[step] == "observed", step
    assert "-fopenmp" in _evidence(record, "pytorch-cpp-kernels-compiled-into-aoti-package")
    assert ".wrapper.so" in _evidence(record, "pytorch-aoti-package-loaded-by-runner")
    assert "aoti_torch_cpu_addmm_out" in _evidence(record, "pytorch-aoti-runner-runs-on-cpu")
    assert "only ahead of time" in record.modes[0].python_ends[0]


def test_comparison_of_a_new_mode_follows_its_documented_path() -> None:
    record = build_record(_raw(AOTI_GPU))
    (comparison,) = compare(record)
    assert not comparison.contradicted
    assert comparison.note == ""
    verdicts = {r.step: r.verdict for r in comparison.rows}
    assert verdicts["pytorch-cpython-calls-aoti-runner"] == "documented and observed"
    assert "observed, not documented" not in verdicts.values()


def test_comparison_where_the_atlas_says_there_is_no_path_says_why_and_does_not_fail() -> None:
    """reduce-overhead on a CPU: the dataset's no-path record gives the reason."""
    gpu = build_record(_raw(RO_GPU))
    record = gpu.model_copy(update={"device": "cpu"})
    (comparison,) = compare(record)
    assert not comparison.contradicted
    assert comparison.note.startswith("the atlas documents no path here: ")
    assert "has no path" in comparison.note
    assert {r.verdict for r in comparison.rows} == {"observed, not documented"}
    assert "the atlas documents no path here" in format_comparisons((comparison,))


def test_comparison_of_another_unknown_mode_still_raises() -> None:
    record = build_record(_raw(AOTI_GPU))

    def unknown(mode: str, device: str) -> list[str]:
        raise LookupError(f"unknown mode {mode!r} on {device}")

    eager = record.modes[0].model_copy(update={"mode": "eager"})
    with pytest.raises(LookupError):
        compare(record.model_copy(update={"modes": (eager,)}), documented=unknown)


def test_report_names_the_mode_and_its_notes() -> None:
    record = build_record(_raw(RO_GPU))
    text = to_markdown(record, compare(record))
    assert "## torch.compile (reduce-overhead)" in text
    assert "What the run showed of the mode" in text
    assert "documented and observed" in text
    assert "the atlas documents no path here" not in text


def test_record_round_trips_as_json() -> None:
    record = build_record(_raw(AOTI_CPU))
    again = WitnessRecord.model_validate_json(record.model_dump_json(by_alias=True))
    assert again == record


def test_mode_spellings_and_cli_choices() -> None:
    assert normalise_mode("aoti") == "aotinductor"
    assert normalise_mode("reduce-overhead") == "reduce-overhead"
    parser = witness_cli.configure(argparse.ArgumentParser())
    assert parser.parse_args(["--mode", "aotinductor"]).mode == "aotinductor"
    assert parser.parse_args([]).mode == "all"  # all stays eager and torch.compile


def test_every_draft_step_has_a_spec_and_is_documented_for_its_mode() -> None:
    specs = {spec.id: spec for spec in STEPS}
    assert specs.keys() >= PLUS_STEP_IDS
    assert not specs["pytorch-cuda-graph-replayed-on-gpu"].applies("reduce-overhead", "cpu")
    assert not specs["pytorch-model-code-runs-in-cpython"].applies("reduce-overhead", "cpu")
    assert specs["pytorch-aoti-runner-runs-on-cpu"].applies("aotinductor", "cpu")


def test_from_raw_cli_reads_a_new_mode(capsys: pytest.CaptureFixture[str]) -> None:
    parser = witness_cli.configure(argparse.ArgumentParser())
    status = witness_cli.main(parser.parse_args(["--from-raw", str(AOTI_CPU), "--compare"]))
    out = capsys.readouterr().out
    assert status == 0
    assert "AOTInductor" in out
    assert "pytorch-aoti-package-loaded-by-runner" in out


# --- real runs on this machine's CPU (torch) ------------------------------------------------


@pytest.mark.slow
def test_reduce_overhead_on_cpu_records_the_skip_not_an_error(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from atlas._witness import witness  # noqa: PLC0415

    record = witness("reduce-overhead", "cpu", raw_output=tmp_path / "raw.json")
    (mode,) = record.modes
    assert mode.mode == "reduce-overhead"
    assert mode.error is None
    assert mode.unobservable == ()
    assert any("cudagraph_skips" in note and "not applicable" in note for note in mode.notes)
    assert not CUDA_GRAPH_STEPS & {o.step for o in mode.steps}
    raw = json.loads((tmp_path / "raw.json").read_text(encoding="utf-8"))
    counters = [call["counters"] for call in raw["modes"][0]["calls"]]
    assert len(counters) == 3
    assert all(c.get("cudagraph_skips", 0) >= 1 for c in counters)
    (comparison,) = compare(record)
    assert comparison.note.startswith("the atlas documents no path here: ")
    assert "on a CPU has no path" in comparison.note  # the dataset's reason
    assert not comparison.contradicted


@pytest.mark.slow
def test_aotinductor_on_cpu_end_to_end() -> None:
    pytest.importorskip("torch")
    from atlas._witness import witness  # noqa: PLC0415

    record = witness("aotinductor", "cpu")
    (mode,) = record.modes
    assert mode.error is None
    assert mode.outputs_match is True
    documented = {s.id for s in STEPS if s.applies("aotinductor", "cpu")}
    observed = {o.step for o in mode.steps if o.status == "observed"}
    assert documented <= observed, documented - observed
