"""The pydantic models of the atlas. They are the schema of the JSON export; no I/O here.

Every model is frozen and forbids unknown fields. Field names are snake_case in Python and
camelCase in JSON (``what_happens`` is ``"whatHappens"``). Identifiers are short and stable:
a stage's id ``"torchdynamo"`` stands for ``https://w3id.org/execution-atlas/stage/torchdynamo``.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidatorFunctionWrapHandler,
    computed_field,
    model_validator,
)
from pydantic.alias_generators import to_camel

from atlas._witness.record import WitnessRecord  # noqa: TC001 - pydantic needs it at run time

__all__ = [
    "Atlas",
    "AtlasDocument",
    "Citation",
    "Concept",
    "ConceptScheme",
    "Counts",
    "Evidence",
    "ExecutionPath",
    "JourneyStep",
    "QuoteSelector",
    "Relation",
    "Source",
    "Stage",
    "Step",
    "Technology",
]

from atlas._iri import BASE_IRI

SCHEMA_VERSION = "1.0.0"
SCHEMA_URL = f"{BASE_IRI}schema/atlas-{SCHEMA_VERSION.split('.', 1)[0]}.schema.json"
LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"

Id = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z0-9][a-z0-9.+-]*$", min_length=1, max_length=120),
]
ConceptId = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*$", max_length=241),
]
Text = Annotated[str, StringConstraints(min_length=1)]
HttpsUrl = Annotated[str, StringConstraints(pattern=r"^https://[^\s/$.?#][^\s]*$")]
SemVer = Annotated[str, StringConstraints(pattern=r"^\d+\.\d+\.\d+$")]


class _Model(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        str_strip_whitespace=False,
        use_attribute_docstrings=False,
        defer_build=True,
    )


class Concept(_Model):
    """A value of a concept scheme: a mode, a device, a stage kind..."""

    type: Literal["Concept"] = Field("Concept", description="Always 'Concept' (skos:Concept).")
    id: ConceptId = Field(description="'<scheme id>/<value>', e.g. 'pytorch-mode/eager'.")
    label: Text = Field(description="The preferred label (skos:prefLabel), e.g. 'torch.compile'.")
    alt_labels: tuple[Text, ...] = Field(
        (), description="Aliases (skos:altLabel), matched case-insensitively by the API."
    )
    definition: Text | None = Field(None, description="What the value means (skos:definition).")
    summary_phrase: Text | None = Field(
        None, description="How the value reads in a path summary, e.g. 'on an NVIDIA GPU'."
    )
    order: int | None = Field(None, description="Curated position within its scheme.")

    @property
    def name(self) -> str:
        """The value's part of the id, e.g. ``'eager'`` for ``'pytorch-mode/eager'``."""
        return self.id.split("/", 1)[1]

    @property
    def phrase(self) -> str:
        """How the value reads in a summary: its summary phrase, else its label."""
        return self.summary_phrase or self.label


class ConceptScheme(_Model):
    """A SKOS concept scheme: an atlas dimension (mode, device) or a kind of stage or technology."""

    type: Literal["ConceptScheme"] = Field("ConceptScheme", description="skos:ConceptScheme.")
    id: Id = Field(description="The scheme's id, e.g. 'pytorch-mode' or 'stage-kind'.")
    label: Text = Field(description="The dimension's name, used as a keyword, e.g. 'mode'.")
    definition: Text | None = Field(None, description="What the scheme classifies.")
    order: int | None = Field(None, description="Position among an atlas's dimensions.")
    values: tuple[Concept, ...] = Field(description="The concepts of the scheme, in order.")


class Atlas(_Model):
    """One question answered as a graph of stages and steps, along a few dimensions."""

    type: Literal["Atlas"] = Field("Atlas", description="Always 'Atlas'.")
    id: Id = Field(description="The atlas's id, e.g. 'pytorch'.")
    label: Text = Field(description="A short name, e.g. 'PyTorch'.")
    question: Text = Field(description="The question the atlas answers; its title.")
    description: Text = Field(description="An introduction in the atlas's own words.")
    entry_stage: Id | None = Field(
        None, description="The id of the stage every path starts from (atlases with paths)."
    )
    dimensions: tuple[Id, ...] = Field(
        (), description="The ids of the concept schemes the paths vary along, in order."
    )
    scope_notes: tuple[Text, ...] = Field((), description="What the atlas does not cover.")
    order: int | None = Field(None, description="Position among the atlases.")


