"""The witness record: what one real run showed, step by step, as a model and as JSON.

The pydantic models are the schema: ``schema/witness.schema.json`` is generated from
:class:`WitnessRecord` (:func:`json_schema`) and a test checks that the committed file is fresh.
Records are read, written and turned into RDF by :mod:`atlas._witness.files`.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from atlas.models._raw import FirstCall, Versions, WarmCall  # noqa: TC001 - pydantic needs them

__all__ = [
    "RECORD_FORMAT",
    "SCHEMA_ID",
    "WITNESS_BASE",
    "CapturedGraphSummary",
    "Excerpt",
    "GraphBreak",
    "KernelCall",
    "ModeWitness",
    "StepObservation",
    "StepStatus",
    "WitnessRecord",
    "dump_json",
    "json_schema",
    "schema_text",
]

RECORD_FORMAT: Final = 1
"""Version of the record format; bump it when a field changes meaning."""
WITNESS_BASE = "https://w3id.org/execution-atlas/witness/"
"""Base of the IRIs of witness records; a record's named graph is ``WITNESS_BASE + id``."""
SCHEMA_ID: Final = "https://w3id.org/execution-atlas/schema/witness.schema.json"
"""The ``$id`` of the record's JSON Schema."""

Id = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")]
Mode = Literal["eager", "torch-compile", "reduce-overhead", "aotinductor"]
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
    "package",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Excerpt(_Frozen):
    """A short piece of evidence from the run, and where it was read."""

    source: Source = Field(description="What the excerpt was read from, e.g. 'profiler'.")
    text: str = Field(
        min_length=1, max_length=1200, description="The excerpt, verbatim or summarised."
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
    location: str | None = Field(
        default=None,
        description="Where in the user's code, 'path:line' (from Dynamo's graph_breaks log).",
    )
    function: str | None = Field(default=None, description="The function the break is in.")
    code: str | None = Field(default=None, description="The source line at the break.")
    explanation: str | None = Field(default=None, description="Dynamo's explanation, verbatim.")
    hint: str | None = Field(default=None, description="Dynamo's hint, verbatim.")


class KernelCall(_Frozen):
    """A call that a compiled graph makes: a kernel Inductor generated, or a library call."""

    name: str = Field(
        description=(
            "The generated kernel ('cpp_fused_gelu_0', 'triton_poi_fused_relu_0') or the call "
            "left to ATen or a vendor library ('extern_kernels.mm', 'torch.ops.aten.sort')."
        )
    )
    kind: Literal["C++", "Triton", "library"] = Field(
        description="C++ or Triton for a generated kernel; 'library' for a call it left."
    )
    ops: tuple[str, ...] = Field(
        default=(),
        description=(
            "The aten operators behind it: from Inductor's 'Original ATen' comment above the "
            "call, or read from a generated kernel's name when there is no comment."
        ),
    )


class CapturedGraphSummary(_Frozen):
    """An FX graph Dynamo captured."""

    compile_id: str = Field(description="Dynamo's compile id, e.g. '0/0'.")
    ops: tuple[str, ...] = Field(description="Targets of its call nodes, in order.")
    output_module: str | None = Field(
        default=None,
        description="Inductor's output module of this graph (relative to the run's caches).",
    )
    calls: tuple[KernelCall, ...] = Field(
        default=(), description="What the compiled graph calls, in the order of its code."
    )
    compile_s: float | None = Field(
        default=None, ge=0, description="Seconds Inductor took to compile the graph."
    )


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
    first_call_s: FirstCall = None
    warm_call_s: WarmCall = None
    python_ends: tuple[str, ...] = Field(
        default=(),
        description="Where Python's part ended for this model, in sentences drawn from evidence.",
    )
    notes: tuple[str, ...] = Field(
        default=(),
        description=(
            "What the run showed of the mode itself, e.g. that CUDA graphs were skipped on a "
            "CPU under reduce-overhead (not applicable there, not an error)."
        ),
    )
    unobservable: tuple[str, ...] = Field(
        default=(),
        description=(
            "Why the run could not observe some steps (a failed compile, a setting that "
            "suppresses artefacts): each one makes `atlas witness` exit with status 3."
        ),
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
    model: str = Field(description="The model that ran, in one line.")
    model_source: str | None = Field(
        default=None,
        description="The factory that built it ('module:function'); None for the tiny model.",
    )
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


def json_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`WitnessRecord` (committed as schema/witness.schema.json)."""
    schema = WitnessRecord.model_json_schema(by_alias=True, mode="serialization")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def schema_text() -> str:
    """The JSON Schema as the committed file holds it."""
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
