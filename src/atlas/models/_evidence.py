"""The evidence models: a source, a citation quoting it, and the pair a path shows.

A :class:`Citation` is a verbatim quote (a W3C Web Annotation :class:`QuoteSelector`) from a
:class:`Source`, with the day it was checked. :class:`Evidence` (a citation with its source) is a
query result, not part of the export.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from atlas.models._base import (
    DateTime,
    HttpsUrl,
    Id,
    Text,
    _Model,
)

__all__ = ["Citation", "Evidence", "QuoteSelector", "Source"]


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
