"""A lexer of SPARQL text, for what is not a safety decision: a query's form, and bindings.

``tokens`` reads the terminals of the SPARQL 1.1 grammar, enough to find the variables and
keywords of the package's own queries; ``query_form`` names a query's form and ``substitute``
writes bindings into a query for stores that take none. Whether a query may run is decided by
the guard (:mod:`atlas.query._sparql`), with a real parser, never with this lexer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

__all__ = ["QUERY_FORMS", "Token", "query_form", "substitute", "tokens"]

#: The forms of a SPARQL query, as its keyword is written in capitals.
QUERY_FORMS = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")


@dataclass(frozen=True)
class Token:
    """One token of a query: its kind, its text and where it starts."""

    kind: str  # iri, pname, string, var, bnode, lang, number, word, punct
    text: str
    start: int

    @property
    def end(self) -> int:
        """The offset just past the token."""
        return self.start + len(self.text)


# The terminals of the SPARQL 1.1 grammar (section 19.8), in the order they are tried: enough to
# find the variables and keywords of the package's own queries. No safety decision rests on them.
_PN_CHARS_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_PN_CHARS = _PN_CHARS_BASE + "_0-9\u00b7\u0300-\u036f\u203f-\u2040-"
_PLX = r"(?:%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%])"
_VARNAME = rf"[{_PN_CHARS_BASE}_0-9][{_PN_CHARS_BASE}_0-9\u00b7\u0300-\u036f\u203f-\u2040]*"
_PN_PREFIX = rf"[{_PN_CHARS_BASE}](?:[{_PN_CHARS}.]*[{_PN_CHARS}])?"
_PN_LOCAL = (
    rf"(?:[{_PN_CHARS_BASE}_:0-9]|{_PLX})"
    rf"(?:(?:[{_PN_CHARS}.:]|{_PLX})*(?:[{_PN_CHARS}:]|{_PLX}))?"
)


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    """The lexer's pattern, compiled on first use (its Unicode classes take a while)."""
    return re.compile(
        r"""
        (?P<space>\s+)
        |(?P<comment>\#[^\n\r]*)
        |(?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
        |(?P<string>'''(?:(?:'|'')?(?:[^'\\]|\\.))*'''
                  |\"\"\"(?:(?:"|"")?(?:[^"\\]|\\.))*\"\"\"
                  |'(?:[^'\\\n\r]|\\.)*'
                  |"(?:[^"\\\n\r]|\\.)*")
        |(?P<var>[?$](?:"""
        + _VARNAME
        + r"""))
        |(?P<bnode>_:[^\s.;,(){}\[\]<>"'#]+)
        |(?P<pname>(?:"""
        + _PN_PREFIX
        + r""")?:(?:"""
        + _PN_LOCAL
        + r""")?)
        |(?P<lang>@[A-Za-z]+(?:-[A-Za-z0-9]+)*)
        |(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
        |(?P<word>[A-Za-z_][A-Za-z0-9_]*)
        |(?P<punct>\^\^|<<|>>|\{\||\|\}|&&|\|\||!=|<=|>=|.)
        """,
        re.VERBOSE | re.DOTALL,
    )


def tokens(query: str) -> Iterator[Token]:
    r"""The tokens of a query, without spaces and comments.

    >>> [t.text for t in tokens('SELECT ?s # FROM <x>\n WHERE { ?s ?p "FROM" }')]
    ['SELECT', '?s', 'WHERE', '{', '?s', '?p', '"FROM"', '}']
    """
    for match in _token_pattern().finditer(query):
        kind = match.lastgroup or "punct"
        if kind not in ("space", "comment"):
            yield Token(kind, match.group(), match.start())


@functools.lru_cache(maxsize=256)
def query_form(query: str) -> str:
    """The form of a query: ``SELECT``, ``ASK``, ``CONSTRUCT`` or ``DESCRIBE`` ('' if none).

    >>> query_form("PREFIX ex: <http://example.org/select#> ask { ?s ?p ?o }")
    'ASK'
    """
    for token in tokens(query):
        if token.kind == "word" and token.text.upper() in QUERY_FORMS:
            return token.text.upper()
    return ""


