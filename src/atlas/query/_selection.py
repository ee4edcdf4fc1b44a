"""Selections as people write them: which atlas, and which value of each of its dimensions.

:func:`resolve` reads what :func:`atlas.path` and ``atlas path`` are given: values one per
dimension in order (``eager cpu``), a phrase (``"eager on CPU"``, ``"llama.cpp with CUDA, partial
offload"``, the same words unquoted), ``dimension=value`` words and named values (``mode=``,
``--mode``). Words are matched case-insensitively against every name of a value (its id, name,
label and aliases, as :func:`atlas.query._atlasindex.value_keys` folds them); the fillers in
:data:`FILLERS` and the separators ``, ; : ( )`` are ignored. A phrase may name the atlas (its id or
label); otherwise the atlas is the one whose values the words name.

The rules, in order:

1. Values given one per dimension, each a whole name of a value of that dimension, are read so
   (positional values keep their meaning).
2. Otherwise the words are split into names of values, the reading with the fewest names winning
   (``NVIDIA GPU`` is one value, never ``NVIDIA`` and ``GPU``); it must give each dimension exactly
   one value, and be the only such reading.
3. Without an atlas asked for or named, every atlas with dimensions is tried: exactly one may read
   the words. When none does, the error is that of the atlas that knew the most words.

Rules 1 and 2 are one atlas's reading of the words (:mod:`atlas.query._reading`); rule 3 is
:func:`resolve`'s. Every failure is a precise error: an unknown word, a missing or doubled
dimension, or the readings (or atlases) that the words fit. Standard library only (``atlas
path`` reads a :class:`Vocabulary` from the table of printed paths without pydantic); the
error classes are imported only when one is raised.
"""

from __future__ import annotations

import functools

from atlas.models._names import fold
from atlas.query._reading import (
    FILLERS,
    SEPARATORS,
    AtlasWords,
    Word,
    keyword,
    make_error,
    may_read,
    read,
    words,
)

TYPE_CHECKING = False  # spares importing typing on the fast path
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = ["FILLERS", "MAX_WORDS", "AtlasWords", "Vocabulary", "resolve", "words"]

MAX_WORDS = 32  # words in a selection at most (fillers and atlas names included)


class Vocabulary:
    """Every atlas's names: what :func:`resolve` matches words against.

    Made by :meth:`from_data` from plain data, the layout the table of printed paths also has
    (:func:`atlas.query._pathtable.vocabulary_data` writes it from the index of the export).
    """

    def __init__(
        self, ids: tuple[str, ...], folded: Mapping[str, str], atlases: tuple[AtlasWords, ...]
    ) -> None:
        self.ids = ids  # every atlas, with dimensions or not, in curated order
        self.folded = folded  # an atlas's id or folded label -> its id
        self.atlases = atlases  # the atlases with dimensions, in curated order
        self.by_id = {a.id: a for a in atlases}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Vocabulary:
        """The vocabulary in the plain data ``data`` (the layout of the table of printed paths).

        ``ids`` and ``folded``, and in ``atlases``, per atlas with dimensions, its ``label``,
        dimension ``names``, ``dimensions`` (folded name -> value id) and ``values`` (per
        dimension, ``[id, label]`` pairs in order).

        Raises:
            KeyError, TypeError, ValueError: ``data`` is not in this layout.
        """
        ids = tuple(str(i) for i in data["ids"])
        atlases = []
        for atlas_id in ids:
            found = data["atlases"].get(atlas_id)
            if found is None:
                continue
            atlases.append(
                AtlasWords(
                    atlas_id,
                    str(found["label"]),
                    tuple(map(str, found["names"])),
                    tuple(dict(keys) for keys in found["dimensions"]),
                    tuple(
                        tuple((str(vid), str(label)) for vid, label in values)
                        for values in found["values"]
                    ),
                )
            )
            if not len(atlases[-1].names) == len(atlases[-1].keys) == len(atlases[-1].values):
                raise ValueError(f"atlas {atlas_id!r}: its dimensions do not line up")
        return cls(ids, dict(data["folded"]), tuple(atlases))

    def atlas(self, name: str) -> str:
        """The id of the atlas with this id or label (case-insensitive), as ``Index.atlas``.

        Raises:
            UnknownIdError: no atlas has it.
        """
        if name in self.ids:
            return name
        found = self.folded.get(name.casefold())
        if found is None:
            from atlas.errors import UnknownIdError  # noqa: PLC0415 - only when wrong

            raise UnknownIdError("atlas", name, sorted(self.ids))
        return found

    @functools.cached_property
    def atlas_names(self) -> dict[tuple[str, ...], str]:
        """Every atlas's id and label as words -> the atlas's id."""
        return {tuple(words(key)): atlas for key, atlas in self.folded.items() if words(key)}

    @functools.cached_property
    def atlas_first_words(self) -> frozenset[str]:
        """The first word of each atlas's id and label: where a name of an atlas may start."""
        return frozenset(name[0] for name in self.atlas_names)


