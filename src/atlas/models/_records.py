"""The records of the atlas and the export document that holds them all.

An atlas answers one question as a graph of stages (:class:`Stage`) and the steps between them
(:class:`Step`), along the dimensions of its concept schemes (:class:`ConceptScheme`); the
technologies the stages belong to are linked by relations. :class:`AtlasDocument` is the whole
JSON export, with its schema URL and version.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Annotated, Any, Literal, Self

from pydantic import Field, StringConstraints, computed_field, model_validator

from atlas.models._base import (
    Claim,
    ConceptId,
    HttpsUrl,
    Id,
    SemVer,
    Text,
    _Cited,
    _Claimed,
    _joined,
    _Model,
)
from atlas.models._catalog import ContactPoint, Distribution  # noqa: TC001 - pydantic needs them
from atlas.models._evidence import Citation, Source  # noqa: TC001 - pydantic needs them
from atlas.models._iri import BASE_IRI
from atlas.models._journey import Journey  # noqa: TC001 - pydantic needs it at run time
from atlas.models._nopath import NoPath  # noqa: TC001 - pydantic needs it at run time
from atlas.models._witness import WitnessRecord  # noqa: TC001 - pydantic needs it at run time

__all__ = [
    "LICENSE_URL",
    "SCHEMA_URL",
    "SCHEMA_VERSION",
    "Atlas",
    "AtlasDocument",
    "Concept",
    "ConceptScheme",
    "Counts",
    "Relation",
    "Stage",
    "Step",
    "Technology",
]

SCHEMA_VERSION = "2.4.0"
SCHEMA_URL = f"{BASE_IRI}schema/atlas-{SCHEMA_VERSION.split('.', 1)[0]}.schema.json"
LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"

#: Said of each key that JSON-LD processors drop on purpose (the key is not in the @context).
_OUTSIDE = "Outside the JSON-LD context (dropped by JSON-LD processors): "
_DERIVED = _OUTSIDE + "derived from the claims, which are in the graph."


class Concept(_Claimed):
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
    claims: tuple[Claim, ...] = Field((), description="The claims its text is made of, in order.")
    order: int | None = Field(None, description="Curated position within its scheme.")

    @computed_field(  # type: ignore[prop-decorator]
        description="For a mode: where Python ends under it (its claims joined); else None. "
        + _DERIVED
    )
    @functools.cached_property
    def explanation(self) -> str | None:
        """For a mode: where Python ends under it (its claims joined); else None."""
        return _joined(self.claims) or None

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


class Atlas(_Claimed):
    """One question answered as a graph of stages and steps, along a few dimensions."""

    type: Literal["Atlas"] = Field("Atlas", description="Always 'Atlas'.")
    id: Id = Field(description="The atlas's id, e.g. 'pytorch'.")
    label: Text = Field(description="A short name, e.g. 'PyTorch'.")
    question: Text = Field(description="The question the atlas answers; its title.")
    entry_stage: Id | None = Field(
        None, description="The id of the stage every path starts from (atlases with paths)."
    )
    dimensions: tuple[Id, ...] = Field(
        (), description="The ids of the concept schemes the paths vary along, in order."
    )
    scope_notes: tuple[Text, ...] = Field((), description="What the atlas does not cover.")
    claims: tuple[Claim, ...] = Field((), description="The claims its text is made of, in order.")
    order: int | None = Field(None, description="Position among the atlases.")
    journeys: tuple[Journey, ...] = Field(
        (),
        description=(
            "Every selection's journey, for atlases with dimensions: each combination of "
            "dimension values (the dimensions in order, each one's values in their curated "
            "order, the last dimension varying fastest) with its default path, followed by that "
            "path with each branch of the atlas on its own, where the branch applies. Written by "
            "'atlas export' (absent from exports of format 2.0). "
            + _OUTSIDE
            + "derived from the steps and stages, which are in the graph."
        ),
    )

    @computed_field(description="Its claims joined in order: the text users read. " + _DERIVED)  # type: ignore[prop-decorator]
    @functools.cached_property
    def description(self) -> str:
        """Its claims joined in order: the text users read."""
        return _joined(self.claims)


class Technology(_Cited):
    """A language, runtime, library, compiler, representation or format that stages belong to."""

    type: Literal["Technology"] = Field("Technology", description="Always 'Technology'.")
    id: Id = Field(description="The technology's id, e.g. 'python'.")
    label: Text = Field(description="Its name, e.g. 'Python'.")
    kind: ConceptId = Field(description="A concept of the 'technology-kind' scheme.")
    order: int | None = Field(None, description="Curated position.")

    @computed_field(description="Its claims joined in order: the text users read. " + _DERIVED)  # type: ignore[prop-decorator]
    @functools.cached_property
    def description(self) -> str:
        """Its claims joined in order: the text users read."""
        return _joined(self.claims)


class Stage(_Cited):
    """A place where the work happens: a language, runtime, compiler, representation, device."""

    type: Literal["Stage"] = Field("Stage", description="Always 'Stage'.")
    id: Id = Field(description="The stage's id, e.g. 'torchdynamo'.")
    label: Text = Field(description="Its name, e.g. 'TorchDynamo'.")
    alt_labels: tuple[Text, ...] = Field((), description="Other names (skos:altLabel).")
    kind: ConceptId = Field(description="A concept of the 'stage-kind' scheme.")
    technology: Id | None = Field(None, description="The technology the stage belongs to.")
    executes_in_python: bool = Field(
        description="True when the Python interpreter does the stage's work."
    )
    atlases: tuple[Id, ...] = Field(description="The atlases the stage is part of.")
    order: int | None = Field(None, description="Curated position; breaks ties in journeys.")
    deprecated: bool | None = Field(
        None, description="True for a retired stage (owl:deprecated); absent otherwise."
    )
    replaced_by: Id | None = Field(None, description="The stage that replaces a retired one.")

    @computed_field(description="Its claims joined in order: the text users read. " + _DERIVED)  # type: ignore[prop-decorator]
    @functools.cached_property
    def description(self) -> str:
        """Its claims joined in order: the text users read."""
        return _joined(self.claims)


class Step(_Cited):
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
    ends_python: bool | None = Field(
        None,
        description=(
            "True where the model's own operations stop running as individual Python calls "
            "(ea:endsPython); absent otherwise."
        ),
    )
    branch: ConceptId | None = Field(
        None,
        description=(
            "The branch the step belongs to (ea:inBranch), e.g. 'pytorch-branch/graph-breaks': "
            "it is part of a path only when that branch is asked for."
        ),
    )
    read_after: Id | None = Field(
        None,
        description=(
            "The step this one is read right after in a path (ea:readAfter), where its "
            "from-stage would place it earlier, e.g. a run-time call read after the steps that "
            "build the model ahead of time; only the numbering changes."
        ),
    )
    order: int | None = Field(None, description="Curated position; breaks ties in journeys.")
    deprecated: bool | None = Field(
        None, description="True for a retired step (owl:deprecated); absent otherwise."
    )
    replaced_by: Id | None = Field(None, description="The step that replaces a retired one.")

    @computed_field(description="What happens: its claims joined in order. " + _DERIVED)  # type: ignore[prop-decorator]
    @functools.cached_property
    def what_happens(self) -> str:
        """What happens: its claims joined in order."""
        return _joined(self.claims)


class Relation(_Cited):
    """A cited relation between two technologies, such as 'CPython is written in C'."""

    type: Literal["Relation"] = Field("Relation", description="Always 'Relation'.")
    id: Id = Field(description="The relation's id, e.g. 'cpython-written-in-c'.")
    atlas: Id = Field(description="The atlas the relation belongs to, e.g. 'technologies'.")
    from_technology: Id = Field(alias="from", description="The technology the relation starts at.")
    to_technology: Id = Field(alias="to", description="The technology it points to.")
    relation: Literal["written in"] = Field(description="What the relation says.")
    order: int | None = Field(None, description="Curated position.")

    @computed_field(description="The relation in words: its claims joined in order. " + _DERIVED)  # type: ignore[prop-decorator]
    @functools.cached_property
    def statement(self) -> str:
        """The relation in words: its claims joined in order."""
        return _joined(self.claims)


class Counts(_Model):
    """How many records of each kind a document holds."""

    atlases: int = Field(description="Atlases.")
    stages: int = Field(description="Stages.")
    steps: int = Field(description="Steps.")
    citations: int = Field(description="Citations.")
    claims: int = Field(0, description="Claims.")
    sources: int = Field(description="Sources.")
    technologies: int = Field(description="Technologies.")
    relations: int = Field(description="Relations between technologies.")
    witnesses: int = Field(0, description="Witness records.")
    no_paths: int = Field(0, description="Selections with no path.")


class AtlasDocument(_Model):
    """The whole dataset as one versioned JSON (and JSON-LD) document."""

    schema_url: str = Field(
        SCHEMA_URL,
        alias="$schema",
        description="The JSON Schema's URL. " + _OUTSIDE + "it describes the JSON, not the data.",
    )
    context: dict[str, Any] = Field(
        alias="@context", description="The inline JSON-LD context mapping keys to the vocabulary."
    )
    id: Literal["https://w3id.org/execution-atlas/"] = Field(
        "https://w3id.org/execution-atlas/", description="The dataset's IRI."
    )
    type: Literal["Dataset"] = Field("Dataset", description="Always 'Dataset' (dcat:Dataset).")
    title: Text = Field(description="The dataset's title.")
    description: Text = Field(description="What the dataset is.")
    publisher: Text | None = Field(
        None,
        description="The IRI of the agent that publishes the dataset (dcterms:publisher; "
        "in format 2.0, a name).",
    )
    version: SemVer = Field(description="The data version (semver).")
    schema_version: Annotated[str, StringConstraints(pattern=r"^2\.\d+\.\d+$")] = Field(
        SCHEMA_VERSION,
        description="The version of this document format. "
        + _OUTSIDE
        + "it describes the JSON, not the data.",
    )
    issued: dt.date = Field(description="The release date of this data version.")
    modified: dt.date | None = Field(
        None, description="When the data last changed (dcterms:modified), on or after 'issued'."
    )
    current_version: HttpsUrl | None = Field(
        None,
        description=(
            "The IRI of this release (dcat:hasCurrentVersion): the dataset's IRI, then "
            "'dataset/' and the data version, e.g. 'https://w3id.org/execution-atlas/dataset/1.1.0'."
        ),
    )
    landing_page: HttpsUrl | None = Field(
        None, description="The project's home page (dcat:landingPage)."
    )
    contact_point: ContactPoint | None = Field(
        None, description="Where to report a problem: the issue tracker (dcat:contactPoint)."
    )
    distributions: tuple[Distribution, ...] = Field(
        (), description="The files of this release, one per format (dcat:distribution)."
    )
    uri_space: Text | None = Field(
        None, description="The start of every IRI the dataset mints (void:uriSpace)."
    )
    data_dumps: tuple[HttpsUrl, ...] = Field(
        (), description="The download URLs of the whole graph as RDF dumps (void:dataDump)."
    )
    license: Literal["https://creativecommons.org/licenses/by/4.0/"] = Field(
        "https://creativecommons.org/licenses/by/4.0/", description="The data licence: CC BY 4.0."
    )
    license_name: Literal["CC BY 4.0"] = Field(
        "CC BY 4.0",
        description="The licence's name. " + _OUTSIDE + "the licence's IRI is in the graph.",
    )
    attribution: Text = Field(
        description="How to credit the dataset. "
        + _OUTSIDE
        + "made from the title, version and IRI, which are in the graph."
    )
    counts: Counts = Field(
        description="How many records of each kind the document holds. "
        + _OUTSIDE
        + "a summary of the arrays below."
    )
    atlases: tuple[Atlas, ...] = Field(description="Every atlas, in order.")
    schemes: tuple[ConceptScheme, ...] = Field(description="Dimensions and kinds, with values.")
    stages: tuple[Stage, ...] = Field(description="Every stage.")
    steps: tuple[Step, ...] = Field(description="Every step.")
    citations: tuple[Citation, ...] = Field(description="Every citation.")
    sources: tuple[Source, ...] = Field(description="Every cited or listed source.")
    technologies: tuple[Technology, ...] = Field(description="Every technology.")
    relations: tuple[Relation, ...] = Field(description="Every relation between technologies.")
    no_paths: tuple[NoPath, ...] = Field(
        (),
        description=(
            "Selections that have no path, each with why (absent from exports before format "
            "2.3.0): 'atlas path' answers them with an error, and no page draws them."
        ),
    )
    witnesses: tuple[WitnessRecord, ...] = Field(
        (),
        description=(
            "Witness records: what real runs showed. "
            + _OUTSIDE
            + "kept out of the graph of documented claims; their RDF is a named graph of its own."
        ),
    )

    @model_validator(mode="after")
    def _catalog_agrees(self) -> Self:
        """The release's IRI, dates and download URLs agree with its version and release date."""
        release = f"{self.id}dataset/{self.version}"
        if self.current_version is not None and self.current_version != release:
            msg = f"currentVersion {self.current_version!r} must be {release!r}"
            raise ValueError(msg)
        if self.modified is not None and self.modified < self.issued:
            msg = f"modified {self.modified} is before issued {self.issued}"
            raise ValueError(msg)
        downloads = {d.download_url for d in self.distributions}
        for url in (*downloads, *self.data_dumps):
            if self.version not in url:
                msg = f"download URL {url!r} does not name the data version {self.version!r}"
                raise ValueError(msg)
        strays = sorted(set(self.data_dumps) - downloads)
        if strays:
            msg = f"dataDumps {strays!r} must be download URLs of distributions"
            raise ValueError(msg)
        return self
