"""The read-only guard of SPARQL queries, and the errors of a query refused or failed.

The guard decides with a real SPARQL 1.1 parser (rdflib's grammar), never with a lexer of its
own: a query runs only when the parser reads it whole as a query (SELECT, ASK, CONSTRUCT or
DESCRIBE) whose tree holds no SERVICE and no dataset clause (FROM, FROM NAMED). An update is
refused with its operation named; anything the parser cannot classify is refused too. Each
distinct text is parsed once and its verdict memoised, so the named queries cost one parse each.
The lexer, for what is not a safety decision, is :mod:`atlas.query._lexer`.
"""

from __future__ import annotations

import ctypes
import functools
import json
import re
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any

from atlas.errors import AtlasError, NetworkRefusedError
from atlas.query._lexer import QUERY_FORMS

__all__ = ["ReadOnlyError", "SparqlError", "refuse_unsafe"]


class SparqlError(AtlasError, ValueError):
    """A SPARQL query that cannot be parsed, bound or evaluated."""


class ReadOnlyError(AtlasError, ValueError):
    """A SPARQL update (INSERT, DELETE, CLEAR...) sent where only queries are answered."""


_CODEPOINT = re.compile(r"\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}")

_QUERY_NODES = {f"{form.title()}Query": form for form in QUERY_FORMS}
# rdflib's names of the update operations, and the keyword a user wrote for each
_OPERATIONS = {
    "Load": "LOAD",
    "Clear": "CLEAR",
    "Drop": "DROP",
    "Create": "CREATE",
    "Add": "ADD",
    "Move": "MOVE",
    "Copy": "COPY",
    "InsertData": "INSERT DATA",
    "DeleteData": "DELETE DATA",
    "DeleteWhere": "DELETE WHERE",
    "Modify": "DELETE/INSERT",
}
_NO_UPDATES = "only queries (SELECT, ASK, CONSTRUCT, DESCRIBE) are answered, never updates"
#: The longest query the guard parses (characters): the parser's time grows with the text.
MAX_QUERY_CHARS = 1 << 20
_PARSER_LOCK = threading.Lock()  # pyparsing's grammar objects are shared and not thread-safe
_PARSER_DEPTH = 30_000  # frames: about 2,500 triples in one block, or 250 nested groups
_PARSER_STACK = 32 * 1024 * 1024  # bytes for the parser's thread (8 MiB reach the depth limit)
#: The longest the guard spends parsing one query (seconds); a longer parse is stopped, refused.
PARSE_SECONDS = 10.0
_Verdict = tuple[str, tuple[type[AtlasError], str] | None]
_ERRORS: dict[str, type[AtlasError]] = {
    error.__name__: error for error in (SparqlError, ReadOnlyError, NetworkRefusedError)
}


class _DeadlineError(BaseException):
    """Raised inside the parser's thread when its parse has run past :data:`PARSE_SECONDS`."""


def refuse_unsafe(query: str) -> str:
    """Raise unless ``query`` is a read-only query that stays on the local graph; give its form.

    SERVICE, LOAD and FROM (which names a remote dataset) raise
    :class:`~atlas.errors.NetworkRefusedError`; updates raise :class:`ReadOnlyError`; text that
    SPARQL's grammar does not read as one query raises :class:`SparqlError`. Words inside IRIs,
    strings, comments and prefixed names are not keywords and pass.

    >>> refuse_unsafe('SELECT * WHERE { ?s <http://example.org/FROM> "SERVICE" }')
    'SELECT'
    >>> refuse_unsafe("SELECT * FROM <http://example.org/data> WHERE { ?s ?p ?o }")
    Traceback (most recent call last):
    ...
    atlas.errors.NetworkRefusedError: SPARQL FROM <http://example.org/data> is refused: queries \
run over the shipped graph only and never fetch a remote dataset

    Raises:
        NetworkRefusedError: for SERVICE, LOAD and FROM (or FROM NAMED).
        ReadOnlyError: for an update (INSERT, DELETE, CLEAR, DROP, CREATE, COPY, MOVE, ADD...).
        SparqlError: for text that is not one SPARQL query, or too long or deep to parse.
    """
    if not isinstance(query, str):
        raise SparqlError(f"a SPARQL query is text (str), not {type(query).__name__}")
    form, problem = _verdict(query)
    if problem is not None:
        error, message = problem
        raise error(message)
    return form


@functools.lru_cache(maxsize=512)
def _verdict(query: str) -> _Verdict:
    """The form of a query and why it is refused (the error and its message), memoised per text."""
    if len(query) > MAX_QUERY_CHARS:
        return "", (SparqlError, f"the query is longer than {MAX_QUERY_CHARS} characters")
    if "\x00" in query:
        return "", (SparqlError, "invalid SPARQL: the query contains a NUL character")
    escape = _CODEPOINT.search(query)
    if escape:
        # SPARQL 1.1 (19.2) expands these before parsing, rdflib does so everywhere and
        # pyoxigraph only inside IRIs and strings: two readings of one text. Refuse them all.
        message = (
            f"codepoint escapes such as {escape.group()!r} are refused (engines differ in where "
            "they expand them): write the character itself"
        )
        return "", (SparqlError, message)
    return _classify(query)


