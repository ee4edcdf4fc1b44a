"""``atlas.render`` and ``atlas path --format ... --brief``: every format, read back by real tools.

Each rendering is checked on a tiny fixture path (its exact text, which pins the layout), on a
path whose labels hold what breaks quoting (quotes, backslashes, ``<>``, ``&``, ``#``, entities,
non-ASCII), and on three paths of the shipped data (``eager cpu``, ``compile gpu`` with graph
breaks, a llama.cpp path) against the path itself. The readers are the real ones: the ``csv``
module, Graphviz's ``dot -Tsvg`` (skipped when absent), Mermaid's own parser under Node.js with
jsdom (installed once, pinned, into ``~/.cache/atlas-tests``; skipped without node and npm) and,
where installed, markdown-it-py (CommonMark).
"""

from __future__ import annotations

import csv
import html.parser
import io
import json
import shutil
import subprocess
import urllib.parse
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

import pytest

import atlas
import mermaidkit
from atlas import cli
from atlas.cli import _formats
from atlas.query import _pathtable, _render
from atlas.query._index import Index
from fixtures_api import tiny_document

if TYPE_CHECKING:
    from atlas.models import ExecutionPath

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
#: The labels that break quoting, one per stage of the fixture path.
NASTY = (
    'say "hi" \\N \\\\ ends in \\',
    "<b>bold</b> & &amp; #quot; #35; &#92;",
    "caf\u00e9 \u2192 \u6f22\u5b57 \U0001f600",
    "`tick` style x:#35; | ] [ { } ;",
    "1. *star* _u_ [l](u) ~s~ $x$ ! - end",
)
NASTY_VERB = 'calls "x" \\ & <y> #1; `z`'
NASTY_URL = 'https://example.org/a_(b)<c>"d&amp;e\\f'
NASTY_CLAIM = 'a "quoted", claim\nover two lines & <tags>'


# --- the paths -------------------------------------------------------------------------------


def tiny() -> ExecutionPath:
    return Index(tiny_document()).path("fast", "y", atlas="toy")


def nasty() -> ExecutionPath:
    """The tiny path with labels, verbs, claims, titles, quotes and URLs that break quoting."""
    path = tiny()
    stages = {
        stage.id: stage.model_copy(update={"label": label})
        for stage, label in zip(path.stages, NASTY, strict=True)
    }
    steps = []
    for journey in path.steps:
        evidence = tuple(
            item.model_copy(
                update={
                    "source": item.source.model_copy(
                        update={"url": NASTY_URL, "title": f"T*i_t[l]e {NASTY[1]}"}
                    ),
                    "citation": item.citation.model_copy(
                        update={
                            "source": NASTY_URL,
                            "selector": item.citation.selector.model_copy(
                                update={"exact": NASTY[0]}
                            ),
                        }
                    ),
                }
            )
            for item in journey.evidence
        )
        claims = tuple(c.model_copy(update={"text": NASTY_CLAIM}) for c in journey.step.claims)
        step = journey.step.model_copy(update={"verb": NASTY_VERB, "claims": claims})
        steps.append(
            journey.model_copy(
                update={
                    "step": step,
                    "from_stage": stages[journey.from_stage.id],
                    "to_stage": stages[journey.to_stage.id],
                    "evidence": evidence,
                }
            )
        )
    return path.model_copy(update={"stages": tuple(stages.values()), "steps": tuple(steps)})


LIVE = {
    "eager-cpu": (("eager", "cpu"), {}),
    "compile-gpu-graph-breaks": (("compile", "gpu"), {"graph_breaks": True}),
    "llamacpp-nvidia-hybrid": (("nvidia gpu", "hybrid"), {"atlas": "llamacpp"}),
}
ARGV = {  # the same paths on the command line
    "eager-cpu": ["eager", "cpu"],
    "compile-gpu-graph-breaks": ["compile", "gpu", "--graph-breaks"],
    "llamacpp-nvidia-hybrid": ["nvidia gpu", "hybrid", "--atlas", "llamacpp"],
}


