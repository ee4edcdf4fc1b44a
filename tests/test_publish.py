"""Publishing: to a real Oxigraph server (slow), and to an in-memory store behind a mock transport.

The real server is started on a free loopback port and stopped after; the in-memory store (a
pyoxigraph ``Store`` behind ``httpx.MockTransport``) takes hooks that make one request fail, so
that each failure of the store is tested on its own.
"""

from __future__ import annotations

import datetime as dt
import http.server
import json
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Self
from urllib.parse import parse_qs

import httpx
import pyoxigraph
import pytest

import atlas
from atlas.publish import graphstore as publish
from atlas.publish._witnessgraphs import witness_graphs
from atlas.query import store

OXIGRAPH = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
COMBINATIONS = [(m, d) for m in ("eager", "compile") for d in ("cpu", "gpu")]
OTHER = "https://example.org/other"
#: The witness records' graphs, published beside the atlas: their IRIs and sizes.
WITNESS = {name: len(triples) for name, triples in witness_graphs().items()}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Oxigraph:
    """An Oxigraph server over a folder; ``start`` may be called again to restart it."""

    def __init__(self, location: Path) -> None:
        self.location = location
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, mode: str = "serve") -> Oxigraph:
        self.process = subprocess.Popen(
            [OXIGRAPH, mode, "--location", str(self.location), "--bind", f"127.0.0.1:{self.port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while not self._answers():
            assert self.process.poll() is None, "oxigraph stopped while starting"
            assert time.monotonic() < deadline, "oxigraph did not start"
            time.sleep(0.1)
        return self

    def _answers(self) -> bool:
        try:
            httpx.get(f"{self.url}/query", params={"query": "ASK {}"}, timeout=2)
        except httpx.TransportError:
            return False
        return True

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None

    def count(self, graph: str) -> int:
        response = httpx.post(
            f"{self.url}/query",
            data={
                "query": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
                "default-graph-uri": graph,
            },
            headers={"Accept": "application/sparql-results+json"},
        )
        return int(response.json()["results"]["bindings"][0]["n"]["value"])

    def graphs(self, pattern: str = "?s ?p ?o") -> set[str]:
        """The named graphs that hold a triple; all of them, empty ones too, with ``pattern=''``."""
        response = httpx.post(
            f"{self.url}/query",
            data={"query": f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ {pattern} }} }}"},
            headers={"Accept": "application/sparql-results+json"},
        )
        return {b["g"]["value"] for b in response.json()["results"]["bindings"]}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oxigraph]:
    if not Path(OXIGRAPH).exists():
        pytest.skip("the oxigraph server (PyPI package 'oxigraph', test extra) is not installed")
    running = Oxigraph(tmp_path_factory.mktemp("oxigraph")).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def published(server: Oxigraph) -> publish.Published:
    return publish.publish(server.url)


@pytest.mark.slow
def test_publish_puts_every_triple_in_the_graph(
    server: Oxigraph, published: publish.Published
) -> None:
    assert published.triples == len(store.store())
    assert server.count(publish.DEFAULT_GRAPH) == published.triples
    assert "published" in str(published)


@pytest.mark.slow
def test_publish_puts_each_witness_record_in_its_own_named_graph(
    server: Oxigraph, published: publish.Published
) -> None:
    assert WITNESS, "no witness record is shipped: the test shows nothing"
    assert dict(published.witness) == WITNESS
    for name, triples in WITNESS.items():
        assert server.count(name) == triples
    assert f" and {len(WITNESS)} witness graphs ({sum(WITNESS.values())} triples) in " in str(
        published
    )


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "device"), COMBINATIONS)
def test_the_path_query_on_the_server_gives_atlas_path(
    server: Oxigraph, published: publish.Published, mode: str, device: str
) -> None:
    remote = publish.Remote(f"{server.url}/query", published.graph)
    found = store.path(mode, device, engine=remote)
    expected = atlas.path(mode, device)
    assert found.stages == {s.id for s in expected.stages}
    assert found.steps == {j.step.id for j in expected.steps}


