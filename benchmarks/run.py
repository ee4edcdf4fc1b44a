"""Benchmarks of issue 5, measured side by side in one run; prints a table of medians and ratios.

    python benchmarks/run.py                      # everything (a few minutes on 2 cores)
    python benchmarks/run.py --sizes 10k,100k --check-sizes 10k --load-queries 200

Sections: start-up (whole processes), warm ``atlas.path()``, warm SPARQL (pyoxigraph against
rdflib with a prepared query), synthetic atlas sets (load time, peak memory, path query per atlas,
``atlas check``), the ``atlas serve`` load test, and the weight of the site's view pages (the
HTML of each page that shows a path). Nothing here asserts: it measures and reports.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyoxigraph

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import loadtest  # noqa: E402
import synthetic  # noqa: E402
import witness  # noqa: E402

from atlas.data import _resources  # noqa: E402
from atlas.models._iri import BASE_IRI  # noqa: E402
from atlas.query import store  # noqa: E402

PYTHON = sys.executable
ATLAS = str(Path(PYTHON).with_name("atlas"))
QUERIES = Path(store.__file__).with_name("queries")

Row = tuple[str, str, str, str]  # measure, value, goal, verdict

# A script that does what `atlas path compile gpu` does, with rdflib: parse the Turtle, run the
# path query (prepared, with bindings) and the reachability query over the matching steps.
RDFLIB_SCRIPT = """
import json, pathlib, sys
from rdflib import Graph, Namespace, URIRef
from rdflib.plugins.sparql import prepareQuery
data, queries, bindings = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
EA = Namespace("https://w3id.org/execution-atlas/vocab#")
graph = Graph()
for file in sorted(data.glob("*.ttl")):
    graph.parse(file, format="turtle")
path = prepareQuery((queries / "path.rq").read_text())
rows = list(graph.query(path, initBindings={k: URIRef(v) for k, v in json.loads(bindings).items()}))
edges = Graph()
for row in rows:
    edges.add((row["step"], EA["from"], row["from"]))
    edges.add((row["step"], EA["to"], row["to"]))
down = prepareQuery((queries / "downstream.rq").read_text())
reached = {r["stage"] for r in edges.query(down, initBindings={"start": rows[0]["entry"]})}
print(len(reached), len([r for r in rows if r["from"] in reached]))
"""


def path_bindings(copy: int = 0) -> dict[str, str]:
    """The path query's bindings for torch.compile on a GPU in copy ``copy`` of the atlas."""
    suffix = f"-k{copy}" if copy else ""
    mode = f"{BASE_IRI}scheme/pytorch-mode{suffix}/torch-compile"
    device = f"{BASE_IRI}scheme/pytorch-device{suffix}/nvidia-gpu"
    values = [mode, device] + [mode] * 6
    return {"atlas": f"{BASE_IRI}atlas/pytorch{suffix}"} | {
        f"value{i}": v for i, v in enumerate(values, start=1)
    }


def per_call(function: Callable[[], object], number: int, repeat: int) -> float:
    """The median time of one call, in seconds, over ``repeat`` runs of ``number`` calls."""
    function()
    return statistics.median(timeit.repeat(function, number=number, repeat=repeat)) / number


