"""The documentation site: it builds with ``--strict``, and what it shows runs.

Every ``atlas`` command in a fenced ``console`` or ``bash`` block of a page (after the page's
directives are expanded: included README text and generated pages count) is run with this
environment's ``atlas`` against the shipped data, in a scratch copy of the checkout, and must
exit with 0; where a ``console`` block shows the output, the output must match (``...`` stands
for any text). A command that cannot run here carries, on its page, the marker
``<!-- docs-test: not-run (REASON): COMMAND -->`` with REASON one of network, gpu or server;
such markers stay few, and each must match a command. Every Python example in a page is a
doctest, and is run.
"""

from __future__ import annotations

import doctest
import functools
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest
from rdflib import Graph

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
if str(DOCS) not in sys.path:
    sys.path.insert(0, str(DOCS))

import atlasdocs  # noqa: E402  (docs/ is on the path only from here)
from atlasdocs import apidoc, clidoc, include, limits, queries, vocabulary  # noqa: E402

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+)(?P<lang>[\w-]*)\s*$")
_MARKER = re.compile(
    r"^<!-- docs-test: not-run \((?P<reason>[a-z]+)\): (?P<command>.+?) -->$", re.MULTILINE
)
_ATLAS = re.compile(r"(^|[|;&]\s*)(?:\S*/)?atlas(?=\s|$)")
REASONS = {"network", "gpu", "server"}
MAX_NOT_RUN = 5
SHARED = ROOT.parent / "shared"


@dataclass(frozen=True)
class Command:
    """An ``atlas`` command a page shows, with the output shown under it (if any)."""

    page: str
    line: str
    output: tuple[str, ...]

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(shlex.split(self.line, comments=True))


@functools.cache
def pages() -> dict[str, str]:
    """Every page as MkDocs renders it: its directives expanded; the generated pages too."""
    found = {
        str(path.relative_to(DOCS)): atlasdocs.expand(path.read_text(encoding="utf-8"), str(path))
        for path in sorted(DOCS.rglob("*.md"))
    }
    return found | atlasdocs.generated_pages()


def fenced_blocks(markdown: str) -> list[tuple[str, list[str]]]:
    """Each fenced block as (its language, its lines, unindented)."""
    blocks: list[tuple[str, list[str]]] = []
    lines = markdown.splitlines()
    at = 0
    while at < len(lines):
        opened = _FENCE.match(lines[at])
        if opened is None:
            at += 1
            continue
        indent, fence = len(opened["indent"]), opened["fence"]
        end = next(n for n in range(at + 1, len(lines)) if lines[n].strip() == fence)
        blocks.append((opened["lang"], [line[indent:] for line in lines[at + 1 : end]]))
        at = end + 1
    return blocks


def commands_of(page: str, markdown: str) -> list[Command]:
    """The ``atlas`` commands of a page's console and bash blocks."""
    found = []
    for lang, lines in fenced_blocks(markdown):
        if lang == "console":
            starts = [n for n, line in enumerate(lines) if line.startswith("$ ")]
            for n, start in enumerate(starts):
                output = lines[start + 1 : starts[n + 1] if n + 1 < len(starts) else None]
                found.append(Command(page, lines[start][2:], tuple(output)))
        elif lang in {"bash", "sh", "shell"}:
            shown = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
            found += [Command(page, line, ()) for line in shown]
    return [command for command in found if _ATLAS.search(command.line.split("#")[0])]


def markers() -> list[tuple[str, str, tuple[str, ...]]]:
    """Each not-run marker: (page, reason, the command's words)."""
    return [
        (page, match["reason"], tuple(shlex.split(match["command"])))
        for page, markdown in pages().items()
        for match in _MARKER.finditer(markdown)
    ]


def all_commands() -> list[Command]:
    return [command for page, text in pages().items() for command in commands_of(page, text)]


def _not_run(command: Command) -> str | None:
    for page, reason, words in markers():
        if page == command.page and words == command.words:
            return reason
    return None


