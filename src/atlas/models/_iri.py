"""The IRIs of the atlas: its base and the namespaces of the vocabularies it uses.

A module of constants with no imports, so that every other module (the models, the RDF mapping,
SPARQL) can share them without pulling in pydantic or rdflib.
"""

from __future__ import annotations

__all__ = ["BASE_IRI", "ID_KINDS", "NAMESPACES"]

BASE_IRI = "https://w3id.org/execution-atlas/"

NAMESPACES: dict[str, str] = {
    "ea": f"{BASE_IRI}vocab#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "dcterms": "http://purl.org/dc/terms/",
    "dcat": "http://www.w3.org/ns/dcat#",
    "oa": "http://www.w3.org/ns/oa#",
    "prov": "http://www.w3.org/ns/prov#",
    "pav": "http://purl.org/pav/",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "vcard": "http://www.w3.org/2006/vcard/ns#",
    "void": "http://rdfs.org/ns/void#",
}

#: The kinds of identifier, each with its IRI base ``BASE_IRI + kind + "/"``.
ID_KINDS = (
    "atlas",
    "stage",
    "step",
    "claim",
    "citation",
    "technology",
    "scheme",
    "relation",
    "source",
    "witness",
    "nopath",
)
