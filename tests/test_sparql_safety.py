"""No query reaches the network or writes: a parser decides, before evaluation.

SPARQL text is what this file is about, so strings that look like SQL are queries (S608), and the
look-alike letters are the point of their cases (RUF001).

The corpus holds the bypasses found on the lexer-based guard (``FILTER(0<1)SERVICE#>``) and
many more attempts: comments, line breaks, escapes, case, Unicode, nesting, ``<`` everywhere.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas.errors import AtlasError, NetworkRefusedError
from atlas.query import store
from atlas.query._lexer import query_form, tokens
from atlas.query._sparql import ReadOnlyError, SparqlError, refuse_unsafe

ENDPOINT = "http://127.0.0.1:19999/sparql"


class _NeverQueried:
    """A store that fails the test if a query reaches it."""

    def query(self, *_: Any, **__: Any) -> Any:
        pytest.fail("the query was evaluated before being refused")


# --- what the attack on the lexer guard found, and its neighbours ----------------------------

FOUND = [
    # the three reported bypasses
    (
        "PREFIX ex: <http://127.0.0.1:19999/>\nSELECT * WHERE { FILTER(0<1)SERVICE#>\n"
        "ex:sparql { ?s ?p ?o } }"
    ),
    (
        "PREFIX ex: <http://127.0.0.1:19999/>\nSELECT * WHERE { FILTER(0<=1)SERVICE#>\n"
        "ex:sparql { ?s ?p ?o } }"
    ),
    f"SELECT * WHERE {{ FILTER(0<1)SERVICE#>\nSILENT <{ENDPOINT}> {{ ?s ?p ?o }} }}",
    # a comment that CR alone ends (SPARQL) while rdflib's grammar reads on to LF
    f"SELECT * WHERE {{ ?s ?p ?o # x\rSERVICE <{ENDPOINT}> {{ ?a ?b ?c }}\n}}",
    f"SELECT * WHERE {{ ?s ?p ?o #\rSERVICE <{ENDPOINT}> {{ ?a ?b ?c }}\r\n}}",
]

# Found by a second attack on the parser guard: names that rdflib reads as one prefixed name and
# pyoxigraph as a name, a dot and SERVICE (they run once a triple matches the name before it).
NAMES = [
    (
        f"PREFIX : <{ENDPOINT}> PREFIX w: <https://> SELECT ?x WHERE "
        "{ ?s ?p w:w3id.org\\/execution-atlas\\/stage\\/cpu.SERVICE:x { ?a ?b ?x } } LIMIT 1"
    ),
    f"PREFIX : <{ENDPOINT}> SELECT ?x WHERE {{ ?s ?p trueSERVICE:x {{ ?a ?b ?x }} }} LIMIT 1",
    f"PREFIX : <{ENDPOINT}> SELECT ?x WHERE {{ ?s ?p true.SERVICE:x {{ ?a ?b ?x }} }}",
    f"PREFIX : <{ENDPOINT}> SELECT ?x WHERE {{ ?s ?p falseService: {{ ?a ?b ?x }} }}",
    f"PREFIX : <{ENDPOINT}> PREFIX e: <h://> SELECT * {{ ?s ?p e:a.b.SERVICE:x {{ }} }}",
]


def _service_variants() -> list[str]:
    """SERVICE written every way the grammar allows, in every place a pattern may stand."""
    calls = [
        f"SERVICE <{ENDPOINT}> {{ ?s ?p ?o }}",
        f"service silent <{ENDPOINT}> {{ ?s ?p ?o }}",
        f"SeRvIcE<{ENDPOINT}>{{?s ?p ?o}}",
        f"SERVICE # a comment <\n <{ENDPOINT}> {{ ?s ?p ?o }}",
        f"SERVICE\t\r\n<{ENDPOINT}>\n{{ ?s ?p ?o }}",
        "SERVICE ?endpoint { ?s ?p ?o }",
        "SERVICE ex:sparql { ?s ?p ?o }",
        "SERVICE SILENT ex:sparql { }",
    ]
    places = [
        "{}",
        "{{ {} }}",
        "{{ {{ {{ {} }} }} }}",
        "OPTIONAL {{ {} }}",
        "{{ ?s ?p ?o }} UNION {{ {} }}",
        "?s ?p ?o MINUS {{ {} }}",
        "FILTER EXISTS {{ {} }}",
        "FILTER NOT EXISTS {{ {} }}",
        "{{ SELECT * WHERE {{ {} }} }}",
        "GRAPH ?g {{ {} }}",
        "BIND(<http://e/> AS ?endpoint) {}",
        "VALUES ?endpoint {{ <http://e/> }} {}",
        "FILTER(0<1) {}",
        "FILTER(?a<?b&&?b<=?c) {}",
        "FILTER(0<1)#>\n{}",
        "FILTER(1<(2<3)) {}",
        '?s ?p "<" . {}',
        "?s ?p '''\n<''' . {}",
    ]
    heads = [
        "PREFIX ex: <http://127.0.0.1:19999/> SELECT * WHERE {{ {} }}",
        "PREFIX ex: <http://127.0.0.1:19999/> ASK {{ {} }}",
        "PREFIX ex: <http://127.0.0.1:19999/> CONSTRUCT {{ ?s ?p ?o }} WHERE {{ {} }}",
        "PREFIX ex: <http://127.0.0.1:19999/> DESCRIBE ?s WHERE {{ {} }}",
        "BASE <http://127.0.0.1:19999/> PREFIX ex: <x/> SELECT ?s WHERE {{ {} }} LIMIT 1",
    ]
    return [
        head.format(place.format(call))
        for head, place, call in itertools.product(heads, places, calls)
    ]


def _lt_everywhere() -> list[str]:
    """``<`` and ``#>`` put between every two tokens of a query with a SERVICE in it."""
    base = f"SELECT * WHERE {{ FILTER ( 0 < 1 ) SERVICE <{ENDPOINT}> {{ ?s ?p ?o }} }}"
    parts = base.split(" ")
    wedges = ("<", "#>\n", "<#>\n", "#<\n", "(0<1)", '"<"')
    return [
        " ".join(parts[:cut]) + wedge + " ".join(parts[cut:])
        for cut in range(1, len(parts))
        for wedge in wedges
    ]