def live(name: str) -> ExecutionPath:
    values, options = LIVE[name]
    return atlas.path(*values, **options)


def every_path() -> dict[str, ExecutionPath]:
    return {"tiny": tiny(), "nasty": nasty(), **{name: live(name) for name in LIVE}}


def step_labels(path: ExecutionPath) -> list[str]:
    return [f"{j.number}. {j.step.verb}" for j in path.steps]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- the API ---------------------------------------------------------------------------------


def test_the_formats_are_those_of_the_command_line() -> None:
    assert _formats.FORMATS == _render.FORMATS
    assert atlas.render is _render.render


@pytest.mark.parametrize("name", ["tiny", *LIVE])
def test_text_is_what_atlas_path_prints_today(name: str) -> None:
    path = tiny() if name == "tiny" else live(name)
    assert atlas.render(path) == atlas.render(path, "text") == _pathtable.render(path)


def test_brief_text_is_one_line_per_step() -> None:
    assert atlas.render(tiny(), "text", brief=True) == (
        "fast Y device: 5 stages, 4 steps\n"
        "1. Source code \u2014 feeds \u2192 Interpreter\n"
        "2. Interpreter \u2014 feeds \u2192 Fast library\n"
        "3. Fast library \u2014 feeds \u2192 Slow library\n"
        "4. Slow library \u2014 feeds \u2192 Chip\n"
        "Where Python ends: step 2\n"
    )


@pytest.mark.parametrize("name", list(LIVE))
def test_brief_text_of_the_shipped_paths(name: str) -> None:
    path = live(name)
    lines = atlas.render(path, brief=True).splitlines()
    assert lines[0] == path.summary
    assert lines[1:-1] == [f"{j.number}. {j.label}" for j in path.steps]
    ends = ", ".join(str(j.number) for j in path.python_ends) or "nowhere in this path"
    assert lines[-1].startswith("Where Python ends: ")
    assert lines[-1].endswith(ends)


def test_json_is_the_model_dump_and_brief_json_the_brief_columns() -> None:
    path = tiny()
    assert json.loads(atlas.render(path, "json")) == path.model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    brief = json.loads(atlas.render(path, "json", brief=True))
    assert brief["atlas"] == "toy"
    assert brief["summary"] == path.summary
    assert brief["steps"][1] == {
        "number": 2,
        "step": "toy-interp-fast",
        "from": "interp",
        "from_label": "Interpreter",
        "verb": "feeds",
        "to": "fastlib",
        "to_label": "Fast library",
        "ends_python": True,
    }
    assert [s["ends_python"] for s in brief["steps"]] == [False, True, False, False]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: atlas.render(tiny(), "xml"), atlas.UnknownValueError, "unknown format 'xml'"),
        (lambda: atlas.render(tiny(), "DOT"), ValueError, "valid: text, json, markdown, csv"),
        (lambda: atlas.render(tiny(), 3), atlas.ArgumentTypeError, "format must be a str"),  # type: ignore[arg-type]
        (lambda: atlas.render("eager cpu"), atlas.ArgumentTypeError, "path must be an Exec"),  # type: ignore[arg-type]
        (lambda: atlas.render(tiny(), brief=1), TypeError, "brief must be a bool"),  # type: ignore[arg-type]
    ],
)
def test_wrong_arguments_raise_precise_errors(call: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]


# --- CSV -------------------------------------------------------------------------------------


def read_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_csv_is_rfc_4180_with_a_header_and_one_row_per_step() -> None:
    text = atlas.render(tiny(), "csv")
    assert text.splitlines()[0] == ",".join(_render.COLUMNS)
    assert text.endswith("\r\n")
    assert text.count("\r\n") == 5
    assert "\n" not in text.replace("\r\n", "")
    assert text.splitlines()[2] == (
        "2,toy-interp-fast,interp,Interpreter,feeds,fastlib,Fast library,true,"
        "interp feeds fastlib. [1],c1,https://example.org/doc"
    )
    brief = atlas.render(tiny(), "csv", brief=True)
    assert brief.splitlines()[0] == ",".join(_render.BRIEF_COLUMNS)
    assert brief.splitlines()[4] == "4,toy-slow-chip,slowlib,Slow library,feeds,chip,Chip,false"


