"""Shell completion: ``atlas completion {bash,zsh,fish}`` made from the parser.

The bash script is sourced in bash and asked, as bash asks it (``COMP_WORDS``, ``COMP_CWORD``),
what completes a command line. zsh and fish are checked with ``zsh -n`` and ``fish -n`` where
installed, and everywhere by their structure: each table row read back as the shell would.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from atlas import cli
from atlas.cli._parse import parser

BASH = shutil.which("bash")
#: The sub-commands of ``atlas``, from its parser.
COMMANDS = sorted(
    next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
)


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(["completion", shell]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if BASH is None:
        pytest.skip("bash is not installed")
    path = tmp_path_factory.mktemp("completion") / "atlas.bash"
    command = [sys.executable, "-m", "atlas", "completion", "bash"]
    path.write_text(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    return path


def _complete(script: Path, *words: str, cwd: Path | None = None) -> list[str]:
    """What bash completes for the command line ``words`` (the last one being typed)."""
    program = (
        f"source {script}\n"
        'COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=()\n'
        "_atlas\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        [BASH or "bash", "--norc", "-c", program, "bash", *words],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    )
    assert done.stderr == ""
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (("atlas", "pa"), ["path"]),
        (("atlas", "path", "--f"), ["--format"]),
        (("atlas", "path", "--format", ""), ["text", "json", "markdown", "csv", "dot", "mermaid"]),
        (("atlas", "path", "--format", "m"), ["markdown", "mermaid"]),
        (("atlas", "path", "--format", "=", "me"), ["mermaid"]),  # --format=me, split at '='
        (("atlas", "path", "--json", "eag"), ["eager"]),  # a dimension value from the data
        (("atlas", "path", "--mode", "comp"), ["compile", "compiled"]),
        (("atlas", "stages", "--atlas", "ll"), ["llamacpp"]),
        (("atlas", "site", ""), ["build", "serve"]),
        (("atlas", "site", "build", "--ex"), ["--export"]),
        (("atlas", "publish", "--auth", ""), ["basic", "bearer"]),
        (("atlas", "publish", "--ins"), ["--insecure"]),
        (("atlas", "completion", ""), ["bash", "zsh", "fish"]),
        (("atlas", "--ver"), ["--version"]),
        (("atlas", "sparql", "--format", "json", "--li"), ["--list"]),
    ],
)
def test_bash_completes_commands_options_and_choices(
    bash_script: Path, words: tuple[str, ...], expected: list[str]
) -> None:
    assert _complete(bash_script, *words) == expected


def test_bash_offers_every_command_at_the_start(bash_script: Path) -> None:
    assert sorted(_complete(bash_script, "atlas", "")) == COMMANDS


def test_bash_completes_file_names_where_an_option_takes_a_file(
    bash_script: Path, tmp_path: Path
) -> None:
    (tmp_path / "token.txt").write_text("x")
    (tmp_path / "folder").mkdir()
    assert _complete(bash_script, "atlas", "publish", "--auth-file", "tok", cwd=tmp_path) == [
        "token.txt"
    ]
    assert _complete(bash_script, "atlas", "check", "--sources", "", cwd=tmp_path) == ["folder"]
    # an option value that is a command's name is not taken for the command
    assert _complete(bash_script, "atlas", "path", "--branch", "site", "--f") == ["--format"]


def test_bash_parses_the_script(bash_script: Path) -> None:
    done = subprocess.run(
        [BASH or "bash", "-n", str(bash_script)], capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr


# --- zsh and fish --------------------------------------------------------------------------------


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_the_shell_parses_its_script(
    shell: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = shutil.which(shell)
    if program is None:
        pytest.skip(f"{shell} is not installed (its script's structure is tested below)")
    path = tmp_path / f"atlas.{shell}"
    path.write_text(_script(shell, capsys))
    done = subprocess.run([program, "-n", str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_the_zsh_script_is_a_compdef_whose_tables_hold_the_parser(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = _script("zsh", capsys)
    assert text.startswith("#compdef atlas\n")
    assert "compdef _atlas atlas" in text
    if BASH is None:
        pytest.skip("bash reads the tables back")
    # The tables are in the syntax bash and zsh share: read them back in bash.
    tables = tmp_path / "tables.sh"
    tables.write_text(text[: text.index("_atlas_offer()")])
    program = f'source {tables}; _atlas_commands "$1" "$2"; printf "%s\\n" "${{reply[@]}}"'

    def reply(*key: str) -> list[str]:
        done = subprocess.run(
            [BASH, "--norc", "-c", program, "bash", *key],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.splitlines()

    described = reply("")
    assert sorted(line.partition(":")[0] for line in described) == COMMANDS
    assert "values:list each dimension's values, with their aliases" in described
    assert [line.partition(":")[0] for line in reply("site")] == ["build", "serve"]


def _fish_words(line: str) -> list[str]:
    """The words of a fish command line of plain words and single-quoted ones (\\' and \\\\)."""
    found = list(re.finditer(r"'((?:[^'\\]|\\.)*)'|([^\s']+)", line))
    assert " ".join(m[0] for m in found) == line, f"not fish words: {line}"
    return [m[2] if m[1] is None else re.sub(r"\\(.)", r"\1", m[1]) for m in found]


def test_the_fish_script_completes_each_command_option_and_choice(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = _script("fish", capsys)
    lines = [_fish_words(line) for line in text.splitlines() if line.startswith("complete ")]
    assert lines[0] == ["complete", "-c", "atlas", "-f"]  # no file names unless an option names one
    lines = lines[1:]
    top = [
        words[words.index("-a") + 1]
        for words in lines
        if words[4] == "__atlas_is" and "-a" in words
    ]
    assert sorted(top) == COMMANDS
    path_format = next(w for w in lines if w[4] == "__atlas_is path" and "format" in w)
    assert path_format[path_format.index("-a") + 1].split() == [
        "text",
        "json",
        "markdown",
        "csv",
        "dot",
        "mermaid",
    ]
    store = next(w for w in lines if w[4] == "__atlas_is publish" and "store" in w)
    assert store[store.index("-d") + 1] == "the store's base URL"
    assert next(w[5:9] for w in lines if w[4] == "__atlas_is publish" and "auth-file" in w) == [
        "-l",
        "auth-file",
        "-r",
        "-F",
    ]
    assert "case 'site|build'" in text or "'site|build'" in text
    assert text.count("function ") == text.count("\nend\n")


def test_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["completion", "tcsh"])
    assert stopped.value.code == 2
    assert "invalid choice: 'tcsh'" in capsys.readouterr().err