NETWORK = [
    f"SELECT * FROM <{ENDPOINT}> WHERE {{ ?s ?p ?o }}",
    f"SELECT * FROM NAMED <{ENDPOINT}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}",
    f"ASK FROM <{ENDPOINT}> {{ }}",
    f"CONSTRUCT {{ ?s ?p ?o }} FROM <{ENDPOINT}> WHERE {{ ?s ?p ?o }}",
    f"DESCRIBE <http://e/x> FROM <{ENDPOINT}>",
    f"PREFIX ex: <{ENDPOINT}> SELECT * FROM ex: WHERE {{ }}",
    f"SELECT * FROM#>\n<{ENDPOINT}> WHERE {{ FILTER(0<1) }}",
    f"LOAD <{ENDPOINT}>",
    f"load silent <{ENDPOINT}> into graph <http://e/g>",
    f"INSERT {{ ?s ?p ?o }} WHERE {{ SERVICE <{ENDPOINT}> {{ ?s ?p ?o }} }}",
]

UPDATES = [
    "INSERT DATA { <http://e/a> <http://e/b> <http://e/c> }",
    "DELETE WHERE { ?s ?p ?o }",
    "DELETE DATA { <http://e/a> <http://e/b> <http://e/c> }",
    "CLEAR ALL",
    "clear default",
    "DROP GRAPH <http://e/g>",
    "CREATE GRAPH <http://e/g>",
    "COPY DEFAULT TO <http://e/g>",
    "MOVE <http://e/a> TO <http://e/b>",
    "ADD <http://e/a> TO <http://e/b>",
    "WITH <http://e/g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
    "DELETE { ?s ?p ?o } USING <http://e/g> WHERE { ?s ?p ?o }",
    "PREFIX ex: <http://e/> INSERT DATA { ex:a ex:b 1 } ; CLEAR ALL",
]