def wall(commands: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """Median wall time of whole processes, run round-robin so that load drifts hit all alike."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # warm the file cache
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
    for _ in range(repeat):
        for name, command in commands.items():
            started = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def fmt_time(seconds: float) -> str:
    """A duration with a fitting unit."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def verdict(ok: bool) -> str:  # noqa: FBT001
    """'met' or 'MISSED'."""
    return "met" if ok else "MISSED"


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


# --- sections ------------------------------------------------------------------------------


def startup(repeat: int) -> list[Row]:
    """Whole processes: bare python, import atlas, cold atlas path, the rdflib script."""
    data = Path(str(_resources.dataset_dir()))
    script = [PYTHON, "-c", RDFLIB_SCRIPT, str(data), str(QUERIES), json.dumps(path_bindings())]
    t = wall(
        {
            "bare": [PYTHON, "-c", "pass"],
            "import": [PYTHON, "-c", "import atlas"],
            "path": [ATLAS, "path", "compile", "gpu"],
            "json": [ATLAS, "path", "compile", "gpu", "--json"],
            "rdflib": script,
        },
        repeat,
    )
    return [
        ("bare `python -c pass`", fmt_time(t["bare"]), "", ""),
        (
            "`import atlas` / bare",
            f"{fmt_time(t['import'])} = {t['import'] / t['bare']:.2f}x",
            "<= 1.3x",
            verdict(t["import"] / t["bare"] <= 1.3),
        ),
        (
            "cold `atlas path compile gpu` / bare",
            f"{fmt_time(t['path'])} = {t['path'] / t['bare']:.1f}x",
            "<= 10x",
            verdict(t["path"] / t["bare"] <= 10),
        ),
        (
            "cold `atlas path compile gpu --json` / bare",
            f"{fmt_time(t['json'])} = {t['json'] / t['bare']:.1f}x",
            "<= 6x",
            verdict(t["json"] / t["bare"] <= 6),
        ),
        (
            "cold `atlas path` / rdflib parse + SPARQL script",
            f"{fmt_time(t['rdflib'])} script; {t['path'] / t['rdflib']:.2f}x",
            "<= 0.3x",
            verdict(t["path"] / t["rdflib"] <= 0.3),
        ),
    ]


def warm_path(repeat: int) -> list[Row]:
    """``atlas.path()`` once the index is built: memoised, and computed afresh."""
    import atlas  # noqa: PLC0415
    from atlas.query import paths as query  # noqa: PLC0415

    atlas.path("compile", "gpu")
    index = query.index()
    found, _ = index.resolve(("compile", "gpu"), {}, "pytorch")
    aindex = index._index_of(found)  # noqa: SLF001 - the index of the atlas, built
    chosen = index._resolved(aindex, ("compile", "gpu"), {})  # noqa: SLF001
    memo = per_call(lambda: atlas.path("compile", "gpu"), 20_000, repeat)

    def fresh() -> object:
        aindex.paths.clear()  # the atlas's memo, cleared to time a fresh path
        return index.path("compile", "gpu")

    uncached = per_call(fresh, 500, repeat)
    compute = per_call(lambda: index._compute(aindex, chosen), 500, repeat)  # noqa: SLF001
    return [
        ("warm atlas.path(), memoised", fmt_time(memo), "<= 1 µs", verdict(memo <= 1e-6)),
        (
            "warm atlas.path(), memo cleared (resolve + compute)",
            fmt_time(uncached),
            "<= 10 µs",
            verdict(uncached <= 10e-6),
        ),
        ("  of which Index._compute", fmt_time(compute), "", ""),
    ]


def warm_sparql(repeat: int) -> list[Row]:
    """The path query on the shipped data: pyoxigraph against rdflib's prepared query."""
    from rdflib import Graph, URIRef  # noqa: PLC0415
    from rdflib.plugins.sparql import prepareQuery  # noqa: PLC0415

    text = store.named_query("path").text
    bindings = {k: pyoxigraph.NamedNode(v) for k, v in path_bindings().items()}
    oxigraph = per_call(lambda: store.execute(text, bindings), 200, repeat)
    composite = per_call(lambda: store.path("compile", "gpu"), 200, repeat)
    graph = Graph()
    for file in _resources.turtle_files():
        graph.parse(data=file.read_text(encoding="utf-8"), format="turtle")
    prepared = prepareQuery(text)
    initial = {k: URIRef(v) for k, v in path_bindings().items()}
    rdflib = per_call(lambda: list(graph.query(prepared, initBindings=initial)), 5, repeat)
    rows_ox = store.execute(text, bindings)
    rows_rdf = list(graph.query(prepared, initBindings=initial))
    same = isinstance(rows_ox, store.Solutions) and len(rows_ox.rows) == len(rows_rdf)
    return [
        (
            "warm SPARQL path query (pyoxigraph)",
            fmt_time(oxigraph),
            "<= 1 ms",
            verdict(oxigraph <= 1e-3),
        ),
        (
            "  rdflib prepared query / pyoxigraph",
            f"{fmt_time(rdflib)} = {rdflib / oxigraph:.1f}x{'' if same else ' (rows differ!)'}",
            ">= 20x",
            verdict(rdflib / oxigraph >= 20),
        ),
        ("  store.path(): resolve + path + reachability", fmt_time(composite), "", ""),
    ]


def peak_kib() -> int:
    """This process's peak resident memory in KiB.

    ``VmHWM`` where Linux has it: ``ru_maxrss`` outlives ``execve``, so in a child it can be
    the peak of the parent that started it.
    """
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child_load(folder: Path, copies: int, *, dump: bool) -> None:
    """(In a fresh process) load a synthetic set, time path queries, print JSON.

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
        result = store.run("path", bindings, engine=engine)  # type: ignore[arg-type]
        assert isinstance(result, store.Solutions)
        assert len(result.rows) == 12, (copy, len(result.rows))
        per_atlas.append(per_call(lambda b=bindings: store.run("path", b, engine=engine), 20, 5))
        terms = {k: pyoxigraph.NamedNode(v) for k, v in bindings.items()}
        raw.append(per_call(lambda t=terms: store.execute(text, t, target=target), 20, 5))
    if dump:
        target.dump(
            output=folder / "floor.nt",
            format=pyoxigraph.RdfFormat.N_TRIPLES,
            from_graph=pyoxigraph.DefaultGraph(),
        )
    print(
        json.dumps(
            {
                "triples": len(target),
                "load": loaded,
                "peak_mib": peak / 1024,
                "base_mib": before / 1024,
                "path": statistics.median(per_atlas),
                "raw": statistics.median(raw),
            }
        )
    )


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


def floor_rows(size: str, folder: Path) -> list[Row]:
    """What the store allows at this size, beside the loader: see :func:`child_floor`."""
    try:  # floor.nt was written by child_load
        out = subprocess.run(
            [PYTHON, __file__, "--child-floor", str(folder)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        (folder / "floor.nt").unlink()
    figures = json.loads(out)
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


def synthetic_sets(
    sizes: list[str], check_sizes: set[str], workdir: Path, check_timeout: int
) -> list[Row]:
    """Generate each size, then load, query and check it in fresh processes."""
    rows: list[Row] = []
    for size in sizes:
        folder = workdir / f"atlas-{size}"
        started = time.perf_counter()
        triples, copies = synthetic.generate(synthetic.parse_size(size), folder)
        generated = time.perf_counter() - started
        big = synthetic.parse_size(size) >= 1_000_000
        command = [PYTHON, __file__, "--child-load", str(folder), "--copies", str(copies)]
        out = subprocess.run(
            [*command, "--dump"] if big else command, capture_output=True, text=True, check=True
        ).stdout
        figures = json.loads(out)
        rows.append(
            (
                f"{size}: load {figures['triples']:,} triples ({copies} atlas copies)",
                (
                    f"{fmt_time(figures['load'])}, peak {figures['peak_mib']:.0f} MiB "
                    f"(python+pyoxigraph alone {figures['base_mib']:.0f})"
                ),
                "<= 3 s, <= 600 MiB at 1M" if big else "",
                verdict(figures["load"] <= 3 and figures["peak_mib"] <= 600) if big else "",
            )
        )
        rows.append(
            (
                f"{size}: path query per atlas (path.rq; with reachability)",
                f"{fmt_time(figures['raw'])}; {fmt_time(figures['path'])}",
                "<= 2 ms, flat",
                verdict(figures["path"] <= 2e-3),
            )
        )
        if big:
            rows += floor_rows(size, folder)
        if size in check_sizes:
            rows.append(check_row(size, folder, check_timeout))
        rows.append((f"{size}: (generating the set)", fmt_time(generated), "", ""))
        del triples
    return rows


# Runs a command and reports its wall time, exit status and peak memory. A lean process of its
# own starts it: a child's ru_maxrss starts from the memory of the process it was forked from,
# which for this script is far larger than bare python.
MEASURE_SCRIPT = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    status = child.wait(float(sys.argv[1]))
except subprocess.TimeoutExpired:
    child.kill()
    child.wait()
    status = None
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": time.perf_counter() - started, "exit": status, "peak_kib": peak}))
"""


def check_row(size: str, folder: Path, timeout: int) -> Row:
    """``atlas check`` of a synthetic set in a fresh process: wall time, exit status, peak RSS."""
    goal = "<= 60 s at 1M" if synthetic.parse_size(size) >= 1_000_000 else ""
    command = [ATLAS, "check", "--dataset", str(folder)]
    out = subprocess.run(
        [PYTHON, "-c", MEASURE_SCRIPT, str(timeout), *command],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    figures = json.loads(out)
    if figures["exit"] is None:
        return (f"{size}: atlas check", f"> {timeout} s (stopped)", goal, verdict(ok=False))
    seconds = figures["seconds"]
    value = (
        f"{fmt_time(seconds)} (exit {figures['exit']}), peak {figures['peak_kib'] / 1024:.0f} MiB"
    )
    return (f"{size}: atlas check", value, goal, verdict(seconds <= 60) if goal else "")


def load_test(clients: int, queries: int, workers: int) -> list[Row]:
    """``atlas serve`` on loopback under concurrent clients."""
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
            (
                f"median {fmt_time(result.ask_median())} "
                f"({fmt_time(min(result.ask_latencies))}-{fmt_time(max(result.ask_latencies))}), "
                f"hammer answers {dict(sorted(hammered.items()))}"
            ),
            "< 100 ms",
            verdict(result.ask_median() < 0.1),
        ),
    ]


