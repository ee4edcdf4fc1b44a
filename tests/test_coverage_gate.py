from __future__ import annotations

import json
from pathlib import Path

import pytest

import coverage_gate


def _totals(lines: tuple[int, int], branches: tuple[int, int]) -> dict[str, int]:
    return {
        "covered_lines": lines[0],
        "num_statements": lines[1],
        "covered_branches": branches[0],
        "num_branches": branches[1],
    }


@pytest.mark.parametrize(
    ("lines", "branches", "ok"),
    [
        ((90, 100), (85, 100), True),  # both exactly at their floors
        ((89, 100), (99, 100), False),  # lines below, however good the branches
        ((99, 100), (84, 100), False),  # branches below, however good the lines
        ((0, 0), (0, 0), False),  # nothing measured is no pass
    ],
)
def test_each_floor_is_held_on_its_own(lines, branches, ok) -> None:
    passed, line = coverage_gate.verdict(_totals(lines, branches))
    assert passed is ok
    assert line.endswith("below the floor") is not ok


def test_the_gate_reads_coverage_json_and_sets_its_exit_status(tmp_path: Path, capsys) -> None:
    report = tmp_path / "coverage.json"
    report.write_text(json.dumps({"totals": _totals((95, 100), (80, 100))}))
    assert coverage_gate.main([str(report)]) == 1
    assert "80.0% of branches (floor 85%): below the floor" in capsys.readouterr().err
    report.write_text(json.dumps({"totals": _totals((95, 100), (90, 100))}))
    assert coverage_gate.main([str(report)]) == 0
    assert coverage_gate.main([]) == 2
