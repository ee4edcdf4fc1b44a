"""The pages of a built site as a reader sees them once ``site.js`` has loaded every view.

An atlas's ``index.html`` keeps what only its other views show in ``views.js`` beside it, as
HTML by the key of a hidden, empty shell (``<div hidden data-deferred="<key>"></div>``) whose
place it takes. :func:`page_text` puts each part in the place of its shell, as ``site.js`` does,
so that tests of content read the whole interactive page; :func:`journey_items` reads the list
of steps of a view page.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

SHELL = re.compile(r'<(?P<tag>li|div|p) hidden data-deferred="(?P<key>[^"]+)"></(?P=tag)>')
PREFIX = "window.atlasDeferred = "
# an item of the list of steps: <li id="step-<id>">, hidden when its view is not shown
STEP_ITEM = r'<li id="step-([^"]+)"(?: hidden)?>'


def deferred_parts(script: Path) -> dict[str, str]:
    """The parts that a ``views.js`` hands to ``site.js``, by the key of their shell."""
    text = script.read_text(encoding="utf-8")
    head, found, body = text.partition(PREFIX)
    assert found, f"{script}: no {PREFIX!r}"
    assert head.startswith("/*"), script
    parts = json.loads(body.rstrip().removesuffix(";"))
    assert isinstance(parts, dict), script
    return parts


def page_text(page: Path) -> str:
    """The page's HTML with every shell replaced by its part (unchanged when it has none)."""
    html = page.read_text(encoding="utf-8")
    script = page.parent / "views.js"
    if "data-deferred=" not in html or not script.exists():
        return html
    parts = deferred_parts(script)
    return SHELL.sub(lambda match: parts[match["key"]], html)


def journey_items(html: str) -> dict[str, str]:
    """Step id -> the markup of its item in the list of steps of a view page, in order."""
    start = html.index('<ol class="journey"')
    journey = html[start : html.index("</ol>\n</div>", start)]
    return {
        m.group(1): m.group(2)
        for m in re.finditer(rf"{STEP_ITEM}(.*?)(?={STEP_ITEM}|\Z)", journey, re.DOTALL)
    }
