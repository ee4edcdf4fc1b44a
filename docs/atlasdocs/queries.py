"""The named queries (``src/atlas/query/queries/*.rq``), each run on the shipped data at build time.

For each query: what its header says, its text, the command that runs it with example values,
and the rows that command gives today. The example values are those the query's header gives
(``e.g. VALUE`` in a parameter's description); a query over a selection of dimension values
gets the CLI's own example, ``mode=compile device=gpu``.
"""

from __future__ import annotations

import re
import shlex

import pyoxigraph

from atlas.models._iri import BASE_IRI
from atlas.query import store
from atlas.query._results import Solutions
from atlasdocs.markdown import code, escape, shorten, table

__all__ = ["MAX_ROWS", "SELECTION_EXAMPLE", "bindings", "reference"]

#: Rows shown of each answer; the count says how many there were.
MAX_ROWS = 12
#: The dimension values given to a query over a selection (as ``atlas sparql --list`` suggests).
SELECTION_EXAMPLE = {"mode": "compile", "device": "gpu"}
_EXAMPLE = re.compile(r"\be\.g\. ([^\s,()]+)")
_CELL = 120  # characters of a value shown in a cell


class ExampleError(ValueError):
    """A query parameter whose description gives no example value."""


def bindings(named: store.NamedQuery) -> dict[str, str]:
    """The example values of a query: each parameter's ``e.g.``, and a selection's dimensions."""
    values = {}
    for parameter in named.parameters:
        found = _EXAMPLE.search(parameter.description)
        if found is None:
            raise ExampleError(
                f"the parameter {parameter.name!r} of the query {named.name!r} gives no example"
                f" ('e.g. VALUE' in its description): {parameter.description!r}"
            )
        values[parameter.name] = found.group(1)
    if named.selection:
        values |= SELECTION_EXAMPLE
    return values


def _cell(term: object) -> str:
    if term is None:
        return ""
    if isinstance(term, pyoxigraph.NamedNode):
        value = term.value
        return code(value.removeprefix(BASE_IRI)) if value.startswith(BASE_IRI) else escape(value)
    if isinstance(term, pyoxigraph.Literal):
        return escape(shorten(term.value, _CELL))
    return escape(str(term))


def _answer(named: store.NamedQuery, values: dict[str, str]) -> str:
    result = store.run(named.name, values)
    if not isinstance(result, Solutions):  # no named query is ASK or CONSTRUCT today
        return f"```text\n{store.write(result).decode().rstrip()}\n```"
    rows = [[_cell(term) for term in row] for row in result.rows[:MAX_ROWS]]
    count = len(result.rows)
    shown = f"{count} rows" if count <= MAX_ROWS else f"{count} rows, the first {MAX_ROWS} shown"
    if count == 1:
        shown = "1 row"
    header = [code(f"?{name}") for name in result.variables]
    return f"{shown} (IRIs under `{BASE_IRI}` shortened):\n\n" + table(header, rows)


def _section(named: store.NamedQuery) -> str:
    values = bindings(named)
    command = ["atlas", "sparql", "--name", named.name]
    for name, value in values.items():
        command += ["--bind", f"{name}={value}"]
    described = "\n\n".join(escape(part) for part in named.description.split("\n\n")[1:])
    params = [f"- `{p.name}`: {escape(p.description)}" for p in named.parameters]
    if named.selection:
        params.append("- `DIMENSION=VALUE`: one value per dimension, e.g. `mode=compile`")
    parts = [f"## {named.name}", "", escape(named.summary), ""]
    if described:
        parts += [described, ""]
    if params:
        parts += ["It takes:", "", *params, ""]
    parts += ["```sparql", named.text.rstrip(), "```", ""]
    parts += ["```console", f"$ {shlex.join(command)}", "```", ""]
    parts += [_answer(named, values), ""]
    return "\n".join(parts)


def reference() -> str:
    """Every named query, in name order, with its answer on the shipped data."""
    queries = store.named_queries()
    index = table(
        ["query", "what it answers"],
        ([f"[{code(name)}](#{name})", escape(q.summary)] for name, q in sorted(queries.items())),
    )
    sections = [_section(queries[name]) for name in sorted(queries)]
    return "\n\n".join([index, *sections])
