"""How one atlas reads the words of a selection: rules 1 and 2 of :mod:`atlas.query._selection`.

:func:`read` gives a :class:`Reading`: a value per dimension of the atlas, or (made only if it is
raised) the error that says why the words do not read as one. Rule 1: values given one per
dimension, each a whole name of a value of that dimension, are read so. Rule 2: otherwise the
words are split into names of values by a small search over the ways to split them, the
readings with the fewest names winning (``NVIDIA GPU`` is one value, never ``NVIDIA`` and
``GPU``); a reading must give each dimension exactly one value, and be the only such reading.
Standard library only; the error classes are imported only when one is raised.
"""

from __future__ import annotations

import functools

from atlas.models._names import fold

TYPE_CHECKING = False  # spares importing typing on the fast path
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from collections.abc import Set as AbstractSet
    from typing import Any

__all__ = [
    "FILLERS",
    "SEPARATORS",
    "AtlasWords",
    "Reading",
    "Word",
    "keyword",
    "make_error",
    "may_read",
    "read",
    "words",
]

#: Words a phrase may hold that name nothing: "eager on a CPU", "llama.cpp with CUDA".
FILLERS = frozenset(("a", "an", "and", "in", "on", "the", "through", "using", "via", "with"))
SEPARATORS = str.maketrans(",;:()", "     ")
_SHOWN = 4  # readings, words or atlases listed in an error at most
_SHOWN_CHARS = 40  # a word quoted in an error is cut when longer


def words(text: str) -> list[str]:
    """The words of ``text`` as they are compared: split at spaces and ``, ; : ( )``, folded.

    >>> words("torch.compile on an NVIDIA GPU")
    ['torch.compile', 'on', 'an', 'nvidia', 'gpu']
    >>> words("CUDA,partial offload")
    ['cuda', 'partial', 'offload']
    """
    return text.translate(SEPARATORS).casefold().split()


def keyword(text: str) -> str:
    """A dimension's name as a keyword: ``device``, ``Stage-Kind`` -> ``stage kind``."""
    return " ".join(text.replace("-", " ").replace("_", " ").split()).casefold()


class AtlasWords:
    """What the resolver knows of one atlas with dimensions: the names of its values.

    (Plain classes here, not dataclasses: importing ``dataclasses`` would slow ``atlas path``.)
    """

    def __init__(
        self,
        atlas_id: str,
        label: str,
        names: tuple[str, ...],
        keys: tuple[Mapping[str, str], ...],
        values: tuple[tuple[tuple[str, str], ...], ...],
    ) -> None:
        self.id = atlas_id
        self.label = label
        self.names = names  # the dimensions' names, in order: ('mode', 'device')
        self.keys = keys  # per dimension: every folded name -> the value's id
        self.values = values  # per dimension: (id, label) of each value, in order

    @functools.cached_property
    def phrases(self) -> dict[tuple[str, ...], tuple[tuple[int, str], ...]]:
        """Every name of a value as words -> the (dimension, value id) pairs it names."""
        found: dict[tuple[str, ...], dict[tuple[int, str], None]] = {}
        for number, keys in enumerate(self.keys):
            for key, value in sorted(keys.items()):
                split = tuple(words(key))
                if split:
                    found.setdefault(split, {})[number, value] = None
        return {key: tuple(pairs) for key, pairs in found.items()}

    @functools.cached_property
    def known(self) -> frozenset[str]:
        """Every word that some name of a value has: any other word names nothing here."""
        return frozenset(word for phrase in self.phrases for word in phrase)

    @functools.cached_property
    def longest(self) -> int:
        """The most words a name of a value has."""
        return max(map(len, self.phrases), default=0)

    def dimension(self, name: str) -> int | None:
        """The position of the dimension called ``name`` (folded; ``-`` and ``_`` as spaces)."""
        wanted = keyword(name)
        return next((i for i, n in enumerate(self.names) if keyword(n) == wanted), None)

    def label_of(self, number: int, value: str) -> str:
        """The label of the value ``value`` of dimension ``number`` (its id if unknown)."""
        return next((label for vid, label in self.values[number] if vid == value), value)

    def choices(self, number: int) -> list[str]:
        """The labels of dimension ``number``'s values, in curated order."""
        return [label for _, label in self.values[number]]

    def reading(self, chosen: Sequence[str | None]) -> str:
        """Values chosen per dimension, in words: ``mode=eager, device=CPU``."""
        return ", ".join(
            f"{name}={self.label_of(i, value)}"
            for i, (name, value) in enumerate(zip(self.names, chosen, strict=True))
            if value is not None
        )


