"""How the models map to RDF: namespaces, classes and one term per JSON key.

This table is the single place that ties the JSON keys to the vocabulary. The Turtle reader
(``graph.py``) uses it to turn triples into model fields, and the exporter (``export.py``) turns
it into the inline JSON-LD ``@context``, so the two can never disagree. No rdflib here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from atlas.models._iri import BASE_IRI, NAMESPACES

__all__ = [
    "CLASSES",
    "NAMESPACES",
    "ClassMap",
    "Term",
    "context",
    "expand",
]

Kind = Literal[
    "str",
    "strs",
    "ref",
    "refs",
    "date",
    "datetime",
    "bool",
    "int",
    "nested",
    "nodes",
    "reverse",
]


@dataclass(frozen=True)
class Term:
    """One JSON key: its predicate, how its values read, and the IRI base of referenced ids."""

    key: str
    predicate: str
    kind: Kind
    base: str | None = None  # for ref/refs: the IRI base of the ids ("" = absolute IRIs)
    nested: str | None = None  # for nested/nodes/reverse: the class of the nested nodes


@dataclass(frozen=True)
class ClassMap:
    """How one model maps to an RDF class."""

    name: str  # the model's "type" value
    rdf_type: str
    base: str | None  # IRI base of its ids; None: blank node; "" : the id is an absolute IRI
    terms: tuple[Term, ...]
    id_key: str = "id"  # the JSON key holding the node's IRI


def _t(key: str, predicate: str, kind: Kind = "str", base: str | None = None) -> Term:
    return Term(key, predicate, kind, base)


_ORDER = _t("order", "ea:order", "int")

CLASSES: dict[str, ClassMap] = {
    c.name: c
    for c in (
        ClassMap(
            "Dataset",
            "dcat:Dataset",
            "",
            (
                _t("title", "dcterms:title"),
                _t("description", "dcterms:description"),
                _t("publisher", "dcterms:publisher", "ref", ""),
                _t("version", "dcat:version"),
                _t("issued", "dcterms:issued", "date"),
                _t("modified", "dcterms:modified", "date"),
                _t("license", "dcterms:license", "ref", ""),
                _t("currentVersion", "dcat:hasCurrentVersion", "ref", ""),
                _t("landingPage", "dcat:landingPage", "ref", ""),
                Term("contactPoint", "dcat:contactPoint", "nested", None, "ContactPoint"),
                Term("distributions", "dcat:distribution", "nodes", None, "Distribution"),
                _t("uriSpace", "void:uriSpace"),
                _t("dataDumps", "void:dataDump", "refs", ""),
            ),
        ),
        ClassMap(
            "Distribution",
            "dcat:Distribution",
            None,
            (
                _t("title", "dcterms:title"),
                _t("mediaType", "dcat:mediaType", "ref", ""),
                _t("downloadURL", "dcat:downloadURL", "ref", ""),
                _t("conformsTo", "dcterms:conformsTo", "ref", ""),
            ),
        ),
        ClassMap(
            "ContactPoint",
            "vcard:Kind",
            None,
            (
                _t("name", "vcard:fn"),
                _t("url", "vcard:hasURL", "ref", ""),
            ),
        ),
        ClassMap(
            "Atlas",
            "ea:Atlas",
            "atlas/",
            (
                _t("label", "rdfs:label"),
                _t("question", "ea:question"),
                Term("claims", "ea:about", "reverse", None, "Claim"),
                _t("entryStage", "ea:entryStage", "ref", "stage/"),
                _t("dimensions", "ea:dimension", "refs", "scheme/"),
                _t("scopeNotes", "skos:scopeNote", "strs"),
                _ORDER,
            ),
        ),
        ClassMap(
            "ConceptScheme",
            "skos:ConceptScheme",
            "scheme/",
            (
                _t("label", "rdfs:label"),
                _t("definition", "skos:definition"),
                _ORDER,
                Term("values", "skos:inScheme", "reverse", None, "Concept"),
            ),
        ),
        ClassMap(
            "Concept",
            "skos:Concept",
            "scheme/",
            (
                _t("label", "skos:prefLabel"),
                _t("altLabels", "skos:altLabel", "strs"),
                _t("definition", "skos:definition"),
                _t("summaryPhrase", "ea:summaryPhrase"),
                _ORDER,
                Term("claims", "ea:about", "reverse", None, "Claim"),
            ),
        ),
        ClassMap(
            "Stage",
            "ea:Stage",
            "stage/",
            (
                _t("label", "rdfs:label"),
                _t("altLabels", "skos:altLabel", "strs"),
                _t("kind", "ea:kind", "ref", "scheme/"),
                _t("technology", "ea:technology", "ref", "technology/"),
                _t("executesInPython", "ea:executesInPython", "bool"),
                _t("atlases", "dcterms:isPartOf", "refs", "atlas/"),
                Term("claims", "ea:about", "reverse", None, "Claim"),
                _ORDER,
                _t("deprecated", "owl:deprecated", "bool"),
                _t("replacedBy", "dcterms:isReplacedBy", "ref", "stage/"),
            ),
        ),
        ClassMap(
            "Step",
            "ea:Step",
            "step/",
            (
                _t("atlas", "dcterms:isPartOf", "ref", "atlas/"),
                _t("from", "ea:from", "ref", "stage/"),
                _t("to", "ea:to", "ref", "stage/"),
                _t("verb", "ea:verb"),
                _t("when", "ea:when", "refs", "scheme/"),
                _t("whenAny", "ea:whenAny", "refs", "scheme/"),
                _t("endsPython", "ea:endsPython", "bool"),
                _t("branch", "ea:inBranch", "ref", "scheme/"),
                _t("readAfter", "ea:readAfter", "ref", "step/"),
                Term("claims", "ea:about", "reverse", None, "Claim"),
                _ORDER,
                _t("deprecated", "owl:deprecated", "bool"),
                _t("replacedBy", "dcterms:isReplacedBy", "ref", "step/"),
            ),
        ),
        ClassMap(
            "Claim",
            "ea:Claim",
            "claim/",
            (
                _t("text", "rdf:value"),
                _ORDER,
                _t("citations", "prov:wasDerivedFrom", "refs", "citation/"),
                _t("observedIn", "ea:observedIn", "refs", "witness/"),
                _t("unsupported", "ea:unsupported", "bool"),
                _t("note", "skos:editorialNote"),
            ),
        ),
        ClassMap(
            "Citation",
            "ea:Citation",
            "citation/",
            (
                _t("source", "oa:hasSource", "ref", ""),
                Term("selector", "oa:hasSelector", "nested", None, "TextQuoteSelector"),
                _t(
                    "retrievedOn",
                    "pav:retrievedOn",
                    "datetime",
                ),
                _t("support", "ea:support"),
                _t("supportNote", "ea:supportNote"),
                _t("deprecated", "owl:deprecated", "bool"),
                _t("replacedBy", "dcterms:isReplacedBy", "ref", "citation/"),
            ),
        ),
        ClassMap(
            "TextQuoteSelector",
            "oa:TextQuoteSelector",
            None,
            (
                _t("exact", "oa:exact"),
                _t("prefix", "oa:prefix"),
                _t("suffix", "oa:suffix"),
            ),
        ),
        ClassMap(
            "Source",
            "ea:Source",
            "source/",
            (
                _t("url", "foaf:page", "ref", ""),
                _t("title", "dcterms:title"),
                _t("publisher", "dcterms:publisher"),
                _t("version", "pav:version"),
                _t("license", "dcterms:license"),
                _t("retrievedOn", "pav:retrievedOn", "datetime"),
                _t("complete", "ea:complete", "bool"),
                _t("snapshot", "ea:snapshot"),
                _t("retrievedFrom", "pav:retrievedFrom", "ref", ""),
                _t("sha256", "ea:sha256"),
                _t("primary", "ea:primary", "bool"),
                _t("note", "skos:editorialNote"),
            ),
        ),
        ClassMap(
            "Technology",
            "ea:Technology",
            "technology/",
            (
                _t("label", "rdfs:label"),
                _t("kind", "ea:kind", "ref", "scheme/"),
                _ORDER,
                Term("claims", "ea:about", "reverse", None, "Claim"),
            ),
        ),
        ClassMap(
            "Relation",
            "ea:Relation",
            "relation/",
            (
                _t("atlas", "dcterms:isPartOf", "ref", "atlas/"),
                _t("from", "ea:from", "ref", "technology/"),
                _t("to", "ea:to", "ref", "technology/"),
                _t("relation", "ea:relation"),
                _ORDER,
                Term("claims", "ea:about", "reverse", None, "Claim"),
            ),
        ),
        ClassMap(
            "NoPath",
            "ea:NoPath",
            "nopath/",
            (
                _t("atlas", "dcterms:isPartOf", "ref", "atlas/"),
                _t("when", "ea:when", "refs", "scheme/"),
                _t("reason", "ea:noPathReason"),
                _t("seePath", "ea:seePath", "ref", "scheme/"),
                Term("claims", "ea:about", "reverse", None, "Claim"),
                _t("note", "skos:editorialNote"),
            ),
        ),
    )
}

#: The top-level arrays of the export: each lists nodes of one class.
COLLECTIONS: dict[str, str] = {
    "atlases": "Atlas",
    "schemes": "ConceptScheme",
    "stages": "Stage",
    "steps": "Step",
    "citations": "Citation",
    "sources": "Source",
    "technologies": "Technology",
    "relations": "Relation",
    "noPaths": "NoPath",
}


def expand(curie: str) -> str:
    """Expand a compact IRI such as ``'ea:Stage'`` with the package's namespaces.

    >>> expand("skos:prefLabel")
    'http://www.w3.org/2004/02/skos/core#prefLabel'
    """
    prefix, _, local = curie.partition(":")
    return NAMESPACES[prefix] + local


def _term_definition(term: Term) -> dict[str, Any] | str:
    if term.kind == "reverse":
        return {"@reverse": term.predicate, "@container": "@set"}
    definition: dict[str, Any] = {"@id": term.predicate}
    if term.kind in ("ref", "refs"):
        definition["@type"] = "@id"
        if term.base:
            definition["@context"] = {"@base": BASE_IRI + term.base}
    elif term.kind == "date":
        definition["@type"] = "xsd:date"
    elif term.kind == "datetime":
        definition["@type"] = "xsd:dateTime"
    if term.kind in ("refs", "strs", "nodes"):
        definition["@container"] = "@set"
    if len(definition) == 1:
        return term.predicate
    return definition


def context() -> dict[str, Any]:
    """The inline JSON-LD context of the export (JSON-LD 1.1, type-scoped per class)."""
    ctx: dict[str, Any] = {"@version": 1.1}
    ctx.update(dict(sorted(NAMESPACES.items())))
    ctx["id"] = "@id"
    ctx["type"] = "@type"
    for key in COLLECTIONS:
        ctx[key] = "@included"
    for cls in CLASSES.values():
        scoped: dict[str, Any] = {}
        if cls.base:
            scoped["@base"] = BASE_IRI + cls.base
        if cls.id_key != "id":
            scoped[cls.id_key] = "@id"
        for term in cls.terms:
            scoped[term.key] = _term_definition(term)
        ctx[cls.name] = {"@id": cls.rdf_type, "@context": scoped}
    return ctx
