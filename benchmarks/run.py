"""Benchmarks of the package, measured side by side in one run; a Markdown table per section.

    python benchmarks/run.py                                  # every section but the scale-out
    python benchmarks/run.py --scale-out                      # the full run, scale-out included
    python benchmarks/run.py --sizes 10k --check-sizes 10k --repeat 3 --load-queries 50  # smoke
    python benchmarks/run.py --sizes 1M,10M --check-sizes 1M,10M --check-pairs 1 \\
        --skip startup,warm,sparql,serve,site,witness          # the 10M point

Every figure with a baseline is a ratio measured in interleaved pairs (A, B, A, B...: whole
processes for start-up figures, alternating batches for in-process ones), given as the median of
the per-pair ratios with their min-max, beside the median (min-max) of each side; the load
average is recorded before and after each section, above its table. Sections (``--skip`` takes
their names): ``startup`` (whole processes), ``warm`` (``atlas.path()`` as users call it),
``sparql`` (pyoxigraph against rdflib's prepared query), ``synthetic`` (the growth table: load,
memory, path query and ``atlas check`` against a plain load, at each size), ``scale-out`` (with
``--scale-out``: a set published into an Oxigraph server, the named queries there and in
process), ``serve`` (the ``atlas serve`` load and abuse tests), ``site`` (the weight of the view
pages) and ``witness`` (``atlas witness`` against a plain torch script). Nothing here asserts:
it measures and reports.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import growth  # noqa: E402
import loadtest  # noqa: E402
import pages  # noqa: E402
import scaleout  # noqa: E402
import startup  # noqa: E402
import warm  # noqa: E402
import witness  # noqa: E402
from _measure import (  # noqa: E402
    ATLAS,
    PYTHON,
    Line,
    Row,
    Section,
    Spread,
    fmt_time,
    interleave,
    machine,
    process_seconds,
    run_section,
    verdict,
)

SECTIONS = ("startup", "warm", "sparql", "synthetic", "scale-out", "serve", "site", "witness")


def byte_compile() -> None:
    """Byte-compile the package, as installing a wheel does.

    An editable install leaves the modules uncompiled, and where ``PYTHONDONTWRITEBYTECODE`` is
    set (as on our machines) every process would compile them again, a cost users never pay.
    """
    import compileall  # noqa: PLC0415

    import atlas  # noqa: PLC0415

    folder = Path(atlas.__file__).parent
    if not compileall.compile_dir(folder, quiet=1):
        print(f"warning: could not byte-compile {folder}", file=sys.stderr)


def load_test(clients: int, queries: int, workers: int) -> list[Row]:
    """``atlas serve`` on loopback under concurrent clients (no baseline: absolute figures)."""
    result = loadtest.run(clients, queries, workers)
    return [
        (
            f"serve: {clients} clients x {queries} queries ({workers} workers)",
            (
                f"{result.throughput:.0f} q/s, p50 {fmt_time(result.percentile(50))}, "
                f"p99 {fmt_time(result.percentile(99))}, {len(result.errors)} errors"
            ),
            "0 errors",
            verdict(not result.errors),
        )
    ]


def abuse_test(workers: int) -> list[Row]:
    """``atlas serve`` under abuse: idle connections, and clients hammering expensive queries."""
    result = loadtest.abuse(workers=workers)
    held = result.idle_opened - result.idle_refused
    hammered = Counter(result.expensive_statuses)
    asks = Spread(result.ask_latencies)
    return [
        (
            f"serve: {result.idle_opened} idle connections, one address (cap 64)",
            (
                f"{held} held, {result.idle_refused} refused with 503 at once, "
                f"server {'answering' if result.answered_while_idle else 'NOT answering'}"
            ),
            "still answering",
            verdict(result.answered_while_idle),
        ),
        (
            "serve: ASK {} while 2 clients hammer 5 s queries",
            f"{asks.show()}, hammer answers {dict(sorted(hammered.items()))}",
            "< 100 ms",
            verdict(result.ask_median() < 0.1),
        ),
    ]


def witness_overhead(pairs: int) -> list[Line]:
    """``atlas witness`` on the CPU against a plain torch script doing the same work, in pairs."""
    command = [ATLAS, "witness", "--mode", "all", "--device", "cpu"]
    found = interleave(
        process_seconds(command), process_seconds([PYTHON, "-c", witness.PLAIN]), pairs
    )
    median = found.ratios.median
    return [
        (
            "`atlas witness --mode all --device cpu` / plain torch script",
            found.show("witness", "plain"),
            f"<= {witness.GOAL}x",
            verdict(median <= witness.GOAL),
        ),
        (
            "Both run the witness's tiny model on the CPU, eager and under torch.compile, each "
            "in a fresh process with fresh Inductor, Triton and temporary folders "
            "(benchmarks/witness.py)."
        ),
    ]


def parse_args() -> argparse.Namespace:
    """The options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--repeat", type=int, default=11, help="pairs or batches per figure (default 11)")
    add("--sizes", default="10k,100k,1M", help="synthetic sizes (default 10k,100k,1M; also 10M)")
    add("--check-sizes", default="10k,100k,1M", help="sizes to run atlas check on")
    add(
        "--check-pairs",
        type=int,
        default=3,
        help=f"check/load pairs at 1M and above (default 3; {growth.SMALL_PAIRS} below)",
    )
    add("--check-timeout", type=int, default=600, help="seconds per check (default 600)")
    add("--scale-out", action="store_true", help="publish a set into an Oxigraph server")
    add("--scale-out-size", default="1M", help="the set published (default 1M)")
    add("--load-clients", type=int, default=8)
    add("--load-queries", type=int, default=1000, help="queries per client")
    add("--load-workers", type=int, default=3)
    add("--witness-pairs", type=int, default=3, help="witness/plain pairs (default 3)")
    add("--workdir", type=Path, default=None, help="where to write the sets (default: a temp dir)")
    add("--skip", default="", help=f"sections to skip: {','.join(SECTIONS)}")
    return parser.parse_args()