def _classify(query: str) -> _Verdict:
    """Parse ``query`` as a query, then as an update, and judge its tree."""
    # SPARQL ends a comment at CR or LF, rdflib's grammar at LF only: a comment that a lone CR
    # ends would hide code from the guard that pyoxigraph runs. Outside comments the two line
    # breaks are read alike (both white space, both refused in short strings and IRIs).
    text = query.replace("\r\n", "\n").replace("\r", "\n")
    with _PARSER_LOCK:
        # The grammar recurses once per triple of a block and per level of nesting: parse in a
        # thread of our own with room for that, then give the interpreter its limit back. The
        # limit is the interpreter's, for every thread: it is raised only while no other thread
        # runs (a command, a query worker), else a host's deep recursion could crash instead of
        # raising RecursionError; there a query too deep for the host's limit is parsed again
        # in a child process of its own.
        alone = threading.active_count() == 1
        limit = sys.getrecursionlimit()
        try:
            if alone:
                sys.setrecursionlimit(max(limit, _PARSER_DEPTH))
            verdict = _parse_in_thread(text)
        finally:
            sys.setrecursionlimit(limit)
    if verdict == _TOO_DEEP and not alone:
        return _parse_in_child(text)
    return verdict


_TOO_DEEP: _Verdict = ("", (SparqlError, "the query is nested too deeply to be checked"))


def _too_slow() -> _Verdict:
    message = f"the query took over {PARSE_SECONDS:g} s to check: shorten or simplify it"
    return "", (SparqlError, message)


def _parse_in_thread(text: str) -> _Verdict:
    """Judge ``text`` in a thread with a deep stack, stopping it past :data:`PARSE_SECONDS`."""
    outcome: list[_Verdict] = []

    def parse() -> None:
        try:
            outcome.append(_judge(text))
        except _DeadlineError:  # stopped between the parse and its verdict
            outcome.append(_too_slow())

    size = threading.stack_size(_PARSER_STACK)
    try:
        worker = threading.Thread(target=parse, daemon=True)
        worker.start()
    except RuntimeError:  # no thread could be started (out of memory or threads)
        return "", (SparqlError, "the query could not be checked: no room to parse it")
    finally:
        threading.stack_size(size)
    worker.join(PARSE_SECONDS)
    if worker.is_alive() and worker.ident is not None:
        # The parser is pure Python: an exception set on its thread stops it at the next step.
        # One that lands in a callback Python calls on its own (a weakref's, a finaliser) is
        # printed and dropped there, so it is set again until the thread has ended.
        ident, stop = ctypes.c_ulong(worker.ident), ctypes.py_object(_DeadlineError)
        while worker.is_alive():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ident, stop)
            worker.join(1.0)  # far longer than the handler takes: never sent twice to it
        return _too_slow()
    return outcome[0] if outcome else ("", (SparqlError, "the query could not be checked"))


def _parse_in_child(text: str) -> _Verdict:
    """Judge ``text`` in a child interpreter with no other thread, so its limit can be raised."""
    program = (
        "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
        "import atlas.query._sparql as s; s._child_main(sys.stdin.read())"
    )
    try:
        done = subprocess.run(  # our own interpreter and module, no shell
            [sys.executable, "-I", "-c", program, json.dumps(sys.path)],
            input=text,
            capture_output=True,
            text=True,
            timeout=PARSE_SECONDS * 2,
            check=False,
        )
        form, error, message = json.loads(done.stdout)
    except subprocess.TimeoutExpired:
        return _too_slow()
    except (OSError, ValueError):
        return _TOO_DEEP
    return form, (None if error is None else (_ERRORS[error], message))


def _child_main(text: str) -> None:
    """The child of :func:`_parse_in_child`: print the verdict on ``text`` as JSON."""
    form, problem = _verdict(text)
    error, message = (None, None) if problem is None else (problem[0].__name__, problem[1])
    sys.stdout.write(json.dumps([form, error, message]))


def _judge(text: str) -> _Verdict:
    """Parse and judge, in the parser's thread; whatever cannot be judged is refused."""
    from pyparsing import ParseBaseException  # noqa: PLC0415 - the parser loads on first use
    from rdflib.plugins.sparql import parser  # noqa: PLC0415

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # rdflib warns on ill-typed literals
            try:
                tree = parser.parseQuery(text)
            except ParseBaseException as error:
                try:
                    update = parser.parseUpdate(text)
                except ParseBaseException:
                    return "", (SparqlError, f"invalid SPARQL: {_where(error)}")
                return "", _name_problem(update) or _update_problem(update)
        names = _name_problem(tree)
        return ("", names) if names else _query_problem(tree[-1])
    except RecursionError:
        return _TOO_DEEP
    except _DeadlineError:
        return _too_slow()
    except Exception as error:  # noqa: BLE001 - whatever cannot be judged is refused
        return "", (SparqlError, f"the query could not be checked ({type(error).__name__})")


