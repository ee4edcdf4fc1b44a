"""``atlas check`` of the shipped data reuses the report of an identical check, and only that.

Identical: the same bytes of the package's files and of its data, the same installed
distributions and Python, the same options and day. Anything else runs every check again.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import atlas
from atlas.checks import cached
from atlas.checks.report import CheckResult, Report
from atlas.cli import main
from atlas.data import _resources
from atlas.errors import Problem

DAY = dt.date(2026, 12, 3)
#: The options the check is run with when none is given (the day: DAY).
DEFAULTS = {
    "sources": None,
    "online": False,
    "dataset": None,
    "export_path": None,
    "max_age_days": 365,
    "today": DAY,
}


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The user's cache in a folder of the test's own, on (ATLAS_NO_CACHE unset)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ATLAS_NO_CACHE", raising=False)
    return tmp_path / "cache" / "execution-atlas" / "check"


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The checks that really ran (their options), each giving a small report, not the real one."""
    ran: list[dict[str, Any]] = []

    def run(options: dict[str, Any]) -> Report:
        ran.append(options)
        problem = Problem("warning", f"run {len(ran)}", file="dataset/x.ttl", line=3, code="x")
        return Report((CheckResult("dates", "ran", (problem,), "a note"),))

    monkeypatch.setattr(cached, "_run", run)
    return ran


def test_a_second_identical_check_reuses_the_report_of_the_first(
    cache: Path, runs: list[dict[str, Any]]
) -> None:
    first = cached.check(today=DAY)
    assert not first.reused
    assert [p.message for p in first.problems] == ["run 1"]
    assert runs == [DEFAULTS]
    assert len(list(cache.glob("*.json"))) == 1
    second = cached.check(today=DAY)
    assert len(runs) == 1  # not run again
    assert second.reused.endswith(" UTC")
    assert second.checks == first.checks
    assert second.to_json()["checks"] == first.to_json()["checks"]  # codes too
    assert second.exit_code == first.exit_code
    assert f"(1 check run at {second.reused}, their report reused (--no-cache runs them" in (
        second.summary()
    )
    assert second.to_json()["reused"] == second.reused
    assert first.to_json()["reused"] is None


def test_another_day_or_age_limit_runs_the_check_again(
    cache: Path, runs: list[dict[str, Any]]
) -> None:
    cached.check(today=DAY)
    cached.check(today=DAY + dt.timedelta(days=1))
    cached.check(today=DAY, max_age_days=30)
    assert len(runs) == 3
    cached.check(today=DAY, max_age_days=30)
    assert len(runs) == 3


def test_the_day_is_todays_utc_date_when_not_given(cache: Path, runs: list[dict[str, Any]]) -> None:
    cached.check()
    assert runs[0]["today"] == dt.datetime.now(dt.UTC).date()


