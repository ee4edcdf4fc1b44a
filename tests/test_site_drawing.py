"""The site's drawings: shipped layouts (no Graphviz needed), numbered arrows, links, the path
drawn as a column for phones, and, in Chromium, the drawing beside the steps at 1366 px and the
column at 390 px (screenshots under artifacts/site/).

The HTML and layout tests need no browser; the browser tests are marked slow and skip without
Debian's Chromium or Playwright.
"""

from __future__ import annotations

import html as htmllib
import re
import shutil
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from atlas.cli import main
from atlas.data import _resources, export
from atlas.query._index import Index
from atlas.query.paths import load
from browserkit import CHROMIUM, chromium, served
from fixtures_api import tiny_document
from sourcekit import make_dataset

pytest.importorskip("jinja2", reason="the site needs the 'site' extra (Jinja2)")

from atlas.publish import site  # after the skip: it needs jinja2
from atlas.publish.site import _column, _drawings, _layout, _pathdata
from atlas.publish.site._pages import Page
from sitefiles import page_text

HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "site"
GPU_SLUG = "torch-compile-nvidia-gpu"
BOX = r'<div class="path-drawing-box" data-views="([^"]*)"( hidden)?>'


@pytest.fixture
def no_dot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Graphviz is not on PATH (PATH names only an empty folder)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert shutil.which("dot") is None


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped site, built with no Graphviz on PATH."""
    out = tmp_path_factory.mktemp("drawn") / "site"
    with pytest.MonkeyPatch.context() as patch:
        empty = tmp_path_factory.mktemp("empty-path")
        patch.setenv("PATH", str(empty))
        assert shutil.which("dot") is None
        site.build(out)
    return out


# --- the layout source, its hash and the shipped file ---------------------------------------


def test_the_layout_source_names_what_the_layout_depends_on() -> None:
    shapes = [_layout.Shape("a", ("A", "kind")), _layout.Shape("b", ('B "quoted" \\N',))]
    wires = [_layout.Wire("s", "a", "b", ("goes to",))]
    text = _layout.source("x", shapes, wires, numbered=True)
    assert '"b" [label="B \\"quoted\\" \\\\N"];' in text  # DOT escapes neutralised
    assert 'label="0 goes to\\l"' in text  # room for the number, left-aligned
    same = _layout.source("x", shapes, wires, numbered=True)
    assert _layout.digest(text) == _layout.digest(same)
    other = _layout.source("x", shapes, [_layout.Wire("s", "a", "b", ("leads to",))], numbered=True)
    assert _layout.digest(other) != _layout.digest(text)
    assert _layout.digest(_layout.source("x", shapes, wires, numbered=False)) != _layout.digest(
        text
    )


def test_a_python_zone_only_when_some_stages_but_not_all_run_python() -> None:
    some = [_layout.Shape("a", ("A",), python=True), _layout.Shape("b", ("B",))]
    assert "cluster_python" in _layout.source("x", some, [], numbered=False)
    every = [_layout.Shape("a", ("A",), python=True)]
    assert "cluster_python" not in _layout.source("x", every, [], numbered=False)


@needs_dot
def test_dot_lays_out_a_source_and_the_file_reads_back() -> None:
    shapes = [_layout.Shape("a", ("A", "kind"), python=True), _layout.Shape("b", ("B",))]
    wires = [_layout.Wire("s", "a", "b", ("goes", "to"))]
    text = _layout.source("x", shapes, wires, numbered=True)
    layout = _layout.dot_layout(text)
    assert layout.hash == _layout.digest(text)
    assert set(layout.boxes) == {"a", "b"}
    assert layout.zone is not None
    a, b = layout.boxes["a"].box, layout.boxes["b"].box
    assert a[1] + a[3] < b[1]  # top-down: a above b, y downwards
    assert len(layout.boxes["a"].lines) == 2
    assert len(layout.arrows["s"].lines) == 2
    assert layout.arrows["s"].path.startswith("M")
    width, height = layout.size
    assert a[0] > 0
    assert a[0] + a[2] <= width
    assert b[1] + b[3] <= height
    again = _layout.loads(_layout.dumps({"x": layout}), "test")
    assert again == {"x": layout}


def test_a_layouts_file_that_cannot_be_read_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "layouts.json"
    bad.write_text('{"format": 1, "drawings": {"x": {"hash": 3}}}', encoding="utf-8")
    with pytest.raises(site.LayoutError, match=r"layouts\.json' is not a layouts file"):
        _drawings.shipped_layouts(bad)
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(site.LayoutError, match="is not a layouts file"):
        _drawings.shipped_layouts(bad)
    bad.write_text('{"format": 999, "drawings": {}}', encoding="utf-8")
    assert _drawings.shipped_layouts(bad) == {}  # another format: laid out again
    assert _drawings.shipped_layouts(tmp_path / "missing.json") == {}


def test_the_shipped_layouts_are_made_from_the_shipped_data(no_dot: None) -> None:
    page = Page(load())
    specs = _drawings._specs(page, {a.id: page.views(a) for a in page.atlases})
    shipped = _drawings.shipped_layouts()
    stale = [
        spec.name
        for spec in specs.values()
        if spec.name not in shipped or shipped[spec.name].hash != _layout.digest(spec.source)
    ]
    assert stale == [], "dataset/layouts.json is stale: run 'atlas export --dataset dataset'"
    text = Path(str(_resources.layout_file())).read_text(encoding="utf-8")
    assert text == _layout.dumps(shipped), "dataset/layouts.json is not in canonical form"


def _segments(path: str) -> list[tuple[str, list[Decimal]]]:
    """The segments of path data as absolute points: ('C', [x1 y1 x2 y2 x y]) or ('L', [x y])."""
    tokens = re.findall(r"[MCcvh]|-?(?:\d+\.?\d*|\.\d+)", path)
    found: list[tuple[str, list[Decimal]]] = []
    x = y = Decimal(0)
    command = ""
    numbers: list[Decimal] = []
    for token in [*tokens, "M"]:  # a last command ends the last numbers
        if token.isalpha():
            while numbers:
                if command == "M":
                    x, y = numbers[:2]
                    del numbers[:2]
                elif command in "Cc":
                    six, numbers = numbers[:6], numbers[6:]
                    dx, dy = (x, y) if command == "c" else (Decimal(0), Decimal(0))
                    points = [v + (dx if i % 2 == 0 else dy) for i, v in enumerate(six)]
                    found.append(("C", points))
                    x, y = points[4:6]
                else:  # v or h: a straight stretch
                    step = numbers.pop(0)
                    x, y = (x, y + step) if command == "v" else (x + step, y)
                    found.append(("L", [x, y]))
            command = token
        else:
            numbers.append(Decimal(token))
    return found


def test_the_arrows_are_written_shorter_and_drawn_the_same() -> None:
    compacted = 0
    for layout in _drawings.shipped_layouts().values():
        for arrow in layout.arrows.values():
            short = _pathdata.compact(arrow.path)
            assert len(short) <= len(arrow.path), arrow.path
            compacted += len(arrow.path) - len(short)
            before, after = _segments(arrow.path), _segments(short)
            assert len(before) == len(after), arrow.path
            start = [Decimal(v) for v in re.findall(r"-?[\d.]+", arrow.path)[:2]]
            for (_, points), (kind, now) in zip(before, after, strict=True):
                if kind == "C":  # the same control points and end
                    assert now == points, (arrow.path, short)
                else:  # a straight stretch: the curve's points all lie on it, in order
                    assert now == points[4:6], (arrow.path, short)
                    xs, ys = [start[0], *points[0::2]], [start[1], *points[1::2]]
                    assert len(set(xs)) == 1 or len(set(ys)) == 1, (arrow.path, short)
                    assert all(min(xs[0], xs[3]) <= v <= max(xs[0], xs[3]) for v in xs)
                    assert all(min(ys[0], ys[3]) <= v <= max(ys[0], ys[3]) for v in ys)
                start = now[-2:]
    assert compacted > 1000  # bytes saved over every drawing


# --- building without Graphviz ----------------------------------------------------------------


def test_the_site_builds_without_graphviz(built: Path) -> None:
    page = (built / "pytorch" / "index.html").read_text(encoding="utf-8")
    assert 'id="drawing-pytorch"' in page
    assert (built / "graph.html").read_text(encoding="utf-8").count('class="drawing"') == 1


def test_without_graphviz_a_stale_layout_fails_and_leaves_no_folder(
    tmp_path: Path, no_dot: None
) -> None:
    out = tmp_path / "out" / "site"
    with pytest.raises(site.LayoutError) as caught:
        site.build(out, tiny_document())
    message = str(caught.value)
    assert "Graphviz 'dot' was not found" in message
    assert "'toy'" in message
    assert "the shipped layouts.json" in message
    assert "atlas export --dataset DIR" in message
    assert not out.exists()
    assert list(out.parent.iterdir()) == []  # no half-built folder beside it


def test_the_cli_says_why_in_one_line_and_exits_3(
    tmp_path: Path, no_dot: None, capsys: pytest.CaptureFixture[str]
) -> None:
    exported = tmp_path / "tiny.json"
    exported.write_text(export.dumps(tiny_document()), encoding="utf-8")
    out = tmp_path / "site"
    assert main(["site", "build", str(out), "--export", str(exported)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Graphviz 'dot' was not found" in err
    assert "Traceback" not in err
    assert not out.exists()


@needs_dot
def test_the_export_of_a_dataset_writes_its_layouts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_dataset(tmp_path)
    assert main(["export", "--dataset", str(folder)]) == 0
    assert f"wrote {folder / 'layouts.json'}: the layouts" in capsys.readouterr().err
    first = (folder / "layouts.json").read_text(encoding="utf-8")
    assert set(_layout.loads(first, "test")) == {"toy", "all"}
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert main(["export", "--dataset", str(folder)]) == 0  # unchanged: no dot needed
    assert "warning" not in capsys.readouterr().err
    assert (folder / "layouts.json").read_text(encoding="utf-8") == first
    turtle = folder / "toy.ttl"
    turtle.write_text(
        turtle.read_text(encoding="utf-8").replace('"toy interpreter"', '"toy runner"'),
        encoding="utf-8",
    )
    assert main(["export", "--dataset", str(folder)]) == 0  # the export itself is written
    err = capsys.readouterr().err
    assert "atlas export: warning: Graphviz 'dot' was not found" in err
    assert "layouts.json was left as it was" in err
    assert (folder / "layouts.json").read_text(encoding="utf-8") == first


# --- the drawings in the HTML -----------------------------------------------------------------


def _groups(svg: str, kind: str) -> dict[str, str]:
    """The stages or steps (``kind``) of a drawing, by id (named by their link): their markup."""
    found = {}
    for match in re.finditer(
        rf'<g class="[^"]*"><a href="[^"#]*#{kind}-([^"]+)">.*?</a></g>', svg, re.DOTALL
    ):
        found[match.group(1)] = match.group(0)
    return found


def _wide_svg(page: str, name: str) -> str:
    match = re.search(rf'<svg [^>]*id="drawing-{name}".*?</svg>', page, re.DOTALL)
    assert match, f"no drawing of {name}"
    return match.group(0)


def test_the_arrows_of_the_path_are_numbered_and_linked(built: Path) -> None:
    gpu = Index(load()).path("compile", "gpu")
    page = (built / "pytorch" / f"{GPU_SLUG}.html").read_text(encoding="utf-8")
    svg = _wide_svg(page, "pytorch")
    steps = _groups(svg, "step")
    numbered = {}
    for step_id, markup in steps.items():
        number = re.search(r'<g class="num">.*?<text [^>]*?(?:/>|>(\d*)</text>)', markup, re.DOTALL)
        numbered[step_id] = (number.group(1) or "") if number else ""
        # a page without the script numbers the arrows of its path only
        assert bool(number) == bool(numbered[step_id]), step_id
    assert {k: v for k, v in numbered.items() if v} == {j.id: str(j.number) for j in gpu.steps}
    for journey_step in gpu.steps:
        markup = steps[journey_step.id]
        assert "is-on" in markup.split(">", 1)[0]
        assert f'<a href="#step-{journey_step.id}"><title>Step: ' in markup  # to the list
        assert f'id="step-{journey_step.id}"' in page  # which is on the page
    off = {k for k, v in numbered.items() if not v}
    assert off
    for step_id in off:  # to its entry among every step
        assert f'<a href="steps.html#step-{step_id}"><title>Step: ' in steps[step_id]
        assert "is-on" not in steps[step_id].split(">", 1)[0]
    stages = _groups(svg, "stage")
    assert set(stages) >= {s.id for s in gpu.stages}
    cards = (built / "pytorch" / "stages.html").read_text()
    for stage_id, markup in stages.items():
        # named by its title, which is also its tooltip (nothing repeats it)
        assert f'<a href="stages.html#stage-{stage_id}"><title>Stage: ' in markup
        assert f'id="stage-{stage_id}"' in cards
        assert ("is-on" in markup.split(">", 1)[0]) == (stage_id in {s.id for s in gpu.stages})
    assert "aria-label=" not in svg.split("</desc>", 1)[1]
    # the interactive page numbers every arrow (the script fills them for the chosen view),
    # and names the page the arrows off the path lead to
    interactive = _wide_svg(page_text(built / "pytorch" / "index.html"), "pytorch")
    assert interactive.count('<g class="num">') == len(_groups(interactive, "step"))
    assert 'data-steps="steps.html"' in interactive.split(">", 1)[0]
    assert "data-steps" not in svg  # a static page has no script


def test_every_id_on_a_page_is_unique(built: Path) -> None:
    for name in ("pytorch/index.html", f"pytorch/{GPU_SLUG}.html", "graph.html"):
        ids = re.findall(r'\sid="([^"]+)"', (built / name).read_text(encoding="utf-8"))
        doubles = sorted({i for i in ids if ids.count(i) > 1})
        assert doubles == [], name


def test_each_path_is_drawn_as_a_column_for_phones(built: Path) -> None:
    index = Index(load())
    page = (built / "pytorch" / f"{GPU_SLUG}.html").read_text(encoding="utf-8")
    boxes = re.findall(BOX, page)
    assert boxes == [(GPU_SLUG, "")]  # a static page: its own path only
    column = re.search(r'<svg [^>]*class="path-drawing".*?</svg>', page, re.DOTALL)
    assert column
    gpu = index.path("compile", "gpu")
    stages = re.findall(r'<a href="stages.html#stage-([^"]+)">', column.group(0))
    assert stages == [s.id for s in gpu.stages]  # in journey order, one under the other
    numbers = re.findall(
        r'<a href="#step-([^"]+)".*?<g class="num">.*?>(\d+)</text>', column.group(0)
    )
    assert sorted((int(n), s) for s, n in numbers) == [(j.number, j.id) for j in gpu.steps]
    assert 'viewBox="0 0 320 ' in column.group(0)
    page_of = Page(load())
    pytorch = next(a for a in page_of.atlases if a.id == "pytorch")
    paths = {tuple(j.id for j in v.path.steps) for v in page_of.views(pytorch)}
    interactive = (built / "pytorch" / "index.html").read_text(encoding="utf-8")
    # the default one is in the page; the others come from views.js when first shown
    assert re.findall(BOX + "<svg", interactive) == [(GPU_SLUG, "")]
    shells = re.findall(r'<div hidden data-deferred="path-\d+"></div>', interactive)
    assert len(shells) == len(paths) - 1
    filled = page_text(built / "pytorch" / "index.html")
    boxes = re.findall(BOX + "<svg", filled)
    assert len(boxes) == len(paths)  # a column per path
    assert [slugs for slugs, hidden in boxes if not hidden] == [GPU_SLUG]


def test_the_column_gives_overlapping_side_arrows_their_own_lanes() -> None:
    boxes = [
        _column.Box(i, f"stage {i}", "kind", ("stage",), f"stage {i}", f"#{i}") for i in "abcde"
    ]
    arrows = [
        _column.Arrow("ab", "a", "b", 1, "goes", "t", "#ab"),
        _column.Arrow("ac", "a", "c", 2, "skips", "t", "#ac"),
        _column.Arrow("bd", "b", "d", 3, "skips", "t", "#bd"),
        _column.Arrow("de", "d", "e", 4, "ends", "t", "#de"),
        _column.Arrow("ce", "c", "e", 5, "skips", "t", "#ce"),
    ]
    pos = {b.id: i for i, b in enumerate(boxes)}
    lanes, straight = _column._lanes(arrows, pos)
    assert straight == {"ab", "de"}
    assert lanes["ac"] != lanes["bd"]  # their spans overlap
    assert lanes["ce"] != lanes["bd"]
    svg = _column.column(boxes, arrows, label="a test path")
    assert svg.count('class="num"') == 5
    assert 'aria-label="a test path"' in svg
    assert re.search(r'viewBox="0 0 320 [\d.]+"', svg)
    xs = [float(x) for x in re.findall(r'\bc?x="([\d.]+)"', svg)]
    assert max(xs) <= _column.WIDTH


def test_the_drawing_is_escaped(tmp_path: Path) -> None:
    if not HAS_DOT:
        pytest.skip("a new drawing needs Graphviz 'dot'")
    hostile = '<script>alert("x")</script>'
    document = tiny_document()
    stages = tuple(s.model_copy(update={"label": s.label + hostile}) for s in document.stages)
    site.build(tmp_path / "site", document.model_copy(update={"stages": stages}))
    page = (tmp_path / "site" / "toy" / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page
    assert htmllib.escape(hostile, quote=False) in page


# --- in Chromium -------------------------------------------------------------------------------

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def base_url(built: Path) -> Iterator[str]:
    yield from served(built)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium")
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    yield from chromium()


@pytest.fixture
def open_page(browser: Any, base_url: str) -> Iterator[Any]:
    contexts = []
    errors: list[str] = []

    def opener(url: str, viewport: dict[str, int], **options: Any) -> Any:
        context = browser.new_context(viewport=viewport, **options)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(base_url + url)
        return page

    yield opener
    for context in contexts:
        context.close()
    assert errors == [], "errors in the page"


def _shot(page: Any, name: str, **options: Any) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), **options)


GPU_URL = "pytorch/index.html#mode=torch.compile&device=gpu&branch=none"


def _arrow(page: Any, step: str, drawing: str = "svg.drawing") -> Any:
    """The arrow of a step in a drawing (named by its link, which ends in #step-<id>)."""
    return page.locator(f"{drawing} g.step:has(> a[href$='#step-{step}'])")


def _shown_steps(page: Any) -> list[str]:
    """The ids of the steps the list shows, in order (its items' ids are step-<id>)."""
    return page.locator("#journey > li:not([hidden])").evaluate_all(
        "items => items.map(i => i.id.replace(/^step-/, ''))"
    )


@pytest.mark.slow
def test_the_path_stays_beside_the_steps(open_page: Any) -> None:
    # The whole PyTorch drawing is wider than tall: it takes the full width above the steps,
    # and the path drawn as a column stays in view beside them.
    page = open_page(GPU_URL, DESKTOP)
    assert page.locator(".explorer > #drawing").is_visible()
    figure = page.locator(".explorer-grid.landscape > .path-figure")
    assert figure.evaluate("f => getComputedStyle(f).position") == "sticky"
    eighth = page.locator("#journey > li:not([hidden])").nth(7)
    eighth.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 200)")
    box = page.locator(".path-drawing-box:not([hidden]) svg").bounding_box()
    assert box is not None
    assert box["y"] >= 0, box
    assert box["y"] <= DESKTOP["height"] / 2, box
    assert page.evaluate("window.scrollY") > 1500  # far below where the drawings start
    _shot(page, "drawing-desktop-step-8.png")


