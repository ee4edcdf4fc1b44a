"""One table of exit statuses, ``-`` for standard input and output, ``--json`` where offered.

0 ok, 1 problems found, 2 usage error, 3 could not run here (a missing extra, a GPU that is not
there, an input that cannot be read). What depends on the real process (standard input, the
terminal's encoding) runs the command as a subprocess; the rest calls ``atlas.cli.main``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from atlas import cli
from atlas._version import __version__
from atlas._witness import run as witness_run
from atlas.data import _resources
from atlas.errors import UnknownValueError
from atlas.query import store

RAW_CPU = Path(__file__).resolve().parent / "fixtures" / "witness" / "raw-cpu.json"
EXPORT = Path(str(_resources.export_file()))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The last line argparse printed for a usage error (exit status 2)."""
    with pytest.raises(SystemExit) as stopped:
        cli.main(list(argv))
    assert stopped.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


def atlas(*argv: str, stdin: bytes = b"", **env: str) -> subprocess.CompletedProcess[bytes]:
    """``python -m atlas ARGV`` as a program, with ``stdin`` and extra environment."""
    return subprocess.run(
        [sys.executable, "-m", "atlas", *argv],
        input=stdin,
        capture_output=True,
        check=False,
        env={**os.environ, **env},
        timeout=300,
    )


# --- the table, and the versions ----------------------------------------------------------


def test_help_documents_every_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--help"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    table = out[out.index("exit status") :]
    for line in ("0    ok", "1    problems found", "2    usage error", "3    could not run"):
        assert line in table
    for cause in ("optional extra", "busy port", "out of", "cannot be read"):
        assert cause in table
    assert "'-', standard input" in out


def test_version_shows_the_package_and_the_data(capsys: pytest.CaptureFixture[str]) -> None:
    meta = json.loads(EXPORT.read_bytes())
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--version"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert out == f"atlas {__version__} (data {meta['version']}, issued {meta['issued']})\n"


def test_version_reads_the_data_without_the_models() -> None:
    probe = (
        "import sys; from atlas.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "assert 'pydantic' not in sys.modules and 'atlas.models' not in sys.modules, 'models'\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert b"(data " in done.stdout


# --- 3: could not run here ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["sparql", "missing.rq"], "cannot read the query file 'missing.rq': No such file"),
        (["sparql", "\x00query.rq"], "'\\x00query.rq': no file can have a NUL in its name"),
        (["diff", "missing.json", "x.json"], "cannot read the export 'missing.json': No such"),
        (["diff", "folder", "x.json"], "cannot read the export 'folder': it is a folder"),
        (["site", "build", "out", "--export", "folder"], "export 'folder': it is a folder"),
        (["witness", "--record", "missing.json"], "cannot read --record 'missing.json': No such"),
        (["witness", "--from-raw", "folder"], "cannot read --from-raw 'folder': Is a directory"),
    ],
)
def test_an_input_that_cannot_be_read_exits_3_naming_it(
    argv: list[str],
    needle: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    code, out, err = run(capsys, *argv)
    assert (code, out) == (3, "")
    assert len(err.splitlines()) == 1
    assert needle in err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_a_file_without_permission_exits_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    secret = tmp_path / "secret.rq"
    secret.write_text("ASK {}", encoding="utf-8")
    secret.chmod(0)
    code, _, err = run(capsys, "sparql", str(secret))
    assert code == 3
    assert "Permission denied" in err


def test_a_check_that_could_not_run_exits_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "check", str(tmp_path))  # an empty folder: no Turtle
    assert code == 3
    assert "could not run" in out.splitlines()[-1]
    assert "no Turtle files to check" in err