@pytest.mark.slow
def test_publishing_again_replaces_the_graph_and_leaves_no_temporary_graph(
    server: Oxigraph, published: publish.Published
) -> None:
    again = publish.publish(server.url, OTHER)
    again = publish.publish(server.url, OTHER)
    assert server.count(OTHER) == again.triples == published.triples
    assert server.graphs() == {publish.DEFAULT_GRAPH, OTHER, *WITNESS}
    assert all(server.count(name) == triples for name, triples in WITNESS.items())


@pytest.mark.slow
def test_a_store_that_is_down_is_reported() -> None:
    with pytest.raises(publish.PublishError, match=r"cannot reach the store .* is it running"):
        publish.publish(f"http://127.0.0.1:{_free_port()}", timeout=5)


@pytest.mark.slow
def test_a_partial_upload_leaves_the_previous_graph(
    server: Oxigraph, published: publish.Published, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, count = publish._payload()
    cut = b"".join(data.splitlines(keepends=True)[:100])  # whole triples, but too few
    monkeypatch.setattr(publish, "_payload", lambda: (cut, count))
    with pytest.raises(
        publish.PublishError, match=f"partial upload: .* 100 of {count} .*previous graph is intact"
    ):
        publish.publish(server.url)
    assert server.count(publish.DEFAULT_GRAPH) == published.triples
    assert server.graphs() <= {publish.DEFAULT_GRAPH, OTHER, *WITNESS}


@pytest.mark.slow
def test_a_broken_upload_is_refused_and_leaves_the_previous_graph(
    server: Oxigraph, published: publish.Published, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, count = publish._payload()
    line_end = data.rfind(b"\n", 0, len(data) // 2) + 1
    # cut inside a triple: the store cannot parse the upload
    monkeypatch.setattr(publish, "_payload", lambda: (data[: line_end + 10], count))
    with pytest.raises(publish.PublishError, match="refused the upload: HTTP 400"):
        publish.publish(server.url)
    assert server.count(publish.DEFAULT_GRAPH) == published.triples
    # cut between triples: the store parses it, and the count shows what is missing
    monkeypatch.setattr(publish, "_payload", lambda: (data[:line_end], count))
    with pytest.raises(publish.PublishError, match=r"partial upload: the store kept \d+ of"):
        publish.publish(server.url)
    assert server.count(publish.DEFAULT_GRAPH) == published.triples


@pytest.mark.slow
def test_a_read_only_store_refuses_and_keeps_its_graph(tmp_path: Path) -> None:
    if not Path(OXIGRAPH).exists():
        pytest.skip("the oxigraph server is not installed")
    own = Oxigraph(tmp_path).start()
    try:
        before = publish.publish(own.url).triples
        own.stop()
        own.start("serve-read-only")
        with pytest.raises(publish.PublishError, match="the store refused the upload: HTTP 4"):
            publish.publish(own.url)
        assert own.count(publish.DEFAULT_GRAPH) == before
    finally:
        own.stop()


@pytest.mark.slow
def test_an_invalid_graph_iri_is_refused_before_any_request() -> None:
    with pytest.raises(publish.PublishError, match="invalid graph IRI 'not an iri'"):
        publish.publish("http://127.0.0.1:1", "not an iri")


@pytest.mark.slow
def test_the_command_publishes_and_fails_in_one_line(
    server: Oxigraph, capsys: pytest.CaptureFixture[str]
) -> None:
    from atlas import cli  # noqa: PLC0415

    graph = "https://example.org/from-the-cli"
    assert cli.main(["publish", "--store", server.url, "--graph", graph]) == 0
    assert f"triples to <{graph}> and {len(WITNESS)} witness graphs" in capsys.readouterr().out
    assert server.count(graph) == len(store.store())
    # a store that cannot be reached: it could not run here (3), nothing is wrong with the data
    assert cli.main(["publish", "--store", f"http://127.0.0.1:{_free_port()}"]) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "atlas publish: error: cannot reach the store" in err
    assert "the previous graph is intact" in err


@pytest.mark.slow
def test_the_command_can_leave_the_witness_graphs_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from atlas import cli  # noqa: PLC0415

    if not Path(OXIGRAPH).exists():
        pytest.skip("the oxigraph server is not installed")
    own = Oxigraph(tmp_path).start()
    try:
        assert cli.main(["publish", "--store", own.url, "--no-witness", "--json"]) == 0
        done = json.loads(capsys.readouterr().out)
        assert (done["graph"], done["witness"]) == (publish.DEFAULT_GRAPH, [])
        assert own.graphs("") == {publish.DEFAULT_GRAPH}
        assert cli.main(["publish", "--store", own.url, "--json"]) == 0
        done = json.loads(capsys.readouterr().out)
        assert {w["graph"]: w["triples"] for w in done["witness"]} == WITNESS
        assert own.graphs("") == {publish.DEFAULT_GRAPH, *WITNESS}
    finally:
        own.stop()


# --- Killed runs: a real server, reached through a gate that holds one request ---------------

# A moment of a run: a request (its kind and which one of that kind), held before it reaches the
# store or after the store carried it out. The kinds: list (stale graphs), put (the upload),
# count (the upload, then the target), move; a run sends them in that order.
MOMENTS = [
    ("list", 1, False),
    ("put", 1, False),
    ("put", 1, True),
    ("count", 1, True),
    ("move", 1, False),
    ("move", 1, True),
    ("count", 2, True),
]


class Gate:
    """A loopback proxy in front of a store that holds one request until released.

    Held before forwarding, the request never reaches the store; held after, the store has
    carried it out but its answer never comes back (a lost answer).
    """

    def __init__(self, upstream: str, kind: str, nth: int, *, after: bool) -> None:
        self.upstream = upstream
        self.hold = (kind, nth)
        self.after = after
        self.seen: list[str] = []
        self.reached = threading.Event()
        self.release = threading.Event()
        self._lock = threading.Lock()
        gate = self

        class Relay(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                gate.relay(self)

            def do_PUT(self) -> None:
                gate.relay(self)

            def do_DELETE(self) -> None:
                gate.relay(self)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Relay)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Self:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def relay(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        kind = handler.command.lower()
        if handler.path.startswith("/update"):
            kind = "move"
        elif handler.path.startswith("/query"):
            kind = "count" if b"COUNT" in body else "list"
        with self._lock:
            self.seen.append(kind)
            held = self.hold == (kind, self.seen.count(kind))
        if held and not self.after:
            self.reached.set()
            self.release.wait(60)
            return
        headers = {k: v for k, v in handler.headers.items() if k in ("Content-Type", "Accept")}
        answer = httpx.request(
            handler.command, self.upstream + handler.path, content=body, headers=headers
        )
        if held:
            self.reached.set()
            self.release.wait(60)
            return
        handler.send_response(answer.status_code)
        if "Content-Type" in answer.headers:
            handler.send_header("Content-Type", answer.headers["Content-Type"])
        handler.send_header("Content-Length", str(len(answer.content)))
        handler.end_headers()
        handler.wfile.write(answer.content)


def _run_until(gate: Gate, graph: str) -> subprocess.Popen[bytes]:
    """Start ``atlas publish`` through the gate; return once it waits on the held request."""
    command = [sys.executable, "-m", "atlas", "publish", "--store", gate.url, "--graph", graph]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not gate.reached.wait(0.05):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait(10)
            pytest.fail(f"atlas publish never sent the request {gate.hold} (it sent {gate.seen})")
    return process


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Oxigraph]:
    if not Path(OXIGRAPH).exists():
        pytest.skip("the oxigraph server (PyPI package 'oxigraph', test extra) is not installed")
    running = Oxigraph(tmp_path).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.mark.slow
def test_runs_killed_at_any_moment_leave_orphans_that_the_next_run_removes(
    own_server: Oxigraph,
) -> None:
    graph = publish.DEFAULT_GRAPH
    full = publish.publish(own_server.url, graph).triples
    for kind, nth, after in MOMENTS:
        with Gate(own_server.url, kind, nth, after=after) as gate:
            process = _run_until(gate, graph)
            process.kill()
            assert process.wait(10) == -signal.SIGKILL
        assert own_server.count(graph) == full  # the old graph or the new one, always whole
    orphans = own_server.graphs("") - {graph, *WITNESS}
    assert orphans, "no kill left a temporary graph: the test shows nothing"
    assert publish.publish(own_server.url, graph).removed == ()  # young orphans are kept
    again = publish.publish(own_server.url, graph, stale_after=0)
    assert set(again.removed) == orphans
    assert own_server.graphs("") == {graph, *WITNESS}
    assert own_server.count(graph) == full == len(store.store())


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "after"), [("put", True), ("count", False), ("move", False)])
def test_sigterm_mid_run_removes_the_temporary_graph_before_the_process_ends(
    own_server: Oxigraph, kind: str, *, after: bool
) -> None:
    graph = publish.DEFAULT_GRAPH
    full = publish.publish(own_server.url, graph).triples
    with Gate(own_server.url, kind, 1, after=after) as gate:
        process = _run_until(gate, graph)
        process.terminate()
        assert process.wait(30) == -signal.SIGTERM  # the signal still ends the process
        assert own_server.graphs("") == {graph, *WITNESS}  # no orphan, without another run
    assert own_server.count(graph) == full


# --- Failures one at a time: an in-memory store behind httpx.MockTransport -----------------

TARGET = "https://example.org/target"
OLD = b'<https://example.org/s> <https://example.org/p> "old" .\n'
NEW = b"".join(
    f'<https://example.org/s> <https://example.org/p> "new {n}" .\n'.encode() for n in range(3)
)
Hook = Callable[[httpx.Request], httpx.Response]


class FakeStore:
    """A Graph Store with query and update endpoints over a pyoxigraph ``Store``.

    ``hooks`` maps a kind of request (``list``, ``put``, ``count``, ``move``, ``delete``) to a
    function that answers the next one in its place (once); ``down`` makes every request fail
    to connect.
    """

    def __init__(self) -> None:
        self.store = pyoxigraph.Store()
        self.seen: list[str] = []
        self.hooks: dict[str, Hook] = {}
        self.down = False

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self.handle))

    def handle(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        kind = self.kind(request)
        self.seen.append(kind)
        hook = self.hooks.pop(kind, None)
        return hook(request) if hook else self.answer(request)

    @staticmethod
    def kind(request: httpx.Request) -> str:
        if request.url.path == "/store":
            return request.method.lower()
        if request.url.path == "/update":
            return "move"
        return "count" if "COUNT" in parse_qs(request.content.decode())["query"][0] else "list"

    def answer(self, request: httpx.Request) -> httpx.Response:
        graph = pyoxigraph.NamedNode(request.url.params.get("graph", "urn:x:none"))
        if request.method == "PUT":
            self.put(graph.value, request.content)
            return httpx.Response(201)
        if request.method == "DELETE":
            if graph.value not in self.graphs():
                return httpx.Response(404, text=f"The graph {graph} does not exist")
            self.store.remove_graph(graph)
            return httpx.Response(204)
        if request.url.path == "/update":
            try:
                self.store.update(request.content.decode())
            except RuntimeError as error:
                return httpx.Response(500, text=str(error))
            return httpx.Response(204)
        form = parse_qs(request.content.decode())
        graph_uri = form.get("default-graph-uri")
        default = pyoxigraph.NamedNode(graph_uri[0]) if graph_uri else None
        results = self.store.query(form["query"][0], default_graph=default)
        assert isinstance(results, pyoxigraph.QuerySolutions)
        body = results.serialize(format=pyoxigraph.QueryResultsFormat.JSON)
        return httpx.Response(
            200, content=body, headers={"Content-Type": "application/sparql-results+json"}
        )

    def put(self, graph: str, data: bytes) -> None:
        node = pyoxigraph.NamedNode(graph)
        if graph in self.graphs():
            self.store.remove_graph(node)
        self.store.add_graph(node)
        self.store.load(data, format=pyoxigraph.RdfFormat.N_TRIPLES, to_graph=node)

    def graphs(self) -> set[str]:
        return {g.value for g in self.store.named_graphs() if isinstance(g, pyoxigraph.NamedNode)}

    def count(self, graph: str) -> int:
        return len(
            list(self.store.quads_for_pattern(None, None, None, pyoxigraph.NamedNode(graph)))
        )


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeStore:
    """A store whose target graph holds one old triple; the atlas to publish has three (and
    no witness record: ``witnessed`` has two)."""
    monkeypatch.setattr(publish, "_payload", lambda: (NEW, 3))
    monkeypatch.setattr(publish, "_witness_payloads", dict)
    fake = FakeStore()
    fake.put(TARGET, OLD)
    return fake


def _publish(fake: FakeStore, stale_after: float = publish.STALE_AFTER) -> publish.Published:
    with fake.client() as client:
        return publish.publish("http://store.test", TARGET, client=client, stale_after=stale_after)


def _failing(fake: FakeStore, failure: str, *, done: bool) -> Hook:
    """A request that the store carries out (or not, ``done``) and whose answer is lost."""

    def hook(request: httpx.Request) -> httpx.Response:
        if done:
            fake.answer(request)
        if failure == "timeout":
            raise httpx.ReadTimeout("timed out", request=request)
        if failure == "reset":
            raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)
        if failure == "down":
            fake.down = True
            raise httpx.RemoteProtocolError("Server disconnected", request=request)
        return httpx.Response(503, text="Service Unavailable")

    return hook


