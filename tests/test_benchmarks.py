"""The benchmark's own arithmetic and bookkeeping (benchmarks/): never its timings.

Interleaved pairs give per-pair ratios (not a ratio of medians); the 10M check is refused with
its figures when the memory estimate does not fit; clearing the memos of ``atlas.path()`` makes
the next call compute afresh while the loaded index stays; a section records the load average
and turns a failure into a row.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
if not BENCHMARKS.is_dir():  # the benchmarks ship with the checkout, not the wheel
    pytest.skip("no benchmarks/ folder beside tests/", allow_module_level=True)
sys.path.insert(0, str(BENCHMARKS))

import _measure  # noqa: E402
import growth  # noqa: E402
import scaleout  # noqa: E402
import startup  # noqa: E402
import synthetic  # noqa: E402
import warm  # noqa: E402

import atlas  # noqa: E402
from atlas.query import _selection, paths, store  # noqa: E402


def test_interleave_alternates_and_takes_the_ratio_of_each_pair() -> None:
    calls: list[str] = []
    a_times = iter([2.0, 4.0, 6.0])
    b_times = iter([1.0, 1.0, 3.0])

    def a() -> float:
        calls.append("a")
        return next(a_times)

    def b() -> float:
        calls.append("b")
        return next(b_times)

    pairs = _measure.interleave(a, b, 3)
    assert calls == ["a", "b", "a", "b", "a", "b"]
    assert pairs.ratios.values == (2.0, 4.0, 2.0)
    assert (pairs.ratios.median, pairs.ratios.low, pairs.ratios.high) == (2.0, 2.0, 4.0)
    # the ratio of the medians would be 4.0 / 1.0: the pairs say 2.0
    assert pairs.show("A", "B", fmt=lambda x: f"{x:g}").startswith("2.00x (pairs 2.00x-4.00x); ")
    assert "A 4 (2-6), B 1 (1-3); 3 pairs" in pairs.show("A", "B", fmt=lambda x: f"{x:g}")


def test_check_at_10m_is_refused_with_its_figures_when_it_would_not_fit() -> None:
    fits, reason = growth.estimate_check(10_000_000, {1_000_000: 2048.0}, 16 * 1024.0)
    assert not fits
    assert reason.startswith("not run: would not fit")
    assert "estimated peak 20.0 GiB" in reason
    assert "check peak 2048 MiB x 10.0" in reason
    assert "MemAvailable 16.0 GiB" in reason


def test_check_at_10m_runs_when_the_estimate_fits_with_its_margin() -> None:
    fits, _ = growth.estimate_check(10_000_000, {100_000: 90.0, 1_000_000: 900.0}, 12_000.0)
    assert fits  # 9,000 MiB x 1.25 <= 12,000 MiB; scaled from 1M, the largest smaller check
    fits, _ = growth.estimate_check(10_000_000, {1_000_000: 1000.0}, 12_000.0)
    assert not fits  # 10,000 MiB x 1.25 > 12,000 MiB


def test_check_at_10m_needs_a_smaller_check_to_estimate_from() -> None:
    fits, reason = growth.estimate_check(10_000_000, {}, 1e9)
    assert not fits
    assert "no smaller set was checked" in reason
    fits, _ = growth.estimate_check(10_000_000, {20_000_000: 1.0}, 1e9)
    assert not fits


def test_clearing_the_memos_makes_the_public_call_compute_afresh() -> None:
    first = atlas.path(*warm.CALL)
    assert atlas.path(*warm.CALL) is first  # memoised
    index = paths.index()
    memos = warm.path_memos()
    assert any(name.startswith("Index._calls") for name in memos.names)
    assert any(name.startswith("AtlasIndex.paths of 'pytorch'") for name in memos.names)
    memos.clear()
    again = atlas.path(*warm.CALL)
    assert again is not first
    assert again == first
    assert paths.index() is index  # the loaded index is kept


def test_a_new_functools_cache_on_the_way_is_found_and_cleared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    atlas.path(*warm.CALL)
    probe = functools.cache(lambda word: word.casefold())
    monkeypatch.setattr(_selection, "_probe", probe, raising=False)
    probe("GPU")
    memos = warm.path_memos()
    assert "atlas.query._selection._probe (functools cache)" in memos.names
    assert not any(".index " in name or ".load " in name for name in memos.names)
    memos.clear()
    assert probe.cache_info().currsize == 0


def test_a_section_records_the_load_average_and_turns_a_failure_into_a_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken() -> list[_measure.Line]:
        raise ValueError("no data")

    section = _measure.run_section("demo", broken)
    out = capsys.readouterr().out
    assert section.failed
    assert section.lines == [("demo: FAILED", "ValueError: no data", "", "MISSED")]
    assert out.startswith("### demo\n\nload average (1, 5, 15 min): ")
    assert " before, " in out
    assert " after; " in out
    assert "| demo: FAILED | ValueError: no data |" in out


def test_a_section_prints_its_notes_under_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    section = _measure.run_section("demo", lambda: [("a", "1", "", ""), "a note"])
    assert not section.failed
    out = capsys.readouterr().out
    assert out.index("| a ") < out.index("- a note")


def test_the_startup_table_measures_check_against_bare_python() -> None:
    rows = {r.what: r for r in startup.ratios()}
    check = rows[
        "`atlas check` (shipped data, no options: an identical check's report reused) / bare"
    ]
    assert check.a[1:] == ["check"]
    assert check.b == [sys.executable, "-c", "pass"]
    assert check.goal == 12
    every = rows["  `atlas check --no-cache` (every check run) / bare"]
    assert every.a[1:] == ["check", "--no-cache"]
    assert every.goal is None
    assert rows["cold `atlas path` / rdflib parse + SPARQL script"].goal == 0.3


def test_the_floor_of_a_check_validates_the_export_and_has_no_goal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    floor = next(r for r in startup.ratios() if r.what.strip().startswith("floor:"))
    assert floor.goal is None
    assert subprocess.run(floor.a, check=False).returncode == 0  # it validates the export
    monkeypatch.setattr(startup, "ratios", lambda: [floor])
    monkeypatch.setattr(startup, "interleave", lambda *_: _measure.Pairs((0.3,), (0.01,)))
    rows = [r for r in startup.startup(1) if isinstance(r, tuple)]
    assert [r[0] for r in rows][-1] == floor.what
    assert rows[-1][2:] == ("", "")  # no goal, no verdict


def test_the_startup_checks_keep_their_reports_in_a_cache_of_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cache is the run's own folder, on (ATLAS_NO_CACHE unset); the caller's env is kept."""
    monkeypatch.setenv("XDG_CACHE_HOME", "/nowhere")
    monkeypatch.setenv("ATLAS_NO_CACHE", "1")
    seen = (
        "import os, sys; cache = os.environ['XDG_CACHE_HOME']; "
        "sys.exit(0 if 'atlas-bench-cache-' in cache and os.path.isdir(cache) "
        "and 'ATLAS_NO_CACHE' not in os.environ else 1)"
    )
    row = startup.Ratio(
        "env", "env", [sys.executable, "-c", seen], "bare", [sys.executable, "-c", "pass"], 1
    )
    monkeypatch.setattr(startup, "ratios", lambda: [row])
    monkeypatch.setattr(startup, "interleave", lambda *_: _measure.Pairs((0.3,), (0.3,)))
    rows = [r for r in startup.startup(1) if isinstance(r, tuple)]
    assert rows[-1][0] == "env"
    assert "not measured" not in rows[-1][1]
    assert os.environ["XDG_CACHE_HOME"] == "/nowhere"
    assert os.environ["ATLAS_NO_CACHE"] == "1"


def test_the_scale_out_says_so_when_there_is_no_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(scaleout, "oxigraph_binary", lambda: None)
    lines = scaleout.scale_out("10k", tmp_path, 3)
    assert len(lines) == 1
    assert "not run: no Oxigraph server binary" in lines[0][1]
    assert not list(tmp_path.iterdir())  # nothing generated


def test_the_scale_out_bindings_name_terms_of_the_copy_they_ask(tmp_path: Path) -> None:
    _, copies = synthetic.generate(synthetic.parse_size("10k"), tmp_path)
    assert copies >= 2
    graph = store.load_store(sorted(tmp_path.glob("*.ttl")))
    for copy in (0, copies - 1):
        for name, bindings in scaleout.named_bindings(copy).items():
            for key, term in bindings.items():
                assert any(graph.quads_for_pattern(term, None, None)), (copy, name, key, term)
            suffixed = all(f"-k{copy}" in term.value for term in bindings.values())
            assert suffixed == (copy != 0), (copy, name)
