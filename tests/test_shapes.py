"""The SHACL shapes: shacl-rust reports what pySHACL, the reference engine, reports.

``atlas check`` runs the shapes with shacl-rust, which is fast enough for a million triples.
pySHACL stays the reference: on the mini dataset, changed in every way that a shape catches,
both engines must give the same problems. Also: violations that span files are found.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import rdflib
from rdflib import RDF, BNode, Literal, URIRef
from rdflib.collection import Collection

from atlas.checks import shapes, verify
from atlas.data import _graph, _rdflib, turtle
from atlas.errors import Problem
from atlas.models._vocab import expand
from checkkit import copy_mini

BAD = Path(__file__).resolve().parent / "bad"
SH = "http://www.w3.org/ns/shacl#"
P = """
@prefix ea: <https://w3id.org/execution-atlas/vocab#> .
@prefix stage: <https://w3id.org/execution-atlas/stage/> .
@prefix step: <https://w3id.org/execution-atlas/step/> .
@prefix atlas: <https://w3id.org/execution-atlas/atlas/> .
@prefix cite: <https://w3id.org/execution-atlas/citation/> .
@prefix scheme: <https://w3id.org/execution-atlas/scheme/> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix toy-mode: <https://w3id.org/execution-atlas/scheme/toy-mode/> .
"""
GPU = 'rdf:value "An accelerator." ;'
GPU_ORDER = "    dcterms:isPartOf atlas:toy ;\n    ea:order 5 .\n\nclaim:stage-toy-gpu-1"
QUOTE_2 = '\n    oa:hasSelector [ a oa:TextQuoteSelector ;\n        oa:exact "Statements'
# Changes to the mini dataset, each caught by a shape: (file, old text, new text); old=None adds.
CHANGES: dict[str, list[tuple[str, str | None, str]]] = {
    "two-verbs": [("toy.ttl", 'ea:verb "calls" ;', 'ea:verb "calls", "invokes" ;')],
    "order-as-string": [("toy.ttl", GPU_ORDER, GPU_ORDER.replace("5", '"5"'))],
    "order-decimal": [("toy.ttl", GPU_ORDER, GPU_ORDER.replace("5", "5.0"))],
    "order-ill-typed": [("toy.ttl", GPU_ORDER, GPU_ORDER.replace("5", '"x"^^xsd:integer'))],
    "date-ill-typed": [("catalog.ttl", '"2026-11-30"^^xsd:date', '"20261130"^^xsd:date')],
    "date-as-string": [("catalog.ttl", '"2026-11-30"^^xsd:date', '"2026-11-30"')],
    "language-tag": [("toy.ttl", GPU, GPU.replace('accelerator."', 'accelerator."@en'))],
    "empty-verb": [("toy.ttl", 'ea:verb "calls" ;', 'ea:verb "" ;')],
    "support-not-in-list": [
        (
            "toy.ttl",
            'ea:support "partial" ;\n    ea:supportNote "Does not say where they run."',
            'ea:support "none" ;\n    ea:supportNote "Does not say where they run."',
        )
    ],
    "two-quotes": [
        (
            "toy.ttl",
            'oa:exact "Statements run one at a time." ]',
            'oa:exact "Statements run one at a time.", "Two." ]',
        )
    ],
    "blank-quote": [("toy.ttl", 'oa:exact "Statements run one at a time." ]', 'oa:exact " " ]')],
    "source-is-a-literal": [
        (
            "toy.ttl",
            f"oa:hasSource <https://example.org/toy/guide.html> ;{QUOTE_2}",
            f'oa:hasSource "https://example.org/toy/guide.html" ;{QUOTE_2}',
        )
    ],
    "source-outside-the-base": [
        ("sources.ttl", "source:toy-guide a ea:Source", "<https://example.org/src> a ea:Source")
    ],
    "source-blank-node": [("sources.ttl", "source:toy-guide a ea:Source", "[] a ea:Source")],
    "complete-as-string": [("sources.ttl", "ea:complete true ;", 'ea:complete "yes" ;')],
    "dataset-version-and-licence": [
        ("catalog.ttl", 'dcat:version "1.2.3" ;', 'dcat:version "1.2" ;'),
        (
            "catalog.ttl",
            "<https://creativecommons.org/licenses/by/4.0/>",
            "<https://example.org/l>",
        ),
        ("catalog.ttl", 'dcterms:title "Mini atlas" ;', ""),
    ],
    "atlas": [
        ("toy.ttl", 'ea:question "What happens when you run a toy program?" ;', ""),
        ("toy.ttl", "ea:entryStage stage:toy-source ;", "ea:entryStage stage:a, stage:b ;"),
        ("toy.ttl", "ea:dimension scheme:toy-mode,", "ea:dimension stage:toy-cpu,"),
    ],
    "concept": [
        (
            "toy.ttl",
            'skos:inScheme scheme:toy-device ;\n    skos:prefLabel "CPU" ;',
            'skos:prefLabel "CPU", "Central" ;',
        )
    ],
    "stage-kind-and-technology": [
        ("toy.ttl", "ea:kind stage-kind:compiler ;", "ea:kind tech:toy-c ;"),
        ("toy.ttl", "ea:technology tech:toy-lang ;", "ea:technology tech:nope ;"),
    ],
    "relation": [
        ("toy.ttl", "ea:from tech:toy-lang ;", "ea:from stage:toy-cpu ;"),
        ("toy.ttl", "    ea:about relation:toy-lang-written-in-toy-c ;\n", ""),
    ],
    "dimension-added-in-another-file": [
        ("catalog.ttl", None, P + "atlas:toy ea:dimension scheme:stage-kind .\n")
    ],
    "step-in-another-file": [
        (
            "catalog.ttl",
            None,
            P + "step:extra a ea:Step ; dcterms:isPartOf atlas:toy ; ea:from stage:toy-cpu ; "
            'ea:to stage:toy-gpu ; ea:verb "v" ; ea:when toy-mode:compiled ; ea:order 9 .\n'
            "<https://w3id.org/execution-atlas/claim/step-extra-1> a ea:Claim ; "
            'ea:about step:extra ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#value> "w" ; '
            "ea:unsupported true .\n",
        )
    ],
}


NOT_TURTLE = {"turtle-syntax-error", "unknown-prefix"}  # cases that break the syntax


def _corpus() -> dict[str, list[tuple[str, str | None, str]]]:
    """The cases of the bad input corpus that change a Turtle file and keep it Turtle."""
    cases = {}
    for case in sorted(BAD.glob("*.toml")):
        spec = tomllib.loads(case.read_text(encoding="utf-8"))
        if spec["file"].endswith(".ttl") and "old" in spec and case.stem not in NOT_TURTLE:
            cases[f"bad/{case.stem}"] = [(spec["file"], spec["old"], spec["new"])]
    return cases


CASES = {**_corpus(), **CHANGES}


def _changed(tmp_path: Path, changes: list[tuple[str, str | None, str]]) -> Path:
    folder = copy_mini(tmp_path)
    for name, old, new in changes:
        path = folder / name
        text = path.read_text(encoding="utf-8")
        if old is None:
            text += new
        else:
            assert text.count(old) == 1, f"{old!r} must occur once in {name}"
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    return folder


def _pyshacl_problems(graph: rdflib.Graph, where: Any) -> list[Problem]:
    """The problems as ``atlas check`` made them from pySHACL's report (before shacl-rust)."""
    import pyshacl  # noqa: PLC0415

    shape_graph = rdflib.Graph().parse(data=shapes._shapes(), format="turtle")
    with _rdflib.quiet_rdflib():
        _, results, _ = pyshacl.validate(
            graph, shacl_graph=shape_graph, inference="none", allow_warnings=True, advanced=False
        )

    def value_of(result: Any, name: str) -> Any:
        return results.value(result, URIRef(SH + name))

    problems = []
    for result in results.subjects(RDF.type, URIRef(SH + "ValidationResult")):
        focus, path, value = (value_of(result, n) for n in ("focusNode", "resultPath", "value"))
        if isinstance(focus, BNode):
            focus = graph.value(None, URIRef(expand("oa:hasSelector")), focus) or focus
        subject = str(focus) if isinstance(focus, URIRef) else None
        key = None
        inverse = isinstance(path, BNode) and results.value(path, URIRef(SH + "inversePath"))
        if path is not None and not inverse:
            last = path if isinstance(path, URIRef) else list(Collection(results, path))[-1]
            types = [str(t) for t in graph.objects(focus, RDF.type)]
            key = shapes.predicate_key(str(last), types[0] if len(types) == 1 else None)
        text = shapes._compact_text(str(value_of(result, "resultMessage")))
        if value is not None and value != focus:
            shown = repr(str(value)) if isinstance(value, Literal) else shapes.compact(str(value))
            if isinstance(value, Literal) and value.datatype:
                shown += f"^^{shapes.compact(str(value.datatype))}"
            if shown not in text:
                text += f" (found {shown})"
        severity = value_of(result, "resultSeverity")
        problems.append(
            Problem(
                "violation" if severity == URIRef(SH + "Violation") else "warning",
                f"{key + ': ' if key else ''}{text}",
                subject=subject,
                hint="see schema/shapes.ttl and dataset/README.md",
                code="shacl",
                **(where(subject) if subject else {}),
            )
        )
    return sorted(set(problems))