def _raises(fake: FakeStore, stale_after: float = publish.STALE_AFTER) -> str:
    with pytest.raises(publish.PublishError) as caught:
        _publish(fake, stale_after)
    return str(caught.value)


FAILURES = ["timeout", "reset", "503"]


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_move_that_the_store_did_says_the_new_graph_is_in_place(
    fake: FakeStore, failure: str
) -> None:
    fake.hooks["move"] = _failing(fake, failure, done=True)
    message = _raises(fake)
    assert "the store shows that the MOVE was done: the new graph is in place in " in message
    assert f"<{TARGET}> (3 triples)" in message
    assert "intact" not in message
    assert ("the MOVE answer was lost" in message) == (failure != "503")
    assert fake.graphs() == {TARGET}
    assert fake.count(TARGET) == 3


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_move_that_the_store_did_not_do_says_intact_once_verified(
    fake: FakeStore, failure: str
) -> None:
    fake.hooks["move"] = _failing(fake, failure, done=False)
    message = _raises(fake)
    assert "the store shows that the MOVE was not done" in message
    assert f"the previous graph <{TARGET}> is intact" in message
    assert fake.seen[-3:] == ["move", "count", "delete"]  # counted, then withdrawn
    assert fake.graphs() == {TARGET}  # withdrawn: a MOVE the store still holds cannot run
    assert fake.count(TARGET) == 1


