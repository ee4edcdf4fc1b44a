"""From raw runs (recorded fixtures) to witness records, their RDF and the comparison."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from atlas._witness.compare import compare, format_comparisons
from atlas._witness.files import to_dataset, to_trig
from atlas._witness.observe import STEPS, build_record
from atlas.models._raw import RawRun
from atlas.models._witness import (
    WITNESS_BASE,
    StepObservation,
    WitnessRecord,
    dump_json,
)

FIXTURES = Path(__file__).parent / "fixtures" / "witness"

# Hand-made documented paths, as atlas.path(mode, device) gives them (ids in journey order).
DOCUMENTED = {
    ("eager", "cpu"): (
        "pytorch-model-code-runs-in-cpython",
        "pytorch-cpython-calls-aten-dispatch",
        "pytorch-dispatch-to-aten-cpu",
        "pytorch-aten-cpu-runs-on-cpu",
    ),
    ("torch-compile", "cpu"): (
        "pytorch-model-code-runs-in-cpython",
        "pytorch-cpython-intercepted-by-dynamo",
        "pytorch-dynamo-captures-fx-graph",
        "pytorch-fx-graph-compiled-by-inductor",
        "pytorch-inductor-generates-cpp-openmp",
        "pytorch-inductor-falls-back-to-aten-cpu",
        "pytorch-aten-cpu-runs-on-cpu",
        "pytorch-cpp-openmp-runs-on-cpu",
    ),
    ("eager", "nvidia-gpu"): (
        "pytorch-model-code-runs-in-cpython",
        "pytorch-cpython-calls-aten-dispatch",
        "pytorch-dispatch-to-aten-cuda",
        "pytorch-aten-cuda-launched-on-gpu",
    ),
    ("torch-compile", "nvidia-gpu"): (
        "pytorch-model-code-runs-in-cpython",
        "pytorch-cpython-intercepted-by-dynamo",
        "pytorch-dynamo-captures-fx-graph",
        "pytorch-fx-graph-compiled-by-inductor",
        "pytorch-inductor-generates-triton",
        "pytorch-inductor-keeps-aten-cuda",
        "pytorch-aten-cuda-launched-on-gpu",
        "pytorch-triton-kernels-compiled-by-triton",
        "pytorch-triton-lowers-to-llvm-ir",
        "pytorch-llvm-ir-lowers-to-ptx",
        "pytorch-ptx-translated-to-sass",
        "pytorch-machine-code-launched-on-gpu",
    ),
}


def documented(mode: str, device: str) -> tuple[str, ...]:
    return DOCUMENTED[(mode, device)]


def load_raw(name: str) -> RawRun:
    return RawRun.model_validate_json((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def cpu_record() -> WitnessRecord:
    return build_record(load_raw("raw-cpu.json"))


@pytest.fixture(scope="module")
def gpu_record() -> WitnessRecord:
    return build_record(load_raw("raw-nvidia-h200.json"))


def observed(record: WitnessRecord, mode: str) -> dict[str, StepObservation]:
    found = next(m for m in record.modes if m.mode == mode)
    return {o.step: o for o in found.steps if o.status == "observed"}


def evidence_text(observation: StepObservation) -> str:
    return " | ".join(e.text for e in observation.evidence)


def test_step_table_matches_the_documented_paths() -> None:
    for (mode, device), ids in DOCUMENTED.items():
        table = tuple(s.id for s in STEPS if s.applies(mode, device))
        assert set(table) == set(ids), (mode, device)


@pytest.mark.parametrize("mode", ["eager", "torch-compile"])
def test_cpu_run_shows_every_documented_cpu_step(cpu_record: WitnessRecord, mode: str) -> None:
    seen = observed(cpu_record, mode)
    missing = set(DOCUMENTED[(mode, "cpu")]) - set(seen)
    assert not missing


@pytest.mark.parametrize("mode", ["eager", "torch-compile"])
def test_gpu_run_shows_every_documented_gpu_step(gpu_record: WitnessRecord, mode: str) -> None:
    seen = observed(gpu_record, mode)
    missing = set(DOCUMENTED[(mode, "nvidia-gpu")]) - set(seen)
    assert not missing


def test_cpu_evidence_quotes_openmp_extern_kernels_and_gxx(cpu_record: WitnessRecord) -> None:
    seen = observed(cpu_record, "torch-compile")
    assert "#pragma omp parallel" in evidence_text(seen["pytorch-inductor-generates-cpp-openmp"])
    assert "extern_kernels.addmm" in evidence_text(seen["pytorch-inductor-falls-back-to-aten-cpu"])
    runs = evidence_text(seen["pytorch-cpp-openmp-runs-on-cpu"])
    assert "-fopenmp" in runs
    assert "graph_0_cpp_fused_gelu_native_layer_norm_0" in runs
    assert "libgomp" in runs
    mode = cpu_record.modes[1]
    assert mode.graph_breaks[0].reason.startswith("Unsupported Tensor.item()")
    assert [g.compile_id for g in mode.graphs] == ["0/0", "1/0"]
    assert mode.outputs_match is True


def test_gpu_evidence_quotes_triton_ptx_sass_and_cublas(gpu_record: WitnessRecord) -> None:
    seen = observed(gpu_record, "torch-compile")
    kernel = "triton_per_fused_addmm_gelu_native_layer_norm_0"
    assert kernel in evidence_text(seen["pytorch-inductor-generates-triton"])
    assert "extern_kernels.mm" in evidence_text(seen["pytorch-inductor-keeps-aten-cuda"])
    assert "cuda:90" in evidence_text(seen["pytorch-triton-kernels-compiled-by-triton"])
    assert "llvm.nvvm" in evidence_text(seen["pytorch-triton-lowers-to-llvm-ir"])
    assert ".target sm_90a" in evidence_text(seen["pytorch-llvm-ir-lowers-to-ptx"])
    sass = evidence_text(seen["pytorch-ptx-translated-to-sass"])
    assert "code for sm_90a" in sass
    assert "ptxas" in sass
    assert kernel in evidence_text(seen["pytorch-machine-code-launched-on-gpu"])
    assert "cublas" in evidence_text(seen["pytorch-aten-cuda-launched-on-gpu"])
    assert gpu_record.device_name == "NVIDIA H200"
    assert gpu_record.versions.triton is not None


def test_record_json_is_canonical_and_round_trips(cpu_record: WitnessRecord) -> None:
    text = dump_json(cpu_record)
    again = WitnessRecord.model_validate_json(text)
    assert again == cpu_record
    assert dump_json(again) == text
    assert list(json.loads(text)) == sorted(json.loads(text))


def test_record_rejects_unknown_fields_and_bad_ids(cpu_record: WitnessRecord) -> None:
    data = json.loads(dump_json(cpu_record))
    with pytest.raises(ValidationError, match="extra"):
        WitnessRecord.model_validate({**data, "surprise": 1})
    with pytest.raises(ValidationError, match="pattern"):
        WitnessRecord.model_validate({**data, "id": "Not An Id"})


def test_rdf_puts_the_record_in_its_own_named_graph(gpu_record: WitnessRecord) -> None:
    from rdflib import Namespace, URIRef  # noqa: PLC0415

    dataset = to_dataset(gpu_record)
    ea = Namespace("https://w3id.org/execution-atlas/vocab#")
    prov = Namespace("http://www.w3.org/ns/prov#")
    names = {str(g.identifier) for g in dataset.graphs() if len(g)}
    assert names == {WITNESS_BASE + gpu_record.id}
    graph = dataset.graph(URIRef(gpu_record.iri))
    compiled = URIRef(gpu_record.iri + "#torch-compile")
    assert (compiled, prov.startedAtTime, None) in graph
    witnessed = {str(o) for o in graph.objects(compiled, ea.witnesses)}
    assert "https://w3id.org/execution-atlas/step/pytorch-ptx-translated-to-sass" in witnessed
    used = list(graph.objects(URIRef(gpu_record.iri), prov.used))
    assert len(used) >= 3
    assert "witness:" in to_trig(gpu_record)


def test_compare_agrees_with_a_documented_path(cpu_record: WitnessRecord) -> None:
    results = compare(cpu_record, documented)
    assert [r.mode for r in results] == ["eager", "torch-compile"]
    assert not any(r.contradicted for r in results)
    compiled = results[1]
    verdicts = {row.step: row.verdict for row in compiled.rows}
    assert verdicts["pytorch-inductor-generates-cpp-openmp"] == "documented and observed"
    # Inductor's wrapper still goes through the dispatcher: seen, but not on the documented path.
    assert verdicts["pytorch-cpython-calls-aten-dispatch"] == "observed, not documented"
    assert "no documented step contradicted" in format_comparisons(results)


def test_compare_reports_a_documented_step_the_run_did_not_show(cpu_record: WitnessRecord) -> None:
    def with_ghost(mode: str, device: str) -> tuple[str, ...]:
        return (*documented(mode, device), "pytorch-not-a-probe")

    mode = cpu_record.modes[1]
    steps = tuple(
        o.model_copy(update={"status": "not-observed", "evidence": (), "note": "looked; none"})
        if o.step == "pytorch-inductor-generates-cpp-openmp"
        else o
        for o in mode.steps
    )
    broken = cpu_record.model_copy(
        update={"modes": (cpu_record.modes[0], mode.model_copy(update={"steps": steps}))}
    )
    results = compare(broken, with_ghost)
    rows = {row.step: row for row in results[1].rows}
    assert rows["pytorch-inductor-generates-cpp-openmp"].contradicts
    assert rows["pytorch-not-a-probe"].verdict == "documented, not checked"
    assert results[1].contradicted
    assert not results[0].contradicted
    assert "! documented, not observed" in format_comparisons(results)
