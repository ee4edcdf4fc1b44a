"""An execution path rendered for people and tools: text, JSON, Markdown, CSV, DOT or Mermaid.

:func:`render` takes the result of :func:`atlas.path` and a format of :data:`FORMATS`; with
``brief=True`` it gives the short view: one line per step (``from — verb → to``), no claims and
no citations. What each format holds:

- ``text``: what ``atlas path`` prints (the same text as the shipped path table); brief: the
  summary, one line per step and the steps where Python ends.
- ``json``: the model dump of the path; brief: ``{"atlas", "summary", "steps"}``, each step an
  object with the brief CSV columns (``number`` a number, ``ends_python`` a boolean).
- ``markdown``: a heading (the summary), a numbered list of the steps, each with its text, whose
  citation marks link to their sources, and the list of its sources with their quotes; then where
  Python ends. Brief: the heading and one list item per step. Text is escaped, never markup.
- ``csv`` (RFC 4180, by the ``csv`` module: CRLF line ends, fields quoted when they must be):
  a header row, then one row per step. Columns: ``number`` (1-based position), ``step`` (its
  id), ``from`` and ``from_label`` (the stage it starts at: id, label), ``verb``, ``to`` and
  ``to_label``, ``ends_python`` (``true`` or ``false``), ``claims`` (the step's text, each
  sentence followed by the numbers of its citations, ``[1][2]``, or ``[observed]`` or
  ``[unsupported]``), ``citations`` (the citation ids, space-separated: the n-th is ``[n]``) and
  ``sources`` (their sources' URLs, likewise). Brief: the columns up to ``ends_python``.
- ``dot`` and ``mermaid``: the diagram (:mod:`atlas.query._diagrams`).

>>> import atlas
>>> print(render(atlas.path("eager", "cpu"), "text", brief=True), end="")
eager mode on a CPU: 5 stages, 4 steps
1. model code — runs in → CPython interpreter
2. CPython interpreter — calls, one op at a time → ATen dispatch
3. ATen dispatch — dispatches to → ATen CPU kernels
4. ATen CPU kernels — run on → CPU
Where Python ends: step 2
"""

from __future__ import annotations

import csv
import io
import json
import re

from atlas.errors import ArgumentTypeError, UnknownValueError
from atlas.models._names import text
from atlas.query import _diagrams, _pathtable

TYPE_CHECKING = False  # spares importing typing
if TYPE_CHECKING:
    from typing import Protocol

    from atlas.models import ExecutionPath, JourneyStep

    class _Renderer(Protocol):
        def __call__(self, path: ExecutionPath, *, brief: bool) -> str: ...


__all__ = ["BRIEF_COLUMNS", "COLUMNS", "FORMATS", "render"]

FORMATS = ("text", "json", "markdown", "csv", "dot", "mermaid")
BRIEF_COLUMNS = ("number", "step", "from", "from_label", "verb", "to", "to_label", "ends_python")
COLUMNS = (*BRIEF_COLUMNS, "claims", "citations", "sources")

# Markdown: the characters that could start markup inline, escaped wherever they are; then what
# could start a block (a list item, a heading underline) at the start of a text
_MD_INLINE = re.compile(r"([\\`*_\[\]<>#|~!&$])")
_MD_BLOCK = re.compile(r"^(?:([-+=])|(\d+)([.)]))")
_MD_DESTINATION = re.compile(r"([\\<>&])")


def render(path: ExecutionPath, format: str = "text", *, brief: bool = False) -> str:  # noqa: A002 - the word of the CLI's --format
    """``path`` in ``format`` (one of :data:`FORMATS`), whole or ``brief``, ending in a newline.

    >>> import atlas
    >>> print(render(atlas.path("eager", "cpu"), "mermaid"), end="")
    %% eager mode on a CPU: 5 stages, 4 steps
    %% shaded: runs in the Python interpreter
    flowchart TD
      s1["model code"]
      s2["CPython interpreter"]
      s3["ATen dispatch"]
      s4["ATen CPU kernels"]
      s5["CPU"]
      s1 -->|"1. runs in"| s2
      s2 -->|"2. calls, one op at a time"| s3
      s3 -->|"3. dispatches to"| s4
      s4 -->|"4. run on"| s5
      classDef python fill:#fff2b3
      class s1,s2 python

    Raises:
        ArgumentTypeError: ``path`` is not an :class:`~atlas.ExecutionPath`, ``format`` not a
            ``str`` or ``brief`` not a ``bool``.
        UnknownValueError: an unknown format; the message lists the formats.
    """
    from atlas.models import ExecutionPath  # noqa: PLC0415 - pydantic: never on the fast path

    if not isinstance(path, ExecutionPath):
        raise ArgumentTypeError("path", path, "an ExecutionPath (what atlas.path() returns)")
    chosen = text(format, "format", f"a str (one of {', '.join(FORMATS)})")
    if not isinstance(brief, bool):
        raise ArgumentTypeError("brief", brief, "a bool (True or False)")
    renderer = _RENDERERS.get(chosen)
    if renderer is None:
        raise UnknownValueError("format", chosen, list(FORMATS))
    return renderer(path, brief=brief)


def _text(path: ExecutionPath, *, brief: bool) -> str:
    if not brief:
        return _pathtable.render(path)
    lines = [path.summary, *(f"{j.number}. {j.label}" for j in path.steps), _ends(path)]
    return "\n".join(lines) + "\n"