class QuoteSelector(_Model):
    """A W3C Web Annotation text quote selector: the verbatim words of the source."""

    type: Literal["TextQuoteSelector"] = Field(
        "TextQuoteSelector", description="Always 'TextQuoteSelector' (oa:TextQuoteSelector)."
    )
    exact: Text = Field(description="The quote, verbatim (oa:exact).")
    prefix: Text | None = Field(None, description="Text just before the quote (oa:prefix).")
    suffix: Text | None = Field(None, description="Text just after the quote (oa:suffix).")


class Citation(_Model):
    """A verbatim quote from a source, the day it was checked and how fully it supports a claim."""

    type: Literal["Citation"] = Field("Citation", description="Always 'Citation'.")
    id: Id = Field(description="The citation's id.")
    source: HttpsUrl = Field(description="The URL of the cited source (oa:hasSource).")
    selector: QuoteSelector = Field(description="The quote (oa:hasSelector).")
    retrieved_on: dt.date = Field(description="The day the quote was verified (pav:retrievedOn).")
    support: Literal["full", "partial"] = Field(
        description="'full' when the quote supports the whole claim, else 'partial'."
    )
    support_note: Text | None = Field(
        None, description="For a partial citation: what the quote leaves unsupported."
    )

    @property
    def quote(self) -> str:
        """The quoted words."""
        return self.selector.exact


class Source(_Model):
    """A public document that citations quote."""

    type: Literal["Source"] = Field("Source", description="Always 'Source'.")
    id: Id = Field(description="The source's short id, e.g. 'pep-523' (dcterms:identifier).")
    url: HttpsUrl = Field(description="The URL to cite; also the source's IRI.")
    title: Text = Field(description="The document's title.")
    publisher: Text | None = Field(None, description="Who publishes the document.")
    version: Text | None = Field(None, description="Which version of the document was read.")
    license: Text | None = Field(None, description="The document's licence, as stated.")
    retrieved_on: dt.date = Field(description="The day the snapshot was taken.")
    complete: bool = Field(description="False when the stored snapshot was trimmed.")
    snapshot: Text = Field(description="The file name of the plain-text snapshot.")


class Technology(_Model):
    """A language, runtime, library, compiler, representation or format that stages belong to."""

    type: Literal["Technology"] = Field("Technology", description="Always 'Technology'.")
    id: Id = Field(description="The technology's id, e.g. 'python'.")
    label: Text = Field(description="Its name, e.g. 'Python'.")
    kind: ConceptId = Field(description="A concept of the 'technology-kind' scheme.")
    description: Text = Field(description="What it is, in the atlas's own words.")
    citations: tuple[Id, ...] = Field((), description="Citations supporting the description.")
    order: int | None = Field(None, description="Curated position.")


class Stage(_Model):
    """A place where the work happens: a language, runtime, compiler, representation, device."""

    type: Literal["Stage"] = Field("Stage", description="Always 'Stage'.")
    id: Id = Field(description="The stage's id, e.g. 'torchdynamo'.")
    label: Text = Field(description="Its name, e.g. 'TorchDynamo'.")
    alt_labels: tuple[Text, ...] = Field((), description="Other names (skos:altLabel).")
    kind: ConceptId = Field(description="A concept of the 'stage-kind' scheme.")
    description: Text = Field(description="Two or three sentences in the atlas's own words.")
    technology: Id | None = Field(None, description="The technology the stage belongs to.")
    executes_in_python: bool = Field(
        description="True when the Python interpreter does the stage's work."
    )
    atlases: tuple[Id, ...] = Field(description="The atlases the stage is part of.")
    citations: tuple[Id, ...] = Field((), description="Citations supporting the description.")
    unsupported_claims: tuple[Text, ...] = Field(
        (), description="Claims no source supports yet; reported by 'atlas check'."
    )
    order: int | None = Field(None, description="Curated position; breaks ties in journeys.")
    deprecated: bool | None = Field(
        None, description="True for a retired stage (owl:deprecated); absent otherwise."
    )
    replaced_by: Id | None = Field(None, description="The stage that replaces a retired one.")


