"""The witness on any model: factories, graph breaks and their place, kernels per graph, exits.

The fast tests read real recorded runs (``tests/fixtures/witness/``: the tiny model on a CPU and
an H200, and ``tests/witness_models.py:transformer_block`` on a CPU); the slow ones run torch.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from atlas._witness import _parse_graphs as graphs_text
from atlas._witness import _switches
from atlas._witness import cli as witness_cli
from atlas._witness._workload import check_spec
from atlas._witness.errors import ModelSpecError
from atlas._witness.observe import build_record
from atlas.errors import CouldNotRunError
from atlas.models._raw import RawRun

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "witness"
MODELS = "tests/witness_models.py"


def raw(name: str) -> RawRun:
    return RawRun.model_validate_json((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.fixture
def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="atlas")
    sub = main.add_subparsers(dest="command", required=True)
    witness_cli.add_parser(sub)
    return main


def run(parser: argparse.ArgumentParser, *argv: str) -> int:
    args = parser.parse_args(["witness", *argv])
    return int(args.handler(args))


# --- naming a factory --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("witness_models", "expected 'module:function'"),
        (":factory", "expected 'module:function'"),
        ("mod:", "expected 'module:function'"),
        ("mod:not-a-name", "'not-a-name' is not a Python name"),
        ("missing/file.py:f", "no file 'missing/file.py'"),
        ("no such module:f", "is neither a module nor a .py file"),
    ],
)
def test_a_bad_factory_name_is_one_precise_error(spec: str, message: str) -> None:
    with pytest.raises(ModelSpecError, match=f"--model {spec!r}: .*{message}"):
        check_spec(spec)
    assert issubclass(ModelSpecError, CouldNotRunError)  # exit status 3


def test_a_good_factory_name_splits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert check_spec(f"{MODELS}:transformer_block") == (MODELS, "transformer_block")
    assert check_spec("pkg.models:Net.build") == ("pkg.models", "Net.build")


def test_cli_rejects_bad_combinations_before_running(
    parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(parser, "--record", "x.json", "--model", f"{MODELS}:transformer_block") == 2
    assert "--record reads a run made before" in capsys.readouterr().err
    assert run(parser, "--inputs", f"{MODELS}:block_inputs") == 3
    assert "give --model too" in capsys.readouterr().err
    assert run(parser, "--model", "nowhere/model.py:build") == 3
    err = capsys.readouterr().err
    assert (
        err
        == "atlas witness: error: --model 'nowhere/model.py:build': no file 'nowhere/model.py'\n"
    )


# --- what a run of the transformer block shows (recorded) ------------------------------------


def test_each_graph_lists_its_kernels_with_the_operators_they_fuse() -> None:
    record = build_record(raw("raw-cpu-transformer.json"))
    assert record.model_source == f"{MODELS}:transformer_block"
    assert record.model == "TransformerBlock (49,984 parameters) on inputs 4x32x64"
    assert record.title.startswith(f"{MODELS}:transformer_block under PyTorch eager and")
    compiled = record.modes[1]
    first, second = compiled.graphs
    assert (first.compile_id, second.compile_id) == ("0/0", "1/0")
    assert first.output_module
    assert first.output_module.startswith("inductor/")
    assert first.output_module != second.output_module
    calls = [(c.kind, c.name, c.ops) for c in first.calls]
    assert calls[0] == ("C++", "cpp_fused_native_layer_norm_0", ("aten.native_layer_norm",))
    assert (
        "library",
        "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default",
        (
            "aten.view",
            "aten.split",
            "aten.transpose",
            "aten._scaled_dot_product_flash_attention_for_cpu",
        ),
    ) in calls
    assert [c.name for c in first.calls if c.kind == "library"].count("extern_kernels.addmm") == 2
    assert [c.name for c in second.calls if c.kind == "C++"] == [
        "cpp_fused_native_layer_norm_0",
        "cpp_fused_gelu_view_1",
        "cpp_fused_add_view_2",
    ]
    assert all(g.compile_s and g.compile_s > 0 for g in compiled.graphs)
    assert compiled.first_call_s
    assert compiled.warm_call_s
    assert compiled.first_call_s > compiled.warm_call_s  # the first call compiled


def test_a_graph_break_is_reported_with_its_reason_and_place() -> None:
    compiled = build_record(raw("raw-cpu-transformer.json")).modes[1]
    (item,) = compiled.graph_breaks
    assert item.location == f"{MODELS}:45"
    assert item.function == "forward"
    assert item.code == "if x.abs().max().item() > 1e4: # a deliberate graph break: Tensor.item()"
    assert item.reason == "Unsupported Tensor.item() call with capture_scalar_outputs=False"
    assert item.explanation
    assert "Tensor.item()" in item.explanation
    assert item.hint
    assert "capture_scalar_outputs = True" in item.hint
    assert item.count == 1


def test_where_python_ended_is_said_from_the_evidence() -> None:
    eager, compiled = build_record(raw("raw-cpu-transformer.json")).modes
    sentence = (
        "Python's part did not end: the model's code ran as Python, and each of its 34 aten "
        "operator calls was made from Python, one at a time (seen by the dispatch mode)."
    )
    assert eager.python_ends == (sentence,)
    graph0, graph1, at_break = compiled.python_ends
    assert graph0.startswith("Graph 0/0 (19 operations) no longer ran as Python calls:")
    assert (
        "2 generated kernels (cpp_fused_native_layer_norm_0, cpp_fused_abs_add_max_view_1)"
        in graph0
    )
    assert graph1.startswith("Graph 1/0 (5 operations)")
    assert at_break.startswith(f"At {MODELS}:45 in forward: `if x.abs().max().item() > 1e4:")
    assert at_break.endswith("and Dynamo captured the code after it as another graph.")


def test_the_cli_summary_shows_graphs_breaks_and_where_python_ended(
    parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(parser, "--from-raw", str(FIXTURES / "raw-cpu-transformer.json")) == 0
    out = capsys.readouterr().out
    assert f"graph break at {MODELS}:45 in forward: 1 x Unsupported Tensor.item()" in out
    assert "    C++      cpp_fused_gelu_view_1 (aten.gelu, aten.view)\n" in out
    assert "  where Python's part ended:\n" in out
    assert "torch.compile: " in out
    assert "warm call 0.00" in out


def test_on_an_h200_each_graph_lists_its_triton_kernels_and_vendor_calls() -> None:
    record = build_record(raw("raw-nvidia-h200-transformer.json"))
    assert record.device == "nvidia-gpu"
    assert record.versions.compute_capability == "9.0"
    assert record.versions.ptxas_path
    assert record.versions.ptxas_path.endswith("torch/bin/ptxas")  # the one that built the cubins
    first, second = record.modes[1].graphs
    assert [(c.kind, c.name) for c in second.calls] == [
        ("Triton", "triton_per_fused_native_layer_norm_0"),
        ("library", "extern_kernels.mm"),
        ("Triton", "triton_poi_fused_addmm_gelu_view_1"),
        ("library", "extern_kernels.mm"),
        ("Triton", "triton_poi_fused_add_addmm_view_2"),
    ]
    attention = "torch.ops.aten._scaled_dot_product_efficient_attention.default"
    assert attention in [c.name for c in first.calls]
    (item,) = record.modes[1].graph_breaks
    assert item.location == f"{MODELS}:45"
    eager = {o.step: o for o in record.modes[0].steps}
    gemm = eager["pytorch-aten-cuda-launched-on-gpu"].evidence[0].text
    assert gemm.startswith("GEMM kernels (cuBLAS, cuBLASLt, CUTLASS): ")
    assert "cutlass_80_simt_sgemm" in gemm  # the kernel that did a matmul, not cut off


# --- parsers, on recorded text ---------------------------------------------------------------

_LOGGED = """Graph break in user code at /home/me/project/src/mypkg/net.py:12
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call:

