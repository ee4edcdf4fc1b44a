"""A step read after another (``ea:readAfter``): only the numbering of a path changes (issue 24).

The call of a model compiled ahead of time starts at the Python interpreter, an early stage, but
happens after the steps that build and load the model; ``readAfter`` puts it right behind the
step it names, in every path that has both, and in the walk of an atlas with a cycle.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from atlas.checks import verify
from atlas.data import _consistency as rules
from atlas.data.turtle import TurtleFile, read_turtle
from atlas.errors import Problem
from atlas.models import AtlasDocument
from atlas.query._index import Index
from fixtures_api import tiny_document

MINI = Path(__file__).parent / "fixtures" / "mini"


def _steps_plus(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    """The tiny atlas's steps as JSON data, with ``extra`` steps made from the first one."""
    steps = [s.model_dump(by_alias=True) for s in tiny_document().steps]
    return steps + [{**steps[0], **e} for e in extra]


# interp -> chip under 'fast' on 'Y', read after the last step of that path
CALL = {
    "id": "toy-interp-chip",
    "from": "interp",
    "to": "chip",
    "verb": "calls",
    "when": ["toy-mode/fast", "toy-hw/y"],
    "whenAny": [],
    "order": 7,
}


def _document(**call: Any) -> AtlasDocument:
    return tiny_document(steps=_steps_plus({**CALL, **call}))


def _numbered(document: AtlasDocument, *values: str) -> list[tuple[int, str]]:
    return [(j.number, j.id) for j in Index(document).path(*values, atlas="toy").steps]


def test_a_step_read_after_a_later_one_comes_right_behind_it() -> None:
    assert _numbered(_document(readAfter="toy-slow-chip"), "fast", "y") == [
        (1, "toy-src-interp"),
        (2, "toy-interp-fast"),
        (3, "toy-fast-slow"),
        (4, "toy-slow-chip"),
        (5, "toy-interp-chip"),
    ]


def test_without_read_after_a_step_comes_at_its_from_stage() -> None:
    assert _numbered(_document(), "fast", "y") == [
        (1, "toy-src-interp"),
        (2, "toy-interp-fast"),
        (3, "toy-interp-chip"),
        (4, "toy-fast-slow"),
        (5, "toy-slow-chip"),
    ]


def test_read_after_changes_the_numbering_only() -> None:
    """The same steps and stages; other paths are untouched."""
    plain, read = Index(_document()), Index(_document(readAfter="toy-slow-chip"))
    for before, after in zip(plain.all_paths("toy"), read.all_paths("toy"), strict=True):
        assert sorted(j.id for j in before.steps) == sorted(j.id for j in after.steps)
        assert before.stages == after.stages
        assert before.python_ends == after.python_ends
    assert _numbered(_document(readAfter="toy-slow-chip"), "slow", "x") == _numbered(
        _document(), "slow", "x"
    )


def test_a_step_read_after_an_earlier_one_stays_where_it_is() -> None:
    """Only later: moving a step earlier could put it before its from-stage is reached."""
    assert _numbered(_document(readAfter="toy-src-interp"), "fast", "y") == _numbered(
        _document(), "fast", "y"
    )


def test_a_step_read_after_one_off_the_path_stays_where_it_is() -> None:
    # toy-fast-chip is only on 'fast' on 'X': not on this path
    assert _numbered(_document(readAfter="toy-fast-chip"), "fast", "y") == _numbered(
        _document(), "fast", "y"
    )


def test_read_after_holds_in_the_walk_of_an_atlas_with_a_cycle() -> None:
    """A step slowlib -> fastlib under 'slow' on 'X' makes the atlas as a whole cyclic."""
    loop = {
        "id": "toy-slow-fast",
        "from": "slowlib",
        "to": "fastlib",
        "when": ["toy-mode/slow", "toy-hw/x"],
        "whenAny": [],
        "order": 8,
    }
    document = tiny_document(steps=_steps_plus({**CALL, "readAfter": "toy-slow-chip"}, loop))
    index = Index(document)
    assert index._index_of(index.atlas("toy")).position is None
    assert [j.id for j in index.path("fast", "y", atlas="toy").steps][-1] == "toy-interp-chip"


@pytest.mark.parametrize(
    ("after", "message", "hint"),
    [
        ("toy-interp-chip", "is read after itself", "drop ea:readAfter or name another step"),
        (
            "toy-nowhere",
            "is read after an unknown step 'toy-nowhere'",
            "declare step:toy-nowhere or fix the id",
        ),
    ],
)
def test_read_after_names_another_known_step(after: str, message: str, hint: str) -> None:
    found = rules.step_references_and_conditions(_document(readAfter=after))
    assert found == [
        Problem(
            "violation",
            message,
            subject=rules.iri("step", "toy-interp-chip"),
            hint=hint,
            code="dangling",
        )
    ]


def test_read_after_names_a_step_of_the_same_atlas() -> None:
    data = _document(readAfter="toy-slow-chip").model_dump(by_alias=True)
    other = {**data["atlases"][0], "id": "other", "label": "Other", "dimensions": []}
    data["atlases"] = [*data["atlases"], other]
    data["counts"]["atlases"] = 2
    data["steps"] = [
        {**s, "atlas": "other"} if s["id"] == "toy-slow-chip" else s for s in data["steps"]
    ]
    found = rules.step_references_and_conditions(AtlasDocument.model_validate(data))
    assert (
        Problem(
            "violation",
            "is read after step 'toy-slow-chip' of another atlas ('other')",
            subject=rules.iri("step", "toy-interp-chip"),
            hint="name a step of atlas 'toy'",
            code="dangling",
        )
        in found
    )


def test_a_good_read_after_is_no_problem() -> None:
    assert rules.step_references_and_conditions(_document(readAfter="toy-slow-chip")) == []


def test_the_shipped_data_checks_clean_with_the_new_term() -> None:
    assert verify.check().exit_code == 0


# --- in Turtle: read by the reader, checked by the shapes -------------------------------------


def _mini_with(tmp_path: Path, extra: str) -> Path:
    """The mini dataset (its Turtle files) with ``extra`` Turtle appended to toy.ttl."""
    folder = tmp_path / "mini"
    folder.mkdir()
    for ttl in MINI.glob("*.ttl"):
        shutil.copy(ttl, folder / ttl.name)
    with (folder / "toy.ttl").open("a", encoding="utf-8") as out:
        out.write(extra)
    return folder


def test_the_turtle_reader_reads_read_after(tmp_path: Path) -> None:
    extra = "\nstep:toy-interpreter-calls-compiler ea:readAfter step:toy-compiler-targets-gpu .\n"
    folder = _mini_with(tmp_path, extra)
    document = read_turtle([TurtleFile.load(f, f.name) for f in sorted(folder.glob("*.ttl"))])
    steps = {s.id: s for s in document.steps}
    assert steps["toy-interpreter-calls-compiler"].read_after == "toy-compiler-targets-gpu"
    assert steps["toy-compiler-targets-gpu"].read_after is None


def test_the_shapes_allow_one_read_after_naming_a_step(tmp_path: Path) -> None:
    extra = (
        "\nstep:toy-interpreter-calls-compiler ea:readAfter step:toy-compiler-targets-gpu ,"
        " stage:toy-cpu .\n"
    )
    report = verify.check(dataset=_mini_with(tmp_path, extra))
    shapes = next(r for r in report.checks if r.name == "shapes")
    messages = {p.message for p in shapes.problems}
    assert any("ea:readAfter names one ea:Step" in m for m in messages), messages
    assert report.exit_code == 1