class Step(_Model):
    """A hand-over from one stage to another, valid under stated conditions, always cited."""

    type: Literal["Step"] = Field("Step", description="Always 'Step'.")
    id: Id = Field(description="The step's id, e.g. 'pytorch-cpython-intercepted-by-dynamo'.")
    atlas: Id = Field(description="The atlas the step belongs to.")
    from_stage: Id = Field(alias="from", description="The stage the step starts at.")
    to_stage: Id = Field(alias="to", description="The stage the step leads to.")
    verb: Text = Field(description="What reads between the stages, e.g. 'is compiled by'.")
    when: tuple[ConceptId, ...] = Field(
        (), description="Dimension values the step applies under (any of them, per dimension)."
    )
    when_any: tuple[Id, ...] = Field((), description="Dimensions whose every value applies.")
    what_happens: Text = Field(description="What happens, in the atlas's own words.")
    citations: tuple[Id, ...] = Field(description="The citations backing the step (>= 1).")
    unsupported_claims: tuple[Text, ...] = Field(
        (), description="Claims no source supports yet; reported by 'atlas check'."
    )
    order: int | None = Field(None, description="Curated position; breaks ties in journeys.")
    deprecated: bool | None = Field(
        None, description="True for a retired step (owl:deprecated); absent otherwise."
    )
    replaced_by: Id | None = Field(None, description="The step that replaces a retired one.")


class Relation(_Model):
    """A cited relation between two technologies, such as 'CPython is written in C'."""

    type: Literal["Relation"] = Field("Relation", description="Always 'Relation'.")
    id: Id = Field(description="The relation's id, e.g. 'cpython-written-in-c'.")
    atlas: Id = Field(description="The atlas the relation belongs to, e.g. 'technologies'.")
    from_technology: Id = Field(alias="from", description="The technology the relation starts at.")
    to_technology: Id = Field(alias="to", description="The technology it points to.")
    relation: Literal["written in"] = Field(description="What the relation says.")
    citations: tuple[Id, ...] = Field(description="The citations backing the relation (>= 1).")
    order: int | None = Field(None, description="Curated position.")


class Counts(_Model):
    """How many records of each kind a document holds."""

    atlases: int = Field(description="Atlases.")
    stages: int = Field(description="Stages.")
    steps: int = Field(description="Steps.")
    citations: int = Field(description="Citations.")
    sources: int = Field(description="Sources.")
    technologies: int = Field(description="Technologies.")
    relations: int = Field(description="Relations between technologies.")
    witnesses: int = Field(0, description="Witness records.")


class AtlasDocument(_Model):
    """The whole dataset as one versioned JSON (and JSON-LD) document."""

    schema_url: str = Field(SCHEMA_URL, alias="$schema", description="The JSON Schema's URL.")
    context: dict[str, Any] = Field(
        alias="@context", description="The inline JSON-LD context mapping keys to the vocabulary."
    )
    id: Literal["https://w3id.org/execution-atlas/"] = Field(
        "https://w3id.org/execution-atlas/", description="The dataset's IRI."
    )
    type: Literal["Dataset"] = Field("Dataset", description="Always 'Dataset' (dcat:Dataset).")
    title: Text = Field(description="The dataset's title.")
    description: Text = Field(description="What the dataset is.")
    publisher: Text | None = Field(None, description="Who publishes the dataset.")
    version: SemVer = Field(description="The data version (semver).")
    schema_version: Annotated[str, StringConstraints(pattern=r"^1\.\d+\.\d+$")] = Field(
        SCHEMA_VERSION, description="The version of this document format."
    )
    issued: dt.date = Field(description="The release date of this data version.")
    license: Literal["https://creativecommons.org/licenses/by/4.0/"] = Field(
        "https://creativecommons.org/licenses/by/4.0/", description="The data licence: CC BY 4.0."
    )
    license_name: Literal["CC BY 4.0"] = Field("CC BY 4.0", description="The licence's name.")
    attribution: Text = Field(description="How to credit the dataset.")
    counts: Counts = Field(description="How many records of each kind the document holds.")
    atlases: tuple[Atlas, ...] = Field(description="Every atlas, in order.")
    schemes: tuple[ConceptScheme, ...] = Field(description="Dimensions and kinds, with values.")
    stages: tuple[Stage, ...] = Field(description="Every stage.")
    steps: tuple[Step, ...] = Field(description="Every step.")
    citations: tuple[Citation, ...] = Field(description="Every citation.")
    sources: tuple[Source, ...] = Field(description="Every cited or listed source.")
    technologies: tuple[Technology, ...] = Field(description="Every technology.")
    relations: tuple[Relation, ...] = Field(description="Every relation between technologies.")
    witnesses: tuple[WitnessRecord, ...] = Field(
        (),
        description=(
            "Witness records: what real runs showed. Kept out of the JSON-LD graph of documented "
            "claims (the key is not in the @context); their RDF is a named graph of its own."
        ),
    )


