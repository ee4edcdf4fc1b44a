"""The drawing of an atlas: a DOT description laid out by Graphviz ``dot`` into inline SVG.

The layout is Graphviz's; this module only writes the DOT text, runs ``dot -Tsvg`` and tidies
the result so that pages can inline it: ids and classes on every stage and step (so that CSS
and the page script can highlight one path), a title and a description, no fixed size.
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from atlas.errors import AtlasError

__all__ = ["Drawing", "Edge", "LayoutError", "Node", "dot_source", "draw", "layout"]

SVG_NS = "http://www.w3.org/2000/svg"
FONT = "DejaVu Sans"
PYTHON_ZONE = "runs in the Python interpreter"
TIMEOUT_S = 30


class LayoutError(AtlasError, RuntimeError):
    """Graphviz ``dot`` is missing or failed to lay out a drawing."""


@dataclass(frozen=True)
class Node:
    """A stage as drawn: its id, its lines of text and its CSS classes."""

    id: str
    lines: tuple[str, ...]
    classes: tuple[str, ...]
    tooltip: str
    python: bool = False  # drawn inside the box of stages that the Python interpreter runs
    element: str = "stage"  # the SVG element's id is "g-<element>-<id>"


@dataclass(frozen=True)
class Edge:
    """A step as drawn: from, to, its label and its CSS classes."""

    id: str
    tail: str
    head: str
    label: str
    classes: tuple[str, ...]
    tooltip: str
    element: str = "step"  # the SVG element's id is "g-<element>-<id>"


def _quote(text: str) -> str:
    r"""A DOT double-quoted string whose label escapes are neutralised.

    >>> _quote('say "hi" \\N')
    '"say \\"hi\\" \\\\N"'
    """
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _label(lines: Iterable[str]) -> str:
    """Lines joined by DOT's centred line break; every line escaped."""
    return '"' + "\\n".join(_quote(line)[1:-1] for line in lines) + '"'


def wrap(text: str, width: int) -> tuple[str, ...]:
    """Break a label into lines of about ``width`` characters.

    >>> wrap("ATen CUDA kernels (some call cuBLAS)", 20)
    ('ATen CUDA kernels', '(some call cuBLAS)')
    """
    return tuple(textwrap.wrap(text, width, break_on_hyphens=False)) or (text,)


def _node(node: Node) -> str:
    return (
        f"{_quote(node.id)} [id={_quote(f'g-{node.element}-{node.id}')},"
        f" class={_quote(' '.join(node.classes))}, label={_label(node.lines)}];"
    )


def dot_source(name: str, nodes: Iterable[Node], edges: Iterable[Edge]) -> str:
    """The DOT text of a top-down drawing of these nodes and edges, in the given order.

    When some nodes (not all) are Python stages, they are drawn inside one dashed box.
    """
    out = [
        f"digraph {_quote(name)} {{",
        f'  graph [rankdir=TB, nodesep=0.3, ranksep=0.42, pad=0.08, fontname="{FONT}"];',
        (
            f'  node [shape=box, style="rounded,filled", fontname="{FONT}", fontsize=12.5,'
            ' margin="0.14,0.06", penwidth=1.2];'
        ),
        f'  edge [fontname="{FONT}", fontsize=10.5, arrowsize=0.7, penwidth=1.2];',
    ]
    all_nodes = tuple(nodes)
    python = [n for n in all_nodes if n.python]
    if python and len(python) < len(all_nodes):
        out.append(
            '  subgraph "cluster_python" {\n'
            f'    id="g-python"; class="python-zone"; label={_quote(PYTHON_ZONE)};'
            ' labeljust=l; fontsize=10; style="dashed,rounded";'
        )
        out.extend(f"    {_node(n)}" for n in python)
        out.append("  }")
        out.extend(f"  {_node(n)}" for n in all_nodes if not n.python)
    else:
        out.extend(f"  {_node(n)}" for n in all_nodes)
    out.extend(
        f"  {_quote(edge.tail)} -> {_quote(edge.head)}"
        f" [id={_quote(f'g-{edge.element}-{edge.id}')}, class={_quote(' '.join(edge.classes))},"
        f" label={_label(wrap(edge.label, 18))}];"
        for edge in edges
    )
    out.append("}")
    return "\n".join(out) + "\n"