@pytest.mark.slow
def test_a_step_and_its_arrow_light_up_together(open_page: Any) -> None:
    page = open_page(GPU_URL, DESKTOP)
    third = page.locator("#journey > li:not([hidden])").nth(2)
    step = _shown_steps(page)[2]
    arrow = _arrow(page, step)
    column = _arrow(page, step, ".path-drawing-box:not([hidden]) svg")
    third.hover()
    assert "is-hot" in arrow.get_attribute("class").split()
    assert "is-hot" in column.get_attribute("class").split()  # in both drawings
    page.mouse.move(0, 0)
    assert "is-hot" not in arrow.get_attribute("class").split()
    fifth = page.locator("#journey > li:not([hidden])").nth(4)
    other = _shown_steps(page)[4]
    _arrow(page, other).locator("a").focus()  # the reverse, by keyboard
    assert "is-hot" in fifth.get_attribute("class").split()
    assert _arrow(page, other).locator(".num text").text_content() == "5"
    _arrow(page, other).locator("a").press("Enter")  # to the step in the list
    assert page.evaluate("document.activeElement.id") == f"step-{other}"
    # an arrow off the path leads to its step among every step
    page.goto(page.url.split("#")[0] + "#mode=eager&device=cpu&branch=none")
    page.wait_for_function("document.getElementById('summary').textContent.includes('eager')")
    _arrow(page, other).locator("a").press("Enter")
    page.wait_for_url(f"**/pytorch/steps.html#step-{other}")