# --- query results (not part of the export) -----------------------------------------------


class Evidence(_Model):
    """A citation together with the source it quotes."""

    citation: Citation = Field(description="The citation.")
    source: Source = Field(description="The source it quotes.")

    def __str__(self) -> str:
        quote = " ".join(self.citation.quote.split())
        partial = " [partial support]" if self.citation.support == "partial" else ""
        return (
            f"{self.source.title} <{self.source.url}>{partial}\n"
            f"  \u201c{quote}\u201d (checked {self.citation.retrieved_on.isoformat()})"
        )


class JourneyStep(_Model):
    """One step of an execution path, numbered, with its stages and evidence resolved."""

    number: int = Field(description="1-based position in the journey.")
    step: Step = Field(description="The step.")
    from_stage: Stage = Field(alias="from", description="The stage it starts at.")
    to_stage: Stage = Field(alias="to", description="The stage it leads to.")
    evidence: tuple[Evidence, ...] = Field(description="Its citations with their sources.")

    @property
    def id(self) -> str:
        """The step's id."""
        return self.step.id

    @property
    def label(self) -> str:
        """'from — verb → to', e.g. 'FX graph — is compiled by → TorchInductor'."""
        return f"{self.from_stage.label} \u2014 {self.step.verb} \u2192 {self.to_stage.label}"

    def __str__(self) -> str:
        lines = [f"{self.number}. {self.label}", f"   {self.step.what_happens}"]
        for item in self.evidence:
            text = str(item).replace("\n", "\n   ")
            lines.append(f"   Source: {text}")
        return "\n".join(lines)


_DERIVED = {"summary": "summary", "python_ends": "python_ends", "pythonEnds": "python_ends"}


class ExecutionPath(_Model):
    """The stages and steps of one atlas under one choice of every dimension, in journey order.

    ``summary`` and ``python_ends`` follow from the rest: they are made on first use (and then
    kept), and appear in ``model_dump()`` and the JSON like the other fields.
    """

    atlas: Id = Field(description="The atlas's id.")
    selection: tuple[Concept, ...] = Field(description="The chosen value of each dimension.")
    stages: tuple[Stage, ...] = Field(description="The stages in journey order.")
    steps: tuple[JourneyStep, ...] = Field(description="The steps in journey order.")

    @model_validator(mode="wrap")
    @classmethod
    def _derived_fields_agree(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        """Read back a dumped path: its derived fields must be what they are derived to be."""
        given: dict[str, Any] = {}
        if isinstance(data, dict):
            data = dict(data)
            for key, name in _DERIVED.items():
                if key in data:
                    given[name] = data.pop(key)
        path = handler(data)
        if "summary" in given and given["summary"] != path.summary:
            msg = f"summary {given['summary']!r} does not match the path: {path.summary!r}"
            raise ValueError(msg)
        if "python_ends" in given:
            numbers = [
                end.get("number") if isinstance(end, dict) else getattr(end, "number", None)
                for end in given["python_ends"]
            ]
            if numbers != [j.number for j in path.python_ends]:
                msg = (
                    f"python_ends are steps {numbers}, but the steps that leave Python are"
                    f" {[j.number for j in path.python_ends]}"
                )
                raise ValueError(msg)
        return path

    @computed_field(  # type: ignore[prop-decorator]
        description="E.g. 'torch.compile on an NVIDIA GPU: 12 stages, 12 steps'."
    )
    @functools.cached_property
    def summary(self) -> str:
        """The chosen values, then how many stages and steps the path has."""
        phrase = " ".join([c.phrase for c in self.selection])
        n_stages, n_steps = len(self.stages), len(self.steps)
        return (
            f"{phrase}: {n_stages} stage{'s' * (n_stages != 1)},"
            f" {n_steps} step{'s' * (n_steps != 1)}"
        )

    @computed_field(  # type: ignore[prop-decorator]
        description="The steps that leave the Python interpreter."
    )
    @functools.cached_property
    def python_ends(self) -> tuple[JourneyStep, ...]:
        """The steps from a stage that runs in Python to one that does not."""
        return tuple(
            [
                j
                for j in self.steps
                if j.from_stage.executes_in_python and not j.to_stage.executes_in_python
            ]
        )

    def __str__(self) -> str:
        return self.summary
