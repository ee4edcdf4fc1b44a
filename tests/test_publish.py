"""Publishing to a real Oxigraph server, started on a free loopback port and stopped after."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import atlas
from atlas import publish, store

pytestmark = pytest.mark.slow

OXIGRAPH = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
COMBINATIONS = [(m, d) for m in ("eager", "compile") for d in ("cpu", "gpu")]
OTHER = "https://example.org/other"


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

    def graphs(self) -> set[str]:
        response = httpx.post(
            f"{self.url}/query",
            data={"query": "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"},
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


def test_publish_puts_every_triple_in_the_graph(
    server: Oxigraph, published: publish.Published
) -> None:
    assert published.triples == len(store.store())
    assert server.count(publish.DEFAULT_GRAPH) == published.triples
    assert "published" in str(published)


@pytest.mark.parametrize(("mode", "device"), COMBINATIONS)
def test_the_path_query_on_the_server_gives_atlas_path(
    server: Oxigraph, published: publish.Published, mode: str, device: str
) -> None:
    remote = publish.Remote(f"{server.url}/query", published.graph)
    found = store.path(mode, device, engine=remote)
    expected = atlas.path(mode, device)
    assert found.stages == {s.id for s in expected.stages}
    assert found.steps == {j.step.id for j in expected.steps}


def test_publishing_again_replaces_the_graph_and_leaves_no_temporary_graph(
    server: Oxigraph, published: publish.Published
) -> None:
    again = publish.publish(server.url, OTHER)
    again = publish.publish(server.url, OTHER)
    assert server.count(OTHER) == again.triples == published.triples
    assert server.graphs() == {publish.DEFAULT_GRAPH, OTHER}


def test_a_store_that_is_down_is_reported() -> None:
    with pytest.raises(publish.PublishError, match=r"cannot reach the store .* is it running"):
        publish.publish(f"http://127.0.0.1:{_free_port()}", timeout=5)


def test_a_partial_upload_leaves_the_previous_graph(
    server: Oxigraph, published: publish.Published, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, count = publish._payload()
    cut = b"".join(data.splitlines(keepends=True)[:100])  # whole triples, but too few
    monkeypatch.setattr(publish, "_payload", lambda: (cut, count))
    with pytest.raises(publish.PublishError, match=f"partial upload: .* 100 of {count} .*intact"):
        publish.publish(server.url)
    assert server.count(publish.DEFAULT_GRAPH) == published.triples
    assert server.graphs() <= {publish.DEFAULT_GRAPH, OTHER}


def test_a_broken_upload_is_refused_and_leaves_the_previous_graph(
    server: Oxigraph, published: publish.Published, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, count = publish._payload()
    monkeypatch.setattr(publish, "_payload", lambda: (data[: len(data) // 2], count))
    with pytest.raises(publish.PublishError, match="refused the upload: HTTP 400"):
        publish.publish(server.url)
    assert server.count(publish.DEFAULT_GRAPH) == published.triples


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


def test_an_invalid_graph_iri_is_refused_before_any_request() -> None:
    with pytest.raises(publish.PublishError, match="invalid graph IRI 'not an iri'"):
        publish.publish("http://127.0.0.1:1", "not an iri")


def test_the_command_publishes_and_fails_in_one_line(
    server: Oxigraph, capsys: pytest.CaptureFixture[str]
) -> None:
    from atlas import cli  # noqa: PLC0415

    graph = "https://example.org/from-the-cli"
    assert cli.main(["publish", "--store", server.url, "--graph", graph]) == 0
    assert f"triples to <{graph}>" in capsys.readouterr().out
    assert server.count(graph) == len(store.store())
    assert cli.main(["publish", "--store", f"http://127.0.0.1:{_free_port()}"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "atlas publish: error: cannot reach the store" in err
