"""Retired ids (issue 23, "Deprecation surfaced"): looked up, they lead to their live replacement.

A stage or step retired with ``owl:deprecated true`` and ``dcterms:isReplacedBy`` keeps its id;
``atlas.stage(old)`` and ``atlas.step(old)`` give the live record at the end of its replacements
with a ``DeprecationWarning``, ``atlas stage OLD`` with a notice on stderr, and ``atlas check``
reports a retired id that leads nowhere live. The fixture is the mini dataset with a file of
retired records added (a copy under a temporary folder: the mini fixture itself stays as it is),
exported with ``atlas export --dataset``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import atlas
from atlas import cli
from atlas.cli import _paths
from atlas.data import export
from atlas.errors import DatasetError, UnknownIdError
from atlas.models import AtlasDocument
from atlas.query import _retired
from atlas.query import paths as query
from atlas.query._index import Index
from checkkit import MINI, changed_export, copy_mini

TODAY = "2026-12-03"

_PREFIXES = """\
@prefix claim: <https://w3id.org/execution-atlas/claim/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix ea: <https://w3id.org/execution-atlas/vocab#> .
@prefix stage: <https://w3id.org/execution-atlas/stage/> .
@prefix step: <https://w3id.org/execution-atlas/step/> .
@prefix atlas: <https://w3id.org/execution-atlas/atlas/> .
@prefix scheme: <https://w3id.org/execution-atlas/scheme/> .
@prefix stage-kind: <https://w3id.org/execution-atlas/scheme/stage-kind/> .
@prefix toy-mode: <https://w3id.org/execution-atlas/scheme/toy-mode/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
"""


def _retired_stage(
    sid: str, label: str, order: int, replaced_by: str | None, extra: str = ""
) -> str:
    """A retired stage of the toy atlas, in Turtle, with its one (unsupported) claim."""
    replacement = f" ;\n    dcterms:isReplacedBy stage:{replaced_by}" if replaced_by else ""
    return f"""
stage:{sid} a ea:Stage ;
    rdfs:label "{label}" ;{extra}
    ea:kind stage-kind:hardware ;
    ea:executesInPython false ;
    dcterms:isPartOf atlas:toy ;
    ea:order {order} ;
    owl:deprecated true{replacement} .

claim:stage-{sid}-1 a ea:Claim ;
    ea:about stage:{sid} ;
    ea:order 1 ;
    rdf:value "The host processor, by an older name." ;
    ea:unsupported true .
"""


#: toy-processor (labelled "CPU" as toy-cpu is, alias "processor") -> toy-host -> toy-cpu, and a
#: retired step replaced by toy-interpreter-runs-on-cpu.
RETIRED_TTL = (
    _PREFIXES
    + _retired_stage("toy-processor", "CPU", 6, "toy-host", '\n    skos:altLabel "processor" ;')
    + _retired_stage("toy-host", "host", 7, "toy-cpu")
    + """
step:toy-interpreter-runs-on-host a ea:Step ;
    dcterms:isPartOf atlas:toy ;
    ea:from stage:toy-interpreter ;
    ea:to stage:toy-cpu ;
    ea:verb "runs on" ;
    ea:when toy-mode:interpreted ;
    ea:whenAny scheme:toy-device ;
    ea:order 6 ;
    owl:deprecated true ;
    dcterms:isReplacedBy step:toy-interpreter-runs-on-cpu .

claim:step-toy-interpreter-runs-on-host-1 a ea:Claim ;
    ea:about step:toy-interpreter-runs-on-host ;
    ea:order 1 ;
    rdf:value "Each statement runs on the host." ;
    ea:unsupported true .
"""
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def retired_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini dataset with the retired records, exported (atlas.json beside its Turtle)."""
    folder = copy_mini(tmp_path_factory.mktemp("retired"))
    (folder / "retired.ttl").write_text(RETIRED_TTL, encoding="utf-8")
    with warnings.catch_warnings():
        assert cli.main(["export", "--dataset", str(folder)]) == 0
    return folder


