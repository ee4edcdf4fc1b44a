"""The columns of ``SELECT *``: in the order the query first names its variables.

SPARQL 1.1 (section 18.2.1) projects ``SELECT *`` on the variables of the query in the order
they first appear in it; pyoxigraph gives them in another (sorted). :func:`in_query_order` puts
the columns of a result back in the query's order; every other projection is left as written.
"""

from __future__ import annotations

import re
from dataclasses import replace

from atlas.query._lexer import tokens
from atlas.query._results import Solutions  # noqa: TC001 - the doctest builds one

__all__ = ["in_query_order"]

# What may be SELECT * (spaces and comments between): only then is the query read by the lexer,
# whose pattern takes a while to compile; the lexer decides (the text may be in a string).
_MAYBE_STAR = re.compile(
    r"(?i)\bselect(?:\s|#[^\n]*\n)*(?:(?:distinct|reduced)(?:\s|#[^\n]*\n)*)?\*"
)


def _star_positions(query: str) -> dict[str, int] | None:
    """Where ``SELECT *`` first names each variable; None for any other projection or form."""
    found: dict[str, int] | None = None
    after_select = False
    for token in tokens(query):
        word = token.text.upper() if token.kind == "word" else ""
        if found is not None:
            if token.kind == "var":
                found.setdefault(token.text[1:], token.start)
        elif after_select and word in ("DISTINCT", "REDUCED"):
            continue
        elif after_select:
            if token.text != "*":
                return None
            found = {}
        elif word == "SELECT":
            after_select = True
        elif word in ("ASK", "CONSTRUCT", "DESCRIBE"):
            return None
    return found


def in_query_order(query: str, result: Solutions) -> Solutions:
    """``result`` of ``query``, its columns for ``SELECT *`` in the order the query names them.

    >>> found = Solutions(("a", "z"), ((None, None),))
    >>> in_query_order("SELECT * WHERE { ?z ?p ?a }", found).variables
    ('z', 'a')
    >>> in_query_order("SELECT ?a ?z WHERE { ?z ?p ?a }", found).variables
    ('a', 'z')
    """
    if len(result.variables) < 2 or not _MAYBE_STAR.search(query):  # noqa: PLR2004
        return result
    positions = _star_positions(query)
    if positions is None:
        return result
    last = len(query)
    order = sorted(
        range(len(result.variables)),
        key=lambda i: (positions.get(result.variables[i], last), i),
    )
    if order == sorted(order):
        return result
    return replace(
        result,
        variables=tuple(result.variables[i] for i in order),
        rows=tuple(tuple(row[i] for i in order) for row in result.rows),
    )