def test_witness_on_cuda_without_a_cuda_gpu_exits_3(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a CPU-only PyTorch: once the collector's AssertionError traceback, then exit status 1
    monkeypatch.setattr(witness_run, "torch_installed", lambda: True)
    monkeypatch.setattr(witness_run, "_cuda_available", lambda _env: False)
    monkeypatch.setattr(witness_run, "_run_child", lambda *_: pytest.fail("ran the collector"))
    code, out, err = run(capsys, "witness", "--mode", "eager", "--device", "cuda")
    assert (code, out) == (3, "")
    assert err.startswith("atlas witness: error: --device cuda: the installed PyTorch sees no")
    assert "--device cpu" in err
    assert "Traceback" not in err


def test_witness_without_torch_exits_3_with_the_install_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(witness_run, "torch_installed", lambda: False)
    code, _, err = run(capsys, "witness", "--device", "cpu")
    assert code == 3
    assert "pip install 'execution-atlas[witness]'" in err


def test_site_without_jinja2_exits_3_with_the_install_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    find_spec = importlib.util.find_spec

    def without_jinja2(name: str, *args: Any) -> Any:
        return None if name == "jinja2" else find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_jinja2)
    code, out, err = run(capsys, "site", "build", str(tmp_path / "site"))
    assert (code, out) == (3, "")
    assert "jinja2 is not installed" in err
    assert "pip install 'execution-atlas[site]'" in err
    assert not (tmp_path / "site").exists()


def test_a_missing_module_met_while_running_exits_3(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(*_: object, **__: object) -> None:
        raise ModuleNotFoundError("No module named 'uvicorn'", name="uvicorn")

    monkeypatch.setattr(store, "named_queries", missing)
    code, _, err = run(capsys, "sparql", "--list")
    assert code == 3
    assert err == (
        "atlas sparql: error: uvicorn is not installed: install the 'serve' extra: "
        "pip install 'execution-atlas[serve]'\n"
    )


def test_an_output_that_cannot_be_written_exits_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    code, _, err = run(
        capsys, "witness", "--from-raw", str(RAW_CPU), "-o", str(tmp_path / "file" / "x.json")
    )
    assert code == 3
    assert err.startswith("atlas witness: error: ")
    assert "Traceback" not in err


def test_site_serve_without_a_site_or_with_a_busy_port_exits_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "site", "serve", "--dir", str(tmp_path / "none"), "--port", "0")
    assert code == 3
    assert err.startswith("atlas site: error: no site in ")
    (tmp_path / "index.html").write_text("<p>site</p>", encoding="utf-8")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        code, _, err = run(capsys, "site", "serve", "--dir", str(tmp_path), "--port", port)
    assert code == 3
    assert "Address already in use" in err
    assert len(err.splitlines()) == 1


# --- '-': standard input and output; refused for a folder ---------------------------------


def test_sparql_reads_the_query_from_standard_input() -> None:
    done = atlas("sparql", "-", "--format", "csv", stdin=b"SELECT * WHERE { ?z ?p ?a } LIMIT 1")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().splitlines()[0] == "z,p,a"
    done = atlas("sparql", "-", stdin=b"ASK { ?s ?p ?o }")
    assert (done.returncode, done.stdout) == (0, b"true\n")


def test_diff_reads_either_export_from_standard_input() -> None:
    export = EXPORT.read_bytes()
    for argv in (["-", str(EXPORT)], [str(EXPORT), "-"]):
        done = atlas("diff", *argv, "--json", stdin=export)
        assert done.returncode == 0, done.stderr.decode()
        assert json.loads(done.stdout)["changes"] == []
    done = atlas("diff", "-", str(EXPORT), stdin=b"{")
    assert done.returncode == 1
    assert done.stderr.decode().startswith("atlas diff: error: <stdin> is invalid: <stdin>:")


def test_diff_reads_standard_input_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "diff", "-", "-")
    assert code == 2
    assert "only one export can be read from standard input" in err


def test_witness_reads_standard_input_and_writes_standard_output() -> None:
    done = atlas("witness", "--from-raw", "-", "-o", "-", stdin=RAW_CPU.read_bytes())
    assert done.returncode == 0, done.stderr.decode()
    record = json.loads(done.stdout)  # the record alone on standard output...
    assert record["atlas"] == "pytorch"
    assert f"record {record['id']}" in done.stderr.decode()  # ...and the summary beside it


