"""SPARQL over the graph: Python rows, named queries with bindings, formats, the path query."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph
import pytest

import atlas
from atlas import cli
from atlas.data import export
from atlas.errors import MissingValueError, UnknownIdError, UnknownValueError
from atlas.query import _results, store
from atlas.query._index import Index
from atlas.query._lexer import substitute

MINI = Path(__file__).parent / "fixtures" / "mini"
BASE = "https://w3id.org/execution-atlas/"
RDFS_LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"


@pytest.fixture(scope="module")
def toy() -> store.Local:
    return store.Local(store.load_store(sorted(MINI.glob("*.ttl"))))


@pytest.fixture(scope="module")
def toy_index() -> Index:
    return Index(export.read(MINI / "atlas.json"))


# --- the path query ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "device"), [(m, d) for m in ("eager", "compile") for d in ("cpu", "gpu")]
)
def test_path_query_gives_the_stages_and_steps_of_atlas_path(mode: str, device: str) -> None:
    expected = atlas.path(mode, device)
    found = store.path(mode, device)
    assert found.stages == {s.id for s in expected.stages}
    assert found.steps == {j.step.id for j in expected.steps}


@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_path_query_with_graph_breaks_gives_what_atlas_path_gives(device: str) -> None:
    expected = atlas.path("compile", device, graph_breaks=True)
    found = store.path("compile", device, branches=("graph breaks",))
    assert found.steps == {j.step.id for j in expected.steps}
    assert found.stages == {s.id for s in expected.stages}
    assert found.steps > store.path("compile", device).steps


def test_path_query_matches_the_index_on_every_toy_selection(
    toy: store.Local, toy_index: Index
) -> None:
    paths = toy_index.all_paths("toy")
    assert len(paths) == 4
    for expected in paths:
        bindings: dict[str, object] = {"atlas": "toy"}
        for slot, concept in zip(("value1", "value2"), expected.selection, strict=True):
            bindings[slot] = f"{BASE}scheme/{concept.id}"
        rows = store.run("path", bindings, engine=toy)  # type: ignore[arg-type]
        assert isinstance(rows, _results.Solutions)
        steps = {t.value.removeprefix(f"{BASE}step/") for t in rows.column("step")}  # type: ignore[union-attr]
        assert steps == {j.step.id for j in expected.steps}
        stages = {
            t.value.removeprefix(f"{BASE}stage/")  # type: ignore[union-attr]
            for name in ("entry", "from", "to")
            for t in rows.column(name)
        }
        assert stages == {s.id for s in expected.stages}


def test_matching_steps_outside_the_reach_of_the_entry_are_left_out() -> None:
    # Under compile + cpu, "ATen CPU kernels run on the CPU" matches its conditions but is only
    # reached through the fallback step; eager-only stages must not appear.
    found = store.path("compile", "cpu")
    assert "aten-dispatch" not in found.stages
    raw = store.execute(
        store.named_query("path").text,
        store.named_query("path").bind({"atlas": "pytorch", "mode": "compile", "device": "cpu"}),
    )
    assert isinstance(raw, _results.Solutions)
    assert len(raw.rows) >= len(found.steps)


def test_path_query_reads_values_as_atlas_path_does() -> None:
    assert store.path(mode="torch.compile", device="NVIDIA GPU") == store.path("compile", "gpu")
    with pytest.raises(UnknownValueError, match="valid: CPU, NVIDIA GPU"):
        store.path("compile", "tpu")


def test_reachable_follows_only_steps_that_hold_under_the_selection() -> None:
    rows = store.run("reachable", {"start": "torchdynamo", "mode": "compile", "device": "gpu"})
    assert isinstance(rows, _results.Solutions)
    reached = {t.value.removeprefix(f"{BASE}stage/") for t in rows.column("to")}  # type: ignore[union-attr]
    gpu_path = store.path("compile", "gpu").stages
    assert reached
    assert reached <= gpu_path
    assert "cpp-openmp-kernels" not in reached


# --- Python rows and bindings ---------------------------------------------------------------


def test_select_gives_rows_of_python_values() -> None:
    rows = atlas.sparql(
        "PREFIX ea: <https://w3id.org/execution-atlas/vocab#> "
        "SELECT ?order ?python WHERE { <https://w3id.org/execution-atlas/stage/cpython> "
        "ea:order ?order ; ea:executesInPython ?python }"
    )
    assert rows == [{"order": 2, "python": True}]


def test_ask_gives_a_bool_and_construct_gives_turtle() -> None:
    assert atlas.sparql("ASK { ?s a <https://w3id.org/execution-atlas/vocab#Stage> }") is True
    text = atlas.sparql(
        "CONSTRUCT WHERE { <https://w3id.org/execution-atlas/stage/cpu> " + RDFS_LABEL + " ?l }"
    )
    assert "stage:cpu rdfs:label" in text
    assert len(list(pyoxigraph.parse(text.encode(), format=pyoxigraph.RdfFormat.TURTLE))) == 1


def test_bindings_replace_variables() -> None:
    query = "SELECT ?s ?l WHERE { ?s " + RDFS_LABEL + " ?l }"
    assert atlas.sparql(query, {"l": "CPU"}) == [{"s": f"{BASE}stage/cpu", "l": "CPU"}]
    iri = pyoxigraph.NamedNode(f"{BASE}stage/cpu")
    assert atlas.sparql(query, {"s": iri}) == [{"s": f"{BASE}stage/cpu", "l": "CPU"}]


def test_a_binding_outside_the_projection_is_a_clear_error() -> None:
    with pytest.raises(store.SparqlError, match="cannot bind"):
        store.execute("SELECT ?s WHERE { ?s ?p ?o }", {"o": "x"})


def test_invalid_sparql_is_a_sparql_error() -> None:
    with pytest.raises(store.SparqlError, match="invalid SPARQL"):
        atlas.sparql("SELECT ?s WHERE { ?s ?p ")


def test_row_cap_cuts_and_says_so() -> None:
    result = store.execute("SELECT ?s WHERE { ?s ?p ?o }", max_rows=3)
    assert isinstance(result, _results.Solutions)
    assert len(result.rows) == 3
    assert result.truncated


# --- named queries ---------------------------------------------------------------------------


def test_named_queries_ship_described() -> None:
    queries = store.named_queries()
    assert {"path", "reachable", "downstream", "written-in", "python-ends", "evidence"} <= set(
        queries
    )
    for named in queries.values():
        assert named.summary.endswith(".")
        assert all(p.description for p in named.parameters)
    assert [p.name for p in queries["path"].parameters] == ["atlas"]
    assert queries["path"].reachable == "entry"


def test_every_named_query_runs() -> None:
    examples = {
        "path": {"atlas": "pytorch", "mode": "eager", "device": "cpu"},
        "reachable": {"start": "cpython", "mode": "eager", "device": "cpu"},
        "downstream": {"start": "cpython"},
        "evidence": {"subject": "stage/cpython"},
    }
    for name in store.named_queries():
        result = store.run(name, examples.get(name, {}))
        assert isinstance(result, _results.Solutions), name
        assert result.rows, name


def test_bound_parameters_leave_the_rows() -> None:
    rows = store.run("written-in", {"language": "c"})
    assert isinstance(rows, _results.Solutions)
    assert "language" not in rows.variables
    every = store.run("written-in")
    assert isinstance(every, _results.Solutions)
    assert "language" in every.variables
    assert len(every.rows) >= len(rows.rows) > 0


def test_named_query_errors_name_the_choices() -> None:
    with pytest.raises(UnknownIdError, match="'path'"):
        store.named_query("paths")
    with pytest.raises(UnknownValueError, match="atlas"):
        store.run("path", {"mode": "eager", "device": "cpu"})
    with pytest.raises(UnknownValueError, match="valid: language"):
        store.run("written-in", {"lang": "c"})
    with pytest.raises(UnknownValueError, match="dimension"):
        store.run("reachable", {"start": "cpython", "colour": "red"})


def test_parameters_take_ids_relative_iris_and_iris() -> None:
    param = store.named_query("evidence").parameters[0]
    assert param.term("x").value == f"{BASE}step/x"  # type: ignore[union-attr]
    assert param.term("stage/cpu").value == f"{BASE}stage/cpu"  # type: ignore[union-attr]
    assert param.term("https://example.org/a").value == "https://example.org/a"  # type: ignore[union-attr]


def test_substitute_writes_terms_into_the_text_for_remote_endpoints() -> None:
    text = substitute("SELECT ?a ?b WHERE { ?a ?p ?b }", {"a": "<http://e/x>"})
    assert text == "SELECT (<http://e/x> AS ?a) ?b WHERE { <http://e/x> ?p ?b }"
    assert substitute('SELECT * { ?s ?p "?a" }', {"a": "<http://e/x>"}) == 'SELECT * { ?s ?p "?a" }'
    with pytest.raises(ValueError, match="assigns"):
        substitute("SELECT (1 AS ?a) WHERE {}", {"a": "<http://e/x>"})
    with pytest.raises(ValueError, match="assigns"):
        substitute("SELECT * WHERE { VALUES (?b ?a) { (1 2) } }", {"a": "<http://e/x>"})


# --- formats ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def solutions() -> _results.Solutions:
    result = store.execute(
        "PREFIX ea: <https://w3id.org/execution-atlas/vocab#> "
        "SELECT ?s ?l ?o ?none WHERE { ?s " + RDFS_LABEL + " ?l ; ea:order ?o . "
        "OPTIONAL { ?s ea:nothing ?none } } ORDER BY ?s LIMIT 5"
    )
    assert isinstance(result, _results.Solutions)
    return result


@pytest.mark.parametrize(
    ("fmt", "parser_format"),
    [
        ("json", pyoxigraph.QueryResultsFormat.JSON),
        ("xml", pyoxigraph.QueryResultsFormat.XML),
        ("tsv", pyoxigraph.QueryResultsFormat.TSV),
    ],
)
def test_result_formats_read_back_the_same_rows(
    solutions: _results.Solutions, fmt: str, parser_format: pyoxigraph.QueryResultsFormat
) -> None:
    parsed = pyoxigraph.parse_query_results(store.write(solutions, fmt), format=parser_format)
    assert isinstance(parsed, pyoxigraph.QuerySolutions)
    assert tuple(v.value for v in parsed.variables) == solutions.variables
    assert tuple(tuple(r[v] for v in solutions.variables) for r in parsed) == solutions.rows


def test_csv_and_table(solutions: _results.Solutions) -> None:
    csv_text = store.write(solutions, "csv").decode()
    assert csv_text.startswith("s,l,o,none\r\n")
    assert csv_text.count("\r\n") == 6
    table = store.write(solutions).decode().splitlines()
    assert table[0].split() == ["s", "l", "o", "none"]
    assert set(table[1]) == {"-", " "}
    assert table[2].startswith("atlas:") or table[2].startswith("scheme:")


def test_a_format_that_cannot_write_the_result_is_refused() -> None:
    with pytest.raises(store.SparqlError, match="valid: json, xml, table"):
        store.write(True, "csv")  # noqa: FBT003 - an ASK result
    with pytest.raises(store.SparqlError, match="valid: turtle"):
        store.write(_results.Triples(()), "json")


# --- the command line ------------------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_lists_named_queries(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "sparql", "--list")
    assert code == 0
    assert "path: " in out
    assert "--bind atlas=" in out
    assert "DIMENSION=VALUE" in out


def test_a_parameter_left_without_a_value_is_named_with_what_it_takes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(
        MissingValueError, match="query 'path' needs a value for its parameter 'atlas': the atlas"
    ):
        store.named_query("path").bind({"mode": "compile", "device": "gpu"})
    code, _, err = run_cli(capsys, "sparql", "--name", "evidence")
    assert code != 0
    assert "query 'evidence' needs a value for its parameter 'subject': the step" in err


def test_cli_runs_a_named_query_with_bindings(capsys: pytest.CaptureFixture[str]) -> None:
    argv = "sparql --name path --bind atlas=pytorch --bind mode=eager --bind device=cpu"
    code, out, _ = run_cli(capsys, *argv.split(), "--format", "json")
    assert code == 0
    data = json.loads(out)
    steps = {b["step"]["value"].rsplit("/", 1)[1] for b in data["results"]["bindings"]}
    assert steps == {j.step.id for j in atlas.path("eager", "cpu").steps}


def test_cli_reads_a_query_file_and_prints_csv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    query = tmp_path / "labels.rq"
    query.write_text("SELECT ?l WHERE { <" + BASE + "stage/cpu> " + RDFS_LABEL + " ?l }")
    code, out, _ = run_cli(capsys, "sparql", str(query), "--format", "csv")
    assert (code, out) == (0, "l\r\nCPU\r\n")


def test_cli_prints_turtle_for_construct(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "sparql", "CONSTRUCT WHERE { <" + BASE + "stage/cpu> " + RDFS_LABEL + " ?l }"
    )
    assert code == 0
    assert 'stage:cpu rdfs:label "CPU"' in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["SELECT * WHERE { SERVICE <http://example.org/> { ?s ?p ?o } }"], "SERVICE is refused"),
        (["--name", "nope"], "unknown query id 'nope'"),
        ([], "give a query"),
        (["ASK {}", "--format", "csv"], "cannot write ASK"),
        (["ASK {}", "--bind", "novalue"], "NAME=VALUE"),
    ],
)
def test_cli_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run_cli(capsys, "sparql", *argv)
    assert code == 1
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_every_id_base_of_the_vocabulary_has_a_prefix() -> None:
    from atlas.models import _vocab  # noqa: PLC0415

    bases = {c.base for c in _vocab.CLASSES.values() if c.base}
    assert {f"{_results.BASE_IRI}{b}" for b in bases} <= set(_results.PREFIXES.values())


def test_every_named_query_with_every_parameter_substituted_still_parses() -> None:
    # a remote endpoint gets the bindings written into the text: `ORDER BY ?atlas` with ?atlas
    # bound must become `ORDER BY (<iri>)`, which a SPARQL parser accepts (a bare IRI is not)
    import pyoxigraph  # noqa: PLC0415

    empty = pyoxigraph.Store()
    for named in store.named_queries().values():
        terms = {
            p.name: '"x"' if p.base == "literal" else "<https://example.org/x>"
            for p in named.parameters
        }
        empty.query(substitute(named.text, terms))  # SyntaxError when the text is not SPARQL
    assert substitute("SELECT * { ?a ?p ?b } GROUP BY ?a", {"a": "<http://e/x>"}).endswith(
        "GROUP BY (<http://e/x>)"
    )