UNCLASSIFIED = [
    # two requests in one text, a query then an update
    "ASK {} ; INSERT DATA { <http://e/a> <http://e/b> 1 }",
    # codepoint escapes: engines expand them in different places, so none is read
    f"SELECT * WHERE {{ \\u0053ERVICE <{ENDPOINT}> {{ ?s ?p ?o }} }}",
    f"SELECT * WHERE {{ SERVIC\\u0045 <{ENDPOINT}> {{ ?s ?p ?o }} }}",
    f'SELECT * WHERE {{ ?s ?p "\\u0022" . SERVICE <{ENDPOINT}> {{ ?a ?b ?c }} }} # """ }}',
    f"SELECT * WHERE {{ # \\u000A SERVICE <{ENDPOINT}> {{ ?s ?p ?o }}\n}}",
    f"SELECT * WHERE {{ ?s <http://e/\\u003E SERVICE <{ENDPOINT}> {{ }}> ?o }}",
    f"SELECT * WHERE {{ \\U00000053ERVICE <{ENDPOINT}> {{ }} }}",
    # look-alike letters and spaces: not SPARQL, so not run
    f"SELECT * WHERE {{ ＳＥＲＶＩＣＥ <{ENDPOINT}> {{ }} }}",
    f"SELECT * WHERE {{ SERVICE\u00a0<{ENDPOINT}> {{ }} }}",
    f"\ufeffSELECT * WHERE {{ SERVICE <{ENDPOINT}> {{ }} }}",
    f"SELECT * WHERE {{ SERV\u200bICE <{ENDPOINT}> {{ }} }}",
    # line breaks that are not SPARQL's
    f"SELECT * WHERE {{ # x\x0bSERVICE <{ENDPOINT}> {{ ?s ?p ?o }} }}",
    f"SELECT * WHERE {{ # x\u2028SERVICE <{ENDPOINT}> {{ ?s ?p ?o }} }}",
    # not SPARQL at all, or cut short
    "SERVICE",
    f"SELECT * WHERE {{ SERVICE <{ENDPOINT}> {{",
    "",
    "SELECT * WHERE { ?s ?p ?o } \x00 SERVICE <http://e/> {}",
    # valid SPARQL that rdflib's grammar rejects (an escaped local name before SERVICE)
    f"PREFIX ex: <http://e/> SELECT * WHERE {{ ?s ex:a\\#b ?o SERVICE <{ENDPOINT}> {{ }} }}",
    # SPARQL 1.2 and extensions that the guard's grammar does not know
    f"SELECT * WHERE {{ LATERAL {{ SERVICE <{ENDPOINT}> {{ }} }} }}",
    "SELECT * WHERE { <<( ?s ?p ?o )>> ?q ?r }",
]

_EITHER = (NetworkRefusedError, SparqlError)  # a generated variant may also not be SPARQL
REFUSED: list[tuple[str, type[AtlasError] | tuple[type[AtlasError], ...]]] = [
    *((q, NetworkRefusedError) for q in FOUND),
    *((q, NetworkRefusedError) for q in _service_variants()),
    *((q, _EITHER) for q in _lt_everywhere()),
    *((q, NetworkRefusedError) for q in NETWORK),
    *((q, ReadOnlyError) for q in UPDATES),
    *((q, SparqlError) for q in UNCLASSIFIED + NAMES),
]


def test_the_corpus_is_large_and_each_case_is_distinct() -> None:
    queries = [q for q, _ in REFUSED]
    assert len(queries) > 500
    assert len(set(queries)) == len(queries)
    # the SERVICE variants are valid SPARQL, so the SERVICE in them is what is refused
    assert {_refusal(q) for q in _service_variants()} == {NetworkRefusedError}


def _refusal(query: str) -> type[AtlasError] | None:
    try:
        refuse_unsafe(query)
    except AtlasError as error:
        return type(error)
    return None


@pytest.mark.parametrize("query", FOUND)
def test_the_reported_bypasses_are_refused(query: str) -> None:
    with pytest.raises(NetworkRefusedError, match="SERVICE is refused"):
        store.execute(query, target=_NeverQueried())  # type: ignore[arg-type]


