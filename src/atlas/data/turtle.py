"""Turtle to models, and the rdflib graph of the dataset.

:func:`read_turtle` turns the curated Turtle files into one :class:`~atlas.models.AtlasDocument`.
It consumes every triple: a triple that no model field holds (a misspelt property, an untyped
subject) is a problem, so the JSON export can never silently lose a statement. All problems are
collected and raised together, each naming its file, line and resource. The files are parsed by
:mod:`atlas.data._graph` (pyoxigraph); :mod:`atlas.data._rdflib` builds the rdflib graph of the
API and explains syntax errors (both are named here too, for readers of Turtle).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pydantic
from pyoxigraph import NamedNode

from atlas.data._files import TurtleFile
from atlas.data._graph import RDF_TYPE, Graph, parse
from atlas.data._rdflib import SYNTAX_HINT, dataset_graph, rdflib_problem
from atlas.data._reader import Reader, order_key, show, value_key
from atlas.data._resources import shipped_turtle
from atlas.errors import DatasetError, Problem, shown
from atlas.models import AtlasDocument
from atlas.models._iri import BASE_IRI
from atlas.models._vocab import CLASSES, COLLECTIONS, context, expand

__all__ = [
    "SYNTAX_HINT",
    "TurtleFile",
    "dataset_graph",
    "rdflib_problem",
    "read_graph",
    "read_turtle",
    "shipped_turtle",
]


def read_turtle(files: Iterable[TurtleFile] | None = None) -> AtlasDocument:
    """Read Turtle files (default: the shipped ones) into one validated document.

    Raises:
        DatasetError: listing every problem found, each with its file, line and resource.
    """
    return read_graph(parse(shipped_turtle() if files is None else files))


def read_graph(graph: Graph) -> AtlasDocument:
    """Read parsed Turtle files (see :func:`atlas.data._graph.parse`) into one validated document.

    Raises:
        DatasetError: listing every problem found, each with its file, line and resource.
    """
    if graph.problems:
        raise DatasetError(graph.problems, source="Turtle dataset")
    reader = Reader(graph)
    dataset, collections = _typed_records(graph, reader)
    _orphan_claims(graph, reader)
    _left_over(graph, reader)
    if dataset is None:
        reader.problems.append(
            Problem(
                "violation",
                f"no dataset description: <{BASE_IRI}> a dcat:Dataset is missing",
                hint="describe the dataset in catalog.ttl",
                code="missing",
            )
        )
    if reader.problems:
        raise DatasetError(_dedupe(reader.problems), source="Turtle dataset")
    assert dataset is not None  # noqa: S101 - checked just above
    return _document(dataset, collections, reader)


def _typed_records(
    graph: Graph, reader: Reader
) -> tuple[dict[str, Any] | None, dict[str, list[dict[str, Any]]]]:
    """The dataset's description and the records of each collection, read subject by subject."""
    collections: dict[str, list[dict[str, Any]]] = {key: [] for key in COLLECTIONS}
    dataset: dict[str, Any] | None = None
    nested_types = {
        c.rdf_type
        for c in CLASSES.values()
        if c.name in ("Concept", "TextQuoteSelector", "Claim", "Distribution", "ContactPoint")
    }
    by_type = {expand(c.rdf_type): c for c in CLASSES.values()}
    collection_of = {v: k for k, v in COLLECTIONS.items()}
    typed = (s for s, properties in graph.subjects.items() if RDF_TYPE in properties)
    for subject in sorted(typed, key=value_key):
        types = sorted(graph.subjects[subject][RDF_TYPE], key=value_key)
        known = [by_type[t.value] for t in types if t.value in by_type]
        if len(types) > 1:
            reader.problem(
                subject,
                f"has {len(types)} types ({', '.join(show(t) for t in types)}), expected one",
                code="type",
            )
        if not known:
            reader.problem(subject, f"has an unknown type {show(types[0])}", code="type")
            continue
        cls = known[0]
        if cls.rdf_type in nested_types:
            continue  # read as part of their scheme or citation
        data = reader.node(subject, cls)
        if cls.name == "Dataset":
            if subject.value != BASE_IRI:
                reader.problem(subject, f"the dataset's IRI must be <{BASE_IRI}>", code="bad-iri")
            dataset = data
        else:
            collections[collection_of[cls.name]].append(data)
    return dataset, collections