def _ends(path: ExecutionPath) -> str:
    """'Where Python ends: step 2' (or steps, or nowhere)."""
    numbers = [str(j.number) for j in path.python_ends]
    if not numbers:
        return "Where Python ends: nowhere in this path"
    return f"Where Python ends: step{'s' * (len(numbers) > 1)} {', '.join(numbers)}"


def _row(journey: JourneyStep) -> dict[str, str]:
    """A step's brief columns, as text."""
    return {
        "number": str(journey.number),
        "step": journey.step.id,
        "from": journey.from_stage.id,
        "from_label": journey.from_stage.label,
        "verb": journey.step.verb,
        "to": journey.to_stage.id,
        "to_label": journey.to_stage.label,
        "ends_python": "true" if journey.step.ends_python else "false",
    }


def _sentences(journey: JourneyStep) -> list[tuple[str, list[int] | str]]:
    """Each claim of a step with the numbers of its citations, or 'observed' or 'unsupported'."""
    numbers = {item.citation.id: n for n, item in enumerate(journey.evidence, 1)}
    found: list[tuple[str, list[int] | str]] = []
    for claim in journey.step.claims:
        cited = [numbers[c] for c in claim.citations if c in numbers]
        found.append((claim.text, cited or ("observed" if claim.observed_in else "unsupported")))
    return found


def _marks(marks: list[int] | str) -> str:
    """'[1][2]', or '[observed]' or '[unsupported]', as the text shows them."""
    return "".join(f"[{n}]" for n in marks) if isinstance(marks, list) else f"[{marks}]"


def _json(path: ExecutionPath, *, brief: bool) -> str:
    if brief:
        steps = [
            {**_row(j), "number": j.number, "ends_python": bool(j.step.ends_python)}
            for j in path.steps
        ]
        data = {"atlas": path.atlas, "summary": path.summary, "steps": steps}
    else:
        data = path.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _csv(path: ExecutionPath, *, brief: bool) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, BRIEF_COLUMNS if brief else COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    for journey in path.steps:
        row = _row(journey)
        if not brief:
            row["claims"] = " ".join(f"{s} {_marks(m)}" for s, m in _sentences(journey))
            row["citations"] = " ".join(item.citation.id for item in journey.evidence)
            row["sources"] = " ".join(item.source.url for item in journey.evidence)
        writer.writerow(row)
    return out.getvalue()


def _md_text(value: str) -> str:
    r"""``value`` as Markdown that shows it as it is: markup characters escaped, one line.

    >>> print(_md_text("1. a *b* [c](d) <e>"))
    1\. a \*b\* \[c\](d) \<e\>
    """
    escaped = _MD_INLINE.sub(r"\\\1", " ".join(value.split()))
    return _MD_BLOCK.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", escaped, count=1)


def _link(label: str, url: str) -> str:
    """A Markdown link; its label is Markdown already."""
    destination = _MD_DESTINATION.sub(r"\\\1", url)
    return f"[{label}](<{destination}>)"


def _markdown_step(journey: JourneyStep, *, brief: bool) -> list[str]:
    """A step as an item of the numbered list, its blocks indented under its marker."""
    marker = f"{journey.number}. "
    lines = [marker + _md_text(journey.label)]
    if brief:
        return lines
    indent = " " * len(marker)
    sources = [item.source.url for item in journey.evidence]
    sentences = []
    for sentence, marks in _sentences(journey):
        if isinstance(marks, list):
            links = "".join(_link(f"\\[{n}\\]", sources[n - 1]) for n in marks)
        else:
            links = f"\\[{marks}\\]"
        sentences.append(f"{_md_text(sentence)} {links}")
    lines += ["", indent + " ".join(sentences)]
    if journey.evidence:
        lines.append("")
    for n, item in enumerate(journey.evidence, 1):
        partial = ", partial support" if item.citation.support == "partial" else ""
        checked = item.citation.retrieved_on.date().isoformat()
        lines.append(
            f"{indent}- \\[{n}\\] {_link(_md_text(item.source.title), item.source.url)}"
            f"{partial}: \u201c{_md_text(item.citation.quote)}\u201d (checked {checked})"
        )
    return lines


def _markdown(path: ExecutionPath, *, brief: bool) -> str:
    lines = [f"# {_md_text(path.summary)}", ""]
    for journey in path.steps:  # brief: a tight list, one line per step
        lines += [*_markdown_step(journey, brief=brief), *([] if brief else [""])]
    if brief:
        lines.append("")
        lines.append(_md_text(_ends(path)))
    else:
        steps = "; ".join(f"step {j.number} ({j.label})" for j in path.python_ends)
        lines.append(f"Where Python ends: {_md_text(steps or 'nowhere in this path')}")
        for value in path.selection:
            if value.claims:
                claims = (f"{c.text}{' [unsupported]' * bool(c.unsupported)}" for c in value.claims)
                lines += ["", _md_text(" ".join(claims))]
    return "\n".join(lines) + "\n"


_RENDERERS: dict[str, _Renderer] = {
    "text": _text,
    "json": _json,
    "markdown": _markdown,
    "csv": _csv,
    "dot": _diagrams.dot,
    "mermaid": _diagrams.mermaid,
}
