"""The drawing of one mode's path, with what the run showed marked on each step: an SVG column.

The stages stand one under the other, each the full width, at their natural size (320 px wide:
on a phone no text is scaled below 12 px). An arrow between two stages that follow each other
runs straight down, with the step's number, its verb and its mark (✓ observed, ✗ not observed,
? not checked) beside it; any other arrow runs along a lane at the right, its number on the lane
and its mark under the number. Each status has its colour and its line pattern (solid, dashed,
dotted), so that colour is never the only cue; the report's stylesheet holds the colours. The
layout is a few lines of arithmetic in the manner of the site's column drawing, which this
layer may not import (``atlas.publish`` is above ``atlas._witness``).
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from atlas._witness._report_path import PathView, Row, Stop

__all__ = ["SVG_NS", "WIDTH", "drawing", "status_line"]

SVG_NS = "http://www.w3.org/2000/svg"
WIDTH = 320  # fits a 390 px phone at its natural size
NAME_PX, SMALL_PX = 14, 12  # a stage's name, and every other text
LINE, SMALL_LINE = 17, 15  # their line heights
CHAR = 0.6  # the width of an average character, in ems (generous: names are bold)
LABEL_CHAR = 0.56  # of a step's verb, in regular type
ARROW_X = 24  # where straight arrows run down
BADGE_R = 11
LANE = 26  # the width of a lane at the right
PAD = 8  # inside a stage's box

_WORDS = {
    "observed": "observed",
    "not-observed": "not observed",
    "not-checked": "not checked",
    "undocumented": "observed, not documented",
}


def status_line(row: Row) -> str:
    """The mark and status of a step as the drawing and the legend say them."""
    return f"{row.mark} {_WORDS[row.css]}"


@dataclass
class _Plan:
    """Where things go: the width of the boxes, the top and height of each, each side lane."""

    width: float
    tops: list[float] = field(default_factory=list)
    heights: list[float] = field(default_factory=list)
    lanes: dict[int, int] = field(default_factory=dict)


def _lines(text: str, width: float, px: int) -> list[str]:
    return textwrap.wrap(text, max(8, int(width / (px * CHAR))), break_on_hyphens=False) or [text]


def _kind(stop: Stop) -> str:
    extra = " · runs as Python" if stop.python else ""
    return stop.kind + extra + (" · off the path" if stop.off_path else "")


def _label(row: Row, width: float) -> list[str]:
    wrap = max(8, int(width / (SMALL_PX * LABEL_CHAR)))
    verb = textwrap.wrap(row.verb, wrap, break_on_hyphens=False) if row.verb else []
    return [*verb, status_line(row)]


def _lanes(rows: Sequence[Row], pos: dict[str, int]) -> tuple[dict[int, int], set[int]]:
    """The side arrows' lanes (overlapping spans never share one), and the straight arrows."""
    straight: set[int] = set()
    pairs: set[tuple[str, str]] = set()
    side = []
    for row in rows:
        pair = (row.from_stage, row.to_stage)
        if pos[row.to_stage] == pos[row.from_stage] + 1 and pair not in pairs:
            pairs.add(pair)
            straight.add(row.number)
        else:
            low, high = sorted((pos[row.from_stage], pos[row.to_stage]))
            side.append((low, high, row.number))
    ends: list[int] = []  # the last span's end in each lane
    lanes = {}
    for low, high, number in sorted(side):
        lane = next((i for i, end in enumerate(ends) if end < low), len(ends))
        if lane == len(ends):
            ends.append(high)
        ends[lane] = high
        lanes[number] = lane
    return lanes, straight


def drawing(view: PathView, *, label: str) -> str:
    """The SVG of ``view``'s stages and drawn steps; ``label`` names it for assistive technology."""
    pos = {stop.id: i for i, stop in enumerate(view.stops)}
    rows = [r for r in view.rows if r.drawn and r.from_stage in pos and r.to_stage in pos]
    lanes, straight = _lanes(rows, pos)
    count = max(lanes.values(), default=-1) + 1
    plan = _Plan(WIDTH - (count * LANE + 4 if count else 0) - 2, lanes=lanes)
    below = {r.from_stage: r for r in rows if r.number in straight}
    y = 1.0
    for i, stop in enumerate(view.stops):
        names = _lines(stop.name, plan.width - 2 * PAD, NAME_PX)
        kinds = _lines(_kind(stop), plan.width - 2 * PAD, SMALL_PX)
        plan.tops.append(y)
        plan.heights.append(2 * PAD + LINE * len(names) + SMALL_LINE * len(kinds))
        y += plan.heights[-1]
        row = below.get(stop.id)
        if row is not None:
            text = _label(row, _label_width(plan))
            y += max(2 * BADGE_R + 16, SMALL_LINE * len(text) + 14)
        elif i + 1 < len(view.stops):
            y += 16
    height = y + 1
    svg = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "class": "path-drawing",
            "role": "img",
            "aria-label": label,
            "viewBox": f"0 0 {WIDTH} {height:g}",
            "width": str(WIDTH),
        },
    )
    for row in rows:
        leg = _el(svg, "g", class_=f"leg {row.css}", data_step=row.step)
        _el(leg, "title", f"{row.number}. {row.label}: {_WORDS[row.css]}")
        if row.number in straight:
            _straight(leg, row, plan, pos[row.from_stage])
        else:
            _side(leg, row, plan, (pos[row.from_stage], pos[row.to_stage]))
    for stop, top, box_height in zip(view.stops, plan.tops, plan.heights, strict=True):
        _box(svg, stop, top, box_height, plan.width)
    return ET.tostring(svg, encoding="unicode")


