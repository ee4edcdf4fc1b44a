"""Paths and lookups: tests that kill mutants of ``query.py`` other tests let survive (issue 17).

The walk used when an atlas's steps form a cycle as a whole, the cycle error, value resolution
(on the tiny fixture atlas), and ``atlas.path``, ``atlas.stages`` and ``atlas.steps`` called with
names (on the shipped data, as a user calls them).
"""

from __future__ import annotations

from typing import Any

import pytest

import atlas
from atlas.errors import CycleError, MissingValueError, UnknownValueError
from atlas.query import paths as query
from atlas.query._index import Index
from fixtures_api import tiny_document


def _steps_plus(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    """The tiny atlas's steps as JSON data, with ``extra`` steps made from the first one."""
    steps = [s.model_dump(by_alias=True) for s in tiny_document().steps]
    return steps + [{**steps[0], **e} for e in extra]


def _ids(path: atlas.ExecutionPath) -> list[str]:
    return [j.id for j in path.steps]


# --- the walk of an atlas with a cycle as a whole (each path acyclic) -------------------------


@pytest.fixture
def whole_cycle() -> Index:
    """The tiny atlas plus a step slowlib -> fastlib under 'slow' on 'X'.

    With toy-fast-slow (fastlib -> slowlib under 'fast' on 'Y') the atlas as a whole has a
    cycle, but no one path holds both steps: each path is sorted on its own (``Index._walk``).
    """
    steps = _steps_plus(
        {
            "id": "toy-slow-fast",
            "from": "slowlib",
            "to": "fastlib",
            "when": ["toy-mode/slow", "toy-hw/x"],
            "whenAny": [],
            "order": 7,
        }
    )
    return Index(tiny_document(steps=steps))


@pytest.mark.parametrize(
    ("mode", "device", "steps", "stages"),
    [
        # toy-slow-chip (any values) matches but starts at a stage this path never reaches
        (
            "fast",
            "x",
            ["toy-src-interp", "toy-interp-fast", "toy-fast-chip"],
            ["src", "interp", "fastlib", "chip"],
        ),
        (
            "fast",
            "y",
            ["toy-src-interp", "toy-interp-fast", "toy-fast-slow", "toy-slow-chip"],
            ["src", "interp", "fastlib", "slowlib", "chip"],
        ),
        # journey order first, curated order (slow-chip 5 before slow-fast 7) among equals
        (
            "slow",
            "x",
            [
                "toy-src-interp",
                "toy-interp-slow",
                "toy-slow-chip",
                "toy-slow-fast",
                "toy-fast-chip",
            ],
            ["src", "interp", "slowlib", "fastlib", "chip"],
        ),
        (
            "slow",
            "y",
            ["toy-src-interp", "toy-interp-slow", "toy-slow-chip"],
            ["src", "interp", "slowlib", "chip"],
        ),
    ],
)
def test_a_path_of_an_atlas_with_a_cycle_as_a_whole_keeps_only_its_own_steps(
    whole_cycle: Index, mode: str, device: str, steps: list[str], stages: list[str]
) -> None:
    path = whole_cycle.path(mode, device, atlas="toy")
    assert whole_cycle._atlas_index["toy"].position is None  # as a whole: no journey order
    assert _ids(path) == steps
    assert [s.id for s in path.stages] == stages
    assert [j.number for j in path.steps] == list(range(1, len(steps) + 1))


# --- the cycle error: its filter and its fields -----------------------------------------------


def test_a_cycle_error_names_exactly_the_steps_and_stages_of_the_cycle() -> None:
    # chip -> interp under any values: every path loops interp -> ... -> chip -> interp
    steps = _steps_plus({"id": "toy-chip-src", "from": "chip", "to": "interp"})
    with pytest.raises(CycleError) as caught:
        Index(tiny_document(steps=steps)).path("fast", "x", atlas="toy")
    error = caught.value
    assert error.source == "atlas 'toy'"
    (problem,) = error.problems
    # toy-src-interp leads into the cycle but is not part of it: src is not stuck
    message = (
        "the steps toy-chip-src, toy-fast-chip, toy-interp-fast form a cycle through the "
        "stages chip, fastlib, interp; a path must have a journey order"
    )
    assert (problem.severity, problem.message, problem.subject, problem.code) == (
        "violation",
        message,
        "toy",
        "cycle",
    )
    assert problem.hint == "remove or re-condition one of these steps"
    assert str(error) == (
        f"atlas 'toy' is invalid: violation: toy: {message} "
        "(hint: remove or re-condition one of these steps)"
    )


# --- value resolution: positional and named values --------------------------------------------


def test_too_few_values_are_not_resolved_as_the_common_case() -> None:
    index = Index(tiny_document())
    with pytest.raises(MissingValueError, match="missing the device for atlas 'toy'"):
        index.resolve(("fast",), {}, atlas="toy")
    found, chosen = index.resolve(("fast",), {"device": "y"}, atlas="toy")
    assert (found.id, [c.id for c in chosen]) == ("toy", ["toy-mode/fast", "toy-hw/y"])


def test_a_named_value_is_not_ignored_when_every_value_is_given_by_position() -> None:
    index = Index(tiny_document())
    with pytest.raises(UnknownValueError, match="repeated dimension 'mode'; value 'slow'"):
        index.path("fast", "x", atlas="toy", mode="slow")
    with pytest.raises(UnknownValueError, match="repeated dimension 'mode'"):
        index.resolve(("fast", "x"), {"mode": "slow"}, atlas="toy")


def test_an_unknown_value_is_not_called_a_value_of_another_dimension() -> None:
    index = Index(tiny_document())
    with pytest.raises(UnknownValueError) as caught:
        index.path("fsat", "x", atlas="toy")
    assert "check the order" not in str(caught.value)
    assert str(caught.value) == "unknown mode 'fsat'; valid: fast, slow; did you mean 'fast'?"
    with pytest.raises(UnknownValueError, match="'x' is a device: check the order of the values"):
        index.path("x", "fast", atlas="toy")


# --- atlas.path() with named dimensions (the shipped data) ------------------------------------


def test_named_dimensions_give_the_path_of_the_same_positional_values() -> None:
    assert atlas.path(mode="eager", device="cpu") == atlas.path("eager", "cpu")
    assert atlas.path(device="gpu", mode="compile") == atlas.path("compile", "gpu")
    assert atlas.path("compile", device="gpu") == atlas.path("compile", "gpu")
    assert (
        atlas.path(mode="eager", device="cpu").summary == "eager mode on a CPU: 5 stages, 4 steps"
    )


def test_each_call_with_other_named_values_gets_its_own_path() -> None:
    # called in sequence: a memo keyed without the names would answer the first path again
    first = atlas.path(mode="eager", device="cpu")
    second = atlas.path(mode="compile", device="gpu")
    third = atlas.path(mode="eager", device="gpu")
    assert [p.summary.split(":")[0] for p in (first, second, third)] == [
        "eager mode on a CPU",
        "torch.compile on an NVIDIA GPU",
        "eager mode on an NVIDIA GPU",
    ]
    assert atlas.path(mode="eager", device="cpu") == first
    # another atlas, other dimension names
    gpu = atlas.path(atlas="llamacpp", device="NVIDIA GPU", offload="all layers on GPU")
    cpu = atlas.path(atlas="llamacpp", device="CPU", offload="CPU only")
    assert gpu != cpu
    assert gpu == atlas.path("NVIDIA GPU", "all layers on GPU", atlas="llamacpp")
    assert cpu == atlas.path("CPU", "CPU only", atlas="llamacpp")


def test_named_dimensions_are_passed_on_with_a_branch() -> None:
    named = atlas.path(mode="compile", device="gpu", graph_breaks=True)
    assert named == atlas.path("compile", "gpu", graph_breaks=True)
    assert named.summary == "torch.compile on an NVIDIA GPU with graph breaks: 13 stages, 14 steps"


# --- atlas.stages(atlas=...) and atlas.steps(atlas=...) ---------------------------------------


@pytest.mark.parametrize("name", ["pytorch", "llamacpp"])
def test_stages_and_steps_are_filtered_by_atlas(name: str) -> None:
    every_stage, every_step = atlas.stages(), atlas.steps()
    assert every_stage == query.load().stages
    assert every_step == query.load().steps
    stages, steps = atlas.stages(atlas=name), atlas.steps(atlas=name)
    assert stages
    assert steps
    assert stages == tuple(s for s in every_stage if name in s.atlases)
    assert steps == tuple(s for s in every_step if s.atlas == name)
    assert len(stages) < len(every_stage)
    assert len(steps) < len(every_step)