@dataclass
class _Where:
    """Where a token stands, for :func:`substitute`.

    In a projection, in the conditions of ``ORDER BY``/``GROUP BY`` (and how deep in
    parentheses), or in an assignment.
    """

    in_projection: bool = False
    ordering: bool = False  # in the conditions of ORDER BY or GROUP BY
    depth: int = 0  # parentheses inside a projection or the conditions
    assigning: int = 0  # 1 after AS or VALUES; 2 inside a VALUES (?a ?b) header
    previous: str = ""

    def advance(self, token: Token) -> None:
        """Take the token into account before it is written."""
        upper = token.text.upper() if token.kind == "word" else ""
        if upper == "SELECT":
            self.in_projection, self.depth = True, 0
        elif self.in_projection and (token.text == "{" or upper in ("WHERE", "FROM")):
            self.in_projection = False
        elif upper == "BY" and self.previous in ("ORDER", "GROUP"):
            self.ordering, self.depth = True, 0
        elif self.ordering and (token.text in "{}" or upper in _AFTER_CONDITIONS):
            self.ordering = False
        if (self.in_projection or self.ordering) and token.text in "()":
            self.depth += 1 if token.text == "(" else -1
        self.previous = upper

    def written(self, term: str, token: Token) -> str:
        """How a variable's term is written where it stands."""
        if self.depth == 0 and self.in_projection:
            return f"({term} AS {token.text})"
        if self.depth == 0 and self.ordering:
            return f"({term})"
        return term

    def after(self, token: Token) -> None:
        """Take the token into account once it is written: assignments start and end."""
        upper = token.text.upper() if token.kind == "word" else ""
        if upper in ("AS", "VALUES"):
            self.assigning = 1
        elif self.assigning == 1 and token.text == "(":
            self.assigning = 2
        elif self.assigning == 1 or (self.assigning == 2 and token.text == ")"):  # noqa: PLR2004
            self.assigning = 0


_AFTER_CONDITIONS = frozenset({"LIMIT", "OFFSET", "HAVING", "VALUES"})


def substitute(query: str, terms: Mapping[str, str]) -> str:
    """Replace variables by RDF terms, for endpoints that take no bindings (SEP-0007 style).

    ``terms`` maps variable names to terms already written in N-Triples syntax (as pyoxigraph
    writes them, so they are valid and escaped). Each use of the variable becomes the term; in a
    projection, where a constant is not allowed, ``?v`` becomes ``(term AS ?v)``. A variable
    that is assigned (``AS ?v``, ``VALUES ?v``) cannot be substituted. A condition of ``ORDER
    BY`` or ``GROUP BY`` that is the variable alone becomes ``(term)``, an expression, since a
    bare constant is not a condition there.

    >>> substitute("SELECT ?a ?b WHERE { ?a <http://e/p> ?b }", {"a": "<http://e/x>"})
    'SELECT (<http://e/x> AS ?a) ?b WHERE { <http://e/x> <http://e/p> ?b }'
    >>> substitute("SELECT * { ?a ?p ?b } ORDER BY ?a DESC(?a) ?b", {"a": "<http://e/x>"})
    'SELECT * { <http://e/x> ?p ?b } ORDER BY (<http://e/x>) DESC(<http://e/x>) ?b'

    Raises:
        ValueError: when a substituted variable is assigned in the query.
    """
    out: list[str] = []
    position = 0
    where = _Where()
    for token in tokens(query):
        where.advance(token)
        if token.kind == "var" and token.text[1:] in terms:
            if where.assigning:
                raise ValueError(f"cannot substitute {token.text}: the query assigns it")
            out.extend((query[position : token.start], where.written(terms[token.text[1:]], token)))
            position = token.end
        where.after(token)
    out.append(query[position:])
    return "".join(out)
