"""The SHACL shapes of the Turtle: run them, and report each result as a problem at its place.

:func:`shacl_report` runs ``schema/shapes.ttl`` on the triples as written (shacl-rust, on their
text or, streaming, on a file of them); :func:`shacl_problems` turns the results into problems
named by the JSON key of the property at fault (:func:`predicate_key`) and the compact IRIs
(:func:`compact`) that readers of the Turtle know.
"""

from __future__ import annotations

import functools
import io
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.data import _resources
from atlas.errors import Problem
from atlas.models._iri import BASE_IRI
from atlas.models._vocab import CLASSES, NAMESPACES, expand

if TYPE_CHECKING:
    import rdflib

    from atlas.data._graph import Graph

__all__ = ["SHAPES_NAME", "compact", "predicate_key", "shacl_problems", "shacl_report"]

SHAPES_NAME = "shapes.ttl"

SH = "http://www.w3.org/ns/shacl#"

_PREFIXES = (
    ("scheme/", "scheme:"),
    ("stage/", "stage:"),
    ("step/", "step:"),
    ("citation/", "cite:"),
    ("atlas/", "atlas:"),
    ("technology/", "tech:"),
    ("relation/", "relation:"),
)


def compact(iri: str) -> str:
    """A short, readable name for an IRI of the dataset, as written in the Turtle files.

    >>> compact("https://w3id.org/execution-atlas/scheme/pytorch-mode/eager")
    'pytorch-mode:eager'
    >>> compact("https://w3id.org/execution-atlas/step/x")
    'step:x'
    """
    if iri.startswith(BASE_IRI):
        local = iri[len(BASE_IRI) :]
        for base, prefix in _PREFIXES:
            if local.startswith(base):
                rest = local[len(base) :]
                if base == "scheme/" and "/" in rest:
                    return rest.replace("/", ":", 1)
                return prefix + rest
    for prefix, namespace in NAMESPACES.items():
        if iri.startswith(namespace) and len(iri) > len(namespace):
            return f"{prefix}:{iri[len(namespace) :]}"
    return f"<{iri}>"


_IRI_IN_TEXT = re.compile(r"(?<![<\w])(https?://[^\s,;)>]+)")


def _compact_text(text: str) -> str:
    return _IRI_IN_TEXT.sub(lambda m: compact(m.group(1)), text)


@functools.cache
def _shapes() -> str:
    return (_resources.schema_dir() / SHAPES_NAME).read_text(encoding="utf-8")


def shacl_report(n_triples: bytes | Path) -> list[dict[str, Any]]:
    """The results of ``schema/shapes.ttl`` on a graph written in N-Triples (shacl-rust's own).

    ``n_triples`` is the text, or a file that holds it, which the engine then reads in a stream
    (the text is never held whole in memory). It uses its interned index (half the memory and
    time of its default one at a million triples).
    """
    import shacl_rust  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    if isinstance(n_triples, Path):
        report = shacl_rust.validate_file(
            str(n_triples),
            io.BytesIO(_shapes().encode("utf-8")),
            data_format="nt",
            shapes_format="turtle",
            experimental_index=True,
        )
    else:
        report = shacl_rust.validate(
            n_triples.decode("utf-8"),
            _shapes(),
            data_format="nt",
            shapes_format="turtle",
            experimental_index=True,
        )
    results: list[dict[str, Any]] = report["results"]
    _return_freed_memory()
    return results


def _return_freed_memory() -> None:
    """Hand the memory the engine freed back to the system (glibc keeps it otherwise).

    At a million triples the engine's index freed some 350 MiB that glibc's allocator kept for
    the process; the graph built next would stack on top of it. Elsewhere than glibc: nothing.
    """
    import ctypes  # noqa: PLC0415 - only after a run of the engine

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):  # not glibc
        return
    trim(0)


