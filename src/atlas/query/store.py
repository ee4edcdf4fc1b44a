"""SPARQL 1.1 over the shipped graph, through pyoxigraph (rdflib stays behind ``atlas.graph()``).

>>> sparql("ASK { ?atlas a <https://w3id.org/execution-atlas/vocab#Atlas> }")
True

Queries are read-only and offline: SERVICE, LOAD, updates and FROM are refused before
evaluation. Named queries ship as ``queries/*.rq``; values reach them as bindings (pyoxigraph
substitutions), never formatted into the text.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pyoxigraph

from atlas.data import _resources
from atlas.data._files import MAX_TURTLE_BYTES, UnsafeFileError, regular_file
from atlas.errors import (
    ArgumentTypeError,
    ArgumentValueError,
    MissingValueError,
    NetworkRefusedError,
    UnknownIdError,
    UnknownValueError,
    shown,
)
from atlas.models._names import text as _text
from atlas.query._results import BASE_IRI, Result, Solutions, Term, Triples, formats_for, serialize
from atlas.query._sparql import ReadOnlyError, SparqlError, refuse_unsafe

if TYPE_CHECKING:
    from atlas.models import ConceptScheme

__all__ = [
    "Engine",
    "Local",
    "NamedQuery",
    "NetworkRefusedError",
    "Parameter",
    "PathRows",
    "ReadOnlyError",
    "SparqlError",
    "execute",
    "load_store",
    "named_queries",
    "named_query",
    "parse_binding",
    "path",
    "run",
    "sparql",
    "store",
    "term",
    "write",
]

_EA = f"{BASE_IRI}vocab#"
_KINDS = (
    "atlas/",
    "stage/",
    "step/",
    "claim/",
    "citation/",
    "technology/",
    "scheme/",
    "relation/",
)


# --- stores ----------------------------------------------------------------------------------


@functools.cache
def store() -> pyoxigraph.Store:
    """An in-memory store holding every shipped Turtle file, built on first use."""
    result = pyoxigraph.Store()
    for file in _resources.turtle_files():
        result.load(file.read_bytes(), pyoxigraph.RdfFormat.TURTLE, base_iri=BASE_IRI)
    return result


def load_store(files: Iterable[Path]) -> pyoxigraph.Store:
    """A new in-memory store holding these Turtle files (for other data sets than the shipped one).

    Raises:
        SparqlError: when a file is not valid Turtle.
    """
    result = pyoxigraph.Store()
    for file in files:
        try:
            regular_file(Path(file), MAX_TURTLE_BYTES)
        except OSError as error:
            raise SparqlError(f"{file}: cannot read: {error.strerror or error}") from None
        except UnsafeFileError as error:
            raise SparqlError(f"{file}: refused: {error}") from None
        try:
            # one transaction per file: faster than bulk_load into an in-memory store (which
            # is made for files too big to hold), and a file that fails leaves nothing behind
            result.load(path=file, format=pyoxigraph.RdfFormat.TURTLE, base_iri=BASE_IRI)
        except SyntaxError as error:
            raise SparqlError(f"{file}: invalid Turtle: {error}") from None
    return result


# --- evaluation ------------------------------------------------------------------------------


_TERMS = (pyoxigraph.NamedNode, pyoxigraph.BlankNode, pyoxigraph.Literal, pyoxigraph.Triple)
_BINDINGS = "a mapping of variable names to values, or None"


def term(value: object, *, parameter: str = "value") -> Term:
    """The RDF term for a Python value: terms pass, ``str`` is a plain literal, numbers typed.

    >>> term(3)
    <Literal value=3 datatype=<NamedNode value=http://www.w3.org/2001/XMLSchema#integer>>

    Raises:
        ArgumentTypeError: any other type (a ``TypeError``); ``parameter`` names the value.
        ArgumentValueError: a ``str`` that is not valid text (a ``ValueError``).
    """
    if isinstance(value, _TERMS):
        return value
    if isinstance(value, str):
        return pyoxigraph.Literal(_text(value, parameter))
    if isinstance(value, bool | int | float):
        return pyoxigraph.Literal(value)
    raise ArgumentTypeError(parameter, value, "a str, int, float, bool or pyoxigraph term")


def _variable(name: object, parameter: str) -> pyoxigraph.Variable:
    """The variable named ``name`` (without ``?``), which a binding gives a value to."""
    try:
        return pyoxigraph.Variable(_text(name, parameter, "a str (a variable name)"))
    except ValueError:
        raise ArgumentValueError(
            parameter, name, "is not a SPARQL variable name (letters, digits and _, no '?')"
        ) from None


def _mapping(value: object, parameter: str) -> Mapping[str, object]:
    """``value`` (None: no bindings), once known to be a mapping."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ArgumentTypeError(parameter, value, _BINDINGS)
    return value


