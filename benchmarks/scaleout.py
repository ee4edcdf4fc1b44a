"""Scale-out: a synthetic set published with ``atlas publish`` into an Oxigraph server.

The path when a graph outgrows one process. An Oxigraph server (the ``oxigraph`` binary of the
PyPI package ``oxigraph``, in the test extra) is started over an empty folder on a free loopback
port, as ``tests/test_publish.py`` starts it. A child process runs ``atlas publish`` (the
command's own code, through ``atlas.cli.main``) with the shipped graph swapped for the set,
since the command publishes the shipped graph only. Then another child loads the same set into
an in-process pyoxigraph store and runs every named query (``queries/*.rq``, through
``store.run`` as ``atlas sparql --name`` does) on both, in turn: a batch on the server's SPARQL
endpoint, a batch in process, and so on. Bindings name ids of the middle copy of the set.

Run as a script, this module is one of those children (``--child-publish``, ``--child-queries``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pyoxigraph
from _measure import (
    PYTHON,
    Line,
    Pairs,
    Spread,
    batch,
    child_json,
    fmt_ratio,
    fmt_time,
    interleave,
    peak_kib,
    samples,
)
from growth import ensure_set
from startup import path_bindings

from atlas.models._iri import BASE_IRI
from atlas.query import store
from atlas.query._results import Solutions

__all__ = ["named_bindings", "oxigraph_binary", "scale_out"]

GRAPH = f"{BASE_IRI}benchmark/scale-out"  # the named graph the set is published to
_TIMEOUT = 900.0  # seconds per request: the upload and the MOVE of a million triples take long


def oxigraph_binary() -> str | None:
    """The Oxigraph server's binary: on PATH, or beside this Python; None when there is none."""
    found = shutil.which("oxigraph") or str(Path(PYTHON).with_name("oxigraph"))
    return found if os.access(found, os.X_OK) else None