def test_no_cache_and_its_variable_run_every_check_and_keep_nothing(
    cache: Path, runs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    cached.check(today=DAY, cache=False)
    monkeypatch.setenv("ATLAS_NO_CACHE", "1")
    cached.check(today=DAY)
    cached.check(today=DAY)
    assert len(runs) == 3
    assert not cache.exists()
    monkeypatch.setenv("ATLAS_NO_CACHE", "")  # empty: as unset
    cached.check(today=DAY)
    cached.check(today=DAY)
    assert len(runs) == 4


@pytest.mark.parametrize(
    "options",
    [
        {"sources": Path("sources")},
        {"online": True},
        {"dataset": Path("dataset")},
        {"export_path": Path("atlas.json")},
    ],
)
def test_checks_that_read_more_than_the_package_are_never_kept(
    cache: Path, runs: list[dict[str, Any]], options: dict[str, Any]
) -> None:
    cached.check(today=DAY, **options)
    cached.check(today=DAY, **options)
    assert len(runs) == 2
    assert runs[0] == DEFAULTS | options
    assert not cache.exists()


def test_a_check_that_could_not_run_is_not_kept(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[int] = []

    def failing(options: dict[str, Any]) -> Report:
        ran.append(1)
        return Report((CheckResult("export", "error", note="no room"),))

    monkeypatch.setattr(cached, "_run", failing)
    assert cached.check(today=DAY).exit_code == 3
    assert cached.check(today=DAY).exit_code == 3
    assert len(ran) == 2
    assert not list(cache.glob("*.json"))


def test_a_changed_data_file_or_code_file_runs_the_check_again(
    cache: Path,
    runs: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    cached.check(today=DAY)
    data = tmp_path / "dataset"
    shutil.copytree(Path(str(_resources.dataset_dir())), data)
    monkeypatch.setattr(_resources, "dataset_dir", lambda: data)
    cached.check(today=DAY)
    assert len(runs) == 1  # the same bytes
    with (data / "shared.ttl").open("a", encoding="utf-8") as turtle:
        turtle.write("\n")
    cached.check(today=DAY)
    assert len(runs) == 2
    code = tmp_path / "atlas"
    shutil.copytree(cached._package(), code, ignore=shutil.ignore_patterns("_data"))
    monkeypatch.setattr(cached, "_package", lambda: code)
    cached.check(today=DAY)
    assert len(runs) == 2  # the same code (byte-code is not hashed)
    shutil.rmtree(code / "__pycache__", ignore_errors=True)
    cached.check(today=DAY)
    assert len(runs) == 2
    with (code / "checks" / "dates.py").open("a", encoding="utf-8") as module:
        module.write("# changed\n")
    cached.check(today=DAY)
    assert len(runs) == 3


def test_another_installed_distribution_runs_the_check_again(
    cache: Path, runs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "site").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    cached.check(today=DAY)
    cached.check(today=DAY)
    assert len(runs) == 1
    (tmp_path / "site" / "pydantic-9.0.0.dist-info").mkdir()
    cached.check(today=DAY)
    assert len(runs) == 2  # another distribution
    (tmp_path / "site" / "pydantic-9.0.0.dist-info" / "RECORD").write_text("a")
    cached.check(today=DAY)
    assert len(runs) == 3  # installed again
    monkeypatch.syspath_prepend(str(tmp_path / "elsewhere"))
    cached.check(today=DAY)
    assert len(runs) == 4  # another entry of sys.path, holding nothing
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    cached.check(today=DAY)
    assert len(runs) == 5


def test_a_changed_schema_file_runs_the_check_again(
    cache: Path, runs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    schema = tmp_path / "schema"
    shutil.copytree(Path(str(_resources.schema_dir())), schema)
    monkeypatch.setattr(_resources, "schema_dir", lambda: schema)
    cached.check(today=DAY)
    cached.check(today=DAY)
    assert len(runs) == 1
    (schema / "added.txt").write_text("x")
    cached.check(today=DAY)
    assert len(runs) == 2


@pytest.mark.parametrize("odd", ["fifo", "dangling link", "linked folder", "unreadable"])
def test_what_cannot_be_hashed_runs_the_check_and_keeps_nothing(
    cache: Path,
    runs: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    odd: str,
) -> None:
    """A file that is no regular file, or a linked folder: no fingerprint, the check runs."""
    schema = tmp_path / "schema"
    shutil.copytree(Path(str(_resources.schema_dir())), schema)
    monkeypatch.setattr(_resources, "schema_dir", lambda: schema)
    assert cached.fingerprint(365, DAY) is not None
    if odd == "fifo":
        os.mkfifo(schema / "pipe")  # never waited on
    elif odd == "dangling link":
        (schema / ".#lock").symlink_to(tmp_path / "nowhere")
    elif odd == "linked folder":
        (tmp_path / "out").mkdir()
        (schema / "in").symlink_to(tmp_path / "out")
    else:
        monkeypatch.setattr(cached, "read_bytes", _refuse)
    assert cached.fingerprint(365, DAY) is None
    cached.check(today=DAY)
    cached.check(today=DAY)
    assert len(runs) == 2
    assert not cache.exists()


def _refuse(path: Path, limit: int) -> bytes:
    raise PermissionError(13, "Permission denied", str(path))


def test_no_home_folder_runs_the_check_without_a_cache(
    runs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ATLAS_NO_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert [p.message for p in cached.check(today=DAY).problems] == ["run 1"]
    cached.check(today=DAY)
    assert len(runs) == 2


def test_a_package_in_a_zip_file_keeps_nothing(
    cache: Path, runs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cached, "_package", lambda: Path("/nowhere/atlas.zip/atlas"))
    assert cached.fingerprint(365, DAY) is None
    cached.check(today=DAY)
    cached.check(today=DAY)
    assert len(runs) == 2
    assert not cache.exists()


@pytest.mark.parametrize(
    "spoil",
    [
        lambda _: "{not json",
        lambda kept: json.dumps(kept | {"format": 0}),
        lambda kept: json.dumps(kept | {"fingerprint": "0" * 64}),
        lambda kept: json.dumps(kept | {"report": {"checks": "no"}}),
        lambda kept: json.dumps({k: v for k, v in kept.items() if k != "ran"}),
        lambda kept: json.dumps(kept).replace('"warning"', '"oops"'),
        lambda kept: json.dumps(kept).replace('"line": 3', '"line": true'),
        lambda kept: json.dumps(kept).replace('"line": 3', '"line": "3"'),
        lambda kept: json.dumps(kept).replace('"status": "ran"', '"status": "maybe"'),
    ],
)
def test_a_spoiled_kept_report_is_passed_over_and_replaced(
    cache: Path, runs: list[dict[str, Any]], spoil: Callable[[dict[str, Any]], str]
) -> None:
    cached.check(today=DAY)
    (file,) = cache.glob("*.json")
    file.write_text(spoil(json.loads(file.read_text(encoding="utf-8"))), encoding="utf-8")
    again = cached.check(today=DAY)
    assert len(runs) == 2
    assert not again.reused
    assert cached.check(today=DAY).reused  # replaced by the new report
    assert len(runs) == 2


def test_an_oversized_or_irregular_kept_report_is_not_read(
    cache: Path, runs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    cached.check(today=DAY)
    limit = cached._MAX_BYTES
    monkeypatch.setattr(cached, "_MAX_BYTES", 10)
    cached.check(today=DAY)
    assert len(runs) == 2
    monkeypatch.setattr(cached, "_MAX_BYTES", limit)
    (file,) = cache.glob("*.json")
    file.unlink()
    os.mkfifo(file)  # never waited on
    cached.check(today=DAY)
    assert len(runs) == 3


def test_a_cache_that_cannot_be_written_is_passed_over(
    runs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    monkeypatch.delenv("ATLAS_NO_CACHE", raising=False)
    report = cached.check(today=DAY)
    assert [p.message for p in report.problems] == ["run 1"]
    cached.check(today=DAY)
    assert len(runs) == 2


def test_only_the_newest_reports_are_kept(cache: Path, runs: list[dict[str, Any]]) -> None:
    cache.mkdir(parents=True)
    for number in range(cached.KEPT + 3):
        old = cache / f"{number:064x}.json"
        old.write_text("{}")
        os.utime(old, ns=(number * 10**9, number * 10**9))
    cached.check(today=DAY)
    kept = sorted(f.name for f in cache.glob("*.json"))
    assert len(kept) == cached.KEPT
    newest_old = [f"{n:064x}.json" for n in range(cached.KEPT + 3)][-(cached.KEPT - 1) :]
    assert set(newest_old) < set(kept)  # the oldest went, the new report stayed
    assert cached.check(today=DAY).reused


def test_the_real_report_survives_the_cache_whole(cache: Path) -> None:
    """The shipped data's report, with its warnings and claim summaries, read back equal."""
    first = cached.check()
    assert first.claims
    second = cached.check()
    assert second.reused
    assert (second.checks, second.claims) == (first.checks, first.claims)
    assert second.to_json() | {"reused": None, "summary": ""} == first.to_json() | {"summary": ""}
    assert second.text().splitlines()[:-1] == first.text().splitlines()[:-1]
    assert Report.from_json(first.to_json()).to_json() == first.to_json()


def test_the_command_reuses_a_report_and_says_so_and_no_cache_runs_again(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["check"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    second = capsys.readouterr().out
    assert "their report reused" not in first
    assert "their report reused (--no-cache runs them again)" in second.splitlines()[-1]
    assert first.splitlines()[:-1] == second.splitlines()[:-1]
    assert main([*argv, "--no-cache"]) == 0
    assert capsys.readouterr().out == first
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reused"]


def test_the_package_is_the_folder_of_atlas() -> None:
    assert cached._package() == Path(atlas.__file__).parent
