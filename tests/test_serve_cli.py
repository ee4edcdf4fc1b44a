"""``atlas serve`` as a person runs it: it says where it listens only once it does, Ctrl-C stops
it without a traceback, and what cannot run is one line with exit status 3 (usage errors, 2).
"""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from atlas.publish._pool import PoolError
from atlas.publish.serve import CannotServeError, Settings, serve

pytest.importorskip("uvicorn")
pytestmark = pytest.mark.slow

ATLAS = [sys.executable, "-m", "atlas", "serve"]
READY = re.compile(
    r"atlas serve: SPARQL endpoint at (http://127\.0\.0\.1:\d+/sparql) \(Ctrl-C stops it\)\n"
)


def _read_until(process: subprocess.Popen[bytes], pattern: re.Pattern[str], seconds: float) -> str:
    """What the process writes to stderr until ``pattern`` shows, it exits or time runs out."""
    assert process.stderr is not None
    seen = b""
    deadline = time.monotonic() + seconds
    while not pattern.search(seen.decode(errors="replace")):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([process.stderr], [], [], left)[0]:
            break
        chunk = os.read(process.stderr.fileno(), 4096)
        if not chunk:
            break
        seen += chunk
    return seen.decode(errors="replace")


@pytest.fixture
def started() -> Iterator[tuple[subprocess.Popen[bytes], str, str]]:
    """``atlas serve`` on a free port, in a session of its own (like a terminal's job)."""
    process = subprocess.Popen(
        [*ATLAS, "--port", "0", "--workers", "2"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        said = _read_until(process, READY, 120)
        found = READY.search(said)
        assert found, f"atlas serve never said where it listens; it said {said!r}"
        yield process, found[1], said
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()


def test_it_says_where_it_listens_once_it_answers_there(
    started: tuple[subprocess.Popen[bytes], str, str],
) -> None:
    process, url, said = started
    assert said.count("SPARQL endpoint at") == 1
    # the port that was asked for (0: any) is the one it listens on, and it answers at once
    assert ":0/" not in url
    response = httpx.get(url, params={"query": "ASK {}"}, timeout=30)
    assert response.json() == {"head": {}, "boolean": True}
    assert process.poll() is None


def test_ctrl_c_stops_it_without_a_traceback(
    started: tuple[subprocess.Popen[bytes], str, str],
) -> None:
    process, url, said = started
    assert httpx.get(url, params={"query": "ASK {}"}, timeout=30).status_code == 200
    # A terminal sends Ctrl-C's SIGINT to every process of the job: the workers get it too.
    os.killpg(process.pid, signal.SIGINT)
    assert process.wait(60) == 130
    assert process.stderr is not None
    rest = process.stderr.read().decode()
    assert rest == "atlas serve: interrupted\n"
    assert "Traceback" not in said
    with pytest.raises(httpx.TransportError):  # and it no longer listens
        httpx.get(url, params={"query": "ASK {}"}, timeout=5)


def test_a_busy_port_is_one_line_and_exit_status_3() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*ATLAS, "--port", str(port), "--workers", "1"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 3
    assert done.stderr == (
        f"atlas serve: error: cannot listen on 127.0.0.1:{port}: Address already in use "
        "(another server? choose another port)\n"
    )
    assert done.stdout == ""


def test_a_host_that_is_not_this_machines_is_exit_status_3() -> None:
    done = subprocess.run(
        [*ATLAS, "--host", "192.0.2.1", "--workers", "1"],  # TEST-NET-1: never an address here
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 3
    last = done.stderr.splitlines()[-1]
    assert last.startswith("atlas serve: error: cannot listen on 192.0.2.1:7878: ")
    assert "SPARQL endpoint at" not in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "80000"], "argument --port: not a port (0 to 65535): '80000'"),
        (["--timeout", "-1"], "argument --timeout: not a number of seconds above 0: '-1'"),
        (["--workers", "-2"], "argument --workers: not a whole number above 0: '-2'"),
    ],
)
def test_bad_values_are_usage_errors(argv: list[str], message: str) -> None:
    done = subprocess.run([*ATLAS, *argv], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == f"atlas serve: error: {message}"
    assert "Traceback" not in done.stderr


def test_workers_that_cannot_load_the_data_stop_the_server_with_the_reason(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.ttl"
    broken.write_text("<http://e.org/s> <http://e.org/p> .\n", encoding="utf-8")
    said: list[str] = []
    with pytest.raises(PoolError, match=r"cannot load the data: .*broken\.ttl: invalid Turtle"):
        serve(Settings(workers=1, data=(broken,)), port=0, ready=said.append)
    assert said == []  # never said to be ready
    assert "Traceback" not in capfd.readouterr().err


def test_a_port_that_cannot_be_had_fails_before_any_worker_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from atlas.publish import serve as module  # noqa: PLC0415

    def no_pool(*_: object) -> None:
        pytest.fail("a worker pool was made for a port that cannot be had")

    monkeypatch.setattr(module, "Pool", no_pool)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(CannotServeError, match="Address already in use") as caught:
            serve(Settings(workers=1), port=port)
    assert isinstance(caught.value, ValueError)  # a ServeError too, as it always was
