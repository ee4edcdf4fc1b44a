"""The drawing of one path for a narrow screen: its stages in one column, laid out here.

On a phone the drawing of a whole atlas is too wide to read. :func:`column` draws the stages of
one path in journey order, one under the other and each the full width, so that nothing is
scaled down: an arrow between two stages that follow each other runs straight down, with the
step's number and its label beside it; any other arrow runs down (or up) a lane at the right,
with its number on the lane. The layout is a few lines of arithmetic: no Graphviz needed.
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field

from atlas.publish.site._graph import SVG_NS, markup
from atlas.publish.site._layout import PYTHON_ZONE

__all__ = ["Arrow", "Box", "column"]

WIDTH = 320  # fits a 390 px phone at its natural size: text stays at its size
NAME_PX, SMALL_PX = 14, 12  # the font sizes of a stage's name, and of every other text
LINE = 17  # the line height of a stage's name (its kind and labels: 15)
CHAR = 0.58  # the width of an average character, in ems
ARROW_X = 24  # where arrows between stages that follow each other run down
BADGE_R = 10.5
LANE = 24  # between two lanes
ZONE_PAD = 5  # between the dashed box of the stages Python runs and the stages


@dataclass(frozen=True)
class Box:
    """A stage as the column shows it."""

    id: str
    name: str
    kind: str
    classes: tuple[str, ...]
    tooltip: str
    href: str
    python: bool = False


@dataclass(frozen=True)
class Arrow:
    """A step of the path as the column shows it."""

    id: str
    tail: str
    head: str
    number: int
    label: str
    tooltip: str
    href: str


@dataclass
class _Plan:
    """Where things go: the top of each box, its height, and the lane of each side arrow."""

    width: float
    inset: float
    tops: list[float] = field(default_factory=list)
    heights: list[float] = field(default_factory=list)
    lanes: dict[str, int] = field(default_factory=dict)
    zones: list[tuple[float, float]] = field(default_factory=list)
    height: float = 0.0


def _lines(text: str, width: float, px: int) -> list[str]:
    return textwrap.wrap(text, max(8, int(width / (px * CHAR))), break_on_hyphens=False) or [text]


def _lanes(arrows: Sequence[Arrow], pos: dict[str, int]) -> tuple[dict[str, int], set[str]]:
    """The side arrows' lanes (overlapping spans never share one), and the straight arrows."""
    straight: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    side = []
    for arrow in arrows:
        if pos[arrow.head] == pos[arrow.tail] + 1 and (arrow.tail, arrow.head) not in pairs:
            pairs.add((arrow.tail, arrow.head))
            straight.add(arrow.id)
        else:
            low, high = sorted((pos[arrow.tail], pos[arrow.head]))
            side.append((low, high, arrow.id))
    ends: list[int] = []  # the last span's end in each lane
    lanes = {}
    for low, high, arrow_id in sorted(side):
        lane = next((i for i, end in enumerate(ends) if end < low), len(ends))
        if lane == len(ends):
            ends.append(high)
        ends[lane] = high
        lanes[arrow_id] = lane
    return lanes, straight


def column(boxes: Sequence[Box], arrows: Sequence[Arrow], *, label: str) -> str:
    """The SVG of a path drawn as one column; ``label`` names it for assistive technology."""
    pos = {box.id: i for i, box in enumerate(boxes)}
    arrows = [a for a in arrows if a.tail in pos and a.head in pos]
    lanes, straight = _lanes(arrows, pos)
    count = max(lanes.values(), default=-1) + 1
    width = WIDTH - (count * LANE + 4 if count else 0)
    inset = ZONE_PAD + 1 if any(b.python for b in boxes) else 1
    svg = ET.Element(
        "svg", {"xmlns": SVG_NS, "class": "path-drawing", "role": "group", "aria-label": label}
    )
    below = {a.tail: a for a in arrows if a.id in straight}
    y = 1.0
    plan = _Plan(width, inset)
    zone_top: float | None = None
    for i, box in enumerate(boxes):
        if box.python and zone_top is None:
            zone_top, y = y, y + SMALL_PX + 6
        names = _lines(box.name, width - 2 * inset - 16, NAME_PX)
        plan.tops.append(y)
        plan.heights.append(8 + LINE * len(names) + 15 + 6)
        y += plan.heights[-1]
        last_python = box.python and (i + 1 == len(boxes) or not boxes[i + 1].python)
        if zone_top is not None and last_python:
            plan.zones.append((zone_top, y + ZONE_PAD))
            zone_top = None
            y += ZONE_PAD
        arrow = below.get(box.id)
        if arrow is not None:
            text = _lines(arrow.label, width - ARROW_X - BADGE_R - 12, SMALL_PX)
            y += max(2 * BADGE_R + 14, 15 * len(text) + 10)
        elif i + 1 < len(boxes):
            y += 14
    plan.height = y + 1
    plan.lanes = lanes
    _draw(svg, boxes, arrows, straight, plan)
    svg.set("viewBox", f"0 0 {WIDTH} {plan.height:g}")
    svg.set("width", str(WIDTH))
    return markup(svg)


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: object) -> ET.Element:
    names = {
        k.rstrip("_").replace("_", "-"): f"{v:g}" if isinstance(v, float) else str(v)
        for k, v in attrs.items()
    }
    element = ET.SubElement(parent, tag, names)
    element.text = text
    return element