def _params() -> list[object]:
    params = []
    for command in all_commands():
        marks = [pytest.mark.slow] if command.words[1:2] == ("witness",) else []
        params.append(pytest.param(command, marks=marks, id=f"{command.page}: {command.line}"))
    return params


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch checkout: a copy of dataset/ (commands may write there), the rest linked."""
    work = tmp_path_factory.mktemp("docs-commands")
    folder = work / "checkout"
    folder.mkdir()
    shutil.copytree(ROOT / "dataset", folder / "dataset")
    for name in ("schema", "tests", "src"):
        (folder / name).symlink_to(ROOT / name)
    if SHARED.is_dir():
        (work / "shared").symlink_to(SHARED)
    return folder


@pytest.mark.parametrize("command", _params())
def test_documented_command_runs(command: Command, checkout: Path) -> None:
    reason = _not_run(command)
    if reason is not None:
        pytest.skip(f"marked not-run on its page: needs the {reason}")
    if command.words[1:2] == ("witness",) and importlib.util.find_spec("torch") is None:
        pytest.skip("the witness extra (PyTorch) is not installed")
    if "../shared/" in command.line and not SHARED.is_dir():
        pytest.skip(f"no shared/ beside the checkout ({SHARED})")
    scripts = sysconfig.get_path("scripts")
    line = _ATLAS.sub(r"\1atlas", command.line)
    env = os.environ | {"PATH": scripts + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", line],
        cwd=checkout, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{command.page}: {line!r} exited {done.returncode}\n{done.stderr}"
    if command.output:
        want = "\n".join(command.output) + "\n"
        checker = doctest.OutputChecker()
        flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
        assert checker.check_output(want, done.stdout, flags), (
            f"{command.page}: the output of {line!r} is not what the page shows:\n"
            + checker.output_difference(doctest.Example(line, want), done.stdout, flags)
        )


def test_pages_show_commands_and_run_most_of_them() -> None:
    found = all_commands()
    assert len(found) > 15
    assert {"getting-started.md", "queries.md", "atlases/pytorch.md"} <= {c.page for c in found}
    skipped = [c for c in found if _not_run(c) is not None]
    assert len(skipped) <= MAX_NOT_RUN, [c.line for c in skipped]


def test_each_not_run_marker_names_a_command_of_its_page() -> None:
    found = markers()
    assert found
    for page, reason, words in found:
        assert reason in REASONS, f"{page}: not-run reason {reason!r}; valid: {sorted(REASONS)}"
        shown = [c.words for c in commands_of(page, pages()[page])]
        assert words in shown, f"{page}: the marker names no command it shows: {shlex.join(words)}"


def test_commands_are_found_in_console_and_bash_blocks() -> None:
    text = (
        "```console\n$ atlas path eager cpu\neager\n...\n$ echo x | atlas sparql -\n```\n\n"
        "  ```bash\n  # a comment\n  .venv/bin/atlas check\n  pip install .\n  ```\n\n"
        "```text\natlas stages\n```\n"
    )
    found = commands_of("p.md", text)
    assert [(c.line, c.output) for c in found] == [
        ("atlas path eager cpu", ("eager", "...")),
        ("echo x | atlas sparql -", ()),
        (".venv/bin/atlas check", ()),
    ]


def test_python_examples_in_pages_are_doctests_and_pass() -> None:
    parser = doctest.DocTestParser()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    attempted = 0
    for page, markdown in pages().items():
        blocks = [lines for lang, lines in fenced_blocks(markdown) if lang in {"python", "pycon"}]
        for lines in blocks:
            assert any(line.startswith(">>>") for line in lines), f"{page}: an untested example"
        if not blocks:
            continue
        text = "\n".join("\n".join(lines) for lines in blocks)
        runner = doctest.DocTestRunner(optionflags=flags)
        runner.run(parser.get_doctest(text, {}, page, page, 0))
        result = runner.summarize(verbose=False)
        attempted += result.attempted
        assert not result.failed, f"{page}: {result.failed} example(s) fail; see the output above"
    assert attempted > 5


@pytest.mark.parametrize(
    "module", ["atlasdocs", "atlasdocs.doctests", "atlasdocs.include", "atlasdocs.markdown"]
)
def test_doctests_of_the_generators_pass(module: str) -> None:
    failures, tried = doctest.testmod(importlib.import_module(module))
    assert tried > 0
    assert failures == 0


def test_cli_reference_has_every_command_and_option() -> None:
    text = clidoc.reference()
    for words, parser, _ in clidoc.commands():
        assert f"## {' '.join(words)}\n" in text
        for action in parser._actions:
            for option in action.option_strings:
                assert option in text, f"{' '.join(words)} {option}"


def test_api_reference_covers_the_public_surface() -> None:
    import atlas  # noqa: PLC0415

    text = apidoc.api_reference()
    for name in atlas.__all__:
        assert f"::: atlas.{name}\n" in text or f"`atlas.{name}`" in text, name
    models = apidoc.model_reference()
    assert all(f"::: {apidoc._documented_path(cls)}\n" in models for cls in apidoc.models())


def test_named_queries_page_runs_each_query_file() -> None:
    files = sorted(p.stem for p in (ROOT / "src/atlas/query/queries").glob("*.rq"))
    text = pages()["queries.md"]
    for name in files:
        assert f"\n## {name}\n" in text
        assert any(c.words[:4] == ("atlas", "sparql", "--name", name) for c in all_commands())


def test_a_query_parameter_without_an_example_stops_the_build() -> None:
    from atlas.query import store  # noqa: PLC0415

    named = store.NamedQuery.parse("q", "# Q.\n#\n# @param x stage/ a stage\nASK {}\n")
    with pytest.raises(queries.ExampleError, match="gives no example"):
        queries.bindings(named)


def test_endpoint_limits_are_the_settings_defaults() -> None:
    import dataclasses  # noqa: PLC0415

    from atlas.publish import serve  # noqa: PLC0415

    text = limits.reference()
    for setting in dataclasses.fields(serve.Settings):
        assert f"| `{setting.name}` |" in text
    assert f"| `max_rows` | {serve.Settings.max_rows} | `--max-rows` |" in text


def test_an_option_whose_default_differs_from_its_setting_stops_the_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = limits.options()
    changed = dict(real)
    changed["max_rows"] = type(real["max_rows"])(["--max-rows"], "max_rows", default=7)
    monkeypatch.setattr(limits, "options", lambda: changed)
    with pytest.raises(limits.LimitsError, match="--max-rows defaults to 7"):
        limits.reference()


TINY_VOCABULARY = """\
@prefix ea: <https://w3id.org/execution-atlas/vocab#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
ea:A a owl:Class ; rdfs:subClassOf prov:Entity .
ea:B a owl:Class .
ea:C a owl:Class .
ea:link a owl:ObjectProperty ; rdfs:domain ea:A ;
    rdfs:range [ a owl:Class ; owl:unionOf ( ea:B ea:C ) ] .
