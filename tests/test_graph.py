"""Parsing Turtle once with pyoxigraph (``atlas.data._graph``): the graph rdflib reads, fast."""

from __future__ import annotations

import warnings
from pathlib import Path

import pyoxigraph
import pytest
import rdflib
from pyoxigraph import BlankNode, NamedNode

from atlas.checks import verify
from atlas.data import _graph, turtle
from atlas.data._files import TurtleFile
from atlas.data._locator import Locator
from checkkit import MINI

HEAD = """@prefix ex: <https://x.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""

# Typed literals written in every way that rdflib reads into another lexical form, or not.
LITERALS = """
ex:a ex:bool true, "TRUE"^^xsd:boolean, "1"^^xsd:boolean, "0"^^xsd:boolean, "yes"^^xsd:boolean ;
    ex:int 3, "03"^^xsd:integer, "+3"^^xsd:integer, " 3 "^^xsd:integer, "x"^^xsd:integer ;
    ex:decimal 1.50, "01.5"^^xsd:decimal ;
    ex:double 1.0e0, "1E3"^^xsd:double ;
    ex:date "2026-11-30"^^xsd:date, "2026-11-30Z"^^xsd:date, "20261130"^^xsd:date,
        "2026-02-30"^^xsd:date ;
    ex:string "a", "a"^^xsd:string, "é\\u00e9\\U0001F600", \"\"\"two
