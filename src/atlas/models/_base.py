"""The base of the atlas's models: the model config, the claim, and the models made of claims.

Every model is frozen and forbids unknown fields. Field names are snake_case in Python and
camelCase in JSON (``what_happens`` is ``"whatHappens"``). Identifiers are short and stable:
a stage's id ``"torchdynamo"`` stands for ``https://w3id.org/execution-atlas/stage/torchdynamo``.
The constrained strings (``Id``, ``Text``...) and the claimed and cited bases are shared by the
other model modules; the pydantic models are the schema of the JSON export, so no I/O here.
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

__all__ = [
    "Claim",
    "ConceptId",
    "DateTime",
    "HttpsUrl",
    "Id",
    "ObservationId",
    "SemVer",
    "Text",
]

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

    @computed_field(  # type: ignore[prop-decorator]
        description="The citations of its claims, in order. Outside the JSON-LD context "
        "(dropped by JSON-LD processors): derived from the claims, which are in the graph."
    )
    @functools.cached_property
    def citations(self) -> tuple[str, ...]:
        """The citations of its claims, in order."""
        return _cited(self.claims)

    @computed_field(  # type: ignore[prop-decorator]
        description="The texts of its claims flagged unsupported. Outside the JSON-LD context "
        "(dropped by JSON-LD processors): derived from the claims, which are in the graph."
    )
    @functools.cached_property
    def unsupported_claims(self) -> tuple[str, ...]:
        """The texts of its claims flagged unsupported."""
        return _flagged(self.claims)
