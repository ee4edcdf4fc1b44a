"""API tests on a tiny fixture atlas (never on the live data)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import atlas
from atlas.errors import AtlasError, CycleError, UnknownIdError, UnknownValueError
from atlas.query._index import Index
from fixtures_api import tiny_document


@pytest.fixture
def index() -> Index:
    return Index(tiny_document())


def ids(path: atlas.ExecutionPath) -> list[str]:
    return [j.id for j in path.steps]


def test_path_follows_conditions_in_journey_order(index: Index) -> None:
    fast_x = index.path("fast", "X", atlas="toy")
    assert ids(fast_x) == ["toy-src-interp", "toy-interp-fast", "toy-fast-chip"]
    assert [s.id for s in fast_x.stages] == ["src", "interp", "fastlib", "chip"]
    assert fast_x.summary == "fast on an X: 4 stages, 3 steps"
    fast_y = index.path("fast", "y", atlas="toy")
    assert ids(fast_y) == ["toy-src-interp", "toy-interp-fast", "toy-fast-slow", "toy-slow-chip"]
    slow_y = index.path("slow", "y", atlas="toy")
    assert slow_y.summary == "slowly Y device: 4 stages, 3 steps"


def test_steps_are_numbered_and_resolved(index: Index) -> None:
    path = index.path("fast", "x", atlas="toy")
    assert [j.number for j in path.steps] == [1, 2, 3]
    first = path.steps[0]
    assert first.label == "Source code \u2014 feeds \u2192 Interpreter"
    assert first.evidence[0].source.title == "The toy doc"
    text = str(first)
    assert text.startswith("1. Source code \u2014 feeds \u2192 Interpreter")
    assert "\u201cthe toy runs\u201d (checked 2026-12-01)" in text


def test_python_ends_are_the_steps_the_data_marks(index: Index) -> None:
    path = index.path("slow", "x", atlas="toy")
    assert [j.id for j in path.python_ends] == ["toy-interp-slow"]


def test_a_dumped_path_reads_back_and_its_derived_fields_must_agree(index: Index) -> None:
    path = index.path("slow", "x", atlas="toy")
    dumped = path.model_dump(mode="json", by_alias=True)
    assert dumped["summary"] == path.summary
    assert [e["number"] for e in dumped["pythonEnds"]] == [j.number for j in path.python_ends]
    assert atlas.ExecutionPath.model_validate(dumped) == path
    assert atlas.ExecutionPath.model_validate_json(path.model_dump_json()) == path
    with pytest.raises(ValueError, match="summary 'two steps' does not match the path"):
        atlas.ExecutionPath.model_validate({**dumped, "summary": "two steps"})
    with pytest.raises(ValueError, match=r"python_ends are steps \[\]"):
        atlas.ExecutionPath.model_validate({**dumped, "pythonEnds": []})


def test_paths_are_whole_models_and_a_copy_stands_alone(index: Index) -> None:
    # paths and their steps are made without validation, sharing their set of field names
    fast, slow = index.path("fast", "x", atlas="toy"), index.path("slow", "y", atlas="toy")
    assert fast.model_fields_set == set(atlas.ExecutionPath.model_fields)
    assert fast.steps[0].model_fields_set == set(atlas.JourneyStep.model_fields)
    copy = fast.model_copy(update={"atlas": "other"})
    copy.model_fields_set.add("extra")
    copy.steps[0].model_copy().model_fields_set.add("extra")
    assert "extra" not in fast.model_fields_set | slow.model_fields_set
    assert "extra" not in fast.steps[0].model_fields_set | slow.steps[0].model_fields_set
    assert copy.atlas == "other"
    assert fast.atlas == "toy"


def test_values_accept_labels_aliases_ids_and_names_case_insensitively(index: Index) -> None:
    reference = index.path("fast", "y", atlas="toy")
    for mode, device in (("QUICK", "why"), ("toy-mode/fast", "Y Device"), (" fast ", "y")):
        assert index.path(mode, device, atlas="toy") is reference
    assert index.path(mode="fast", device="y", atlas="toy") is reference
    assert index.path("fast", device="y", atlas="toy") is reference


def test_unknown_value_names_the_value_the_choices_and_the_closest(index: Index) -> None:
    with pytest.raises(UnknownValueError) as caught:
        index.path("fsat", "x", atlas="toy")
    message = str(caught.value)
    assert "'fsat'" in message
    assert "fast, slow" in message
    assert "did you mean 'fast'" in message
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, AtlasError)


def test_swapped_values_are_pointed_out(index: Index) -> None:
    with pytest.raises(UnknownValueError, match="check the order"):
        index.path("x", "fast", atlas="toy")


def test_missing_or_extra_values_are_errors(index: Index) -> None:
    with pytest.raises(
        UnknownValueError,
        match=r"missing the device for atlas 'toy': give one of X, Y device "
        r"\(the values go in this order: mode, device\)",
    ):
        index.path("fast", atlas="toy")
    with pytest.raises(UnknownValueError, match="dimensions mode, device"):
        index.path("fast", "x", "z", atlas="toy")
    with pytest.raises(UnknownValueError, match="'colour'"):
        index.path("fast", "x", atlas="toy", colour="red")


def test_unknown_ids_raise_lookup_errors(index: Index) -> None:
    with pytest.raises(UnknownIdError, match=r"'interpp'.*'interp'") as caught:
        index.stage("interpp")
    assert isinstance(caught.value, LookupError)
    with pytest.raises(UnknownIdError, match="unknown atlas id 'nope'; valid: toy"):
        index.atlas("nope")
    with pytest.raises(LookupError):
        index.step("nope")


def test_a_cycle_is_reported_with_its_steps() -> None:
    document = tiny_document()
    steps = [s.model_dump(by_alias=True) for s in document.steps]
    steps.append({**steps[0], "id": "toy-chip-src", "from": "chip", "to": "interp"})
    cyclic = tiny_document(steps=steps)
    with pytest.raises(CycleError, match="toy-chip-src"):
        Index(cyclic).path("fast", "x", atlas="toy")


def test_all_paths_cover_every_combination(index: Index) -> None:
    summaries = [p.summary.split(":")[0] for p in index.all_paths("toy")]
    assert summaries == ["fast on an X", "fast Y device", "slowly on an X", "slowly Y device"]


def test_import_is_lazy_and_rdflib_free() -> None:
    code = (
        "import sys, atlas; assert 'rdflib' not in sys.modules, 'rdflib imported';"
        "assert 'pydantic' not in sys.modules, 'pydantic imported';"
        "atlas.path('compile', 'gpu'); assert 'rdflib' not in sys.modules, 'path() needs rdflib'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


PUBLIC = [
    "ArgumentTypeError",
    "ArgumentValueError",
    "Atlas",
    "AtlasDocument",
    "AtlasError",
    "Citation",
    "Concept",
    "ConceptScheme",
    "CycleError",
    "DatasetError",
    "Evidence",
    "ExecutionPath",
    "JourneyStep",
    "MissingValueError",
    "NetworkRefusedError",
    "Problem",
    "Source",
    "Stage",
    "Step",
    "Technology",
    "UnknownIdError",
    "UnknownValueError",
    "WitnessRecord",
    "__version__",
    "atlases",
    "check",
    "citation",
    "get",
    "graph",
    "load",
    "observe",
    "path",
    "render",
    "source",
    "sparql",
    "stage",
    "stages",
    "step",
    "steps",
    "technology",
    "values",
    "witness",
]


def test_public_surface_is_pinned() -> None:
    assert atlas.__all__ == PUBLIC  # a change here is a change of the public API: say so
    assert atlas.__all__ == sorted(atlas.__all__)
    for name in atlas.__all__:
        assert getattr(atlas, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = atlas.nope  # type: ignore[attr-defined]


def test_errors_of_wrong_arguments_are_public_and_subclass_the_builtins() -> None:
    assert issubclass(atlas.ArgumentTypeError, atlas.AtlasError)
    assert issubclass(atlas.ArgumentTypeError, TypeError)
    assert issubclass(atlas.ArgumentValueError, atlas.AtlasError)
    assert issubclass(atlas.ArgumentValueError, ValueError)
    with pytest.raises(atlas.ArgumentTypeError, match="stage_id must be a str"):
        atlas.stage(None)  # type: ignore[arg-type]
