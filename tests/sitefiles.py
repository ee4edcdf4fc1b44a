"""The pages of a built site as a reader sees them once ``site.js`` has loaded every view.

An atlas's ``index.html`` keeps what only its other views show in ``views.js`` beside it, as
HTML by the key of an empty shell (``data-deferred="<key>"``). :func:`page_text` puts each part
in its shell, as ``site.js`` does, so that tests of content read the whole interactive page.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

SHELL = re.compile(
    r'(?P<open><(?P<tag>li|div)\b[^>]*?) data-deferred="(?P<key>[^"]+)"(?P<rest>[^>]*)></(?P=tag)>'
)
PREFIX = "window.atlasDeferred = "


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
    """The page's HTML with every shell filled (the page unchanged when it has none)."""
    html = page.read_text(encoding="utf-8")
    script = page.parent / "views.js"
    if "data-deferred=" not in html or not script.exists():
        return html
    parts = deferred_parts(script)

    def filled(match: re.Match[str]) -> str:
        tag = match["tag"]
        return f"{match['open']}{match['rest']}>{parts[match['key']]}</{tag}>"

    return SHELL.sub(filled, html)
