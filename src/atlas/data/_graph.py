"""Turtle files parsed once, fast: the triples of each subject, and where each is written.

pyoxigraph parses the files; rdflib is only asked to explain a file that pyoxigraph rejects, so
that syntax errors keep the wording they always had. Typed literals are normalised as rdflib
normalises them (``"01"^^xsd:integer`` reads ``"1"``) and equal triples are kept once, so the
Turtle reader sees the graph it always saw; the SHACL shapes get the triples as written
(:meth:`Graph.n_triples`).

>>> text = '<https://x.org/a> <https://x.org/p> "01"^^<http://www.w3.org/2001/XMLSchema#int> .'
>>> graph = parse([TurtleFile("a.ttl", text)])
>>> [o.value for o in graph.objects(NamedNode("https://x.org/a"), NamedNode("https://x.org/p"))]
['1']
>>> graph.where("https://x.org/a")
{'file': 'a.ttl', 'line': 1}
"""

from __future__ import annotations

import bisect
import functools
import io
import itertools
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib.abc import Traversable
from pathlib import Path
from typing import Any, cast

import pyoxigraph
from pyoxigraph import BlankNode, Literal, NamedNode

from atlas.errors import Problem
from atlas.models._iri import BASE_IRI, NAMESPACES

__all__ = ["RDF_TYPE", "Graph", "Locator", "Subject", "Term", "TurtleFile", "parse", "plain"]

Subject = NamedNode | BlankNode
Term = NamedNode | BlankNode | Literal

RDF_TYPE = NamedNode(NAMESPACES["rdf"] + "type")
#: Literals that carry no datatype in rdflib: strings, with or without a language tag.
_PLAIN = frozenset(
    {NamedNode(NAMESPACES["xsd"] + "string"), NamedNode(NAMESPACES["rdf"] + "langString")}
)
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

#: The longest term (a literal, an IRI...) that pyoxigraph reads in Turtle or N-Triples: its
#: buffer holds 16 MiB, a few bytes of which go to what follows the term.
MAX_TERM_BYTES = 16 * 1024 * 1024 - 64
_LIMIT = "16 MiB"
_MAX_ESCAPED = 10  # the most bytes one character takes in N-Triples (\U0010FFFF)
_LONG_HINT = "keep literals short: quote a passage, and let the source's URL lead to the rest"

_Key = tuple[str, str]  # a name's namespace ("" for an IRI written whole) and local part


@dataclass(frozen=True)
class TurtleFile:
    """A Turtle document: the name to report in messages, and its text."""

    name: str
    text: str

    @classmethod
    def load(cls, path: Path | Traversable, name: str | None = None) -> TurtleFile:
        """Read a file; ``name`` defaults to its path (or ``dataset/<file>`` when shipped)."""
        shown = name or (str(path) if isinstance(path, Path) else f"dataset/{path.name}")
        return cls(shown, path.read_text(encoding="utf-8"))


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


def plain(literal: Literal) -> bool:
    """Whether a literal is a string, with or without a language tag (rdflib: no datatype).

    >>> plain(Literal("a")), plain(Literal("a", language="en")), plain(Literal("1", datatype=RDF_TYPE))
    (True, True, False)
    """  # noqa: E501 - a doctest line
    return literal.datatype in _PLAIN


@functools.lru_cache(maxsize=1 << 16)
def _normalised(literal: Literal) -> Literal:
    """A typed literal in the lexical form that rdflib gives it, e.g. ``"01"`` -> ``"1"``."""
    import rdflib  # noqa: PLC0415 - only for the few distinct typed literals of a dataset

    from atlas.data.schema import quiet_rdflib  # noqa: PLC0415

    with warnings.catch_warnings(), quiet_rdflib():
        warnings.simplefilter("ignore")  # rdflib warns of ill-typed values; the checks report them
        lexical = str(rdflib.Literal(literal.value, datatype=literal.datatype.value))
    return literal if lexical == literal.value else Literal(lexical, datatype=literal.datatype)


def term(text: str) -> Term:
    """A term written in N-Triples (``<iri>``, ``_:id`` or a literal), read by pyoxigraph.

    >>> term('"ab"@en').language, term("_:x1").value, term("<https://x.org/>").value
    ('en', 'x1', 'https://x.org/')
    """
    document = f"<urn:x:s> <urn:x:p> {text} ."
    quad = next(iter(pyoxigraph.parse(document, format=pyoxigraph.RdfFormat.N_TRIPLES)))
    return cast("Term", quad.object)


def _key(node: Subject) -> str:
    """The key of a subject in :attr:`Graph.origin`: its IRI, or ``_:`` and its id."""
    return node.value if isinstance(node, NamedNode) else f"_:{node.value}"


