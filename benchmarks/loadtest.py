"""Load test of ``atlas serve`` on loopback: N concurrent clients, each sending M queries.

Starts ``atlas serve`` on a free 127.0.0.1 port, sends a mix of queries (a label lookup, the path
query for torch.compile on a GPU, an ASK) from client threads, and reports the throughput, the
latency percentiles and every error. Stops the server at the end.

    python benchmarks/loadtest.py --clients 8 --queries 1000
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

import httpx

from atlas.query import store
from atlas.query._lexer import substitute


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


def start_server(workers: int, **settings: object) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``atlas serve`` on a free loopback port; returns it and its URL once it answers.

    Clients name themselves with the ``X-Client`` header (as a proxy would), so that each gets
    its own fair share of the workers.
    """
    port = _free_port()
    options = {"workers": workers, "client_header": "X-Client", **settings}
    script = (
        "from atlas.publish.serve import Settings, serve\n"
        f"serve(Settings(**{options!r}), port={port})\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
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


def run(clients: int = 8, per_client: int = 1000, workers: int = 3) -> LoadResult:
    """Run the load test against a fresh server."""
    mix = queries()
    process, url = start_server(workers)

    def one_client(number: int) -> tuple[list[float], list[str]]:
        latencies: list[float] = []
        errors: list[str] = []
        headers = {"X-Client": f"client-{number}"}
        with httpx.Client(base_url=url, timeout=30, headers=headers) as http:
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


@dataclass(frozen=True)
class AbuseResult:
    """What the abuse test measured: idle connections, and cheap queries among expensive ones."""

    idle_opened: int
    idle_refused: int  # answered 503 at once, past the connection cap
    answered_while_idle: bool
    ask_latencies: tuple[float, ...]  # ASK {} while two clients hammer expensive queries
    expensive_statuses: tuple[int, ...]

    def ask_median(self) -> float:
        """The median latency of the cheap queries, in seconds."""
        return statistics.median(self.ask_latencies)


def _idle_connections(url: str, count: int) -> tuple[int, int, bool]:
    """Open ``count`` idle connections; how many were held, refused, and did a query pass."""
    import resource  # noqa: PLC0415

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 256)), hard))
    port = int(url.rsplit(":", 1)[1])
    held: list[socket.socket] = []
    refused = 0
    try:
        for _ in range(count):
            connection = socket.create_connection(("127.0.0.1", port), timeout=10)
            held.append(connection)
        time.sleep(0.5)
        for connection in held:
            connection.setblocking(False)  # noqa: FBT003
            with contextlib.suppress(BlockingIOError):
                refused += connection.recv(12).startswith(b"HTTP/1.1 503")
        answered = httpx.get(f"{url}/sparql", params={"query": "ASK {}"}, timeout=30)
        ok = answered.status_code in (200, 503)  # 503 while the cap is reached is honest
    finally:
        for connection in held:
            connection.close()
    return len(held), refused, ok


def abuse(idle: int = 1000, asks: int = 40, workers: int = 3) -> AbuseResult:
    """1,000 idle connections; then two clients hammer expensive queries while a third asks.

    The idle connections come from one address (this machine), so its cap of 64 holds first.
    """
    hostile = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
    process, url = start_server(workers)
    try:
        opened, refused, answered = _idle_connections(url, idle)
        time.sleep(11)  # the held connections are closed by the server's read timeout
        stop = time.monotonic() + 3600
        statuses: list[int] = []

        def hammer(name: str) -> None:
            with httpx.Client(base_url=url, timeout=60, headers={"X-Client": name}) as http:
                while time.monotonic() < stop:
                    statuses.append(http.get("/sparql", params={"query": hostile}).status_code)

        latencies: list[float] = []
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            jobs = [pool.submit(hammer, name) for name in ("hammer-1", "hammer-2")]
            time.sleep(1.0)
            with httpx.Client(base_url=url, timeout=60, headers={"X-Client": "asker"}) as http:
                for _ in range(asks):
                    started = time.perf_counter()
                    http.get("/sparql", params={"query": "ASK {}"}).raise_for_status()
                    latencies.append(time.perf_counter() - started)
                    time.sleep(0.2)  # 40 asks span 8 s: each hammer's 5 s queries restart
            stop = time.monotonic()
            for job in jobs:
                job.result()
    finally:
        process.terminate()
        process.wait(30)
    return AbuseResult(opened, refused, answered, tuple(latencies), tuple(statuses))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--queries", type=int, default=1000, help="queries per client")
    parser.add_argument("--workers", type=int, default=3, help="server query processes")
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
