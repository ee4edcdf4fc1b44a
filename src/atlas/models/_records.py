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
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidatorFunctionWrapHandler,
    computed_field,
    model_validator,
)
from pydantic.alias_generators import to_camel

from atlas.models._witness import WitnessRecord  # noqa: TC001 - pydantic needs it at run time

__all__ = [
    "Atlas",
    "AtlasDocument",
    "Citation",
    "Claim",
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

from atlas.models._iri import BASE_IRI

SCHEMA_VERSION = "2.0.0"
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
ObservationId = Annotated[
    str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9.+-]*#[A-Za-z0-9._+-]+$", max_length=300)
]


def _in_utc(moment: dt.datetime) -> dt.datetime:
    """A date-time with its time zone, in UTC (JSON: ``2026-12-02T10:00:00Z``)."""
    if moment.tzinfo is None:
        msg = "a date-time needs its time zone: write it in UTC, e.g. 2026-12-02T00:00:00Z"
        raise ValueError(msg)
    return moment.astimezone(dt.UTC)


#: pav:retrievedOn: an xsd:dateTime, PAV's range; in UTC, written with a Z in JSON.
DateTime = Annotated[dt.datetime, AfterValidator(_in_utc)]


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


class Claim(_Model):
    """One sentence a user reads, in the atlas's own words, with its own support.

    A claim is supported by its citations (each rated for this claim alone), by witness
    observations, or is flagged ``unsupported``. The texts users read (a stage's description, a
    step's ``what_happens``...) are their claims joined in order.
    """

    type: Literal["Claim"] = Field("Claim", description="Always 'Claim'.")
    id: Id = Field(description="The claim's id, e.g. 'stage-torchdynamo-1'.")
    text: Text = Field(description="The sentence (rdf:value), in the atlas's own words.")
    order: int | None = Field(None, description="Position within the text it is part of.")
    citations: tuple[Id, ...] = Field(
        (), description="Citations supporting this claim (prov:wasDerivedFrom)."
    )
    observed_in: tuple[ObservationId, ...] = Field(
        (),
        description=(
            "Witness observations that show the claim (ea:observedIn), as '<record id>#<node>'."
        ),
    )
    unsupported: bool | None = Field(
        None, description="True when nothing supports the claim yet; reported by 'atlas check'."
    )
    note: Text | None = Field(
        None, description="A curator's note (skos:editorialNote); never shown on the site."
    )


def _joined(claims: tuple[Claim, ...]) -> str:
    return " ".join(claim.text for claim in claims)


def _cited(claims: tuple[Claim, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c for claim in claims for c in claim.citations))


def _flagged(claims: tuple[Claim, ...]) -> tuple[str, ...]:
    return tuple(claim.text for claim in claims if claim.unsupported)


@functools.cache
def _derived_keys(cls: type[BaseModel]) -> dict[str, str]:
    """The keys of a model's derived fields in a dump (snake_case and camelCase) -> the field."""
    names = cls.model_computed_fields
    return {name: name for name in names} | {to_camel(name): name for name in names}


class _Claimed(_Model):
    """A model whose text is made of claims; the derived keys of a dump are read back and checked.

    ``description`` (or ``what_happens``), ``citations`` and ``unsupported_claims`` follow from
    ``claims``: they appear in the JSON for readers, and a document read back must agree.
    """

    @model_validator(mode="wrap")
    @classmethod
    def _derived_keys_agree(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        given: dict[str, Any] = {}
        keys = _derived_keys(cls)
        if isinstance(data, dict) and not keys.keys().isdisjoint(data):
            kept: dict[str, Any] = {}
            for key, value in data.items():
                if key in keys:
                    given[keys[key]] = value
                else:
                    kept[key] = value
            data = kept
        model = handler(data)
        for name, value in given.items():
            expected = getattr(model, name)
            found = tuple(value) if isinstance(value, list) else value
            if found != expected:
                msg = f"{name} {value!r} does not match the one made from the claims: {expected!r}"
                raise ValueError(msg)
        return model


class _Cited(_Claimed):
    """A model whose claims are cited: its citations and flagged sentences, made from them."""

    claims: tuple[Claim, ...] = Field((), description="The claims its text is made of, in order.")

    @computed_field(description="The citations of its claims, in order.")  # type: ignore[prop-decorator]
    @functools.cached_property
    def citations(self) -> tuple[str, ...]:
        """The citations of its claims, in order."""
        return _cited(self.claims)

    @computed_field(description="The texts of its claims flagged unsupported.")  # type: ignore[prop-decorator]
    @functools.cached_property
    def unsupported_claims(self) -> tuple[str, ...]:
        """The texts of its claims flagged unsupported."""
        return _flagged(self.claims)


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
        description="For a mode: where Python ends under it (its claims joined); else None."
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

    @computed_field(description="Its claims joined in order: the text users read.")  # type: ignore[prop-decorator]
    @functools.cached_property
    def description(self) -> str:
        """Its claims joined in order: the text users read."""
        return _joined(self.claims)


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
    retrieved_on: DateTime = Field(
        description="When the quote was verified (pav:retrievedOn), in UTC."
    )
    support: Literal["full", "partial"] = Field(
        description="'full' when the quote supports the whole claim, else 'partial'."
    )
    support_note: Text | None = Field(
        None, description="For a partial citation: what the quote leaves unsupported."
    )
    deprecated: bool | None = Field(
        None,
        description=(
            "True for a retired citation (owl:deprecated): kept so that its IRI still resolves, "
            "it supports no claim; absent otherwise."
        ),
    )
    replaced_by: Id | None = Field(None, description="The citation that replaces a retired one.")

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
    retrieved_on: DateTime = Field(
        description="When the snapshot was taken (pav:retrievedOn), in UTC."
    )
    complete: bool = Field(description="False when the stored snapshot was trimmed.")
    snapshot: Text = Field(description="The file name of the plain-text snapshot.")
    retrieved_from: HttpsUrl | None = Field(
        None,
        description=(
            "A URL that serves exactly the version read (pav:retrievedFrom), e.g. a file's raw "
            "URL at the commit read; absent where no such URL exists."
        ),
    )
    sha256: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")] | None = Field(
        None, description="The sha256 (hex) of the snapshot text the quotes were checked against."
    )
    primary: bool | None = Field(
        None,
        description=(
            "True for a primary source (the tool's own docs or code), false for a secondary one "
            "(a third party's page)."
        ),
    )
    note: Text | None = Field(
        None, description="A curator's note (skos:editorialNote); never shown on the site."
    )


