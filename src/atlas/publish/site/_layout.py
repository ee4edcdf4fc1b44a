"""The geometry of a drawing: laid out by Graphviz ``dot``, once, when the export is made.

A layout depends only on the texts of the boxes and arrows and on how they connect. The *layout
source* (:func:`source`: DOT text without classes, links or tooltips) says exactly that, and its
SHA-256 names the layout. ``atlas export --dataset DIR`` lays out every drawing of the site and
ships the geometry in ``DIR/layouts.json`` (:mod:`atlas.publish.site._drawings` writes it), so
that ``atlas site build`` needs no Graphviz: a drawing whose source has another hash (the data
changed since the export) is laid out by ``dot`` when it is installed, else the build fails.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from atlas.errors import CouldNotRunError

__all__ = [
    "FORMAT",
    "Arrow",
    "Box",
    "Layout",
    "LayoutError",
    "Shape",
    "Wire",
    "dot_layout",
    "dumps",
    "loads",
    "source",
]

FORMAT = 1  # of layouts.json and of the layout source: a change here changes every hash
FONT = "DejaVu Sans"
PYTHON_ZONE = "runs in the Python interpreter"
NUMBER_ROOM = "0 "  # reserved before an arrow's label, where the step's number is drawn
MARGIN = 8.0  # around the laid-out drawing, for fonts wider than the one dot measured
TIMEOUT_S = 30
CENTRED, LEFT = "\\n", "\\l"  # DOT's line breaks: the line before is centred, left-aligned


class LayoutError(CouldNotRunError, RuntimeError):
    """A drawing cannot be laid out here: no current shipped layout, and no working ``dot``."""


@dataclass(frozen=True)
class Shape:
    """What the layout of a box needs: its id, its lines, and whether Python runs it."""

    id: str
    lines: tuple[str, ...]
    python: bool = False


@dataclass(frozen=True)
class Wire:
    """What the layout of an arrow needs: its id, its ends and its label's lines."""

    id: str
    tail: str
    head: str
    lines: tuple[str, ...]


Point = tuple[float, float]


class Box(BaseModel):
    """A box as laid out: ``[left, top, width, height]`` and the baseline of each line."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    box: tuple[float, float, float, float]
    lines: tuple[Point, ...]  # the centre of each line, on its baseline


class Arrow(BaseModel):
    """An arrow as laid out: its curve (SVG path data), its head and its label's lines."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    path: str
    head: tuple[Point, ...]
    lines: tuple[Point, ...]  # the left end of each line, on its baseline


