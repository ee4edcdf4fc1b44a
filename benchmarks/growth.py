"""The growth table: synthetic atlas sets of 10k, 100k, 1M (and, asked for, 10M) triples.

Per size, in fresh processes: the load (time, peak memory, the path query per atlas), at 1M the
store's floor beside it, and ``atlas check`` against a plain pyoxigraph load of the same files
(``pyoxigraph.Store().load`` of each Turtle file), in interleaved pairs: check, load, check,
load... Before ``atlas check`` runs at 10M or more, its peak memory is estimated from the largest
smaller size checked in the same run (scaled by the triples) and compared with the machine's
MemAvailable; when it would not fit, the row says so with those figures instead of running it.

Run as a script, this module is the child that loads a set (``--child-load``) or measures the
store's floor (``--child-floor``); ``benchmarks/run.py`` starts it.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph
import synthetic
from _measure import (
    ATLAS,
    PYTHON,
    Line,
    Measured,
    Pairs,
    Row,
    Spread,
    child_json,
    fmt_time,
    measured,
    mem_available_mib,
    peak_kib,
    samples,
    verdict,
)
from startup import path_bindings

from atlas.models._iri import BASE_IRI
from atlas.query import store
from atlas.query._results import Solutions

__all__ = [
    "ESTIMATE_MARGIN",
    "Built",
    "ensure_set",
    "estimate_check",
    "synthetic_sets",
]

MILLION = 1_000_000
ESTIMATE_MARGIN = 1.25  # check runs at 10M only if MemAvailable >= this x the estimated peak
SMALL_PAIRS = 5  # check/load pairs below 1M, where a pair takes seconds

# The baseline of `atlas check`: every Turtle file of the folder loaded into one store.
LOAD_SCRIPT = """
import pathlib, sys, pyoxigraph
store = pyoxigraph.Store()
for file in sorted(pathlib.Path(sys.argv[1]).glob("*.ttl")):
    store.load(path=file, format=pyoxigraph.RdfFormat.TURTLE, base_iri=sys.argv[2])