@pytest.mark.slow
def test_stage_boxes_are_links_reached_by_keyboard(open_page: Any) -> None:
    page = open_page(GPU_URL, DESKTOP)
    page.locator("#drawing .skip-drawing").focus()
    assert page.locator("#drawing .skip-drawing").is_visible()  # shown when focused
    reached = []
    for _ in range(8):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.getAttribute('href') || ''"))
    stage_links = [h for h in reached if "stages.html#stage-" in h]
    assert stage_links, reached
    page.keyboard.press("Shift+Tab")
    page.evaluate("document.activeElement.blur()")
    link = page.locator("svg.drawing a[href$='#stage-torchinductor']")
    link.focus()
    outline = link.evaluate("a => getComputedStyle(a).outlineStyle")
    assert outline != "none"
    link.press("Enter")
    page.wait_for_url("**/pytorch/stages.html#stage-torchinductor")


@pytest.mark.slow
def test_the_numbers_follow_the_chosen_path(open_page: Any) -> None:
    page = open_page(GPU_URL, DESKTOP)
    page.locator("label.choice:has(input[value=cpu])").click()
    page.wait_for_function("document.getElementById('summary').textContent.includes('CPU')")
    shown = _shown_steps(page)
    for number, step in enumerate(shown, start=1):
        text = _arrow(page, step).locator(".num text").text_content()
        assert text == str(number), step
    on = page.locator("svg.drawing g.step.is-on > a").evaluate_all(
        "links => links.map(a => a.getAttribute('href').split('#step-')[1])"
    )
    assert sorted(on) == sorted(shown)  # the chosen path is the one highlighted
    visible = page.locator("svg.drawing g.step:not(.is-on) .num").evaluate_all(
        "gs => gs.filter(g => getComputedStyle(g).display !== 'none').length"
    )
    assert visible == 0


