"""The endpoint bounds every resource: connections, time to send a request, answer size, hosts,
and each client's share of the workers. Each case is something an attack on loopback did.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import socket
import time
from collections.abc import Iterator
from urllib.parse import quote, urlsplit

import httpx
import pytest

from atlas.publish._http import QuietLog
from atlas.publish.serve import Settings
from checkkit import serve_in_thread

pytest.importorskip("uvicorn")
pytestmark = pytest.mark.slow

# Four copies of every triple joined: far beyond any timeout on the shipped graph.
HOSTILE = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
# A string doubled 16 times: 64 KiB in one row from a 300-byte query.
DOUBLED = (
    'SELECT ?x WHERE { BIND("ab" AS ?x0) '
    + " ".join(f"BIND(CONCAT(?x{i}, ?x{i}) AS ?x{i + 1})" for i in range(16))
    + " BIND(?x16 AS ?x) }"
)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    settings = Settings(
        timeout=2.0,
        workers=3,
        per_client=1,
        client_queue=1,
        max_connections=12,
        read_timeout=1.0,
        keep_alive=1.0,
        max_answer_bytes=10_000,
        worker_memory=128 * 1024 * 1024,
        client_header="X-Client",
    )
    yield from serve_in_thread(settings)


def _socket(url: str) -> socket.socket:
    parts = urlsplit(url)
    connection = socket.create_connection((parts.hostname, parts.port), timeout=15)
    connection.settimeout(15)
    return connection


def _read_all(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes (TimeoutError if it never does)."""
    data = b""
    while chunk := connection.recv(65536):
        data += chunk
    return data


def test_a_half_sent_request_is_closed_after_the_read_timeout(url: str) -> None:
    connection = _socket(url)
    connection.sendall(b"GET /sparql?query=ASK%20%7B%7D HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    # closed, not left open for ever: a connection still open when the socket's own 15 s
    # timeout runs out makes _read_all raise TimeoutError
    assert _read_all(connection) == b""
    connection.close()


def test_an_idle_connection_is_closed_and_a_trickle_does_not_keep_it(url: str) -> None:
    idle = _socket(url)
    trickle = _socket(url)
    for byte in b"GET /sparql?query=ASK":  # one byte every 0.2 s: more than the 1 s budget
        try:
            trickle.sendall(bytes([byte]))
        except OSError:
            break
        time.sleep(0.2)
    assert _read_all(idle) == b""
    assert _read_all(trickle) == b""
    idle.close()
    trickle.close()


def test_a_slow_body_is_answered_408(url: str) -> None:
    connection = _socket(url)
    connection.sendall(
        b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/sparql-query\r\nContent-Length: 100\r\n\r\nASK"
    )
    answer = _read_all(connection)
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert b"did not arrive within 1 s" in answer
    connection.close()


def test_past_the_connection_cap_a_connection_is_refused_with_503(url: str) -> None:
    held = [_socket(url) for _ in range(12)]
    try:
        time.sleep(0.1)
        extra = _socket(url)
        answer = _read_all(extra)
        extra.close()
        assert answer.startswith(b"HTTP/1.1 503 ")
        assert b"too many connections" in answer
    finally:
        for connection in held:
            connection.close()
    time.sleep(0.2)
    assert httpx.get(f"{url}/sparql", params={"query": "ASK {}"}).status_code == 200


def test_answers_are_bounded_in_bytes_as_well_as_rows(url: str) -> None:
    response = httpx.get(f"{url}/sparql", params={"query": DOUBLED}, timeout=30)
    assert response.status_code == 413
    assert "over the limit of 10000 bytes" in response.text
    small = httpx.get(f"{url}/sparql", params={"query": "SELECT (1 AS ?x) {}"}, timeout=30)
    assert small.status_code == 200


def test_a_query_past_the_worker_memory_costs_its_worker_not_the_server(url: str) -> None:
    # 10 characters doubled 24 times: a 160 MB string, past the 128 MiB a worker may take
    huge = (
        'SELECT (STRLEN(?x24) AS ?n) WHERE { BIND("abcdefghij" AS ?x0) '
        + " ".join(f"BIND(CONCAT(?x{i}, ?x{i}) AS ?x{i + 1})" for i in range(24))
        + " }"
    )
    response = httpx.get(f"{url}/sparql", params={"query": huge}, timeout=30)
    assert response.status_code == 500
    assert "memory limit" in response.text
    for _ in range(3):  # the worker is replaced
        assert httpx.get(f"{url}/sparql", params={"query": "ASK {}"}).status_code == 200


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("evil.example", 421),
        ("evil.example:80", 421),
        ("127.0.0.1.evil.example", 421),
        ("", 421),
        ("localhost", 200),
        ("LOCALHOST:7878", 200),
        ("127.0.0.1:7878", 200),
        ("[::1]:7878", 200),
    ],
)
def test_only_served_host_names_are_answered(url: str, host: str, status: int) -> None:
    connection = _socket(url)
    connection.sendall(
        f"GET /sparql?query={quote('ASK {}')} HTTP/1.1\r\nHost: {host}\r\n"
        "Connection: close\r\n\r\n".encode()
    )
    answer = _read_all(connection)
    connection.close()
    assert answer.startswith(f"HTTP/1.1 {status} ".encode()), answer[:80]