@dataclass
class Graph:
    """Parsed Turtle files: each subject's properties, and the file that first describes it.

    ``problems`` holds the syntax errors; when there are any, the graph lacks those files.
    """

    files: list[TurtleFile]
    subjects: dict[Subject, dict[NamedNode, list[Term]]] = field(default_factory=dict)
    origin: dict[str, int] = field(default_factory=dict)  # IRI or _:id -> index in files
    problems: list[Problem] = field(default_factory=list)
    written: list[bytes] = field(default_factory=list)  # the files in N-Triples, as written
    _reverse: dict[NamedNode, dict[Term, list[Subject]]] = field(default_factory=dict)

    @functools.cached_property
    def locators(self) -> list[Locator]:
        """A line locator for each file."""
        return [Locator(file.text) for file in self.files]

    def objects(self, subject: Subject, predicate: NamedNode) -> list[Term]:
        """The objects of ``subject predicate ?``, each once."""
        properties = self.subjects.get(subject)
        return properties.get(predicate, []) if properties else []

    def subjects_of(self, predicate: NamedNode, obj: Term) -> list[Subject]:
        """The subjects of ``? predicate obj`` (an index per predicate, made on first use)."""
        index = self._reverse.get(predicate)
        if index is None:
            index = self._reverse[predicate] = {}
            for subject, properties in self.subjects.items():
                for value in properties.get(predicate, ()):
                    index.setdefault(value, []).append(subject)
        return index.get(obj, [])

    def triples(self) -> Iterator[tuple[Subject, NamedNode, Term]]:
        """Every triple, each once."""
        for subject, properties in self.subjects.items():
            for predicate, objects in properties.items():
                for obj in objects:
                    yield subject, predicate, obj

    def add(self, index: int, quads: Iterable[pyoxigraph.Quad]) -> None:
        """Index the triples parsed from file number ``index``."""
        subjects, origin = self.subjects, self.origin
        for quad in quads:
            subject = cast("Subject", quad.subject)  # no RDF-star in Turtle 1.1
            predicate, obj = quad.predicate, cast("Term", quad.object)
            if isinstance(obj, Literal) and obj.datatype not in _PLAIN:
                obj = _normalised(obj)
            properties = subjects.get(subject)
            if properties is None:
                subjects[subject] = properties = {}
                origin.setdefault(_key(subject), index)
            objects = properties.get(predicate)
            if objects is None:
                properties[predicate] = [obj]
            elif obj not in objects:
                objects.append(obj)

    def n_triples(self) -> bytes:
        """The triples of the files as written, in N-Triples (blank nodes distinct per file)."""
        return b"".join(self.written)

    def where(self, iri: str) -> dict[str, Any]:
        """``{"file": ..., "line": ...}`` of the resource ``iri``, or ``{}`` when not found.

        A resource that no file describes is looked for in every file that describes another.
        """
        found = self.origin.get(iri)
        candidates = [found] if found is not None else sorted(set(self.origin.values()))
        for index in candidates:
            line = self.locators[index].line_of(iri)
            if line is not None:
                return {"file": self.files[index].name, "line": line}
        return {"file": self.files[found].name, "line": None} if found is not None else {}

    def place(self, node: Term | str) -> dict[str, Any]:
        """The file and line of a subject (or an IRI), as the Turtle reader reports them.

        A blank node gets its file only; a node that no file describes gets neither.
        """
        if isinstance(node, Literal):
            return {"file": None, "line": None}
        index = self.origin.get(node if isinstance(node, str) else _key(node))
        if index is None:
            return {"file": None, "line": None}
        iri = node if isinstance(node, str) else node.value if isinstance(node, NamedNode) else None
        line = self.locators[index].line_of(iri) if iri is not None else None
        return {"file": self.files[index].name, "line": line}


def parse(
    files: Iterable[TurtleFile], *, written: Callable[[bytes], object] | None = None
) -> Graph:
    """Parse Turtle files into one :class:`Graph`; syntax errors land in ``graph.problems``.

    ``written``, when given, is called with :meth:`Graph.n_triples` as soon as every file has
    parsed cleanly, before the triples are indexed: a caller can start on them meanwhile.
    """
    graph = Graph(list(files))
    parsed = []
    for index, file in enumerate(graph.files):
        try:
            quads = list(
                pyoxigraph.parse(
                    file.text,
                    format=pyoxigraph.RdfFormat.TURTLE,
                    base_iri=BASE_IRI,
                    rename_blank_nodes=True,
                )
            )
        except SyntaxError as error:
            graph.problems.append(_syntax_problem(file, error))
            continue
        except MemoryError as error:
            if "maximal size" not in str(error):
                raise  # the machine's memory, not pyoxigraph's limit on one term
            graph.problems.append(_too_long_problem(file))
            continue
        text = pyoxigraph.serialize(quads, format=pyoxigraph.RdfFormat.N_TRIPLES)
        assert text is not None  # noqa: S101 - serialize() returns the text when given no file
        if len(text) > MAX_TERM_BYTES:  # a term may be too long once written in N-Triples
            long_terms = _long_term_problems(file, quads, graph.locators[index])
            if long_terms:
                graph.problems.extend(long_terms)
                continue
        graph.written.append(text)
        parsed.append((index, quads))
    graph.written = [graph.n_triples()]
    if written is not None and not graph.problems:
        written(graph.written[0])
    for position, (index, quads) in enumerate(parsed):
        parsed[position] = (index, [])  # free each file's quads once indexed
        graph.add(index, quads)
    return graph


