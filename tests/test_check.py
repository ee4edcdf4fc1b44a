"""``atlas check`` and ``atlas.check()``: every check, the report, exit codes, no side effects."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

import atlas
from atlas.checks import shapes, verify
from atlas.cli import main
from atlas.data import _graph, _json, schema, turtle
from checkkit import MINI, copy_mini, no_network, snapshot

TODAY = dt.date(2026, 12, 4)
SHARED_SOURCES = Path(__file__).resolve().parents[2] / "shared" / "sources"


def _check(**options: object) -> verify.Report:
    defaults: dict[str, object] = {"dataset": MINI, "sources": MINI / "sources", "today": TODAY}
    return verify.check(**{**defaults, **options})  # type: ignore[arg-type]


def test_the_mini_dataset_passes_every_check() -> None:
    report = _check()
    assert report.exit_code == 0
    assert not report.violations
    statuses = {c.name: c.status for c in report.checks}
    assert statuses == {
        "turtle": "ran",
        "shapes": "ran",
        "consistency": "ran",
        "dates": "ran",
        "markup": "ran",
        "claims": "ran",
        "quotes": "ran",
        "online": "skipped",
        "export": "ran",
        "json-schema": "ran",
    }


def test_flagged_claims_are_warnings_with_their_ids_and_the_summary_counts_claims() -> None:
    report = _check()
    warnings = {(p.code, p.subject.rsplit("/", 1)[1]) for p in report.warnings if p.subject}
    assert warnings == {
        ("unsupported", claim)
        for claim in (
            "atlas-toy-1",
            "stage-toy-source-1",
            "stage-toy-compiler-1",
            "stage-toy-compiler-2",
            "stage-toy-cpu-1",
            "stage-toy-gpu-1",
            "technology-toy-c-1",
        )
    }
    assert all(p.file and p.file.endswith("toy.ttl") and p.line for p in report.warnings)
    # partial citations are counted, not listed one by one
    (summary,) = report.claims
    assert str(summary) == (
        "toy: 15 claims; 5 fully cited, 3 partially cited, 0 observed, 7 flagged unsupported"
    )
    assert f"  {summary}" in report.text().splitlines()


def test_old_check_dates_are_warnings_and_future_ones_violations() -> None:
    later = _check(today=TODAY + dt.timedelta(days=400))
    stale = [p for p in later.warnings if p.code == "stale-date"]
    assert len(stale) == 8  # the eight citations
    assert later.exit_code == 0
    assert "limit 365" in stale[0].message
    assert not [p for p in _check(max_age_days=10_000).warnings if p.code == "stale-date"]
    earlier = _check(today=dt.date(2026, 11, 1))
    future = {p.subject for p in earlier.violations if p.code == "future-date"}
    assert "https://w3id.org/execution-atlas/" in future  # the release date
    assert "https://w3id.org/execution-atlas/citation/spec-targets" in future
    assert earlier.exit_code == 1


def test_the_report_reads_well_and_ends_with_a_summary() -> None:
    text = _check().text()
    lines = text.splitlines()
    assert lines[0] == "Turtle files: ok (3 files)"
    assert "quotes online: skipped (no --online)" in lines
    assert "claim support: 7 warnings" in lines
    assert lines[-1] == (
        "atlas check: no violations, 7 warnings (9 checks run, skipped: quotes online)"
    )


def test_the_json_report_holds_every_problem(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check", "--dataset", str(MINI), "--today", "2026-12-03", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == data["exitCode"] == 0
    assert data["warnings"] == 7
    assert [c["atlas"] for c in data["claims"]] == ["toy"]
    assert {c["name"] for c in data["checks"]} >= {"shapes", "export", "json-schema"}
    problems = [p for c in data["checks"] for p in c["problems"]]
    assert {p["severity"] for p in problems} == {"warning"}
    assert all(set(p) >= {"message", "file", "line", "subject", "hint", "code"} for p in problems)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--sources", "no/such/folder"], "--sources 'no/such/folder' is not a folder"),
        (["--dataset", "no/such/folder"], "--dataset 'no/such/folder' is not a folder"),
        (["--export", "no/such/atlas.json"], "--export 'no/such/atlas.json' is not a file"),
    ],
)
def test_a_check_that_cannot_run_exits_3(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", *argv]) == 3
    out, err = capsys.readouterr()
    assert needle in err
    assert "Traceback" not in out + err
    assert "could not run" in out.splitlines()[-1]


def test_an_empty_dataset_folder_cannot_be_checked(tmp_path: Path) -> None:
    report = verify.check(dataset=tmp_path)
    assert report.exit_code == 3
    assert report.errors[0].note == "no Turtle files to check"


def test_a_bad_date_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["check", "--today", "2026-02-30"])
    assert stopped.value.code == 2
    assert "not a date (YYYY-MM-DD): '2026-02-30'" in capsys.readouterr().err


def test_a_negative_max_age_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["check", "--max-age", "-1"])
    assert stopped.value.code == 2
    assert "not a whole number of 0 or more: '-1'" in capsys.readouterr().err
    assert verify.check(max_age_days=-1).exit_code == 3  # the API says so too


def test_check_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = copy_mini(tmp_path)
    before = snapshot(folder)
    assert main(["check", "--dataset", str(folder), "--sources", str(folder / "sources")]) == 0
    assert snapshot(folder) == before


def test_an_explicit_export_is_checked_against_the_dataset(tmp_path: Path) -> None:
    folder = copy_mini(tmp_path)
    export = (folder / "atlas.json").rename(tmp_path / "elsewhere.json")
    assert verify.check(dataset=folder, today=TODAY).exit_code == 0  # no export: skipped
    skipped = next(
        c for c in verify.check(dataset=folder, today=TODAY).checks if c.name == "export"
    )
    assert skipped.status == "skipped"
    report = verify.check(dataset=folder, export_path=export, today=TODAY)
    assert next(c for c in report.checks if c.name == "export").status == "ran"
    assert report.exit_code == 0


def test_files_can_be_given_one_by_one() -> None:
    files = sorted(MINI.glob("*.ttl"))
    report = verify.check(files=files, export_path=MINI / "atlas.json", today=TODAY)
    assert report.exit_code == 0
    loaded = [turtle.TurtleFile.load(f, f.name) for f in files]
    assert verify.check(files=loaded, today=TODAY).exit_code == 0


def test_a_missing_snapshot_is_a_violation(tmp_path: Path) -> None:
    folder = copy_mini(tmp_path)
    (folder / "sources" / "toy-spec.txt").unlink()
    report = verify.check(dataset=folder, sources=folder / "sources", today=TODAY)
    missing = [p for p in report.violations if p.code == "snapshot-missing"]
    assert len(missing) == 4  # the four citations of the toy spec
    assert "'toy-spec.txt'" in missing[0].message


def test_a_stale_json_schema_file_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema, "dumps_schema", lambda: "{}\n")
    report = _check()
    (problem,) = next(c for c in report.checks if c.name == "json-schema").problems
    assert problem.file == "schema/atlas.schema.json"
    assert problem.message.startswith("stale")


def test_an_export_equal_to_a_fresh_one_is_not_validated_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_again(*_: object, **__: object) -> None:
        raise AssertionError("validated again")

    monkeypatch.setattr(schema, "schema_problems", not_again)
    monkeypatch.setattr(_json, "json_lines", not_again)
    report = _check()
    assert next(c for c in report.checks if c.name == "export").status == "ran"
    assert report.exit_code == 0


def test_an_unexpected_failure_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(shapes, "shacl_problems", broken)
    report = _check()
    shape_check = next(c for c in report.checks if c.name == "shapes")
    assert (shape_check.status, shape_check.note) == ("error", "RuntimeError: boom")
    assert report.exit_code == 3


def test_loading_parsing_and_offline_checking_never_touch_the_network() -> None:
    with no_network():
        atlas.path("compile", "gpu")
        turtle.read_turtle()
        turtle.dataset_graph()
        assert _check().exit_code == 0
        assert verify.check(today=TODAY).exit_code == 0


def test_the_network_guard_catches_a_connection() -> None:
    import socket  # noqa: PLC0415

    with (
        pytest.raises(AssertionError, match="network used"),
        no_network(),
        pytest.raises(AssertionError, match="network use in an offline test"),
    ):
        socket.create_connection(("127.0.0.1", 9), timeout=0.1)


def test_the_shipped_dataset_has_no_violations() -> None:
    report = verify.check(today=TODAY)
    assert report.exit_code == 0, report.text()
    assert {c.name for c in report.checks if c.status == "ran"} >= {
        "turtle",
        "shapes",
        "consistency",
        "dates",
        "export",
        "json-schema",
    }


@pytest.mark.skipif(not SHARED_SOURCES.is_dir(), reason=f"no snapshots at {SHARED_SOURCES}")
def test_the_shipped_quotes_are_in_their_snapshots() -> None:
    report = verify.check(sources=SHARED_SOURCES, today=TODAY)
    quotes = next(c for c in report.checks if c.name == "quotes")
    assert quotes.status == "ran"
    assert not quotes.problems, report.text()


def test_the_shipped_data_meets_the_shapes_read_either_way() -> None:
    # speed is measured by benchmarks/run.py, not asserted here
    assert shapes.shacl_problems(turtle.dataset_graph()) == []  # an rdflib graph
    parsed = _graph.parse(turtle.shipped_turtle())
    assert shapes.shacl_problems(parsed) == []  # the files as parsed by atlas check


def test_the_shapes_engine_runs_before_the_graph_is_built_and_its_failure_is_a_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine has the memory to itself (the graph is empty while it runs); when it fails,
    the shapes check says why and the other checks still run."""
    sizes: list[int] = []
    real_add = _graph.Graph.add

    def add(self: _graph.Graph, index: int, quads: object) -> None:
        real_add(self, index, quads)  # type: ignore[arg-type]
        sizes.append(len(self.subjects))

    def engine(n_triples: Path) -> list[dict[str, object]]:
        assert isinstance(n_triples, Path)  # streamed from a file, not held as text
        assert not sizes  # no file indexed yet
        raise RuntimeError("the engine ran out of memory")

    monkeypatch.setattr(_graph.Graph, "add", add)
    monkeypatch.setattr(shapes, "shacl_report", engine)
    report = _check()
    by_name = {c.name: c for c in report.checks}
    assert by_name["shapes"].status == "error"
    assert by_name["shapes"].note == "RuntimeError: the engine ran out of memory"
    assert by_name["consistency"].status == "ran"
    assert sizes  # the graph was built after the engine
    assert report.exit_code == 3


