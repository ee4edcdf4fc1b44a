"""The bad input corpus: every kind of broken dataset gives exit 1 and one precise line."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from atlas.cli import main
from checkkit import copy_mini, no_network, snapshot

BAD = Path(__file__).resolve().parent / "bad"
CASES = sorted(BAD.glob("*.toml"))


def _load(case: Path) -> dict[str, Any]:
    return tomllib.loads(case.read_text(encoding="utf-8"))


def _mutate(folder: Path, spec: dict[str, Any]) -> None:
    """Apply the case's one change to the copy of the mini dataset in ``folder``."""
    path = folder / spec["file"]
    text = path.read_text(encoding="utf-8")
    if "truncate" in spec:
        text = text[: spec["truncate"]]
    elif "json_set" in spec:
        data = json.loads(text)
        data.update(spec["json_set"])
        text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    else:
        assert text.count(spec["old"]) == 1, f"{spec['old']!r} must occur once in {path.name}"
        text = text.replace(spec["old"], spec["new"])
    path.write_text(text, encoding="utf-8")


def _expected_place(folder: Path, spec: dict[str, Any]) -> list[str]:
    """The texts the message line must hold: 'file:line' and/or the IRI."""
    at = spec.get("at", spec["file"])
    text = (folder / at).read_text(encoding="utf-8")
    places = []
    if "line_of" in spec:
        numbers = [i for i, line in enumerate(text.splitlines(), 1) if spec["line_of"] in line]
        assert numbers, f"{spec['line_of']!r} is not in {at}"
        places.append(f"{folder / at}:{numbers[0]}")
    elif "truncate" in spec:
        places.append(f"{folder / at}:{text.count(chr(10)) + 1}")
    if "iri" in spec:
        places.append(spec["iri"])
    assert places, "a case must name the place at fault (line_of, truncate or iri)"
    return places


def test_the_corpus_has_at_least_twenty_kinds() -> None:
    kinds = {_load(case)["kind"] for case in CASES}
    assert len(kinds) >= 20


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_bad_input_fails_with_a_precise_message(
    case: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _load(case)
    folder = copy_mini(tmp_path)
    _mutate(folder, spec)
    before = snapshot(folder)
    with no_network():
        status = main(["check", "--dataset", str(folder), "--sources", str(folder / "sources")])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    assert "Traceback" not in out + err
    assert snapshot(folder) == before, "atlas check must not change the files it checks"
    lines = [line for line in out.splitlines() if spec["expect"] in line]
    assert lines, f"no line holds {spec['expect']!r}:\n{out}"
    places = _expected_place(folder, spec)
    assert any("violation" in line and all(place in line for place in places) for line in lines), (
        f"no line names {places}:\n" + "\n".join(lines)
    )


def test_a_bad_input_fails_the_same_way_in_a_real_process(tmp_path: Path) -> None:
    spec = _load(BAD / "unknown-prefix.toml")
    folder = copy_mini(tmp_path)
    _mutate(folder, spec)
    before = snapshot(folder)
    done = subprocess.run(
        [sys.executable, "-m", "atlas", "check", "--dataset", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr == ""
    places = _expected_place(folder, spec)
    assert any(
        spec["expect"] in line and all(p in line for p in places)
        for line in done.stdout.splitlines()
    ), done.stdout
    assert snapshot(folder) == before


def test_bad_input_is_also_reported_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_mini(tmp_path)
    _mutate(folder, _load(BAD / "claim-without-support.toml"))
    assert main(["check", "--dataset", str(folder), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["exitCode"] == 1
    shapes = next(c for c in report["checks"] if c["name"] == "shapes")
    # the claim lost its one citation: the claim has no support, the citation backs no claim
    citation, claim = sorted(shapes["problems"], key=lambda p: p["subject"])
    assert citation["subject"].endswith("/citation/spec-compiler")
    problem = claim
    assert problem["severity"] == "violation"
    assert problem["subject"].endswith("/claim/step-toy-interpreter-calls-compiler-1")
    assert "has no support" in problem["message"]
    (summary,) = report["claims"]
    assert summary == {
        "atlas": "toy",
        "claims": 15,
        "fullyCited": 4,
        "partiallyCited": 3,
        "observed": 0,
        "unsupported": 7,
        "withoutSupport": 1,
    }
    assert problem["file"].endswith("toy.ttl")
    assert isinstance(problem["line"], int)