def test_every_attempt_in_the_corpus_is_refused_before_evaluation() -> None:
    wrong = []
    for query, error in REFUSED:
        try:
            store.execute(query, target=_NeverQueried())  # type: ignore[arg-type]
        except error:
            continue
        except AtlasError as other:
            wrong.append((query, f"{type(other).__name__}: {other}"))
        else:
            wrong.append((query, "ran"))
    assert not wrong, wrong[:5]


@pytest.mark.parametrize(
    ("query", "error", "message"),
    [
        (
            "SELECT * FROM NAMED <http://example.org/g> WHERE { ?s ?p ?o }",
            NetworkRefusedError,
            r"FROM NAMED <http://example\.org/g> is refused",
        ),
        (
            "PREFIX ex: <http://e/> SELECT * FROM ex:g WHERE { ?s ?p ?o }",
            NetworkRefusedError,
            r"FROM ex:g is refused",
        ),
        ("CLEAR DEFAULT", ReadOnlyError, r"CLEAR is refused: only queries \(SELECT"),
        (
            "INSERT DATA { <http://e/a> <http://e/b> 1 } ; CLEAR ALL",
            ReadOnlyError,
            r"INSERT DATA, CLEAR is refused",
        ),
        ("CLEAR ALL ; LOAD <http://e/>", NetworkRefusedError, r"LOAD is refused"),
        ("SELECT * WHERE {\n ?s ?p }", SparqlError, r"invalid SPARQL: .*\(line 2, column \d+\)"),
        (
            "SELECT * WHERE { ?s ?p '\\u0053' }",
            SparqlError,
            r"codepoint escapes such as '\\\\u0053' are refused",
        ),
        (b"ASK {}", SparqlError, r"a SPARQL query is text"),
    ],
)
def test_refusals_say_why(query: str, error: type[AtlasError], message: str) -> None:
    with pytest.raises(error, match=message):
        refuse_unsafe(query)


def test_a_query_too_long_or_too_deep_is_refused_without_a_traceback() -> None:
    with pytest.raises(SparqlError, match="longer than"):
        refuse_unsafe("ASK { " + " " * (1 << 20) + "}")
    with pytest.raises(SparqlError, match=r"nested too deeply|invalid SPARQL"):
        refuse_unsafe("ASK { FILTER(" + "(" * 5000 + "1" + ")" * 5000 + ") }")
    with pytest.raises(SparqlError, match=r"nested too deeply|invalid SPARQL"):
        refuse_unsafe("ASK " + "{ " * 5000 + "}" * 5000)


ALLOWED = [
    'SELECT * WHERE { ?s ?p "SERVICE <http://example.org/> FROM LOAD" }',
    "SELECT * WHERE { ?s ?p '''a\nSERVICE { }\n''' }",
    'SELECT * WHERE { ?s ?p "say \\"FROM\\" here" }',
    "SELECT * WHERE { ?s <http://example.org/FROM/SERVICE#LOAD> ?o }",
    "PREFIX from: <http://e/> SELECT * WHERE { ?s from:service ?o }",
    "PREFIX ex: <http://e/> SELECT * WHERE { ?s ex:a\\#SERVICE ?o }",
    "SELECT ?service ?from ?load WHERE { ?service ?from ?load } # SERVICE FROM LOAD INSERT",
    'SELECT * WHERE { ?s ?p ?o FILTER(?o = "DROP") }',
    "SELECT * WHERE { ?s ?p ?o FILTER(0<1) } # SERVICE <http://e/> {}",
    "SELECT * WHERE { ?s ?p ?o\r\n# SERVICE <http://e/> { }\r\n}",
    "ASK { FILTER(1 < 2 && 2 <= 3) }",
    "CONSTRUCT WHERE { ?s ?p ?o } LIMIT 1",
    "DESCRIBE <https://w3id.org/execution-atlas/stage/cpu>",
    'SELECT ?x WHERE { BIND("ﬁ café 東京" AS ?x) }',
]


