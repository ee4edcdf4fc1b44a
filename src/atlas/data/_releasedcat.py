"""The DCAT description of a release's files: written with rdflib, read back with pyoxigraph.

A release (a ``dcat:Dataset``, the IRI ``https://w3id.org/execution-atlas/dataset/X.Y.Z``) has
one ``dcat:Distribution`` per file: its title, ``dcat:downloadURL``, ``dcat:mediaType`` (an IANA
IRI), ``dcat:byteSize`` and an ``spdx:checksum`` (``spdx:algorithm
spdx:checksumAlgorithm_sha256``, ``spdx:checksumValue``), as DCAT 3 describes a file.
:func:`describe` writes it; :func:`described` reads what a description says of each file.

>>> files = [Artefact("a.nt", b"", "application/n-triples", "N-Triples", "https://example.org/a.nt")]
>>> release = Release("https://example.org/r/1.0.0", "https://example.org/r/", "R", "1.0.0")
>>> [(d.name, d.byte_size, d.checksum[:8]) for d in described(describe(release, files).encode())]
[('a.nt', 0, 'e3b0c442')]
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyoxigraph
import rdflib
from rdflib.namespace import DCTERMS, RDF, XSD

from atlas.errors import DatasetError, Problem

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["DCAT", "IANA", "Artefact", "Described", "Release", "describe", "described"]

#: The IRI of the media type ``text/turtle`` is IANA + "text/turtle".
IANA = "https://www.iana.org/assignments/media-types/"
#: DCAT 3 (rdflib's DCAT is DCAT 2, without dcat:version and dcat:previousVersion).
DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
_SPDX = rdflib.Namespace("http://spdx.org/rdf/terms#")
_SHA256 = _SPDX["checksumAlgorithm_sha256"]


@dataclass(frozen=True)
class Artefact:
    """One file of a release: its name, its bytes, and what its DCAT distribution says of it.

    ``media_type`` is the IANA name (``text/turtle``); ``license`` and ``conforms_to`` are IRIs.
    """

    name: str
    data: bytes
    media_type: str
    title: str
    download_url: str
    conforms_to: str | None = None
    license: str | None = None
    description: str | None = None

    @property
    def sha256(self) -> str:
        """The SHA-256 of the file's bytes, in lower-case hex."""
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class Release:
    """The release as a whole: its IRI, the dataset it is a version of, title and version."""

    iri: str
    dataset: str
    title: str
    version: str
    issued: dt.date | None = None
    license: str | None = None
    publisher: str | None = None
    previous_version: str | None = None


@dataclass(frozen=True)
class Described:
    """What a DCAT description says of one file (None where it says nothing)."""

    name: str
    download_url: str
    media_type: str | None
    byte_size: int | None
    algorithm: str | None
    checksum: str | None


def describe(release: Release, artefacts: Sequence[Artefact]) -> str:
    """The DCAT description (Turtle) of ``release`` with one distribution per artefact."""
    graph = rdflib.Graph()
    for prefix, namespace in (("dcat", DCAT), ("dcterms", DCTERMS), ("spdx", _SPDX)):
        graph.bind(prefix, namespace)
    node = rdflib.URIRef(release.iri)
    graph.add((node, RDF.type, DCAT.Dataset))
    graph.add((node, DCTERMS.title, rdflib.Literal(release.title)))
    graph.add((node, DCAT.version, rdflib.Literal(release.version)))
    graph.add((node, DCTERMS.isVersionOf, rdflib.URIRef(release.dataset)))
    if release.issued is not None:
        graph.add((node, DCTERMS.issued, rdflib.Literal(release.issued, datatype=XSD.date)))
    for predicate, iri in (
        (DCTERMS.license, release.license),
        (DCTERMS.publisher, release.publisher),
        (DCAT.previousVersion, release.previous_version),
    ):
        if iri is not None:
            graph.add((node, predicate, rdflib.URIRef(iri)))
    for number, artefact in enumerate(sorted(artefacts, key=lambda a: a.name)):
        graph.add((node, DCAT.distribution, _distribution(graph, artefact, number)))
    return graph.serialize(format="turtle")