def _use(monkeypatch: pytest.MonkeyPatch, document: AtlasDocument) -> None:
    """Make the lookups of ``atlas`` answer from ``document`` (their name caches emptied)."""
    monkeypatch.setattr(query, "index", lambda: Index(document))
    query._stage_names.cache_clear()
    query._step_names.cache_clear()


pytestmark = pytest.mark.usefixtures("fresh_name_caches")


@pytest.fixture
def retired(
    retired_folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> AtlasDocument:
    """The lookups answer from the export of the dataset with retired records."""
    capsys.readouterr()  # what the export printed
    document = export.read(retired_folder / "atlas.json")  # readable: the export's own checks
    _use(monkeypatch, document)
    return document


def _stages(*changes: dict[str, Any]) -> AtlasDocument:
    """The mini document with its stages changed (``{"id": ..., fields}``) or added."""
    good = AtlasDocument.model_validate_json((MINI / "atlas.json").read_bytes())
    stages = {s["id"]: s for s in export.to_data(good)["stages"]}
    for change in changes:
        base = stages.get(change["id"], stages["toy-cpu"])
        stages[change["id"]] = {**base, "order": len(stages) + 1, **change}
    return changed_export(good, stages=list(stages.values()))


# --- the Python API ---------------------------------------------------------------------------


def test_a_retired_stage_gives_its_replacement_with_a_deprecation_warning(
    retired: AtlasDocument,
) -> None:
    with pytest.warns(DeprecationWarning, match="'toy-host' is deprecated") as caught:
        found = atlas.stage("toy-host")
    assert found.id == "toy-cpu"
    assert not found.deprecated
    (warning,) = caught
    assert str(warning.message) == "stage 'toy-host' is deprecated; use its replacement 'toy-cpu'"
    assert isinstance(warning.message, _retired.RetiredIdWarning)
    assert (warning.message.old, warning.message.new) == ("toy-host", "toy-cpu")
    assert warning.filename == __file__  # the warning points at the caller's line


def test_a_chain_of_replacements_is_followed_to_the_live_stage(retired: AtlasDocument) -> None:
    with pytest.warns(DeprecationWarning, match="'toy-processor' is deprecated") as caught:
        found = atlas.stage("TOY-PROCESSOR")
    assert found.id == "toy-cpu"
    (warning,) = caught
    assert str(warning.message) == (
        "stage 'toy-processor' is deprecated; use its replacement 'toy-cpu' "
        "(toy-processor -> toy-host -> toy-cpu)"
    )
    assert isinstance(warning.message, _retired.RetiredIdWarning)
    assert warning.message.chain == ("toy-processor", "toy-host", "toy-cpu")


def test_a_retired_step_gives_its_replacement_with_a_deprecation_warning(
    retired: AtlasDocument,
) -> None:
    with pytest.warns(DeprecationWarning, match="^step 'toy-interpreter-runs-on-host' is") as c:
        found = atlas.step("Toy-Interpreter-Runs-On-Host")
    assert found.id == "toy-interpreter-runs-on-cpu"
    assert c[0].filename == __file__
    assert str(c[0].message).endswith("use its replacement 'toy-interpreter-runs-on-cpu'")


def test_live_names_win_and_give_no_warning(retired: AtlasDocument) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert atlas.stage("CPU").id == "toy-cpu"  # the retired toy-processor has this label too
        assert atlas.stage("toy-cpu").id == "toy-cpu"
        assert atlas.step("toy-interpreter-runs-on-cpu").id == "toy-interpreter-runs-on-cpu"
    with pytest.warns(DeprecationWarning, match="'toy-processor' is deprecated"):
        assert atlas.stage("processor").id == "toy-cpu"  # a name only the retired stage has


def test_retired_records_stay_out_of_the_paths(retired: AtlasDocument) -> None:
    path = Index(retired).path("interpreted", "cpu", atlas="toy")
    assert [j.step.id for j in path.steps] == [
        "toy-source-runs-in-interpreter",
        "toy-interpreter-runs-on-cpu",
    ]
    assert "toy-host" not in [s.id for s in path.stages]


def test_a_cycle_of_replacements_is_a_dataset_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _use(
        monkeypatch,
        _stages(
            {"id": "toy-a", "deprecated": True, "replacedBy": "toy-b"},
            {"id": "toy-b", "deprecated": True, "replacedBy": "toy-a"},
        ),
    )
    with pytest.raises(DatasetError) as caught:
        atlas.stage("toy-a")
    (problem,) = caught.value.problems
    assert problem.code == "replacement-cycle"
    assert (
        problem.message == "the replacements of stage 'toy-a' form a cycle: toy-a -> toy-b -> toy-a"
    )
    assert problem.subject == "https://w3id.org/execution-atlas/stage/toy-b"
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            [{"id": "toy-a", "deprecated": True, "replacedBy": "nowhere"}],
            "stage 'toy-a' is replaced by 'nowhere', which is not a stage",
        ),
        (
            [
                {"id": "toy-a", "deprecated": True, "replacedBy": "toy-b"},
                {"id": "toy-b", "deprecated": True, "replacedBy": "nowhere"},
            ],
            (
                "stage 'toy-b' is replaced by 'nowhere', which is not a stage "
                "(replacements of stage 'toy-a': toy-a -> toy-b -> nowhere)"
            ),
        ),
    ],
)
def test_a_replacement_that_does_not_exist_is_a_dataset_error(
    monkeypatch: pytest.MonkeyPatch, changes: list[dict[str, Any]], message: str
) -> None:
    _use(monkeypatch, _stages(*changes))
    with pytest.raises(DatasetError) as caught:
        atlas.stage("toy-a")
    (problem,) = caught.value.problems
    assert (problem.code, problem.message) == ("dangling", message)
    assert message in str(caught.value)