def _where(error: Exception) -> str:
    """A parser's error, said with its line and column."""
    line, column = getattr(error, "lineno", 0), getattr(error, "col", 0)
    message = getattr(error, "msg", str(error))
    return f"{message} (line {line}, column {column})"


def _query_problem(query: Any) -> _Verdict:
    """Judge a parsed query: its form, then a dataset clause and SERVICE anywhere in its tree."""
    names = _node_names(query)
    form = _QUERY_NODES.get(getattr(query, "name", None) or "", "")
    if not form:
        return "", (SparqlError, "invalid SPARQL: not a SELECT, ASK, CONSTRUCT or DESCRIBE query")
    dataset = dict.get(query, "datasetClause")
    if dataset:
        clause = dataset[0]
        named = dict.get(clause, "named")
        message = (
            f"SPARQL {'FROM NAMED' if named is not None else 'FROM'} "
            f"{_written(named if named is not None else dict.get(clause, 'default'))} is "
            "refused: queries run over the shipped graph only and never fetch a remote dataset"
        )
        return form, (NetworkRefusedError, message)
    if "ServiceGraphPattern" in names:
        return form, (NetworkRefusedError, _network_refusal("SERVICE calls another endpoint"))
    return form, None


def _network_refusal(what: str) -> str:
    keyword = what.split(maxsplit=1)[0]
    return f"SPARQL {keyword} is refused: {what}, and queries never reach the network"


def _update_problem(update: Any) -> tuple[type[AtlasError], str]:
    """Why an update is refused: LOAD and SERVICE reach the network, every update writes."""
    names = _node_names(update)
    if "Load" in names or "ServiceGraphPattern" in names:
        what = "LOAD fetches a document" if "Load" in names else "SERVICE calls another endpoint"
        return NetworkRefusedError, _network_refusal(what)
    operations = [getattr(op, "name", "") for op in dict.get(update, "request") or ()]
    if not operations:  # an empty text, or prefixes alone: an update with no operation
        return SparqlError, "no query: give a SELECT, ASK, CONSTRUCT or DESCRIBE query"
    written = ", ".join(dict.fromkeys(_OPERATIONS.get(name, name) for name in operations))
    return ReadOnlyError, f"SPARQL {written or 'update'} is refused: {_NO_UPDATES}"


def _written(term: Any) -> str:
    """A term of the parse tree as a query writes it (an IRI in angle brackets)."""
    from rdflib.plugins.sparql.parserutils import CompValue  # noqa: PLC0415
    from rdflib.term import Node  # noqa: PLC0415

    if isinstance(term, CompValue) and term.name == "pname":
        return f"{dict.get(term, 'prefix') or ''}:{dict.get(term, 'localname') or ''}"
    if isinstance(term, Node):
        return str(term.n3())
    return "?"


def _nodes(tree: Any) -> Iterator[Any]:
    """Every node of a parse tree (rdflib's ``CompValue``), walked iteratively."""
    from pyparsing import ParseResults  # noqa: PLC0415
    from rdflib.plugins.sparql.parserutils import CompValue  # noqa: PLC0415

    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, CompValue):
            yield node
            stack.extend(dict.values(node))
        elif isinstance(node, ParseResults | list | tuple):
            stack.extend(node)


def _node_names(tree: Any) -> set[str]:
    """The names of every node of a parse tree."""
    return {node.name for node in _nodes(tree)}


_UNESCAPED_DOT = re.compile(r"(?<!\\)\.")


def _name_problem(tree: Any) -> tuple[type[AtlasError], str] | None:
    """Prefixed names that two parsers could read differently, so that no safety rests on them.

    rdflib's grammar takes an undeclared prefix, and a local name with several dots, as one
    name; pyoxigraph backs off from an unknown prefix and reads one dotted part at most, so
    ``trueSERVICE:x`` or ``ex:a.b.SERVICE:x`` would hide a keyword from the guard.
    """
    nodes = list(_nodes(tree))
    declared = {dict.get(n, "prefix") or "" for n in nodes if n.name == "PrefixDecl"}
    for node in nodes:
        if node.name != "pname":
            continue
        prefix = dict.get(node, "prefix") or ""
        local = dict.get(node, "localname") or ""
        if prefix not in declared:
            return SparqlError, (
                f"invalid SPARQL: the prefix {prefix + ':'!r} is not declared (add PREFIX "
                f"{prefix}: <...>)"
            )
        if len(_UNESCAPED_DOT.findall(local)) > 1:
            return SparqlError, (
                f"the prefixed name {prefix}:{local} is refused: engines read a local name "
                "with more than one '.' differently; write the IRI in full, <...>"
            )
    return None