def _text_sizes(page: Any, selector: str) -> list[dict[str, Any]]:
    """Each text of the SVG: its rendered font size in CSS pixels, and its box."""
    return page.locator(selector).evaluate(
        """svg => {
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            const frame = svg.getBoundingClientRect();
            return Array.from(svg.querySelectorAll('text')).map(t => {
                const r = t.getBoundingClientRect();
                return {text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale,
                        left: r.left, right: r.right, svgLeft: frame.left, svgRight: frame.right};
            });
        }"""
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("url", "name"),
    [
        (GPU_URL, "drawing-phone-pytorch.png"),
        ("pytorch/index.html#mode=eager&device=cpu&branch=none", "drawing-phone-pytorch-eager.png"),
        ("llamacpp/index.html", "drawing-phone-llamacpp.png"),
    ],
)
def test_a_phone_shows_the_path_as_a_column(open_page: Any, url: str, name: str) -> None:
    page = open_page(url, PHONE)
    assert page.locator("#drawing").is_hidden()  # the whole drawing waits behind a button
    column = page.locator(".path-drawing-box:not([hidden]) svg")
    assert column.count() == 1
    column.scroll_into_view_if_needed()
    texts = _text_sizes(page, ".path-drawing-box:not([hidden]) svg")
    assert texts
    small = [t["text"] for t in texts if t["px"] < 12 - 0.01]
    assert small == [], "text under 12 px"
    clipped = [t["text"] for t in texts if t["left"] < t["svgLeft"] or t["right"] > t["svgRight"]]
    assert clipped == [], "text out of the drawing"
    assert all(t["right"] <= PHONE["width"] for t in texts)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shown = column.evaluate("s => s.querySelectorAll('g.step').length")
    listed = page.locator("#journey > li:not([hidden])").count()
    assert shown == listed  # the selected path, every step of it
    _shot(page, name)


