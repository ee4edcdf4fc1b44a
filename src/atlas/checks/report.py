"""The report of ``atlas check``: each check's outcome, and the whole for people and for tools.

A :class:`CheckResult` holds one check's problems (or why it was skipped or could not run); a
:class:`Report` groups them, with the exit code, a text for people and JSON for tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from atlas.errors import Problem, Severity

if TYPE_CHECKING:
    from atlas.checks._claims import ClaimSummary

__all__ = ["CheckResult", "CheckStatus", "Report"]

CheckStatus = Literal["ran", "skipped", "error"]

_TITLES = {
    "turtle": "Turtle files",
    "shapes": "SHACL shapes",
    "consistency": "consistency",
    "claims": "claim support",
    "dates": "dates",
    "markup": "quote markup",
    "quotes": "quotes against snapshots",
    "online": "quotes online",
    "export": "JSON export",
    "json-schema": "JSON Schema file",
}


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: its problems, or why it was skipped or could not run."""

    name: str
    status: CheckStatus
    problems: tuple[Problem, ...] = ()
    note: str = ""

    @property
    def title(self) -> str:
        """A readable name of the check."""
        return _TITLES.get(self.name, self.name)


@dataclass(frozen=True)
class Report:
    """Every problem ``atlas check`` found, grouped by check.

    >>> report = Report((CheckResult("dates", "ran", (Problem("warning", "old"),)),))
    >>> report.exit_code, report.text().splitlines()[-1]
    (0, 'atlas check: no violations, 1 warning (1 check run)')
    """

    checks: tuple[CheckResult, ...]
    claims: tuple[ClaimSummary, ...] = ()  # how each atlas's claims are backed
    reused: str = ""  # when the identical check whose report this is ran (UTC); "" if now

    @property
    def problems(self) -> tuple[Problem, ...]:
        """Every problem, check by check."""
        return tuple(p for c in self.checks for p in c.problems)

    @property
    def violations(self) -> tuple[Problem, ...]:
        """The problems that fail the check."""
        return tuple(p for p in self.problems if p.severity == "violation")

    @property
    def warnings(self) -> tuple[Problem, ...]:
        """The problems that are only reported."""
        return tuple(p for p in self.problems if p.severity == "warning")

    @property
    def errors(self) -> tuple[CheckResult, ...]:
        """The checks that could not run."""
        return tuple(c for c in self.checks if c.status == "error")

    @property
    def exit_code(self) -> int:
        """0 when clean (or warnings only), 1 with a violation, 3 when a check could not run."""
        if self.errors:
            return 3
        return 1 if self.violations else 0

    def summary(self) -> str:
        """One line: the counts of violations and warnings, and the checks run and skipped."""
        ran = sum(c.status == "ran" for c in self.checks)
        skipped = [c for c in self.checks if c.status == "skipped"]
        count = len(self.violations)
        head = f"{count} violation{'s' * (count != 1)}" if count else "no violations"
        if self.errors:
            failed = "; ".join(f"{c.title}: {c.note}" for c in self.errors)
            head = f"could not run: {failed}; {head}"
        warnings = len(self.warnings)
        head += f", {warnings} warning{'s' * (warnings != 1)}"
        tail = f"{ran} check{'s' * (ran != 1)} run"
        if self.reused:  # not now: the report of an identical check
            tail += f" at {self.reused}, their report reused (--no-cache runs them again)"
        if skipped:
            tail += ", skipped: " + ", ".join(c.title for c in skipped)
        return f"atlas check: {head} ({tail})"

    def text(self) -> str:
        """The report for people: each check with its problems, then a summary line."""
        lines = []
        for result in self.checks:
            if result.status == "ran":
                violations = sum(p.severity == "violation" for p in result.problems)
                warnings = len(result.problems) - violations
                counts = [
                    f"{n} {word}{'s' * (n != 1)}"
                    for n, word in ((violations, "violation"), (warnings, "warning"))
                    if n
                ]
                state = ", ".join(counts) or "ok"
            elif result.status == "error" and result.problems:  # ran in part
                state = (
                    f"incomplete, {len(result.problems)} problem{'s' * (len(result.problems) != 1)}"
                )
            else:
                state = "skipped" if result.status == "skipped" else "could not run"
            note = f" ({result.note})" if result.note else ""
            lines.append(f"{result.title}: {state}{note}")
            lines.extend(f"  {problem}" for problem in result.problems)
            if result.name == "claims" and self.claims:
                lines.extend(f"  {summary}" for summary in self.claims)
        lines.append(self.summary())
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The report for tools."""
        return {
            "exitCode": self.exit_code,
            "summary": self.summary(),
            "violations": len(self.violations),
            "warnings": len(self.warnings),
            "reused": self.reused or None,
            "claims": [summary.to_json() for summary in self.claims],
            "checks": [
                {
                    "name": c.name,
                    "status": c.status,
                    "note": c.note,
                    "problems": [
                        {
                            "severity": p.severity,
                            "message": p.message,
                            "file": p.file,
                            "line": p.line,
                            "subject": p.subject,
                            "hint": p.hint,
                            "code": p.code,
                        }
                        for p in c.problems
                    ],
                }
                for c in self.checks
            ],
        }

    @classmethod
    def from_json(cls, data: Any, *, reused: str = "") -> Report:
        """The report that :meth:`to_json` gave ``data`` (``reused``: when that check ran).

        >>> report = Report((CheckResult("dates", "ran", (Problem("warning", "old", line=2),)),))
        >>> Report.from_json(report.to_json()) == report
        True

        Raises:
            KeyError, TypeError, ValueError: ``data`` is not such a report.
        """
        from atlas.checks._claims import ClaimSummary  # noqa: PLC0415

        checks = tuple(
            CheckResult(
                str(c["name"]),
                _STATUSES[c["status"]],
                tuple(_problem(p) for p in c["problems"]),
                str(c["note"]),
            )
            for c in data["checks"]
        )
        return cls(checks, tuple(ClaimSummary.from_json(c) for c in data["claims"]), reused)


_STATUSES: dict[str, CheckStatus] = {"ran": "ran", "skipped": "skipped", "error": "error"}
_SEVERITIES: dict[str, Severity] = {"violation": "violation", "warning": "warning"}


def _problem(data: Any) -> Problem:
    """The problem of a report's JSON."""
    return Problem(
        _SEVERITIES[data["severity"]],
        str(data["message"]),
        file=_optional(data["file"], str),
        line=_optional(data["line"], int),
        subject=_optional(data["subject"], str),
        hint=_optional(data["hint"], str),
        code=str(data["code"]),
    )


def _optional(value: Any, kind: type[Any]) -> Any:
    """``value``, None or of ``kind`` (a bool is not an int here)."""
    if value is None or (type(value) is kind):
        return value
    raise TypeError(f"{value!r} is not a {kind.__name__}")