def _too_long_problem(file: TurtleFile) -> Problem:
    """The term in ``file`` longer than pyoxigraph's reader takes, at the line where it starts."""
    return Problem(
        "violation",
        f"Turtle syntax error: a literal, IRI or comment longer than {_LIMIT}, the most the "
        "Turtle reader takes in one piece",
        file=file.name,
        line=_too_long_line(file.text),
        hint=_LONG_HINT,
        code="too-long",
    )


def _too_long_line(text: str) -> int | None:
    """The line where the term that pyoxigraph finds too long starts.

    The reader stops when its buffer holds :data:`MAX_TERM_BYTES` of one term, so the term
    started less than that before the bytes it had read; the text cut half a buffer before that
    point ends inside the term, where the reader names the line the unfinished term starts on
    (a comment, which may end anywhere, is on the line of the cut).
    """
    data = text.encode("utf-8")
    stream = io.BytesIO(data)
    try:
        for _ in pyoxigraph.parse(stream, format=pyoxigraph.RdfFormat.TURTLE, base_iri=BASE_IRI):
            pass
    except MemoryError:
        cut = max(0, stream.tell() - MAX_TERM_BYTES // 2)
    except SyntaxError:
        return None
    else:
        return None
    while cut and data[cut] & 0xC0 == 0x80:  # not inside a character  # noqa: PLR2004
        cut -= 1
    try:
        for _ in pyoxigraph.parse(
            data[:cut], format=pyoxigraph.RdfFormat.TURTLE, base_iri=BASE_IRI
        ):
            pass
    except SyntaxError as error:
        return error.lineno
    except MemoryError:
        return None
    return data.count(b"\n", 0, cut) + 1


def _long_term_problems(
    file: TurtleFile, quads: list[pyoxigraph.Quad], locator: Locator
) -> list[Problem]:
    """The terms longer than :data:`MAX_TERM_BYTES` once written in N-Triples (escaped).

    The SHACL engine reads the triples in N-Triples, where a line break in a literal takes two
    bytes and a control character six: a literal the Turtle reader took may then be too long.
    """
    owners: dict[BlankNode, NamedNode] = {}  # a blank node's place is its owner's
    for quad in quads:
        if isinstance(quad.object, BlankNode) and isinstance(quad.subject, NamedNode):
            owners.setdefault(quad.object, quad.subject)
    problems = []
    for quad in quads:
        for node in (cast("Term", quad.subject), quad.predicate, cast("Term", quad.object)):
            if len(node.value) * _MAX_ESCAPED <= MAX_TERM_BYTES:
                continue  # short enough however it is escaped
            size = len(str(node).encode("utf-8"))
            if size <= MAX_TERM_BYTES:
                continue
            subject = (
                owners.get(quad.subject) if isinstance(quad.subject, BlankNode) else quad.subject
            )
            iri = subject.value if isinstance(subject, NamedNode) else None
            problems.append(
                Problem(
                    "violation",
                    f"a {'literal' if isinstance(node, Literal) else 'term'} of {size:,} bytes "
                    f"written in N-Triples, longer than {_LIMIT}, the most the RDF readers "
                    "take in one piece",
                    file=file.name,
                    line=locator.line_of(iri) if iri is not None else None,
                    subject=iri,
                    hint=_LONG_HINT,
                    code="too-long",
                )
            )
    return problems


def _syntax_problem(file: TurtleFile, error: SyntaxError) -> Problem:
    """The syntax error in ``file``, as rdflib words it (as ``atlas check`` always did).

    rdflib reads a few things that are not Turtle (an IRI with a space...): pyoxigraph's own
    account, with the line and column, is given for those.
    """
    from atlas.data import turtle  # noqa: PLC0415 - rdflib is only needed to explain an error

    return turtle.rdflib_problem(file) or Problem(
        "violation",
        f"Turtle syntax error: {error.msg}",
        file=file.name,
        line=error.lineno,
        hint=turtle.SYNTAX_HINT,
        code="syntax",
    )
