"""Where a resource is described in a Turtle text: its line, found by scanning, for messages.

pyoxigraph reads triples but not the lines they were written on; a :class:`Locator` finds the
line that starts the description of a resource, in time linear in the text (the scan has a
budget), so that every problem can name ``file:line``.

>>> lines = ["@prefix x: <https://x.org/> .", "x:b x:p 1 .", "x:a x:p 2 ."]
>>> Locator(chr(10).join(lines)).line_of("https://x.org/a")
3
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Iterable

__all__ = ["Locator"]

_SEPARATORS = " \t;"  # what may follow a resource at the start of the line that describes it
_SEPARATOR = re.compile("[ \t;]")
_PREFIX = re.compile(r"^\s*@prefix\s+([\w.-]*):\s*<([^>]*)>", re.IGNORECASE)
# The same two on a text with no white space but spaces, tabs and "\n" (see Locator._simple):
_PREFIXES = re.compile(
    r"^[ \t]*@prefix[ \t]+([\w.-]*):[ \t]*<([^>\n]*)>", re.IGNORECASE | re.MULTILINE
)
#: The first word of each line: an IRI whole (it may hold a ';'), else cut at ' ', '\t' or ';'.
_FIRST_WORDS = re.compile(r"^[ \t]*(<[^<>\s]*>(?=[ \t;]|$)|[^ \t;\n]*)", re.MULTILINE)
_CUT_WORDS = re.compile(r"^[ \t]*([^ \t;\n]*)", re.MULTILINE)
_IRI_WORD = re.compile(r"<[^<>\s]*>(?=[ \t;]|$)")  # the same, at the start of a stripped line
_ODD_SPACE = re.compile(r"[^\S \t\n]")
#: Names as written: ``<iri>``, or ``prefix:local`` (from the start of a run of name characters,
#: up to white space or a delimiter; a final '.' ends the statement). Each character is read
#: once: an IRI stops at the next '<', and a prefix starts where a run of name characters does.
_NAMES = re.compile(r"<([^<>\s]*)>|(?<![\w.\-])([\w.\-]*):([^\s<>\"'(),;\[\]{}^]*)")

_Key = tuple[str, str]  # a name's namespace ("" for an IRI written whole) and local part


class Locator:
    r"""Finds the line where a resource is described, for messages.

    The first line that starts with the resource (``<iri>`` or a prefixed name, then a space, a
    tab, ';' or the end of the line) wins; else the first line that mentions it. The text is
    indexed once, on the first question: the first word of each line, and where each name
    (``<iri>`` or ``prefix:local``) is first written. An answer is then a few lookups, whatever
    the number of questions or of triples on a line.

    A mention inside a longer word (``s:a`` in ``s:ab``) is not a name of the index: it is
    looked for in the lines before the first written name only, within an allowance of a few
    passes over the text in all; past it, the line of the first written name is the answer.

    >>> text = "@prefix s: <https://x.org/s/> .\n s:b s:a s:c .\ns:a;s:p 1 ."
    >>> [Locator(text).line_of(f"https://x.org/s/{name}") for name in "abcd"]
    [3, 2, 2, None]
    """

    #: The characters the lookups may scan beyond the index: this many passes over the text...
    SCAN_PASSES = 4
    #: ...plus this many characters (so that a small text is always answered exactly).
    SCAN_EXTRA = 1 << 16

    def __init__(self, text: str) -> None:
        self.text = text
        self.scanned = 0  # characters scanned by lookups beyond the index
        self._allowance = self.SCAN_PASSES * len(text) + self.SCAN_EXTRA
        self._answers: dict[str, int | None] = {}

    @functools.cached_property
    def _simple(self) -> bool:
        """No white space but spaces, tabs and newlines: regexes can then cut the lines.

        (``str.splitlines`` and ``str.strip`` would treat any other white space apart.)
        """
        return _ODD_SPACE.search(self.text) is None

    @functools.cached_property
    def _lines(self) -> list[str]:
        return self.text.splitlines()

    @functools.cached_property
    def prefixes(self) -> dict[str, str]:
        """The ``@prefix`` declarations: prefix -> namespace (the last declaration wins)."""
        if self._simple:
            return dict(_PREFIXES.findall(self.text))
        found = {}
        for line in self._lines:
            match = _PREFIX.match(line)
            if match:
                found[match.group(1)] = match.group(2)
        return found

    @functools.cached_property
    def _namespaces(self) -> tuple[list[str], dict[str, list[str]]]:
        """The namespaces, sorted, and the prefixes of each."""
        names: dict[str, list[str]] = {}
        for prefix, namespace in self.prefixes.items():
            names.setdefault(namespace, []).append(prefix)
        return sorted(names), names

    def _key(self, word: str) -> _Key | None:
        """The key of a name as written: ``<iri>``, or ``prefix:local`` of a declared prefix."""
        if word.startswith("<") and word.endswith(">") and len(word) > 1:
            return ("", word[1:-1])
        prefix, colon, local = word.partition(":")
        namespace = self.prefixes.get(prefix) if colon and local else None
        return None if namespace is None else (namespace, local)

    def _keys(self, iri: str) -> list[_Key]:
        """The keys of ``iri``: itself, and each declared namespace it is in with its local part.

        The namespaces that start ``iri`` are found by bisection in the sorted namespaces, not
        by trying each: a namespace less than ``iri`` that is no prefix of it cuts the search
        to the text they share.
        """
        ordered, _ = self._namespaces
        keys: list[_Key] = [("", iri)]
        end = len(iri)
        while end >= 0:
            index = bisect.bisect_right(ordered, iri[:end]) - 1
            if index < 0:
                break
            namespace = ordered[index]
            if iri.startswith(namespace):
                if len(namespace) < len(iri):
                    keys.append((namespace, iri[len(namespace) :]))
                end = len(namespace) - 1
            else:
                end = _shared(namespace, iri)
        return keys

    def _needles(self, iri: str, keys: list[_Key]) -> list[str]:
        """How ``iri`` may be written: ``<iri>`` and ``prefix:local`` for each prefix."""
        _, names = self._namespaces
        needles = [f"<{iri}>"]
        for namespace, local in keys[1:]:
            needles.extend(f"{prefix}:{local}" for prefix in names[namespace])
        return needles

    @functools.cached_property
    def _first_words(self) -> dict[_Key, int]:
        """The first line that starts with each name (an IRI whole, else cut at a separator)."""
        found: dict[_Key, int] = {}
        if self._simple:
            words: Iterable[str] = _FIRST_WORDS.findall(self.text)
        else:
            words = map(_first_word, self._lines)
        for number, word in enumerate(words, start=1):
            key = self._key(word)
            if key is not None and key not in found:
                found[key] = number
        return found

    @functools.cached_property
    def _lines_by_word(self) -> dict[str, list[int]]:
        """The lines that start with each word cut at a separator (for names that hold one)."""
        found: dict[str, list[int]] = {}
        if self._simple:
            words: Iterable[str] = _CUT_WORDS.findall(self.text)
        else:
            words = (_cut(line.strip()) for line in self._lines)
        for number, word in enumerate(words, start=1):
            found.setdefault(word, []).append(number)
        return found

    @functools.cached_property
    def _mentions(self) -> dict[_Key, int]:
        """The offset where each name (``<iri>``, ``prefix:local``) is first written."""
        found: dict[_Key, int] = {}
        prefixes = self.prefixes
        for match in _NAMES.finditer(self.text):
            iri, prefix, local = match.groups()
            if iri is not None:
                key: _Key = ("", iri)
            else:
                local = local.rstrip(".")
                namespace = prefixes.get(prefix)
                if namespace is None or not local:
                    continue
                key = (namespace, local)
            if key not in found:
                found[key] = match.start()
        return found

    @functools.cached_property
    def _starts(self) -> list[int]:
        """The offset in the text of the start of each line."""
        return [0, *itertools.accumulate(map(len, self.text.splitlines(keepends=True)))][:-1]

    def _line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)

    def _spend(self, characters: int) -> bool:
        """Whether a scan of ``characters`` fits in the allowance (then it is counted)."""
        if self.scanned + characters > self._allowance:
            return False
        self.scanned += characters
        return True

    def _starting(self, keys: list[_Key], needles: list[str]) -> int | None:
        """The first line that starts with one of ``needles``."""
        lines = [self._first_words[k] for k in keys if k in self._first_words]
        for needle in needles:  # a name that holds a separator: rare (an IRI with a ';')
            cut = _cut(needle)
            if cut == needle or _IRI_WORD.fullmatch(needle):
                continue  # answered by the index
            for number in self._lines_by_word.get(cut, ()):
                if number > len(self._lines):
                    break  # the empty word after a final newline
                line = self._lines[number - 1]
                if not self._spend(len(line)):
                    break
                text = line.strip()
                after = text[len(needle) : len(needle) + 1]
                if text.startswith(needle) and after in ("", *_SEPARATORS):
                    lines.append(number)
                    break
        return min(lines, default=None)

    def line_of(self, iri: str) -> int | None:
        """The line that describes ``iri``, else the first that mentions it, else None."""
        if iri not in self._answers:
            self._answers[iri] = self._answer(iri)
        return self._answers[iri]

    def _answer(self, iri: str) -> int | None:
        keys = self._keys(iri)
        needles = self._needles(iri, keys)
        starting = self._starting(keys, needles)
        if starting is not None:
            return starting
        written = [self._mentions[k] for k in keys if k in self._mentions]
        line = self._line(min(written)) if written else None
        # a mention inside a longer word, in a line before: scanned for within the allowance
        end = self._starts[line - 1] if line is not None else len(self.text)
        if end and self._spend(end * len(needles)):
            found = [i for i in (self.text.find(n, 0, end) for n in needles) if i >= 0]
            if found:
                return self._line(min(found))
        return line


def _cut(text: str) -> str:
    """``text`` up to its first space, tab or ';'."""
    match = _SEPARATOR.search(text)
    return text[: match.start()] if match else text


def _first_word(line: str) -> str:
    """The first word of a line: an IRI whole when one starts it, else cut at a separator."""
    text = line.strip()
    match = _IRI_WORD.match(text)
    return match.group() if match else _cut(text)


def _shared(a: str, b: str) -> int:
    """The length of the longest prefix two strings share (by bisection: no loop per character).

    >>> _shared("https://x.org/a", "https://x.org/b"), _shared("", "a")
    (14, 0)
    """
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