PAGE_GOAL = 100_000  # bytes of HTML per view page (issue 20): "under 100 KB"


def fmt_kb(size: int) -> str:
    """A size in kB (1,000 bytes)."""
    return f"{size / 1000:.1f} kB"


def site_weight() -> list[Row]:
    """The HTML of each view page of the site (``<atlas>/index.html`` and one per combination).

    The site is built from the shipped export into a temporary folder; the CSS and script that
    the pages share are not counted (they are cached once for all pages). One row per atlas with
    paths: its interactive page as it opens (its default view; what only the other views show
    comes from ``views.js`` when another view is first chosen, shown beside it), and the
    heaviest and lightest of its static pages (one view each); then the reference pages, which
    have no goal.
    """
    from atlas.publish import site  # noqa: PLC0415
    from atlas.publish.site._pages import Page  # noqa: PLC0415
    from atlas.query.paths import load  # noqa: PLC0415

    page = Page(load())
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="atlas-site-") as tmp:
        out = Path(tmp) / "site"
        report = site.build(out)
        size = {name: (out / name).stat().st_size for name in report.weights}
        for atlas in page.atlases:
            views = page.views(atlas)
            if not views:
                continue
            interactive = f"{atlas.id}/index.html"
            static = sorted((size[f"{atlas.id}/{v.file}"], v.file) for v in views)
            drawn = svg_bytes(out / interactive)
            later = out / atlas.id / "views.js"
            brought = f"; views.js {fmt_kb(later.stat().st_size)}" if later.exists() else ""
            rows.append(
                (
                    f"site: {interactive} (opens on 1 of {len(views)} views)",
                    f"{fmt_kb(size[interactive])} (drawings {fmt_kb(drawn)}{brought})",
                    "< 100 kB",
                    verdict(size[interactive] < PAGE_GOAL),
                )
            )
            drawn = svg_bytes(out / atlas.id / static[-1][1])
            rows.append(
                (
                    f"site: {atlas.id}/ one page per view ({len(views)} pages)",
                    (
                        f"{fmt_kb(static[0][0])} to {fmt_kb(static[-1][0])}"
                        f" ({static[-1][1]}; drawings {fmt_kb(drawn)})"
                    ),
                    "< 100 kB each",
                    verdict(static[-1][0] < PAGE_GOAL),
                )
            )
        reference = {n: b for n, b in size.items() if n.rsplit("/", 1)[-1] in _REFERENCE_PAGES}
        name = max(reference, key=reference.__getitem__)
        rows.append(
            (
                f"site: reference pages ({len(reference)}), heaviest",
                f"{fmt_kb(reference[name])} ({name})",
                "",
                "",
            )
        )
        rows.append(("site: build (atlas site build)", fmt_time(report.seconds), "", ""))
    return rows


