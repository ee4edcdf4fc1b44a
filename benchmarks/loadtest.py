"""Load test of ``atlas serve`` on loopback: N concurrent clients, each sending M queries.

Starts ``atlas serve`` on a free 127.0.0.1 port, sends a mix of queries (a label lookup, the path
query for torch.compile on a GPU, an ASK) from client threads, and reports the throughput, the
latency percentiles and every error. Stops the server at the end.

    python benchmarks/loadtest.py --clients 8 --queries 1000
"""

from __future__ import annotations

import argparse
import concurrent.futures
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from atlas import store
from atlas._sparql import substitute


def queries() -> list[str]:
    """The mix of queries each client cycles through."""
    named = store.named_query("path")
    bound = named.bind({"atlas": "pytorch", "mode": "compile", "device": "gpu"})
    path = substitute(named.text, {k: str(v) for k, v in bound.items()})
    label = (
        "SELECT ?l WHERE { <https://w3id.org/execution-atlas/stage/torchdynamo> "
        "<http://www.w3.org/2000/01/rdf-schema#label> ?l }"
    )
    return [label, path, "ASK { ?s a <https://w3id.org/execution-atlas/vocab#Stage> }"]


@dataclass(frozen=True)
class LoadResult:
    """What a load test measured."""

    clients: int
    queries: int
    seconds: float
    latencies: tuple[float, ...]
    errors: tuple[str, ...]

    @property
    def throughput(self) -> float:
        """Answered queries per second."""
        return len(self.latencies) / self.seconds

    def percentile(self, p: float) -> float:
        """A latency percentile, in seconds."""
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(workers: int) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``atlas serve`` on a free loopback port; returns it and its URL once it answers."""
    port = _free_port()
    command = [str(Path(sys.executable).with_name("atlas")), "serve", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--workers", str(workers)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{url}/sparql", params={"query": "ASK {}"}, timeout=5).raise_for_status()
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("atlas serve did not start") from None
            time.sleep(0.1)
        else:
            return process, url


def run(clients: int = 8, per_client: int = 1000, workers: int = 2) -> LoadResult:
    """Run the load test against a fresh server."""
    mix = queries()
    process, url = start_server(workers)

    def one_client(number: int) -> tuple[list[float], list[str]]:
        latencies: list[float] = []
        errors: list[str] = []
        with httpx.Client(base_url=url, timeout=30) as http:
            for i in range(per_client):
                query = mix[(number + i) % len(mix)]
                started = time.perf_counter()
                try:
                    response = http.get("/sparql", params={"query": query})
                except httpx.HTTPError as error:
                    errors.append(f"{type(error).__name__}: {error}")
                    continue
                if response.status_code != 200:
                    errors.append(f"HTTP {response.status_code}: {response.text[:100]}")
                    continue
                latencies.append(time.perf_counter() - started)
        return latencies, errors

    try:
        started = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(clients) as pool:
            results = list(pool.map(one_client, range(clients)))
        seconds = time.perf_counter() - started
    finally:
        process.terminate()
        process.wait(30)
    return LoadResult(
        clients,
        clients * per_client,
        seconds,
        tuple(x for lat, _ in results for x in lat),
        tuple(x for _, err in results for x in err),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--queries", type=int, default=1000, help="queries per client")
    parser.add_argument("--workers", type=int, default=2, help="server query processes")
    args = parser.parse_args()
    result = run(args.clients, args.queries, args.workers)
    print(
        f"{result.clients} clients x {result.queries // result.clients} queries: "
        f"{result.throughput:.0f} queries/s, p50 {result.percentile(50) * 1e3:.2f} ms, "
        f"p99 {result.percentile(99) * 1e3:.2f} ms, mean "
        f"{statistics.fmean(result.latencies) * 1e3:.2f} ms, errors {len(result.errors)}"
    )
    for error in result.errors[:10]:
        print(f"  error: {error}")


if __name__ == "__main__":
    main()
