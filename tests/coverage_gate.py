"""Fail when the whole suite covers too little: lines and branches, each against its own floor.

``coverage report`` fails below ``fail_under`` (pyproject.toml), a figure that mixes lines and
branches; this gate holds each of them to its own floor, from the totals of ``coverage json``::

    python tests/coverage_gate.py .coverage-data/coverage.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

LINES = 90.0  # per cent of statements run
BRANCHES = 85.0  # per cent of branch outcomes taken


def verdict(totals: dict[str, int]) -> tuple[bool, str]:
    """Whether the totals meet both floors, and one line that says so."""
    lines = 100 * totals["covered_lines"] / max(totals["num_statements"], 1)
    branches = 100 * totals["covered_branches"] / max(totals["num_branches"], 1)
    ok = lines >= LINES and branches >= BRANCHES
    line = (
        f"coverage of the whole suite: {lines:.1f}% of lines (floor {LINES:g}%), "
        f"{branches:.1f}% of branches (floor {BRANCHES:g}%)"
    )
    return ok, line if ok else f"{line}: below the floor"


def main(argv: list[str]) -> int:
    """Read a ``coverage json`` file and print the verdict; 1 when a floor is not met."""
    if len(argv) != 1:
        print("usage: coverage_gate.py COVERAGE.json", file=sys.stderr)
        return 2
    ok, line = verdict(json.loads(Path(argv[0]).read_text(encoding="utf-8"))["totals"])
    print(line, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
