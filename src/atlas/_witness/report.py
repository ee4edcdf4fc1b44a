"""A witness record as a report a person reads: Markdown, or one self-contained HTML page.

:func:`to_markdown` needs nothing beyond the base install; :func:`to_html` needs Jinja2 (the
``site`` extra) and gives one file that loads nothing (its style inline, no script) with a
drawing of each mode's path and what the run showed of each step marked on it. Both hold the same
content: the run (model, device, software versions), then per mode its timing, where Python's
part ended, its graph breaks, each captured graph with the kernels Inductor generated and the
calls it left to libraries, each step with its evidence in full, and, when given, the comparison
with the atlas. :func:`write_report` picks the format from a file's suffix.

>>> report_format("run.md"), report_format("run.HTML")
('markdown', 'html')
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas._witness._report_drawing import drawing, status_line
from atlas._witness._report_markdown import to_markdown
from atlas._witness._report_path import NO_PROBE, path_view
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
from atlas.errors import CouldNotRunError

if TYPE_CHECKING:
    from atlas._witness.compare import ModeComparison
    from atlas.models._witness import WitnessRecord

__all__ = ["SUFFIXES", "check_report", "report_format", "to_html", "to_markdown", "write_report"]

SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}
"""The report's format by the suffix of its file (case-insensitive)."""


def report_format(path: str | Path) -> str:
    """``'markdown'`` or ``'html'`` for a report file, by its suffix.

    Raises:
        ValueError: another suffix, named, with the valid ones.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        valid = ", ".join(list(SUFFIXES)[:-1]) + f" or {list(SUFFIXES)[-1]}"
        raise ValueError(f"a report file ends in {valid}; {str(path)!r} ends in {suffix!r}")
    return SUFFIXES[suffix]


def check_report(path: str | Path) -> str:
    """The format of a report file, checked before a run: its suffix, and Jinja2 for HTML.

    Raises:
        ValueError: a suffix that names no format.
        CouldNotRunError: HTML without Jinja2 (the ``site`` extra).
    """
    kind = report_format(path)
    if kind == "html":
        _environment()
    return kind


def write_report(
    path: Path, record: WitnessRecord, comparisons: Sequence[ModeComparison] | None = None
) -> None:
    """Write the report of ``record`` to ``path``, atomically, in the format of its suffix."""
    from atlas._witness.files import write_atomic  # noqa: PLC0415

    kind = report_format(path)
    text = to_html(record, comparisons) if kind == "html" else to_markdown(record, comparisons)
    write_atomic(path, text)


# --- HTML -----------------------------------------------------------------------------------


def _environment() -> Any:
    try:
        import jinja2  # noqa: PLC0415 - an optional extra
    except ImportError:
        raise CouldNotRunError(
            "the HTML report needs Jinja2: pip install 'execution-atlas[site]'"
        ) from None
    return jinja2.Environment(
        loader=jinja2.PackageLoader("atlas._witness", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def to_html(record: WitnessRecord, comparisons: Sequence[ModeComparison] | None = None) -> str:
    """The report of ``record`` as one HTML page that loads nothing, and ``comparisons``.

    Raises:
        CouldNotRunError: Jinja2 (the ``site`` extra) is not installed.
    """
    env = _environment()
    from markupsafe import Markup  # noqa: PLC0415 - installed with Jinja2

    style = (resources.files("atlas._witness") / "templates" / "report.css").read_text("utf-8")
    modes = []
    for mode in record.modes:
        view = path_view(mode, record.device)
        label = f"The path of {mode_name(mode.mode)} on {record.device}, as this run showed it"
        modes.append(
            {
                "mode": mode,
                "name": mode_name(mode.mode),
                "timing": timing(mode),
                "outcome": outcome(mode),
                "problems": problems(mode),
                "view": view,
                "drawing": Markup(drawing(view, label=label)),  # noqa: S704 - built escaped
                "comparison": comparison_of(mode, comparisons),
                "numbers": {row.step: row.number for row in view.rows},
                "tally": tally(mode, view),
            }
        )
    return str(
        env.get_template("report.html").render(
            record=record,
            facts=facts(record),
            versions=versions(record),
            modes=modes,
            kinds=KINDS,
            status_line=status_line,
            seconds=seconds,
            operations=operations,
            no_probe=NO_PROBE,
            style=Markup(style),  # noqa: S704 - the package's own stylesheet
        )
    )