Unsupported Tensor.item() call with capture_scalar_outputs=False
  Explanation: Dynamo does not support tracing `Tensor.item()`.
  Hint: Set `torch._dynamo.config.capture_scalar_outputs = True`.

User code traceback:
  File "/home/me/run.py", line 16, in <module>
    c(torch.randn(8))
  File "/home/me/project/src/mypkg/net.py", line 12, in f
    if y.sum().item() > 0:
       ^^^^^^^^^^^^^^^^^^^
"""


def test_graph_break_messages_are_parsed_and_counted() -> None:
    duplicate = (
        "Graph break (user stack suppressed due to duplicate graph break) in user code at "
        "/x/y.py:3\nGraph Break Reason: Unsupported: a thing"
    )
    reports = graphs_text.break_reports([_LOGGED, _LOGGED, duplicate, "unrelated text"])
    (first, twice), (second, once) = reports
    assert twice == 2
    assert once == 1
    assert first.location == "mypkg/net.py:12"
    assert (first.function, first.code) == ("f", "if y.sum().item() > 0:")
    assert first.reason == "Unsupported Tensor.item() call with capture_scalar_outputs=False"
    assert first.explanation == "Dynamo does not support tracing `Tensor.item()`."
    assert second.reason == "Unsupported: a thing"
    assert (second.location, second.function, second.code) == ("x/y.py:3", None, None)


def test_kernel_calls_of_recorded_output_modules() -> None:
    cuda = (FIXTURES / "cuda-output-module.py.txt").read_text(encoding="utf-8")
    uses = graphs_text.kernel_uses(cuda)
    assert [u.callee for u in uses] == [
        "extern_kernels.mm",
        "triton_per_fused_addmm_gelu_native_layer_norm_0",
        "extern_kernels.addmm",
        "triton_red_fused_sum_1",
        "triton_per_fused_sum_2",
    ]
    assert uses[1].origins == ("aten.addmm", "aten.gelu", "aten.native_layer_norm")
    cpu = (FIXTURES / "cpu-output-module.py.txt").read_text(encoding="utf-8")
    uses = graphs_text.kernel_uses(cpu)
    assert [(u.callee, u.origins) for u in uses if u.callee.startswith("cpp_")] == [
        ("cpp_fused_gelu_native_layer_norm_0", ()),  # no comment above it: read from its name
        ("cpp_fused_sum_1", ()),
    ]
    assert [u.callee for u in graphs_text.library_calls(cpu)] == ["extern_kernels.addmm"] * 2


# --- honest exit codes ------------------------------------------------------------------------


def _write(tmp_path: Path, run_: RawRun) -> Path:
    path = tmp_path / "raw.json"
    path.write_text(run_.model_dump_json(), encoding="utf-8")
    return path


def test_a_compile_that_failed_exits_3_and_says_why(
    parser: argparse.ArgumentParser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded = raw("raw-cpu.json")
    eager, compiled = recorded.modes
    error = "InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx"
    failed = compiled.model_copy(
        update={"error": error, "artifacts": (), "graphs": (), "commands": (), "profiled": ()}
    )
    path = _write(tmp_path, recorded.model_copy(update={"modes": (eager, failed)}))
    assert run(parser, "--from-raw", str(path), "--compare") == 3
    captured = capsys.readouterr()
    assert f"could not observe: the torch-compile run failed: {error}" in captured.out
    assert "could not observe every documented step" in captured.err
    record = build_record(RawRun.model_validate_json(path.read_text(encoding="utf-8")))
    statuses = {o.step: o.status for o in record.modes[1].steps}
    assert statuses["pytorch-fx-graph-compiled-by-inductor"] == "not-checked"  # not "observed"
    after_dynamo = [s for step, s in statuses.items() if "inductor" in step or "cpp" in step]
    assert after_dynamo
    assert set(after_dynamo) == {"not-checked"}


def test_inductor_is_not_observed_from_its_counters_alone() -> None:
    recorded = raw("raw-cpu.json")
    eager, compiled = recorded.modes
    bare = compiled.model_copy(update={"artifacts": ()})  # the counters stay
    assert bare.dynamo_counters["inductor"]
    record = build_record(recorded.model_copy(update={"modes": (eager, bare)}))
    step = next(
        o for o in record.modes[1].steps if o.step == "pytorch-fx-graph-compiled-by-inductor"
    )
    assert step.status == "not-observed"
    assert step.evidence == ()


def test_a_switch_that_hides_evidence_is_named_and_exits_3(
    parser: argparse.ArgumentParser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded = raw("raw-nvidia-h200.json")
    eager, compiled = recorded.modes
    binaries_only = compiled.model_copy(
        update={
            "artifacts": tuple(
                a for a in compiled.artifacts if not a.path.endswith((".ttir", ".llir", ".ptx"))
            )
        }
    )
    hidden = recorded.model_copy(
        update={"modes": (eager, binaries_only), "environment": {"TRITON_STORE_BINARY_ONLY": "1"}}
    )
    record = build_record(hidden)
    statuses = {o.step: (o.status, o.note) for o in record.modes[1].steps}
    status, note = statuses["pytorch-triton-lowers-to-llvm-ir"]
    assert status == "not-checked"  # not a contradiction: the run could not look
    assert note
    assert note.startswith("TRITON_STORE_BINARY_ONLY is set: Triton keeps only")
    assert record.modes[1].unobservable == (
        f"TRITON_STORE_BINARY_ONLY is set: {_switches.SWITCHES[0].effect}",
    )
    assert run(parser, "--from-raw", str(_write(tmp_path, hidden)), "--compare") == 3
    assert "TRITON_STORE_BINARY_ONLY is set" in capsys.readouterr().err
    # the same missing files without the switch contradict the atlas
    plain = build_record(hidden.model_copy(update={"environment": {}}))
    assert {o.step: o.status for o in plain.modes[1].steps}["pytorch-triton-lowers-to-llvm-ir"] == (
        "not-observed"
    )
    assert plain.modes[1].unobservable == ()


def test_switches_read_only_true_values() -> None:
    assert _switches.active({"TORCHDYNAMO_DISABLE": "0", "TORCH_COMPILE_DISABLE": "false"}) == ()
    names = [s.name for s in _switches.active({"TORCHDYNAMO_DISABLE": "1"})]
    assert names == ["TORCHDYNAMO_DISABLE"]


# --- real runs (torch) ------------------------------------------------------------------------


def _atlas(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas", "witness", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


@pytest.mark.slow
def test_any_model_end_to_end_on_the_cpu() -> None:
    pytest.importorskip("torch")
    done = _atlas("--model", f"{MODELS}:transformer_block", "--device", "cpu", "--compare")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"graph break at {MODELS}:45 in forward: 1 x Unsupported Tensor.item()" in out
    assert "  graph 0/0: 19 operations, output module inductor/" in out
    assert "    C++      cpp_fused_native_layer_norm_0 (aten.native_layer_norm)" in out
    assert "  where Python's part ended:" in out
    assert "no documented step contradicted" in out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ("--model", f"{MODELS}:failing_factory"),
            f"--model '{MODELS}:failing_factory': calling it failed: FileNotFoundError: no weights",
        ),
        (
            ("--model", f"{MODELS}:not_a_pair"),
            f"--model '{MODELS}:not_a_pair' returned int, not (model, inputs)",
        ),
        (("--model", f"{MODELS}:missing"), f"--model '{MODELS}:missing': "),
        (
            ("--model", f"{MODELS}:failing_model", "--mode", "eager"),
            "the run failed: RuntimeError: shapes do not match",
        ),
        (
            ("--model", f"{MODELS}:crashing_model", "--mode", "eager"),
            "the witness run was killed by SIGSEGV (signal 11)",
        ),
    ],
)
def test_a_factory_or_model_that_fails_exits_3_with_its_reason(
    argv: tuple[str, ...], message: str
) -> None:
    pytest.importorskip("torch")
    done = _atlas(*argv, "--device", "cpu")
    assert done.returncode == 3, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_without_a_cxx_compiler_the_compile_fails_and_the_run_exits_3() -> None:
    pytest.importorskip("torch")
    done = subprocess.run(
        [sys.executable, "-m", "atlas", "witness", "--device", "cpu", "--compare"],
        cwd=ROOT,
        env={**os.environ, "CXX": "/nonexistent/g++"},
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert done.returncode == 3, done.stderr
    assert "could not observe: the torch-compile run failed: InvalidCxxCompiler" in done.stdout
    assert "no documented step contradicted" in done.stdout.split("torch.compile on cpu:")[1]
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_model_and_a_separate_inputs_factory_run_in_eager_mode() -> None:
    pytest.importorskip("torch")
    done = _atlas(
        "--model", f"{MODELS}:block_only", "--inputs", f"{MODELS}:block_inputs",
        "--device", "cpu", "--mode", "eager",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "model: TransformerBlock (49,984 parameters) on inputs 2x16x64" in done.stdout


_OBSERVE = """
import json, os, sys, tempfile
sys.path.insert(0, "tests")
import torch._inductor.config as config
import atlas
from witness_models import transformer_block

