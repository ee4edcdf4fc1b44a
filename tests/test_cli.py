"""The command line: every command has help, prints for people and for tools, fails in one line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from atlas import cli


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    parser = cli._parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert {"path", "stages", "steps", "stage", "sparql", "export", "check", "diff"} <= set(
        commands
    )
    for name in commands:
        with pytest.raises(SystemExit) as caught:
            cli.main([name, "--help"])
        assert caught.value.code == 0
        assert "usage: atlas" in capsys.readouterr().out


def test_path_prints_numbered_steps_with_sources(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "path", "compile", "gpu")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "torch.compile on an NVIDIA GPU: 12 stages, 12 steps"
    numbered = [line for line in lines if re.match(r"^\d+\. ", line)]
    assert [int(line.split(".", 1)[0]) for line in numbered] == list(range(1, 13))
    assert "\u2014" in numbered[0]
    assert "\u2192" in numbered[0]
    # each sentence carries the numbers of its sources, listed under the step
    assert re.search(r"\. \[1\]", out)
    assert re.search(r"^   \[1\] .* <https://", out, re.MULTILINE)
    assert "checked 20" in out
    ends = out.rstrip().split("\n\n")[-1].splitlines()
    dynamo = "CPython interpreter \u2014 is intercepted by \u2192 TorchDynamo"
    assert ends[0] == f"Where Python ends: step 2 ({dynamo})"
    assert ends[1].startswith("Under torch.compile, Python's part ends earlier")


def test_path_json_is_the_model_dump(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "path", "eager", "cpu", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["summary"] == "eager mode on a CPU: 5 stages, 4 steps"
    assert [s["number"] for s in data["steps"]] == [1, 2, 3, 4]
    assert data["steps"][0]["evidence"][0]["citation"]["selector"]["exact"]


@pytest.mark.parametrize(
    "argv",
    [["stages"], ["steps"], ["stage", "torchdynamo"], ["stages", "--atlas", "pytorch"]],
)
def test_listings_for_people_and_tools(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert out.strip()
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 0
    assert json.loads(out)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["path", "eager", "tpu"], "unknown device 'tpu'; valid: CPU, NVIDIA GPU"),
        (["path", "eager", "compile", "gpu"], "'eager' and 'compile' give two values of the mode"),
        (["stage", "dynamoo"], "unknown stage id 'dynamoo'"),
        (["step", "nope"], "unknown step id 'nope'"),
        (["path", "x", "y", "--atlas", "nope"], "unknown atlas id 'nope'"),
    ],
)
def test_errors_are_one_line_with_status_1(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 1
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert needle in err
    assert "Traceback" not in err


def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "atlas", "stage", "nope"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("atlas stage: error: unknown stage id 'nope'")
    assert "Traceback" not in done.stderr


# --- wrong arguments: never a traceback, always a printable line -----------------------------


def test_main_refuses_arguments_that_are_not_text() -> None:
    from atlas.errors import ArgumentTypeError  # noqa: PLC0415

    with pytest.raises(ArgumentTypeError, match="argv must be a sequence of str"):
        cli.main([b"stages"])  # type: ignore[list-item]
    with pytest.raises(ArgumentTypeError, match="not str: 'stages'"):
        cli.main("stages")


@pytest.mark.parametrize(
    ("argv", "status", "needle"),
    [
        ([b"sparql", b'SELECT ?x WHERE { BIND("\xff" AS ?x) }'], 1, "the byte 0xff"),
        ([b"sparql", b"ASK {}", b"--bind", b"x=\xff"], 1, "binding 'x=\\udcff' is not valid"),
        ([b"path", b"compile", b"\xff"], 1, "value 2 '\\udcff' is not valid text"),
        ([b"stages", b"\xff"], 2, "unrecognized arguments: \\xff"),
    ],
)
def test_arguments_that_are_not_utf8_give_one_line(
    argv: list[bytes], status: int, needle: str
) -> None:
    done = subprocess.run(
        [sys.executable.encode(), b"-m", b"atlas", *argv], capture_output=True, check=False
    )
    err = done.stderr.decode("utf-8")  # printable: the bad byte is shown escaped
    assert done.returncode == status
    assert "Traceback" not in err
    assert needle in err
    assert len(err.strip().splitlines()) == (1 if status == 1 else 2)  # 2: usage, then error


@pytest.mark.parametrize(
    "argv",
    [
        ["stages", "\udcff"],  # what Python makes of the byte 0xff in the arguments
        ["diff", "a\x00b", "new.json"],
        ["export", "-o", "a\x00b"],
        ["site", "build", ""],
        ["check", "--dataset", "x" * 5000],
        ["publish", "--store", "http://127.0.0.1:9/", "--timeout", "nan"],
    ],
)
def test_usage_errors_are_printable_with_status_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # once, 'site build ""' built the site in the current folder
    with pytest.raises(SystemExit) as caught:  # capsys writes strict UTF-8, as a pipe does
        cli.main(argv)
    assert list(tmp_path.iterdir()) == []
    _, err = capsys.readouterr()
    assert caught.value.code == 2
    assert err.startswith("usage: atlas")
    assert err.splitlines()[-1].startswith("atlas")
    assert "Traceback" not in err


def test_a_port_out_of_range_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "index.html").write_text("<p>site</p>", encoding="utf-8")
    with pytest.raises(SystemExit) as caught:  # once an OverflowError from bind()
        cli.main(["site", "serve", "--dir", str(tmp_path), "--port", "70000"])
    assert caught.value.code == 2
    assert "not a port (0 to 65535): '70000'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "status", "needle"),
    [
        (["diff", "\udcffold.json", "new.json"], 3, "\\xffold.json"),  # 3: cannot be read
        (["diff", "\x1b[31mold.json", "new.json"], 3, "\\x1b[31mold.json"),
        (["stage", "x" * 5000], 1, "xxx...xxx"),
        (["sparql", "ASK {}", "--bind", "a b=1"], 1, "invalid name 'a b' in binding 'a b=1'"),
    ],
)
def test_error_lines_are_short_and_escape_bytes_and_control_characters(
    capsys: pytest.CaptureFixture[str], argv: list[str], status: int, needle: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (status, "")
    assert len(err.splitlines()) == 1
    assert needle in err
    assert "\x1b" not in err
    assert len(err) < 300


def test_a_query_file_that_is_not_utf8_is_named_with_its_byte(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a short name, shown whole however deep the temporary folder
    Path("latin1.rq").write_bytes('SELECT ?s WHERE { ?s ?p "caf\xe9" }'.encode("latin-1"))
    code, out, err = run(capsys, "sparql", "latin1.rq")
    assert (code, out) == (1, "")
    assert err == (
        "atlas sparql: error: the query file 'latin1.rq' is not UTF-8 text: "
        "byte 0xe9 at offset 28\n"
    )


def test_a_query_file_is_read_only_when_it_is_a_regular_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "fifo.rq"
    os.mkfifo(fifo)  # once waited on forever
    code, _, err = run(capsys, "sparql", str(fifo))
    assert code == 3  # an input that cannot be read: could not run
    assert "is not a regular file" in err
    code, _, err = run(capsys, "sparql", str(tmp_path / "missing.rq"))
    assert code == 3
    assert "cannot read the query file" in err
    assert "No such file or directory" in err


def test_a_long_query_on_one_line_is_a_query_not_a_file_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # once "[Errno 36] File name too long": the text was first looked up as a file
    code, out, _ = run(capsys, "sparql", "ASK { ?s ?p ?o }" + " " * 300)
    assert (code, out) == (0, "true\n")


@pytest.mark.parametrize("output", ["", ".", "out/"])
def test_a_file_option_that_names_no_file_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    output: str,
) -> None:
    # found by tests/test_cli_fuzz.py: once a ValueError from the witness's writer
    raw = Path(__file__).parent / "fixtures" / "witness" / "raw-cpu.json"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as caught:
        cli.main(["witness", "--from-raw", str(raw), "--output", output])
    assert caught.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("atlas witness: error: argument --output/-o: value")
    assert list(tmp_path.iterdir()) == []


def test_file_names_that_are_not_utf8_are_printed_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # once a UnicodeEncodeError where standard output is strict UTF-8 (a UTF-8 locale, capsys)
    folder = tmp_path / os.fsdecode(b"data\xff")
    shutil.copytree(Path(__file__).parent / "fixtures" / "mini", folder)
    code, out, _ = run(capsys, "check", "--dataset", str(folder), "--json")
    assert code == 0
    assert "data\\udcff/toy.ttl" in out  # JSON escapes the character: valid JSON, ASCII
    files = {p.get("file") for c in json.loads(out)["checks"] for p in c.get("problems", [])}
    assert f"{folder}/toy.ttl" in files
    code, out, _ = run(capsys, "check", "--dataset", str(folder))
    assert code == 0
    assert "data\\xff/toy.ttl:31: warning" in out  # the byte, as a text shows it


def test_path_graph_breaks_is_a_flag_for_torch_compile_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "path", "compile", "gpu", "--graph-breaks")
    assert code == 0
    assert (
        out.splitlines()[0]
        == "torch.compile on an NVIDIA GPU with graph breaks: 13 stages, 14 steps"
    )
    assert "normal Python" in out
    code, same, _ = run(capsys, "path", "compile", "gpu", "--branch", "Graph Breaks")
    assert (code, same) == (0, out)
    code, out, err = run(capsys, "path", "eager", "cpu", "--graph-breaks")
    assert code == 1
    assert out == ""
    assert (
        "graph breaks apply under torch.compile or reduce-overhead only, "
        "not under eager mode on a CPU" in err
    )
    assert "Traceback" not in err
