"""The text of SPARQL queries: a lexer, the read-only check, and bindings for remote endpoints.

The check works on tokens, not on raw text: the lexer follows the terminals of the SPARQL 1.1
grammar (IRIs, prefixed names with their escapes, strings of the four kinds, comments, variables),
so a word such as ``FROM`` or ``SERVICE`` inside an IRI, a string, a comment or a prefixed name
never trips it, while the keyword itself always does. These keywords are reserved: they cannot be
the name of anything, so a keyword token is exactly a use of the clause. Whether the query is valid
SPARQL is left to pyoxigraph's parser, which runs next; the check only decides what may run.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from atlas.errors import AtlasError, NetworkRefusedError

__all__ = [
    "ReadOnlyError",
    "Token",
    "query_form",
    "refuse_unsafe",
    "substitute",
    "tokens",
]


class ReadOnlyError(AtlasError, ValueError):
    """A SPARQL update (INSERT, DELETE, CLEAR...) sent where only queries are answered."""


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


# The terminals of the SPARQL 1.1 grammar (section 19.8), in the order they are tried. Only the
# ones that may hide other text matter for safety (IRIs, strings, comments, prefixed names); they
# are written as strictly as the grammar, so text they do not match is read as code, never hidden.
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


_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")

_NETWORK = {"SERVICE": "SERVICE calls another endpoint", "LOAD": "LOAD fetches a document"}
_UPDATES = frozenset(
    {"INSERT", "DELETE", "CLEAR", "DROP", "CREATE", "COPY", "MOVE", "ADD", "WITH", "USING"}
)
_FORMS = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")


def tokens(query: str) -> Iterator[Token]:
    r"""The tokens of a query, without spaces and comments.

    >>> [t.text for t in tokens('SELECT ?s # FROM <x>\n WHERE { ?s ?p "FROM" }')]
    ['SELECT', '?s', 'WHERE', '{', '?s', '?p', '"FROM"', '}']
    """
    for match in _token_pattern().finditer(query):
        kind = match.lastgroup or "punct"
        if kind not in ("space", "comment"):
            yield Token(kind, match.group(), match.start())


def _unescaped(query: str) -> str:
    r"""The query with its ``\uXXXX`` escapes replaced, as SPARQL 1.1 (section 19.2) reads it."""

    def codepoint(match: re.Match[str]) -> str:
        number = int(match.group(1) or match.group(2), 16)
        return chr(number) if number <= sys.maxunicode else match.group()

    return _CODEPOINT.sub(codepoint, query)


def refuse_unsafe(query: str) -> None:
    """Raise unless ``query`` is a read-only query that stays on the local graph.

    SERVICE, LOAD and FROM (which names a remote dataset) raise
    :class:`~atlas.errors.NetworkRefusedError`; updates raise :class:`ReadOnlyError`. Words
    inside IRIs, strings, comments and prefixed names are not keywords and pass.

    >>> refuse_unsafe('SELECT * WHERE { ?s <http://example.org/FROM> "SERVICE" }')
    >>> refuse_unsafe("SELECT * FROM <http://example.org/data> WHERE { ?s ?p ?o }")
    Traceback (most recent call last):
    ...
    atlas.errors.NetworkRefusedError: SPARQL FROM <http://example.org/data> is refused: queries \
run over the shipped graph only and never fetch a remote dataset

    Raises:
        NetworkRefusedError: for SERVICE, LOAD and FROM (or FROM NAMED).
        ReadOnlyError: for an update (INSERT, DELETE, CLEAR, DROP, CREATE, COPY, MOVE, ADD...).
    """
    problem = _problem(query)
    if problem is not None:
        error, message = problem
        raise error(message)


@functools.lru_cache(maxsize=256)
def _problem(query: str) -> tuple[type[AtlasError], str] | None:
    """Why a query is refused (the error and its message), or ``None``; memoised per text."""
    texts = [query]
    if "\\u" in query or "\\U" in query:
        # Some engines expand codepoint escapes before parsing (as the standard says) and
        # pyoxigraph does not: refuse what either reading would run.
        texts.append(_unescaped(query))
    for text in texts:
        found = list(tokens(text))
        for number, token in enumerate(found):
            if token.kind != "word":
                continue
            word = token.text.upper()
            if word in _NETWORK:
                return NetworkRefusedError, (
                    f"SPARQL {word} is refused: {_NETWORK[word]}, and queries never reach "
                    "the network"
                )
            if word in _UPDATES:
                return ReadOnlyError, (
                    f"SPARQL {word} is refused: only queries (SELECT, ASK, CONSTRUCT, "
                    "DESCRIBE) are answered, never updates"
                )
            if word == "FROM":
                rest = [t.text for t in found[number + 1 : number + 3]]
                named = bool(rest) and rest[0].upper() == "NAMED"
                target = rest[1 if named else 0] if len(rest) > named else "?"
                clause = "FROM NAMED" if named else "FROM"
                return NetworkRefusedError, (
                    f"SPARQL {clause} {target} is refused: queries run over the shipped graph "
                    "only and never fetch a remote dataset"
                )
    return None


@functools.lru_cache(maxsize=256)
def query_form(query: str) -> str:
    """The form of a query: ``SELECT``, ``ASK``, ``CONSTRUCT`` or ``DESCRIBE`` ('' if none).

    >>> query_form("PREFIX ex: <http://example.org/select#> ask { ?s ?p ?o }")
    'ASK'
    """
    for token in tokens(query):
        if token.kind == "word" and token.text.upper() in _FORMS:
            return token.text.upper()
    return ""


def substitute(query: str, terms: Mapping[str, str]) -> str:
    """Replace variables by RDF terms, for endpoints that take no bindings (SEP-0007 style).

    ``terms`` maps variable names to terms already written in N-Triples syntax (as pyoxigraph
    writes them, so they are valid and escaped). Each use of the variable becomes the term; in a
    projection, where a constant is not allowed, ``?v`` becomes ``(term AS ?v)``. A variable
    that is assigned (``AS ?v``, ``VALUES ?v``) cannot be substituted.

    >>> substitute("SELECT ?a ?b WHERE { ?a <http://e/p> ?b }", {"a": "<http://e/x>"})
    'SELECT (<http://e/x> AS ?a) ?b WHERE { <http://e/x> <http://e/p> ?b }'

    Raises:
        ValueError: when a substituted variable is assigned in the query.
    """
    out: list[str] = []
    position = 0
    in_projection = False
    depth = 0  # parentheses inside a projection
    assigning = 0  # 1 after AS or VALUES; 2 inside a VALUES (?a ?b) header
    for token in tokens(query):
        upper = token.text.upper() if token.kind == "word" else ""
        if upper == "SELECT":
            in_projection, depth = True, 0
        elif in_projection and (token.text == "{" or upper in ("WHERE", "FROM")):
            in_projection = False
        elif in_projection and token.text in "()":
            depth += 1 if token.text == "(" else -1
        if token.kind == "var" and token.text[1:] in terms:
            if assigning:
                raise ValueError(f"cannot substitute {token.text}: the query assigns it")
            term = terms[token.text[1:]]
            replacement = f"({term} AS {token.text})" if in_projection and depth == 0 else term
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