def run(args: argparse.Namespace, workdir: Path) -> list[Section]:
    """Every section asked for, in order; each prints its table when done."""
    skip = set(filter(None, args.skip.split(",")))
    unknown = skip - set(SECTIONS)
    if unknown:
        sys.exit(f"unknown section(s) in --skip: {', '.join(sorted(unknown))}")
    options = growth.Options(
        sizes=[s for s in args.sizes.split(",") if s],
        check_sizes={s for s in args.check_sizes.split(",") if s},
        workdir=workdir,
        timeout=args.check_timeout,
        pairs=args.check_pairs,
    )
    plan = {
        "startup": lambda: startup.startup(args.repeat),
        "warm": lambda: warm.warm_path(args.repeat),
        "sparql": lambda: warm.warm_sparql(args.repeat),
        "synthetic": lambda: growth.synthetic_sets(options),
        "scale-out": lambda: scaleout.scale_out(args.scale_out_size, workdir, args.repeat),
        "serve": lambda: [
            *load_test(args.load_clients, args.load_queries, args.load_workers),
            *abuse_test(args.load_workers),
        ],
        "site": pages.site_weight,
        "witness": lambda: witness_overhead(args.witness_pairs),
    }
    if not args.scale_out:
        skip.add("scale-out")
    return [run_section(name, plan[name]) for name in SECTIONS if name not in skip]  # type: ignore[arg-type]


def main() -> None:
    args = parse_args()
    print(f"command: python benchmarks/run.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"machine: {machine()}\n", flush=True)
    byte_compile()
    started = time.perf_counter()
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        sections = run(args, args.workdir.resolve())
    else:
        with tempfile.TemporaryDirectory(prefix="atlas-bench-") as tmp:
            sections = run(args, Path(tmp))
    one, five, fifteen = os.getloadavg()
    print(
        f"(run took {time.perf_counter() - started:.0f} s; load average now {one:.2f}, "
        f"{five:.2f}, {fifteen:.2f})"
    )
    if any(s.failed for s in sections):
        sys.exit(1)


if __name__ == "__main__":
    main()