@pytest.mark.slow
def test_on_a_phone_the_whole_atlas_opens_on_the_selected_path(open_page: Any) -> None:
    page = open_page(GPU_URL, PHONE)
    page.locator(".show-whole").click()
    frame = page.locator("#drawing .drawing-scroll")
    assert frame.is_visible()
    assert frame.evaluate("f => f.scrollWidth > f.clientWidth")  # pans: not shrunk to fit
    centred = frame.evaluate(
        """f => {
            const boxes = Array.from(f.querySelectorAll('g.is-on'))
                .map(g => g.getBoundingClientRect());
            const left = Math.min(...boxes.map(b => b.left));
            const right = Math.max(...boxes.map(b => b.right));
            const r = f.getBoundingClientRect();
            const atEdge = f.scrollLeft === 0 || f.scrollLeft + f.clientWidth >= f.scrollWidth - 1;
            return atEdge || Math.abs((left + right) / 2 - (r.left + r.right) / 2) < 2;
        }"""
    )
    assert centred
    texts = _text_sizes(page, "#drawing svg.drawing")
    assert min(t["px"] for t in texts if t["text"].strip()) >= 12 - 0.01
    _shot(page, "drawing-phone-whole-atlas.png")


@pytest.mark.slow
def test_the_full_graph_pans_and_zooms_on_a_phone(open_page: Any) -> None:
    page = open_page("graph.html", PHONE)
    frame = page.locator("#drawing .drawing-scroll")
    assert frame.evaluate("f => f.scrollWidth > f.clientWidth")
    svg = page.locator("#drawing svg.drawing")
    before = svg.bounding_box()["width"]
    page.locator("button[data-zoom=in]").click()
    assert svg.bounding_box()["width"] > before * 1.2
    page.locator("button[data-zoom=fit]").click()
    fitted = svg.bounding_box()["width"]
    assert abs(fitted - frame.evaluate("f => f.clientWidth")) < 2
    assert page.locator("a[href='#steps']").count() >= 1  # the same graph as a list
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.locator("button[data-zoom=in]").click()
    _shot(page, "drawing-phone-graph.png")