class Technology(_Cited):
    """A language, runtime, library, compiler, representation or format that stages belong to."""

    type: Literal["Technology"] = Field("Technology", description="Always 'Technology'.")
    id: Id = Field(description="The technology's id, e.g. 'python'.")
    label: Text = Field(description="Its name, e.g. 'Python'.")
    kind: ConceptId = Field(description="A concept of the 'technology-kind' scheme.")
    order: int | None = Field(None, description="Curated position.")

    @computed_field(description="Its claims joined in order: the text users read.")  # type: ignore[prop-decorator]
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

    @computed_field(description="Its claims joined in order: the text users read.")  # type: ignore[prop-decorator]
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
    order: int | None = Field(None, description="Curated position; breaks ties in journeys.")
    deprecated: bool | None = Field(
        None, description="True for a retired step (owl:deprecated); absent otherwise."
    )
    replaced_by: Id | None = Field(None, description="The step that replaces a retired one.")

    @computed_field(description="What happens: its claims joined in order.")  # type: ignore[prop-decorator]
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

    @computed_field(description="The relation in words: its claims joined in order.")  # type: ignore[prop-decorator]
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
    schema_version: Annotated[str, StringConstraints(pattern=r"^2\.\d+\.\d+$")] = Field(
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
            f"  \u201c{quote}\u201d (checked {self.citation.retrieved_on.date().isoformat()})"
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
        """The step, its text claim by claim with the numbers of their sources, then the sources.

        A claim no citation backs is marked ``[observed]`` (a witness run showed it) or
        ``[unsupported]`` (flagged).
        """
        numbers = {item.citation.id: n for n, item in enumerate(self.evidence, 1)}
        sentences = []
        for claim in self.step.claims:
            marks = "".join(f"[{numbers[c]}]" for c in claim.citations if c in numbers)
            if not marks:
                marks = "[observed]" if claim.observed_in else "[unsupported]"
            sentences.append(f"{claim.text} {marks}")
        lines = [f"{self.number}. {self.label}", f"   {' '.join(sentences)}"]
        for n, item in enumerate(self.evidence, 1):
            text = str(item).replace("\n", "\n   ")
            lines.append(f"   [{n}] {text}")
        return "\n".join(lines)


_DERIVED = {"summary": "summary", "python_ends": "python_ends", "pythonEnds": "python_ends"}


class ExecutionPath(_Model):
    """The stages and steps of one atlas under one choice of every dimension, in journey order.

    ``summary`` and ``python_ends`` follow from the rest: they are made on first use (and then
    kept), and appear in ``model_dump()`` and the JSON like the other fields.
    """

    atlas: Id = Field(description="The atlas's id.")
    selection: tuple[Concept, ...] = Field(description="The chosen value of each dimension.")
    branches: tuple[Concept, ...] = Field(
        (), description="The branches asked for, e.g. graph breaks (none by default)."
    )
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
                    f"python_ends are steps {numbers}, but the steps where Python ends are"
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
        phrase = " ".join([c.phrase for c in (*self.selection, *self.branches)])
        n_stages, n_steps = len(self.stages), len(self.steps)
        return (
            f"{phrase}: {n_stages} stage{'s' * (n_stages != 1)},"
            f" {n_steps} step{'s' * (n_steps != 1)}"
        )

    @computed_field(  # type: ignore[prop-decorator]
        description=(
            "The steps where the model's own operations stop running as individual Python calls "
            "(the steps marked ends_python)."
        )
    )
    @functools.cached_property
    def python_ends(self) -> tuple[JourneyStep, ...]:
        """The steps of the path that the data marks ``ends_python``, in journey order.

        In eager mode, the call into ATen dispatch; under torch.compile, TorchDynamo's capture.
        """
        return tuple([j for j in self.steps if j.step.ends_python])

    def __str__(self) -> str:
        return self.summary
