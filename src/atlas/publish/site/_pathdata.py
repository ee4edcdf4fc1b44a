"""SVG path data written shorter, drawing the same curve: relative commands, straight lines.

Graphviz ``dot`` writes an arrow's curve as absolute cubic Béziers (``M x y C x1 y1 x2 y2 x y
...``), straight stretches included. :func:`compact` writes the same points relative to the
pen (``c``), a straight vertical or horizontal stretch as ``v`` or ``h``, and each number in its
shortest form. The arithmetic is decimal, so nothing is rounded: the curve is the same.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

__all__ = ["compact"]

_HEAD = 4  # 'M', x, y, 'C': then the curves, six numbers each
_TOKEN = re.compile(r"[A-Za-z]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _number(value: Decimal) -> str:
    """The shortest text of a number: '12', '-3.5', '.5', '-.25'."""
    text = format(value.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in {"-0", ""}:
        return "0"
    return re.sub(r"^(-?)0\.", r"\1.", text)


def _joined(numbers: list[str]) -> str:
    """Numbers one after the other, separated only where the next does not end the last."""
    parts: list[str] = []
    for i, text in enumerate(numbers):
        # a '-' always starts a number; a '.' does when the last number already holds one
        if i and not (text.startswith("-") or (text.startswith(".") and "." in numbers[i - 1])):
            parts.append(" ")
        parts.append(text)
    return "".join(parts)


def _between(value: Decimal, a: Decimal, b: Decimal) -> bool:
    return min(a, b) <= value <= max(a, b)


def compact(path: str) -> str:
    """The path data ``path`` (``M`` then ``C`` segments, as ``dot`` writes it), shorter.

    Anything else is returned as it is.

    >>> compact("M547 77.2C547 87.5 547 100.5 547 111.8")
    'M547 77.2v34.6'
    >>> compact("M619 148.6C642.8 153.5 669 160.4 692 170 798.1 214.4 836.5 221.7 909 311")
    'M619 148.6c23.8 4.9 50 11.8 73 21.4 106.1 44.4 144.5 51.7 217 141'
    >>> compact("M1 1L2 2")
    'M1 1L2 2'
    """
    tokens = _TOKEN.findall(path)
    if len(tokens) < _HEAD or tokens[0] != "M" or tokens[3] != "C" or (len(tokens) - _HEAD) % 6:
        return path
    try:
        x, y = Decimal(tokens[1]), Decimal(tokens[2])
        numbers = [Decimal(t) for t in tokens[_HEAD:]]
    except InvalidOperation:
        return path
    out = [f"M{_joined([_number(x), _number(y)])}"]
    curves: list[str] = []  # relative cubic segments not yet written
    for i in range(0, len(numbers), 6):
        x1, y1, x2, y2, x3, y3 = numbers[i : i + 6]
        straight = None
        if x1 == x2 == x3 == x and _between(y1, y, y3) and _between(y2, y, y3):
            straight = f"v{_number(y3 - y)}"
        elif y1 == y2 == y3 == y and _between(x1, x, x3) and _between(x2, x, x3):
            straight = f"h{_number(x3 - x)}"
        if straight is None:
            curves += [_number(v) for v in (x1 - x, y1 - y, x2 - x, y2 - y, x3 - x, y3 - y)]
        else:
            if curves:
                out.append("c" + _joined(curves))
                curves = []
            out.append(straight)
        x, y = x3, y3
    if curves:
        out.append("c" + _joined(curves))
    return "".join(out)