print(len(store))
"""


@dataclass(frozen=True)
class Built:
    """A synthetic set written in this run: its folder, size, copies and generation time."""

    folder: Path
    triples: int
    copies: int
    seconds: float


_BUILT: dict[tuple[str, Path], Built] = {}


def ensure_set(size: str, workdir: Path) -> Built:
    """The set of ``size`` under ``workdir``, generated once per run (reused by later sections)."""
    key = (size, workdir)
    if key not in _BUILT:
        folder = workdir / f"atlas-{size}"
        started = time.perf_counter()
        triples, copies = synthetic.generate(synthetic.parse_size(size), folder)
        _BUILT[key] = Built(folder, triples, copies, time.perf_counter() - started)
    return _BUILT[key]


# --- children --------------------------------------------------------------------------------


def child_load(folder: Path, copies: int, *, dump: bool) -> None:
    """(In a fresh process) load a set, time path queries on three copies, print JSON.

    With ``dump``, also write the loaded set as one N-Triples file, ``floor.nt``, for
    :func:`child_floor`.
    """
    before = peak_kib()
    started = time.perf_counter()
    target = store.load_store(sorted(folder.glob("*.ttl")))
    loaded = time.perf_counter() - started
    peak = peak_kib()
    engine = store.Local(target)
    per_atlas, raw = [], []
    text = store.named_query("path").text
    for copy in sorted({0, copies // 2, copies - 1}):
        bindings = path_bindings(copy)
        result = store.run("path", bindings, engine=engine)
        assert isinstance(result, Solutions)
        assert len(result.rows) == 12, (copy, len(result.rows))
        query = functools.partial(store.run, "path", bindings, engine=engine)
        per_atlas.append(samples(query, 20, 5).median)
        terms = {k: pyoxigraph.NamedNode(v) for k, v in bindings.items()}
        raw.append(
            samples(functools.partial(store.execute, text, terms, target=target), 20, 5).median
        )
    if dump:
        target.dump(
            output=folder / "floor.nt",
            format=pyoxigraph.RdfFormat.N_TRIPLES,
            from_graph=pyoxigraph.DefaultGraph(),
        )
    figures = {
        "triples": len(target),
        "load": loaded,
        "peak_mib": peak / 1024,
        "base_mib": before / 1024,
        "path": statistics.median(per_atlas),
        "raw": statistics.median(raw),
    }
    print(json.dumps(figures))


def child_floor(folder: Path) -> None:
    """(In a fresh process) what the store allows, beside the loader; prints JSON.

    ``floor``: ``floor.nt`` loaded without validation into one store, the cheapest way in;
    ``split``: the Turtle files loaded in two threads into two separate stores.
    """
    nt = folder / "floor.nt"
    started = time.perf_counter()
    one = pyoxigraph.Store()
    one.load(path=nt, format=pyoxigraph.RdfFormat.N_TRIPLES, lenient=True)
    floor = time.perf_counter() - started
    triples = len(one)
    del one
    files = sorted(folder.glob("*.ttl"))
    started = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:  # Store.load releases the GIL
        halves = list(pool.map(store.load_store, (files[::2], files[1::2])))
    split = time.perf_counter() - started
    assert sum(map(len, halves)) >= triples  # shared schemes are in both halves
    print(json.dumps({"floor": floor, "split": split}))


def _child(*args: str) -> dict[str, float]:
    """Run this module as a child with ``args``; the JSON it prints."""
    return child_json(__file__, *args)  # type: ignore[no-any-return]


# --- rows ------------------------------------------------------------------------------------


def load_rows(size: str, built: Built) -> list[Row]:
    """Load the set in a fresh process: time, peak memory, path query per atlas (and the floor)."""
    n = synthetic.parse_size(size)
    floor = MILLION <= n < 10 * MILLION
    args = ["--child-load", str(built.folder), "--copies", str(built.copies)]
    figures = _child(*args, *(["--dump"] if floor else []))
    at_goal = n == MILLION
    rows: list[Row] = [
        (
            f"{size}: load {figures['triples']:,} triples ({built.copies} atlas copies)",
            (
                f"{fmt_time(figures['load'])}, peak {figures['peak_mib']:.0f} MiB "
                f"(python+pyoxigraph alone {figures['base_mib']:.0f})"
            ),
            "<= 3 s, <= 600 MiB at 1M" if at_goal else "",
            verdict(figures["load"] <= 3 and figures["peak_mib"] <= 600) if at_goal else "",
        ),
        (
            f"{size}: path query per atlas (path.rq; with reachability)",
            f"{fmt_time(figures['raw'])}; {fmt_time(figures['path'])}",
            "<= 2 ms, flat",
            verdict(figures["path"] <= 2e-3),
        ),
    ]
    if floor:
        rows += floor_rows(size, built.folder)
    return rows


def floor_rows(size: str, folder: Path) -> list[Row]:
    """What the store allows at this size, beside the loader: see :func:`child_floor`."""
    try:  # floor.nt was written by child_load
        figures = _child("--child-floor", str(folder))
    finally:
        (folder / "floor.nt").unlink(missing_ok=True)
    return [
        (
            f"{size}:   floor: one N-Triples file, unvalidated, one store",
            fmt_time(figures["floor"]),
            "",
            "",
        ),
        (
            f"{size}:   Turtle in 2 threads into 2 separate stores",
            f"{fmt_time(figures['split'])} (not one queryable store)",
            "",
            "",
        ),
    ]


def check_pairs(folder: Path, pairs: int, timeout: float) -> list[tuple[Measured, Measured]]:
    """``atlas check`` and the plain load, in turn, ``pairs`` times (stops after a timeout)."""
    check = [ATLAS, "check", "--dataset", str(folder)]
    load = [PYTHON, "-c", LOAD_SCRIPT, str(folder), BASE_IRI]
    done: list[tuple[Measured, Measured]] = []
    for _ in range(pairs):
        done.append((measured(check, timeout), measured(load, timeout)))
        if done[-1][0].exit is None:
            break
    return done


def check_rows(size: str, done: list[tuple[Measured, Measured]], timeout: float) -> list[Row]:
    """The check/load ratio and the peak memory of both, from the pairs."""
    at_goal = synthetic.parse_size(size) == MILLION  # the goals are set at 1M
    stopped = [c for c, _ in done if c.exit is None]
    if stopped:
        return [
            (
                f"{size}: `atlas check`",
                f"> {timeout:.0f} s (stopped)",
                "<= 10x a plain load at 1M",
                verdict(ok=False),
            )
        ]
    pairs = Pairs(tuple(c.seconds for c, _ in done), tuple(x.seconds for _, x in done))
    exits = sorted({c.exit for c, _ in done if c.exit is not None})
    peaks = Spread(tuple(c.peak_mib for c, _ in done))
    base = Spread(tuple(x.peak_mib for _, x in done))
    ratio = pairs.ratios.median
    clean = exits == [0]  # 1: problems reported, or a failure: no measure of a check
    said = "check exit 0" if clean else f"check exit {', '.join(map(str, exits))} (NOT CLEAN)"
    return [
        (
            f"{size}: `atlas check` / plain pyoxigraph load",
            f"{pairs.show('check', 'load')}; {said}",
            "<= 10x at 1M" if at_goal else "",
            verdict(ratio <= 10 and clean) if at_goal or not clean else "",
        ),
        (
            f"{size}: `atlas check` peak memory",
            f"{peaks.show(_mib)}; plain load {base.show(_mib)}",
            "<= 1 GiB at 1M" if at_goal else "",
            verdict(peaks.high <= 1024 and clean) if at_goal or not clean else "",
        ),
    ]


def _mib(value: float) -> str:
    return f"{value:.0f} MiB"


def estimate_check(
    triples: int, measured_peaks: dict[int, float], available_mib: float
) -> tuple[bool, str]:
    """Would ``atlas check`` of ``triples`` fit in memory? (fits, the reason in figures).

    The peak is scaled from the largest smaller set checked (``measured_peaks``: triples ->
    median peak MiB); it fits when MemAvailable is at least :data:`ESTIMATE_MARGIN` times it.

    >>> estimate_check(10_000_000, {1_000_000: 2300.0}, 16_000.0)[0]
    False
    >>> estimate_check(10_000_000, {1_000_000: 900.0}, 16_000.0)[0]
    True
    """
    smaller = [n for n in measured_peaks if n < triples]
    if not smaller:
        return False, (
            "not run: no smaller set was checked in this run to estimate its memory from "
            "(add 1M to --sizes and --check-sizes)"
        )
    base = max(smaller)
    scale = triples / base
    estimate = measured_peaks[base] * scale
    figures = (
        f"estimated peak {estimate / 1024:.1f} GiB ({base:,}-triple check peak "
        f"{measured_peaks[base]:.0f} MiB x {scale:.1f}); MemAvailable {available_mib / 1024:.1f} "
        f"GiB (runs if >= {ESTIMATE_MARGIN}x the estimate)"
    )
    if available_mib >= ESTIMATE_MARGIN * estimate:
        return True, figures
    return False, f"not run: would not fit: {figures}"


@dataclass(frozen=True)
class Options:
    """What the growth section is asked for."""

    sizes: list[str]
    check_sizes: set[str]
    workdir: Path
    timeout: float
    pairs: int  # check/load pairs at 1M and above


def synthetic_sets(options: Options) -> list[Line]:
    """Generate each size, then load, query and check it in fresh processes."""
    lines: list[Line] = []
    peaks: dict[int, float] = {}  # triples checked -> median peak MiB
    for size in sorted(options.sizes, key=synthetic.parse_size):
        built = ensure_set(size, options.workdir)
        lines += load_rows(size, built)
        if size in options.check_sizes:
            n = synthetic.parse_size(size)
            fits, reason = True, ""
            if n >= 10 * MILLION:
                fits, reason = estimate_check(built.triples, peaks, mem_available_mib())
            if fits:
                pairs = options.pairs if n >= MILLION else SMALL_PAIRS
                done = check_pairs(built.folder, pairs, options.timeout)
                lines += check_rows(size, done, options.timeout)
                if done and done[-1][0].exit is not None:
                    peaks[built.triples] = statistics.median(c.peak_mib for c, _ in done)
            else:
                lines.append((f"{size}: `atlas check`", reason, "", ""))
            if reason and fits:
                lines.append(f"{size}: `atlas check` ran: {reason}")
        lines.append((f"{size}: (generating the set)", fmt_time(built.seconds), "", ""))
    lines.append(
        "Each size loads in a fresh process (peak memory as VmHWM); the path query is timed on "
        "the first, middle and last copy of the PyTorch atlas. `atlas check --dataset DIR` and "
        "the plain load (`pyoxigraph.Store().load` of each Turtle file) run in turn, each from a "
        "lean parent that reports its wall time and peak RSS; the ratio is per pair."
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description="a child of benchmarks/run.py")
    parser.add_argument("--child-load", type=Path)
    parser.add_argument("--dump", action="store_true")
    parser.add_argument("--child-floor", type=Path)
    parser.add_argument("--copies", type=int, default=1)
    args = parser.parse_args()
    if args.child_load:
        child_load(args.child_load, args.copies, dump=args.dump)
    elif args.child_floor:
        child_floor(args.child_floor)
    else:
        parser.error("give --child-load DIR or --child-floor DIR")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
