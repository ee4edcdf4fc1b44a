"""The path of one mode as the witness report shows it: numbered steps with what the run showed.

:func:`path_view` puts the steps the atlas documents for a mode and device (numbered as
``atlas.path`` numbers them) beside the record's observations of them, then the steps the record
holds that the path does not (numbered on from there). The report lists these rows, and
:mod:`atlas._witness._report_drawing` draws them as one column of stages. The atlas is read
lazily; a mode or device it does not know leaves the record's own steps alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from atlas.models._witness import ModeWitness, StepObservation

__all__ = ["PathView", "Row", "Stop", "path_view"]

Status = Literal["observed", "not-observed", "not-checked"]

_MARKS: dict[str, str] = {"observed": "\u2713", "not-observed": "\u2717", "not-checked": "?"}
NO_PROBE = "the witness has no probe for this step"


@dataclass(frozen=True)
class Stop:
    """A stage of the drawing: its id, its name and kind in words, and what the run showed."""

    id: str
    name: str
    kind: str
    python: bool = False
    seen: bool = False  # an observed step starts or ends here
    off_path: bool = False  # not a stage of the documented path


@dataclass(frozen=True)
class Row:
    """A step of the mode: documented, observed, or both."""

    number: int
    step: str
    label: str  # the step in words: 'CPython interpreter is intercepted by TorchDynamo'
    verb: str  # 'is intercepted by' ('' when the atlas does not know the step)
    from_stage: str
    to_stage: str
    status: Status
    documented: bool
    observation: StepObservation | None = None

    @property
    def mark(self) -> str:
        """✓ observed, ✗ not observed, ? not checked."""
        return _MARKS[self.status]

    @property
    def status_words(self) -> str:
        """The status in words: 'observed', 'not observed' or 'not checked'."""
        return self.status.replace("-", " ")

    @property
    def css(self) -> str:
        """The class of its arrow: the status, or 'undocumented' when observed off the path."""
        return self.status if self.documented else "undocumented"

    @property
    def drawn(self) -> bool:
        """Whether the drawing shows it: every documented step, and observed others."""
        return self.documented or self.status == "observed"


@dataclass(frozen=True)
class PathView:
    """The stages and steps of one mode on one device."""

    stops: tuple[Stop, ...]
    rows: tuple[Row, ...]
    documented: bool  # whether the atlas documents a path for this mode and device


def _documented(mode: str, device: str) -> tuple[tuple[str, ...], list[tuple[int, str, str, str]]]:
    """The stage ids of ``atlas.path(mode, device)`` and its steps (number, id, from, to)."""
    from atlas.query import paths  # noqa: PLC0415 - the atlas is read only for a report

    try:
        path = paths.path(mode, device)
    except (LookupError, ValueError):  # a mode or device the atlas does not know
        return (), []
    steps = [(j.number, j.step.id, j.from_stage.id, j.to_stage.id) for j in path.steps]
    return tuple(s.id for s in path.stages), steps


def _stop(stage_id: str, *, seen: bool, off_path: bool) -> Stop:
    from atlas.query import paths  # noqa: PLC0415

    try:
        stage = paths.stage(stage_id)
    except LookupError:
        return Stop(stage_id, stage_id, "stage", seen=seen, off_path=off_path)
    kind = stage.kind.rsplit("/", 1)[-1].replace("-", " ")
    python = bool(stage.executes_in_python)
    return Stop(stage.id, stage.label, kind, python=python, seen=seen, off_path=off_path)


def _words(step_id: str) -> tuple[str, str]:
    """The step in words, and its verb ('' for a step the atlas does not know)."""
    from atlas._witness.compare import step_label  # noqa: PLC0415
    from atlas.query import paths  # noqa: PLC0415

    try:
        verb = paths.step(step_id).verb
    except LookupError:
        verb = ""
    return step_label(step_id), verb


def _row(
    number: int, step: str, ends: tuple[str, str], seen: StepObservation | None, *, on: bool
) -> Row:
    label, verb = _words(step)
    status: Status = seen.status if seen is not None else "not-checked"
    return Row(number, step, label, verb, *ends, status, documented=on, observation=seen)


def path_view(mode: ModeWitness, device: str) -> PathView:
    """The rows of ``mode`` (documented ones first, in journey order) and the stages to draw."""
    stage_ids, steps = _documented(mode.mode, device)
    seen = {o.step: o for o in mode.steps}
    rows = [_row(n, s, (a, b), seen.get(s), on=True) for n, s, a, b in steps]
    on_path = {row.step for row in rows}
    number = max((row.number for row in rows), default=0)
    for observation in mode.steps:
        if observation.step not in on_path:
            number += 1
            ends = (observation.from_stage, observation.to_stage)
            rows.append(_row(number, observation.step, ends, observation, on=False))
    reached = {s for r in rows if r.status == "observed" for s in (r.from_stage, r.to_stage)}
    order = list(stage_ids)
    for row in rows:
        if row.drawn:
            order += [s for s in (row.from_stage, row.to_stage) if s not in order]
    off = set(order) - set(stage_ids) if stage_ids else set()
    stops = tuple(_stop(s, seen=s in reached, off_path=s in off) for s in order)
    return PathView(stops, tuple(rows), documented=bool(steps))
