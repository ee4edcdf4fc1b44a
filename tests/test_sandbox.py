"""Defence in depth: with the parser guard switched off, ``atlas sparql`` and the query workers of
``atlas serve`` still open no connection. A listener on loopback must receive nothing.

Each run also has a control with the sandbox switched off too, which must reach the listener:
so the test would notice a sandbox that does nothing.
"""

from __future__ import annotations

import platform
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"),
    reason="the network sandbox is a Linux seccomp filter (x86-64 and AArch64)",
)

# Switches the parser guard off in the child: every text is judged a safe SELECT.
_GUARD_OFF = "import atlas.query._sparql as g; g._verdict = lambda query: ('SELECT', None)\n"
_SANDBOX_OFF = "import atlas.publish._sandbox as s; s.forbid_network = lambda: False\n"


class _Listener:
    """A loopback listener that counts connections and closes each at once."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.count = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                peer, _ = self.server.accept()
            except TimeoutError:
                continue
            self.count += 1
            peer.close()

    def connections(self) -> int:
        """How many connections arrived (read once the child has ended)."""
        self._stop.set()
        self._thread.join()
        self.server.close()
        return self.count


@pytest.fixture
def listener() -> Iterator[_Listener]:
    found = _Listener()
    yield found
    if not found._stop.is_set():
        found.connections()


def _query(server: _Listener) -> str:
    port = server.port
    return f"SELECT * WHERE {{ SERVICE <http://127.0.0.1:{port}/sparql> {{ ?s ?p ?o }} }}"


def _run(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )


def _program(query: str, *, sandbox: bool) -> str:
    """A child that runs ``atlas sparql QUERY`` as the program does, with the guard off."""
    return (
        _GUARD_OFF
        + ("" if sandbox else _SANDBOX_OFF)
        + f"import sys; sys.argv = ['atlas', 'sparql', {query!r}]\n"
        + "from atlas.cli import main; raise SystemExit(main())\n"
    )


def test_atlas_sparql_opens_no_connection_with_the_guard_off(listener: _Listener) -> None:
    done = _run(_program(_query(listener), sandbox=True))
    assert listener.connections() == 0
    assert done.returncode == 1
    assert "Permission denied" in done.stderr
    assert "Traceback" not in done.stderr


def test_control_without_the_sandbox_the_same_query_connects(listener: _Listener) -> None:
    _run(_program(_query(listener), sandbox=False))
    assert listener.connections() >= 1


def test_atlas_sparql_called_from_python_leaves_its_host_alone(listener: _Listener) -> None:
    script = textwrap.dedent(
        """
        from atlas.cli import main
        main(["sparql", "ASK {}"])
        import socket
        socket.create_connection(("127.0.0.1", PORT)).close()
        """
    ).replace("PORT", str(listener.port))
    assert _run(script).returncode == 0
    assert listener.connections() == 1


def _worker(query: str, *, sandbox: bool) -> str:
    """A child that runs the serve worker's own loop, with the guard off, and sends it a query."""
    return (
        _GUARD_OFF
        + ("" if sandbox else "import atlas.publish._pool as v; v.forbid_network = lambda: False\n")
        + textwrap.dedent(
            f"""
            import multiprocessing, threading
            from atlas.publish import _pool
            parent, child = multiprocessing.Pipe()
            threading.Thread(target=_pool._worker_main, args=(child, ()), daemon=True).start()
            print(parent.recv())
            parent.send(({query!r}, "*/*", 10, 1 << 20, None))
            print(parent.recv())
            """
        )
    )


def test_a_serve_worker_opens_no_connection_with_the_guard_off(listener: _Listener) -> None:
    done = _run(_worker(_query(listener), sandbox=True))
    assert listener.connections() == 0
    assert done.stdout.splitlines()[0] == "('ready', True)"
    assert "Permission denied" in done.stdout


def test_control_a_worker_without_the_sandbox_connects(listener: _Listener) -> None:
    _run(_worker(_query(listener), sandbox=False))
    assert listener.connections() >= 1


def test_the_sandbox_keeps_local_sockets_and_pipes() -> None:
    script = textwrap.dedent(
        """
        import os, socket
        from atlas.publish._sandbox import forbid_network
        assert forbid_network()
        a, b = socket.socketpair(); a.send(b"x"); assert b.recv(1) == b"x"
        socket.socket(socket.AF_UNIX).close()
        r, w = os.pipe(); os.write(w, b"y"); assert os.read(r, 1) == b"y"
        for family in (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK, socket.AF_PACKET):
            try:
                socket.socket(family, socket.SOCK_DGRAM if family == socket.AF_NETLINK else 1)
            except PermissionError:
                continue
            raise SystemExit(f"family {family} was allowed")
        print("ok")
        """
    )
    done = _run(script)
    assert done.stdout.strip() == "ok", done.stderr
