"""Selections with no path (issue 24): the dataset says why, and ``atlas path`` answers with it.

The fixture is the mini dataset with a file added (a copy under a temporary folder: the mini
fixture itself stays as it is), exported with ``atlas export --dataset``: a mode ``traced`` that
has no path on either device (on a CPU it does not exist, the compiled path runs instead; on a
GPU the sources do not cover it), and a mode ``aot`` with a path on a CPU (the step that calls
the loaded program starts at the source: steps are read in the order of their from-stages).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from atlas import cli
from atlas.checks import shapes
from atlas.cli import _selection as cli_selection
from atlas.data import _graph, _nopathrules, export, turtle
from atlas.data._consistency import record_problems
from atlas.errors import NoPathError
from atlas.query import _pathtable
from atlas.query import paths as query
from atlas.query._index import Index
from atlas.query._selection import Vocabulary
from checkkit import copy_mini

if TYPE_CHECKING:
    from atlas.models import AtlasDocument

_PREFIXES = """\
@prefix claim: <https://w3id.org/execution-atlas/claim/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix ea: <https://w3id.org/execution-atlas/vocab#> .
@prefix stage: <https://w3id.org/execution-atlas/stage/> .
@prefix step: <https://w3id.org/execution-atlas/step/> .
@prefix atlas: <https://w3id.org/execution-atlas/atlas/> .
@prefix nopath: <https://w3id.org/execution-atlas/nopath/> .
@prefix scheme: <https://w3id.org/execution-atlas/scheme/> .
@prefix stage-kind: <https://w3id.org/execution-atlas/scheme/stage-kind/> .
@prefix toy-mode: <https://w3id.org/execution-atlas/scheme/toy-mode/> .
@prefix toy-device: <https://w3id.org/execution-atlas/scheme/toy-device/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
"""

WHY = "Traced programs need a GPU to trace on."
NO_PATH_TTL = (
    _PREFIXES
    + f"""
toy-mode:traced a skos:Concept ;
    skos:inScheme scheme:toy-mode ;
    skos:prefLabel "traced" ;
    ea:order 3 .

nopath:toy-traced-cpu a ea:NoPath ;
    dcterms:isPartOf atlas:toy ;
    ea:when toy-mode:traced, toy-device:cpu ;
    ea:noPathReason "does-not-exist" ;
    ea:seePath toy-mode:compiled .

claim:nopath-toy-traced-cpu-1 a ea:Claim ;
    ea:about nopath:toy-traced-cpu ;
    ea:order 1 ;
    rdf:value "{WHY}" ;
    ea:unsupported true .

nopath:toy-traced-gpu a ea:NoPath ;
    dcterms:isPartOf atlas:toy ;
    ea:when toy-mode:traced, toy-device:gpu ;
    ea:noPathReason "not-covered" ;
    skos:editorialNote "No source describes tracing on a GPU." .
"""
)


def _step(sid: str, ends: tuple[str, str], verb: str, order: int, device: str) -> str:
    """A step of mode aot, in Turtle, with its one (unsupported) claim."""
    when = f"ea:when toy-mode:aot, toy-device:{device}" if device else "ea:when toy-mode:aot ;\n"
    when += "" if device else "    ea:whenAny scheme:toy-device"
    source, target = ends
    return f"""
step:{sid} a ea:Step ;
    dcterms:isPartOf atlas:toy ;
    ea:from stage:{source} ;
    ea:to stage:{target} ;
    ea:verb "{verb}" ;
    {when} ;
    ea:order {order} .

claim:step-{sid}-1 a ea:Claim ;
    ea:about step:{sid} ;
    ea:order 1 ;
    rdf:value "The toy does {verb}." ;
    ea:unsupported true .
"""


#: Ahead of time: source -> compiler -> loader; then the source calls the loaded program
#: (curated after the loading, though its from-stage, the source, comes first).
AOT_TTL = (
    _PREFIXES
    + """
toy-mode:aot a skos:Concept ;
    skos:inScheme scheme:toy-mode ;
    skos:prefLabel "aot" ;
    ea:order 4 .

