"""The integrity of export data: one record per id, references that resolve, consistent records.

:func:`export_problems` is what reading an export checks after the JSON Schema and the models:
the ids (source URLs) held twice and the references to records the export does not hold, each at
the JSON pointer (and line) of the value at fault; when there are none, the problems of the
consistency rules (:mod:`atlas.data._consistency`), each at its record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from atlas.data import _json
from atlas.data._consistency import COLLECTION_KINDS, record_problems
from atlas.errors import Problem, shown

if TYPE_CHECKING:
    from atlas.models import AtlasDocument

__all__ = ["export_problems"]

#: What each record of an export names: its key, and the collection whose ids (for sources:
#: URLs) the value must be. ``concepts`` are the values of the concept schemes.
_REFERENCES: dict[str, tuple[tuple[str, str], ...]] = {
    "atlases": (("entryStage", "stages"), ("dimensions", "schemes")),
    "stages": (
        ("kind", "concepts"),
        ("technology", "technologies"),
        ("atlases", "atlases"),
        ("citations", "citations"),
        ("replacedBy", "stages"),
    ),
    "technologies": (("kind", "concepts"), ("citations", "citations")),
    "steps": (
        ("atlas", "atlases"),
        ("from", "stages"),
        ("to", "stages"),
        ("when", "concepts"),
        ("whenAny", "schemes"),
        ("citations", "citations"),
        ("replacedBy", "steps"),
        ("readAfter", "steps"),
    ),
    "relations": (
        ("atlas", "atlases"),
        ("from", "technologies"),
        ("to", "technologies"),
        ("citations", "citations"),
    ),
    "citations": (("source", "sources"),),
    "claims": (("citations", "citations"),),
}
_NOUNS = {**COLLECTION_KINDS, "concepts": "value of a concept scheme", "claims": "claim"}
_CLAIMED = ("atlases", "concepts", "stages", "steps", "technologies", "relations")

_REFERENCE_HINTS = {
    "dangling": "a record names a record the export does not hold; export it again with "
    "'atlas export', which checks every reference",
    "duplicate": "every id (every source URL) names one record; export it again with "
    "'atlas export', which checks them",
}

_Records = dict[str, list[tuple[list[Any], dict[str, Any]]]]  # collection -> (path, record)
_Found = list[tuple[list[Any], str, str]]  # path of the value at fault, message, code
_Placed = list[tuple[Problem, list[Any]]]  # each problem with the path of its value


def export_problems(
    data: Any,
    *,
    file: str,
    lines: Mapping[str, int] | Callable[[], Mapping[str, int]] | None = None,
    document: AtlasDocument | None = None,
    consistency: Callable[[AtlasDocument], list[Problem]] | None = None,
) -> list[Problem]:
    """What makes export data inconsistent, each problem at its place in the file.

    The ids it holds twice (sources: URLs), and the references to records it does not hold,
    each named by the JSON pointer of the value at fault; when there are none and ``document``
    (the models of ``data``) is given, the other violations that ``consistency`` finds in it
    (by default the record rules of :mod:`atlas.data._consistency`), at their record. ``data``
    matches the JSON Schema; ``lines`` maps JSON pointers to lines (or is a function that
    returns the map, called on the first problem only).

    >>> data = {"stages": [{"type": "Stage", "id": "a"}], "steps": [
    ...     {"type": "Step", "id": "s", "from": "a", "to": "b", "citations": []}]}
    >>> [p.message for p in export_problems(data, file="x.json")]
    ["/steps/0(s)/to: no stage has the id 'b'"]
    """
    if not isinstance(data, dict):
        return []
    records = _export_records(data)
    placed = _reference_problems(data, records)
    if not placed and document is not None:  # the rest of consistency, at each record's id
        placed = _consistency_problems(data, records, (consistency or record_problems)(document))
    if not placed:
        return []
    table = lines() if callable(lines) else lines  # there are problems: the lines are wanted

    return [
        replace(p, file=file, line=_json.line_of_pointer(table, path) if table else None)
        for p, path in placed
    ]


def _reference_problems(data: dict[str, Any], records: _Records) -> _Placed:
    """The ids held twice and the dangling references, at the path of the value at fault."""
    found: _Found = []
    known = _known_ids(data, records, found)
    for collection, references in _REFERENCES.items():
        for path, item in records[collection]:
            for key, target in references:
                _dangling(item.get(key), [*path, key], target, known[target], found)
    return [
        (
            Problem(
                "violation",
                f"{_json.described_pointer(data, path)}: {message}",
                subject=_json.record_iri(data, path),
                hint=_REFERENCE_HINTS[code],
                code=code,
            ),
            path,
        )
        for path, message, code in found
    ]


def _consistency_problems(
    data: dict[str, Any], records: _Records, problems: list[Problem]
) -> _Placed:
    """The violations among ``problems``, each at the id of its record where it has one."""
    at = {_json.record_iri(data, path): path for items in records.values() for path, _ in items}
    return [
        (
            replace(p, message=f"{_json.described_pointer(data, at[p.subject])}: {p.message}"),
            [*at[p.subject], "id"],
        )
        if p.subject in at
        else (p, [])
        for p in problems
        if p.severity == "violation"
    ]


def _export_records(data: dict[str, Any]) -> _Records:
    """The records of export data per collection, each with its path in the data."""
    found: _Records = {}
    for collection in _NOUNS:
        if collection == "claims":
            continue  # nested in the records that have a text, below
        if collection == "concepts":
            schemes = data.get("schemes")
            items = [
                (["schemes", i, "values", j], value)
                for i, scheme in enumerate(schemes if isinstance(schemes, list) else [])
                if isinstance(scheme, dict) and isinstance(scheme.get("values"), list)
                for j, value in enumerate(scheme["values"])
            ]
        else:
            records = data.get(collection)
            items = (
                [([collection, i], r) for i, r in enumerate(records)]
                if isinstance(records, list)
                else []
            )
        found[collection] = [(path, item) for path, item in items if isinstance(item, dict)]
    found["claims"] = [
        ([*path, "claims", k], claim)
        for owners in _CLAIMED
        for path, owner in found[owners]
        if isinstance(owner.get("claims"), list)
        for k, claim in enumerate(owner["claims"])
        if isinstance(claim, dict)
    ]
    return found


def _known_ids(data: dict[str, Any], records: _Records, found: _Found) -> dict[str, set[str]]:
    """The ids (source URLs) of each collection; each one held twice is added to ``found``."""
    known: dict[str, set[str]] = {}
    for collection, items in records.items():
        for key in ("id", "url") if collection == "sources" else ("id",):
            first: dict[str, list[Any]] = {}
            for path, item in items:
                value = item.get(key)
                if not isinstance(value, str):
                    continue
                if value in first:
                    also = _json.described_pointer(data, first[value])
                    what = f"URL <{value}>" if key == "url" else f"id {shown(value)}"
                    found.append(([*path, key], f"duplicate {what}, also at {also}", "duplicate"))
                else:
                    first[value] = path
            known[collection] = set(first)  # sources: by URL, the key citations name them by
    return known


def _dangling(value: Any, path: list[Any], target: str, known: set[str], found: _Found) -> None:
    """Add to ``found`` each id in ``value`` (an id or a list of ids) that ``known`` lacks."""
    named = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
    for index, name in named:
        if isinstance(name, str) and name not in known:
            what = f"URL <{name}>" if target == "sources" else f"id {shown(name)}"
            where = path if index is None else [*path, index]
            found.append((where, f"no {_NOUNS[target]} has the {what}", "dangling"))
