"""The drawing of an atlas as inline SVG: boxes and arrows placed by a shipped layout.

:class:`Drawing` joins what is drawn (:class:`Node` and :class:`Edge`: texts, classes, links and
tooltips) with where (:class:`~atlas.publish.site._layout.Layout`) and writes SVG that pages
inline: classes on every stage and step (so that CSS highlights one path), each box a link to
its stage's card and each arrow to its step (named by its ``<title>``, which is also its
tooltip; the link names the stage or step, ``#stage-<id>`` or ``#step-<id>``, and the page
script finds them by it), each arrow of the selected path numbered like the steps, a title and
a description, no fixed size. What is the same for every box or arrow (how its texts are
anchored, its colours) is in ``site.css``.
"""

from __future__ import annotations

import functools
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.publish.site._layout import PYTHON_ZONE, Layout, Point, Shape, Wire
from atlas.publish.site._pathdata import compact

if TYPE_CHECKING:
    from atlas.publish.site._views import View

__all__ = ["Drawing", "Edge", "Node", "PathDrawing", "markup", "relative", "wrap"]

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
    href: str | None = None  # relative to the site's root

    @property
    def wire(self) -> Wire:
        """What its layout depends on."""
        return Wire(self.id, self.tail, self.head, wrap(self.label, LABEL_WIDTH))


def markup(element: ET.Element) -> str:
    """The SVG text of ``element``, empty elements closed without a space (``<rect .../>``)."""
    # ElementTree writes ' />'; a text or an attribute value never holds it ('>' is escaped)
    return ET.tostring(element, encoding="unicode").replace(" />", "/>")


def relative(href: str, root: str, here: str) -> str:
    """A link of the site (relative to its root) as written on a page in the folder ``here``.

    ``root`` leads from the page to the site's root; a link into ``here`` needs neither.

    >>> relative("pytorch/steps.html#step-a", "../", "pytorch/")
    'steps.html#step-a'
    >>> relative("llamacpp/stages.html#stage-cpu", "../", "pytorch/")
    '../llamacpp/stages.html#stage-cpu'
    """
    if here and href.startswith(here):
        return href[len(here) :]
    return root + href


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
    steps_page: str | None = None  # where an arrow off the path leads (relative to the root)

    @property
    def size(self) -> tuple[float, float]:
        """The natural width and height of the drawing, in CSS pixels."""
        return self.layout.size

    @functools.cached_property
    def _curves(self) -> dict[str, str]:
        """Each arrow's path data, written shorter once for every page that draws it."""
        return {arrow_id: compact(placed.path) for arrow_id, placed in self.layout.arrows.items()}

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
        here: str = "",
        interactive: bool = True,
    ) -> str:
        """The SVG markup: the elements of ``view`` marked ``is-on``, its steps numbered.

        Links are made relative to the page, which ``root`` leads from to the site's root
        (such as ``"../"``) and which is in the folder ``here`` (such as ``"pytorch/"``). On an
        ``interactive`` page (one that runs the page script) every arrow has a number, which
        the script fills for the chosen view, and the drawing names the page of every step
        (``data-steps``) for the arrows that leave the path; on a page without the script only
        the arrows of ``view`` have one.
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
        if view is not None and interactive and self.steps_page is not None:
            svg.set("data-steps", relative(self.steps_page, root, here))
        _sub(svg, "title", label, id=f"{prefix}-title")
        _sub(svg, "desc", description, id=f"{prefix}-desc")
        self._zone(svg)
        on = {s.id for s in view.path.stages} | {j.id for j in view.path.steps} if view else set()
        numbers = {j.id: j.number for j in view.path.steps} if view else {}
        draw = _Pen(on, numbers, root, here, badges=interactive)
        # each box, then the arrows out of it: the order of the keyboard and of screen readers
        outgoing: dict[str, list[Edge]] = {}
        for edge in self.edges:
            outgoing.setdefault(edge.tail, []).append(edge)
        for node in self.nodes:
            self._node(svg, node, draw)
            for edge in outgoing.pop(node.id, []):
                self._edge(svg, edge, draw)
        for edge in (e for edges in outgoing.values() for e in edges):
            self._edge(svg, edge, draw)
        return markup(svg)

    def _zone(self, svg: ET.Element) -> None:
        zone = self.layout.zone
        if zone is None:
            return
        group = _sub(svg, "g", class_="python-zone")
        _sub(group, "title", "The stages inside the dashed box run in the Python interpreter")
        x, y, w, h = zone.box
        _sub(group, "rect", x=f"{x:g}", y=f"{y:g}", width=f"{w:g}", height=f"{h:g}", rx="8")
        for point in zone.lines[:1]:
            cx, cy = _xy(point)
            _sub(group, "text", PYTHON_ZONE, x=cx, y=cy)

    def _edge(self, svg: ET.Element, edge: Edge, draw: _Pen) -> None:
        placed = self.layout.arrows.get(edge.id)
        if placed is None:
            return
        number = draw.numbers.get(edge.id)
        # an arrow of the path leads to its step in the page's list (the page script keeps
        # that true when another path is chosen), any other to its step's own page
        href = draw.link(edge.href)
        parent = _group(svg, edge, f"#step-{edge.id}" if number else href, on=edge.id in draw.on)
        _sub(parent, "path", d=self._curves[edge.id])
        _sub(parent, "polygon", points=" ".join(" ".join(_xy(p)) for p in placed.head))
        shift = TEXT_GAP if self.numbered else 0.0
        for line, point in zip(edge.wire.lines, placed.lines, strict=False):
            _sub(parent, "text", line, x=f"{point[0] + shift:g}", y=f"{point[1]:g}")
        if self.numbered and placed.lines and (number or draw.badges):
            x, y = placed.lines[0]
            badge = _sub(parent, "g", class_="num")
            _sub(badge, "circle", cx=f"{x:g}", cy=f"{y - 3.6:g}", r=f"{BADGE_R:g}")
            _sub(badge, "text", str(number or ""), x=f"{x:g}", y=f"{y + 0.3:g}")

    def _node(self, svg: ET.Element, node: Node, draw: _Pen) -> None:
        placed = self.layout.boxes.get(node.id)
        if placed is None:
            return
        parent = _group(svg, node, draw.link(node.href), on=node.id in draw.on)
        x, y, w, h = placed.box
        _sub(parent, "rect", x=f"{x:g}", y=f"{y:g}", width=f"{w:g}", height=f"{h:g}", rx="6")
        for line, point in zip(node.lines, placed.lines, strict=False):
            cx, cy = _xy(point)
            _sub(parent, "text", line, x=cx, y=cy)  # the last line, its kind: smaller (CSS)


@dataclass(frozen=True)
class _Pen:
    """How one page draws: what is on its view, the numbers, its links, whether all badges."""

    on: set[str]
    numbers: dict[str, int]
    root: str
    here: str
    badges: bool  # a number badge on every arrow (for the page script), or on the path's only

    def link(self, href: str | None) -> str | None:
        return None if href is None else relative(href, self.root, self.here)


def _group(svg: ET.Element, item: Node | Edge, href: str | None, *, on: bool) -> ET.Element:
    """The element of a stage or step (``is-on`` when on the view), and its link."""
    classes = " ".join((*item.classes, "is-on") if on else item.classes)
    group = _sub(svg, "g", class_=classes)
    if href is None:
        _sub(group, "title", item.tooltip)
        return group
    link = _sub(group, "a", href=href)
    _sub(link, "title", item.tooltip)  # the link's name, for screen readers too
    return link