@pytest.mark.parametrize("name", ["nasty", *LIVE])
def test_csv_reads_back_as_the_path(name: str) -> None:
    path = every_path()[name]
    rows = read_csv(atlas.render(path, "csv"))
    assert [list(row) for row in rows] == [list(_render.COLUMNS)] * len(path.steps)
    for row, journey in zip(rows, path.steps, strict=True):
        assert row["number"] == str(journey.number)
        assert (row["from_label"], row["verb"], row["to_label"]) == (
            journey.from_stage.label,
            journey.step.verb,
            journey.to_stage.label,
        )
        assert row["ends_python"] == ("true" if journey.step.ends_python else "false")
        assert row["sources"].split() == [item.source.url for item in journey.evidence]
        assert row["citations"].split() == [item.citation.id for item in journey.evidence]
        for claim in journey.step.claims:
            assert claim.text in row["claims"]
    brief = read_csv(atlas.render(path, "csv", brief=True))
    assert [list(row) for row in brief] == [list(_render.BRIEF_COLUMNS)] * len(path.steps)


# --- Markdown --------------------------------------------------------------------------------


def test_markdown_has_a_heading_a_numbered_list_and_linked_citations() -> None:
    text = atlas.render(tiny(), "markdown")
    assert text.startswith("# fast Y device: 5 stages, 4 steps\n\n1. Source code \u2014 feeds")
    assert (
        "\n2. Interpreter \u2014 feeds \u2192 Fast library\n\n"
        "   interp feeds fastlib. [\\[1\\]](<https://example.org/doc>)\n\n"
        "   - \\[1\\] [The toy doc](<https://example.org/doc>): \u201cthe toy runs\u201d"
        " (checked 2026-12-01)\n\n3. "
    ) in text
    assert text.endswith(
        "\nWhere Python ends: step 2 (Interpreter \u2014 feeds \u2192 Fast library)\n"
    )
    assert atlas.render(tiny(), "markdown", brief=True) == (
        "# fast Y device: 5 stages, 4 steps\n\n"
        "1. Source code \u2014 feeds \u2192 Interpreter\n"
        "2. Interpreter \u2014 feeds \u2192 Fast library\n"
        "3. Fast library \u2014 feeds \u2192 Slow library\n"
        "4. Slow library \u2014 feeds \u2192 Chip\n\n"
        "Where Python ends: step 2\n"
    )


def test_markdown_escapes_markup_in_the_data() -> None:
    text = atlas.render(nasty(), "markdown", brief=True)
    assert "\u2192 1. \\*star\\* \\_u\\_ \\[l\\](u) \\~s\\~ \\$x\\$ \\! - end\n" in text
    assert "\\<b\\>bold\\</b\\> \\& \\&amp; \\#quot; \\#35; \\&\\#92;" in text
    assert _render._md_text("- a") == "\\- a"
    assert _render._md_text("12) a") == "12\\) a"