@pytest.mark.parametrize("done", [True, False])
def test_a_store_that_cannot_be_asked_after_a_lost_move_gives_could_not_verify(
    fake: FakeStore, *, done: bool
) -> None:
    fake.hooks["move"] = _failing(fake, "down", done=done)
    message = _raises(fake)
    assert "the MOVE answer was lost" in message
    assert f"could not verify the state of <{TARGET}>: cannot reach the store" in message
    assert "intact" not in message
    assert "in place" not in message


def test_a_target_that_cannot_be_counted_after_the_move_is_not_called_verified(
    fake: FakeStore,
) -> None:
    def move(request: httpx.Request) -> httpx.Response:
        fake.hooks["count"] = _failing(fake, "timeout", done=False)
        return fake.answer(request)

    fake.hooks["move"] = move
    message = _raises(fake)
    assert f"the store accepted the MOVE, but counting <{TARGET}> then failed" in message
    assert "its state is not verified" in message
    assert "intact" not in message


NOT_RESULTS = [
    ("text/html", b"<!DOCTYPE html><html><body>Welcome to the store</body></html>"),
    ("application/sparql-results+json", b'{"head": {"vars": ["triples"]}, "results": {'),
    ("application/json", b'{"error": "no such endpoint"}'),
    ("", b""),
]


