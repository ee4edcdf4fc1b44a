"""The parts of an interactive page that only other views show, kept out of its HTML.

An atlas's ``index.html`` opens on its default view; the steps and path drawings that only the
other views show are left in it as empty shells (``data-deferred="<key>"``, hidden), and their
HTML goes to ``<atlas>/views.js``, which ``site.js`` loads when another view is first chosen
(or asked for in the URL). The page a reader opens carries its own view only; the static page of
each view (``<atlas>/<combination>.html``) still holds everything it shows.
"""

from __future__ import annotations

import json

__all__ = ["DEFERRED_FILE", "Deferred"]

DEFERRED_FILE = "views.js"


class Deferred:
    """The HTML kept for later on one page, by the key of its shell."""

    def __init__(self) -> None:
        self.parts: dict[str, str] = {}

    def keep(self, key: str, html: str) -> str:
        """Keep ``html`` for the shell ``key``; the page gets nothing in its place."""
        if key in self.parts:
            msg = f"two deferred parts of one page are both called {key!r}"
            raise ValueError(msg)
        self.parts[key] = str(html)
        return ""

    def script(self) -> str:
        """The text of the script that hands the kept parts to ``site.js``."""
        body = json.dumps(self.parts, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return (
            "/* Execution Atlas: the parts of index.html that only its other views show"
            " (site.js puts them in their shells). */\n"
            f"window.atlasDeferred = {body};\n"
        )
