"""The parts of an interactive page that only other views show, kept out of its HTML.

An atlas's ``index.html`` opens on its default view; what only the other views show (their
steps, their paths drawn as a column, the explanations of where Python ends under the other
modes and on the other paths) is left out of it, each part in its place replaced by a hidden,
empty shell (``<div hidden data-deferred="<key>"></div>``; one ``<li>`` for all the steps of
the list). Their HTML goes to ``<atlas>/views.js``, which ``site.js`` loads when another view is
first chosen (or asked for in the URL), and which replaces each shell with its part. The page a
reader opens carries its own view only; the static page of each view
(``<atlas>/<combination>.html``) still holds everything it shows.
"""

from __future__ import annotations

import json
import re

__all__ = ["DEFERRED_FILE", "Deferred", "unindent"]

DEFERRED_FILE = "views.js"
_INDENT = re.compile(r"\n[ \t]+")


def unindent(html: str) -> str:
    r"""HTML without the templates' indentation, which is not content.

    >>> unindent("<ol>\n  <li>a</li>\n</ol>")
    '<ol>\n<li>a</li>\n</ol>'
    """
    return _INDENT.sub("\n", html)


class Deferred:
    """The HTML kept for later on one page, by the key of its shell.

    >>> kept = Deferred()
    >>> kept.keep("path-2", "<div>a</div>"), kept.add("steps", "<li>1</li>")
    ('', '')
    >>> kept.add("steps", "<li>2</li>"), kept.has("steps"), kept.parts["steps"]
    ('', True, '<li>1</li><li>2</li>')
    """

    def __init__(self) -> None:
        self.parts: dict[str, str] = {}

    def keep(self, key: str, html: str) -> str:
        """Keep ``html`` for the shell ``key``, which holds it alone; the page gets nothing."""
        if key in self.parts:
            msg = f"two deferred parts of one page are both called {key!r}"
            raise ValueError(msg)
        self.parts[key] = unindent(str(html))
        return ""

    def add(self, key: str, html: str) -> str:
        """Add ``html`` to the end of what the shell ``key`` gets; the page gets nothing."""
        self.parts[key] = self.parts.get(key, "") + unindent(str(html))
        return ""

    def has(self, key: str) -> bool:
        """Whether something is kept for the shell ``key``."""
        return key in self.parts

    def script(self) -> str:
        """The text of the script that hands the kept parts to ``site.js``."""
        body = json.dumps(self.parts, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return (
            "/* Execution Atlas: the parts of index.html that only its other views show"
            " (site.js puts each in the place of its shell). */\n"
            f"window.atlasDeferred = {body};\n"
        )
