"""CITATION.cff: valid Citation File Format 1.2.0, and in step with the package and the dataset.

The schema below holds the essential rules of the CFF 1.2.0 JSON Schema
(https://citation-file-format.github.io/1.2.0/schema): the keys each object may have, the
required ones, the types of work, URLs, dates, licences as SPDX ids, and authors as persons or
entities. Every value that the package or the dataset also states must agree with them.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from atlas._version import __version__
from atlas.data import _resources
from atlas.models import AtlasDocument

ROOT = Path(__file__).resolve().parents[1]
EXPORT = AtlasDocument.model_validate_json(Path(str(_resources.export_file())).read_bytes())
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
URLS = PROJECT["urls"]
AUTHORS = [{"name": a["name"]} for a in PROJECT["authors"]]  # the same authors as the package

_STRING = {"type": "string", "minLength": 1}
_URL = {"type": "string", "pattern": "^(https|http|ftp|sftp)://.+"}
_DATE = {"type": "string", "pattern": r"^[0-9]{4}-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])$"}
_SPDX = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9.+-]*$"}
_PEOPLE = {
    "type": "array",
    "minItems": 1,
    "uniqueItems": True,
    "items": {"anyOf": [{"$ref": "#/definitions/person"}, {"$ref": "#/definitions/entity"}]},
}
_PLACE = ("address", "alias", "city", "country", "email", "fax", "orcid", "post-code", "region")
_PERSON_KEYS = (*_PLACE, "affiliation", "family-names", "given-names", "name-particle")
_ENTITY_KEYS = (*_PLACE, "date-end", "date-start", "location", "name", "tel", "website")
#: Every key of a reference in CFF 1.2.0; those with a rule here have it in _REFERENCE_RULES.
_REFERENCE_KEYS = (  # noqa: SIM905 - as compact as the schema lists them
    "abbreviation abstract authors collection-doi collection-title collection-type commit "
    "conference contact copyright data-type database database-provider date-accessed "
    "date-downloaded date-published date-released department doi edition editors "
    "editors-series end entry filename format identifiers institution isbn issn issue "
    "issue-date issue-title journal keywords languages license license-url loc-end "
    "loc-start location medium month nihmsid notes number number-volumes pages "
    "patent-states pmcid publisher recipients repository repository-artifact "
    "repository-code scope section senders start status term thesis-type title translators "
    "type url version volume volume-title year year-original"
).split()
_REFERENCE_TYPES = (  # noqa: SIM905 - idem
    "art article audiovisual bill blog book catalogue conference-paper conference data "
    "database dictionary edited-work encyclopedia film-broadcast generic "
    "government-document grant hearing historical-work legal-case legal-rule "
    "magazine-article manual map multimedia music newspaper-article pamphlet patent "
    "personal-communication proceedings report serial slides software-code "
    "software-container software-executable software-virtual-machine software "
    "sound-recording standard statute thesis unpublished video website"
).split()
_COMMON_RULES: dict[str, Any] = {
    "abstract": _STRING,
    "authors": _PEOPLE,
    "contact": _PEOPLE,
    "date-released": _DATE,
    "identifiers": {
        "type": "array",
        "minItems": 1,
        "uniqueItems": True,
        "items": {"$ref": "#/definitions/identifier"},
    },
    "keywords": {"type": "array", "minItems": 1, "uniqueItems": True, "items": _STRING},
    "license": {"oneOf": [_SPDX, {"type": "array", "minItems": 1, "items": _SPDX}]},
    "license-url": _URL,
    "repository": _URL,
    "repository-artifact": _URL,
    "repository-code": _URL,
    "title": _STRING,
    "url": _URL,
    "version": {"anyOf": [_STRING, {"type": "number"}]},
}
_REFERENCE_RULES = {**_COMMON_RULES, "type": {"enum": _REFERENCE_TYPES}}
_IDENTIFIER_VALUES = {"doi": _STRING, "url": _URL, "swh": _STRING, "other": _STRING}

CFF_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["authors", "cff-version", "message", "title"],
    "properties": {
        **_COMMON_RULES,
        "cff-version": {"type": "string", "pattern": r"^1\.2\.0$"},
        "commit": _STRING,
        "doi": _STRING,
        "message": _STRING,
        "preferred-citation": {"$ref": "#/definitions/reference"},
        "references": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"$ref": "#/definitions/reference"},
        },
        "type": {"enum": ["dataset", "software"]},
    },
    "definitions": {
        "person": {
            "type": "object",
            "additionalProperties": False,
            "properties": {key: {} for key in (*_PERSON_KEYS, "name-suffix", "tel", "website")},
        },
        "entity": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name"],
            "properties": {key: {} for key in _ENTITY_KEYS} | {"name": _STRING},
        },
        "identifier": {
            "anyOf": [
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["type", "value"],
                    "properties": {
                        "type": {"const": kind},
                        "value": value,
                        "description": _STRING,
                    },
                }
                for kind, value in _IDENTIFIER_VALUES.items()
            ]
        },
        "reference": {
            "type": "object",
            "additionalProperties": False,
            "required": ["authors", "title", "type"],
            "properties": {key: _REFERENCE_RULES.get(key, {}) for key in _REFERENCE_KEYS},
        },
    },
}


def _cff_errors(data: Any) -> list[str]:
    validator = jsonschema.Draft7Validator(CFF_SCHEMA)
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
        for error in validator.iter_errors(data)
    ]


def _as_strings(data: Any) -> Any:
    """YAML's dates as strings, as CFF's schema reads them (its note to tool makers)."""
    return json.loads(json.dumps(data, default=lambda value: value.isoformat()))


@pytest.fixture(scope="module")
def cff() -> dict[str, Any]:
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert isinstance(data, dict)
    return _as_strings(data)


def _dataset(cff: dict[str, Any]) -> dict[str, Any]:
    found = [r for r in cff.get("references", []) if r["type"] == "data"]
    assert len(found) == 1, "CITATION.cff must cite the dataset once, as a reference of type data"
    return found[0]


def test_citation_cff_is_valid_cff_1_2_0(cff: dict[str, Any]) -> None:
    assert _cff_errors(cff) == []


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda d: d.pop("message"), "'message' is a required property"),
        (lambda d: d.update({"cff-version": "1.1.0"}), "does not match"),
        (lambda d: d.update({"type": "data"}), "is not one of ['dataset', 'software']"),
        (lambda d: d.update({"url": "github.com/x"}), "does not match"),
        (lambda d: d.update({"date-released": "2026-13-01"}), "does not match"),
        (lambda d: d.update({"authors": [{"nom": "x"}]}), "is not valid under any"),
        (lambda d: d.update({"licence": "MIT"}), "Additional properties"),
        (lambda d: d["references"][0].update({"type": "dataset"}), "is not one of"),
        (lambda d: d["references"][0].pop("authors"), "'authors' is a required property"),
        (lambda d: d["references"][0]["identifiers"][0].update({"type": "iri"}), "not valid"),
    ],
)
def test_the_schema_refuses_what_cff_refuses(cff: dict[str, Any], change: Any, error: str) -> None:
    broken = copy.deepcopy(cff)
    change(broken)
    assert any(error in message for message in _cff_errors(broken)), _cff_errors(broken)


def test_it_cites_the_package_at_its_version_and_release_date(cff: dict[str, Any]) -> None:
    assert cff["type"] == "software"
    assert cff["version"] == __version__
    assert cff["license"] == "MIT"
    assert cff["authors"] == AUTHORS
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    heading = re.search(rf"^## \[{re.escape(__version__)}\] - (\S+)$", changelog, re.MULTILINE)
    assert heading, f"CHANGELOG.md has no dated section for {__version__}"
    assert cff["date-released"] == heading[1]


def test_it_cites_the_dataset_at_its_data_version(cff: dict[str, Any]) -> None:
    data = _dataset(cff)
    assert data["version"] == EXPORT.version
    assert data["date-released"] == EXPORT.issued.isoformat()
    assert data["title"] == EXPORT.title
    assert data["abstract"] == EXPORT.description
    assert data["license"] == "CC-BY-4.0"
    assert EXPORT.license == "https://creativecommons.org/licenses/by/4.0/"
    assert data["authors"] == AUTHORS
    iris = [i["value"] for i in data["identifiers"] if i["type"] == "url"]
    assert iris == [EXPORT.current_version, EXPORT.id]


def test_its_urls_are_the_projects(cff: dict[str, Any]) -> None:
    for work in (cff, _dataset(cff)):
        assert work["url"] == URLS["Homepage"]
        assert work["repository-code"] == URLS["Homepage"]
        assert work["repository-artifact"] == URLS["Download"]
    assert EXPORT.landing_page == URLS["Homepage"]


def test_a_yaml_date_reads_as_cff_reads_it() -> None:
    assert _as_strings({"date-released": dt.date(2026, 12, 3)}) == {"date-released": "2026-12-03"}
