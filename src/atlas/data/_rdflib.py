"""rdflib, where the package still needs it: the rdflib graph of the API, and its error words.

pyoxigraph parses the dataset (:mod:`atlas.data._graph`); rdflib is imported only here and only
when asked: for :func:`atlas.graph` (an ``rdflib.Graph`` of the dataset) and to word a syntax error
as ``atlas check`` always worded it. rdflib logs a traceback for each ill-typed literal, which
:func:`quiet_rdflib` silences while the checks report the literal themselves.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from atlas.data._resources import shipped_turtle
from atlas.errors import DatasetError, Problem
from atlas.models._iri import BASE_IRI, NAMESPACES

if TYPE_CHECKING:
    import rdflib

    from atlas.data._files import TurtleFile

__all__ = ["SYNTAX_HINT", "dataset_graph", "quiet_rdflib", "rdflib_problem"]

SYNTAX_HINT = "fix the syntax; every prefix must be declared with @prefix"


@contextmanager
def quiet_rdflib() -> Iterator[None]:
    """Silence rdflib's logged tracebacks for ill-typed literals; checks report them instead."""
    logger = logging.getLogger("rdflib")

    def drop(record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR

    logger.addFilter(drop)
    term = logging.getLogger("rdflib.term")
    term.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)
        term.removeFilter(drop)


def rdflib_problem(file: TurtleFile) -> Problem | None:
    """The syntax error in ``file`` as rdflib words it, or None when rdflib reads the file."""
    graph_or_problem = _rdflib_parse(file)
    return graph_or_problem if isinstance(graph_or_problem, Problem) else None


def _rdflib_parse(file: TurtleFile) -> rdflib.Graph | Problem:
    import rdflib  # noqa: PLC0415 - only the rdflib graph of the API and error reports need it
    from rdflib.plugins.parsers.notation3 import BadSyntax  # noqa: PLC0415

    part = rdflib.Graph()
    try:
        # rdflib logs a traceback for each ill-typed literal; the reader reports them itself
        with quiet_rdflib():
            part.parse(data=file.text, format="turtle", publicID=BASE_IRI)
    except BadSyntax as error:
        line = int(getattr(error, "lines", 0)) + 1 or None
        why = str(getattr(error, "_why", "") or error).strip()
        return Problem(
            "violation",
            f"Turtle syntax error: {why}",
            file=file.name,
            line=line,
            hint=SYNTAX_HINT,
            code="syntax",
        )
    except Exception as error:  # noqa: BLE001 - rdflib raises many types for bad input
        return Problem("violation", f"cannot parse Turtle: {error}", file=file.name, code="syntax")
    return part


def dataset_graph(files: Iterable[TurtleFile] | None = None) -> rdflib.Graph:
    """Parse Turtle files (default: the shipped ones) into one rdflib graph.

    Raises:
        DatasetError: when a file is not valid Turtle.
    """
    import rdflib  # noqa: PLC0415

    graph = rdflib.Graph()
    problems = []
    for file in shipped_turtle() if files is None else files:
        part = _rdflib_parse(file)
        if isinstance(part, Problem):
            problems.append(part)
        else:
            graph += part
    if problems:
        raise DatasetError(problems, source="Turtle dataset")
    for prefix, namespace in NAMESPACES.items():
        graph.bind(prefix, namespace)
    return graph