def test_a_step_replaced_by_no_step_is_a_dataset_error(monkeypatch: pytest.MonkeyPatch) -> None:
    good = AtlasDocument.model_validate_json((MINI / "atlas.json").read_bytes())
    steps = export.to_data(good)["steps"]
    steps[0] |= {"deprecated": True, "replacedBy": "toy-gone"}
    _use(monkeypatch, changed_export(good, steps=steps))
    with pytest.raises(DatasetError, match="'toy-gone', which is not a step"):
        atlas.step("toy-source-runs-in-interpreter")


def test_a_retired_stage_without_a_live_replacement_is_given_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _use(
        monkeypatch,
        _stages(
            {"id": "toy-a", "deprecated": True},
            {"id": "toy-b", "deprecated": True, "replacedBy": "toy-a"},
        ),
    )
    with pytest.warns(DeprecationWarning, match="^stage 'toy-a' is deprecated and names no repl"):
        assert atlas.stage("toy-a").id == "toy-a"
    with pytest.warns(DeprecationWarning, match="^stage 'toy-b' is deprecated") as caught:
        assert atlas.stage("toy-b").id == "toy-a"
    assert str(caught[0].message) == (
        "stage 'toy-b' is deprecated and has no live replacement: toy-b -> toy-a ends at a "
        "deprecated stage that names none"
    )


def test_an_unknown_id_is_still_an_unknown_id(retired: AtlasDocument) -> None:
    with pytest.raises(
        UnknownIdError, match="unknown stage id 'toy-hots'; did you mean 'toy-host'"
    ):
        atlas.stage("toy-hots")


# --- the command line --------------------------------------------------------------------------