@pytest.mark.parametrize("query", ALLOWED)
def test_keywords_inside_iris_strings_comments_and_names_pass(query: str) -> None:
    assert refuse_unsafe(query) in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")
    assert store.execute(query) is not None  # and pyoxigraph agrees that it is a query


def test_every_named_query_passes_the_guard() -> None:
    for named in store.named_queries().values():
        assert refuse_unsafe(named.text) in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"), named.name


def test_each_distinct_text_is_parsed_once() -> None:
    from atlas.query import _sparql  # noqa: PLC0415

    query = "SELECT ?once WHERE { ?once ?p ?o } LIMIT 7"
    before = _sparql._verdict.cache_info()
    for _ in range(5):
        refuse_unsafe(query)
    after = _sparql._verdict.cache_info()
    assert after.misses - before.misses == 1
    assert after.hits - before.hits == 4


def test_the_guard_gives_the_form_it_read() -> None:
    assert refuse_unsafe("PREFIX ex: <http://e/select#> ask { ?s ?p ?o }") == "ASK"
    assert refuse_unsafe("# SELECT\nCONSTRUCT WHERE { ?s ?p ?o }") == "CONSTRUCT"
    assert refuse_unsafe("DESCRIBE ?s WHERE { ?s ?p ?o }") == "DESCRIBE"


_KEYWORD = st.sampled_from(["SERVICE", "FROM", "LOAD", "INSERT", "DROP", "service", "From"])
_FILLER = st.text(alphabet="abc FROM SERVICE <>{}#\"'\\\n", max_size=12)


@settings(max_examples=60, deadline=None)
@given(_KEYWORD, _FILLER, _FILLER)
def test_keywords_in_strings_and_comments_never_trip(keyword: str, before: str, after: str) -> None:
    body = (before + keyword + after).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    assert refuse_unsafe('SELECT * WHERE { ?s ?p "' + body + '" }') == "SELECT"
    comment = (before + keyword + after).replace("\n", " ")
    assert refuse_unsafe("SELECT * WHERE { ?s ?p ?o } #" + comment) == "SELECT"


def test_tokens_and_query_form() -> None:
    found = [t.kind for t in tokens('PREFIX ex: <http://e/> SELECT ?x WHERE { ?x ex:p "v"@en }')]
    assert " ".join(found) == "word pname iri word var word punct var pname string lang punct"
    assert query_form("# SELECT\nCONSTRUCT WHERE { ?s ?p ?o }") == "CONSTRUCT"
    assert query_form("nothing here") == ""


# --- differential fuzzing: what the guard lets through never reaches the network --------------

_PIECES = [
    *("<", ">", "#", "\n", "\r", '"', "'", '"""', "\\", "{", "}", "(", ")", " ", "0<1", "#>", "."),
    *("SERVICE", f" SERVICE <{ENDPOINT}> {{ }} ", f"<{ENDPOINT}>", "FROM", "LOAD", "FILTER(0<1)"),
    *(
        "true",
        "SERVICE:x",
        ".SERVICE:x",
        "st:cpu",
        "w:w3id.org\\/x.",
        "PREFIX st: <https://w3id.org/execution-atlas/stage/> ",
    ),
]


def _mutants(count: int, seed: int) -> list[str]:
    """Queries made from the corpus by inserting, deleting and swapping pieces of SPARQL."""
    import random  # noqa: PLC0415

    rng = random.Random(seed)  # noqa: S311 - reproducible mutations, not secrets
    unsafe = FOUND + NAMES + _service_variants()[::7] + NETWORK
    out = []
    for number in range(count):
        text = rng.choice(ALLOWED if number % 2 else unsafe)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            action = rng.random()
            if action < 0.5:
                text = text[:at] + rng.choice(_PIECES) + text[at:]
            elif action < 0.8:
                text = text[:at] + text[at + rng.randint(1, 4) :]
            else:
                text = text[:at] + rng.choice(_PIECES) + text[at + 1 :]
        out.append(text)
    return out


