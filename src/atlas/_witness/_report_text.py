"""What both formats of the witness report say, in words: times, facts, versions, outcomes.

>>> seconds(0.0123), seconds(22.2), operations(1)
('0.012 s', '22.2 s', '1 operation')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from atlas._witness._steps import mode_name

if TYPE_CHECKING:
    from atlas._witness._report_path import PathView
    from atlas._witness.compare import ModeComparison
    from atlas.models._witness import ModeWitness, WitnessRecord

__all__ = [
    "KINDS",
    "comparison_of",
    "facts",
    "mode_name",
    "operations",
    "outcome",
    "problems",
    "seconds",
    "tally",
    "timing",
    "versions",
]

KINDS = {"C++": "C++ kernel", "Triton": "Triton kernel", "library": "library call"}
"""A call of a compiled graph, by its kind, in words."""


def seconds(value: float | None) -> str:
    """Seconds for a reader: three decimals under 10 s, one above; '-' for none."""
    if value is None:
        return "not measured"
    return f"{value:.3f} s" if value < 10 else f"{value:.1f} s"  # noqa: PLR2004


def operations(count: int) -> str:
    """'1 operation', '5 operations'."""
    return f"{count} operation{'' if count == 1 else 's'}"


def timing(mode: ModeWitness) -> str:
    """The first call beside a warm call, in one sentence."""
    took = f"The mode took {seconds(mode.duration_s)} in all."
    if mode.first_call_s is None and mode.warm_call_s is None:
        return f"The record has no call times (it was made before they were measured). {took}"
    first = {
        "torch-compile": "capture, compile and run",
        "reduce-overhead": "capture, compile and a warm-up run",
        "aotinductor": "the loaded package's first run",
    }.get(mode.mode, "the first run")
    text = (
        f"First call {seconds(mode.first_call_s)} ({first}), warm call "
        f"{seconds(mode.warm_call_s)} (the fastest of three)"
    )
    if mode.first_call_s and mode.warm_call_s:
        text += f": the first call took {mode.first_call_s / mode.warm_call_s:,.0f} times as long"
    return f"{text}. {took}"


def facts(record: WitnessRecord) -> list[tuple[str, str]]:
    """The run in a few named facts."""
    return [
        ("Record", record.id),
        ("Atlas", record.atlas),
        ("Model", record.model),
        ("Model factory", record.model_source or "the witness's tiny model"),
        ("Device", f"{record.device}: {record.device_name} ({record.device_detail})"),
        ("Started", f"{record.started_at:%Y-%m-%d %H:%M:%S} UTC"),
        ("Took", seconds(record.duration_s)),
    ]


def versions(record: WitnessRecord) -> list[tuple[str, str]]:
    """The software versions and hardware the record names (absent ones left out)."""
    items = []
    for name, value in record.versions.model_dump().items():
        if value is None or value == ():
            continue
        shown = ", ".join(value) if isinstance(value, (list, tuple)) else str(value)
        items.append((name.replace("_", " "), shown))
    return items


def outcome(mode: ModeWitness) -> str:
    """Whether the compiled output matched eager ('' when not compared)."""
    if mode.outputs_match is None:
        return ""
    return f"The compiled output {'matched' if mode.outputs_match else 'did not match'} eager's."


def problems(mode: ModeWitness) -> list[str]:
    """What went wrong in the mode: its error, and what it could not observe."""
    lines = [f"The mode failed: {mode.error}"] if mode.error else []
    return lines + [f"Could not observe: {problem}" for problem in mode.unobservable]


def comparison_of(
    mode: ModeWitness, comparisons: Sequence[ModeComparison] | None
) -> ModeComparison | None:
    """The comparison of ``mode`` among ``comparisons``, if any."""
    return next((c for c in comparisons or () if c.mode == mode.mode), None)


def tally(mode: ModeWitness, view: PathView) -> str:
    """The mode's steps counted: documented ones by what the run showed, then the others."""
    documented = [row for row in view.rows if row.documented]
    counts = {
        s: sum(row.status == s for row in documented) for s in ("not-observed", "not-checked")
    }
    parts = [
        f"{len(documented) - sum(counts.values())} of {len(documented)} documented steps observed"
    ]
    parts += [f"{n} {s.replace('-', ' ')}" for s, n in counts.items() if n]
    others = sum(not row.documented and row.status == "observed" for row in view.rows)
    if others or not documented:
        parts.append(f"{others} observed that the atlas does not document here")
    breaks = sum(item.count for item in mode.graph_breaks)
    if breaks:
        parts.append(f"{breaks} graph break{'' if breaks == 1 else 's'}")
    return ", ".join(parts)
