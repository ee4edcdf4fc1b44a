"""Start-up: whole processes, each ratio measured in interleaved pairs against its baseline.

Bare ``python -c pass`` is the baseline of ``import atlas``, of a cold ``atlas path compile
gpu`` (text and ``--json``) and of ``atlas check`` on the shipped data (no options: the report
of an identical check reused; and ``--no-cache``, every check run); the rdflib
script that does what ``atlas path`` does (parse the Turtle, run the path query prepared, then
the reachability query) is the baseline of the cold ``atlas path``. Each ratio has its own
loop of pairs (A, B, A, B...), after one unmeasured run of every command to warm the file cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from _measure import ATLAS, PYTHON, Line, Spread, interleave, process_seconds, verdict

from atlas.data import _resources
from atlas.models._iri import BASE_IRI
from atlas.query import store

__all__ = ["RDFLIB_SCRIPT", "Ratio", "path_bindings", "ratios", "startup"]

QUERIES = Path(store.__file__).with_name("queries")

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


_BARE = [PYTHON, "-c", "pass"]
_PATH = [ATLAS, "path", "compile", "gpu"]
_MODELS = [
    PYTHON,
    "-c",
    (
        "from atlas.data import _resources as r; from atlas.models import AtlasDocument; "
        "AtlasDocument.model_validate_json(r.export_file().read_text(encoding='utf-8'))"
    ),
]


@dataclass(frozen=True)
class Ratio:
    """One row: a command (A) against its baseline (B), with the goal on A/B."""

    what: str
    a_name: str
    a: list[str]
    b_name: str
    b: list[str]
    goal: float | None  # None: a row beside a goal, with none of its own


def ratios() -> list[Ratio]:
    """The rows of the start-up table, in order."""
    data = Path(str(_resources.dataset_dir()))
    script = [PYTHON, "-c", RDFLIB_SCRIPT, str(data), str(QUERIES), json.dumps(path_bindings())]
    imp = [PYTHON, "-c", "import atlas"]
    check = [ATLAS, "check"]
    return [
        Ratio("`import atlas` / bare", "import", imp, "bare", _BARE, 1.3),
        Ratio("cold `atlas path compile gpu` / bare", "path", _PATH, "bare", _BARE, 10),
        Ratio(
            "cold `atlas path compile gpu --json` / bare",
            "json",
            [*_PATH, "--json"],
            "bare",
            _BARE,
            6,
        ),
        Ratio(
            "cold `atlas path` / rdflib parse + SPARQL script", "path", _PATH, "rdflib", script, 0.3
        ),
        Ratio(
            "`atlas check` (shipped data, no options: an identical check's report reused) / bare",
            "check",
            check,
            "bare",
            _BARE,
            12,
        ),
        # the same when no identical check kept its report: every check runs
        Ratio(
            "  `atlas check --no-cache` (every check run) / bare",
            "check",
            [*check, "--no-cache"],
            "bare",
            _BARE,
            None,
        ),
        # what any check through the models costs before it checks anything
        Ratio(
            "  floor: build the models, validate the export once / bare",
            "models",
            _MODELS,
            "bare",
            _BARE,
            None,
        ),
    ]


def _warm(row: Ratio) -> int:
    """Run both commands once, unmeasured (the file cache); the exit status of the first."""
    done = subprocess.run(row.a, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    process_seconds(row.b)()
    return done.returncode


def startup(repeat: int) -> list[Line]:
    """Whole processes, each against its baseline in ``repeat`` interleaved pairs.

    ``atlas check`` keeps its reports in a cache of this run's own (``XDG_CACHE_HOME``), which
    its unmeasured first run fills: the measured runs reuse that report, as a user's second
    check of the same package on the same day does; ``--no-cache`` measures every check run.
    """
    with (
        tempfile.TemporaryDirectory(prefix="atlas-bench-cache-") as cache,
        mock.patch.dict(os.environ, {"XDG_CACHE_HOME": cache}),  # restored when done
    ):
        os.environ.pop("ATLAS_NO_CACHE", None)
        return _startup(repeat)


def _startup(repeat: int) -> list[Line]:
    rows: list[Line] = []
    bare: list[float] = []
    every = ratios()
    for row in every:
        status = _warm(row)
        goal = "" if row.goal is None else f"<= {row.goal:g}x"
        if status:  # a process that fails is no measure of the time it takes
            shown = f"not measured: `{' '.join([Path(row.a[0]).name, *row.a[1:]])}` exited {status}"
            rows.append((row.what, shown, goal, verdict(ok=False) if goal else ""))
            continue
        pairs = interleave(process_seconds(row.a), process_seconds(row.b), repeat)
        if row.b is _BARE:
            bare.extend(pairs.b)
        median = pairs.ratios.median
        shown = pairs.show(row.a_name, row.b_name)
        met = "" if row.goal is None else verdict(median <= row.goal)
        rows.append((row.what, shown, goal, met))
    if bare:
        every_bare = Spread(tuple(bare)).show()
        rows.insert(
            0, ("bare `python -c pass` (the baseline runs of every pair)", every_bare, "", "")
        )
    rows.append(
        "Each ratio is the median of per-pair ratios A/B (A, B, A, B... in one loop per row), "
        "with their min-max; beside it the median (min-max) of each side."
    )
    rows.append(
        "`atlas check` keeps the report of a check of the shipped data in the user's cache (here "
        "a folder of this run's own) and reuses it for an identical check: the same package, "
        "data, installed distributions, options and day. Its unmeasured first run kept one, so "
        "the measured runs reuse it; `--no-cache` runs every check each time."
    )
    return rows