def _distribution(graph: rdflib.Graph, artefact: Artefact, number: int) -> rdflib.BNode:
    """Add the distribution of ``artefact`` to ``graph``; return its node.

    Its blank nodes are named by ``number``, so that the Turtle lists the files in that order
    and two releases of the same files are written alike.
    """
    node, checksum = rdflib.BNode(f"file{number:04d}"), rdflib.BNode(f"file{number:04d}sum")
    graph.add((node, RDF.type, DCAT.Distribution))
    graph.add((node, DCTERMS.title, rdflib.Literal(artefact.title)))
    graph.add((node, DCAT.downloadURL, rdflib.URIRef(artefact.download_url)))
    graph.add((node, DCAT.mediaType, rdflib.URIRef(IANA + artefact.media_type)))
    size = rdflib.Literal(len(artefact.data), datatype=XSD.nonNegativeInteger)
    graph.add((node, DCAT.byteSize, size))
    for predicate, iri in (
        (DCTERMS.conformsTo, artefact.conforms_to),
        (DCTERMS.license, artefact.license),
    ):
        if iri is not None:
            graph.add((node, predicate, rdflib.URIRef(iri)))
    if artefact.description is not None:
        graph.add((node, DCTERMS.description, rdflib.Literal(artefact.description)))
    graph.add((node, _SPDX.checksum, checksum))
    graph.add((checksum, RDF.type, _SPDX.Checksum))
    graph.add((checksum, _SPDX.algorithm, _SHA256))
    value = rdflib.Literal(artefact.sha256, datatype=XSD.hexBinary)
    graph.add((checksum, _SPDX.checksumValue, value))
    return node


# --- reading a description back ------------------------------------------------------------

_Term = pyoxigraph.NamedNode | pyoxigraph.BlankNode | pyoxigraph.Literal
_About = dict[object, dict[str, list[_Term]]]


def described(data: bytes, source: str = "<dcat>") -> list[Described]:
    """Each distribution of each ``dcat:Dataset`` in the Turtle ``data``, read with pyoxigraph.

    A file is named by the last part of its download URL; a distribution with several download
    URLs is listed once for each.

    Raises:
        DatasetError: ``data`` is not Turtle, naming ``source`` and the line.
    """
    try:
        quads = list(pyoxigraph.parse(data, format=pyoxigraph.RdfFormat.TURTLE))
    except SyntaxError as error:
        problem = Problem("violation", f"not Turtle: {error}", file=source, code="syntax")
        raise DatasetError([problem], source=source) from None
    about: _About = {}
    for quad in quads:
        about.setdefault(quad.subject, {}).setdefault(quad.predicate.value, []).append(quad.object)
    found: list[Described] = []
    for said in about.values():
        if str(DCAT.Dataset) in _values(said, RDF.type):
            for node in said.get(str(DCAT.distribution), []):
                found.extend(_files(about, node))
    return sorted(found, key=lambda d: (d.name, d.download_url))


def _files(about: _About, node: _Term) -> Iterable[Described]:
    """The files that the distribution ``node`` describes, one per download URL."""
    said = about.get(node, {})
    checksums = said.get(str(_SPDX.checksum), [])
    checksum = about.get(checksums[0], {}) if len(checksums) == 1 else {}
    algorithm = _one(checksum, _SPDX.algorithm)
    size = _one(said, DCAT.byteSize)
    for url in _values(said, DCAT.downloadURL):
        yield Described(
            name=url.rsplit("/", 1)[-1],
            download_url=url,
            media_type=_one(said, DCAT.mediaType),
            byte_size=int(size) if size is not None and size.isdigit() else None,
            algorithm="sha256" if algorithm == str(_SHA256) else algorithm,
            checksum=_one(checksum, _SPDX.checksumValue),
        )


def _values(said: dict[str, list[_Term]], predicate: rdflib.URIRef) -> list[str]:
    return [str(term.value) for term in said.get(str(predicate), [])]


def _one(said: dict[str, list[_Term]], predicate: rdflib.URIRef) -> str | None:
    """The one value of ``predicate``; None when there is none or more than one."""
    values = _values(said, predicate)
    return values[0] if len(values) == 1 else None