class _Html(html.parser.HTMLParser):
    """The headings, the items of the outer numbered list (their text), and every link."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.headings: list[str] = []
        self.items: list[str] = []
        self.links: list[str] = []
        self._stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._stack.append(tag)
        if tag == "a":
            self.links.append(dict(attrs)["href"] or "")
        if tag == "li" and self._stack.count("ol") == 1 and self._stack.count("li") == 1:
            self.items.append("")
        if tag == "h1":
            self.headings.append("")

    def handle_endtag(self, tag: str) -> None:
        while self._stack and self._stack.pop() != tag:
            pass

    def handle_data(self, data: str) -> None:
        if "h1" in self._stack:
            self.headings[-1] += data
        if self._stack.count("li") == 1 and "ul" not in self._stack:
            self.items[-1] += data


@pytest.mark.parametrize("name", ["nasty", *LIVE])
@pytest.mark.parametrize("brief", [False, True])
def test_markdown_reads_back_as_the_path_in_commonmark(name: str, *, brief: bool) -> None:
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py is not installed")
    path = every_path()[name]
    page = _Html()
    page.feed(
        markdown_it.MarkdownIt("commonmark").render(atlas.render(path, "markdown", brief=brief))
    )
    assert page.headings == [path.summary]
    assert [item.strip().split("\n")[0] for item in page.items] == [j.label for j in path.steps]
    if brief:
        assert page.links == []
        return
    expected = []
    for journey in path.steps:
        numbers = {item.citation.id: n for n, item in enumerate(journey.evidence, 1)}
        for claim in journey.step.claims:
            cited = [numbers[c] for c in claim.citations if c in numbers]
            expected += [journey.evidence[n - 1].source.url for n in cited]
        expected += [item.source.url for item in journey.evidence]
    assert [urllib.parse.unquote(link) for link in page.links] == expected
    for item, journey in zip(page.items, path.steps, strict=True):
        for claim in journey.step.claims:
            assert " ".join(claim.text.split()) in item


# --- DOT -------------------------------------------------------------------------------------

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz 'dot' is not installed (apt-get install graphviz)"
)


def draw(source: str) -> ET.Element:
    done = subprocess.run(
        ["dot", "-Tsvg"], input=source.encode(), capture_output=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    assert not done.stderr, done.stderr.decode()  # no warning either
    return ET.fromstring(done.stdout)  # noqa: S314 - the output of our own run of dot


def drawn(svg: ET.Element, kind: str) -> list[tuple[str, str, str | None]]:
    """Each node or edge: its title (the DOT id), its text and its tooltip, in the DOT's order."""
    found = []
    for group in svg.iter(f"{SVG}g"):
        if group.get("class") == kind:
            title = group.findtext(f"{SVG}title") or ""
            text = "".join(t.text or "" for t in group.iter(f"{SVG}text"))
            link = next(group.iter(f"{SVG}a"), None)
            found.append((title, text, None if link is None else link.get(f"{XLINK}title")))
    return found


def test_dot_of_the_tiny_path() -> None:
    text = atlas.render(tiny(), "dot")
    assert text.startswith('digraph "toy" {\n  graph [label="fast Y device: 5 stages, 4 steps\\n')
    assert '  "src" [label="Source code", style="rounded,filled", fillcolor="#fff2b3",' in text
    assert '  "interp" -> "fastlib" [label="2. feeds", tooltip="interp feeds fastlib."];\n' in text
    assert '  "interp" -> "fastlib" [label="2. feeds"];\n' in atlas.render(
        tiny(), "dot", brief=True
    )
    assert _render._diagrams.dot_string('a"b\\c&d\ne') == '"a\\"b\\\\c&amp;d\\ne"'


@needs_dot
@pytest.mark.parametrize("name", ["nasty", *LIVE])
@pytest.mark.parametrize("brief", [False, True])
def test_dot_draws_every_label_exactly(name: str, *, brief: bool) -> None:
    path = every_path()[name]
    svg = draw(atlas.render(path, "dot", brief=brief))
    nodes = drawn(svg, "node")  # Graphviz writes them in an order of its own
    assert sorted((title, text) for title, text, _ in nodes) == sorted(
        (s.id, s.label) for s in path.stages
    )
    edges = drawn(svg, "edge")
    assert sorted(edges) == sorted(
        (
            f"{j.from_stage.id}->{j.to_stage.id}",
            label,
            None if brief else " ".join(c.text for c in j.step.claims),  # the tooltip
        )
        for j, label in zip(path.steps, step_labels(path), strict=True)
    )
    heading = [t.text for t in svg.find(f"{SVG}g").findall(f"{SVG}text")]  # type: ignore[union-attr]
    assert heading[0] == path.summary


@needs_dot
def test_the_dot_check_fails_on_a_label_quoted_wrong() -> None:
    source = atlas.render(nasty(), "dot").replace('\\"hi\\"', '"hi"', 1)
    with pytest.raises(AssertionError, match="syntax error"):
        draw(source)


