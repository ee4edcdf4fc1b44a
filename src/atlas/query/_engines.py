"""Where SPARQL queries run: pyoxigraph stores, and the checked evaluation of a query on them.

:func:`execute` refuses what the guard refuses (:mod:`atlas.query._sparql`), checks its
arguments and reads the answer into a :mod:`result <atlas.query._results>`; an :class:`Engine`
runs a query with bindings, :class:`Local` on a local store (``atlas.publish.graphstore`` has
the remote one).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pyoxigraph

from atlas.data import _resources
from atlas.data._files import MAX_TURTLE_BYTES, UnsafeFileError, regular_file
from atlas.errors import ArgumentTypeError, ArgumentValueError
from atlas.models._names import text as _text
from atlas.query._projection import in_query_order
from atlas.query._results import BASE_IRI, Result, Solutions, Term, Triples
from atlas.query._sparql import SparqlError, refuse_unsafe

__all__ = [
    "TERMS",
    "Engine",
    "Local",
    "checked_mapping",
    "execute",
    "load_store",
    "store",
    "term",
]

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


TERMS = (pyoxigraph.NamedNode, pyoxigraph.BlankNode, pyoxigraph.Literal, pyoxigraph.Triple)
_BINDINGS = "a mapping of variable names to values, or None"


def term(value: object, *, parameter: str = "value") -> Term:
    """The RDF term for a Python value: terms pass, ``str`` is a plain literal, numbers typed.

    >>> term(3)
    <Literal value=3 datatype=<NamedNode value=http://www.w3.org/2001/XMLSchema#integer>>

    Raises:
        ArgumentTypeError: any other type (a ``TypeError``); ``parameter`` names the value.
        ArgumentValueError: a ``str`` that is not valid text (a ``ValueError``).
    """
    if isinstance(value, TERMS):
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


def checked_mapping(value: object, parameter: str) -> Mapping[str, object]:
    """``value`` (None: no bindings), once known to be a mapping of bindings."""
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
    base_iri: str | None = None,
) -> Result:
    """Check, then run a query over ``target`` (default: the shipped graph).

    Each binding replaces a variable of the query (which must be in its projection).
    ``max_rows`` caps the rows or triples read; the result says when it cut them.
    ``base_iri`` resolves the query's relative IRIs (an endpoint's URL, as the protocol asks).

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
        for k, v in checked_mapping(bindings, "bindings").items()
    }
    if target is not None and not isinstance(target, pyoxigraph.Store):
        raise ArgumentTypeError("target", target, "a pyoxigraph.Store or None")
    if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int)):
        raise ArgumentTypeError("max_rows", max_rows, "an int or None")
    if max_rows is not None and max_rows < 0:
        raise ArgumentValueError("max_rows", max_rows, "is negative: give 0 or more rows")
    try:
        answer = (store() if target is None else target).query(
            query, substitutions=substitutions or None, base_iri=base_iri
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
            found = Solutions(names, rows[:max_rows] if cut else rows, truncated=cut)
            return in_query_order(query, found)  # SELECT *: the query's order
        triples = tuple(itertools.islice(answer, cap))
        cut = max_rows is not None and len(triples) > max_rows
        return Triples(triples[:max_rows] if cut else triples, truncated=cut)
    except SyntaxError as error:
        raise SparqlError(f"invalid SPARQL: {error}") from None
    except RuntimeError as error:  # a binding of a variable outside the projection
        raise SparqlError(f"cannot bind the query's variables: {error}") from None
    except OSError as error:
        raise SparqlError(f"the query failed: {error}") from None


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
