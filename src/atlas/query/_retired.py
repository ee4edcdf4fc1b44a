"""Retired ids: a deprecated stage, step or citation leads, through its replacements, to a live one.

Identifiers are never renamed (``dataset/README.md``): a retired record keeps its id with
``owl:deprecated true`` and names the record that replaces it with ``dcterms:isReplacedBy``
(the models' ``deprecated`` and ``replaced_by``); that record may be retired in its turn.
:func:`walk` follows the replacements and says how the chain ends, without raising (the
consistency rule of :mod:`atlas.checks._replacements` reads it); :func:`chain` raises for a chain
that does not end; :func:`live` answers a lookup of the API: the live record, with a
:class:`RetiredIdWarning` (a ``DeprecationWarning``) that names both ids.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Literal, Protocol, TypeVar

from atlas.errors import DatasetError, Problem
from atlas.models._iri import BASE_IRI

__all__ = ["Ending", "Retirable", "RetiredIdWarning", "chain", "live", "walk"]

#: How a chain of replacements ends: at a live record, at a retired one that names no
#: replacement, back at a record already in it, or at an id that names no record.
Ending = Literal["live", "retired", "cycle", "unknown"]

_CYCLE_HINT = "end the chain at a live record: one dcterms:isReplacedBy must name a live one"
_UNKNOWN_HINT = "make dcterms:isReplacedBy name a record of the dataset, or declare that record"


class Retirable(Protocol):
    """A record that can be retired: a stage, a step or a citation."""

    @property
    def id(self) -> str:
        """The record's id."""

    @property
    def deprecated(self) -> bool | None:
        """True for a retired record (``owl:deprecated``)."""

    @property
    def replaced_by(self) -> str | None:
        """The id of the record that replaces it (``dcterms:isReplacedBy``)."""


R = TypeVar("R", bound=Retirable)


class RetiredIdWarning(DeprecationWarning):
    """A retired id was looked up: ``old`` names it, ``new`` the record given instead.

    ``chain`` holds the ids from ``old`` to ``new``; ``replaced`` is False when ``new`` is
    retired too and names no replacement (then it is the last record of the chain).

    >>> str(RetiredIdWarning("stage", ("a", "b", "c"), replaced=True))
    "stage 'a' is deprecated; use its replacement 'c' (a -> b -> c)"
    """

    def __init__(self, kind: str, ids: tuple[str, ...], *, replaced: bool) -> None:
        self.kind = kind
        self.old, self.new = ids[0], ids[-1]
        self.chain = ids
        self.replaced = replaced
        route = " -> ".join(ids)
        if replaced:
            via = f" ({route})" if len(ids) > 2 else ""  # noqa: PLR2004 - a -> b says nothing more
            message = f"{kind} {self.old!r} is deprecated; use its replacement {self.new!r}{via}"
        elif len(ids) == 1:
            message = f"{kind} {self.old!r} is deprecated and names no replacement"
        else:
            message = (
                f"{kind} {self.old!r} is deprecated and has no live replacement: {route} ends "
                f"at a deprecated {kind} that names none"
            )
        super().__init__(message)


def walk(start: str, records: Mapping[str, R]) -> tuple[tuple[str, ...], Ending]:
    """``start`` and the ids that replace it in turn, and how that chain ends.

    The chain stops at the first live record, at a retired one that names no replacement, at
    an id already in it (``cycle``: that id is the last one given twice), or at an id that
    names no record (``unknown``: the last id).

    >>> from types import SimpleNamespace as Record
    >>> records = {"a": Record(id="a", deprecated=True, replaced_by="b"),
    ...            "b": Record(id="b", deprecated=None, replaced_by=None)}
    >>> walk("a", records)
    (('a', 'b'), 'live')
    """
    ids, seen = [start], {start}
    current = records[start]
    while current.deprecated:
        following = current.replaced_by
        if following is None:
            return tuple(ids), "retired"
        ids.append(following)
        if following in seen:
            return tuple(ids), "cycle"
        seen.add(following)
        found = records.get(following)
        if found is None:
            return tuple(ids), "unknown"
        current = found
    return tuple(ids), "live"


def chain(kind: str, start: str, records: Mapping[str, R]) -> tuple[str, ...]:
    """``start`` and the ids that replace it in turn, up to a live record or one with none.

    Raises:
        DatasetError: the replacements form a cycle, or name an id no record of ``kind`` has;
            its problem names the record at fault (``replacement-cycle``, ``dangling``).
    """
    ids, ending = walk(start, records)
    route = " -> ".join(ids)
    if ending == "cycle":
        problem = Problem(
            "violation",
            f"the replacements of {kind} {start!r} form a cycle: {route}",
            subject=f"{BASE_IRI}{kind}/{ids[-2]}",
            hint=_CYCLE_HINT,
            code="replacement-cycle",
        )
    elif ending == "unknown":
        via = f" (replacements of {kind} {start!r}: {route})" if len(ids) > 2 else ""  # noqa: PLR2004
        problem = Problem(
            "violation",
            f"{kind} {ids[-2]!r} is replaced by {ids[-1]!r}, which is not a {kind}{via}",
            subject=f"{BASE_IRI}{kind}/{ids[-2]}",
            hint=_UNKNOWN_HINT,
            code="dangling",
        )
    else:
        return ids
    raise DatasetError([problem])


def live(kind: str, record: R, records: Mapping[str, R], *, stacklevel: int = 3) -> R:
    """``record``, or when it is retired the record that replaces it in the end, with a warning.

    The :class:`RetiredIdWarning` points at the caller of the function ``stacklevel - 1``
    frames up (3: the caller of the public lookup that called this one).

    Raises:
        DatasetError: the replacements form a cycle, or name an id no record has.
    """
    if not record.deprecated:
        return record
    ids = chain(kind, record.id, records)
    found = records[ids[-1]]
    warnings.warn(RetiredIdWarning(kind, ids, replaced=not found.deprecated), stacklevel=stacklevel)
    return found