stage:toy-loader a ea:Stage ;
    rdfs:label "toy loader" ;
    ea:kind stage-kind:runtime ;
    ea:executesInPython false ;
    dcterms:isPartOf atlas:toy ;
    ea:order 6 .

claim:stage-toy-loader-1 a ea:Claim ;
    ea:about stage:toy-loader ;
    ea:order 1 ;
    rdf:value "Loads a compiled toy program." ;
    ea:unsupported true .
"""
    + _step("toy-aot-source-compiled", ("toy-source", "toy-compiler"), "is compiled by", 20, "")
    + _step("toy-aot-compiler-loaded", ("toy-compiler", "toy-loader"), "is loaded by", 21, "")
    + _step("toy-aot-source-calls-loader", ("toy-source", "toy-loader"), "calls", 22, "")
    + _step("toy-aot-loader-runs-on-cpu", ("toy-loader", "toy-cpu"), "runs on", 23, "cpu")
    + _step("toy-aot-loader-runs-on-gpu", ("toy-loader", "toy-gpu"), "runs on", 24, "gpu")
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini dataset with the no-path records and the aot mode, exported."""
    found = copy_mini(tmp_path_factory.mktemp("nopath"))
    (found / "nopath.ttl").write_text(NO_PATH_TTL, encoding="utf-8")
    (found / "aot.ttl").write_text(AOT_TTL, encoding="utf-8")
    with warnings.catch_warnings():
        assert cli.main(["export", "--dataset", str(found)]) == 0
    return found


@pytest.fixture(scope="module")
def document(folder: Path) -> AtlasDocument:
    return export.read(folder / "atlas.json")  # readable: the export's own checks pass


@pytest.fixture
def shipped_is_fixture(document: AtlasDocument, monkeypatch: pytest.MonkeyPatch) -> Index:
    """The API and ``atlas path`` answer from the fixture (no path table: the full way)."""
    index = Index(document)
    words = Vocabulary.from_data(_pathtable.vocabulary_data(index))
    monkeypatch.setattr(query, "index", lambda: index)
    monkeypatch.setattr(query, "vocabulary", lambda: words)
    monkeypatch.setattr(cli_selection, "shipped", lambda: None)
    return index


# --- the records --------------------------------------------------------------------------------


def test_the_export_holds_the_no_path_records_with_their_claims(document: AtlasDocument) -> None:
    records = {r.id: r for r in document.no_paths}
    assert sorted(records) == ["toy-traced-cpu", "toy-traced-gpu"]
    cpu = records["toy-traced-cpu"]
    assert cpu.when == ("toy-device/cpu", "toy-mode/traced")
    assert (cpu.reason, cpu.see_path, cpu.explanation) == (
        "does-not-exist",
        "toy-mode/compiled",
        WHY,
    )
    assert records["toy-traced-gpu"].note == "No source describes tracing on a GPU."
    assert document.counts.no_paths == 2
    assert document.schema_version == "2.4.0"


# --- paths ---------------------------------------------------------------------------------------


def test_a_selection_that_does_not_exist_raises_why_and_where_to_look(
    document: AtlasDocument,
) -> None:
    with pytest.raises(NoPathError) as caught:
        Index(document).path("traced", "cpu", atlas="toy")
    assert str(caught.value) == (
        f"traced on a CPU has no path: {WHY.rstrip('.')}; see 'atlas path compiled CPU --atlas toy'"
    )
    assert caught.value.reason == "does-not-exist"
    assert isinstance(caught.value, ValueError)


def test_a_selection_the_sources_do_not_cover_raises_not_covered(document: AtlasDocument) -> None:
    with pytest.raises(
        NoPathError, match=r"^traced on a GPU is not covered by the atlas's sources"
    ):
        Index(document).path("toy-mode/traced", "toy-device/gpu", atlas="toy")


def test_atlas_path_raises_it_too(shipped_is_fixture: Index) -> None:
    with pytest.raises(NoPathError, match="has no path"):
        query.path("traced on CPU", atlas="toy")


def test_all_paths_skip_the_selections_with_no_path(document: AtlasDocument) -> None:
    index = Index(document)
    selections = [tuple(c.name for c in p.selection) for p in index.all_paths("toy")]
    assert ("traced", "cpu") not in selections
    assert ("traced", "gpu") not in selections
    assert ("aot", "cpu") in selections
    assert len(selections) == 6  # 4 modes x 2 devices, less the 2 without a path