def test_the_cli_shows_the_replacement_with_a_notice(
    retired: AtlasDocument, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "stage", "toy-host")
    assert code == 0
    assert err == "notice: stage 'toy-host' is deprecated; showing its replacement 'toy-cpu'\n"
    assert out.startswith("CPU (toy-cpu)\nkind: hardware\n")
    assert "retired" not in out
    code, out, err = run(capsys, "stage", "toy-processor", "--json")
    assert code == 0
    assert json.loads(out)["id"] == "toy-cpu"
    assert err == (
        "notice: stage 'toy-processor' is deprecated; showing its replacement 'toy-cpu' "
        "(toy-processor -> toy-host -> toy-cpu)\n"
    )


def test_the_cli_shows_a_retired_steps_replacement_with_a_notice(
    retired: AtlasDocument, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "step", "toy-interpreter-runs-on-host")
    assert code == 0
    assert err == (
        "notice: step 'toy-interpreter-runs-on-host' is deprecated; showing its replacement "
        "'toy-interpreter-runs-on-cpu'\n"
    )
    assert out.splitlines()[:2] == [
        "toy-interpreter-runs-on-cpu",
        "toy interpreter \u2014 runs on \u2192 CPU",
    ]
    code, _, err = run(capsys, "step", "toy-interpreter-runs-on-cpu")  # a live id: no notice
    assert (code, err) == (0, "")


def test_the_cli_says_a_broken_chain_in_one_line_with_status_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _use(monkeypatch, _stages({"id": "toy-a", "deprecated": True, "replacedBy": "toy-a"}))
    code, out, err = run(capsys, "stage", "toy-a")
    assert code == 1
    assert out == ""
    assert len(err.splitlines()) == 1
    assert "the replacements of stage 'toy-a' form a cycle: toy-a -> toy-a" in err
    assert "Traceback" not in err


def test_the_cli_shows_a_stage_with_no_live_replacement_as_retired(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _use(
        monkeypatch,
        _stages(
            {"id": "toy-a", "deprecated": True, "label": "old"},
            {"id": "toy-b", "deprecated": True, "label": "older", "replacedBy": "toy-a"},
        ),
    )
    code, out, err = run(capsys, "stage", "toy-a")
    assert code == 0
    assert err == "notice: stage 'toy-a' is deprecated and names no replacement; showing it\n"
    assert out.startswith("old (toy-a)\n")
    assert "retired; no live replacement\n" in out
    code, out, err = run(capsys, "stage", "toy-b")
    assert code == 0
    assert err == (
        "notice: stage 'toy-b' is deprecated and has no live replacement: toy-b -> toy-a ends at "
        "a deprecated stage that names none; showing 'toy-a'\n"
    )
    assert out.startswith("old (toy-a)\n")


def test_the_cli_passes_other_warnings_on() -> None:
    def find(name: str) -> str:
        warnings.warn(f"something else about {name}", UserWarning, stacklevel=2)
        return name

    with pytest.warns(UserWarning, match="something else about x"):
        assert _paths._resolved(find, "x") == "x"


# --- atlas check --------------------------------------------------------------------------------


def test_atlas_check_passes_retired_ids_with_live_replacements(
    retired_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["check", "--dataset", str(retired_folder), "--sources", str(retired_folder / "sources")]
    code, out, _ = run(capsys, *argv, "--today", TODAY)
    assert code == 0, out
    assert "no violations" in out.splitlines()[-1]


def test_atlas_check_reports_retired_ids_that_lead_nowhere_live(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_mini(tmp_path)
    (folder / "atlas.json").unlink()  # the Turtle alone is checked
    broken = (
        _PREFIXES
        + _retired_stage("toy-a", "a", 6, "toy-b")
        + _retired_stage("toy-b", "b", 7, "toy-a")
        + _retired_stage("toy-c", "c", 8, None)
    )
    (folder / "retired.ttl").write_text(broken, encoding="utf-8")
    code, out, _ = run(capsys, "check", "--dataset", str(folder), "--today", TODAY)
    assert code == 1
    assert "the replacements of stage 'toy-a' form a cycle: toy-a -> toy-b -> toy-a" in out
    assert "stage/toy-c: is deprecated but names no replacement (dcterms:isReplacedBy)" in out
