"""The witness report: Markdown and one self-contained HTML page, from real recorded runs.

The runs are a raw run of ``tests/witness_models.py:transformer_block`` on a CPU (the fixture
``raw-cpu-transformer.json``, analysed here) and the shipped records of ``dataset/witness/``.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

import atlas._witness
from atlas._witness import _report_markdown, _report_text, report
from atlas._witness import cli as witness_cli
from atlas._witness._report_path import path_view
from atlas._witness.compare import compare, step_label
from atlas._witness.observe import build_record
from atlas.errors import CouldNotRunError
from atlas.models._raw import RawRun
from atlas.models._witness import WitnessRecord, dump_json

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "witness"
SHIPPED = sorted((ROOT / "dataset" / "witness").glob("*.json"))
HOSTILE = "<script>alert('x')</script> | `tick` *star* [link](http://example.com) &amp;"


@pytest.fixture(scope="module")
def run() -> WitnessRecord:
    raw = (FIXTURES / "raw-cpu-transformer.json").read_text(encoding="utf-8")
    return build_record(RawRun.model_validate_json(raw))


@pytest.fixture(scope="module")
def markdown(run: WitnessRecord) -> str:
    return report.to_markdown(run, compare(run))


@pytest.fixture(scope="module")
def page(run: WitnessRecord) -> str:
    pytest.importorskip("jinja2", reason="the HTML report needs the 'site' extra (Jinja2)")
    return report.to_html(run, compare(run))


def rendered(markdown_text: str) -> str:
    """The Markdown as HTML, by a real CommonMark parser with tables (raw HTML allowed)."""
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py is not installed")
    return str(markdown_it.MarkdownIt("commonmark").enable("table").render(markdown_text))


def text_of(html_text: str) -> str:
    return " ".join(BeautifulSoup(html_text, "html.parser").get_text(" ").split())


def words(text: str) -> str:
    return " ".join(text.split())


def with_model(record: WitnessRecord, model: str) -> WitnessRecord:
    """The record with another model string and an evidence excerpt that holds markup."""
    mode = record.modes[0]
    step = mode.steps[0]
    excerpt = step.evidence[0].model_copy(update={"text": "<img src=x onerror=alert(1)> ```"})
    steps = (step.model_copy(update={"evidence": (excerpt,)}), *mode.steps[1:])
    modes = (mode.model_copy(update={"steps": steps}), *record.modes[1:])
    return record.model_copy(update={"model": model, "title": model, "modes": modes})


def with_status(record: WitnessRecord, step: str, status: str | None) -> WitnessRecord:
    """The record with one step of torch.compile set to ``status`` (``None``: left out)."""
    mode = record.modes[1]
    update = {"status": status, "evidence": (), "note": "looked; none"}
    steps = tuple(
        o.model_copy(update=update) if o.step == step else o
        for o in mode.steps
        if o.step != step or status is not None
    )
    return record.model_copy(
        update={"modes": (record.modes[0], mode.model_copy(update={"steps": steps}))}
    )


# --- Markdown -------------------------------------------------------------------------------


def test_markdown_holds_the_run_mode_by_mode(run: WitnessRecord, markdown: str) -> None:
    compiled = markdown.split("\n## torch.compile\n")[1]
    assert "\n## eager\n" in markdown.split("\n## torch.compile\n", maxsplit=1)[0]
    # the graph break: where, in which function, the code line, Dynamo's explanation and hint
    assert "#### Graph break 1 at `tests/witness_models.py:45` in `forward` (once)" in compiled
    assert "if x.abs().max().item() > 1e4: # a deliberate graph break: Tensor.item()" in compiled
    explanation = run.modes[1].graph_breaks[0].explanation
    assert explanation
    assert explanation in compiled
    # each kernel under its graph, with its kind and the operators it fuses
    first, second = compiled.split("#### Graph `1/0`")
    assert "| C++ kernel | `cpp_fused_native_layer_norm_0` | `aten.native_layer_norm` |" in first
    assert "`cpp_fused_abs_add_max_view_1`" in first.split("#### Graph `0/0`")[1]
    assert "`cpp_fused_gelu_view_1`" in second
    assert "`cpp_fused_gelu_view_1`" not in first
    assert "| library call | `extern_kernels.addmm` |" in second
    # the first call beside a warm one
    first_call = _report_text.seconds(run.modes[1].first_call_s)
    assert f"First call {first_call} (capture, compile and run), warm call" in compiled


def test_markdown_read_back_has_every_sentence_label_and_evidence(
    run: WitnessRecord, markdown: str
) -> None:
    text = text_of(rendered(markdown))
    for mode in run.modes:
        for sentence in mode.python_ends:
            assert words(sentence) in text
        for observation in mode.steps:
            assert step_label(observation.step) in text
            for excerpt in observation.evidence:  # in full, nothing clipped
                assert words(excerpt.text) in text
    for comparison in compare(run):
        for row in comparison.rows:
            assert row.explanation in text
    assert "Compared with the atlas: no documented step contradicted" in text
    assert "model code runs in CPython interpreter" in text


def test_markdown_tables_keep_their_columns(run: WitnessRecord) -> None:
    versions = run.versions.model_copy(update={"platform": "a | b"})
    record = run.model_copy(update={"versions": versions, "model": "x | y"})
    soup = BeautifulSoup(rendered(report.to_markdown(record)), "html.parser")
    for table in soup.find_all("table"):
        widths = {len(tr.find_all(["td", "th"])) for tr in table.find_all("tr")}
        assert len(widths) == 1, table
    cells = [td.get_text() for td in soup.find_all("td")]
    assert "a | b" in cells
    assert "x | y" in cells


def test_markdown_escapes_markup_in_the_data(run: WitnessRecord) -> None:
    out = rendered(report.to_markdown(with_model(run, HOSTILE)))
    assert "<script>" not in out
    assert "<img" not in out
    assert 'href="http://example.com"' not in out
    assert "<em>" not in out
    text = text_of(out)
    assert words(HOSTILE) in text  # shown as written, every character
    assert "<img src=x onerror=alert(1)> ```" in text  # the fence outgrows the backticks


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("26.8 s", "26.8 s"),
        ("1. item", "1\\. item"),
        ("- dash", "\\- dash"),
        ("a_b _c_", "a_b \\_c\\_"),
        ("x\n# y", "x \\# y"),
    ],
)
def test_markdown_escapes_only_what_would_be_markup(text: str, expected: str) -> None:
    assert _report_markdown._esc(text) == expected


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_records_render_in_both_formats(path: Path) -> None:
    record = WitnessRecord.model_validate_json(path.read_text(encoding="utf-8"))
    markdown = report.to_markdown(record, compare(record))
    assert markdown.startswith(f"# {_report_markdown._esc(record.title)}\n")
    for mode in record.modes:
        assert f"\n## {_report_text.mode_name(mode.mode)}\n" in markdown
        for kernel in mode.kernels:
            assert f"`{kernel}`" in markdown
    pytest.importorskip("jinja2", reason="the HTML report needs the 'site' extra (Jinja2)")
    soup = BeautifulSoup(report.to_html(record, compare(record)), "html.parser")
    assert len(soup.select("svg.path-drawing")) == len(record.modes)
    assert len(soup.select("ol.steps > li")) == sum(
        len(path_view(m, record.device).rows) for m in record.modes
    )


def test_a_contradicted_step_is_marked_in_words_and_on_the_drawing(run: WitnessRecord) -> None:
    step = "pytorch-inductor-generates-cpp-openmp"
    broken = with_status(run, step, "not-observed")
    markdown = report.to_markdown(broken, compare(broken))
    assert "### Compared with the atlas: contradicted by the run" in markdown
    assert "**documented, not observed**" in markdown
    assert "the run contradicts the atlas here" in markdown
    assert "**\u2717 not observed**" in markdown
    pytest.importorskip("jinja2", reason="the HTML report needs the 'site' extra (Jinja2)")
    soup = BeautifulSoup(report.to_html(broken, compare(broken)), "html.parser")
    leg = soup.select_one(f'#mode-torch-compile svg g.leg[data-step="{step}"]')
    assert leg is not None
    assert "not-observed" in leg["class"]
    assert leg.title.get_text().endswith(": not observed")
    assert leg.select_one("text.status").get_text().startswith("\u2717")  # ✗, in any lane
    assert soup.select_one(".verdict-bad") is not None


def test_the_drawing_marks_each_status(run: WitnessRecord) -> None:
    step = "pytorch-cpp-openmp-runs-on-cpu"
    view = path_view(with_status(run, step, None).modes[1], "cpu")  # no observation at all
    statuses = {row.step: row.css for row in view.rows}
    assert statuses[step] == "not-checked"
    assert statuses["pytorch-cpython-calls-aten-dispatch"] == "undocumented"
    assert statuses["pytorch-dynamo-captures-fx-graph"] == "observed"
    off = [stop.id for stop in view.stops if stop.off_path]
    assert off == ["aten-dispatch"]  # the stage of the observed, undocumented step
    assert [row.number for row in view.rows] == list(range(1, len(view.rows) + 1))


def test_a_path_the_atlas_does_not_know_draws_the_records_own_steps(
    run: WitnessRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    from atlas.query import paths  # noqa: PLC0415

    def unknown(*_: Any, **__: Any) -> Any:
        raise LookupError("no such path")

    monkeypatch.setattr(paths, "path", unknown)
    view = path_view(run.modes[0], "cpu")
    assert not view.documented
    assert [row.step for row in view.rows] == [o.step for o in run.modes[0].steps]
    assert not any(stop.off_path for stop in view.stops)


def test_timing_says_when_a_record_has_no_call_times(run: WitnessRecord) -> None:
    mode = run.modes[1].model_copy(update={"first_call_s": 22.2, "warm_call_s": 0.00113})
    assert "First call 22.2 s (capture, compile and run), warm call 0.001 s" in (
        _report_text.timing(mode)
    )
    assert "the first call took 19,646 times as long" in _report_text.timing(mode)
    old = mode.model_copy(update={"first_call_s": None, "warm_call_s": None})
    assert _report_text.timing(old).startswith("The record has no call times")
    assert _report_text.operations(1) == "1 operation"


# --- HTML -----------------------------------------------------------------------------------


def test_html_holds_the_same_content(run: WitnessRecord, page: str) -> None:
    soup = BeautifulSoup(page, "html.parser")
    compiled = soup.select_one("#mode-torch-compile")
    assert compiled is not None
    brk = compiled.select_one(".break")
    assert brk is not None
    assert "tests/witness_models.py:45" in brk.h4.get_text()
    assert "forward" in brk.h4.get_text()
    graphs = {g.h4.code.get_text(): g.get_text(" ") for g in compiled.select(".graph")}
    assert "cpp_fused_native_layer_norm_0" in graphs["0/0"]
    assert "cpp_fused_gelu_view_1" in graphs["1/0"]
    assert "cpp_fused_gelu_view_1" not in graphs["0/0"]
    for mode in run.modes:
        section = soup.select_one(f"#mode-{mode.mode}")
        assert section is not None
        ends = [words(li.get_text()) for li in section.select("ul.ends > li")]
        assert ends == [words(s) for s in mode.python_ends]
        labels = [li.h4.get_text() for li in section.select("ol.steps > li")]
        for observation in mode.steps:
            assert any(label.endswith(step_label(observation.step)) for label in labels)
        evidence = [pre.get_text() for pre in section.select("ol.steps pre")]
        assert evidence == [e.text for o in path_rows(run, mode.mode) for e in o]
    versions = [words(td.get_text()) for td in soup.select("#software ~ div table td")]
    assert "2.13.0+cpu" in versions


def path_rows(record: WitnessRecord, mode_id: str) -> list[tuple[Any, ...]]:
    mode = next(m for m in record.modes if m.mode == mode_id)
    rows = path_view(mode, record.device).rows
    return [row.observation.evidence if row.observation else () for row in rows]


def test_html_draws_each_path_with_numbered_marked_steps(run: WitnessRecord, page: str) -> None:
    soup = BeautifulSoup(page, "html.parser")
    for mode in run.modes:
        view = path_view(mode, run.device)
        svg = soup.select_one(f"#mode-{mode.mode} svg.path-drawing")
        assert svg is not None
        assert svg["aria-label"]
        drawn = [g["data-step"] for g in svg.select("g.leg")]
        assert drawn == [row.step for row in view.rows if row.drawn]
        stages = [g["data-stage"] for g in svg.select("g.stop")]
        assert stages == [stop.id for stop in view.stops]
        for g in svg.select("g.leg"):
            assert g.title.get_text().split(".")[0].isdigit()
    legend = soup.select_one("#mode-torch-compile .legend").get_text(" ")
    for words_ in ("observed", "not observed", "not checked", "not documented"):
        assert words_ in legend


def test_html_escapes_the_data(run: WitnessRecord) -> None:
    pytest.importorskip("jinja2", reason="the HTML report needs the 'site' extra (Jinja2)")
    out = report.to_html(with_model(run, HOSTILE))
    assert "<script" not in out.lower()
    assert "<img" not in out
    assert html.escape("<script>alert(") in out
    soup = BeautifulSoup(out, "html.parser")
    assert soup.h1.get_text() == HOSTILE
    assert soup.title.get_text() == f"Witness report: {HOSTILE}"


def test_html_loads_nothing(page: str) -> None:
    soup = BeautifulSoup(page, "html.parser")
    assert soup.find("script") is None
    assert soup.find("link", rel="stylesheet") is None
    for tag in soup.find_all(name=True):
        for name, value in tag.attrs.items():
            if name in {"src", "href", "srcset", "poster", "data", "action"} and tag.name != "a":
                assert not re.match(r"\s*(https?:)?//", str(value)), (tag.name, name, value)
                assert str(value).startswith(("data:", "#")), (tag.name, name, value)
    style = " ".join(s.get_text() for s in soup.find_all("style"))
    assert "@import" not in style
    assert "url(" not in style


def test_html_without_jinja2_says_how_to_install(
    run: WitnessRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "jinja2", None)  # import jinja2 raises ImportError
    with pytest.raises(CouldNotRunError, match=re.escape("pip install 'execution-atlas[site]'")):
        report.to_html(run)
    assert report.to_markdown(run).startswith("# ")  # Markdown needs nothing more


def test_report_format_by_suffix() -> None:
    assert report.report_format(Path("a/b.md")) == "markdown"
    assert report.report_format("b.HTM") == "html"
    with pytest.raises(ValueError, match=r"'b.txt' ends in '.txt'"):
        report.report_format("b.txt")


# --- the command line -----------------------------------------------------------------------


@pytest.fixture
def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="atlas")
    witness_cli.add_parser(main.add_subparsers(dest="command", required=True))
    return main


def call(parser: argparse.ArgumentParser, *argv: str) -> int:
    args = parser.parse_args(["witness", *argv])
    return int(args.handler(args))


def test_cli_writes_both_reports_from_a_raw_run(
    parser: argparse.ArgumentParser, tmp_path: Path
) -> None:
    pytest.importorskip("jinja2", reason="the HTML report needs the 'site' extra (Jinja2)")
    raw = str(FIXTURES / "raw-cpu-transformer.json")
    md, page = tmp_path / "out" / "run.md", tmp_path / "out" / "run.html"
    assert call(parser, "--from-raw", raw, "--compare", "--report", str(md)) == 0
    assert call(parser, "--from-raw", raw, "--report", str(page)) == 0
    assert sorted(p.name for p in md.parent.iterdir()) == ["run.html", "run.md"]  # no temp left
    text = md.read_text(encoding="utf-8")
    assert "### Compared with the atlas: no documented step contradicted" in text
    assert "`tests/witness_models.py:45`" in text
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    assert soup.select_one(".comparison") is None  # no --compare, no comparison
    assert len(soup.select("svg.path-drawing")) == 2


def test_cli_writes_a_report_from_a_record_and_from_a_live_run(
    parser: argparse.ArgumentParser,
    run: WitnessRecord,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    record = tmp_path / "record.json"
    record.write_text(dump_json(run), encoding="utf-8")
    out = tmp_path / "from-record.md"
    assert call(parser, "--record", str(record), "--report", str(out)) == 0
    assert out.read_text(encoding="utf-8") == report.to_markdown(run)
    monkeypatch.setattr(atlas._witness, "witness", lambda *_, **__: run)  # the run, recorded
    live = tmp_path / "live.markdown"
    assert call(parser, "--mode", "all", "--device", "cpu", "--report", str(live)) == 0
    assert live.read_text(encoding="utf-8") == report.to_markdown(run)


def test_cli_rejects_a_bad_suffix_before_running(
    parser: argparse.ArgumentParser,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def never(*_: Any, **__: Any) -> Any:
        raise AssertionError("the run started")

    monkeypatch.setattr(atlas._witness, "witness", never)
    bad = tmp_path / "run.pdf"
    assert call(parser, "--device", "cpu", "--report", str(bad)) == witness_cli.EXIT_USAGE == 2
    err = capsys.readouterr().err
    assert "'.pdf'" in err
    assert err.count("\n") == 1
    assert not bad.exists()


def test_cli_html_report_without_jinja2_exits_3(
    parser: argparse.ArgumentParser,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, "jinja2", None)
    raw = str(FIXTURES / "raw-cpu-transformer.json")
    assert call(parser, "--from-raw", raw, "--report", str(tmp_path / "r.html")) == 3
    assert "pip install 'execution-atlas[site]'" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_cli_report_that_cannot_be_written_exits_3(
    parser: argparse.ArgumentParser,
    run: WitnessRecord,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = tmp_path / "record.json"
    record.write_text(dump_json(run), encoding="utf-8")
    folder = tmp_path / "taken.md"
    folder.mkdir()
    assert call(parser, "--record", str(record), "--report", str(folder)) == 3
    err = capsys.readouterr().err
    assert f"cannot write the report {str(folder)!r}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json", "taken.md"]  # no temp


def test_cli_help_names_the_report(
    parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        parser.parse_args(["witness", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--report FILE" in out
    assert "Markdown (FILE.md)" in out


# --- in a browser ---------------------------------------------------------------------------

ARTIFACTS = ROOT / "artifacts" / "witness"
VIEWPORTS = {
    "desktop": ({"width": 1366, "height": 900}, "light"),
    "phone": ({"width": 390, "height": 844}, "light"),
    "phone-dark": ({"width": 390, "height": 844}, "dark"),
}
SMALLEST_TEXT = """() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || el.closest('.visually-hidden, title')) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest('svg');
    if (svg) px *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    found.push([px, el.tagName + ': ' + node.textContent.trim().slice(0, 40)]);
  }
  return found.sort((a, b) => a[0] - b[0])[0];
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    from browserkit import CHROMIUM, chromium  # noqa: PLC0415

    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium")
    yield from chromium()