class Word:
    """One word of the input: as given (for messages) and folded (to compare)."""

    __slots__ = ("folded", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = text.casefold()


class Reading:
    """What one atlas makes of the words: a value per dimension, or why it cannot."""

    __slots__ = ("atlas", "chosen", "error", "unknown")

    def __init__(
        self,
        atlas: AtlasWords,
        chosen: tuple[str | None, ...],
        unknown: int = 0,
        error: Callable[[], Exception] | None = None,
    ) -> None:
        self.atlas = atlas
        self.chosen = chosen  # per dimension, a value id (None: not given)
        self.unknown = unknown  # how many words (and named values) it does not know
        self.error = error  # makes why it fails; None when the words read as one selection


def make_error(kind: str, *args: Any) -> Exception:
    """The error ``kind`` of :mod:`atlas.errors`, made of ``args`` (imported only now)."""
    from atlas import errors  # noqa: PLC0415 - only when wrong

    made: Exception = getattr(errors, kind)(*args)
    return made


def _later(kind: str, *args: Any) -> Callable[[], Exception]:
    """The error ``kind`` made only when raised: a reading that fails may yet not be raised."""
    return functools.partial(make_error, kind, *args)


def read(
    atlas: AtlasWords,
    plain: Sequence[str],
    given: list[Word],
    named: Mapping[str, str],
    quoted: str,
) -> Reading:
    """What ``atlas`` makes of the words ``given`` (of the ``plain`` values) and ``named`` ones.

    ``quoted`` is the whole input, as errors quote it.
    """
    from_named = _from_named(atlas, named)
    if isinstance(from_named, Reading):
        return from_named
    if not named and len(plain) == len(atlas.keys):
        chosen = tuple(keys.get(fold(v)) for keys, v in zip(atlas.keys, plain, strict=True))
        if all(chosen):  # rule 1: one whole value per dimension, in order
            return Reading(atlas, chosen)
    return _Phrase(atlas, given, from_named, quoted).read()


def may_read(atlas: AtlasWords, folded: AbstractSet[str]) -> bool:
    """False when :func:`read` surely finds no reading: a word (not a filler) names nothing here.

    ``folded``: the words given, folded. Such a word is unknown to the search of rule 2, which
    then fails; and rule 1 needs every word of the values in a name of a value. A quick test that
    spares the search when several atlases are tried.
    """
    return folded - FILLERS <= atlas.known


def _from_named(atlas: AtlasWords, named: Mapping[str, str]) -> dict[int, str] | Reading:
    """The named values as (dimension, value id), or the failed reading that explains them."""
    fixed: dict[int, str] = {}
    nothing: tuple[str | None, ...] = (None,) * len(atlas.names)
    for key, value in named.items():
        number = atlas.dimension(key)
        if number is None:
            error = _later(
                "UnknownValueError", f"dimension of atlas {atlas.id!r}", key, list(atlas.names)
            )
            return Reading(atlas, nothing, unknown=len(named) + 1, error=error)
        found = atlas.keys[number].get(fold(value))
        if found is None:
            error = _later("UnknownValueError", atlas.names[number], value, atlas.choices(number))
            return Reading(atlas, nothing, unknown=1, error=error)
        if fixed.get(number, found) != found:
            error = _later(
                "UnknownValueError",
                f"repeated dimension {atlas.names[number]!r}; value",
                value,
                [atlas.label_of(number, fixed[number])],
            )
            return Reading(atlas, nothing, unknown=1, error=error)
        fixed[number] = found
    return fixed


Assignment = tuple[frozenset[str], ...]  # per dimension: the values the words gave it
Parse = tuple[tuple[int, int, int, str], ...]  # (first word, end, dimension, value id)


class _Phrase:
    """Rule 2: the words split into names of values, fewest names first (a small search)."""

    def __init__(
        self, atlas: AtlasWords, given: list[Word], fixed: dict[int, str], quoted: str
    ) -> None:
        self.atlas = atlas
        self.given = given
        self.fixed = fixed  # named values: dimension -> value id
        self.quoted = quoted  # the whole input, for messages

    def read(self) -> Reading:
        """The one reading of the words, or a failed reading with its error."""
        finals, unknown = self._search()
        consistent = {a: s for a, s in finals.items() if all(len(v) <= 1 for v in a)}
        if not consistent:
            return self._doubled(finals, unknown)
        fewest = min(segments for segments, _ in consistent.values())
        best = [a for a, (segments, _) in consistent.items() if segments == fewest]
        chosen = [tuple(next(iter(v), None) for v in a) for a in best]
        if unknown:
            return self._unknown(chosen[0], unknown)
        complete = sorted({c for c in chosen if None not in c}, key=str)
        if len(complete) == 1:
            return Reading(self.atlas, complete[0])
        if complete:
            return self._ambiguous(complete)
        return self._missing(chosen[0])

    def _search(self) -> tuple[dict[Assignment, tuple[int, Parse]], list[int]]:
        """Every assignment the words can give (with its fewest names), and the unknown words."""
        folded = [w.folded for w in self.given]
        starts: list[list[tuple[int, tuple[tuple[int, str], ...]]]] = [[] for _ in folded]
        covered = [False] * len(folded)
        for i in range(len(folded)):
            for size in range(1, min(self.atlas.longest, len(folded) - i) + 1):
                pairs = self.atlas.phrases.get(tuple(folded[i : i + size]))
                if pairs:
                    starts[i].append((i + size, pairs))
                    covered[i : i + size] = [True] * size
        unknown = [i for i, w in enumerate(folded) if not covered[i] and w not in FILLERS]
        first: Assignment = tuple(
            frozenset({self.fixed[d]}) if d in self.fixed else frozenset()
            for d in range(len(self.atlas.names))
        )
        states: list[dict[Assignment, tuple[int, Parse]]] = [{} for _ in range(len(folded) + 1)]
        states[0][first] = (0, ())
        for i, word in enumerate(folded):
            for assignment, (segments, parse) in states[i].items():
                if not covered[i] or word in FILLERS:  # an unknown word or a filler: passed
                    _keep(states[i + 1], assignment, segments, parse)
                for end, pairs in starts[i]:
                    for number, value in pairs:
                        grown = (*assignment[:number], assignment[number] | {value})
                        grown += assignment[number + 1 :]
                        _keep(states[end], grown, segments + 1, (*parse, (i, end, number, value)))
        return states[-1], unknown

    def _text(self, start: int, end: int) -> str:
        return " ".join(w.text for w in self.given[start:end])

    def _unknown(self, chosen: tuple[str | None, ...], unknown: list[int]) -> Reading:
        """Words no value is called: named as a value of the one dimension left, if one is."""
        missing = [i for i, v in enumerate(chosen) if v is None]
        text = " ".join(self.given[i].text for i in unknown)
        error: Callable[[], Exception]
        if len(missing) == 1:
            number = missing[0]
            error = _later(
                "UnknownValueError", self.atlas.names[number], text, self.atlas.choices(number)
            )
        else:
            some = "words" if len(unknown) > 1 else "word"
            listed = _listed([_quoted_word(self.given[i].text) for i in unknown], ", ")
            needs = "; ".join(
                f"its {self.atlas.names[i]} is one of {', '.join(self.atlas.choices(i))}"
                for i in missing
            )
            known = self.atlas.reading(chosen)
            problem = f"unknown {some} {listed} for atlas {self.atlas.id!r}" + (
                f" ({needs})" if needs else f" (the other words already name {known})"
            )
            error = _later(
                "SelectionError",
                self.quoted,
                problem,
                self.atlas.choices(missing[0]) if missing else [],
            )
        return Reading(self.atlas, chosen, unknown=len(unknown), error=error)

    def _missing(self, chosen: tuple[str | None, ...]) -> Reading:
        """A dimension no word gives a value."""
        number = chosen.index(None)
        error = _later(
            "MissingValueError",
            self.atlas.names[number],
            self.atlas.id,
            self.atlas.choices(number),
            list(self.atlas.names),
        )
        return Reading(self.atlas, chosen, error=error)

    def _ambiguous(self, complete: list[tuple[str | None, ...]]) -> Reading:
        """Words that read as more than one selection: each reading listed."""
        listed = [self.atlas.reading(c) for c in complete]
        shown = _listed(listed, "; or ")
        error = _later(
            "SelectionError",
            self.quoted,
            f"it can be read in more than one way in atlas {self.atlas.id!r}: {shown}; give the "
            "values one per dimension in order, or as dimension=value",
            listed,
        )
        return Reading(self.atlas, complete[0], error=error)

    def _doubled(self, finals: dict[Assignment, tuple[int, Parse]], unknown: list[int]) -> Reading:
        """No reading gives each dimension one value: the words that give one two, named."""
        nothing: tuple[str | None, ...] = (None,) * len(self.atlas.names)
        if not finals:  # words only overlapping names cover: no split at all
            error = _later(
                "SelectionError",
                self.quoted,
                f"its words cannot be split into values of atlas {self.atlas.id!r}",
            )
            return Reading(self.atlas, nothing, unknown=len(unknown) + 1, error=error)
        assignment, (_, parse) = min(finals.items(), key=lambda item: item[1][0])
        number = next(i for i, v in enumerate(assignment) if len(v) > 1)
        name = self.atlas.names[number]
        said = [_quoted_word(self._text(s, e)) for s, e, d, _ in parse if d == number]
        if number in self.fixed:  # a named value is one of the two
            said.insert(0, repr(f"{name}={self.atlas.label_of(number, self.fixed[number])}"))
        error = _later(
            "SelectionError",
            self.quoted,
            f"{_listed(list(dict.fromkeys(said)), ' and ')} give two values of the {name} of atlas "
            f"{self.atlas.id!r}; give one of {', '.join(self.atlas.choices(number))}",
            self.atlas.choices(number),
        )
        return Reading(self.atlas, nothing, unknown=len(unknown) + 1, error=error)


def _keep(
    states: dict[Assignment, tuple[int, Parse]], assignment: Assignment, segments: int, parse: Parse
) -> None:
    """Remember ``assignment`` with its fewest names (the first parse found among equals)."""
    known = states.get(assignment)
    if known is None or segments < known[0]:
        states[assignment] = (segments, parse)


def _quoted_word(word: str) -> str:
    """``word`` quoted for an error, cut when long."""
    if len(word) <= _SHOWN_CHARS:
        return repr(word)
    return f"{word[: _SHOWN_CHARS // 2]!r}...{word[-_SHOWN_CHARS // 4 :]!r}"


def _listed(items: list[str], joint: str) -> str:
    """The first few ``items`` joined, and how many more there are."""
    more = len(items) - _SHOWN
    return joint.join(items[:_SHOWN]) + (f" (and {more} more)" if more > 0 else "")