# --- Mermaid ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mermaid_read(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """Every Mermaid rendering of the tests, read by Mermaid's parser in one run of node."""
    folder = mermaidkit.parser_folder()
    sources = {
        f"{name}-{'brief' if brief else 'full'}": atlas.render(path, "mermaid", brief=brief)
        for name, path in every_path().items()
        for brief in (False, True)
    }
    sources["wrong-quote"] = sources["nasty-full"].replace("#quot;", '"')
    sources["wrong-keyword"] = "flowchart TD\n  s1 --> end\n"
    return mermaidkit.read(folder, sources, tmp_path_factory.mktemp("mermaid"))


def test_mermaid_quotes_labels_with_entities_and_keeps_its_comments_comments() -> None:
    assert _render._diagrams.mermaid_string('say "hi" #1; <b>&`:') == (
        '"say #quot;hi#quot; #35;1; #60;b#62;#38;#96;#58;"'
    )
    assert _render._diagrams._comment("a\nb %%{init}%%%") == "a b % %{init}% % %"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tiny", "nasty", *LIVE])
@pytest.mark.parametrize("brief", [False, True])
def test_mermaid_parses_with_every_label_exact(
    mermaid_read: dict[str, dict[str, object]], name: str, *, brief: bool
) -> None:
    path = every_path()[name]
    read = mermaid_read[f"{name}-{'brief' if brief else 'full'}"]
    assert "error" not in read, read
    assert read["type"] == "flowchart-v2"
    assert atlas.render(path, "mermaid").startswith(f"%% {path.summary}\n")
    names = [f"s{n}" for n in range(1, len(path.stages) + 1)]
    assert read["nodes"] == [[n, s.label] for n, s in zip(names, path.stages, strict=True)]
    ids = dict(zip((s.id for s in path.stages), names, strict=True))
    assert read["edges"] == [
        [ids[j.from_stage.id], ids[j.to_stage.id], label]
        for j, label in zip(path.steps, step_labels(path), strict=True)
    ]


@pytest.mark.slow
def test_the_mermaid_check_fails_on_a_diagram_mermaid_refuses(
    mermaid_read: dict[str, dict[str, object]],
) -> None:
    assert "Parse error" in str(mermaid_read["wrong-quote"]["error"])
    assert "Parse error" in str(mermaid_read["wrong-keyword"]["error"])


# --- the command line ------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(LIVE))
@pytest.mark.parametrize("form", _render.FORMATS)
@pytest.mark.parametrize("brief", [False, True])
def test_atlas_path_prints_what_render_gives(
    capsys: pytest.CaptureFixture[str], name: str, form: str, *, brief: bool
) -> None:
    argv = ["path", *ARGV[name], "--format", form, *(["--brief"] if brief else [])]
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    assert out == atlas.render(live(name), form, brief=brief)  # JSON too: print_json's is the same


def test_json_flag_is_format_json_and_disagreeing_with_format_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        run(capsys, "path", "eager", "cpu", "--json")[1]
        == run(capsys, "path", "eager", "cpu", "--format", "json")[1]
    )
    assert run(capsys, "path", "eager", "cpu", "--json", "--format", "json")[0] == 0
    with pytest.raises(SystemExit) as caught:
        cli.main(["path", "eager", "cpu", "--json", "--format", "csv"])
    assert caught.value.code == 2
    assert "--json and --format csv disagree" in capsys.readouterr().err
    with pytest.raises(SystemExit) as caught:
        cli.main(["path", "eager", "cpu", "--format", "xml"])
    assert caught.value.code == 2
    assert "invalid choice: 'xml'" in capsys.readouterr().err


def test_path_help_says_what_brief_does_for_each_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        cli.main(["path", "--help"])
    words = " ".join(capsys.readouterr().out.split())
    assert "--format {text,json,markdown,csv,dot,mermaid}" in words
    brief = words.split("--brief", 2)[-1]
    for form in _render.FORMATS:
        assert f"{form}," in brief or f"{form} " in brief, form