@pytest.fixture(params=list(VIEWPORTS))
def opened(
    request: pytest.FixtureRequest, browser: Any, page: str, tmp_path: Path
) -> Iterator[tuple[str, Any]]:
    """The report opened from a file:// URL; no console error and no request may leave it."""
    from browserkit import watching  # noqa: PLC0415

    file = tmp_path / "report.html"
    file.write_text(page, encoding="utf-8")
    viewport, scheme = VIEWPORTS[request.param]
    watcher = watching(browser, file.as_uri(), viewport)
    watched = next(watcher)(color_scheme=scheme)
    watched.page.goto(file.as_uri())
    yield request.param, watched
    assert [url for url in watched.requests if not url.startswith("file:")] == []
    next(watcher, None)  # closes the page: it asserts no console error, no request off the host


@pytest.mark.slow
def test_the_html_report_in_a_browser_offline(opened: tuple[str, Any]) -> None:
    name, watched = opened
    browser_page = watched.page
    width = browser_page.viewport_size["width"]
    assert browser_page.evaluate("document.documentElement.scrollWidth") <= width
    drawings = browser_page.locator("svg.path-drawing")
    assert drawings.count() == 2
    for i in range(2):
        drawings.nth(i).scroll_into_view_if_needed()
        assert drawings.nth(i).is_visible()
        box = drawings.nth(i).bounding_box()
        assert box is not None
        assert box["width"] >= 300  # at its natural size: nothing scaled down
    px, where = browser_page.evaluate(SMALLEST_TEXT)
    assert px >= 12, f"text under 12 px: {where} ({px:.1f} px)"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser_page.evaluate("window.scrollTo(0, 0)")
    browser_page.screenshot(path=str(ARTIFACTS / f"report-{name}.png"))
    browser_page.locator("#title-torch-compile").scroll_into_view_if_needed()
    browser_page.evaluate("document.getElementById('title-torch-compile').scrollIntoView()")
    browser_page.screenshot(path=str(ARTIFACTS / f"report-{name}-compile.png"))