@pytest.mark.slow
def test_no_mutant_the_guard_lets_through_tries_to_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    import json  # noqa: PLC0415
    import platform  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from atlas.query import _sparql  # noqa: PLC0415

    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip("needs the seccomp sandbox to see a connection attempt")
    # every mutant judged by the parser, none refused for time on a loaded machine
    monkeypatch.setattr(_sparql, "PARSE_SECONDS", 300.0)
    _sparql._verdict.cache_clear()
    mutants = _mutants(3000, seed=15)
    passed = [q for q in mutants if _refusal(q) is None]
    assert len(passed) > 200  # some mutants are harmless queries: the guard is not refusing all
    # A sandboxed child runs each in pyoxigraph: a connection attempt fails with EACCES there.
    child = (
        "import itertools, json, re, sys, pyoxigraph\n"
        "from atlas.query import store as shipped\n"
        "from atlas.publish._sandbox import forbid_network\n"
        "store = shipped.store()  # the shipped graph: a SERVICE joined to a match is called\n"
        "assert forbid_network()\n"
        "tried = []\n"
        "for query in json.load(sys.stdin):\n"
        "    try:  # without SILENT, so that a refused connection shows\n"
        "        answer = store.query(re.sub('(?i)silent', '', query))\n"
        "        if not isinstance(answer, pyoxigraph.QueryBoolean):  # the first rows suffice\n"
        "            list(itertools.islice(answer, 100))\n"
        "    except PermissionError:\n"
        "        tried.append(query)\n"
        "    except Exception:\n"
        "        pass\n"
        "print(json.dumps(tried))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", child],
        input=json.dumps(mutants),  # all of them: the refused ones show the child can see
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    tried = json.loads(done.stdout)
    assert tried, "no mutant tried to connect: the child could not have seen a bypass"
    assert not set(tried) & set(passed)


def test_the_interpreters_recursion_limit_is_left_alone_while_other_threads_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys  # noqa: PLC0415
    import threading  # noqa: PLC0415

    from atlas.query import _sparql  # noqa: PLC0415

    limits: list[int] = []
    real = sys.setrecursionlimit
    monkeypatch.setattr(sys, "setrecursionlimit", lambda n: (limits.append(n), real(n)))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        _sparql._classify("ASK { ?s ?p ?o . ?a ?b ?c }")
    finally:
        stop.set()
        other.join()
    assert all(n <= sys.getrecursionlimit() for n in limits)
    assert _sparql._PARSER_DEPTH not in limits


# The stop is an exception sent into the parser's thread; when it lands in a garbage-collector
# callback Python reports it as "ignored" and the guard sends it again until the thread ends.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_parse_past_its_deadline_is_stopped_and_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading  # noqa: PLC0415

    from atlas.query import _sparql  # noqa: PLC0415

    monkeypatch.setattr(_sparql, "PARSE_SECONDS", 0.5)
    _sparql._verdict.cache_clear()
    slow = "SELECT * WHERE { FILTER(" + "+".join(["1"] * 8000) + ") }"
    threads = threading.active_count()
    with pytest.raises(SparqlError, match=r"took over 0.5 s to check"):
        refuse_unsafe(slow)
    # the parser's thread was stopped, not left running, and the next query is judged
    assert threading.active_count() == threads
    monkeypatch.undo()  # the usual deadline: a loaded machine may take over 0.5 s for any parse
    assert refuse_unsafe("ASK { ?s ?p ?o }") == "ASK"


def test_a_deep_query_in_a_host_with_threads_is_judged_in_a_child_process() -> None:
    import threading  # noqa: PLC0415

    from atlas.query import _sparql  # noqa: PLC0415

    _sparql._verdict.cache_clear()
    block = " ".join(f"?s <http://example.org/p> ?o{i} ." for i in range(400))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert refuse_unsafe(f"SELECT * WHERE {{ {block} }}") == "SELECT"
        with pytest.raises(NetworkRefusedError, match="SERVICE is refused"):
            refuse_unsafe(f"SELECT * WHERE {{ {block} SERVICE <http://x/> {{ ?a ?b ?c }} }}")
    finally:
        stop.set()
        other.join()
