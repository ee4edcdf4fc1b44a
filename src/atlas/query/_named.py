"""The named queries shipped as ``queries/*.rq``, and running them with values bound.

A :class:`NamedQuery` reads its header comment for the values it takes; :func:`run` binds them
(dimension values resolved as :func:`atlas.path` reads them), refuses an id the graph does not
hold (``language=cobol`` would match nothing, silently) and keeps, for a ``@reachable`` query,
the rows reachable from the entry. :func:`path` asks the query ``path`` for a path.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

import pyoxigraph

from atlas.errors import ArgumentTypeError, MissingValueError, UnknownIdError, UnknownValueError
from atlas.models._names import text as _text
from atlas.query._engines import TERMS, Engine, Local, checked_mapping, execute
from atlas.query._results import BASE_IRI, Result, Solutions, Term
from atlas.query._sparql import SparqlError

if TYPE_CHECKING:
    from atlas.models import ConceptScheme

__all__ = [
    "NamedQuery",
    "Parameter",
    "PathRows",
    "named_queries",
    "named_query",
    "path",
    "run",
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


_HOLDS = "ASK { { ?term ?p ?o } UNION { ?s ?p ?term } }"  # the graph names the term
_TYPED = "SELECT DISTINCT ?s WHERE { ?s a ?type }"  # everything the graph gives a type
_LISTED = 30  # valid values listed whole up to this many; past it, the closest ones
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

    def to_json(self) -> dict[str, Any]:
        """The query as ``atlas sparql --list --json`` prints it: what it answers, what it takes.

        >>> named_query("written-in").to_json()["parameters"][0]["name"]
        'language'
        """
        return {
            "name": self.name,
            "summary": self.summary,
            "description": self.description,
            "parameters": [
                {
                    "name": p.name,
                    "base": p.base,
                    "description": p.description,
                    "optional": p.optional,
                }
                for p in self.parameters
            ],
            "selection": list(self.selection),
            "reachable": self.reachable,
        }

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
        UnknownValueError: an unknown parameter or dimension value, or an id (an IRI) that the
            graph does not hold, which no row could match.
        ArgumentTypeError: bindings that are not a mapping of names to ``str`` or terms...
        ArgumentValueError: text that is not valid Unicode.
    """
    named = named_query(name)
    values = checked_mapping(bindings, "bindings")
    for key, value in values.items():
        _text(key, "a name of bindings", "a str (a parameter or dimension name)")
        if not isinstance(value, TERMS):
            _text(value, f"bindings[{key!r}]", "a str (an id or IRI) or a pyoxigraph term")
    if engine is not None and not callable(getattr(engine, "query", None)):
        raise ArgumentTypeError("engine", engine, "an Engine (with a query method) or None")
    bound = named.bind(values)  # type: ignore[arg-type]  # str or terms, checked above
    engine = engine or Local()
    _refuse_unknown(named, bound, engine)
    result = engine.query(named.text, bound)
    if not isinstance(result, Solutions):
        return result
    if named.reachable is not None:
        result = _reachable(result, bound.get(named.reachable), named.reachable)
    return result.without(bound)


def _refuse_unknown(named: NamedQuery, bound: Mapping[str, Term], engine: Engine) -> None:
    """Raise when a parameter names an IRI the graph does not hold: no row could ever match it.

    Raises:
        UnknownValueError: naming the parameter and the value, with the ids of its kind.
    """
    for parameter in named.parameters:
        term = bound.get(parameter.name)
        if not isinstance(term, pyoxigraph.NamedNode) or engine.query(_HOLDS, {"term": term}):
            continue
        prefix = BASE_IRI + parameter.base
        value = term.value.removeprefix(prefix)
        typed = engine.query(_TYPED, {})
        found = typed.column("s") if isinstance(typed, Solutions) else ()
        ids = sorted(
            t.value.removeprefix(prefix)
            for t in found
            if isinstance(t, pyoxigraph.NamedNode) and t.value.startswith(prefix)
        )
        kind = parameter.base.rstrip("/")
        extra = f"the {kind} ids of the graph, which query {named.name!r} takes"
        if len(ids) > _LISTED:
            extra = f"the closest of the {len(ids)} {kind} ids, which query {named.name!r} takes"
            ids = difflib.get_close_matches(value, ids, n=5, cutoff=0) or ids[:5]
        raise UnknownValueError(parameter.name, value, ids, extra)


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