def svg_bytes(path: Path) -> int:
    """The bytes of the inline SVG drawings of a page."""
    text = path.read_text(encoding="utf-8")
    return sum(len(m.encode()) for m in re.findall(r"<svg\b.*?</svg>", text, re.DOTALL))


_REFERENCE_PAGES = frozenset({"stages.html", "steps.html", "sources.html"})


def machine() -> str:
    """One line about the machine and the versions measured."""
    import rdflib  # noqa: PLC0415

    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return (
        f"{cpu}, {os.cpu_count()} cores visible, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, pyoxigraph {pyoxigraph.__version__}, "
        f"rdflib {rdflib.__version__}, load average {os.getloadavg()[0]:.2f}"
    )


def print_table(rows: list[Row]) -> None:
    """The rows as an aligned Markdown table."""
    header: Row = ("measure", "value", "goal", "")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    for i, row in enumerate([header, *rows]):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=11, help="repeats per median (default 11)")
    parser.add_argument(
        "--sizes", default="10k,100k,1M", help="synthetic sizes (default 10k,100k,1M)"
    )
    parser.add_argument("--check-sizes", default="10k,100k,1M", help="sizes to run atlas check on")
    parser.add_argument("--check-timeout", type=int, default=600, help="seconds per check")
    parser.add_argument("--load-clients", type=int, default=8)
    parser.add_argument("--load-queries", type=int, default=1000, help="queries per client")
    parser.add_argument("--load-workers", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None, help="where to write the sets")
    parser.add_argument(
        "--skip",
        default="",
        help="sections to skip: startup,warm,sparql,synthetic,serve,site,witness",
    )
    parser.add_argument("--child-load", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-floor", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--copies", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_load:
        child_load(args.child_load, args.copies, dump=args.dump)
        return
    if args.child_floor:
        child_floor(args.child_floor)
        return
    skip = set(filter(None, args.skip.split(",")))
    print(f"machine: {machine()}")
    byte_compile()
    started = time.perf_counter()
    rows: list[Row] = []
    if "startup" not in skip:
        rows += startup(args.repeat)
    if "warm" not in skip:
        rows += warm_path(args.repeat)
    if "sparql" not in skip:
        rows += warm_sparql(args.repeat)
    if "synthetic" not in skip:
        sizes = [s for s in args.sizes.split(",") if s]
        checks = {s for s in args.check_sizes.split(",") if s}
        with tempfile.TemporaryDirectory(prefix="atlas-bench-") as tmp:
            rows += synthetic_sets(sizes, checks, args.workdir or Path(tmp), args.check_timeout)
    if "serve" not in skip:
        rows += load_test(args.load_clients, args.load_queries, args.load_workers)
        rows += abuse_test(args.load_workers)
    if "site" not in skip:
        rows += site_weight()
    if "witness" not in skip:
        rows += witness.witness_overhead()
    print_table(rows)
    print(
        f"\n(run took {time.perf_counter() - started:.0f} s; load average now "
        f"{os.getloadavg()[0]:.2f})"
    )


if __name__ == "__main__":
    main()