def _orphan_claims(graph: Graph, reader: Reader) -> None:
    """A problem for each claim that is about nothing the reader read."""
    claim_type = NamedNode(expand(CLASSES["Claim"].rdf_type))
    about = NamedNode(expand("ea:about"))
    for subject, properties in graph.subjects.items():
        if claim_type in properties.get(RDF_TYPE, ()) and not any(
            (subject, about, parent) in reader.consumed_triples
            for parent in properties.get(about, ())
        ):
            reader.problem(
                subject,
                "is a claim about no atlas, stage, step, technology, relation, concept or "
                "no-path record",
                hint="ea:about must name one such resource, declared with its type",
                code="orphan-claim",
            )
            reader.consumed.update((subject, predicate) for predicate in properties)


def _left_over(graph: Graph, reader: Reader) -> None:
    """A problem for each triple that no model field holds: nothing is silently lost."""
    left = [
        (subject, predicate, obj)
        for subject, predicate, obj in graph.triples()
        if (subject, predicate) not in reader.consumed
        and (subject, predicate, obj) not in reader.consumed_triples
    ]
    for subject, predicate, obj in sorted(left, key=lambda t: (t[0].value, t[1].value, t[2].value)):
        if RDF_TYPE not in graph.subjects[subject]:
            reader.problem(
                subject,
                f"is described ({show(predicate)} {show(obj)}) but has no rdf:type",
                hint="declare the resource's class, e.g. 'a ea:Step', or fix a misspelt IRI",
                code="untyped",
            )
        else:
            reader.problem(
                subject,
                f"unknown or misplaced property {show(predicate)} (value {show(obj)})",
                hint="see schema/vocabulary.ttl and dataset/README.md for the properties in use",
                code="unknown-property",
            )


def _dedupe(problems: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))


def _document(
    dataset: dict[str, Any], collections: dict[str, list[dict[str, Any]]], reader: Reader
) -> AtlasDocument:
    schemes = {s["id"]: s for s in collections["schemes"] if s.get("id")}
    for atlas in collections["atlases"]:
        atlas["dimensions"] = sorted(
            atlas.get("dimensions", []),
            key=lambda d: (
                schemes.get(d, {}).get("order") is None,
                schemes.get(d, {}).get("order") or 0,
                d,
            ),
        )
    for key in COLLECTIONS:
        if key == "steps":
            collections[key].sort(key=lambda s: (str(s.get("atlas")), *order_key(s)))
        elif key in ("citations", "sources"):
            collections[key].sort(key=lambda s: str(s.get("id")))
        else:
            collections[key].sort(key=order_key)
    counts = {key: len(collections[key]) for key in COLLECTIONS if key != "schemes"}
    claimed = [*collections["atlases"], *collections["stages"], *collections["steps"]]
    claimed += [*collections["technologies"], *collections["relations"], *collections["noPaths"]]
    claimed += [value for scheme in collections["schemes"] for value in scheme.get("values", [])]
    counts["claims"] = sum(len(item.get("claims", ())) for item in claimed)
    version = dataset.get("version", "0.0.0")
    raw: dict[str, Any] = {
        "@context": context(),
        **{k: v for k, v in dataset.items() if k != "type"},
        "attribution": f"Execution Atlas {version} ({BASE_IRI}), licensed CC BY 4.0",
        "counts": counts,
        **collections,
    }
    try:
        return AtlasDocument.model_validate(raw)
    except pydantic.ValidationError as error:
        raise DatasetError(
            _pydantic_problems(error, raw, reader), source="Turtle dataset"
        ) from None


def _pydantic_problems(
    error: pydantic.ValidationError, raw: dict[str, Any], reader: Reader
) -> list[Problem]:
    problems = []
    for item in error.errors():
        loc = item["loc"]
        node: Any = raw
        subject_iri: str | None = None
        path = []
        for part in loc:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                break
            if isinstance(node, dict) and "type" in node and "id" in node:
                cls = CLASSES.get(str(node["type"]))
                if cls and cls.base is not None:
                    subject_iri = (
                        (BASE_IRI + cls.base + str(node["id"]))
                        if cls.base
                        else str(node.get(cls.id_key))
                    )
            path.append(str(part))
        field_name = str(loc[-1]) if loc else "document"
        where: dict[str, Any] = {"file": None, "line": None}
        if subject_iri:
            where = reader.graph.place(subject_iri)
        problems.append(
            Problem(
                "violation",
                f"{field_name}: {item['msg']}"
                + (f" (got {shown(item['input'])})" if item["type"] != "missing" else ""),
                subject=subject_iri,
                hint=_hint(item),
                code=str(item["type"]),
                **where,
            )
        )
    return problems


def _hint(item: Any) -> str | None:
    kind = item["type"]
    if kind == "missing":
        return f"add the property for {item['loc'][-1]!r} (see dataset/README.md)"
    if kind == "string_pattern_mismatch":
        return "ids are lower-case kebab-case; URLs start with https://"
    if kind == "literal_error":
        return "use one of the allowed values"
    return None