def execute(
    query: str,
    bindings: Mapping[str, object] | None = None,
    *,
    target: pyoxigraph.Store | None = None,
    max_rows: int | None = None,
) -> Result:
    """Check, then run a query over ``target`` (default: the shipped graph).

    Each binding replaces a variable of the query (which must be in its projection).
    ``max_rows`` caps the rows or triples read; the result says when it cut them.

    Raises:
        NetworkRefusedError: for SERVICE, LOAD and FROM.
        ReadOnlyError: for an update.
        SparqlError: for a query that does not parse, bind or evaluate.
        ArgumentTypeError: an argument of the wrong type (a ``TypeError``).
        ArgumentValueError: text that is not valid Unicode, a bad variable name, a negative cap.
    """
    refuse_unsafe(_text(query, "query", "a str (the text of a SPARQL query)"))
    substitutions = {
        _variable(k, "a variable name of bindings"): term(v, parameter=f"bindings[{k!r}]")
        for k, v in _mapping(bindings, "bindings").items()
    }
    if target is not None and not isinstance(target, pyoxigraph.Store):
        raise ArgumentTypeError("target", target, "a pyoxigraph.Store or None")
    if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int)):
        raise ArgumentTypeError("max_rows", max_rows, "an int or None")
    if max_rows is not None and max_rows < 0:
        raise ArgumentValueError("max_rows", max_rows, "is negative: give 0 or more rows")
    try:
        answer = (store() if target is None else target).query(
            query, substitutions=substitutions or None
        )
        if isinstance(answer, pyoxigraph.QueryBoolean):
            return bool(answer)
        cap = None if max_rows is None else max_rows + 1
        if isinstance(answer, pyoxigraph.QuerySolutions):
            names = tuple(v.value for v in answer.variables)
            # a solution iterates over its values in the order of the variables (None where
            # unbound), ten times faster than looking each up by name
            rows = tuple(tuple(row) for row in itertools.islice(answer, cap))
            cut = max_rows is not None and len(rows) > max_rows
            return Solutions(names, rows[:max_rows] if cut else rows, truncated=cut)
        triples = tuple(itertools.islice(answer, cap))
        cut = max_rows is not None and len(triples) > max_rows
        return Triples(triples[:max_rows] if cut else triples, truncated=cut)
    except SyntaxError as error:
        raise SparqlError(f"invalid SPARQL: {error}") from None
    except RuntimeError as error:  # a binding of a variable outside the projection
        raise SparqlError(f"cannot bind the query's variables: {error}") from None
    except OSError as error:
        raise SparqlError(f"the query failed: {error}") from None


def sparql(query: str, /, bindings: Mapping[str, object] | None = None) -> Any:
    """Run a read-only SPARQL 1.1 query over the shipped graph.

    SELECT gives a list of rows (dicts of Python values: IRIs as ``str``, literals as ``str``,
    ``int``, ``bool``, ``date``...), ASK a ``bool``, CONSTRUCT and DESCRIBE Turtle text.
    ``bindings`` give values to variables (``str`` is a literal; use ``pyoxigraph.NamedNode``
    for an IRI).

    >>> sparql("SELECT ?l WHERE { <https://w3id.org/execution-atlas/stage/cpu> "
    ...        "<http://www.w3.org/2000/01/rdf-schema#label> ?l }")
    [{'l': 'CPU'}]

    Raises:
        NetworkRefusedError: for SERVICE, LOAD and FROM.
        ReadOnlyError: for an update.
        SparqlError: for a query that does not parse.
        ArgumentTypeError: a query that is not a ``str``, bindings that are not a mapping...
        ArgumentValueError: text that is not valid Unicode, a bad variable name.
    """
    result = execute(query, bindings)
    if isinstance(result, Solutions):
        return result.dicts()
    if isinstance(result, Triples):
        return serialize(result, "turtle").decode()
    return result


def write(result: Result, fmt: str | None = None) -> bytes:
    r"""Write a result as ``json``, ``xml``, ``csv``, ``tsv``, ``table``, ``turtle``...

    The default is a table for rows and ASK, Turtle for CONSTRUCT and DESCRIBE.

    >>> write(True, "json")
    b'{"head": {}, "boolean": true}\n'

    Raises:
        SparqlError: a format that cannot write this kind of result; the valid ones are named.
    """
    valid = formats_for(result)
    chosen = fmt or ("turtle" if isinstance(result, Triples) else "table")
    if chosen not in valid:
        kind = (
            "graph" if isinstance(result, Triples) else "ASK" if isinstance(result, bool) else "row"
        )
        raise SparqlError(
            f"format {chosen!r} cannot write {kind} results; valid: {', '.join(valid)}"
        )
    return serialize(result, chosen)