def _link(parent: ET.Element, item: Box | Arrow, classes: str) -> ET.Element:
    """A stage's or step's element, and its link (which names the stage or step it leads to).

    A box is named by its text, an arrow (whose text may be its number alone) by its tooltip;
    no hover tooltips: every text is shown whole.
    """
    group = _el(parent, "g", class_=classes)
    if isinstance(item, Arrow):
        return _el(group, "a", href=item.href, aria_label=item.tooltip)
    return _el(group, "a", href=item.href)


def _draw(
    svg: ET.Element,
    boxes: Sequence[Box],
    arrows: Sequence[Arrow],
    straight: set[str],
    plan: _Plan,
) -> None:
    pos = {box.id: i for i, box in enumerate(boxes)}
    for top, bottom in plan.zones:
        zone = _el(svg, "g", class_="python-zone")
        _el(zone, "rect", x=1, y=top, width=plan.width - 2, height=bottom - top, rx=8)
        _el(zone, "text", PYTHON_ZONE, x=plan.inset + 2, y=top + SMALL_PX + 1)
    attached: dict[str, int] = {}
    for arrow in arrows:
        tail, head = pos[arrow.tail], pos[arrow.head]
        link = _link(svg, arrow, "step")
        if arrow.id in straight:
            _straight(link, arrow, plan, tail)
        else:
            _side(link, arrow, plan, (tail, head), attached)
    for box, top, height in zip(boxes, plan.tops, plan.heights, strict=True):
        link = _link(svg, box, " ".join(box.classes))
        x, w = plan.inset, plan.width - 2 * plan.inset
        _el(link, "rect", x=x, y=top, width=w, height=height, rx=6)
        names = _lines(box.name, w - 16, NAME_PX)
        for i, line in enumerate(names):  # its name, then its kind (smaller: site.css)
            _el(link, "text", line, x=x + 10, y=top + 8 + 13 + LINE * i)
        _el(link, "text", box.kind, x=x + 10, y=top + 8 + LINE * len(names) + 13)


def _badge(parent: ET.Element, x: float, y: float, number: int) -> None:
    badge = _el(parent, "g", class_="num")
    _el(badge, "circle", cx=x, cy=y, r=BADGE_R)
    _el(badge, "text", str(number), x=x, y=y + 4.2)  # centred on x (site.css)


def _straight(link: ET.Element, arrow: Arrow, plan: _Plan, tail: int) -> None:
    x = plan.inset + ARROW_X
    start = plan.tops[tail] + plan.heights[tail]
    end = plan.tops[tail + 1]
    _el(link, "path", d=f"M{x:g} {start:g}V{end - 6:g}")
    _el(link, "polygon", points=f"{x - 4:g} {end - 7:g} {x + 4:g} {end - 7:g} {x:g} {end:g}")
    text = _lines(arrow.label, plan.width - ARROW_X - BADGE_R - 12, SMALL_PX)
    middle = (start + end) / 2
    _badge(link, x, middle, arrow.number)
    first = middle + 4.2 - 7.5 * (len(text) - 1)
    for i, line in enumerate(text):
        _el(link, "text", line, x=x + BADGE_R + 5, y=first + 15 * i)  # the label (site.css)


def _side(
    link: ET.Element, arrow: Arrow, plan: _Plan, ends: tuple[int, int], attached: dict[str, int]
) -> None:
    """An arrow along a lane: out of its tail's right side, and into its head's."""
    edge = plan.width - plan.inset
    lane_x = plan.width + 2 + LANE * plan.lanes[arrow.id] + LANE / 2
    tail, head = ends
    out_n = attached.get(f"out-{tail}", 0)
    in_n = attached.get(f"in-{head}", 0)
    attached[f"out-{tail}"], attached[f"in-{head}"] = out_n + 1, in_n + 1
    start = plan.tops[tail] + plan.heights[tail] / 2 + 5 + 6 * out_n
    end = plan.tops[head] + plan.heights[head] / 2 - 5 - 6 * in_n
    _el(link, "path", d=f"M{edge:g} {start:g}H{lane_x:g}V{end:g}H{edge + 7:g}")
    _el(
        link,
        "polygon",
        points=f"{edge + 7:g} {end - 4:g} {edge + 7:g} {end + 4:g} {edge:g} {end:g}",
    )
    _badge(link, lane_x, (start + end) / 2, arrow.number)