def shacl_problems(
    graph: Graph | rdflib.Graph,
    where: Any = None,
    *,
    results: list[dict[str, Any]] | None = None,
) -> list[Problem]:
    """Validate a dataset graph against ``schema/shapes.ttl`` (shacl-rust, no inference).

    ``graph`` is parsed Turtle (:func:`atlas.data._graph.parse`) or an rdflib graph; ``results``,
    the engine's results when they are already there (:func:`shacl_report`). ``where`` maps an
    IRI to ``{"file": ..., "line": ...}`` for messages. Results that say the same thing of the
    same resource are reported once.
    """
    from pyoxigraph import BlankNode, Literal, NamedNode  # noqa: PLC0415

    from atlas.data import _graph  # noqa: PLC0415

    if not isinstance(graph, _graph.Graph):
        written = graph.serialize(format="nt", encoding="utf-8")
        graph = _graph.parse([_graph.TurtleFile("graph", written.decode("utf-8"))])
    if results is None:
        results = shacl_report(graph.n_triples())
    has_selector = NamedNode(expand("oa:hasSelector"))
    problems = []
    for result in results:
        focus = _graph.term(result["focusNode"])
        value = _graph.term(result["value"]) if "value" in result else None
        messages = result.get("messages") or ["does not conform"]
        if isinstance(focus, BlankNode):  # a quote selector: report its citation
            owners = graph.subjects_of(has_selector, focus)
            focus = owners[0] if owners else focus
        subject = focus.value if isinstance(focus, NamedNode) else None
        key = _path_key(result.get("resultPath"), graph, focus)
        text = _compact_text(messages[-1])  # the shape's sh:message comes last
        if value is not None and value != focus:
            shown = repr(value.value) if isinstance(value, Literal) else compact(value.value)
            if isinstance(value, Literal) and not _graph.plain(value):
                shown += f"^^{compact(value.datatype.value)}"
            if shown not in text:
                text += f" (found {shown})"
        located = where(subject) if where and subject else {}
        problems.append(
            Problem(
                "violation" if result["severity"] == f"<{SH}Violation>" else "warning",
                f"{key + ': ' if key else ''}{text}",
                subject=subject,
                hint="see schema/shapes.ttl and dataset/README.md",
                code="shacl",
                **located,
            )
        )
    return sorted(set(problems))


_PATH_STEP = re.compile(r"<([^<>]*)>")


def _path_key(path: str | None, graph: Graph, focus: Any) -> str | None:
    """The JSON key of a SHACL result path (its last predicate), e.g. 'citations'.

    shacl-rust writes a path in SPARQL syntax: ``<p>``, or a sequence ``<p> / <q>``.
    """
    from pyoxigraph import Literal  # noqa: PLC0415

    from atlas.data import _graph  # noqa: PLC0415

    if path is None:
        return None
    steps = [step.strip() for step in path.split(" / ")]
    matches = [_PATH_STEP.fullmatch(step) for step in steps]
    if not all(matches):
        return None  # an inverse or alternative path: none in the shapes
    last = matches[-1]
    assert last is not None  # noqa: S101 - checked just above
    types = [] if isinstance(focus, Literal) else graph.objects(focus, _graph.RDF_TYPE)
    return predicate_key(last.group(1), types[0].value if len(types) == 1 else None)


@functools.cache
def _keys_by_predicate() -> dict[tuple[str | None, str], str]:
    keys: dict[tuple[str | None, str], str] = {}
    for cls in CLASSES.values():
        for term in cls.terms:
            if term.kind != "reverse":
                keys.setdefault((expand(cls.rdf_type), expand(term.predicate)), term.key)
                keys.setdefault((None, expand(term.predicate)), term.key)
    return keys


def predicate_key(predicate: str, rdf_type: str | None = None) -> str:
    """The JSON key a predicate maps to for a class (else for any class), else its short name.

    >>> predicate_key("http://purl.org/dc/terms/isPartOf", expand("ea:Step"))
    'atlas'
    >>> predicate_key("http://www.w3.org/ns/prov#wasDerivedFrom")
    'citations'
    """
    keys = _keys_by_predicate()
    return keys.get((rdf_type, predicate)) or keys.get((None, predicate)) or compact(predicate)