def parse_binding(text: str) -> tuple[str, object]:
    """A ``NAME=VALUE`` binding from the command line: ``<...>`` is an IRI, anything else text.

    >>> parse_binding("stage=<https://w3id.org/execution-atlas/stage/cpu>")
    ('stage', <NamedNode value=https://w3id.org/execution-atlas/stage/cpu>)

    Raises:
        SparqlError: without ``=``, with an invalid name or with an invalid IRI.
        ArgumentTypeError, ArgumentValueError: ``text`` is not a ``str``, or not valid text.
    """
    name, sep, value = _text(text, "binding", "a str (NAME=VALUE)").partition("=")
    name = name.strip().lstrip("?$")
    if not sep or not name:
        raise SparqlError(f"a binding is NAME=VALUE, not {shown(text)}")
    try:
        pyoxigraph.Variable(name)
    except ValueError:
        raise SparqlError(
            f"invalid name {shown(name)} in binding {shown(text)}: letters, digits and _"
        ) from None
    if value.startswith("<") and value.endswith(">"):
        try:
            return name, pyoxigraph.NamedNode(value[1:-1])
        except ValueError:
            raise SparqlError(f"invalid IRI in binding {shown(text)}") from None
    return name, value


class Engine(Protocol):
    """Where a query runs: the local store, or a remote endpoint (``atlas.publish.graphstore``)."""

    def query(self, query: str, bindings: Mapping[str, Term]) -> Result:
        """Run a query with bindings for some of its variables."""
        ...


@dataclass(frozen=True)
class Local:
    """The engine of a local pyoxigraph store (default: the shipped graph)."""

    target: pyoxigraph.Store | None = None

    def query(self, query: str, bindings: Mapping[str, Term]) -> Result:
        """Run a query with pyoxigraph substitutions."""
        return execute(query, bindings, target=self.target)


# --- named queries ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """A value a named query takes: an IRI under ``base`` (e.g. ``atlas/``), or a literal."""

    name: str
    base: str
    description: str
    optional: bool

    def term(self, value: str | Term) -> Term:
        """The term for a value: an id (``pytorch``), a relative IRI (``stage/cpu``) or an IRI."""
        if not isinstance(value, str):
            return value
        if self.base == "literal":
            return pyoxigraph.Literal(value)
        if ":" in value:
            iri = value
        elif value.startswith(_KINDS):
            iri = BASE_IRI + value
        else:
            iri = BASE_IRI + self.base + value
        try:
            return pyoxigraph.NamedNode(iri)
        except ValueError:
            raise SparqlError(f"invalid IRI {iri!r} for parameter {self.name!r}") from None


_HEADER = re.compile(r"^#\s?(.*)$")
_PARAM = re.compile(r"^@param\s+(\w+)\s+(\S+)\s+(.*)$")


