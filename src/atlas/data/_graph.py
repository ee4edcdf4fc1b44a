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

import datetime as dt
import functools
import io
import re
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pyoxigraph
from pyoxigraph import BlankNode, Literal, NamedNode

from atlas.data._files import TurtleFile
from atlas.data._locator import Locator
from atlas.errors import Problem
from atlas.models._iri import BASE_IRI, NAMESPACES

__all__ = ["RDF_TYPE", "Graph", "Subject", "Term", "TurtleFile", "parse", "plain"]

Subject = NamedNode | BlankNode
Term = NamedNode | BlankNode | Literal

RDF_TYPE = NamedNode(NAMESPACES["rdf"] + "type")
#: Literals that carry no datatype in rdflib: strings, with or without a language tag.
_PLAIN = frozenset(
    {NamedNode(NAMESPACES["xsd"] + "string"), NamedNode(NAMESPACES["rdf"] + "langString")}
)

#: The longest term (a literal, an IRI...) that pyoxigraph reads in Turtle or N-Triples: its
#: buffer holds 16 MiB, a few bytes of which go to what follows the term.
MAX_TERM_BYTES = 16 * 1024 * 1024 - 64
_LIMIT = "16 MiB"
_MAX_ESCAPED = 10  # the most bytes one character takes in N-Triples (\U0010FFFF)
_DATE_LENGTH = len("2026-12-03")
_LONG_HINT = "keep literals short: quote a passage, and let the source's URL lead to the rest"


def plain(literal: Literal) -> bool:
    """Whether a literal is a string, with or without a language tag (rdflib: no datatype).

    >>> plain(Literal("a")), plain(Literal("a", language="en")), plain(Literal("1", datatype=RDF_TYPE))
    (True, True, False)
    """  # noqa: E501 - a doctest line
    return literal.datatype in _PLAIN


_XSD = NAMESPACES["xsd"]
_CANONICAL_INTEGER = re.compile(r"(?:0|-?[1-9][0-9]*)\Z")
_UTC_SECONDS = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})(?:Z|\+00:00)\Z")


def _known_form(literal: Literal) -> str | None:
    """Rdflib's lexical form of the commonest typed literals, computed here; None: ask rdflib.

    Only forms whose rdflib reading is certain are answered (an integer already canonical, a
    boolean word, a valid date, a valid UTC date-time to the second), so that ``atlas check``
    and the export need not import rdflib for a dataset that has no other typed literal.

    >>> _known_form(Literal("2026-12-03T00:00:00Z", datatype=NamedNode(_XSD + "dateTime")))
    '2026-12-03T00:00:00+00:00'
    >>> _known_form(Literal("01", datatype=NamedNode(_XSD + "integer"))) is None
    True
    """
    datatype = literal.datatype.value.removeprefix(_XSD)
    value = literal.value
    if datatype == "integer" and _CANONICAL_INTEGER.match(value):
        return value
    if datatype == "boolean" and value in ("true", "false"):
        return value
    try:
        if datatype == "date" and len(value) == _DATE_LENGTH:
            return dt.date.fromisoformat(value).isoformat()
        if datatype == "dateTime" and (utc := _UTC_SECONDS.match(value)):
            return dt.datetime.fromisoformat(utc[1]).isoformat() + "+00:00"
    except ValueError:  # not a date at all: rdflib's reading (and its warning) decides
        return None
    return None


@functools.lru_cache(maxsize=1 << 16)
def _normalised(literal: Literal) -> Literal:
    """A typed literal in the lexical form that rdflib gives it, e.g. ``"01"`` -> ``"1"``."""
    known = _known_form(literal)
    if known is not None:
        return literal if known == literal.value else Literal(known, datatype=literal.datatype)
    import rdflib  # noqa: PLC0415 - only for the few distinct typed literals of a dataset

    from atlas.data._rdflib import quiet_rdflib  # noqa: PLC0415

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
    streamed: bool = False  # parse() wrote the N-Triples to a file for its caller, not kept here
    reread: dict[int, Callable[[], str]] = field(default_factory=dict)  # texts let go: read again
    _reverse: dict[NamedNode, dict[Term, list[Subject]]] = field(default_factory=dict)

    @functools.cached_property
    def locators(self) -> list[Locator]:
        """A line locator for each file (a file whose text was let go is read again)."""
        return [
            Locator(self.reread[index]() if index in self.reread else file.text)
            for index, file in enumerate(self.files)
        ]

    def forget_texts(self, reread: dict[int, Callable[[], str]]) -> None:
        """Let go of the texts of the files that ``reread`` can read again (by file number).

        A file's text is read again when a problem in it is first placed (:meth:`where`).
        """
        self.reread = dict(reread)
        self.files[:] = [
            TurtleFile(file.name, "") if index in self.reread else file
            for index, file in enumerate(self.files)
        ]

    def forget_triples(self) -> None:
        """Let go of the triples: what stays is where each resource is written (:meth:`where`)."""
        self.subjects = {}
        self._reverse = {}

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
        """The triples of the files as written, in N-Triples (blank nodes distinct per file).

        Raises:
            RuntimeError: when :func:`parse` streamed them to its caller instead of keeping them.
        """
        if self.streamed:
            msg = "the N-Triples text was streamed to parse()'s caller and is not kept"
            raise RuntimeError(msg)
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
    files: Iterable[TurtleFile], *, before_indexing: Callable[[Path], object] | None = None
) -> Graph:
    """Parse Turtle files into one :class:`Graph`; syntax errors land in ``graph.problems``.

    Each file is indexed as soon as it parses, and its triples are then let go, so that the
    memory held is the index and the N-Triples text (:meth:`Graph.n_triples`), not every file's
    parsed triples as well.

    ``before_indexing``, when given, streams instead: every file is written in N-Triples to a
    temporary file, which ``before_indexing`` is handed once every file has parsed cleanly,
    *before* the graph is built (the SHACL engine reads it then, with the memory to itself); the
    graph is then built from that file, so that blank nodes keep the names it gives them, and the
    N-Triples text is not kept.
    """
    graph = Graph(list(files))
    if before_indexing is None:
        for index, quads, text in _clean_files(graph):
            graph.written.append(text)
            graph.add(index, quads)
        return graph
    graph.streamed = True
    with tempfile.TemporaryDirectory(prefix="atlas-triples-") as folder:
        path = Path(folder) / "triples.nt"
        spans: list[tuple[int, int, int]] = []  # file number, first byte, end in the file
        with path.open("wb") as out:
            for index, _, text in _clean_files(graph):
                spans.append((index, out.tell(), out.tell() + len(text)))
                out.write(text)
        if not graph.problems:
            before_indexing(path)
        with path.open("rb") as written:
            for index, start, end in spans:
                written.seek(start)
                graph.add(
                    index,
                    pyoxigraph.parse(
                        written.read(end - start), format=pyoxigraph.RdfFormat.N_TRIPLES
                    ),
                )
    return graph


def _clean_files(graph: Graph) -> Iterator[tuple[int, list[pyoxigraph.Quad], bytes]]:
    """Each file that parses: its number, its triples and their N-Triples text.

    Blank nodes are named apart per file; the problems of the other files go to
    ``graph.problems``.
    """
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
        yield index, quads, text
        del quads


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
    from atlas.data import _rdflib  # noqa: PLC0415 - rdflib is only needed to explain an error

    return _rdflib.rdflib_problem(file) or Problem(
        "violation",
        f"Turtle syntax error: {error.msg}",
        file=file.name,
        line=error.lineno,
        hint=_rdflib.SYNTAX_HINT,
        code="syntax",
    )
