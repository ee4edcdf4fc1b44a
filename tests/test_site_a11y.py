"""The content of the explainer site in a real browser, and axe-core on every page (issue 20).

Debian's Chromium driven by Playwright, offline: each page is served from the loopback
interface, and a request for anything else fails the test. axe-core (bundled with
axe-playwright-python, injected into the page, never loaded from the network) must find no
serious or critical violation on any page at 1366 px and at 390 px wide, in the light scheme and,
for the main pages, the dark one. The behaviour of the view pages is tested too: the default
views, history entries for choices, unknown values reported, links that keep the selection.
Screenshots go to artifacts/site/ (git-ignored), named content-*.png.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from browserkit import CHROMIUM, Watched, chromium, served, watching

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "site"
WIDTHS = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
TRACKER = "https://github.com/execution-atlas/execution-atlas/issues"

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
axe_sync = pytest.importorskip(
    "axe_playwright_python.sync_playwright", reason="axe-playwright-python is not installed"
)
pytest.importorskip("jinja2", reason="the site needs the 'site' extra (Jinja2)")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

from atlas.publish import site  # noqa: E402 - after the skips: the site package needs jinja2


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("a11y-site")
    site.build(out)
    return out


@pytest.fixture(scope="module")
def base_url(built: Path) -> Iterator[str]:
    yield from served(built)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture
def open_page(browser: Any, base_url: str) -> Iterator[Callable[..., Watched]]:
    watch = watching(browser, base_url, WIDTHS["desktop"])
    opener = next(watch)

    def at_width(width: str = "desktop", **options: Any) -> Watched:
        return opener(viewport=WIDTHS[width], **options)

    yield at_width
    next(watch, None)


def all_pages(built: Path) -> list[str]:
    """Every page, but of the record pages (one template: stage/<id>/, step/<id>/) two of each."""
    pages = sorted(p.relative_to(built).as_posix() for p in built.rglob("*.html"))
    records = {kind: [p for p in pages if p.startswith(kind)] for kind in ("stage/", "step/")}
    sampled = {p for found in records.values() for p in found[:2]}
    return [p for p in pages if not p.startswith(("stage/", "step/")) or p in sampled]


MAIN_PAGES = [
    "index.html",
    "graph.html",
    "pytorch/index.html",
    "pytorch/steps.html",
    "llamacpp/index.html",
    "technologies/index.html",
]


def serious(page: Any) -> list[str]:
    """axe-core's serious and critical violations on the page, one line each."""
    results = axe_sync.Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {len(v['nodes'])} x, e.g. {v['nodes'][0]['target']}"
        f" {v['nodes'][0].get('failureSummary', '')[:300]!r}"
        for v in results.response["violations"]
        if v["impact"] in {"serious", "critical"}
    ]


@pytest.mark.parametrize("width", list(WIDTHS))
def test_axe_finds_nothing_serious_on_any_page(
    open_page: Any, base_url: str, built: Path, width: str
) -> None:
    page = open_page(width).page
    found = {}
    for name in all_pages(built):
        page.goto(base_url + name)
        problems = serious(page)
        if problems:
            found[name] = problems
    assert found == {}


@pytest.mark.parametrize("width", list(WIDTHS))
def test_axe_finds_nothing_serious_in_the_dark_scheme(
    open_page: Any, base_url: str, width: str
) -> None:
    page = open_page(width, color_scheme="dark").page
    found = {}
    for name in MAIN_PAGES:
        page.goto(base_url + name)
        problems = serious(page)
        if problems:
            found[name] = problems
    assert found == {}


def summary(page: Any) -> str:
    return page.locator("#summary").inner_text()


def choose(page: Any, label: str, shown: str) -> None:
    """Click the choice ``label`` and wait until the summary starts with ``shown``.

    The first choice of another view may wait for views.js (what only the other views show).
    """
    page.locator("label.choice", has_text=label).click()
    page.wait_for_function(
        "prefix => document.getElementById('summary').textContent.startsWith(prefix)", arg=shown
    )


def test_the_pages_open_on_meaningful_views(open_page: Any, base_url: str) -> None:
    page = open_page().page
    page.goto(base_url + "pytorch/index.html")
    assert summary(page) == "Showing torch.compile on an NVIDIA GPU: 12 stages, 12 steps."
    assert page.locator("#notice").is_hidden()
    page.goto(base_url + "llamacpp/index.html")
    assert summary(page).startswith("Showing on an NVIDIA GPU (CUDA) with all layers")


