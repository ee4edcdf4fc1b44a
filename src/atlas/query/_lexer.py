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
    in_projection = False
    depth = 0  # parentheses inside a projection
    assigning = 0  # 1 after AS or VALUES; 2 inside a VALUES (?a ?b) header
    ordering = False  # in the conditions of ORDER BY or GROUP BY
    previous = ""
    for token in tokens(query):
        upper = token.text.upper() if token.kind == "word" else ""
        if upper == "SELECT":
            in_projection, depth = True, 0
        elif in_projection and (token.text == "{" or upper in ("WHERE", "FROM")):
            in_projection = False
        elif upper == "BY" and previous in ("ORDER", "GROUP"):
            ordering, depth = True, 0
        elif ordering and (token.text in "{}" or upper in ("LIMIT", "OFFSET", "HAVING", "VALUES")):
            ordering = False
        if (in_projection or ordering) and token.text in "()":
            depth += 1 if token.text == "(" else -1
        previous = upper
        if token.kind == "var" and token.text[1:] in terms:
            if assigning:
                raise ValueError(f"cannot substitute {token.text}: the query assigns it")
            term = terms[token.text[1:]]
            replacement = term
            if depth == 0 and in_projection:
                replacement = f"({term} AS {token.text})"
            elif depth == 0 and ordering:
                replacement = f"({term})"
            out.extend((query[position : token.start], replacement))
            position = token.end
        if upper in ("AS", "VALUES"):
            assigning = 1
        elif assigning == 1 and token.text == "(":
            assigning = 2
        elif assigning == 1 or (assigning == 2 and token.text == ")"):  # noqa: PLR2004
            assigning = 0
    out.append(query[position:])
    return "".join(out)
