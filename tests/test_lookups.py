"""The lookups of issue 19: atlases, values, a stage by label or alias, a step, wrong types.

``atlas atlases`` and ``atlas values`` list what ``atlas path`` can be asked; ``atlas stage``
finds a stage by its id, label or alias, case-insensitively; ``atlas step`` describes a step.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import atlas
from atlas import cli
from atlas.errors import AmbiguousIdError, ArgumentTypeError
from atlas.query import paths as query
from atlas.query._index import Index
from fixtures_api import tiny_document


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_atlases_and_values_list_what_can_be_asked(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "atlases")
    assert code == 0
    assert out.splitlines()[:2] == [
        "pytorch       PyTorch       mode, device",
        "llamacpp      llama.cpp     device, offload",
    ]
    code, out, _ = run(capsys, "values", "llama.cpp")
    assert code == 0
    assert out.startswith("llama.cpp (llamacpp): DEVICE OFFLOAD\n  device\n    CPU")
    hybrid = "cpu+gpu, partial, partial offload, partially offloaded, partly offloaded, split"
    assert f"    hybrid             also: {hybrid}\n" in out
    assert json.loads(run(capsys, "atlases", "--json")[1])[0]["id"] == "pytorch"
    listed = json.loads(run(capsys, "values", "--json")[1])
    assert {name: [d["label"] for d in dims] for name, dims in listed.items()} == {
        "pytorch": ["mode", "device"],
        "llamacpp": ["device", "offload"],
    }
    assert list(atlas.values()) == ["pytorch", "llamacpp"]
    assert list(atlas.values("technologies")) == ["technologies"]
    assert atlas.values("technologies")["technologies"] == ()
    assert atlas.values("LLAMA.CPP")["llamacpp"][1].values[1].alt_labels[1] == "partial"


@pytest.mark.parametrize("name", ["Dynamo", "dynamo", "TorchDynamo", "torchdynamo", " DYNAMO "])
def test_a_stage_is_found_by_id_label_or_alias(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert atlas.stage(name).id == "torchdynamo"
    code, out, _ = run(capsys, "stage", name)
    assert code == 0
    assert out.startswith("TorchDynamo (torchdynamo)\n")


def test_a_name_of_two_stages_is_ambiguous(monkeypatch: pytest.MonkeyPatch) -> None:
    document = tiny_document()
    stages = [s.model_dump(by_alias=True) for s in document.stages]
    stages[2]["altLabels"], stages[3]["altLabels"] = ["library"], ["Library"]
    monkeypatch.setattr(query, "index", lambda: Index(tiny_document(stages=stages)))
    query._stage_names.cache_clear()
    try:
        with pytest.raises(AmbiguousIdError) as caught:
            atlas.stage("LIBRARY")
        assert str(caught.value) == (
            "stage 'LIBRARY' is ambiguous: it names fastlib, slowlib; give one of these ids"
        )
        assert isinstance(caught.value, LookupError)
        assert atlas.stage("fast library").id == "fastlib"
    finally:
        query._stage_names.cache_clear()


def test_a_step_is_described_by_its_id(capsys: pytest.CaptureFixture[str]) -> None:
    step_id = "pytorch-cpython-intercepted-by-dynamo"
    assert atlas.step(step_id.upper()).id == step_id
    code, out, _ = run(capsys, "step", step_id.upper())
    assert code == 0
    lines = out.splitlines()
    assert lines[:4] == [
        step_id,
        "CPython interpreter \u2014 is intercepted by \u2192 TorchDynamo",
        "atlas: pytorch",
        "applies under: reduce-overhead, torch.compile, any device",
    ]
    assert any(line.startswith("Source: ") for line in lines)
    code, out, _ = run(capsys, "step", step_id, "--json")
    assert json.loads(out)["id"] == step_id


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda: atlas.path(None, "cpu"), "value 1"),
        (lambda: atlas.path("eager", ["cpu"]), "value 2"),
        (lambda: atlas.path("eager", device=3), "device"),
        (lambda: atlas.path("eager", "cpu", atlas=1), "atlas"),
        (lambda: atlas.path("eager", "cpu", graph_breaks=None), "graph_breaks"),
        (lambda: atlas.path("eager", "cpu", branches="graph breaks"), "branches"),
        (lambda: atlas.values(b"pytorch"), "atlas"),
        (lambda: atlas.stage(None), "stage_id"),
        (lambda: atlas.step(3), "step_id"),
    ],
)
def test_wrong_types_are_argument_type_errors(call: Any, parameter: str) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        call()
    assert caught.value.parameter == parameter