def _without_blank_node_ids(problems: list[Problem]) -> list[str]:
    """The problems as text, blank node ids (random) replaced by ``_``."""
    return [re.sub(r"<[0-9a-z]{16,}>", "<_>", str(p)) for p in problems]


@pytest.mark.parametrize("name", sorted(CASES))
def test_shacl_rust_reports_what_pyshacl_reports(name: str, tmp_path: Path) -> None:
    folder = _changed(tmp_path, CASES[name])
    files = [turtle.TurtleFile.load(p, p.name) for p in sorted(folder.glob("*.ttl"))]
    parsed = _graph.parse(files)
    assert not parsed.problems
    ours = shapes.shacl_problems(parsed, parsed.where)
    reference = _pyshacl_problems(turtle.dataset_graph(files), parsed.where)
    assert _without_blank_node_ids(ours) == _without_blank_node_ids(reference)


def test_the_changes_are_caught_by_shapes(tmp_path: Path) -> None:
    for name, changes in CHANGES.items():
        files = sorted(_changed(tmp_path / name, changes).glob("*.ttl"))
        assert shapes.shacl_problems(_graph.parse(turtle.TurtleFile.load(f) for f in files)), name


def test_an_rdflib_graph_is_validated_too() -> None:
    assert shapes.shacl_problems(turtle.dataset_graph()) == []


