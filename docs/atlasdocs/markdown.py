r"""Markdown written safely: text escaped for paragraphs and table cells, code spans, tables.

>>> print(table(["a", "b"], [[escape("x|y"), code("z")]]))
| a | b |
|---|---|
| x\|y | `z` |
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

__all__ = ["code", "escape", "shorten", "slug", "table"]

_SPECIAL = re.compile(r"([\\`*_\[\]|])")


def escape(value: object) -> str:
    r"""Text that Markdown shows as it is, on one line (HTML, emphasis and links disarmed).

    >>> escape("a <b> *c* [d]")
    'a &lt;b&gt; \\*c\\* \\[d\\]'
    """
    text = " ".join(str(value).split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", text)


def code(value: object) -> str:
    """An inline code span holding ``value`` as it is, whatever backticks it holds.

    >>> code("a`b")
    '`` a`b ``'
    """
    text = " ".join(str(value).split()).replace("|", "\\|")
    if "`" not in text:
        return f"`{text}`"
    fence = "`" * (max(len(run) for run in re.findall(r"`+", text)) + 1)
    return f"{fence} {text} {fence}"


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, an ellipsis marking a cut.

    >>> shorten("abcdef", 4)
    'abc…'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def slug(heading: str) -> str:
    """The anchor of a heading, as MkDocs makes it (``toc``'s default ``slugify``).

    >>> slug("The curator's loop")
    'the-curators-loop'
    """
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table; cells are Markdown already (escape text with :func:`escape`)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