@dataclass(frozen=True)
class NamedQuery:
    """A query shipped as ``queries/NAME.rq``, described by its header comment.

    Header lines ``# @param NAME BASE TEXT`` declare the values it takes (``(optional...`` in
    TEXT makes one optional), ``# @selection V1 V2...`` the variables that receive dimension
    values, and ``# @reachable VAR`` that only the steps reachable from ``VAR`` are kept.
    """

    name: str
    summary: str
    description: str
    text: str
    parameters: tuple[Parameter, ...] = ()
    selection: tuple[str, ...] = ()
    reachable: str | None = None

    @classmethod
    def parse(cls, name: str, text: str) -> NamedQuery:
        """Read a query and its header."""
        lines = []
        for line in text.splitlines():
            match = _HEADER.match(line)
            if not match:
                break
            lines.append(match.group(1).rstrip())
        prose = [line for line in lines if not line.startswith("@")]
        parameters, selection, reachable = [], (), None
        for line in lines:
            if found := _PARAM.match(line):
                pname, base, about = found.groups()
                parameters.append(Parameter(pname, base, about, "(optional" in about))
            elif line.startswith("@selection"):
                selection = tuple(line.split()[1:])
            elif line.startswith("@reachable"):
                reachable = line.split()[1]
        return cls(
            name=name,
            summary=prose[0] if prose else name,
            description="\n".join(prose).strip(),
            text=text,
            parameters=tuple(parameters),
            selection=selection,
            reachable=reachable,
        )

    def bind(self, values: Mapping[str, str | Term]) -> dict[str, Term]:
        """Turn values given by name into terms for the query's variables.

        Values of parameters become IRIs (or literals); with a ``@selection``, every other name
        is a dimension (``mode="compile"``) whose value is resolved as ``atlas.path`` does, and
        the chosen concepts fill the selection variables.

        Raises:
            UnknownValueError: an unknown name or dimension value; MissingValueError (a subclass):
                a parameter left without a value.
        """
        known = {p.name: p for p in self.parameters}
        bound: dict[str, Term] = {}
        dimensions: dict[str, str] = {}
        concepts: list[Term] = []
        for key, value in values.items():
            if key in known:
                bound[key] = known[key].term(value)
            elif key in self.selection:
                concepts.append(Parameter(key, "scheme/", "", optional=True).term(value))
            elif self.selection and isinstance(value, str):
                dimensions[key] = value
            else:
                raise UnknownValueError(
                    f"parameter of query {self.name!r}", key, [*known, *self.selection]
                )
        for parameter in self.parameters:
            if not parameter.optional and parameter.name not in bound:
                raise MissingValueError.parameter(self.name, parameter.name, parameter.description)
        if dimensions:
            atlas = bound.get("atlas")
            iri = atlas.value if isinstance(atlas, pyoxigraph.NamedNode) else None
            concepts.extend(_resolve(dimensions, iri))
        if len(concepts) > len(self.selection):
            raise UnknownValueError(
                f"number of dimension values for query {self.name!r}",
                str(len(concepts)),
                [f"at most {len(self.selection)}"],
            )
        if concepts:  # unused variables repeat a value, which leaves the conditions unchanged
            padded = concepts + [concepts[0]] * (len(self.selection) - len(concepts))
            bound.update(zip(self.selection, padded, strict=True))
        return bound


def _resolve(dimensions: Mapping[str, str], atlas_iri: str | None) -> list[Term]:
    """Concept IRIs for dimension values given by dimension name, as ``atlas.path`` reads them."""
    from atlas.query import paths as query  # noqa: PLC0415 - reads the JSON export, only when needed

    index = query.index()
    if atlas_iri is not None:
        atlas_id = atlas_iri.removeprefix(f"{BASE_IRI}atlas/")
        named = dict(dimensions)
        branch = named.pop("branch", None)  # a branch, such as graph breaks: off by default
        found, resolved = index.resolve((), named, atlas=atlas_id)
        if branch is not None:
            picked = index.branch(found.id, branch)
            resolved = (*resolved, picked)
        return [pyoxigraph.NamedNode(f"{BASE_IRI}scheme/{c.id}") for c in resolved]
    schemes: dict[str, list[ConceptScheme]] = {}
    for found in index.atlases.values():
        for scheme in (index.schemes[s] for s in found.dimensions if s in index.schemes):
            for key in {query.fold(scheme.id), query.fold(scheme.label)}:
                schemes.setdefault(key, []).append(scheme)
    out: list[Term] = []
    for name, value in dimensions.items():
        candidates = schemes.get(query.fold(name))
        if not candidates:
            labels = sorted({s.label for group in schemes.values() for s in group})
            raise UnknownValueError("dimension", name, labels)
        # A name such as "device" may be a dimension of several atlases: a value chooses in each
        # one that has it, so that a selection can span atlases.
        folded = query.fold(value)
        chosen = [
            c for scheme in candidates for c in scheme.values if folded in query.value_keys(c)
        ]
        if not chosen:
            labels = list(dict.fromkeys(c.label for s in candidates for c in s.values))
            raise UnknownValueError(name, value, labels)
        out.extend(pyoxigraph.NamedNode(f"{BASE_IRI}scheme/{c.id}") for c in chosen)
    return out


@functools.cache
def named_queries() -> dict[str, NamedQuery]:
    """Every named query shipped with the package, by name."""
    folder = resources.files("atlas.query") / "queries"
    found = sorted((f for f in folder.iterdir() if f.name.endswith(".rq")), key=lambda f: f.name)
    return {
        f.name[:-3]: NamedQuery.parse(f.name[:-3], f.read_text(encoding="utf-8")) for f in found
    }


def named_query(name: str) -> NamedQuery:
    """The named query ``name``, e.g. ``named_query("path")``.

    Raises:
        UnknownIdError: a ``LookupError`` naming the queries that exist.
        ArgumentTypeError, ArgumentValueError: ``name`` is not a ``str``, or not valid text.
    """
    try:
        return named_queries()[_text(name, "name", "a str (the name of a query, e.g. 'path')")]
    except KeyError:
        raise UnknownIdError("query", name, sorted(named_queries())) from None