def test_the_path_table_and_the_journeys_leave_them_out(
    folder: Path, document: AtlasDocument
) -> None:
    table = _pathtable.build((folder / "atlas.json").read_text(encoding="utf-8"))
    keys = table["atlases"]["toy"]["paths"]
    assert "toy-mode/traced toy-device/cpu" not in keys
    assert "toy-mode/aot toy-device/gpu" in keys
    (toy,) = (a for a in document.atlases if a.id == "toy")
    assert all("toy-mode/traced" not in j.values for j in toy.journeys)


def test_the_command_line_says_why_in_one_line_with_status_1(
    shipped_is_fixture: Index, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["path", "traced", "cpu", "--atlas", "toy"])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("atlas path: error: traced on a CPU has no path: Traced programs")
    assert "Traceback" not in err


# --- consistency and shapes ----------------------------------------------------------------------


def _changed(document: AtlasDocument, record_id: str, **fields: object) -> AtlasDocument:
    records = tuple(
        r.model_copy(update=fields) if r.id == record_id else r for r in document.no_paths
    )
    return document.model_copy(update={"no_paths": records})


def test_the_rule_reports_a_when_that_names_no_real_selection(document: AtlasDocument) -> None:
    assert _nopathrules.no_path_records(document) == []
    bad = _changed(document, "toy-traced-cpu", when=("toy-mode/traced", "toy-mode/nope"))
    messages = [p.message for p in _nopathrules.no_path_records(bad)]
    assert "value 'toy-mode/nope' is not a known dimension value" in messages
    assert any("2 values (toy-mode/traced, toy-mode/nope)" in m for m in messages)
    assert any("names no value of the dimension 'toy-device'" in m for m in messages)
    assert any(p.code == "no-path" for p in record_problems(bad))


def test_the_rule_reports_a_reason_without_its_explanation(document: AtlasDocument) -> None:
    bad = _changed(document, "toy-traced-cpu", claims=())
    bad = _changed(bad, "toy-traced-gpu", note=None)
    messages = [p.message for p in _nopathrules.no_path_records(bad)]
    assert messages == [
        '"does-not-exist" needs its reason as claims',
        '"not-covered" needs a curator\'s note',
    ]


def test_the_rule_reports_a_step_written_for_a_selection_with_no_path(
    document: AtlasDocument,
) -> None:
    bad = _changed(document, "toy-traced-cpu", when=("toy-mode/aot", "toy-device/cpu"))
    codes = {p.code: p.message for p in _nopathrules.no_path_records(bad)}
    assert (
        "step 'toy-aot-loader-runs-on-cpu' is written for this selection"
        in codes["no-path-conflict"]
    )


def test_the_shapes_catch_a_when_without_a_value_of_each_dimension(folder: Path) -> None:
    text = NO_PATH_TTL.replace("ea:when toy-mode:traced, toy-device:gpu", "ea:when toy-mode:traced")
    files = [
        turtle.TurtleFile.load(p, p.name)
        for p in sorted(folder.glob("*.ttl"))
        if p.name != "nopath.ttl"
    ]
    files.append(turtle.TurtleFile(name="nopath.ttl", text=text))
    parsed = _graph.parse(files)
    messages = [p.message for p in shapes.shacl_problems(parsed, parsed.where)]
    assert any("names no value of the dimension" in m for m in messages), messages
    assert len(messages) == 1


def test_claim_checks_ask_claims_of_a_missing_combination_not_of_an_uncovered_one(
    document: AtlasDocument,
) -> None:
    # a "not-covered" record is said by its curator's note: no "has no text" problem for it;
    # a "does-not-exist" record without claims has one
    from atlas.checks._claims import claim_problems  # noqa: PLC0415

    def no_text(doc: AtlasDocument) -> set[str | None]:
        return {p.subject for p in claim_problems(doc) if p.code == "no-claim"}

    assert no_text(document) == set()
    bare = _changed(document, "toy-traced-cpu", claims=())
    assert no_text(bare) == {"https://w3id.org/execution-atlas/nopath/toy-traced-cpu"}
