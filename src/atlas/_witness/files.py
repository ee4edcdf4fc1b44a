"""Witness records as files: read and validated, written atomically, and turned into RDF (TriG).

The RDF form puts each record in its own named graph, as PROV activities linked to the atlas
steps they witness, apart from the documented claims. rdflib is imported only to write TriG.
"""

from __future__ import annotations

import os
import warnings
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.models._witness import WITNESS_BASE, ModeWitness, WitnessRecord

if TYPE_CHECKING:
    import rdflib

__all__ = ["load_record", "to_dataset", "to_trig", "write_atomic"]

_BASE = "https://w3id.org/execution-atlas/"


class _Terms:
    """IRIs of a namespace by attribute, without importing rdflib at import time."""

    def __init__(self, base: str) -> None:
        self._base = base

    def __getattr__(self, name: str) -> rdflib.URIRef:
        from rdflib import URIRef  # noqa: PLC0415

        return URIRef(self._base + name)


_EA = _Terms(_BASE + "vocab#")
_PAV = _Terms("http://purl.org/pav/")
# Fields of Versions that name hardware, a build setting or where a file is, not a version.
_NOT_VERSIONS = frozenset(
    {"python_implementation", "platform", "cpu_model", "cpu_capability", "gpu_name"}
    | {"compute_capability", "blas", "lapack", "parallel_backend"}
)


def load_record(path: Path) -> WitnessRecord:
    """Read and validate a record from a JSON file."""
    return WitnessRecord.model_validate_json(path.read_text(encoding="utf-8"))


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and an atomic rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError:  # e.g. path is a folder: leave no temporary file behind
        tmp.unlink(missing_ok=True)
        raise


def _literal_time(value: datetime) -> rdflib.Literal:
    from rdflib import XSD, Literal  # noqa: PLC0415

    return Literal(value.isoformat(), datatype=XSD.dateTime)


def _add_run(graph: rdflib.Graph, record: WitnessRecord) -> None:
    """The run itself: a prov:Activity that used the software it names."""
    from rdflib import RDF, RDFS, Literal, URIRef  # noqa: PLC0415
    from rdflib.namespace import DCTERMS, PROV  # noqa: PLC0415

    run = URIRef(record.iri)
    graph.add((run, RDF.type, PROV.Activity))
    graph.add((run, RDF.type, _EA.WitnessRun))
    graph.add((run, RDFS.label, Literal(record.title)))
    graph.add((run, DCTERMS.isPartOf, URIRef(_BASE + "atlas/" + record.atlas)))
    graph.add((run, PROV.startedAtTime, _literal_time(record.started_at)))
    graph.add((run, PROV.endedAtTime, _literal_time(record.ended_at)))
    graph.add((run, _EA.device, URIRef(f"{_BASE}scheme/pytorch-device/{record.device}")))
    graph.add((run, _EA.deviceName, Literal(record.device_name)))
    graph.add((run, DCTERMS.description, Literal(record.model)))
    for name, version in sorted(record.versions.model_dump().items()):
        if (
            not isinstance(version, str)
            or name in _NOT_VERSIONS
            or name.endswith(("_path", "_library"))
        ):
            continue
        software = URIRef(f"{record.iri}#software-{name.replace('_', '-')}")
        graph.add((software, RDF.type, PROV.Entity))
        graph.add((software, RDFS.label, Literal(name.replace("_", " "))))
        graph.add((software, _PAV.version, Literal(str(version))))
        graph.add((run, PROV.used, software))


def _add_mode(graph: rdflib.Graph, record: WitnessRecord, mode: ModeWitness) -> None:
    """One mode: a prov:Activity that ea:witnesses its observed steps, with an observation each."""
    from rdflib import RDF, RDFS, Literal, URIRef  # noqa: PLC0415
    from rdflib.namespace import DCTERMS, PROV  # noqa: PLC0415

    activity = URIRef(f"{record.iri}#{mode.mode}")
    graph.add((activity, RDF.type, PROV.Activity))
    graph.add((activity, RDFS.label, Literal(f"{mode.mode} on {record.device}")))
    graph.add((activity, DCTERMS.isPartOf, URIRef(record.iri)))
    graph.add((activity, PROV.startedAtTime, _literal_time(mode.started_at)))
    graph.add((activity, PROV.endedAtTime, _literal_time(mode.ended_at)))
    graph.add((activity, _EA.mode, URIRef(f"{_BASE}scheme/pytorch-mode/{mode.mode}")))
    for stage in mode.stages:
        graph.add((activity, _EA.observedStage, URIRef(f"{_BASE}stage/{stage}")))
    for graph_break in mode.graph_breaks:
        graph.add(
            (activity, _EA.graphBreak, Literal(f"{graph_break.count} x {graph_break.reason}"))
        )
    for observation in mode.steps:
        step = URIRef(f"{_BASE}step/{observation.step}")
        node = URIRef(f"{record.iri}#{mode.mode}-{observation.step}")
        if observation.status == "observed":
            graph.add((activity, _EA.witnesses, step))
        graph.add((node, RDF.type, _EA.Observation))
        graph.add((node, PROV.wasGeneratedBy, activity))
        graph.add((node, _EA.observedStep, step))
        graph.add((node, _EA.status, Literal(observation.status)))
        for excerpt in observation.evidence:
            graph.add((node, _EA.evidence, Literal(f"{excerpt.source}: {excerpt.text}")))
        if observation.note:
            graph.add((node, RDFS.comment, Literal(observation.note)))


def to_dataset(record: WitnessRecord) -> rdflib.Dataset:
    """The record as RDF, in its own named graph ``<WITNESS_BASE + id>``.

    The run is a ``prov:Activity`` (and ``ea:WitnessRun``) with one sub-activity per mode; each
    mode ``ea:witnesses`` the steps it observed, and an ``ea:Observation`` per step keeps the
    status and the evidence excerpts. Software versions are ``prov:Entity`` resources the run
    ``prov:used``.
    """
    from rdflib import Dataset, Namespace, URIRef  # noqa: PLC0415
    from rdflib.namespace import DCTERMS, PROV  # noqa: PLC0415

    dataset = Dataset()
    for prefix, namespace in (
        ("ea", _BASE + "vocab#"),
        ("prov", str(PROV)),
        ("dcterms", str(DCTERMS)),
        ("pav", "http://purl.org/pav/"),
        ("step", _BASE + "step/"),
        ("stage", _BASE + "stage/"),
        ("witness", WITNESS_BASE),
    ):
        dataset.bind(prefix, Namespace(namespace))
    graph = dataset.graph(URIRef(record.iri))
    _add_run(graph, record)
    for mode in record.modes:
        _add_mode(graph, record, mode)
    return dataset


def to_trig(record: WitnessRecord) -> str:
    """The record's named graph as TriG text."""
    dataset = to_dataset(record)
    with warnings.catch_warnings():
        # rdflib 7's own TriG serialiser calls its deprecated Dataset.contexts().
        warnings.simplefilter("ignore", DeprecationWarning)
        return dataset.serialize(format="trig")
