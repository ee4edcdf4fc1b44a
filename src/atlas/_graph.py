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
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib.abc import Traversable
from pathlib import Path
from typing import Any, cast

import pyoxigraph
from pyoxigraph import BlankNode, Literal, NamedNode

from atlas._iri import BASE_IRI, NAMESPACES
from atlas.errors import Problem

__all__ = ["RDF_TYPE", "Graph", "Locator", "Subject", "Term", "TurtleFile", "parse", "plain"]

Subject = NamedNode | BlankNode
Term = NamedNode | BlankNode | Literal

RDF_TYPE = NamedNode(NAMESPACES["rdf"] + "type")
#: Literals that carry no datatype in rdflib: strings, with or without a language tag.
_PLAIN = frozenset(
    {NamedNode(NAMESPACES["xsd"] + "string"), NamedNode(NAMESPACES["rdf"] + "langString")}
)
_SEPARATORS = " \t;"  # what may follow a resource at the start of the line that describes it
_PREFIX = re.compile(r"^\s*@prefix\s+([\w.-]*):\s*<([^>]*)>", re.IGNORECASE)
# The same two on a text with no white space but spaces, tabs and "\n" (see Locator._simple):
_PREFIXES = re.compile(
    r"^[ \t]*@prefix[ \t]+([\w.-]*):[ \t]*<([^>\n]*)>", re.IGNORECASE | re.MULTILINE
)
_FIRST_WORDS = re.compile(r"^[ \t]*([^ \t;\n]*)", re.MULTILINE)
_ODD_SPACE = re.compile(r"[^\S \t\n]")


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
    tab, ';' or the end of the line) wins; else the first line that mentions it. The lines are
    indexed once, on the first question, so each answer is a lookup.

    >>> text = "@prefix s: <https://x.org/s/> .\n s:b s:a s:c .\ns:a;s:p 1 ."
    >>> [Locator(text).line_of(f"https://x.org/s/{name}") for name in "abcd"]
    [3, 2, 2, None]
    """

    def __init__(self, text: str) -> None:
        self.text = text

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
    def _first_words(self) -> dict[str, int]:
        """The first line that starts with each word (cut at a space, a tab or ';')."""
        if self._simple:
            words = _FIRST_WORDS.findall(self.text)
            return dict(zip(reversed(words), range(len(words), 0, -1), strict=True))
        found: dict[str, int] = {}
        for number, line in enumerate(self._lines, start=1):
            text = line.strip()
            cut = min((i for i in map(text.find, _SEPARATORS) if i >= 0), default=len(text))
            found.setdefault(text[:cut], number)
        return found

    @functools.cached_property
    def _starts(self) -> list[int]:
        """The offset in the text of the start of each line."""
        starts, offset = [], 0
        for line in self.text.splitlines(keepends=True):
            starts.append(offset)
            offset += len(line)
        return starts

    def _starting(self, needle: str) -> int | None:
        """The first line that starts with ``needle``."""
        if not any(char in needle for char in _SEPARATORS):
            return self._first_words.get(needle)
        for number, line in enumerate(self._lines, start=1):  # rare (an IRI with a ';')
            text = line.strip()
            after = text[len(needle) : len(needle) + 1]
            if text.startswith(needle) and after in ("", *_SEPARATORS):
                return number
        return None

    def line_of(self, iri: str) -> int | None:
        """The line that describes ``iri``, else the first that mentions it, else None."""
        needles = [f"<{iri}>"]
        for prefix, namespace in self.prefixes.items():
            if iri.startswith(namespace) and len(iri) > len(namespace):
                needles.append(f"{prefix}:{iri[len(namespace) :]}")
        starting = [line for line in map(self._starting, needles) if line is not None]
        if starting:
            return min(starting)
        found = [i for i in (self.text.find(needle) for needle in needles) if i >= 0]
        if not found:
            return None
        if self._simple:
            return self.text.count("\n", 0, min(found)) + 1
        return bisect.bisect_right(self._starts, min(found))


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

    from atlas.schema import quiet_rdflib  # noqa: PLC0415

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
        text = pyoxigraph.serialize(quads, format=pyoxigraph.RdfFormat.N_TRIPLES)
        assert text is not None  # noqa: S101 - serialize() returns the text when given no file
        graph.written.append(text)
        parsed.append((index, quads))
    graph.written = [graph.n_triples()]
    if written is not None and not graph.problems:
        written(graph.written[0])
    for position, (index, quads) in enumerate(parsed):
        parsed[position] = (index, [])  # free each file's quads once indexed
        graph.add(index, quads)
    return graph


def _syntax_problem(file: TurtleFile, error: SyntaxError) -> Problem:
    """The syntax error in ``file``, as rdflib words it (as ``atlas check`` always did).

    rdflib reads a few things that are not Turtle (an IRI with a space...): pyoxigraph's own
    account, with the line and column, is given for those.
    """
    from atlas import turtle  # noqa: PLC0415 - rdflib is only needed to explain an error

    return turtle.rdflib_problem(file) or Problem(
        "violation",
        f"Turtle syntax error: {error.msg}",
        file=file.name,
        line=error.lineno,
        hint=turtle.SYNTAX_HINT,
        code="syntax",
    )