ea:name a owl:DatatypeProperty ; rdfs:domain ea:B ; rdfs:range xsd:string .
ea:old a owl:ObjectProperty ; owl:deprecated true ; rdfs:domain ea:A ; rdfs:range ea:B .
"""


def test_vocabulary_diagram_draws_classes_unions_and_subclasses() -> None:
    found = vocabulary.read(Graph().parse(data=TINY_VOCABULARY, format="turtle"))
    assert found.boxes == {
        "ea:A": [],
        "prov:Entity": [],
        "ea:B": ["ea:name: xsd:string"],
        "ea:C": [],
    }
    assert sorted(found.arrows) == [
        ("ea:A", "ea:B", "ea:link"),
        ("ea:A", "ea:C", "ea:link"),
        ("ea:A", "prov:Entity", vocabulary.SUBCLASS),
    ]


def test_vocabulary_diagram_is_mermaid_that_mermaid_reads(tmp_path: Path) -> None:
    import mermaidkit  # noqa: PLC0415

    drawn = vocabulary.read()
    text = vocabulary.mermaid(drawn)
    assert text in pages()["data-model.md"]
    read = mermaidkit.read(mermaidkit.parser_folder(), {"vocabulary": text}, tmp_path)
    answer = read["vocabulary"]
    assert "error" not in answer, answer
    node = {name: name.replace(":", "_").replace("-", "_") for name in drawn.boxes}
    expected = sorted([node[s], node[t], label] for s, t, label in drawn.arrows)
    assert sorted(answer["edges"]) == expected


def test_includes_name_existing_sections() -> None:
    with pytest.raises(include.IncludeError, match="has no section 'nowhere'"):
        include.text("README.md#nowhere")
    with pytest.raises(include.IncludeError, match=r"only README\.md"):
        include.text("pyproject.toml")
    with pytest.raises(atlasdocs.DirectiveError, match="cannot read the directive"):
        atlasdocs.expand("<!-- atlas-docs: generate nothing -->", "x.md")


def test_a_heading_inside_a_fenced_block_does_not_end_a_section() -> None:
    text = include.text("dataset/README.md#conventions-for-curators")
    assert "# An atlas, with its dimensions in order" in text  # a Turtle comment
    assert "A quote is valid when" in text


def _offline() -> list[str]:
    """A prefix that runs a command without a network (a namespace of its own), where possible."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    probe = subprocess.run([unshare, "--net", "true"], capture_output=True, check=False)
    return [unshare, "--net"] if probe.returncode == 0 else []


def test_site_builds_strict_and_offline(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra is not installed")
    site = tmp_path / "site"
    env = os.environ | {"NO_MKDOCS_2_WARNING": "1"}  # mkdocs-material's banner about MkDocs 2
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    done = subprocess.run(
        [*_offline(), *build],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "--max-connections-per-client" in cli
    for page in atlasdocs.generated_pages():
        assert (site / page.removesuffix(".md") / "index.html").is_file()
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert 'id="atlas.path"' in api
    assert '<span class="gp">&gt;&gt;&gt; </span>' in api  # doctest examples shown as code