def test_violations_that_span_files_are_found(tmp_path: Path) -> None:
    # catalog.ttl gives the toy atlas (of toy.ttl) a third dimension: every step lacks it
    folder = _changed(tmp_path, CHANGES["dimension-added-in-another-file"])
    report = verify.check(dataset=folder, today=dt.date(2026, 12, 2))
    shape_check = next(c for c in report.checks if c.name == "shapes")
    missing = [p for p in shape_check.problems if "no condition for the dimension" in p.message]
    assert len(missing) == 5  # the five steps
    assert all("dimension scheme:stage-kind" in p.message for p in missing)
    assert all(p.file and p.file.endswith("toy.ttl") and p.line for p in missing)


def test_a_step_in_one_file_is_checked_against_its_atlas_in_another(tmp_path: Path) -> None:
    folder = _changed(tmp_path, CHANGES["step-in-another-file"])
    report = verify.check(dataset=folder, today=dt.date(2026, 12, 2))
    (problem,) = next(c for c in report.checks if c.name == "shapes").problems
    assert problem.subject == "https://w3id.org/execution-atlas/step/extra"
    assert "has no condition for the dimension scheme:toy-device" in problem.message
    assert problem.file
    assert problem.file.endswith("catalog.ttl")


def _engine_results(data: str, *, interned: bool) -> list[str]:
    """shacl-rust's results on N-Triples, without the shapes' blank node ids (new per parse)."""
    import json  # noqa: PLC0415

    import shacl_rust  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    report = shacl_rust.validate(
        data, shapes._shapes(), data_format="nt", experimental_index=interned
    )
    return sorted(
        json.dumps({k: v for k, v in r.items() if k != "sourceShape"}, sort_keys=True)
        for r in report["results"]
    )


def test_the_interned_index_the_check_uses_finds_what_the_default_engine_finds() -> None:
    # shacl_report asks shacl-rust for its interned index (half the memory and time at 1M
    # triples); on the shipped data with one triple dropped, doubled or given another's object,
    # it must report exactly what the default index reports, and something in most cases
    import random  # noqa: PLC0415

    lines = _graph.parse(turtle.shipped_turtle()).n_triples().decode().splitlines()
    rnd = random.Random(7)  # noqa: S311 - a repeatable choice of test cases
    reported = 0
    for case in range(12):
        changed = list(lines)
        k, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
        subject, predicate, _ = changed[k][:-2].split(" ", 2)
        other = changed[j][:-2].split(" ", 2)[2]
        if case % 3 == 0:
            del changed[k]
        elif case % 3 == 1:
            changed.append(f"{subject} {predicate} {other} .")
        else:
            changed[k] = f"{subject} {predicate} {other} ."
        data = "\n".join(changed) + "\n"
        default = _engine_results(data, interned=False)
        assert _engine_results(data, interned=True) == default, changed[k]
        reported += bool(default)
    assert reported >= 6
