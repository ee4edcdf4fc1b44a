"""The vocabulary's diagram, drawn from ``schema/vocabulary.ttl`` at build time (Mermaid).

Each class is a box holding its datatype properties (``name: range``); each object property is an
arrow from each class of its domain to each class of its range (a union counts each member);
``rdfs:subClassOf`` is a dotted arrow. Retired terms (``owl:deprecated true``) are left out.
Classes of other vocabularies appear where the atlas's terms point to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rdflib import OWL, RDF, RDFS, Graph, Literal, URIRef
from rdflib.collection import Collection

from atlasdocs.include import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from rdflib.term import Node

__all__ = ["SUBCLASS", "Vocabulary", "diagram", "mermaid", "read"]

#: The text of a subclass arrow.
SUBCLASS = "subclass of"
_FILE = ROOT / "schema" / "vocabulary.ttl"


@dataclass
class Vocabulary:
    """The vocabulary as the diagram shows it: boxes (with lines of text) and labelled arrows."""

    boxes: dict[str, list[str]] = field(default_factory=dict)
    arrows: list[tuple[str, str, str]] = field(default_factory=list)


def read(graph: Graph | None = None) -> Vocabulary:
    """The boxes and arrows of the vocabulary in ``graph`` (default: the shipped one)."""
    if graph is None:
        graph = Graph().parse(_FILE, format="turtle")
    found = Vocabulary()
    _classes(graph, found)
    _properties(graph, found)
    return found


def _classes(graph: Graph, found: Vocabulary) -> None:
    short = _shortener(graph)
    for cls in sorted(graph.subjects(RDF.type, OWL.Class), key=str):
        if isinstance(cls, URIRef) and not _retired(graph, cls):
            found.boxes.setdefault(short(cls), [])
            for parent in graph.objects(cls, RDFS.subClassOf):
                found.boxes.setdefault(short(parent), [])
                found.arrows.append((short(cls), short(parent), SUBCLASS))


def _properties(graph: Graph, found: Vocabulary) -> None:
    short = _shortener(graph)
    for kind in (OWL.DatatypeProperty, OWL.ObjectProperty):
        for prop in sorted(graph.subjects(RDF.type, kind), key=str):
            if _retired(graph, prop):
                continue
            ranges = [short(r) for r in _members(graph, RDFS.range, prop)]
            for domain in _members(graph, RDFS.domain, prop):
                lines = found.boxes.setdefault(short(domain), [])
                if kind == OWL.DatatypeProperty:
                    lines.append(f"{short(prop)}: {', '.join(ranges)}")
                    continue
                for target in ranges:
                    found.boxes.setdefault(target, [])
                    found.arrows.append((short(domain), target, short(prop)))


def _shortener(graph: Graph) -> Callable[[Node], str]:
    """A term as a prefixed name (``ea:Stage``), with the graph's prefixes."""
    return lambda term: graph.namespace_manager.normalizeUri(str(term))


def _retired(graph: Graph, term: Node) -> bool:
    values = graph.objects(term, OWL.deprecated)
    return any(isinstance(value, Literal) and value.toPython() is True for value in values)


def _members(graph: Graph, predicate: URIRef, prop: Node) -> list[Node]:
    """The classes a domain or range names: itself, or the members of its ``owl:unionOf``."""
    classes: list[Node] = []
    for value in graph.objects(prop, predicate):
        union = graph.value(value, OWL.unionOf)
        classes.extend(Collection(graph, union) if union is not None else [value])
    return classes


def _node(name: str) -> str:
    return name.replace(":", "_").replace("-", "_")


def mermaid(vocabulary: Vocabulary) -> str:
    """The Mermaid flowchart of ``vocabulary``."""
    lines = ["flowchart LR"]
    for name, properties in vocabulary.boxes.items():
        text = "<br>".join([name, *sorted(properties)])
        lines.append(f'  {_node(name)}["{text}"]')
    for source, target, label in vocabulary.arrows:
        arrow = "-.->" if label == SUBCLASS else "-->"
        lines.append(f"  {_node(source)} {arrow}|{label}| {_node(target)}")
    return "\n".join(lines) + "\n"


def diagram() -> str:
    """The diagram as a fenced Mermaid block, for the data model's page."""
    return f"```mermaid\n{mermaid(read())}```\n"
