"""The export's metadata: journeys, JSON-LD keys, vocabulary, DCAT/VoID, the project's URLs."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pydantic
import pytest
import rdflib
from pyld import jsonld
from rdflib.namespace import OWL, RDF, RDFS

import atlas
from atlas.checks._journeys import journey_order, journeys
from atlas.data import _resources, export, release, turtle
from atlas.data.schema import json_schema
from atlas.errors import DatasetError
from atlas.models import AtlasDocument
from atlas.models._iri import BASE_IRI
from atlas.models._journey import JOURNEY_ORDER
from atlas.models._vocab import CLASSES, expand
from atlas.publish import diff
from atlas.query._index import Index
from checkkit import MINI, changed_export, no_network

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = Path(str(_resources.export_file()))
DOCUMENT = AtlasDocument.model_validate_json(SHIPPED.read_bytes())
DATA = json.loads(SHIPPED.read_text(encoding="utf-8"))
EA = rdflib.Namespace(BASE_IRI + "vocab#")
IANA = "https://www.iana.org/assignments/media-types/"
OUTSIDE = "Outside the JSON-LD context"


# --- journeys ---------------------------------------------------------------------------------


def test_every_journey_is_the_path_that_atlas_path_prints() -> None:
    checked = 0
    for record in DOCUMENT.atlases:
        for journey in record.journeys:
            path = atlas.path(*journey.values, atlas=record.id, branches=list(journey.branches))
            assert list(journey.steps) == [j.id for j in path.steps], (record.id, journey)
            checked += 1
    # PyTorch: 9 paths and 4 with graph breaks (torch.compile on 3 devices, reduce-overhead on an
    # NVIDIA GPU); llama.cpp: 18
    assert checked == 13 + 18


def test_each_atlas_lists_every_selection_once_default_path_first() -> None:
    index = Index(DOCUMENT)
    for record in DOCUMENT.atlases:
        defaults = [j.values for j in record.journeys if not j.branches]
        expected = [tuple(c.id for c in p.selection) for p in index.all_paths(record.id)]
        assert defaults == expected, record.id
        keys = [(j.values, j.branches) for j in record.journeys]
        assert len(keys) == len(set(keys))
        for before, after in zip(record.journeys, record.journeys[1:], strict=False):
            if after.branches:  # a branch follows the default path of its selection
                assert before.values == after.values


def test_the_json_schema_states_the_journey_order() -> None:
    defs = json_schema()["$defs"]
    assert JOURNEY_ORDER in defs["Journey"]["properties"]["steps"]["description"]
    assert "Kahn" in JOURNEY_ORDER
    assert "journeys" not in defs["Atlas"].get("required", [])  # absent from format 2.0


def _readme_jq() -> tuple[str, list[str]]:
    """The jq program of dataset/README.md and the lines it shows it printing."""
    text = (ROOT / "dataset" / "README.md").read_text(encoding="utf-8")
    found = re.search(r"\$ jq -r '(.*?)' dataset/atlas\.json\n(.*?)\n```", text, re.DOTALL)
    assert found, "dataset/README.md lost its jq example"
    return found.group(1), found.group(2).splitlines()


def _labels(path: Any) -> list[str]:
    return [f"{j.number}. {j.label}" for j in path.steps]


def test_the_readme_shows_what_atlas_path_eager_cpu_prints() -> None:
    _, shown = _readme_jq()
    assert shown == _labels(atlas.path("eager", "cpu"))


def test_the_readme_jq_logic_in_python_gives_the_same_lines() -> None:
    program, shown = _readme_jq()
    # the same steps as the jq program, one for one
    assert 'select(.id == "pytorch")' in program
    assert '.values == ["pytorch-mode/eager", "pytorch-device/cpu"]' in program
    label = {s["id"]: s["label"] for s in DATA["stages"]}
    step = {s["id"]: s for s in DATA["steps"]}
    (record,) = (a for a in DATA["atlases"] if a["id"] == "pytorch")
    (journey,) = (
        j
        for j in record["journeys"]
        if j["values"] == ["pytorch-mode/eager", "pytorch-device/cpu"] and j["branches"] == []
    )
    lines = [
        f"{n}. {label[step[s]['from']]} \u2014 {step[s]['verb']} \u2192 {label[step[s]['to']]}"
        for n, s in enumerate(journey["steps"], 1)
    ]
    assert lines == shown


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed (apt-get install jq)")
def test_the_readme_jq_example_runs() -> None:
    program, shown = _readme_jq()
    done = subprocess.run(
        ["jq", "-r", program, str(SHIPPED)], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == shown


def test_the_steps_order_or_a_breadth_first_walk_is_not_the_journey_order() -> None:
    # why the export carries the journeys: the obvious rules give another order for some paths
    step = {s.id: s for s in DOCUMENT.steps}
    by_order = 0
    for record in DOCUMENT.atlases:
        for journey in record.journeys:
            ordered = sorted(journey.steps, key=lambda s: (step[s].order or 0, s))
            by_order += ordered != list(journey.steps)
    assert by_order > 0


def test_journeys_are_made_again_when_the_export_is_read() -> None:
    assert journey_order(DOCUMENT) == []
    made = journeys(DOCUMENT)
    assert {a.id: a.journeys for a in DOCUMENT.atlases} == made
    data = copy.deepcopy(DATA)
    (record,) = (a for a in data["atlases"] if a["id"] == "llamacpp")
    del record["journeys"][3]
    (problem,) = journey_order(AtlasDocument.model_validate(data))
    assert problem.code == "journey-order"
    assert "is missing" in problem.message
    assert problem.subject == f"{BASE_IRI}atlas/llamacpp"


def test_a_diff_does_not_report_journeys_made_from_the_steps() -> None:
    good = AtlasDocument.model_validate_json((MINI / "atlas.json").read_bytes())
    data = export.to_data(good)
    data["atlases"] = [{k: v for k, v in a.items() if k != "journeys"} for a in data["atlases"]]
    assert diff.diff(good, AtlasDocument.model_validate(data)).changes == ()


# --- JSON-LD: every key in the context, or outside it on purpose and said so ----------------


def _no_remote_documents(url: str, options: Any = None) -> Any:
    raise AssertionError(f"JSON-LD processing tried to load {url!r}")


def _triples(document: dict[str, Any]) -> int:
    options = {"documentLoader": _no_remote_documents, "format": "application/n-quads"}
    return len(jsonld.to_rdf(document, options).splitlines())


def _mini(chain: list[tuple[str, Any, Any]], leaf: dict[str, Any]) -> dict[str, Any]:
    """A document holding ``leaf`` where the export holds it, its parents with type and id only."""
    node = leaf
    for key, kind, node_id in reversed(chain):
        parent = {k: v for k, v in (("type", kind), ("id", node_id)) if v is not None}
        parent[key] = [node]
        node = parent
    return {"@context": DATA["@context"], "id": DATA["id"], "type": DATA["type"], **node}


class _Keys:
    """The (node type, key) pairs of the export that pyld turns into triples, and those it drops.

    Each key is judged once per place (the keys of the nodes above it, its node's type), on the
    first non-empty value found there: on a document that holds only that value, where the
    export holds it, and its parents with their type and id.
    """

    def __init__(self) -> None:
        self.judged: dict[tuple[tuple[str, ...], str, str], bool] = {}
        self.kept: set[tuple[str, str]] = set()
        self.dropped: dict[tuple[str, str], str] = {}  # with a JSON pointer to one
        self.walk(DATA, [], "")

    def walk(self, node: dict[str, Any], chain: list[tuple[str, Any, Any]], pointer: str) -> None:
        kind = str(node.get("type"))
        for key, value in node.items():
            if key in ("@context", "id", "type") or value in ([], {}, ""):
                continue
            place = (tuple(c[0] for c in chain), kind, key)
            if place not in self.judged:
                leaf = {k: node[k] for k in ("type", "id") if k in node}
                without = _triples(_mini(chain, leaf))
                self.judged[place] = _triples(_mini(chain, {**leaf, key: value})) > without
                if self.judged[place]:
                    self.kept.add((kind, key))
                else:
                    self.dropped.setdefault((kind, key), f"{pointer}/{key}")
            if not self.judged[place]:
                continue  # what lies below a dropped key is dropped with it
            link = (key, node.get("type"), node.get("id"))
            for n, item in enumerate(value if isinstance(value, list) else [value]):
                if isinstance(item, dict):
                    self.walk(item, [*chain, link], f"{pointer}/{key}/{n}")


def _definitions() -> dict[str, dict[str, Any]]:
    """The JSON Schema definition of each node type ('Dataset' is the document itself)."""
    schema = json_schema()
    found = {"Dataset": schema}
    for definition in schema["$defs"].values():
        kind = definition.get("properties", {}).get("type", {})
        if isinstance(kind.get("const", kind.get("default")), str):
            found[kind.get("const", kind.get("default"))] = definition
    return found


@pytest.fixture(scope="module")
def keys() -> _Keys:
    with no_network():
        return _Keys()


def test_json_ld_processors_drop_only_keys_documented_as_outside_the_context(keys) -> None:
    definitions = _definitions()
    readme = (ROOT / "dataset" / "README.md").read_text(encoding="utf-8")
    table = readme.split("**JSON-LD.**", 1)[1].split("##", 1)[0]
    dropped = keys.dropped
    assert len(keys.kept) > 60
    for (kind, key), pointer in sorted(dropped.items()):
        description = definitions[kind]["properties"][key]["description"]
        assert OUTSIDE in description, f"{pointer} ({kind}.{key}) is dropped by JSON-LD: say why"
        assert f"`{key}`" in table, f"dataset/README.md does not list {key!r} outside the context"
    # and the top-level keys dropped are exactly the ones the issue found, plus none
    top = sorted(key for kind, key in dropped if kind == "Dataset")
    assert top == ["$schema", "attribution", "counts", "licenseName", "schemaVersion", "witnesses"]
    assert ("Atlas", "journeys") in dropped
    assert ("Stage", "description") in dropped


def test_keys_in_the_context_are_not_said_to_be_outside_it(keys) -> None:
    said = 0
    for kind, definition in _definitions().items():
        for key, prop in definition.get("properties", {}).items():
            if OUTSIDE in prop.get("description", ""):
                said += 1
                assert (kind, key) not in keys.kept, f"{kind}.{key} is in the graph, yet said not"
    assert said >= 15


def test_the_catalog_keys_are_in_the_graph(keys) -> None:
    for key in ("modified", "currentVersion", "landingPage", "contactPoint", "distributions"):
        assert ("Dataset", key) in keys.kept
    for key in ("title", "mediaType", "downloadURL", "conformsTo"):
        assert ("Distribution", key) in keys.kept
    assert ("ContactPoint", "url") in keys.kept


# --- the vocabulary ---------------------------------------------------------------------------


def _vocabulary() -> rdflib.Graph:
    return rdflib.Graph().parse(_resources.schema_dir() / "vocabulary.ttl", format="turtle")


def test_every_ea_property_has_a_domain_and_a_range() -> None:
    graph = _vocabulary()
    kinds = (OWL.ObjectProperty, OWL.DatatypeProperty, RDF.Property)
    properties = {p for kind in kinds for p in graph.subjects(RDF.type, kind)}
    ours = sorted(p for p in properties if str(p).startswith(str(EA)))
    assert len(ours) > 30
    missing = [
        f"{p.removeprefix(str(EA))}: {', '.join(w for w, t in (('domain', RDFS.domain), ('range', RDFS.range)) if graph.value(p, t) is None)}"  # noqa: E501
        for p in ours
        if graph.value(p, RDFS.domain) is None or graph.value(p, RDFS.range) is None
    ]
    assert missing == [], f"give these ea: properties an rdfs:domain and rdfs:range: {missing}"


def test_every_ea_term_the_data_uses_is_declared() -> None:
    graph = _vocabulary()
    declared = set(graph.subjects(RDF.type, None))
    used = {
        expand(name)
        for cls in CLASSES.values()
        for name in (cls.rdf_type, *(t.predicate for t in cls.terms))
        if name.startswith("ea:")
    }
    assert used
    assert sorted(u for u in used if rdflib.URIRef(u) not in declared) == []


# --- DCAT and VoID ----------------------------------------------------------------------------


def _project_urls() -> dict[str, str]:
    urls: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    return urls


def test_the_dataset_is_described_for_catalogues() -> None:
    doc = DOCUMENT
    assert doc.modified is not None
    assert doc.modified >= doc.issued
    assert doc.current_version == f"{BASE_IRI}dataset/{doc.version}"
    assert doc.publisher is not None
    assert doc.publisher.startswith("https://")
    assert doc.license == "https://creativecommons.org/licenses/by/4.0/"
    assert doc.uri_space == BASE_IRI
    media = sorted(d.media_type.removeprefix(IANA) for d in doc.distributions)
    assert media == [
        "application/json",
        "application/ld+json",
        "application/n-triples",
        "text/turtle",
    ]
    assert all(d.media_type.startswith(IANA) for d in doc.distributions)
    urls = [d.download_url for d in doc.distributions]
    assert len(set(urls)) == len(urls)
    assert set(doc.data_dumps) <= set(urls)


def test_the_graph_holds_the_catalogue_as_dcat_and_void() -> None:
    graph = turtle.dataset_graph()
    dcat = rdflib.Namespace("http://www.w3.org/ns/dcat#")
    dct = rdflib.Namespace("http://purl.org/dc/terms/")
    void = rdflib.Namespace("http://rdfs.org/ns/void#")
    dataset = rdflib.URIRef(BASE_IRI)
    distributions = list(graph.objects(dataset, dcat.distribution))
    assert len(distributions) == 4
    for node in distributions:
        assert isinstance(graph.value(node, dcat.mediaType), rdflib.URIRef)
        assert isinstance(graph.value(node, dcat.downloadURL), rdflib.URIRef)
    for predicate in (dct.publisher, dct.license, dcat.landingPage, dcat.hasCurrentVersion):
        assert isinstance(graph.value(dataset, predicate), rdflib.URIRef), predicate
    assert graph.value(dataset, dct.modified) is not None
    assert len(list(graph.objects(dataset, void.dataDump))) == 2


def test_the_project_urls_are_configured_once_for_the_data_and_the_package() -> None:
    urls = _project_urls()
    doc = DOCUMENT
    assert doc.landing_page == urls["Homepage"]
    assert doc.contact_point is not None
    assert doc.contact_point.url == urls["Issues"]
    folder = f"{urls['Download']}/download/data-{doc.version}/"
    for distribution in doc.distributions:
        assert distribution.download_url.startswith(folder), distribution
        assert distribution.download_url.removeprefix(folder).startswith(
            f"execution-atlas-{doc.version}."
        )
    assert not any(u.startswith(BASE_IRI) for u in urls.values()), "w3id is the identifier space"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"currentVersion": f"{BASE_IRI}dataset/0.9.0"}, "currentVersion"),
        ({"modified": "2020-01-01"}, "is before issued"),
        ({"dataDumps": [f"https://example.org/x-{DATA['version']}.nt"]}, "must be download URLs"),
    ],
)
def test_the_catalogue_must_agree_with_the_version(change: dict[str, Any], message: str) -> None:
    data = {**DATA, **change}
    with pytest.raises(pydantic.ValidationError, match=message):
        AtlasDocument.model_validate(data)


def test_a_download_url_must_name_the_data_version() -> None:
    data = copy.deepcopy(DATA)
    data["distributions"][0]["downloadURL"] = "https://example.org/latest/atlas.json"
    with pytest.raises(pydantic.ValidationError, match="does not name the data version"):
        AtlasDocument.model_validate(data)


def test_a_publisher_given_as_a_name_is_refused() -> None:
    files = []
    for path in sorted(MINI.glob("*.ttl")):
        text = path.read_text(encoding="utf-8")
        if path.name == "catalog.ttl":
            named = 'dcterms:title "Mini atlas" ;\n    dcterms:publisher "The mini team" ;'
            text = text.replace('dcterms:title "Mini atlas" ;', named)
            assert "The mini team" in text
        files.append(turtle.TurtleFile(path.name, text))
    with pytest.raises(DatasetError, match="publisher: expected an IRI"):
        turtle.read_turtle(files)


def _named(graph: rdflib.Graph) -> set[tuple[Any, ...]]:
    """The triples, each blank node named by what it says (the dataset's are leaves: quotes,
    distributions, the contact point), so that graphs compare quickly."""
    said: dict[Any, list[tuple[Any, Any]]] = {}
    for s, p, o in graph:
        if isinstance(s, rdflib.BNode):
            said.setdefault(s, []).append((p, o))
    name = {node: tuple(sorted(pairs)) for node, pairs in said.items()}
    return {tuple(name.get(term, term) for term in triple) for triple in graph}


def test_a_release_writes_the_files_the_catalogue_names() -> None:
    folder = Path(str(_resources.dataset_dir()))
    files = release.release_files(folder)
    names = {d.download_url.rsplit("/", 1)[-1]: d for d in DOCUMENT.distributions}
    assert sorted(files) == sorted(names)
    by_media = {names[n].media_type.removeprefix(IANA): data for n, data in files.items()}
    assert by_media["application/json"] == SHIPPED.read_bytes()
    assert by_media["application/ld+json"] == SHIPPED.read_bytes()
    nt = rdflib.Graph().parse(data=by_media["application/n-triples"], format="nt")
    ttl = rdflib.Graph().parse(data=by_media["text/turtle"], format="turtle")
    assert len(nt) == len(ttl) == len(turtle.dataset_graph())
    assert _named(nt) == _named(ttl) == _named(turtle.dataset_graph())
    lines = by_media["application/n-triples"].splitlines()
    assert lines == sorted(lines)


def test_the_release_command_writes_them_and_says_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert release.main(["--dataset", str(MINI)]) == 2  # no output folder
    assert "usage:" in capsys.readouterr().out
    # the mini dataset describes no distributions
    assert release.main(["--dataset", str(MINI), str(tmp_path / "out")]) == 1
    assert "names no distributions" in capsys.readouterr().out
    assert not (tmp_path / "out").exists()
    (tmp_path / "file").write_text("not a folder")
    shipped = str(_resources.dataset_dir())
    assert release.main(["--dataset", shipped, str(tmp_path / "file" / "out")]) == 3
    assert "cannot write into" in capsys.readouterr().out


def test_a_distribution_of_an_unknown_media_type_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "dataset"
    shutil.copytree(MINI, folder)
    mini = AtlasDocument.model_validate_json((MINI / "atlas.json").read_bytes())
    odd = {
        "title": "RDF/XML",
        "mediaType": IANA + "application/rdf+xml",
        "downloadURL": f"https://example.org/atlas-{mini.version}.rdf",
    }
    export.write(changed_export(mini, distributions=[odd]), folder / "atlas.json")
    with pytest.raises(DatasetError, match=r"unknown media type .*rdf\+xml"):
        release.release_files(folder)


# --- the site shows the project's URLs --------------------------------------------------------


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_the_site_links_the_home_page_the_issue_tracker_and_the_files(tmp_path: Path) -> None:
    pytest.importorskip("jinja2", reason="the site needs the 'site' extra (Jinja2)")
    from atlas.publish import site  # noqa: PLC0415 - needs jinja2

    mini = AtlasDocument.model_validate_json((MINI / "atlas.json").read_bytes())
    files = {
        "title": "Turtle",
        "mediaType": IANA + "text/turtle",
        "downloadURL": f"https://example.org/dl/atlas-{mini.version}.ttl",
    }
    document = changed_export(
        mini,
        landingPage="https://example.org/home",
        contactPoint={"name": "tracker", "url": "https://example.org/issues"},
        distributions=[files],
    )
    site.build(tmp_path / "site", document)
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    page = (tmp_path / "site" / "toy" / "index.html").read_text(encoding="utf-8")
    for html in (index, page):  # the footer of every page
        assert 'href="https://example.org/home"' in html
        assert 'href="https://example.org/issues"' in html
    assert f'href="https://example.org/dl/atlas-{mini.version}.ttl">Turtle</a>' in index


# --- the README: install from a checkout, torch for each user, a real store ------------------


def test_the_readme_installs_from_a_checkout_with_any_python() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = text.split("```bash\n", 1)[1].split("```", 1)[0]
    assert first.startswith("python3 -m venv .venv && .venv/bin/pip install . && ")
    assert "python3.11" not in text
    assert "pip install 'execution-atlas[" not in text.replace(
        "once a release is on PyPI, `pip install 'execution-atlas[", ""
    )
    assert "--index-url https://download.pytorch.org/whl/cpu" in text
    assert "pip install torch==" not in text
    store = re.findall(r"atlas publish --store (\S+)", text)
    assert store, "the README shows no atlas publish"
    serve_port = "7878"  # atlas serve's default port: a read-only endpoint, not a store
    assert all(not url.rstrip("/").endswith(f":{serve_port}") for url in store), store
    assert "oxigraph serve" in text
