"""Documented against observed: each step of ``atlas.path(mode, device)`` beside a witness record.

A documented step the run looked for and did not find *contradicts* the run; a documented step
the run could not look for is reported as not checked; an observed step the atlas does not
document for that mode and device is reported as observed, not documented.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from atlas._witness._steps import mode_name
from atlas.errors import NoPathError

if TYPE_CHECKING:
    from atlas.models._witness import StepObservation, WitnessRecord

__all__ = [
    "Documented",
    "ModeComparison",
    "StepComparison",
    "Verdict",
    "compare",
    "documented_steps",
    "format_comparisons",
    "step_label",
]

Verdict = Literal[
    "documented and observed",
    "documented, not observed",
    "documented, not checked",
    "observed, not documented",
]
Documented = Callable[[str, str], Sequence[str]]
"""Gives the documented step ids, in journey order, for an atlas mode and device id."""


@dataclass(frozen=True)
class StepComparison:
    """One step: what the atlas documents and what the run showed."""

    step: str
    verdict: Verdict
    detail: str
    label: str = ""  # the step in words, e.g. 'ATen dispatch dispatches to ATen CPU kernels'

    @property
    def explanation(self) -> str:
        """What the verdict means for this step, in one sentence."""
        return _EXPLAINED[self.verdict]

    @property
    def contradicts(self) -> bool:
        """Whether the run contradicts the documented step."""
        return self.verdict == "documented, not observed"


@dataclass(frozen=True)
class ModeComparison:
    """The comparison for one mode of a record."""

    mode: str
    device: str
    rows: tuple[StepComparison, ...]
    note: str = ""  # why nothing is documented, e.g. a mode the atlas does not know yet

    @property
    def contradicted(self) -> bool:
        """Whether any documented step is contradicted by the run."""
        return any(row.contradicts for row in self.rows)


_EXPLAINED: dict[Verdict, str] = {
    "documented and observed": "the atlas documents this step and the run showed it",
    "documented, not observed": (
        "the atlas documents this step, the run looked for it and did not find it: the run "
        "contradicts the atlas here"
    ),
    "documented, not checked": (
        "the atlas documents this step, and the run could not look for it (see why)"
    ),
    "observed, not documented": (
        "the run showed this step, which the atlas does not document for this mode and device"
    ),
}


_SEEN = frozenset({"documented and observed", "observed, not documented"})


def step_label(step_id: str) -> str:
    """The step in words ('<stage> <verb> <stage>'); the id when the atlas does not know it."""
    from atlas.query import paths  # noqa: PLC0415 - the index is only needed when comparing

    try:
        step = paths.step(step_id)
        return (
            f"{paths.stage(step.from_stage).label} {step.verb} {paths.stage(step.to_stage).label}"
        )
    except LookupError:
        return step_id


def documented_steps(mode: str, device: str) -> tuple[str, ...]:
    """Step ids of ``atlas.path(mode, device)``, in journey order (imports the atlas lazily)."""
    from atlas.query import paths  # noqa: PLC0415 - the index is only needed when comparing

    return tuple(step.id for step in paths.path(mode, device).steps)


def _detail(observation: StepObservation) -> str:
    if observation.evidence:
        return observation.evidence[0].text
    return observation.note or ""


def compare(
    record: WitnessRecord,
    documented: Documented | None = None,
    labels: Callable[[str], str] | None = None,
) -> tuple[ModeComparison, ...]:
    """Compare each mode of ``record`` with the documented path of that mode and device.

    ``documented`` defaults to :func:`documented_steps` (the atlas's own paths), ``labels``
    (a step id to its words) to :func:`step_label`.
    """
    lookup = documented or documented_steps
    label = labels or step_label
    results: list[ModeComparison] = []
    for mode in record.modes:
        note = ""
        try:
            ids = tuple(lookup(mode.mode, record.device))
        except NoPathError as error:  # the dataset says why: nothing is documented for it
            ids, note = (), f"the atlas documents no path here: {error}"
        seen = {o.step: o for o in mode.steps}
        rows: list[StepComparison] = []
        for step in ids:
            observation = seen.get(step)
            if observation is None:
                rows.append(
                    StepComparison(
                        step, "documented, not checked", "the witness has no probe for it"
                    )
                )
            elif observation.status == "observed":
                rows.append(StepComparison(step, "documented and observed", _detail(observation)))
            elif observation.status == "not-observed":
                rows.append(StepComparison(step, "documented, not observed", _detail(observation)))
            else:
                rows.append(StepComparison(step, "documented, not checked", _detail(observation)))
        rows += [
            StepComparison(o.step, "observed, not documented", _detail(o))
            for o in mode.steps
            if o.step not in ids and o.status == "observed"
        ]
        rows = [replace(row, label=label(row.step)) for row in rows]
        results.append(ModeComparison(mode.mode, record.device, tuple(rows), note))
    return tuple(results)


def format_comparisons(comparisons: Sequence[ModeComparison]) -> str:
    """Plain text, one block per mode: each step in words, its verdict, and its evidence in full.

    A contradicted step is marked ``!`` and explained; nothing a reader needs is cut.
    """
    lines: list[str] = []
    for comparison in comparisons:
        mode = mode_name(comparison.mode)
        lines.append(f"{mode} on {comparison.device}:")
        if comparison.note:
            lines.append(f"  {comparison.note}")
        for row in comparison.rows:
            mark = "!" if row.contradicts else " "
            lines.append(f" {mark} {row.verdict}: {row.label or row.step}")
            if row.label and row.label != row.step:
                lines.append(f"{'':5}step {row.step}")
            if row.contradicts:
                lines.append(f"{'':5}{row.explanation}")
            if row.detail:
                kind = "evidence" if row.verdict in _SEEN else "why"
                lines.append(f"{'':5}{kind}: {row.detail}")
        verdict = (
            "contradicted by the run"
            if comparison.contradicted
            else "no documented step contradicted"
        )
        lines.append(f"  => {verdict}")
    return "\n".join(lines) + "\n"