def run(
    name: str, bindings: Mapping[str, str | Term] | None = None, *, engine: Engine | None = None
) -> Result:
    """Run a named query with values for its parameters; bound variables are left out of rows.

    >>> rows = run("path", {"atlas": "pytorch", "mode": "eager", "device": "cpu"})
    >>> len(rows.rows)
    4

    Raises:
        UnknownIdError: an unknown query.
        UnknownValueError: an unknown parameter or dimension value.
        ArgumentTypeError: bindings that are not a mapping of names to ``str`` or terms...
        ArgumentValueError: text that is not valid Unicode.
    """
    named = named_query(name)
    values = _mapping(bindings, "bindings")
    for key, value in values.items():
        _text(key, "a name of bindings", "a str (a parameter or dimension name)")
        if not isinstance(value, _TERMS):
            _text(value, f"bindings[{key!r}]", "a str (an id or IRI) or a pyoxigraph term")
    if engine is not None and not callable(getattr(engine, "query", None)):
        raise ArgumentTypeError("engine", engine, "an Engine (with a query method) or None")
    bound = named.bind(values)  # type: ignore[arg-type]  # str or terms, checked above
    result = (engine or Local()).query(named.text, bound)
    if not isinstance(result, Solutions):
        return result
    if named.reachable is not None:
        result = _reachable(result, bound.get(named.reachable), named.reachable)
    return result.without(bound)


def _reachable(found: Solutions, start: Term | None, column: str) -> Solutions:
    """The rows whose step is reachable from ``start`` through the steps of ``found``.

    The steps' ``ea:from``/``ea:to`` triples make a small graph, over which the named query
    ``downstream`` follows the steps with a SPARQL property path.
    """
    if start is None and found.rows and column in found.variables:
        start = found.column(column)[0]
    if start is None:
        return found
    graph = pyoxigraph.Store()
    ea_from, ea_to = pyoxigraph.NamedNode(f"{_EA}from"), pyoxigraph.NamedNode(f"{_EA}to")
    steps, froms, tos = found.column("step"), found.column("from"), found.column("to")
    graph.extend(
        pyoxigraph.Quad(s, p, o)  # type: ignore[arg-type]
        for s, f, t in zip(steps, froms, tos, strict=True)
        for p, o in ((ea_from, f), (ea_to, t))
    )
    reached = execute(named_query("downstream").text, {"start": start}, target=graph)
    assert isinstance(reached, Solutions)  # noqa: S101 - downstream is a SELECT
    stages = set(reached.column("stage"))
    rows = tuple(r for r, f in zip(found.rows, froms, strict=True) if f in stages)
    return Solutions(found.variables, rows, found.truncated)


@dataclass(frozen=True)
class PathRows:
    """What the SPARQL path query finds: the ids of the path's stages and steps."""

    stages: frozenset[str]
    steps: frozenset[str]


def path(
    *values: str,
    atlas: str = "pytorch",
    engine: Engine | None = None,
    branches: tuple[str, ...] = (),
    **dimensions: str,
) -> PathRows:
    """The stages and steps of a path, found by the named SPARQL query ``path``.

    Values (and branches) are read as :func:`atlas.path` reads them, and the answer is the same.

    >>> found = path("torch.compile", "gpu")
    >>> len(found.stages), len(found.steps)
    (12, 12)
    >>> len(path("torch.compile", "gpu", branches=("graph breaks",)).steps)
    14
    """
    from atlas.query import paths as query  # noqa: PLC0415 - resolves values as atlas.path does

    index = query.index()
    found, chosen = index.resolve(values, dimensions, atlas)
    chosen = (*chosen, *(index.branch(found.id, name) for name in branches))
    bindings: dict[str, str | Term] = {"atlas": found.id}
    slots = named_query("path").selection
    bindings.update(
        zip(slots, (pyoxigraph.NamedNode(f"{BASE_IRI}scheme/{c.id}") for c in chosen), strict=False)
    )
    result = run("path", bindings, engine=engine)
    assert isinstance(result, Solutions)  # noqa: S101 - path is a SELECT
    stage_base, step_base = f"{BASE_IRI}stage/", f"{BASE_IRI}step/"
    stages = {
        t.value.removeprefix(stage_base)
        for name in ("entry", "from", "to")
        for t in result.column(name)
        if isinstance(t, pyoxigraph.NamedNode)
    }
    steps = {
        t.value.removeprefix(step_base)
        for t in result.column("step")
        if isinstance(t, pyoxigraph.NamedNode)
    }
    return PathRows(frozenset(stages), frozenset(steps))