def _luminance(rgb: str) -> float:
    values = [int(v) / 255 for v in re.findall(r"\d+", rgb)[:3]]
    linear = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in values]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_faded_labels_keep_their_contrast(open_page: Any, scheme: str) -> None:
    page = open_page(GPU_URL, DESKTOP, color_scheme=scheme)
    background = page.locator("#drawing").evaluate("f => getComputedStyle(f).backgroundColor")
    faded = page.locator("svg.drawing :is(g.step, g.stage):not(.is-on) text").evaluate_all(
        """ts => ts.map(t => {
            let opacity = 1;
            for (let e = t; e && e.tagName !== 'svg'; e = e.parentElement) {
                opacity *= parseFloat(getComputedStyle(e).opacity);
            }
            return {fill: getComputedStyle(t).fill, opacity: opacity};
        })"""
    )
    assert faded
    assert {f["opacity"] for f in faded} == {1.0}  # faded by colour, never by opacity
    worst = min(_contrast(f["fill"], background) for f in faded)
    assert worst >= 4.5, f"{scheme}: faded labels at {worst:.2f}:1"
    page.locator("#drawing").scroll_into_view_if_needed()
    page.locator("section.explorer").screenshot(
        path=str(ARTIFACTS / f"drawing-desktop-{scheme}.png")
    )
