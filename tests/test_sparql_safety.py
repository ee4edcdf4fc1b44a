"""No query reaches the network or writes: refusals come before evaluation, from tokens."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas import store
from atlas._sparql import ReadOnlyError, query_form, refuse_unsafe, tokens
from atlas.errors import NetworkRefusedError


class _NeverQueried:
    """A store that fails the test if a query reaches it."""

    def query(self, *_: Any, **__: Any) -> Any:
        pytest.fail("the query was evaluated before being refused")


REFUSED = [
    ("SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }", NetworkRefusedError),
    ("select * where { service silent ?endpoint { ?s ?p ?o } }", NetworkRefusedError),
    ("SELECT * WHERE {SERVICE<http://example.org/>{?s ?p ?o}}", NetworkRefusedError),
    ("SELECT * FROM <http://example.org/data.ttl> WHERE { ?s ?p ?o }", NetworkRefusedError),
    (
        "SELECT * FROM NAMED <http://example.org/g> WHERE { GRAPH ?g { ?s ?p ?o } }",
        NetworkRefusedError,
    ),
    ("LOAD <http://example.org/data.ttl>", NetworkRefusedError),
    ("INSERT DATA { <http://e/a> <http://e/b> <http://e/c> }", ReadOnlyError),
    ("DELETE WHERE { ?s ?p ?o }", ReadOnlyError),
    ("CLEAR ALL", ReadOnlyError),
    ("DROP GRAPH <http://e/g>", ReadOnlyError),
    ("WITH <http://e/g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", ReadOnlyError),
    ("ASK {} ; INSERT DATA { <http://e/a> <http://e/b> 1 }", ReadOnlyError),
    # SPARQL 1.1 (19.2) lets engines expand codepoint escapes before parsing.
    ("SELECT * WHERE { \\u0053ERVICE <http://example.org/> { ?s ?p ?o } }", NetworkRefusedError),
    # a comment ends at a line break, and the rest of the query is read again
    ("SELECT * WHERE { # a note\n SERVICE <http://e/> { ?s ?p ?o } }", NetworkRefusedError),
]


@pytest.mark.parametrize(("query", "error"), REFUSED)
def test_refused_before_evaluation(query: str, error: type[Exception]) -> None:
    with pytest.raises(error, match="refused"):
        store.execute(query, target=_NeverQueried())  # type: ignore[arg-type]


def test_refusals_say_why() -> None:
    with pytest.raises(NetworkRefusedError, match=r"FROM NAMED <http://example\.org/g> is refused"):
        refuse_unsafe("SELECT * FROM NAMED <http://example.org/g> WHERE { ?s ?p ?o }")
    with pytest.raises(ReadOnlyError, match=r"only queries \(SELECT.* are answered"):
        refuse_unsafe("CLEAR DEFAULT")


ALLOWED = [
    'SELECT * WHERE { ?s ?p "SERVICE <http://example.org/> FROM LOAD" }',
    "SELECT * WHERE { ?s ?p '''a\nSERVICE { }\n''' }",
    'SELECT * WHERE { ?s ?p "say \\"FROM\\" here" }',
    "SELECT * WHERE { ?s <http://example.org/FROM/SERVICE#LOAD> ?o }",
    "PREFIX from: <http://e/> SELECT * WHERE { ?s from:service ?o }",
    "PREFIX ex: <http://e/> SELECT * WHERE { ?s ex:a\\#SERVICE ?o }",
    "SELECT ?service ?from ?load WHERE { ?service ?from ?load } # SERVICE FROM LOAD INSERT",
    'SELECT * WHERE { ?s ?p ?o FILTER(?o = "DROP") }',
]


@pytest.mark.parametrize("query", ALLOWED)
def test_keywords_inside_iris_strings_comments_and_names_pass(query: str) -> None:
    refuse_unsafe(query)
    store.execute(query)  # and pyoxigraph agrees that it is a query


@pytest.mark.parametrize("query", [q for q, _ in REFUSED] + ALLOWED)
def test_the_check_agrees_with_rdflibs_parser(query: str) -> None:
    # rdflib's SPARQL parser, a full grammar, as a second opinion on what each query does.
    from pyparsing import ParseException  # noqa: PLC0415
    from rdflib.plugins.sparql.parser import parseQuery, parseUpdate  # noqa: PLC0415

    text = query.replace("\\u0053", "S")  # rdflib does not expand codepoint escapes everywhere
    try:
        tree = repr(parseQuery(text))
        unsafe = "ServiceGraphPattern" in tree or "datasetClause" in tree
    except ParseException:
        try:
            parseUpdate(text)
        except ParseException:  # neither: no engine runs it, and refusing it is fine
            unsafe = None
        else:
            unsafe = True
    try:
        refuse_unsafe(query)
        refused = False
    except (NetworkRefusedError, ReadOnlyError):
        refused = True
    assert refused == unsafe or (unsafe is None and refused)


_KEYWORD = st.sampled_from(["SERVICE", "FROM", "LOAD", "INSERT", "DROP", "service", "From"])
_FILLER = st.text(alphabet="abc FROM SERVICE <>{}#\"'\\\n", max_size=12)


@settings(max_examples=60, deadline=None)
@given(_KEYWORD, _FILLER, _FILLER)
def test_keywords_in_strings_and_comments_never_trip(keyword: str, before: str, after: str) -> None:
    body = (before + keyword + after).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    refuse_unsafe('SELECT * WHERE { ?s ?p "' + body + '" }')
    comment = (before + keyword + after).replace("\n", " ")
    refuse_unsafe("SELECT * WHERE { ?s ?p ?o } #" + comment)


def test_tokens_and_query_form() -> None:
    found = [t.kind for t in tokens('PREFIX ex: <http://e/> SELECT ?x WHERE { ?x ex:p "v"@en }')]
    assert " ".join(found) == "word pname iri word var word punct var pname string lang punct"
    assert query_form("# SELECT\nCONSTRUCT WHERE { ?s ?p ?o }") == "CONSTRUCT"
    assert query_form("nothing here") == ""
