"""The witness record: what one real run showed, step by step, as JSON and as RDF.

The pydantic models are the schema: ``schema/witness.schema.json`` is generated from
:class:`WitnessRecord` (:func:`json_schema`) and a test checks that the committed file is fresh.
The RDF form puts each record in its own named graph, as PROV activities linked to the atlas
steps they witness, apart from the documented claims.
"""

from __future__ import annotations

import json
import os
import warnings
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from atlas.models._raw import Versions  # noqa: TC001 - pydantic resolves it at run time

if TYPE_CHECKING:
    import rdflib

__all__ = [
    "RECORD_FORMAT",
    "SCHEMA_ID",
    "WITNESS_BASE",
    "CapturedGraphSummary",
    "Excerpt",
    "GraphBreak",
    "ModeWitness",
    "StepObservation",
    "StepStatus",
    "WitnessRecord",
    "dump_json",
    "json_schema",
    "load_record",
    "schema_text",
    "to_dataset",
    "to_trig",
    "write_atomic",
]

RECORD_FORMAT: Final = 1
"""Version of the record format; bump it when a field changes meaning."""
WITNESS_BASE = "https://w3id.org/execution-atlas/witness/"
"""Base of the IRIs of witness records; a record's named graph is ``WITNESS_BASE + id``."""
SCHEMA_ID: Final = "https://w3id.org/execution-atlas/schema/witness.schema.json"
"""The ``$id`` of the record's JSON Schema."""
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

Id = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")]
Mode = Literal["eager", "torch-compile"]
Device = Literal["cpu", "nvidia-gpu"]
StepStatus = Literal["observed", "not-observed", "not-checked"]
Source = Literal[
    "interpreter",
    "dispatch-mode",
    "profiler",
    "dynamo-counters",
    "fx-graph",
    "generated-code",
    "compiler-command",
    "process-maps",
    "triton-cache",
    "disassembly",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Excerpt(_Frozen):
    """A short piece of evidence from the run, and where it was read."""

    source: Source = Field(description="What the excerpt was read from, e.g. 'profiler'.")
    text: str = Field(
        min_length=1, max_length=400, description="The excerpt, verbatim or summarised."
    )
    artifact: str | None = Field(
        default=None,
        description="The generated file it comes from, relative to the run's temporary folder.",
    )


class StepObservation(_Frozen):
    """What the run showed of one atlas step."""

    step: Id = Field(description="The atlas step id, e.g. 'pytorch-inductor-generates-cpp-openmp'.")
    from_stage: Id = Field(description="The stage the step starts at.")
    to_stage: Id = Field(description="The stage the step leads to.")
    status: StepStatus = Field(
        description=(
            "'observed' (evidence below), 'not-observed' (looked for, absent) or "
            "'not-checked' (the run could not look, e.g. a failed compile)."
        )
    )
    evidence: tuple[Excerpt, ...] = Field(default=(), description="Excerpts that show the step.")
    note: str | None = Field(
        default=None, description="Why the step was not observed or not checked."
    )


class GraphBreak(_Frozen):
    """A graph break Dynamo reported."""

    reason: str = Field(description="First line of Dynamo's reason.")
    count: int = Field(ge=1, description="How many times it happened.")


class CapturedGraphSummary(_Frozen):
    """An FX graph Dynamo captured."""

    compile_id: str = Field(description="Dynamo's compile id, e.g. '0/0'.")
    ops: tuple[str, ...] = Field(description="Targets of its call nodes, in order.")


class ModeWitness(_Frozen):
    """What one mode of the run showed."""

    mode: Mode = Field(description="The mode, as the atlas names it.")
    started_at: datetime = Field(description="When the mode started (UTC).")
    ended_at: datetime = Field(description="When the mode ended (UTC).")
    duration_s: float = Field(ge=0, description="Seconds the mode took.")
    stages: tuple[Id, ...] = Field(description="Stages of the observed steps, in step order.")
    steps: tuple[StepObservation, ...] = Field(
        description="The steps documented for this mode and device, and any others observed."
    )
    graphs: tuple[CapturedGraphSummary, ...] = Field(
        default=(), description="FX graphs Dynamo captured."
    )
    graph_breaks: tuple[GraphBreak, ...] = Field(
        default=(), description="Graph breaks Dynamo reported."
    )
    kernels: tuple[str, ...] = Field(default=(), description="Kernels Inductor generated, by name.")
    outputs_match: bool | None = Field(
        default=None,
        description="Whether the compiled output matched eager (None when not compared).",
    )
    error: str | None = Field(
        default=None, description="'ExceptionName: message' when the mode failed."
    )


class WitnessRecord(_Frozen):
    """One witness run: what a real run of PyTorch showed, beside what the atlas documents."""

    schema_url: Literal["https://w3id.org/execution-atlas/schema/witness.schema.json"] = Field(
        default=SCHEMA_ID, alias="$schema", description="The JSON Schema of this record."
    )
    format: Literal[1] = Field(default=RECORD_FORMAT, description="Version of the record format.")
    id: Id = Field(description="The record id, e.g. 'pytorch-cpu-20261202-170501'.")
    atlas: Id = Field(description="The atlas the steps belong to.")
    title: str = Field(description="One line: what ran, where and when.")
    device: Device = Field(description="The device, as the atlas names it.")
    device_name: str = Field(description="CPU model or GPU name.")
    device_detail: str = Field(description="Threads, compute capability or similar.")
    model: str = Field(description="The tiny model that ran.")
    started_at: datetime = Field(description="When the run started (UTC).")
    ended_at: datetime = Field(description="When the run ended (UTC).")
    duration_s: float = Field(ge=0, description="Seconds the run took.")
    versions: Versions = Field(description="Software versions.")
    settings: dict[str, str] = Field(
        description="Settings the witness changed from their defaults."
    )
    modes: tuple[ModeWitness, ...] = Field(min_length=1, description="One entry per mode run.")

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    @property
    def iri(self) -> str:
        """The record's IRI, also the name of its graph."""
        return WITNESS_BASE + self.id

    def observed_steps(self) -> tuple[str, ...]:
        """Ids of the steps observed in any mode, in first-seen order."""
        seen = (o.step for m in self.modes for o in m.steps if o.status == "observed")
        return tuple(dict.fromkeys(seen))


# --- JSON -----------------------------------------------------------------------------------


def dump_json(record: WitnessRecord) -> str:
    """Canonical JSON: sorted keys, two-space indent, final newline."""
    data = record.model_dump(mode="json", by_alias=True)
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def load_record(path: Path) -> WitnessRecord:
    """Read and validate a record from a JSON file."""
    return WitnessRecord.model_validate_json(path.read_text(encoding="utf-8"))


def json_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`WitnessRecord` (committed as schema/witness.schema.json)."""
    schema = WitnessRecord.model_json_schema(by_alias=True, mode="serialization")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def schema_text() -> str:
    """The JSON Schema as the committed file holds it."""
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and an atomic rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


# --- RDF ------------------------------------------------------------------------------------


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
        if version is None or name in ("python_implementation", "platform"):
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
