"""The consistency rule of the selections with no path (:class:`~atlas.models.NoPath`).

A no-path record names one real value of each dimension of its atlas, says why in the way its
reason asks (claims for ``does-not-exist``, a curator's note for ``not-covered``), and its
``seePath`` is a value of one of the atlas's dimensions. A no-path record wins over steps (the
selection has no path, whatever steps apply under it), so a step written for that very
selection, one whose ``ea:when`` names each of its values, contradicts it and is reported; steps
that apply under one of its values among others (or under any value) do not.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from atlas.errors import Problem
from atlas.models._iri import BASE_IRI

if TYPE_CHECKING:
    from atlas.models import Atlas, AtlasDocument, NoPath, Step

__all__ = ["no_path_records"]


def _bad(local: str, message: str, hint: str | None = None, code: str = "no-path") -> Problem:
    return Problem("violation", message, subject=f"{BASE_IRI}nopath/{local}", hint=hint, code=code)


def no_path_records(document: AtlasDocument) -> list[Problem]:
    """Each no-path record names one known value per dimension of its atlas, and says why.

    >>> from atlas.query.paths import load
    >>> no_path_records(load())
    []
    """
    atlases = {a.id: a for a in document.atlases}
    concepts = {c.id for s in document.schemes for c in s.values}
    problems: list[Problem] = []
    for record in document.no_paths:
        atlas = atlases.get(record.atlas)
        if atlas is None:
            message = f"belongs to an unknown atlas {record.atlas!r}"
            problems.append(_bad(record.id, message, code="dangling"))
            continue
        problems += _selection_problems(record, atlas, concepts)
        problems += _reason_problems(record)
    problems += _repeated(document.no_paths)
    problems += _contradicting_steps(document.no_paths, document.steps)
    return problems


def _selection_problems(record: NoPath, atlas: Atlas, concepts: set[str]) -> list[Problem]:
    """Its values (and seePath): known values, one of each dimension of its atlas."""
    problems = [
        _bad(record.id, f"value {value!r} is not a known dimension value", code="dangling")
        for value in (*record.when, *filter(None, (record.see_path,)))
        if value not in concepts
    ]
    if not atlas.dimensions:
        message = f"atlas {atlas.id!r} has no dimensions, so no selections"
        return [*problems, _bad(record.id, message)]
    dimension_of = {v: v.split("/", 1)[0] for v in record.when}
    for dim in atlas.dimensions:
        given = [v for v in record.when if dimension_of[v] == dim]
        if len(given) != 1:
            found = f"{len(given)} values ({', '.join(given)})" if given else "no value"
            message = f"names {found} of the dimension {dim!r}; a selection has exactly one"
            hint = f"give one ea:when value of scheme:{dim}"
            problems.append(_bad(record.id, message, hint=hint))
    problems.extend(
        _bad(record.id, f"value {value!r} is not a value of a dimension of atlas {atlas.id!r}")
        for value in record.when
        if dimension_of[value] not in atlas.dimensions
    )
    see = record.see_path
    if see is not None and (see.split("/", 1)[0] not in atlas.dimensions or see in record.when):
        message = f"seePath {see!r} must be another value of one of the dimensions of {atlas.id!r}"
        problems.append(_bad(record.id, message))
    return problems


def _reason_problems(record: NoPath) -> list[Problem]:
    """Why there is no path, as the reason asks: claims, or a curator's note."""
    if record.reason == "does-not-exist" and not record.claims:
        hint = "add claims (ea:about this record) saying why the combination does not exist"
        return [_bad(record.id, '"does-not-exist" needs its reason as claims', hint=hint)]
    if record.reason == "not-covered" and record.note is None:
        hint = "add a skos:editorialNote saying what the sources lack"
        return [_bad(record.id, '"not-covered" needs a curator\'s note', hint=hint)]
    return []


def _repeated(records: tuple[NoPath, ...]) -> list[Problem]:
    """Two no-path records of one selection."""
    seen = Counter((r.atlas, frozenset(r.when)) for r in records)
    return [
        _bad(r.id, f"another no-path record names the same selection ({', '.join(r.when)})")
        for r in records
        if seen[r.atlas, frozenset(r.when)] > 1
    ]


def _contradicting_steps(records: tuple[NoPath, ...], steps: tuple[Step, ...]) -> list[Problem]:
    """A live step written for a no-path selection: its ``ea:when`` names each of its values."""
    problems: list[Problem] = []
    for record in records:
        problems.extend(
            _bad(
                record.id,
                f"step {step.id!r} is written for this selection (its ea:when names each of "
                f"{', '.join(record.when)}), but the selection has no path",
                hint="remove the no-path record, or the selection's values from the step",
                code="no-path-conflict",
            )
            for step in steps
            if step.atlas == record.atlas
            and not step.deprecated
            and set(record.when) <= set(step.when)
        )
    return problems
