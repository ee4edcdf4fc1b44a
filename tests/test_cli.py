"""The command line: every command has help, prints for people and for tools, fails in one line."""

from __future__ import annotations

import json
import re
import subprocess
import sys

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
    assert "Source: " in out
    assert "checked 20" in out
    assert out.rstrip().splitlines()[-1].startswith("Where Python ends: step ")


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
        (["path", "gpu", "eager"], "check the order of the values"),
        (["stage", "dynamo"], "unknown stage id 'dynamo'"),
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
