r"""An execution path as a diagram: Graphviz DOT and Mermaid flowchart text.

Stages are the nodes, with their labels, declared in journey order; steps are the edges, in
journey order, each labelled with its number and verb (``1. runs in``), so that a path that comes
back to a stage (graph breaks) still reads in order. Stages that run in the Python interpreter
are shaded. Full DOT adds tooltips (a stage's description, a step's text; shown on hover in SVG);
``brief`` leaves them out. Mermaid has no tooltips without scripts: ``brief`` changes nothing.

Plain string building, not the ``graphviz`` or ``pydot`` packages: all a library would bring
here is quoting, and it would not be enough. ``graphviz`` passes backslashes on as label escapes
(``\N`` is the node's name) unless each string goes through its ``escape()``, takes a label
in ``<...>`` for HTML unless wrapped in ``nohtml()``, and leaves ``&`` alone, which Graphviz
reads as the start of an entity; neither library knows Mermaid. So the quoting is done here, in
two small functions with their reasons, and the tests check it with Graphviz's ``dot`` and
Mermaid's own parser:

- DOT (:func:`dot_string`): in a double-quoted string ``"`` and ``\`` are escaped with a
  backslash (``\\`` is a literal backslash in a label, so no label escape like ``\N`` or
  ``\l`` survives), ``&`` becomes ``&amp;`` (Graphviz reads HTML entities in every label), and a
  line break the centred break ``\n``. ``<>`` and non-ASCII need nothing (UTF-8, no record
  shapes).
- Mermaid (:func:`mermaid_string`): labels are ``"..."`` strings, in which Mermaid reads
  ``#name;`` and ``#number;`` as entities; ``"`` becomes ``#quot;``, and ``#``, ``&``, ``<``,
  ``>`` (labels are HTML), a backtick (it would start a Markdown string), ``:`` (Mermaid's
  clean-up of ``style`` lines eats a ``;`` after one) and line breaks become ``#number;``.
  The summary is a ``%%`` comment, not a front-matter title: Mermaid reads no entities in a
  title but passes it through DOMPurify, so ``<`` or ``&`` in it could not be shown as they are.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # spares importing typing
if TYPE_CHECKING:
    from atlas.models import ExecutionPath, Stage

__all__ = ["dot", "dot_string", "mermaid", "mermaid_string"]

PYTHON_FILL = "#fff2b3"  # the shade of the stages that run in the Python interpreter
PYTHON_NOTE = "shaded: runs in the Python interpreter"
_MERMAID_ENTITIES = {ord('"'): "#quot;"} | {
    ord(c): f"#{ord(c)};" for c in "#&<>`:\n\r\t\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
}


def dot_string(text: str) -> str:
    r"""``text`` as a DOT double-quoted string that Graphviz shows exactly as ``text``.

    >>> print(dot_string('say "hi" \\N & <b>'))
    "say \"hi\" \\N &amp; <b>"
    """
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")
    return '"' + "\\n".join(escaped.splitlines()) + '"'


def mermaid_string(text: str) -> str:
    """``text`` as a Mermaid ``"..."`` label that Mermaid shows exactly as ``text``.

    >>> print(mermaid_string('say "hi" #1 <b>'))
    "say #quot;hi#quot; #35;1 #60;b#62;"
    """
    return '"' + text.translate(_MERMAID_ENTITIES) + '"'


def _description(stage: Stage) -> str:
    """A stage's text, its claims in order."""
    return " ".join(claim.text for claim in stage.claims)


def dot(path: ExecutionPath, *, brief: bool = False) -> str:
    """The path as a Graphviz ``digraph``: ``dot -Tsvg`` draws it."""
    python = any(stage.executes_in_python for stage in path.stages)
    title = f"{path.summary}\n{PYTHON_NOTE}" if python else path.summary
    lines = [
        f"digraph {dot_string(path.atlas)} {{",
        f'  graph [label={dot_string(title)}, labelloc=t, rankdir=TB, fontname="DejaVu Sans"];',
        '  node [shape=box, style=rounded, fontname="DejaVu Sans"];',
        '  edge [fontname="DejaVu Sans"];',
    ]
    for stage in path.stages:
        attributes = [f"label={dot_string(stage.label)}"]
        if stage.executes_in_python:
            attributes.append(f'style="rounded,filled", fillcolor="{PYTHON_FILL}"')
        if not brief and stage.claims:
            attributes.append(f"tooltip={dot_string(_description(stage))}")
        lines.append(f"  {dot_string(stage.id)} [{', '.join(attributes)}];")
    for journey in path.steps:
        attributes = [f"label={dot_string(f'{journey.number}. {journey.step.verb}')}"]
        if not brief and journey.step.claims:
            text = " ".join(claim.text for claim in journey.step.claims)
            attributes.append(f"tooltip={dot_string(text)}")
        lines.append(
            f"  {dot_string(journey.from_stage.id)} -> {dot_string(journey.to_stage.id)}"
            f" [{', '.join(attributes)}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _comment(text: str) -> str:
    """``text`` for a Mermaid ``%%`` comment: one line, never the start of a directive ``%%{``."""
    return re.sub("%(?=%)", "% ", " ".join(text.split()))


def mermaid(path: ExecutionPath, *, brief: bool = False) -> str:  # noqa: ARG001 - see the module
    """The path as a Mermaid flowchart, its summary in a comment (no title: see the module)."""
    names = {stage.id: f"s{number}" for number, stage in enumerate(path.stages, 1)}
    python = [names[stage.id] for stage in path.stages if stage.executes_in_python]
    lines = [f"%% {_comment(path.summary)}"]
    if python:
        lines.append(f"%% {PYTHON_NOTE}")
    lines.append("flowchart TD")
    lines.extend(f"  {names[stage.id]}[{mermaid_string(stage.label)}]" for stage in path.stages)
    lines.extend(
        f"  {names[j.from_stage.id]} -->|{mermaid_string(f'{j.number}. {j.step.verb}')}|"
        f" {names[j.to_stage.id]}"
        for j in path.steps
    )
    if python:
        lines.append(f"  classDef python fill:{PYTHON_FILL}")
        lines.append(f"  class {','.join(python)} python")
    return "\n".join(lines) + "\n"