def resolve(
    vocabulary: Vocabulary,
    values: Sequence[str],
    named: Mapping[str, str] | None = None,
    atlas: str | None = None,
) -> tuple[str, tuple[str, ...]]:
    """The atlas and the value id of each of its dimensions that ``values`` and ``named`` say.

    ``values`` are checked text (see :func:`atlas.models._names.text`); ``atlas`` is an atlas's
    id or label, or None for the one the words name. An atlas without dimensions is returned
    with no values (its path is then refused by the index, which says why).

    Raises:
        UnknownIdError: an unknown ``atlas``.
        UnknownValueError: unknown words or dimensions, a dimension left out (``MissingValueError``)
            or given two values, or words that fit more than one reading or atlas
            (``SelectionError``, which lists them).
    """
    found = None if named or atlas is not None else _only_reading(vocabulary, values)
    return found or _resolve(vocabulary, values, named, atlas)


def _resolve(
    vocabulary: Vocabulary,
    values: Sequence[str],
    named: Mapping[str, str] | None,
    atlas: str | None,
) -> tuple[str, tuple[str, ...]]:
    """:func:`resolve`, every rule applied."""
    plain, named = _split_named(vocabulary, values, named or {})
    given = [Word(w) for v in plain for w in v.translate(SEPARATORS).split()]
    if len(given) > MAX_WORDS:  # a selection is a few values: the search grows with the words
        _refuse(values, named, f"it has {len(given)} words; a selection has at most {MAX_WORDS}")
    chosen_atlas = None if atlas is None else vocabulary.atlas(atlas)
    given, in_words = _atlas_words(vocabulary, given)
    if len(in_words) > 1 or (in_words and chosen_atlas and in_words != {chosen_atlas}):
        asked = sorted(in_words | ({chosen_atlas} if chosen_atlas else set()))
        _refuse(values, named, f"it names more than one atlas: {', '.join(asked)}", asked)
    chosen_atlas = chosen_atlas or next(iter(in_words), None)
    if chosen_atlas is not None:
        if chosen_atlas not in vocabulary.by_id:
            return chosen_atlas, ()  # no dimensions: the index says so
        candidates: tuple[AtlasWords, ...] = (vocabulary.by_id[chosen_atlas],)
    else:
        _check_names(vocabulary, named)
        candidates = vocabulary.atlases
    quoted = _quoted(values, named)
    tried = candidates
    if len(tried) > 1:  # an atlas that surely cannot read the words is read only for an error
        folded = {w.folded for w in given}
        tried = tuple(a for a in tried if may_read(a, folded))
    readings = [read(a, plain, given, named, quoted) for a in tried]
    fits = [r for r in readings if r.error is None]
    if len(fits) == 1:
        found = fits[0]
        return found.atlas.id, tuple(v for v in found.chosen if v is not None)
    if fits:
        listed = [f"{r.atlas.id} ({r.atlas.reading(r.chosen)})" for r in fits]
        _refuse(
            values,
            named,
            f"it fits more than one atlas: {'; '.join(listed)}: name one (atlas=, --atlas, or "
            "its name in the words)",
            [r.atlas.id for r in fits],
        )
    if len(readings) < len(candidates):  # the error comes from every atlas's reading
        readings = [read(a, plain, given, named, quoted) for a in candidates]
    best = min(readings, key=lambda r: (r.unknown, sum(v is None for v in r.chosen)))
    raise best.error()  # type: ignore[misc]  # every reading failed, with its error


