"""The versioned JSON(-LD) export: fresh, canonical, atomic, and the same graph as the Turtle."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Self

import pytest
import rdflib
from pyld import jsonld
from rdflib.compare import isomorphic, to_isomorphic

from atlas.checks.build import build
from atlas.cli import main
from atlas.data import _resources, export, turtle
from atlas.models import SCHEMA_URL, SCHEMA_VERSION, AtlasDocument
from checkkit import MINI, no_network

SHIPPED = Path(str(_resources.export_file()))
MINI_FILES = [turtle.TurtleFile.load(p, p.name) for p in sorted(MINI.glob("*.ttl"))]


def test_the_committed_export_equals_a_fresh_export_of_the_turtle() -> None:
    fresh = export.dumps(build())
    assert SHIPPED.read_text(encoding="utf-8") == fresh, (
        "dataset/atlas.json is stale: run 'atlas export'"
    )


def test_the_mini_fixture_export_is_fresh_too() -> None:
    assert (MINI / "atlas.json").read_text(encoding="utf-8") == export.dumps(build(MINI_FILES))


def test_the_export_carries_its_versions_licence_and_counts() -> None:
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert data["$schema"] == SCHEMA_URL
    assert data["schemaVersion"] == SCHEMA_VERSION
    assert data["version"].count(".") == 2
    assert data["license"] == "https://creativecommons.org/licenses/by/4.0/"
    assert data["licenseName"] == "CC BY 4.0"
    assert data["issued"]
    assert data["counts"]["steps"] == len(data["steps"])
    assert isinstance(data["@context"], dict)


def test_the_export_is_canonical() -> None:
    text = SHIPPED.read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert export.dumps(AtlasDocument.model_validate_json(text)) == text


def test_export_to_a_file_and_read_it_back(tmp_path: Path) -> None:
    target = tmp_path / "out" / "atlas.json"
    assert main(["export", "--output", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8")
    assert export.read(target) == AtlasDocument.model_validate_json(SHIPPED.read_bytes())


def test_an_interrupted_write_leaves_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "atlas.json"
    target.write_text("the old export\n", encoding="utf-8")
    document = build(MINI_FILES)
    real_fdopen = os.fdopen

    class KilledError(Exception):
        pass

    class HalfWriter:
        """A file that writes the first 100 characters, then fails like a killed process."""

        def __init__(self, fd: int, *args: Any, **kwargs: Any) -> None:
            self.handle = real_fdopen(fd, *args, **kwargs)

        def __enter__(self) -> Self:
            return self

        def __exit__(self, *_: object) -> None:
            self.handle.close()

        def write(self, text: str) -> int:
            self.handle.write(text[:100])
            self.handle.flush()
            raise KilledError

    monkeypatch.setattr(os, "fdopen", HalfWriter)
    with pytest.raises(KilledError):
        export.write(document, target)
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "the old export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["atlas.json"], "no temporary file remains"


def test_a_failing_rename_leaves_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "atlas.json"
    target.write_text("the old export\n", encoding="utf-8")

    def refuse(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "replace", refuse)
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        export.write(build(MINI_FILES), target)
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "the old export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["atlas.json"]


def _no_remote_documents(url: str, options: Any = None) -> Any:
    raise AssertionError(f"JSON-LD processing tried to load {url!r}")


@pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated:DeprecationWarning")
@pytest.mark.parametrize("which", ["shipped", "mini"])
def test_the_export_as_json_ld_is_the_turtle_graph(which: str) -> None:
    files = None if which == "shipped" else MINI_FILES
    text = (
        SHIPPED.read_text(encoding="utf-8") if files is None else (MINI / "atlas.json").read_text()
    )
    with no_network():
        from_json = rdflib.Graph().parse(data=text, format="json-ld")
        from_turtle = turtle.dataset_graph(files)
    assert len(from_json) == len(from_turtle)
    assert isomorphic(from_json, from_turtle), _difference(from_json, from_turtle)


def test_an_independent_processor_expands_the_export_offline() -> None:
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    options = {"documentLoader": _no_remote_documents}
    with no_network():
        expanded = jsonld.expand(data, options)
        nquads = jsonld.to_rdf(data, {**options, "format": "application/n-quads"})
    assert expanded, "expansion gives nodes"
    from_pyld = rdflib.Graph().parse(data=nquads, format="nt")
    assert isomorphic(from_pyld, turtle.dataset_graph()), _difference(
        from_pyld, turtle.dataset_graph()
    )


def _difference(a: rdflib.Graph, b: rdflib.Graph) -> str:
    left, right = to_isomorphic(a), to_isomorphic(b)
    only_a = sorted(left - right)[:5]
    only_b = sorted(right - left)[:5]
    return f"only in the export: {only_a}\nonly in the Turtle: {only_b}"