lines\"\"\" .
"""


def _rdflib_triples(text: str) -> set[tuple[str, str, str, str | None]]:
    graph = rdflib.Graph()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rdflib warns of the ill-typed "yes"^^xsd:boolean
        graph.parse(data=text, format="turtle")
    return {
        (str(s), str(p), str(o), str(o.datatype) if o.datatype else None)
        for s, p, o in graph
        if isinstance(o, rdflib.Literal)
    }


def _our_triples(text: str) -> set[tuple[str, str, str, str | None]]:
    graph = _graph.parse([TurtleFile("x.ttl", text)])
    found = set()
    for s, p, o in graph.triples():
        if isinstance(o, pyoxigraph.Literal):
            datatype = None if _graph.plain(o) else o.datatype.value
            found.add((s.value, p.value, o.value, datatype))
    return found


def test_typed_literals_read_as_rdflib_reads_them() -> None:
    text = HEAD + LITERALS
    ours = _our_triples(text)
    # rdflib keeps a datatype xsd:string that is written out; RDF 1.1 makes it a plain string
    theirs = {
        (s, p, o, None if d and d.endswith("#string") else d)
        for s, p, o, d in _rdflib_triples(text)
    }
    assert ours == theirs
    assert ("https://x.org/a", "https://x.org/bool", "true", _XSD + "boolean") in ours
    assert len([t for t in ours if t[1].endswith("int")]) == 2  # "3" (four ways) and "x"


_XSD = "http://www.w3.org/2001/XMLSchema#"


def test_the_shapes_see_the_literals_as_written() -> None:
    graph = _graph.parse([TurtleFile("x.ttl", HEAD + LITERALS)])
    written = graph.n_triples().decode()
    assert '"TRUE"^^<http://www.w3.org/2001/XMLSchema#boolean>' in written
    assert '"03"^^<http://www.w3.org/2001/XMLSchema#integer>' in written


def test_blank_nodes_of_two_files_stay_apart() -> None:
    one = TurtleFile("1.ttl", HEAD + "_:b ex:p 1 .")
    two = TurtleFile("2.ttl", HEAD + "_:b ex:p 2 .")
    graph = _graph.parse([one, two])
    assert len(graph.subjects) == 2
    assert {graph.place(s)["file"] for s in graph.subjects} == {"1.ttl", "2.ttl"}
    assert len(set(pyoxigraph.parse(graph.n_triples(), format=pyoxigraph.RdfFormat.N_TRIPLES))) == 2


def test_a_subject_belongs_to_the_first_file_that_describes_it() -> None:
    one = TurtleFile("1.ttl", HEAD + "ex:s ex:p ex:o .")
    two = TurtleFile("2.ttl", HEAD + "ex:o ex:p 1 .\n\nex:s ex:q 2 .")
    graph = _graph.parse([one, two])
    assert graph.where("https://x.org/s") == {"file": "1.ttl", "line": 3}
    assert graph.where("https://x.org/o") == {"file": "2.ttl", "line": 3}
    assert graph.where("https://x.org/p") == {"file": "1.ttl", "line": 3}  # mentioned only
    assert graph.where("https://x.org/nowhere") == {}
    assert graph.objects(NamedNode("https://x.org/s"), NamedNode("https://x.org/q"))


def _named(graph: _graph.Graph) -> set[tuple[str, str, str]]:
    """The triples, each blank node written as one placeholder."""
    return {
        tuple("_" if isinstance(t, BlankNode) else str(t) for t in triple)  # type: ignore[misc]
        for triple in graph.triples()
    }


def test_streamed_the_triples_go_to_a_file_before_the_graph_is_built() -> None:
    files = [TurtleFile.load(p, p.name) for p in sorted(MINI.glob("*.ttl"))]
    seen: list[bytes] = []
    kept = _graph.parse(files)
    graph = _graph.parse(files, before_indexing=lambda path: seen.append(path.read_bytes()))
    (text,) = seen
    assert not graph.written  # nothing kept: the file was the caller's
    with pytest.raises(RuntimeError, match="streamed to parse"):
        graph.n_triples()
    assert len(text.splitlines()) == len(kept.n_triples().splitlines())
    # the graph is built from the file: its blank nodes are named as the file names them
    in_file = set(pyoxigraph.parse(text, format=pyoxigraph.RdfFormat.N_TRIPLES))
    blanks = {t for q in in_file for t in (q.subject, q.object) if isinstance(t, BlankNode)}
    assert blanks
    assert blanks <= set(graph.subjects) | {o for _, _, o in graph.triples()}
    assert len(list(graph.triples())) == len(list(kept.triples()))
    assert _named(graph) == _named(kept)
    for iri in ("https://w3id.org/execution-atlas/stage/toy-source", "nowhere"):
        assert graph.where(iri) == kept.where(iri)
    broken = TurtleFile("bad.ttl", HEAD + "ex:a ex:b .")
    assert _graph.parse(
        [*files, broken], before_indexing=lambda path: seen.append(path.read_bytes())
    ).problems
    assert len(seen) == 1  # not called when a file does not parse


def test_a_syntax_error_is_worded_by_rdflib_as_before() -> None:
    broken = TurtleFile("bad.ttl", HEAD + "ex:a ex:b ex:c\nex:d ex:e ex:f .")
    (problem,) = _graph.parse([broken]).problems
    assert problem == turtle.rdflib_problem(broken)
    assert problem.message.startswith("Turtle syntax error: ")
    assert (problem.file, problem.line) == ("bad.ttl", 4)


def test_what_only_rdflib_reads_is_a_syntax_error_with_line_and_column() -> None:
    spaced = TurtleFile("spaced.ttl", HEAD + "\nex:a ex:b <a b> .")
    assert turtle.rdflib_problem(spaced) is None  # rdflib reads an IRI with a space
    (problem,) = _graph.parse([spaced]).problems
    assert (problem.file, problem.line, problem.code) == ("spaced.ttl", 4, "syntax")
    assert "column" in problem.message


def test_check_finds_lines_in_a_file_with_windows_line_ends(tmp_path: Path) -> None:
    for source in MINI.glob("*.ttl"):
        text = source.read_text(encoding="utf-8").replace("\n", "\r\n")
        (tmp_path / source.name).write_bytes(text.encode())
    report = verify.check(files=sorted(tmp_path.glob("*.ttl")))
    lines = {(p.subject, p.line) for p in report.warnings}
    expected = {(p.subject, p.line) for p in verify.check(dataset=MINI).warnings}
    assert lines == expected


def test_the_locator_prefers_the_line_that_starts_with_the_resource() -> None:
    text = "@prefix s: <https://x.org/s/> .\ns:b s:a s:c .\n  s:a;\ns:a\t1 ."
    assert Locator(text).line_of("https://x.org/s/a") == 3
    assert Locator(text.replace("\n", "\u2028")).line_of("https://x.org/s/a") == 3
    assert Locator(text).line_of("https://x.org/s/c") == 2
    assert Locator("<https://x.org/a;b> 1 .").line_of("https://x.org/a;b") == 1
