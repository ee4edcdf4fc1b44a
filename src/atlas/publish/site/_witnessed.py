"""What the witness records showed of each step, summed up over the modes each record ran.

A witness record runs an atlas in several modes and says, per mode, whether each step was
observed; :func:`witness_index` folds that into one :class:`Witnessed` per record and step,
with the first excerpts of evidence and the notes that say why a mode did not observe it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from atlas.models._witness import Excerpt, StepStatus, WitnessRecord

__all__ = ["MAX_EXCERPTS", "Witnessed", "witness_index"]

MAX_EXCERPTS = 4  # per record and step; the rest are in the downloadable data
_STATUS_ORDER = ("observed", "not-observed", "not-checked")


@dataclass(frozen=True)
class Witnessed:
    """What one witness record showed of one step, over all the modes it ran."""

    record: WitnessRecord
    status: StepStatus  # observed in a mode wins over not-observed, which wins over not-checked
    modes: tuple[str, ...]  # labels of the modes with this status, e.g. ('eager', 'torch.compile')
    evidence: tuple[Excerpt, ...]  # the first excerpts, each once
    more: int  # how many further excerpts the record holds
    notes: tuple[str, ...]  # why a mode did not observe the step, as 'mode: note'

    @property
    def status_text(self) -> str:
        """'observed', 'not observed' or 'not checked'."""
        return self.status.replace("-", " ")

    @property
    def day(self) -> dt.date:
        """The day the run started (UTC)."""
        return self.record.started_at.astimezone(dt.UTC).date()

    @property
    def sentence(self) -> str:
        """'observed on NVIDIA H200 with torch 2.11.0+cu130 on 2026-12-02'."""
        return (
            f"{self.status_text} on {self.record.device_name} with torch"
            f" {self.record.versions.torch} on {self.day.isoformat()}"
        )


def witness_index(
    records: Iterable[WitnessRecord], mode_label: Callable[[WitnessRecord, str], str]
) -> dict[str, tuple[Witnessed, ...]]:
    """Step id -> what each record showed of it, in the order of ``records``.

    ``mode_label`` gives the label of a record's mode (:meth:`.Lookups.mode_label`).
    """
    found: dict[str, list[Witnessed]] = {}
    for record in records:
        by_step: dict[str, list[tuple[str, Any]]] = {}
        for mode in record.modes:
            for observation in mode.steps:
                by_step.setdefault(observation.step, []).append((mode.mode, observation))
        for step_id, seen in by_step.items():
            status = min((o.status for _, o in seen), key=_STATUS_ORDER.index)
            chosen = [(m, o) for m, o in seen if o.status == status]
            excerpts = list(dict.fromkeys(e for _, o in chosen for e in o.evidence))
            notes = [
                f"{mode_label(record, m)}: {o.note}"
                for m, o in seen
                if o.note and (o.status != "observed")
            ]
            found.setdefault(step_id, []).append(
                Witnessed(
                    record=record,
                    status=status,
                    modes=tuple(dict.fromkeys(mode_label(record, m) for m, _ in chosen)),
                    evidence=tuple(excerpts[:MAX_EXCERPTS]),
                    more=max(0, len(excerpts) - MAX_EXCERPTS),
                    notes=tuple(dict.fromkeys(notes)),
                )
            )
    return {step: tuple(items) for step, items in found.items()}
