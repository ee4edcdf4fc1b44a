"""The selections with no path, by atlas, and the error that answers one of them.

A :class:`~atlas.models.NoPath` record wins over steps: :meth:`Index.path
<atlas.query._index.Index.path>` refuses its selection with a :class:`~atlas.errors.NoPathError`
that says why (the record's claims, or "not covered by the atlas's sources yet") and, when the
record names a ``seePath``, the words of ``atlas path`` for the path that really runs;
:meth:`Index.all_paths <atlas.query._index.Index.all_paths>` leaves the selection out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas.errors import NoPathError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from atlas.models import Concept, NoPath

__all__ = ["NoPaths", "by_atlas"]

#: Per atlas id: each selection with no path (its values' ids) -> its record.
NoPaths = dict[str, dict[frozenset[str], "NoPath"]]


def by_atlas(records: Iterable[NoPath]) -> NoPaths:
    """The no-path records by atlas, each under the set of its values' ids."""
    found: NoPaths = {}
    for record in records:
        found.setdefault(record.atlas, {})[frozenset(record.when)] = record
    return found


def _word(concept: Concept) -> str:
    """How a value is typed on the command line: its label, or its name when that has a space."""
    return concept.label if concept.label.split() == [concept.label] else concept.name


def error(
    record: NoPath,
    chosen: tuple[Concept, ...],
    concept: Callable[[str], Concept],
    atlas: str | None = None,
) -> NoPathError:
    """The error that answers the selection ``chosen`` of ``record``.

    ``concept`` finds a value by its id (for ``seePath``); ``atlas`` is added to the words of
    the path to see when it is not the default atlas.
    """
    selection = " ".join(c.phrase for c in chosen)
    see = ""
    if record.see_path is not None:
        scheme = record.see_path.split("/", 1)[0]
        other = concept(record.see_path)
        words = [_word(other if c.id.split("/", 1)[0] == scheme else c) for c in chosen]
        see = " ".join(words) + (f" --atlas {atlas}" if atlas else "")
    why = record.explanation.rstrip(".")
    return NoPathError(selection, record.reason, [c.label for c in chosen], why=why, see=see)
