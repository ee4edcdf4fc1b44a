"""The drawing of an atlas as inline SVG: boxes and arrows placed by a shipped layout.

:class:`Drawing` joins what is drawn (:class:`Node` and :class:`Edge`: texts, classes, links and
tooltips) with where (:class:`~atlas.publish.site._layout.Layout`) and writes SVG that pages
inline: ids and classes on every stage and step (so that CSS and the page script can highlight
one path), each box a link to its stage's card and each arrow to its step, each arrow of the
selected path numbered like the steps, a title and a description, no fixed size.
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.publish.site._layout import PYTHON_ZONE, Layout, Point, Shape, Wire

if TYPE_CHECKING:
    from atlas.publish.site._views import View

__all__ = ["Drawing", "Edge", "Node", "PathDrawing", "wrap"]

SVG_NS = "http://www.w3.org/2000/svg"
LABEL_WIDTH = 15  # characters per line of an arrow's label
BADGE_R = 9.0  # the radius of a step's number
TEXT_GAP = 10.5  # from the left end of a label's line (the arrow) to its text, past the number


def wrap(text: str, width: int) -> tuple[str, ...]:
    """Break a label into lines of about ``width`` characters.

    >>> wrap("ATen CUDA kernels (some call cuBLAS)", 20)
    ('ATen CUDA kernels', '(some call cuBLAS)')
    """
    return tuple(textwrap.wrap(text, width, break_on_hyphens=False)) or (text,)


@dataclass(frozen=True)
class Node:
    """A stage (or technology) as drawn: its lines (the last names its kind), classes, link."""

    id: str
    lines: tuple[str, ...]
    classes: tuple[str, ...]
    tooltip: str
    python: bool = False  # drawn inside the box of stages that the Python interpreter runs
    element: str = "stage"  # the SVG element's id is "g-<element>-<id>"
    href: str | None = None  # relative to the site's root

    @property
    def shape(self) -> Shape:
        """What its layout depends on."""
        return Shape(self.id, self.lines, self.python)


@dataclass(frozen=True)
class Edge:
    """A step (or relation) as drawn: from, to, its label, classes, tooltip and link."""

    id: str
    tail: str
    head: str
    label: str
    classes: tuple[str, ...]
    tooltip: str
    element: str = "step"  # the SVG element's id is "g-<element>-<id>"
    href: str | None = None  # relative to the site's root

    @property
    def wire(self) -> Wire:
        """What its layout depends on."""
        return Wire(self.id, self.tail, self.head, wrap(self.label, LABEL_WIDTH))


def _xy(point: Point) -> tuple[str, str]:
    return f"{point[0]:g}", f"{point[1]:g}"


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(
        parent, tag, {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
    )
    element.text = text
    return element


@dataclass(frozen=True)
class PathDrawing:
    """One path drawn for narrow screens (SVG markup), and the views (slugs) that take it."""

    slugs: str
    svg: str

    def shown(self, view: View | None) -> bool:
        """Whether this is the path of ``view``."""
        return view is not None and view.slug in self.slugs.split()


@dataclass(frozen=True)
class Drawing:
    """A laid-out drawing, ready to be written as SVG with one path highlighted and numbered."""

    name: str
    layout: Layout
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    numbered: bool = False  # whether the arrows have room for a step's number
    paths: tuple[PathDrawing, ...] = ()  # each path drawn for narrow screens

    @property
    def size(self) -> tuple[float, float]:
        """The natural width and height of the drawing, in CSS pixels."""
        return self.layout.size

    @property
    def wide(self) -> bool:
        """Whether the drawing is wider than tall (pages then give it the full width)."""
        width, height = self.size
        return width > height

    def svg(
        self,
        *,
        label: str,
        description: str,
        view: View | None = None,
        root: str = "",
    ) -> str:
        """The SVG markup: the elements of ``view`` marked ``is-on``, its steps numbered.

        Links are made relative to the page by ``root`` (such as ``"../"``).
        """
        prefix = f"drawing-{self.name}"
        width, height = self.size
        svg = ET.Element(
            "svg",
            {
                "xmlns": SVG_NS,
                "viewBox": f"0 0 {width:g} {height:g}",
                "id": prefix,
                "class": "drawing has-view" if view else "drawing",
                "role": "group",
                "aria-labelledby": f"{prefix}-title {prefix}-desc",
            },
        )
        _sub(svg, "title", label, id=f"{prefix}-title")
        _sub(svg, "desc", description, id=f"{prefix}-desc")
        self._zone(svg)
        token = f"on-{view.slug}" if view else None
        numbers = {j.id: j.number for j in view.path.steps} if view else {}
        # each box, then the arrows out of it: the order of the keyboard and of screen readers
        outgoing: dict[str, list[Edge]] = {}
        for edge in self.edges:
            outgoing.setdefault(edge.tail, []).append(edge)
        for node in self.nodes:
            self._node(svg, node, token, root)
            for edge in outgoing.pop(node.id, []):
                self._edge(svg, edge, token, numbers.get(edge.id), root)
        for edge in (e for edges in outgoing.values() for e in edges):
            self._edge(svg, edge, token, numbers.get(edge.id), root)
        return ET.tostring(svg, encoding="unicode", short_empty_elements=True)

    def _zone(self, svg: ET.Element) -> None:
        zone = self.layout.zone
        if zone is None:
            return
        group = _sub(svg, "g", id="g-python", class_="python-zone")
        _sub(group, "title", "Stages inside the dashed box " + PYTHON_ZONE)
        x, y, w, h = zone.box
        _sub(group, "rect", x=f"{x:g}", y=f"{y:g}", width=f"{w:g}", height=f"{h:g}", rx="8")
        for point in zone.lines[:1]:
            cx, cy = _xy(point)
            _sub(group, "text", PYTHON_ZONE, x=cx, y=cy, text_anchor="middle")

    def _group(
        self, svg: ET.Element, item: Node | Edge, token: str | None, href: str | None
    ) -> ET.Element:
        """The element of a stage or step (``is-on`` when on the view), and its link."""
        classes = list(item.classes)
        if token is not None and token in classes:
            classes.append("is-on")
        group = _sub(svg, "g", id=f"g-{item.element}-{item.id}", class_=" ".join(classes))
        group.set(f"data-{item.element}", item.id)
        if href is None:
            _sub(group, "title", item.tooltip)
            return group
        link = _sub(group, "a", href=href, aria_label=item.tooltip)
        _sub(link, "title", item.tooltip)
        return link

    def _edge(
        self, svg: ET.Element, edge: Edge, token: str | None, number: int | None, root: str
    ) -> None:
        placed = self.layout.arrows.get(edge.id)
        if placed is None:
            return
        # an arrow of the path leads to its step in the page's list (the page script keeps
        # that true when another path is chosen), any other to its step's own page
        href = None if edge.href is None else root + edge.href
        parent = self._group(svg, edge, token, f"#step-{edge.id}" if number else href)
        if href is not None:
            parent.set("data-href", href)
        _sub(parent, "path", d=placed.path)
        _sub(parent, "polygon", points=" ".join(" ".join(_xy(p)) for p in placed.head))
        shift = TEXT_GAP if self.numbered else 0.0
        for line, point in zip(edge.wire.lines, placed.lines, strict=False):
            _sub(parent, "text", line, x=f"{point[0] + shift:g}", y=f"{point[1]:g}")
        if self.numbered and placed.lines:
            x, y = placed.lines[0]
            badge = _sub(parent, "g", class_="num")
            _sub(badge, "circle", cx=f"{x:g}", cy=f"{y - 3.6:g}", r=f"{BADGE_R:g}")
            _sub(
                badge, "text", str(number or ""), x=f"{x:g}", y=f"{y + 0.3:g}", text_anchor="middle"
            )

    def _node(self, svg: ET.Element, node: Node, token: str | None, root: str) -> None:
        placed = self.layout.boxes.get(node.id)
        if placed is None:
            return
        parent = self._group(svg, node, token, None if node.href is None else root + node.href)
        x, y, w, h = placed.box
        _sub(parent, "rect", x=f"{x:g}", y=f"{y:g}", width=f"{w:g}", height=f"{h:g}", rx="6")
        last = len(node.lines) - 1
        for i, (line, point) in enumerate(zip(node.lines, placed.lines, strict=False)):
            cx, cy = _xy(point)
            text = _sub(parent, "text", line, x=cx, y=cy, text_anchor="middle")
            if i == last and last > 0:
                text.set("class", "kind")