def test_head_is_answered_like_get_without_a_body(url: str) -> None:
    response = httpx.head(f"{url}/sparql", params={"query": "ASK {}"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/sparql-results+json"
    assert response.content == b""


def test_a_cheap_query_is_answered_while_two_clients_run_expensive_ones(url: str) -> None:
    def expensive(client: str) -> httpx.Response:
        return httpx.get(
            f"{url}/sparql", params={"query": HOSTILE}, headers={"X-Client": client}, timeout=30
        )

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        hostile = [pool.submit(expensive, name) for name in ("a", "a", "b", "b")]
        time.sleep(0.3)
        cheap = httpx.get(
            f"{url}/sparql", params={"query": "ASK {}"}, headers={"X-Client": "c"}, timeout=30
        )
        assert cheap.status_code == 200
        assert not any(job.done() for job in hostile)  # well before their 2 s deadline
        statuses = sorted(job.result().status_code for job in hostile)
    assert statuses == [503, 503, 503, 503]  # each stopped at its deadline, one at a time


def test_a_client_past_its_queue_is_answered_429(url: str) -> None:
    def expensive(_: int) -> int:
        return httpx.get(
            f"{url}/sparql", params={"query": HOSTILE}, headers={"X-Client": "greedy"}, timeout=30
        ).status_code

    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        statuses = sorted(pool.map(expensive, range(3)))
    assert statuses == [429, 503, 503]


def test_a_client_that_goes_away_mid_body_leaves_no_traceback(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        for _ in range(5):
            connection = _socket(url)
            connection.sendall(
                b"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/sparql-query\r\nContent-Length: 1000\r\n\r\nASK {"
            )
            connection.close()
        time.sleep(0.5)
        assert httpx.get(f"{url}/sparql", params={"query": "ASK {}"}).status_code == 200
    assert "Traceback" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_the_log_keeps_one_line_a_minute_per_kind_of_client_trouble() -> None:
    quiet = QuietLog(every=60)

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("uvicorn.error", logging.WARNING, "", 0, message, (), None)

    kept = [quiet.filter(record("Exceeded concurrency limit.")) for _ in range(1000)]
    assert kept.count(True) == 1
    assert quiet.filter(record("Invalid HTTP request received."))
    assert not quiet.filter(record("Invalid HTTP request received."))
    assert quiet.filter(record("Application startup failed"))  # other lines pass


def test_one_address_cannot_take_every_connection() -> None:
    settings = Settings(workers=1, max_connections=20, max_connections_per_client=3)
    for url in serve_in_thread(settings):
        port = int(url.rsplit(":", 1)[1])
        held = [_socket(url) for _ in range(3)]
        try:
            time.sleep(0.1)
            extra = _socket(url)
            refused = _read_all(extra)
            extra.close()
            assert refused.startswith(b"HTTP/1.1 503 ")
            # another address of the loopback range is another client, and is answered
            other = socket.create_connection(("127.0.0.1", port), 15, ("127.0.0.2", 0))
            other.sendall(b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: localhost\r\n")
            other.sendall(b"Connection: close\r\n\r\n")
            assert _read_all(other).startswith(b"HTTP/1.1 200 ")
            other.close()
        finally:
            for connection in held:
                connection.close()


def test_a_client_that_does_not_read_its_answer_is_disconnected() -> None:
    big = (
        'SELECT ?x WHERE { BIND("ab" AS ?x0) '
        + " ".join(f"BIND(CONCAT(?x{i}, ?x{i}) AS ?x{i + 1})" for i in range(24))
        + " BIND(?x24 AS ?x) }"
    )  # a 32 MiB answer: far more than the sockets' buffers hold
    settings = Settings(workers=1, read_timeout=1.0, max_answer_bytes=64 * 1024 * 1024)
    for url in serve_in_thread(settings):
        connection = _socket(url)
        connection.sendall(
            f"GET /sparql?query={quote(big)} HTTP/1.1\r\nHost: localhost\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        time.sleep(6)  # the answer is made (a second or two), then left unread
        received = 0
        with contextlib.suppress(ConnectionResetError):
            while chunk := connection.recv(1 << 20):
                received += len(chunk)
        connection.close()
        assert 0 < received < 32 * 1024 * 1024  # cut off, not held for ever