def layout(source: str) -> str:
    """Run Graphviz ``dot`` on DOT text and return the SVG it writes.

    Raises:
        LayoutError: ``dot`` is not installed or rejects the input.
    """
    dot = shutil.which("dot")
    if dot is None:
        raise LayoutError(
            "Graphviz 'dot' was not found on PATH; the site's drawings need it"
            " (Debian: apt-get install graphviz)"
        )
    try:
        done = subprocess.run(
            [dot, "-Tsvg"],
            input=source,
            capture_output=True,
            text=True,
            check=False,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise LayoutError(f"Graphviz 'dot' took more than {TIMEOUT_S} s") from None
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()[:3]
        raise LayoutError(f"Graphviz 'dot' failed (exit {done.returncode}): {' '.join(message)!r}")
    return done.stdout


_GEOMETRY = frozenset({"d", "points", "x", "y", "viewBox", "transform"})
_NUMBER = re.compile(r"-?\d+\.\d+")


def _round(match: re.Match[str]) -> str:
    """A coordinate to one decimal, without trailing zeros: ``'12.34'`` -> ``'12.3'``."""
    text = f"{float(match.group()):.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


@dataclass(frozen=True)
class Drawing:
    """A laid-out SVG drawing, ready to be inlined with one path highlighted."""

    root: ET.Element

    @classmethod
    def from_svg(cls, text: str, tooltips: Mapping[str, str]) -> Drawing:
        """Tidy the SVG of ``dot``: no fixed size or background; tooltips as element titles."""
        root = ET.fromstring(text)  # noqa: S314 - the SVG was just written by our own dot run
        for element in root.iter():  # plain tag names: the SVG is inlined in HTML
            element.tag = element.tag.rpartition("}")[2]
        root.set("xmlns", SVG_NS)
        for attribute in ("width", "height"):
            root.attrib.pop(attribute, None)
        graph = root.find("g")
        if graph is not None:
            graph.attrib.pop("id", None)
            for child in list(graph):
                if child.tag in ("title", "polygon"):
                    graph.remove(child)  # the graph's name and its white background
        for group in root.iter("g"):
            gid = group.get("id", "")
            title = group.find("title")
            if title is not None:
                title.text = tooltips.get(gid, title.text)
        for element in root.iter():
            element.attrib.pop("font-family", None)
            for name in _GEOMETRY & element.attrib.keys():
                element.set(name, _NUMBER.sub(_round, element.get(name, "")))
        return cls(root)

    @property
    def size(self) -> tuple[float, float]:
        """The natural width and height of the drawing, in CSS pixels."""
        box = [float(v) for v in self.root.get("viewBox", "0 0 0 0").split()]
        return (box[2], box[3]) if len(box) == 4 else (0.0, 0.0)  # noqa: PLR2004 - x y w h

    @property
    def wide(self) -> bool:
        """Whether the drawing is wider than tall (pages then give it the full width)."""
        width, height = self.size
        return width > height

    def svg(self, *, label: str, description: str, view: str | None = None) -> str:
        """The SVG markup, with the elements of ``view`` (a path's slug) marked ``is-on``."""
        root = copy.deepcopy(self.root)
        prefix = root.get("id", "drawing")
        root.set("role", "img")
        root.set("aria-labelledby", f"{prefix}-title {prefix}-desc")
        root.set("class", "drawing has-view" if view else "drawing")
        title = ET.Element("title", {"id": f"{prefix}-title"})
        title.text = label
        desc = ET.Element("desc", {"id": f"{prefix}-desc"})
        desc.text = description
        root.insert(0, desc)
        root.insert(0, title)
        if view:
            token = f"on-{view}"
            for group in root.iter("g"):
                classes = group.get("class", "").split()
                if token in classes:
                    group.set("class", " ".join([*classes, "is-on"]))
        return ET.tostring(root, encoding="unicode")


def draw(name: str, nodes: Iterable[Node], edges: Iterable[Edge]) -> Drawing:
    """Lay out these nodes and edges top-down with ``dot``; the SVG's id is ``drawing-<name>``."""
    node_list, edge_list = tuple(nodes), tuple(edges)
    tooltips = {f"g-{n.element}-{n.id}": n.tooltip for n in node_list}
    tooltips.update({f"g-{e.element}-{e.id}": e.tooltip for e in edge_list})
    tooltips["g-python"] = "Stages inside the dashed box " + PYTHON_ZONE
    drawing = Drawing.from_svg(layout(dot_source(name, node_list, edge_list)), tooltips)
    drawing.root.set("id", f"drawing-{name}")
    return drawing