def named_bindings(copy: int) -> dict[str, dict[str, pyoxigraph.NamedNode]]:
    """Bindings for each named query, naming ids of copy ``copy`` of the atlas (0: the shipped)."""
    suffix = f"-k{copy}" if copy else ""
    path = path_bindings(copy)
    selection = {k: v for k, v in path.items() if k.startswith("value")}
    iris = {
        "path": path,
        "reachable": {"start": f"{BASE_IRI}stage/torchdynamo{suffix}", **selection},
        "downstream": {"start": f"{BASE_IRI}stage/torchdynamo{suffix}"},
        "evidence": {"subject": f"{BASE_IRI}step/pytorch-cpython-calls-aten-dispatch{suffix}"},
        "python-ends": {"atlas": f"{BASE_IRI}atlas/pytorch{suffix}"},
        "written-in": {"language": f"{BASE_IRI}technology/cpp{suffix}"},
    }
    return {q: {k: pyoxigraph.NamedNode(v) for k, v in b.items()} for q, b in iris.items()}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def oxigraph_server(binary: str, location: Path) -> Iterator[tuple[str, int]]:
    """An Oxigraph server over ``location`` on a free loopback port: (its URL, its pid)."""
    url = f"http://127.0.0.1:{_free_port()}"
    command = [binary, "serve", "--location", str(location), "--bind", url.removeprefix("http://")]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/query", params={"query": "ASK {}"}, timeout=2)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{binary} serve did not start") from None
                time.sleep(0.1)
        yield url, process.pid
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _status_mib(pid: int, key: str) -> float:
    """A memory figure of a running process (``VmHWM``, ``VmRSS``) in MiB; 0 if unreadable."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{key}:"):
                return int(line.split()[1]) / 1024
    return 0.0


# --- children --------------------------------------------------------------------------------


def child_publish(folder: Path, url: str) -> None:
    """(In a fresh process) ``atlas publish`` of the set in ``folder``; prints its JSON.

    The command publishes the shipped graph (``store.store()``); here that graph is the set.
    """
    from atlas.cli import main  # noqa: PLC0415

    loaded = store.load_store(sorted(folder.glob("*.ttl")))
    store.store = lambda: loaded  # type: ignore[assignment]  # what publish reads
    argv = ["publish", "--store", url, "--graph", GRAPH, "--no-witness", "--json"]
    status = main([*argv, "--timeout", str(_TIMEOUT)])
    print(json.dumps({"exit": status, "peak_mib": peak_kib() / 1024}))


def _size(result: object) -> int:
    """Rows of a result (1 for ASK)."""
    return len(result.rows) if isinstance(result, Solutions) else 1


def _number(function: functools.partial[Any]) -> int:
    """Calls per batch: about 50 ms of them, between 1 and 200."""
    started = time.perf_counter()
    function()
    took = time.perf_counter() - started
    return max(1, min(200, int(0.05 / max(took, 1e-6))))


def child_queries(folder: Path, url: str, copy: int, repeat: int) -> None:
    """(In a fresh process) every named query on the server and in process, in turn; JSON."""
    from atlas.publish.graphstore import Remote  # noqa: PLC0415

    started = time.perf_counter()
    target = store.load_store(sorted(folder.glob("*.ttl")))
    out: dict[str, Any] = {"load": time.perf_counter() - started, "queries": {}}
    local = store.Local(target)
    bindings = named_bindings(copy)
    with httpx.Client(timeout=_TIMEOUT) as client:
        remote = Remote(f"{url}/query", GRAPH, client=client, timeout=_TIMEOUT)
        for name in store.named_queries():
            if name not in bindings:
                out["queries"][name] = {"skipped": "no bindings known to the benchmark"}
                continue
            here = functools.partial(store.run, name, bindings[name], engine=local)
            there = functools.partial(store.run, name, bindings[name], engine=remote)
            out["queries"][name] = _one_query(here, there, repeat)
    print(json.dumps(out))


def _one_query(
    here: functools.partial[Any], there: functools.partial[Any], repeat: int
) -> dict[str, Any]:
    """One named query on the server and in process, in turn (in process alone if refused)."""
    from atlas.publish.graphstore import PublishError  # noqa: PLC0415

    rows = _size(here())  # warm both; the answers must agree
    try:
        rows_there = _size(there())
    except PublishError as error:  # the query as sent to the server; timed in process only
        alone = samples(here, _number(here), repeat)
        return {"refused": str(error), "local": alone.values, "rows": [None, rows]}
    pairs = interleave(batch(there, _number(there)), batch(here, _number(here)), repeat)
    return {"server": pairs.a, "local": pairs.b, "rows": [rows_there, rows]}


# --- the section -----------------------------------------------------------------------------


def _publish(folder: Path, url: str) -> tuple[dict[str, Any], float]:
    """Run :func:`child_publish`; what ``atlas publish --json`` said, and the child's wall time."""
    started = time.perf_counter()
    done = subprocess.run(
        [PYTHON, __file__, "--child-publish", str(folder), url],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    lines = done.stdout.strip().splitlines()
    if done.returncode or len(lines) < 2 or json.loads(lines[-1])["exit"] != 0:
        raise RuntimeError(f"atlas publish failed: {(done.stderr or done.stdout).strip()[-500:]}")
    figures: dict[str, Any] = json.loads("\n".join(lines[:-1]))
    figures["peak_mib"] = json.loads(lines[-1])["peak_mib"]
    return figures, wall


def _query_rows(size: str, figures: dict[str, Any]) -> list[Line]:
    lines: list[Line] = []
    for name, found in figures["queries"].items():
        if "skipped" in found:
            lines.append((f"scale-out {size}: `{name}`", f"not run: {found['skipped']}", "", ""))
            continue
        if "refused" in found:
            alone = Spread(tuple(found["local"])).show()
            shown = f"server REFUSED it: {found['refused']}; in process {alone}"
            lines.append((f"scale-out {size}: `{name}` (server; in process)", shown, "", "MISSED"))
            continue
        pairs = Pairs(tuple(found["server"]), tuple(found["local"]))
        server, local = Spread(pairs.a), Spread(pairs.b)
        ratio = pairs.ratios
        there, here = found["rows"]
        agree = f"{there} rows" if there == here else f"ROWS DIFFER: server {there}, here {here}"
        lines.append(
            (
                f"scale-out {size}: `{name}` (server; in process)",
                (
                    f"{server.show()}; {local.show()}; server/in-process "
                    f"{fmt_ratio(ratio.median)} (pairs {fmt_ratio(ratio.low)}-"
                    f"{fmt_ratio(ratio.high)}); {agree}"
                ),
                "",
                "" if there == here else "MISSED",
            )
        )
    return lines


_NO_SERVER = (
    "not run: no Oxigraph server binary (`oxigraph`, PyPI package 'oxigraph' in the test "
    "extra) on PATH or beside this Python"
)


def scale_out(size: str, workdir: Path, repeat: int) -> list[Line]:
    """Publish the set of ``size`` into an Oxigraph server; its named queries there and here."""
    binary = oxigraph_binary()
    if binary is None:
        return [(f"scale-out {size}", _NO_SERVER, "", "")]
    built = ensure_set(size, workdir)
    copy = built.copies // 2
    with (
        tempfile.TemporaryDirectory(prefix="atlas-oxigraph-", dir=workdir) as location,
        oxigraph_server(binary, Path(location)) as (url, pid),
    ):
        published, wall = _publish(built.folder, url)
        held = _status_mib(pid, "VmRSS")
        args = [str(built.folder), url, str(copy), str(repeat)]
        figures = child_json(__file__, "--child-queries", *args)
        peak = _status_mib(pid, "VmHWM")
    lines: list[Line] = [
        (
            f"scale-out {size}: `atlas publish` into an Oxigraph server",
            (
                f"{published['triples']:,} triples in {fmt_time(published['seconds'])} "
                f"(the process, reading the set first: {fmt_time(wall)}, peak "
                f"{published['peak_mib']:.0f} MiB); server RSS {held:.0f} MiB after, peak "
                f"{peak:.0f} MiB"
            ),
            "",
            "",
        ),
        (
            f"scale-out {size}: the set loaded in process (for the queries beside)",
            fmt_time(figures["load"]),
            "",
            "",
        ),
    ]
    lines += _query_rows(size, figures)
    lines.append(
        f"Server: `{binary} serve` on an on-disk folder, same machine, loopback HTTP (one "
        f"kept-alive connection). Each query is run through `store.run` (as `atlas sparql "
        f"--name` runs it, with its id check and, for path and reachable, the reachability "
        f"pass) on both; batches of about 50 ms alternate, server then in process, {repeat} "
        f"pairs; per call: median (min-max). Bindings name copy {copy} of {built.copies}."
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description="a child of benchmarks/run.py")
    parser.add_argument("--child-publish", nargs=2, metavar=("DIR", "URL"))
    parser.add_argument("--child-queries", nargs=4, metavar=("DIR", "URL", "COPY", "REPEAT"))
    args = parser.parse_args()
    if args.child_publish:
        child_publish(Path(args.child_publish[0]), args.child_publish[1])
    elif args.child_queries:
        folder, url, copy, repeat = args.child_queries
        child_queries(Path(folder), url, int(copy), int(repeat))
    else:
        parser.error("give --child-publish or --child-queries")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