class Layout(BaseModel):
    """The geometry of one drawing, and the hash of the layout source it was made from."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    hash: str
    size: Point
    boxes: dict[str, Box]
    arrows: dict[str, Arrow]
    zone: Box | None = None  # the dashed box around the stages Python runs


class _File(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    format: int
    drawings: dict[str, Layout]


def _quote(text: str) -> str:
    r"""A DOT double-quoted string whose label escapes are neutralised.

    >>> _quote('say "hi" \\N')
    '"say \\"hi\\" \\\\N"'
    """
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _lines(lines: Iterable[str], end: str) -> str:
    """Lines joined by a DOT line break (centred, or left-aligned), each escaped."""
    return '"' + "".join(_quote(line)[1:-1] + end for line in lines).removesuffix(CENTRED) + '"'


def source(name: str, shapes: Iterable[Shape], wires: Iterable[Wire], *, numbered: bool) -> str:
    r"""The layout source of a top-down drawing: DOT text that ``dot`` lays out as it is.

    When some shapes (not all) run in Python, they go inside one box; with ``numbered``, room
    for a step's number is kept before each arrow's label.

    >>> text = source("x", [Shape("a", ("A",))], [Wire("s", "a", "a", ("loops",))], numbered=False)
    >>> print(text, end="")  # doctest: +ELLIPSIS
    // Execution Atlas layout 1
    digraph "x" {
    ...
      "a" [label="A"];
      "a" -> "a" [id="s", label="loops\l"];
    }
    """
    room = NUMBER_ROOM if numbered else ""
    out = [
        f"// Execution Atlas layout {FORMAT}",
        f"digraph {_quote(name)} {{",
        f'  graph [rankdir=TB, nodesep=0.25, ranksep=0.42, fontname="{FONT}"];',
        f'  node [shape=box, fontname="{FONT}", fontsize=12.5, margin="0.12,0.05"];',
        f'  edge [fontname="{FONT}", fontsize=10.5, arrowsize=0.7];',
    ]
    all_shapes = tuple(shapes)
    python = [s for s in all_shapes if s.python]
    zone = bool(python) and len(python) < len(all_shapes)

    def node(shape: Shape) -> str:
        return f"{_quote(shape.id)} [label={_lines(shape.lines, CENTRED)}];"

    if zone:
        out.append(
            f'  subgraph "cluster_python" {{ label={_quote(PYTHON_ZONE)}; labeljust=l;'
            " fontsize=10; margin=6;"
        )
        out.extend(f"    {node(s)}" for s in python)
        out.append("  }")
    out.extend(f"  {node(s)}" for s in all_shapes if not (zone and s.python))
    out.extend(
        f"  {_quote(w.tail)} -> {_quote(w.head)} [id={_quote(w.id)},"
        f" label={_lines((room + line for line in w.lines), LEFT)}];"
        for w in wires
    )
    out.append("}")
    return "\n".join(out) + "\n"


def digest(text: str) -> str:
    """The name of a layout source: its SHA-256, in hex."""
    return hashlib.sha256(text.encode()).hexdigest()


def dot_layout(text: str) -> Layout:
    """Lay out a layout source with Graphviz ``dot``.

    Raises:
        LayoutError: ``dot`` is not installed, fails, or writes what cannot be read.
    """
    dot = shutil.which("dot")
    if dot is None:
        raise LayoutError("Graphviz 'dot' was not found on PATH (Debian: apt-get install graphviz)")
    try:
        done = subprocess.run(
            [dot, "-Tjson"],
            input=text,
            capture_output=True,
            text=True,
            check=False,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise LayoutError(f"Graphviz 'dot' took more than {TIMEOUT_S} s") from None
    except OSError as error:
        raise LayoutError(f"Graphviz 'dot' could not be run: {error}") from None
    if done.returncode != 0:
        message = " ".join(done.stderr.strip().splitlines()[:3])
        raise LayoutError(f"Graphviz 'dot' failed (exit {done.returncode}): {message!r}")
    try:
        return _read_dot(json.loads(done.stdout), digest(text))
    except (ValueError, KeyError, IndexError, TypeError) as error:
        raise LayoutError(f"Graphviz 'dot' wrote a layout that cannot be read: {error}") from None


def _num(value: float) -> float:
    """A coordinate to one decimal."""
    return round(value, 1) + 0.0  # + 0.0: never -0.0


def _read_dot(graph: dict[str, Any], name: str) -> Layout:
    """The geometry in ``dot -Tjson``'s output (y upwards) as a layout (y downwards)."""
    left, bottom, right, top = (float(v) for v in graph["bb"].split(","))

    def point(x: float, y: float) -> Point:
        return (_num(x - left + MARGIN), _num(top - y + MARGIN))

    def texts(ops: list[dict[str, Any]]) -> tuple[Point, ...]:
        return tuple(point(*op["pt"]) for op in ops if op["op"] == "T")

    boxes: dict[str, Box] = {}
    zone = None
    for item in graph.get("objects", []):
        if item["name"] == "cluster_python":
            x1, y1, x2, y2 = (float(v) for v in item["bb"].split(","))
            corner = point(x1, y2)
            size = (_num(x2 - x1), _num(y2 - y1))
            zone = Box(box=(*corner, *size), lines=texts(item.get("_ldraw_", [])))
        elif "pos" in item:
            x, y = (float(v) for v in item["pos"].split(","))
            width, height = float(item["width"]) * 72, float(item["height"]) * 72
            corner = point(x - width / 2, y + height / 2)
            boxes[item["name"]] = Box(
                box=(*corner, _num(width), _num(height)), lines=texts(item.get("_ldraw_", []))
            )
    arrows = {}
    for edge in graph.get("edges", []):
        curve = [p for op in edge["_draw_"] if op["op"] == "b" for p in op["points"]]
        ends = [point(*p) for p in curve]
        data = f"M{_xy(ends[0])}C" + " ".join(_xy(p) for p in ends[1:])
        head = next(op["points"] for op in edge.get("_hdraw_", []) if op["op"] in "Pp")
        arrows[edge["id"]] = Arrow(
            path=data, head=tuple(point(*p) for p in head), lines=texts(edge.get("_ldraw_", []))
        )
    size = (_num(right - left + 2 * MARGIN), _num(top - bottom + 2 * MARGIN))
    return Layout(hash=name, size=size, boxes=boxes, arrows=arrows, zone=zone)


def _xy(point: Point) -> str:
    """``(12.0, 3.5)`` as ``'12 3.5'``."""
    return " ".join(f"{v:g}" for v in point)


def dumps(layouts: dict[str, Layout]) -> str:
    """The text of ``layouts.json``: canonical (sorted keys), a line per box and per arrow."""
    out = ["{", f' "format": {FORMAT},', ' "drawings": {']
    for i, name in enumerate(sorted(layouts)):
        data = layouts[name].model_dump(mode="json")
        out.append(f"  {json.dumps(name)}: {{")
        fields = []
        for key in sorted(data):
            value = data[key]
            if key in ("boxes", "arrows"):
                items = [f"    {json.dumps(k)}: {_compact(value[k])}" for k in sorted(value)]
                fields.append(f'   "{key}": {{\n' + ",\n".join(items) + "\n   }")
            else:
                fields.append(f'   "{key}": {_compact(value)}')
        out.append(",\n".join(fields))
        out.append("  }" + ("," if i < len(layouts) - 1 else ""))
    out.extend([" }", "}"])
    return "\n".join(out) + "\n"


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def loads(text: str, where: str) -> dict[str, Layout]:
    """The layouts of a ``layouts.json`` text; those of another format are ignored (none).

    Raises:
        LayoutError: the text is not a layouts file, naming ``where``.
    """
    try:
        raw = json.loads(text)
        if isinstance(raw, dict) and raw.get("format") != FORMAT:
            return {}
        return _File.model_validate(raw).drawings
    except (ValueError, ValidationError) as error:
        first = str(error).splitlines()[0]
        raise LayoutError(f"{where} is not a layouts file of format {FORMAT}: {first}") from None