def test_witness_raw_output_is_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "witness", "--raw", "-")
    assert (code, out) == (2, "")
    assert "--raw '-'" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["site", "build", "-"],
        ["site", "serve", "--dir", "-"],
        ["check", "-"],
        ["check", "--dataset", "-"],
        ["check", "--sources", "-"],
        ["sources", "fetch", "-"],
        ["export", "--dataset", "-"],
    ],
)
def test_a_folder_cannot_be_standard_input(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    last = usage_error(capsys, *argv)
    assert "'-' (standard input or output) cannot be a folder" in last


def test_check_says_why_its_export_is_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    last = usage_error(capsys, "check", "--export", "-")
    assert "'-' (standard input) cannot be checked" in last


def test_a_negative_max_age_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert "not a whole number of 0 or more: '-1'" in usage_error(capsys, "check", "--max-age=-1")


# --- --json where offered ------------------------------------------------------------------


def test_sparql_list_honours_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "sparql", "--list", "--json")
    assert code == 0
    queries = {q["name"]: q for q in json.loads(out)}
    assert set(queries) == set(store.named_queries())
    (language,) = queries["written-in"]["parameters"]
    assert (language["name"], language["base"], language["optional"]) == (
        "language",
        "technology/",
        True,
    )
    assert queries["path"]["selection"][0] == "value1"


# --- --bind: a value that matches nothing is an error ----------------------------------------


def test_a_bound_id_the_graph_lacks_is_an_error_listing_valid_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "sparql", "--name", "written-in", "--bind", "language=cobol")
    assert (code, out) == (1, "")
    assert err.startswith("atlas sparql: error: unknown language 'cobol'; valid: c, cpp, ")
    assert "technology ids" in err
    code, out, _ = run(capsys, "sparql", "--name", "written-in", "--bind", "language=cpp")
    assert code == 0
    assert "technology:pytorch" in out


def test_a_bound_id_is_checked_by_the_api_with_close_matches() -> None:
    with pytest.raises(UnknownValueError, match=r"did you mean 'torchdynamo'") as caught:
        store.run("downstream", {"start": "torchdynamoo"})
    assert "torchdynamo" in caught.value.choices
    with pytest.raises(UnknownValueError, match=r"unknown atlas 'nope'; valid: "):
        store.run("python-ends", {"atlas": "nope"})
    store.run("python-ends", {"atlas": "llamacpp"})  # an atlas of the graph: no error


# --- SELECT *: the columns in the query's order -------------------------------------------------


@pytest.mark.parametrize(
    ("query", "columns"),
    [
        ("SELECT * WHERE { ?z ?p ?a } LIMIT 1", ["z", "p", "a"]),
        ("select distinct * { ?z ?p ?a } LIMIT 1", ["z", "p", "a"]),
        ("SELECT * WHERE { { SELECT ?b ?a WHERE { ?a ?p ?b } LIMIT 1 } }", ["b", "a"]),
        ("SELECT * WHERE { ?y ?x ?w OPTIONAL { ?w ?v ?u } } LIMIT 1", ["y", "x", "w", "v", "u"]),
        ("SELECT ?a ?z WHERE { ?z ?p ?a } LIMIT 1", ["a", "z"]),  # a projection stays as written
        ("SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?s LIMIT 1", ["s", "n"]),
    ],
)
def test_select_star_lists_columns_in_the_order_of_the_query(
    query: str, columns: list[str]
) -> None:
    found = store.execute(query)
    assert list(found.variables) == columns  # type: ignore[union-attr]
    assert list(store.sparql(query)[0]) == columns


# --- a terminal that is not UTF-8 ------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["path", "eager", "cpu"],
        ["stage", "torchdynamo"],
        ["sparql", 'SELECT ?x WHERE { BIND("CPython \u2192 ATen \U0001f600" AS ?x) }'],
    ],
)
def test_a_terminal_that_is_not_utf8_gets_escapes_not_a_traceback(argv: list[str]) -> None:
    utf8 = atlas(*argv, PYTHONIOENCODING="utf-8")
    assert utf8.returncode == 0, utf8.stderr.decode()
    assert not utf8.stdout.isascii()  # the case at hand: characters cp1252 lacks
    for encoding in ("cp1252", "ascii"):
        done = atlas(*argv, PYTHONIOENCODING=encoding)
        assert done.returncode == 0, done.stderr.decode()
        assert done.stderr == b""
        text = done.stdout.decode(encoding)
        expected = utf8.stdout.decode("utf-8")
        assert text == expected.encode(encoding, "backslashreplace").decode(encoding)


def test_json_on_a_terminal_that_is_not_utf8_is_ascii_and_the_same() -> None:
    utf8 = atlas("stage", "torchdynamo", "--json", PYTHONIOENCODING="utf-8")
    done = atlas("stage", "torchdynamo", "--json", PYTHONIOENCODING="cp1252")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.isascii()
    assert json.loads(done.stdout) == json.loads(utf8.stdout)