def _label_width(plan: _Plan) -> float:
    return plan.width - ARROW_X - BADGE_R - 6


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: object) -> ET.Element:
    names = {
        k.rstrip("_").replace("_", "-"): f"{v:g}" if isinstance(v, float) else str(v)
        for k, v in attrs.items()
    }
    element = ET.SubElement(parent, tag, names)
    element.text = text
    return element


def _box(svg: ET.Element, stop: Stop, top: float, height: float, width: float) -> None:
    classes = " ".join(
        ["stop", *(["seen"] if stop.seen else []), *(["off"] if stop.off_path else [])]
    )
    group = _el(svg, "g", class_=classes, data_stage=stop.id)
    _el(group, "rect", x=1.0, y=top, width=width, height=height, rx=6)
    names = _lines(stop.name, width - 2 * PAD, NAME_PX)
    for i, line in enumerate(names):
        _el(group, "text", line, x=1.0 + PAD + 2, y=top + PAD + 13 + LINE * i, class_="name")
    first = top + PAD + LINE * len(names) + 11
    for i, line in enumerate(_lines(_kind(stop), width - 2 * PAD, SMALL_PX)):
        _el(group, "text", line, x=1.0 + PAD + 2, y=first + SMALL_LINE * i, class_="kind")


def _badge(parent: ET.Element, x: float, y: float, number: int) -> None:
    badge = _el(parent, "g", class_="num")
    _el(badge, "circle", cx=x, cy=y, r=BADGE_R)
    _el(badge, "text", str(number), x=x, y=y + 4.2, text_anchor="middle")


def _straight(leg: ET.Element, row: Row, plan: _Plan, tail: int) -> None:
    x = 1.0 + ARROW_X
    start = plan.tops[tail] + plan.heights[tail]
    end = plan.tops[tail + 1]
    _el(leg, "path", d=f"M{x:g} {start:g}V{end - 6:g}")
    _el(leg, "polygon", points=f"{x - 4.5:g} {end - 7:g} {x + 4.5:g} {end - 7:g} {x:g} {end:g}")
    middle = (start + end) / 2
    _badge(leg, x, middle, row.number)
    text = _label(row, _label_width(plan))
    first = middle + 4.2 - SMALL_LINE / 2 * (len(text) - 1)
    for i, line in enumerate(text):
        kind = "status" if i == len(text) - 1 else "label"
        _el(leg, "text", line, x=x + BADGE_R + 6, y=first + SMALL_LINE * i, class_=kind)


def _side(leg: ET.Element, row: Row, plan: _Plan, ends: tuple[int, int]) -> None:
    """An arrow along a lane: out of its tail's right side, and into its head's."""
    edge = 1.0 + plan.width
    lane_x = edge + 4 + LANE * plan.lanes[row.number] + LANE / 2
    tail, head = ends
    lane = plan.lanes[row.number]
    start = plan.tops[tail] + plan.heights[tail] / 2 + 4 + 5 * (lane % 3)
    end = plan.tops[head] + plan.heights[head] / 2 - 4 - 5 * (lane % 3)
    _el(leg, "path", d=f"M{edge:g} {start:g}H{lane_x:g}V{end:g}H{edge + 7:g}")
    _el(
        leg,
        "polygon",
        points=f"{edge + 7:g} {end - 4.5:g} {edge + 7:g} {end + 4.5:g} {edge:g} {end:g}",
    )
    middle = (start + end) / 2
    _badge(leg, lane_x, middle, row.number)
    if abs(end - start) > 2 * BADGE_R + 40:  # room for the mark under the number
        mark_y = middle + BADGE_R + 14
        _el(leg, "text", row.mark, x=lane_x - 8, y=mark_y, text_anchor="middle", class_="status")
