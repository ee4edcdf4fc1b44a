"""The catalogue models: how the dataset is described for data catalogues (DCAT, VoID).

A release of the dataset is offered as a few :class:`Distribution` items (Turtle, N-Triples,
JSON-LD, the JSON export), each with its media type and download URL; problems are reported
through its :class:`ContactPoint`, the issue tracker. Their values are written in
``dataset/catalog.ttl``, the one place where the project's URLs are configured for the data
(``dataset/README.md`` lists the defaults). No I/O here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from atlas.models._base import HttpsUrl, Text, _Model

__all__ = ["ContactPoint", "Distribution"]


class Distribution(_Model):
    """One downloadable form of a release of the dataset (a dcat:Distribution)."""

    type: Literal["Distribution"] = Field(
        "Distribution", description="Always 'Distribution' (dcat:Distribution)."
    )
    title: Text = Field(description="What the file holds, e.g. 'Turtle' (dcterms:title).")
    media_type: HttpsUrl = Field(
        description=(
            "The file's media type as an IANA IRI (dcat:mediaType), e.g. "
            "'https://www.iana.org/assignments/media-types/text/turtle'."
        )
    )
    download_url: HttpsUrl = Field(
        alias="downloadURL",
        description=(
            "Where the file of this release is downloaded (dcat:downloadURL): under the project's "
            "download location, named with the data version."
        ),
    )
    conforms_to: HttpsUrl | None = Field(
        None,
        description=(
            "The standard or schema the file follows (dcterms:conformsTo): the format's W3C "
            "recommendation, or for the JSON export its JSON Schema."
        ),
    )


class ContactPoint(_Model):
    """Where to report a problem with the dataset: the project's issue tracker (a vcard:Kind)."""

    type: Literal["ContactPoint"] = Field(
        "ContactPoint", description="Always 'ContactPoint' (vcard:Kind)."
    )
    name: Text = Field(description="Its name (vcard:fn), e.g. 'Execution Atlas issue tracker'.")
    url: HttpsUrl = Field(description="The issue tracker's URL (vcard:hasURL).")
