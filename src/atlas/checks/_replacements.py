"""The consistency rule of retired ids: each leads, through its replacements, to a live record.

Identifiers are never renamed: a stage, step or citation is retired with ``owl:deprecated true``
and ``dcterms:isReplacedBy`` the record that replaces it (``dataset/README.md``), and
``atlas.stage("old-id")`` follows the replacements to a live record
(:mod:`atlas.query._retired`). :func:`retired_replacements` reports what would stop it, each
problem once, at the record at fault:

- a retired stage or step that names no replacement (a retired *citation* may name none: the
  citations retired with data 1.0.0 were split into one per claim, or dropped);
- a live record that names a replacement (``dcterms:isReplacedBy`` without ``owl:deprecated``);
- a retired citation replaced by an id that is no citation, or by a retired citation that names
  no replacement (for stages and steps, the reference rules of :mod:`atlas.data._consistency`
  and the case above report these);
- replacements that form a cycle, once per cycle, at its first id in sorted order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas.data._consistency import iri
from atlas.errors import Problem
from atlas.query._retired import Retirable, walk

if TYPE_CHECKING:
    from collections.abc import Mapping

    from atlas.models import AtlasDocument

__all__ = ["retired_replacements"]

#: The kinds of record that can be retired, with whether a retired one must name a replacement.
_MUST_NAME_ONE = {"stage": True, "step": True, "citation": False}


def retired_replacements(document: AtlasDocument) -> list[Problem]:
    """Every retired stage, step and citation leads, through its replacements, to a live one."""
    collections: dict[str, Mapping[str, Retirable]] = {
        "stage": {s.id: s for s in document.stages},
        "step": {s.id: s for s in document.steps},
        "citation": {c.id: c for c in document.citations},
    }
    problems: list[Problem] = []
    for kind, records in collections.items():
        problems += _problems(kind, records)
    return problems


def _problems(kind: str, records: Mapping[str, Retirable]) -> list[Problem]:
    """The problems of the retired records of one kind, record by record, then the cycles."""
    problems: list[Problem] = []
    cycles: dict[tuple[str, ...], None] = {}
    for record in records.values():
        target = record.replaced_by
        if not record.deprecated:
            if target is not None:
                message = f"is replaced by {kind} {target!r} but is not deprecated"
                hint = "add owl:deprecated true to retire it, or remove dcterms:isReplacedBy"
                problems.append(_bad(kind, record.id, message, hint, "replaced-but-live"))
            continue
        if target is None:
            if _MUST_NAME_ONE[kind]:
                message = "is deprecated but names no replacement (dcterms:isReplacedBy)"
                hint = f"add dcterms:isReplacedBy <the live {kind} that replaces it>"
                problems.append(_bad(kind, record.id, message, hint, "no-replacement"))
            continue
        if kind == "citation":
            problems += _citation_target(record.id, target, records)
        ids, ending = walk(record.id, records)
        if ending == "cycle":
            cycles[_rotated(ids[ids.index(ids[-1]) : -1])] = None
    for cycle in cycles:
        route = " -> ".join((*cycle, cycle[0]))
        message = f"the replacements of {kind} {cycle[0]!r} form a cycle: {route}"
        hint = "end the chain at a live record: one of them must be replaced by a live " + kind
        problems.append(_bad(kind, cycle[0], message, hint, "replacement-cycle"))
    return problems


def _citation_target(cid: str, target: str, records: Mapping[str, Retirable]) -> list[Problem]:
    """The problem of a retired citation whose replacement is no citation, or a dead end."""
    found = records.get(target)
    if found is None:
        message = f"is replaced by an unknown citation {target!r}"
        hint = "make dcterms:isReplacedBy name a citation of the dataset"
        return [_bad("citation", cid, message, hint, "dangling")]
    if found.deprecated and found.replaced_by is None:
        message = (
            f"is replaced by citation {target!r}, which is deprecated too and names no replacement"
        )
        hint = "name the live citation that replaces it"
        return [_bad("citation", cid, message, hint, "no-replacement")]
    return []


def _rotated(cycle: tuple[str, ...]) -> tuple[str, ...]:
    """The cycle started at its first id in sorted order, so that each is reported once."""
    start = cycle.index(min(cycle))
    return (*cycle[start:], *cycle[:start])


def _bad(kind: str, local: str, message: str, hint: str, code: str) -> Problem:
    return Problem("violation", message, subject=iri(kind, local), hint=hint, code=code)
