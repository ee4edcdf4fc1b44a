"""How each check of ``atlas check`` runs: guarded, so that a failure is a result, not a traceback.

:func:`guarded` runs one check and turns its problems (sorted by :func:`problem_order`) or its
failure into a :class:`~atlas.checks.report.CheckResult`; :class:`CouldNotRunError` is a check
that cannot run (bad arguments or missing files), not a problem of the data: the report's exit
status is then 3, that of :class:`atlas.errors.CouldNotRunError`, which it refines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from atlas import errors
from atlas.checks.report import CheckResult, Report

if TYPE_CHECKING:
    from atlas.errors import Problem

__all__ = ["CouldNotRunError", "guarded", "problem_order"]


class CouldNotRunError(errors.CouldNotRunError):
    """A check that cannot run: bad arguments or missing files, not a problem of the data."""

    def report(self) -> Report:
        """The report when reading the Turtle files fails this way."""
        return Report((CheckResult("turtle", "error", note=str(self)),))


def guarded(name: str, run: Callable[[], list[Problem] | CheckResult]) -> CheckResult:
    """The result of the check ``name``: its problems in order, or why it could not run."""
    try:
        outcome = run()
    except CouldNotRunError as error:
        return CheckResult(name, "error", note=str(error))
    except Exception as error:  # noqa: BLE001 - a report, never a traceback
        return CheckResult(name, "error", note=f"{type(error).__name__}: {error}")
    if isinstance(outcome, CheckResult):
        return outcome
    return CheckResult(name, "ran", tuple(sorted(outcome, key=problem_order)))


def problem_order(problem: Problem) -> tuple[bool, str, int, str, str]:
    """Violations first, then by file, line, subject and message."""
    return (
        problem.severity != "violation",
        problem.file or "",
        problem.line or 0,
        problem.subject or "",
        problem.message,
    )
