"""Exports of an earlier format, read as this format, so that ``atlas diff`` can compare releases.

Format 1 carried each text whole (``description``, ``whatHappens``) with the citations of the
record; format 2 makes texts of claims, each with its own citations (issue 16). A format-1
record becomes a record with one claim holding its whole text and every citation of the record,
plus one flagged claim per ``unsupportedClaims`` entry; check dates become date-times at
midnight UTC. The result is what the old release said, in the new shape: a diff then shows each
text as changed where its claims differ.
"""

from __future__ import annotations

from typing import Any

from atlas.models import SCHEMA_URL, SCHEMA_VERSION

__all__ = ["from_format_1"]

_TEXT_KEYS = {
    "atlases": ("atlas", "description"),
    "stages": ("stage", "description"),
    "steps": ("step", "whatHappens"),
    "technologies": ("technology", "description"),
    "relations": ("relation", None),
}


def from_format_1(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a format-1 export) as a format-2 export; other data is returned unchanged.

    >>> old = {"schemaVersion": "1.0.0", "stages": [{"id": "cpu", "description": "A CPU.",
    ...     "citations": ["c"], "unsupportedClaims": ["Fast."]}], "citations": [
    ...     {"id": "c", "retrievedOn": "2026-12-02"}], "sources": []}
    >>> new = from_format_1(old)
    >>> [(c["id"], c["text"], c.get("citations")) for c in new["stages"][0]["claims"]]
    [('stage-cpu-1', 'A CPU.', ['c']), ('stage-cpu-2', 'Fast.', None)]
    >>> new["citations"][0]["retrievedOn"], new["schemaVersion"] == SCHEMA_VERSION
    ('2026-12-02T00:00:00Z', True)
    """
    version = data.get("schemaVersion")
    if not (isinstance(version, str) and version.startswith("1.")):
        return data
    upgraded = dict(data, schemaVersion=SCHEMA_VERSION)
    upgraded["$schema"] = SCHEMA_URL
    for key, (kind, text_key) in _TEXT_KEYS.items():
        records = data.get(key)
        if isinstance(records, list):
            upgraded[key] = [
                _claimed(r, kind, text_key) if isinstance(r, dict) else r for r in records
            ]
    for key in ("citations", "sources"):
        records = data.get(key)
        if isinstance(records, list):
            upgraded[key] = [_dated(r) if isinstance(r, dict) else r for r in records]
    return upgraded


def _claimed(record: dict[str, Any], kind: str, text_key: str | None) -> dict[str, Any]:
    """A format-1 record with its text (and its citations) as claims."""
    out = {k: v for k, v in record.items() if k not in ("citations", "unsupportedClaims")}
    text = out.pop(text_key, None) if text_key else None
    if text_key is None:  # a relation: its statement, as the records say it
        text = f"{record.get('from')} is written in {record.get('to')}."
    claims: list[dict[str, Any]] = []
    if isinstance(text, str) and text:
        claims.append({"id": f"{kind}-{record.get('id')}-1", "text": text, "order": 1})
        claims[0]["citations"] = list(record.get("citations") or [])
    for flagged in record.get("unsupportedClaims") or []:
        n = len(claims) + 1
        claims.append(
            {
                "id": f"{kind}-{record.get('id')}-{n}",
                "text": flagged,
                "order": n,
                "unsupported": True,
            }
        )
    out["claims"] = claims
    return out


def _dated(record: dict[str, Any]) -> dict[str, Any]:
    """A check date (``2026-12-02``) as the date-time PAV's range asks for (midnight UTC)."""
    day = record.get("retrievedOn")
    if isinstance(day, str) and len(day) == len("2026-12-02"):
        return dict(record, retrievedOn=f"{day}T00:00:00Z")
    return record