def test_no_room_for_the_temporary_triples_is_a_check_that_could_not_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import tempfile  # noqa: PLC0415

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))
    report = _check()
    (turtle_check,) = report.checks
    assert turtle_check.status == "error"
    assert turtle_check.note.startswith(
        f"could not write the triples to a temporary file in {str(tmp_path / 'gone')!r}"
    )
    assert "set TMPDIR" in turtle_check.note
    assert report.exit_code == 3


def test_the_texts_are_let_go_once_parsed_and_read_again_to_place_problems(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Held to the end they cost the check its memory goal at 1M; a problem still gets its line,
    and a file gone meanwhile leaves the problem without one, not a failure."""
    from atlas.checks import _turtlecheck  # noqa: PLC0415

    made: list[_turtlecheck.Parsed] = []
    real = _turtlecheck.Parsed.__init__

    def keep(self: _turtlecheck.Parsed, *args: object) -> None:
        real(self, *args)  # type: ignore[arg-type]
        made.append(self)
        assert {f.text for f in self.graph.files} == {""}  # every text let go once parsed

    monkeypatch.setattr(_turtlecheck.Parsed, "__init__", keep)
    placed = _check().warnings
    assert placed
    assert all(p.file and p.file.endswith("toy.ttl") and p.line for p in placed)
    assert not made[0].graph.subjects  # the triples went too, once the document was read
    folder = copy_mini(tmp_path)
    original = _turtlecheck.Parsed.forget_triples

    def gone(self: _turtlecheck.Parsed) -> None:
        original(self)
        (folder / "toy.ttl").unlink()  # the file goes before the problems are placed

    monkeypatch.setattr(_turtlecheck.Parsed, "forget_triples", gone)
    unplaced = _check(dataset=folder, sources=folder / "sources").warnings
    assert sorted((p.subject, p.message) for p in unplaced) == sorted(
        (p.subject, p.message) for p in placed
    )
    assert all(p.file and p.file.endswith("toy.ttl") and p.line is None for p in unplaced)
