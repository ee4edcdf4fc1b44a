"""The witness records shipped with the data: what real runs showed, one row per record and mode.

Made from the export at build time (``atlas.load().witnesses``): the record, where and with what
it ran, and for each mode how many steps of the atlas it observed, did not observe, or could not
check.
"""

from __future__ import annotations

from collections import Counter

import atlas
from atlasdocs.markdown import code, escape, shorten, table

__all__ = ["records"]

_STATUSES = ("observed", "not-observed", "not-checked")


def records() -> str:
    """The table of the shipped witness records."""
    rows = []
    for record in atlas.load().witnesses:
        versions = record.versions
        ran = f"torch {versions.torch}, Python {versions.python}"
        for mode in record.modes:
            counted: Counter[str] = Counter(step.status for step in mode.steps)
            steps = ", ".join(f"{counted[s]} {s}" for s in _STATUSES if counted[s])
            rows.append(
                [
                    code(record.id),
                    escape(record.device_name or record.device),
                    escape(ran),
                    escape(shorten(record.model, 60)),
                    code(mode.mode),
                    escape(steps or "none"),
                ]
            )
    header = ["record", "device", "software", "model", "mode", "steps of the atlas"]
    return table(header, rows) + "\n"
