r"""The witness report as Markdown: CommonMark with tables, every piece of data escaped.

Names, ids and code are code spans (fenced by more backticks than they hold, pipes escaped in
tables); sentences have every character Markdown would read as markup escaped; evidence, code
lines and Dynamo's explanations are fenced blocks, verbatim and whole.

>>> _esc("1. a_b _c_ <b>")
'1\\. a_b \\_c\\_ \\<b>'
>>> _code("x `y`")
'`` x `y` ``'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from atlas._witness._report_path import NO_PROBE, PathView, Row, path_view
from atlas._witness._report_text import (
    KINDS,
    comparison_of,
    facts,
    mode_name,
    operations,
    outcome,
    problems,
    seconds,
    tally,
    timing,
    versions,
)

if TYPE_CHECKING:
    from atlas._witness.compare import ModeComparison
    from atlas.models._witness import CapturedGraphSummary, GraphBreak, ModeWitness, WitnessRecord

__all__ = ["to_markdown"]

# what Markdown reads as markup anywhere (``_`` only at a word's edge), and at a line's start
_SPECIAL = re.compile(r"[\\`*\[\]<|~#&]|(?<![^\W_])_|_(?![^\W_])")
_LINE_START = re.compile(r"^([-+=>])|^(\d+)([.)])(?=\s|$)")


def _esc(text: str) -> str:
    """``text`` on one line, with every character Markdown would read as markup escaped."""
    escaped = _SPECIAL.sub(lambda m: "\\" + m[0], " ".join(text.split()))
    return _LINE_START.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", escaped)


def _code(text: str, *, cell: bool = False) -> str:
    """An inline code span of ``text``, fenced by more backticks than it holds."""
    one_line = " ".join(text.split("\n"))
    runs = [len(run) for run in re.findall(r"`+", one_line)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if one_line.startswith(("`", " ")) or one_line.endswith(("`", " ")) else ""
    span = f"{fence}{pad}{one_line}{pad}{fence}"
    return span.replace("|", "\\|") if cell else span


def _block(text: str, info: str = "text") -> list[str]:
    """A fenced code block of ``text``, verbatim."""
    runs = [len(run) for run in re.findall(r"`+", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return [f"{fence}{info}", *text.splitlines(), fence, ""]


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


def _md_break(number: int, item: GraphBreak) -> list[str]:
    where = f" at {_code(item.location)}" if item.location else ""
    inside = f" in {_code(item.function)}" if item.function else ""
    times = "once" if item.count == 1 else f"{item.count} times"
    lines = [f"#### Graph break {number}{where}{inside} ({times})", ""]
    lines += [f"Reason: {_esc(item.reason)}", ""]
    if item.code:
        lines += ["The code at the break:", "", *_block(item.code, "python")]
    if item.explanation:
        lines += ["Dynamo's explanation:", "", *_block(item.explanation)]
    if item.hint:
        lines += ["Dynamo's hint:", "", *_block(item.hint)]
    return lines


def _md_graph(graph: CapturedGraphSummary) -> list[str]:
    took = f", compiled in {seconds(graph.compile_s)}" if graph.compile_s is not None else ""
    lines = [f"#### Graph {_code(graph.compile_id)}: {operations(len(graph.ops))}{took}", ""]
    if graph.output_module:
        lines += [f"Inductor's output module: {_code(graph.output_module)}", ""]
    if graph.ops:
        lines += ["Operations: " + ", ".join(_code(op) for op in graph.ops), ""]
    if graph.calls:
        rows = [
            [
                str(i),
                KINDS[call.kind],
                _code(call.name, cell=True),
                ", ".join(_code(op, cell=True) for op in call.ops) or "-",
            ]
            for i, call in enumerate(graph.calls, 1)
        ]
        lines += _table(["#", "kind", "call", "aten operators"], rows)
    return lines


def _md_row(row: Row) -> list[str]:
    words = "" if row.documented else " (the atlas does not document it for this mode)"
    ends = f"from {_code(row.from_stage)} to {_code(row.to_stage)}"
    lines = [f"#### {row.number}. {_esc(row.label)}", ""]
    lines += [f"**{row.mark} {row.status_words}**{words}: step {_code(row.step)}, {ends}.", ""]
    seen = row.observation
    note = seen.note if seen is not None else NO_PROBE
    if note:
        lines += [f"Why: {_esc(note)}", ""]
    for i, excerpt in enumerate(seen.evidence if seen is not None else (), 1):
        where = f", from {_code(excerpt.artifact)}" if excerpt.artifact else ""
        lines += [f"Evidence {i} ({_esc(excerpt.source)}{where}):", "", *_block(excerpt.text)]
    return lines


def _md_comparison(comparison: ModeComparison, view: PathView) -> list[str]:
    numbers = {row.step: str(row.number) for row in view.rows}
    rows = [
        [
            numbers.get(c.step, ""),
            f"{_esc(c.label or c.step)} ({_code(c.step, cell=True)})",
            ("**" + _esc(c.verdict) + "**") if c.contradicts else _esc(c.verdict),
            _esc(c.explanation),
            _esc(c.detail) or "-",
        ]
        for c in comparison.rows
    ]
    verdict = (
        "contradicted by the run" if comparison.contradicted else "no documented step contradicted"
    )
    lines = [f"### Compared with the atlas: {verdict}", ""]
    if comparison.note:
        lines += [_esc(comparison.note), ""]
    return lines + _table(["#", "step", "verdict", "what it means", "evidence or why"], rows)


def _md_notes(mode: ModeWitness) -> list[str]:
    if not mode.notes:
        return []
    return ["### What the run showed of the mode", "", *(f"- {_esc(n)}" for n in mode.notes), ""]


def _md_mode(mode: ModeWitness, view: PathView, comparison: ModeComparison | None) -> list[str]:
    lines = [f"## {mode_name(mode.mode)}", "", _esc(f"{timing(mode)} {outcome(mode)}"), ""]
    if problems(mode):
        lines += [*(f"- {_esc(line)}" for line in problems(mode)), ""]
    lines += _md_notes(mode)
    if mode.python_ends:
        lines += ["### Where Python's part ended", ""]
        lines += [*(f"- {_esc(sentence)}" for sentence in mode.python_ends), ""]
    if mode.graph_breaks:
        lines += [f"### Graph breaks ({len(mode.graph_breaks)})", ""]
        for number, item in enumerate(mode.graph_breaks, 1):
            lines += _md_break(number, item)
    if mode.graphs:
        lines += [f"### Captured graphs and their kernels ({len(mode.graphs)})", ""]
        for graph in mode.graphs:
            lines += _md_graph(graph)
        if mode.kernels and not any(g.calls for g in mode.graphs):
            lines += ["Kernels Inductor generated: " + ", ".join(map(_code, mode.kernels)), ""]
    lines += ["### Steps", ""]
    for row in view.rows:
        lines += _md_row(row)
    if comparison is not None:
        lines += _md_comparison(comparison, view)
    return lines


def to_markdown(record: WitnessRecord, comparisons: Sequence[ModeComparison] | None = None) -> str:
    """The report of ``record`` as Markdown (CommonMark with tables), and ``comparisons``."""
    views = [path_view(mode, record.device) for mode in record.modes]
    lines = [f"# {_esc(record.title)}", ""]
    lines += _table(["", ""], [[_esc(name), _esc(value)] for name, value in facts(record)])
    for mode, view in zip(record.modes, views, strict=True):
        lines.append(f"- {mode_name(mode.mode)}: {_esc(tally(mode, view))}")
    lines.append("")
    lines += ["## Software and hardware", ""]
    lines += _table(
        ["software", "version"],
        [[_esc(name), _code(value, cell=True)] for name, value in versions(record)],
    )
    if record.settings:
        lines += ["Settings the witness changed from their defaults:", ""]
        settings = sorted(record.settings.items())
        lines += _table(
            ["setting", "value"], [[_code(k, cell=True), _code(v, cell=True)] for k, v in settings]
        )
    for mode, view in zip(record.modes, views, strict=True):
        lines += _md_mode(mode, view, comparison_of(mode, comparisons))
    return "\n".join(lines).rstrip("\n") + "\n"