def test_back_undoes_a_choice(open_page: Any, base_url: str) -> None:
    page = open_page().page
    page.goto(base_url + "pytorch/index.html")
    choose(page, "eager", "Showing eager mode on an NVIDIA GPU")
    assert page.evaluate("location.hash") == "#mode=eager&device=nvidia-gpu&branch=none"
    choose(page, "CPU", "Showing eager mode on a CPU")
    page.go_back()
    page.wait_for_function("document.getElementById('summary').textContent.includes('NVIDIA')")
    assert summary(page).startswith("Showing eager mode on an NVIDIA GPU")
    assert page.locator("#selector input[value=cpu]").is_checked() is False
    page.go_back()
    page.wait_for_function("document.getElementById('summary').textContent.includes('compile')")
    assert summary(page).startswith("Showing torch.compile on an NVIDIA GPU")
    assert page.evaluate("location.hash") == ""
    page.go_forward()
    page.wait_for_function("document.getElementById('summary').textContent.includes('eager')")
    assert page.locator("#selector input[value=eager]").is_checked()


def test_an_unknown_value_in_the_url_is_reported(open_page: Any, base_url: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = open_page().page
    page.goto(base_url + "pytorch/index.html#mode=bogus&device=cpu")
    notice = page.locator("#notice")
    assert notice.is_visible()
    text = notice.inner_text()
    assert "mode \u201cbogus\u201d" in text
    assert "eager, torch.compile" in text  # the choices
    assert "Shown instead: torch.compile on a CPU." in text
    assert summary(page).startswith("Showing torch.compile on a CPU")
    page.locator("section.explorer").screenshot(path=str(ARTIFACTS / "content-unknown-value.png"))
    # a combination that has no path is reported too
    page.evaluate("location.hash = 'mode=eager&device=cpu&branch=graph-breaks'")
    page.wait_for_function("document.getElementById('summary').textContent.includes('eager')")
    assert "No path has branch \u201cwith graph breaks\u201d" in notice.inner_text()
    # a choice made on the page clears the notice
    choose(page, "torch.compile", "Showing torch.compile")
    assert notice.is_hidden()


def test_markers_and_quote_links_keep_the_selection(open_page: Any, base_url: str) -> None:
    page = open_page().page
    page.goto(base_url + "pytorch/index.html#mode=eager&device=cpu&branch=none")
    details = page.locator("#python-eager-more")
    assert details.evaluate("d => d.open") is False
    marker = page.locator("#python .python-part:not([hidden]) sup.marks a").nth(1)
    target = marker.get_attribute("href").lstrip("#")
    marker.click()
    assert details.evaluate("d => d.open") is True  # the quote, one click away, is shown
    assert page.locator(f"#{target}").is_visible()
    assert page.evaluate("location.hash") == f"#mode=eager&device=cpu&branch=none&at={target}"
    page.reload()
    assert summary(page).startswith("Showing eager mode on a CPU")
    assert page.locator(f"#{target}").is_visible()
    # the link to the other quotes of a step opens the page of every step at that step
    step = page.locator("#journey > li:not([hidden])").first
    assert step.locator("blockquote").count() == 1  # one quote in sight
    link = step.locator("p.actions a", has_text="more quote")
    href = link.get_attribute("href")
    assert href.startswith("steps.html#step-")
    report = step.locator("a.report").get_attribute("href")
    assert report.startswith(f"{TRACKER}/new?title=Step+")
    link.click()
    page.wait_for_url(f"**/pytorch/{href}")
    assert page.locator(f"#{href.split('#')[1]}").is_visible()
    page.go_back()
    page.wait_for_function("document.getElementById('summary').textContent.includes('eager')")
    assert "mode=eager&device=cpu" in page.evaluate("location.hash")  # the selection is kept


def test_where_python_ends_follows_the_mode_and_is_absent_without_python(
    open_page: Any, base_url: str
) -> None:
    page = open_page().page
    page.goto(base_url + "pytorch/index.html")
    part = page.locator("#python .python-part:not([hidden])")
    assert part.count() == 1
    assert "TorchDynamo captures" in part.inner_text()
    choose(page, "eager", "Showing eager mode")
    assert "In eager mode" in part.inner_text()
    page.goto(base_url + "llamacpp/index.html")
    assert page.locator("#python").count() == 0
    assert "Python interpreter" not in page.locator("main").inner_text()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_screenshots_of_the_content(open_page: Any, base_url: str, width: str) -> None:
    """Screenshots for people to look at; the page must not scroll sideways."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = open_page(width).page
    page.goto(base_url + "pytorch/index.html")
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width]["width"]
    shots = {
        "steps": "#journey > li:not([hidden]) >> nth=3",
        "python": "#python",
        "end": "#more",
    }
    for name, selector in shots.items():
        element = page.locator(selector)
        element.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"content-pytorch-{name}-{width}.png"))
    for name in ("stages", "steps", "sources"):
        page.goto(f"{base_url}pytorch/{name}.html")
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width]["width"]
        page.screenshot(path=str(ARTIFACTS / f"content-pytorch-{name}-page-{width}.png"))
    # the longest word of any title: (AOTIModelPackageLoader), 23 letters, in a heading of 2.5rem
    page.goto(base_url + "step/pytorch-aoti-runner-launches-on-gpu/index.html")
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width]["width"]
    page.goto(base_url + "index.html")
    page.screenshot(path=str(ARTIFACTS / f"content-landing-{width}.png"), full_page=True)