def _only_reading(
    vocabulary: Vocabulary, values: Sequence[str]
) -> tuple[str, tuple[str, ...]] | None:
    """What :func:`resolve` answers when one atlas alone may read ``values``, and by rule 1.

    The common call (``path("torch.compile", "NVIDIA GPU")``), answered without the work of the
    general way; ``None`` sends every other call there (also a word that may start an atlas's
    name, and ``=``): when only one atlas may read the words, the general way reads them in that
    atlas alone, where rule 1 comes first.
    """
    folded = [w for v in values for w in words(v)]
    given = set(folded)
    if len(folded) > MAX_WORDS or "=" in "".join(values):
        return None
    if not given.isdisjoint(vocabulary.atlas_first_words):
        return None
    reader = None
    for atlas in vocabulary.atlases:
        if may_read(atlas, given):
            if reader is not None:
                return None
            reader = atlas
    if reader is None or len(reader.keys) != len(values):
        return None
    chosen = tuple(keys.get(fold(v)) for keys, v in zip(reader.keys, values, strict=True))
    return (reader.id, chosen) if all(chosen) else None  # type: ignore[return-value]  # all str


def _split_named(
    vocabulary: Vocabulary, values: Sequence[str], named: Mapping[str, str]
) -> tuple[list[str], dict[str, str]]:
    """The values less the ``dimension=value`` ones, and those with the ``named`` values."""
    plain: list[str] = []
    found = dict(named)
    for value in values:
        key, equals, rest = value.partition("=")
        if equals and key.strip() and any(a.dimension(key) is not None for a in vocabulary.atlases):
            if any(keyword(key) == keyword(other) for other in found):
                _refuse(values, found, f"the dimension {key.strip()!r} is given twice")
            found[key.strip()] = rest.strip()
        else:
            plain.append(value)
    return plain, found


def _refuse(
    values: Sequence[str], named: Mapping[str, str], problem: str, choices: Sequence[str] = ()
) -> None:
    """Raise the :class:`~atlas.errors.SelectionError` of ``problem`` with the words quoted."""
    raise make_error("SelectionError", _quoted(values, named), problem, list(choices))


def _quoted(values: Sequence[str], named: Mapping[str, str]) -> str:
    """The words as given, named values last: ``eager on CPU``, ``device=cpu``."""
    return " ".join([*values, *(f"{k}={v}" for k, v in named.items() if f"{k}={v}" not in values)])


def _atlas_words(vocabulary: Vocabulary, given: list[Word]) -> tuple[list[Word], set[str]]:
    """The words less those naming an atlas (its id or label), and the atlases they name."""
    longest = max(map(len, vocabulary.atlas_names), default=0)
    kept: list[Word] = []
    named: set[str] = set()
    i = 0
    while i < len(given):
        if given[i].folded not in vocabulary.atlas_first_words:  # most words: no atlas name
            kept.append(given[i])
            i += 1
            continue
        for size in range(min(longest, len(given) - i), 0, -1):
            found = vocabulary.atlas_names.get(tuple(w.folded for w in given[i : i + size]))
            if found is not None:
                named.add(found)
                i += size
                break
        else:
            kept.append(given[i])
            i += 1
    return kept, named


def _check_names(vocabulary: Vocabulary, named: Mapping[str, str]) -> None:
    """Every named dimension must be one of some atlas; else an error listing them all."""
    for key in named:
        if not any(a.dimension(key) is not None for a in vocabulary.atlases):
            known = sorted({n for a in vocabulary.atlases for n in a.names})
            raise make_error("UnknownValueError", "dimension", key, known)