def state():
    env = {k: os.environ.get(k) for k in ("TRITON_CACHE_DIR", "TMPDIR")}
    return env, tempfile.gettempdir(), config.compile_threads, config.cpp.enable_kernel_profile

before = state()
model, inputs = transformer_block()
record = atlas.observe(model, inputs, progress=lambda message: None)
inductor = os.environ.get("TORCHINDUCTOR_CACHE_DIR")  # torch sets its default when unset
compiled = record.modes[1]
print(json.dumps({
    "restored": before == state() and (inductor is None or "atlas-observe-" not in inductor),
    "modes": [m.mode for m in record.modes],
    "source": record.model_source,
    "model": record.model,
    "breaks": [b.location for b in compiled.graph_breaks],
    "graphs": [len(g.calls) > 0 for g in compiled.graphs],
    "unobservable": [list(m.unobservable) for m in record.modes],
}))
"""


@pytest.mark.slow
def test_observe_runs_a_model_object_in_this_process_and_puts_everything_back() -> None:
    pytest.importorskip("torch")
    done = subprocess.run(
        [sys.executable, "-c", _OBSERVE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {
        "restored": True,
        "modes": ["eager", "torch-compile"],
        "source": None,
        "model": "TransformerBlock (49,984 parameters) on inputs 4x32x64",
        "breaks": [f"{MODELS}:45"],
        "graphs": [True, True],
        "unobservable": [[], []],
    }