@pytest.mark.parametrize(("media", "body"), NOT_RESULTS)
def test_a_query_endpoint_that_answers_no_results_is_an_error_and_the_upload_is_removed(
    fake: FakeStore, media: str, body: bytes
) -> None:
    headers = {"Content-Type": media} if media else {}
    fake.hooks["count"] = lambda _: httpx.Response(200, content=body, headers=headers)
    message = _raises(fake)
    assert "the query endpoint http://store.test/query answered " in message
    assert "that is not SPARQL results (JSON)" in message
    assert (repr(media) in message) if media else ("'an untyped body'" in message)
    assert f"no update was sent for <{TARGET}>: the previous graph is intact" in message
    assert fake.seen == ["list", "put", "count", "delete"]
    assert fake.graphs() == {TARGET}
    assert fake.count(TARGET) == 1


def test_the_command_reports_an_html_query_endpoint_in_one_line(
    fake: FakeStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from atlas import cli  # noqa: PLC0415

    fake.hooks["list"] = lambda _: httpx.Response(200, text="<html></html>")
    client = fake.client()
    monkeypatch.setattr(httpx, "Client", lambda **_: client)
    assert cli.main(["publish", "--store", "http://store.test", "--graph", TARGET]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("atlas publish: error: the query endpoint http://store.test/query ")
    assert len(err.strip().splitlines()) == 1
    assert fake.seen == ["list"]  # nothing was uploaded


@pytest.mark.parametrize("moment", ["put", "count", "move", "move-done"])
def test_a_keyboard_interrupt_mid_run_removes_the_temporary_graph(
    fake: FakeStore, moment: str
) -> None:
    kind, _, done = moment.partition("-")

    def interrupt(request: httpx.Request) -> httpx.Response:
        if done or kind == "put":
            fake.answer(request)
        raise KeyboardInterrupt

    fake.hooks[kind] = interrupt
    with pytest.raises(KeyboardInterrupt):
        _publish(fake)
    assert fake.seen[-1] == "delete"
    assert fake.graphs() == {TARGET}
    assert fake.count(TARGET) == (3 if done else 1)


def test_sigterm_mid_run_removes_the_temporary_graph_then_reaches_the_previous_handler(
    fake: FakeStore,
) -> None:
    received: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    def terminate(request: httpx.Request) -> httpx.Response:
        signal.raise_signal(signal.SIGTERM)
        return fake.answer(request)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        fake.hooks["count"] = terminate
        with pytest.raises(publish.PublishError, match="publishing was stopped by SIGTERM"):
            _publish(fake)
        assert signal.getsignal(signal.SIGTERM) is handler
        assert received == [signal.SIGTERM]
        assert fake.graphs() == {TARGET}
        assert fake.count(TARGET) == 1
        # Outside the main thread the handlers are left alone (Python allows no change there).
        outcome: list[object] = []
        worker = threading.Thread(target=lambda: outcome.append(_publish(fake)))
        worker.start()
        worker.join()
        assert isinstance(outcome[0], publish.Published)
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_stale_temporary_graphs_of_the_target_are_removed_and_nothing_else(
    fake: FakeStore,
) -> None:
    def name(target: str, when: dt.datetime) -> str:
        return f"{publish._prefix(target)}{when:%Y%m%dT%H%M%SZ}-{uuid.uuid4()}"

    now = dt.datetime.now(dt.UTC)
    stale = name(TARGET, now - dt.timedelta(hours=2))
    stale_and_empty = name(TARGET, now - dt.timedelta(days=400))
    young = name(TARGET, now - dt.timedelta(minutes=5))
    kept = {
        young,
        name(OTHER, now - dt.timedelta(hours=2)),  # another target's
        f"{publish._prefix(TARGET)}notes",  # under the prefix, but not a name we make
        f"urn:uuid:{uuid.uuid4()}",
        "https://example.org/unrelated",
    }
    for graph in {stale, *kept}:
        fake.put(graph, OLD)
    fake.store.add_graph(pyoxigraph.NamedNode(stale_and_empty))
    done = _publish(fake)
    assert set(done.removed) == {stale, stale_and_empty}
    assert str(done).endswith("; removed 2 stale temporary graphs")
    assert fake.graphs() == {TARGET, *kept}
    assert fake.count(TARGET) == 3
    assert _publish(fake, stale_after=0).removed == (young,)


def test_a_run_that_could_not_move_in_time_gives_up_and_removes_its_graph(
    fake: FakeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(publish, "_MOVE_WITHIN", -1.0)
    message = _raises(fake)
    assert f"another run may take its temporary graph for an orphan: <{TARGET}>" in message
    assert "move" not in fake.seen
    assert fake.graphs() == {TARGET}
    assert fake.count(TARGET) == 1


@pytest.mark.parametrize("stale_after", [-1.0, float("nan"), float("inf")])
def test_an_invalid_age_for_stale_graphs_is_refused(stale_after: float) -> None:
    with pytest.raises(publish.PublishError, match="stale_after is a number of seconds >= 0"):
        publish.publish("http://127.0.0.1:1", stale_after=stale_after)


# --- the witness graphs, behind the mock transport -------------------------------------------

WITNESSED = {
    "https://example.org/witness/a": (
        b'<https://example.org/a> <https://example.org/p> "1" .\n',
        1,
    ),
    "https://example.org/witness/b": (NEW, 3),
}


@pytest.fixture
def witnessed(fake: FakeStore, monkeypatch: pytest.MonkeyPatch) -> FakeStore:
    """The fake store, with two witness graphs to publish beside the atlas."""
    monkeypatch.setattr(publish, "_witness_payloads", lambda: dict(WITNESSED))
    return fake


def test_each_witness_graph_replaces_its_own_graph_after_the_atlas(witnessed: FakeStore) -> None:
    witnessed.put("https://example.org/witness/a", OLD + NEW)  # a record published before
    done = _publish(witnessed)
    assert done.witness == (
        ("https://example.org/witness/a", 1),
        ("https://example.org/witness/b", 3),
    )
    assert witnessed.graphs() == {TARGET, *WITNESSED}
    assert [witnessed.count(g) for g in (TARGET, *WITNESSED)] == [3, 1, 3]
    # one run per graph, the atlas first: list, put, count, move, count
    assert witnessed.seen == ["list", "put", "count", "move", "count"] * 3


def test_a_witness_graph_that_fails_says_the_atlas_is_published(witnessed: FakeStore) -> None:
    moves = iter([None, httpx.Response(400, text="no")])

    def second_move_refused(request: httpx.Request) -> httpx.Response:
        answer = next(moves)
        if answer is None:  # the atlas's MOVE goes through; the next one is refused
            witnessed.hooks["move"] = second_move_refused
            return witnessed.answer(request)
        return answer

    witnessed.hooks["move"] = second_move_refused
    message = _raises(witnessed)
    assert message.startswith(
        f"<{TARGET}> is published (3 triples), but the witness graph "
        "<https://example.org/witness/a> is not: the store refused the update (MOVE): HTTP 400"
    )
    assert witnessed.count(TARGET) == 3
    assert witnessed.graphs() == {TARGET}  # the failed one's temporary graph is removed


def test_the_witness_graphs_can_be_left_out(witnessed: FakeStore) -> None:
    with witnessed.client() as client:
        done = publish.publish("http://store.test", TARGET, client=client, witness=False)
    assert done.witness == ()
    assert witnessed.graphs() == {TARGET}


def test_a_target_named_as_a_witness_graph_is_refused_before_any_request(
    witnessed: FakeStore,
) -> None:
    with (
        witnessed.client() as client,
        pytest.raises(
            publish.PublishError, match="is the name of a witness graph: publish to another graph"
        ),
    ):
        publish.publish("http://store.test", "https://example.org/witness/b", client=client)
    assert witnessed.seen == []


def test_a_store_that_cannot_be_reached_could_not_run(fake: FakeStore) -> None:
    from atlas.errors import CouldNotRunError  # noqa: PLC0415

    fake.down = True
    with pytest.raises(CouldNotRunError, match="cannot reach the store") as caught:
        _publish(fake)
    assert "the previous graph is intact" in str(caught.value)
    assert isinstance(caught.value, publish.PublishError)
