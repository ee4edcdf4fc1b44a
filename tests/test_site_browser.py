"""The explainer site in a real browser: Debian's Chromium driven by Playwright, fully offline.

One browser for the whole module; each test gets a fresh context that records console errors
and every request, and fails if one goes anywhere but the loopback server. Screenshots of each
combination are saved under artifacts/site/ (git-ignored) for people to look at.
"""

from __future__ import annotations

import shutil
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from atlas.query.paths import load
from browserkit import CHROMIUM, Watched, chromium, served, watching

if TYPE_CHECKING:
    from atlas.models import ExecutionPath

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "site"
DESKTOP = {"width": 1360, "height": 900}
PHONE = {"width": 390, "height": 844}

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright)"
)
pytest.importorskip("jinja2", reason="the site needs the 'site' extra (Jinja2)")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium"
    ),
    pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed"),
]

from atlas.publish import site  # noqa: E402 - after the skips: the site package needs jinja2
from atlas.publish.site._pages import Page  # noqa: E402
from atlas.publish.site._views import default_view  # noqa: E402

_PAGE = Page(load())
_VIEWS = _PAGE.views(next(a for a in _PAGE.atlases if a.id == "pytorch"))
# every combination of the PyTorch page, by its slug: its modes and devices, then each again
# with the graph-break branch where it applies (torch.compile and reduce-overhead)
VIEWS = {view.slug: view.path for view in _VIEWS}
PATHS = list(VIEWS.values())
DEFAULT = default_view(_VIEWS).path  # torch.compile on an NVIDIA GPU


def slug(path: ExecutionPath) -> str:
    return "-".join(c.name for c in (*path.selection, *path.branches))


def branch(path: ExecutionPath) -> str:
    return path.branches[0].name if path.branches else "none"


def fragment(path: ExecutionPath) -> str:
    return urllib.parse.urlencode(
        {"mode": path.selection[0].name, "device": path.selection[1].name, "branch": branch(path)}
    )


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    out = tmp_path_factory.mktemp("site")
    site.build(out)
    yield from served(out)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture
def open_page(browser: Any, base_url: str) -> Iterator[Callable[..., Watched]]:
    yield from watching(browser, base_url, DESKTOP)


def shown_steps(page: Any) -> list[str]:
    """The steps the list shows, in order (its items' ids are step-<id>)."""
    return page.locator("#journey > li:not([hidden])").evaluate_all(
        "items => items.map(i => i.id.replace(/^step-/, ''))"
    )


def highlighted(page: Any, kind: str) -> set[str]:
    """The stages or steps highlighted in the whole drawing (each named by its link)."""
    hrefs = page.locator(f"svg.drawing g.{kind}.is-on > a").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"
    )
    return {href.split(f"#{kind}-", 1)[1] for href in hrefs}


def check_view(page: Any, path: ExecutionPath) -> None:
    # a view other than the opening one is shown once views.js has come: wait for its summary
    page.wait_for_function(
        "text => document.getElementById('summary').textContent === text",
        arg=f"Showing {path.summary}.",
    )
    summary = page.locator("#summary").inner_text()
    assert summary == f"Showing {path.summary}."
    counts = f": {len(path.stages)} stage{'s' * (len(path.stages) != 1)}, {len(path.steps)} step"
    assert counts in summary
    assert highlighted(page, "step") == {j.id for j in path.steps}
    assert highlighted(page, "stage") == {s.id for s in path.stages}
    assert shown_steps(page) == [j.id for j in path.steps]
    # each shown step and the path's drawing have their content (views.js has filled them)
    assert page.locator("#journey > li:not([hidden]) h3").count() == len(path.steps)
    assert page.locator(".path-drawing-box:not([hidden]) svg").count() == 1
    assert page.locator("[data-deferred]:not([hidden])").count() == 0
    assert page.locator("#python .python-part:not([hidden])").count() == 1  # its mode's words
    assert page.locator("#python p.python-ends:not([hidden])").count() == 1
    checked = page.locator("#selector input:checked").evaluate_all("xs => xs.map(x => x.value)")
    assert checked == [*(c.name for c in path.selection), branch(path)]


@pytest.mark.parametrize("path", PATHS, ids=slug)
def test_each_combination_from_its_url(open_page: Any, base_url: str, path: ExecutionPath) -> None:
    watched = open_page()
    page = watched.page
    page.goto(f"{base_url}pytorch/index.html#{fragment(path)}")
    check_view(page, path)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("section.explorer").screenshot(path=str(ARTIFACTS / f"pytorch-{slug(path)}.png"))
    page.reload()
    check_view(page, path)
    assert page.evaluate("location.hash") == f"#{fragment(path)}"


def test_choosing_with_the_keyboard_only(open_page: Any, base_url: str) -> None:
    page = open_page().page
    page.goto(f"{base_url}pytorch/index.html")
    check_view(page, DEFAULT)  # the page opens on torch.compile on an NVIDIA GPU
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.name") == "mode":
            break
    else:
        pytest.fail("Tab never reached the mode selector")
    label = page.locator("label.choice:has(input:focus)")
    assert label.evaluate("l => getComputedStyle(l).outlineStyle") != "none"  # focus is visible
    target = VIEWS["eager-cpu"]  # the values before torch.compile and an NVIDIA GPU
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == "device"
    page.keyboard.press("ArrowLeft")
    check_view(page, target)
    assert page.evaluate("location.hash") == f"#{fragment(target)}"
    page.reload()
    check_view(page, target)


def test_a_fragment_may_name_values_by_label(open_page: Any, base_url: str) -> None:
    page = open_page().page
    page.goto(f"{base_url}pytorch/index.html#mode=torch.compile&device=NVIDIA%20GPU")
    check_view(page, DEFAULT)
    page.evaluate("location.hash = 'mode=compile&device=gpu&branch=Graph%20Breaks'")
    page.wait_for_function("document.getElementById('summary').textContent.includes('breaks')")
    check_view(page, VIEWS["torch-compile-nvidia-gpu-graph-breaks"])
    # graph breaks apply to torch.compile only: in eager mode the default path is shown
    page.evaluate("location.hash = 'mode=eager&device=cpu&branch=graph-breaks'")
    page.wait_for_function("document.getElementById('summary').textContent.includes('eager')")
    check_view(page, VIEWS["eager-cpu"])
    page.evaluate("location.hash = 'mode=eager&device=cpu'")
    page.wait_for_function("document.getElementById('summary').textContent.includes('eager')")
    check_view(page, VIEWS["eager-cpu"])


def test_every_combination_is_readable_without_javascript(open_page: Any, base_url: str) -> None:
    page = open_page(java_script_enabled=False).page
    page.goto(f"{base_url}pytorch/index.html#{fragment(PATHS[-1])}")
    assert page.locator("#summary").inner_text() == f"Showing {DEFAULT.summary}."
    assert page.locator("#selector").is_hidden()
    links = page.locator("noscript a, .choose a")
    assert links.count() == len(PATHS)
    for path in PATHS:
        page.goto(f"{base_url}pytorch/{slug(path)}.html")
        assert page.locator("#summary").inner_text() == f"Showing {path.summary}."
        assert highlighted(page, "step") == {j.id for j in path.steps}
        assert shown_steps(page) == [j.id for j in path.steps]
    # each shown step and the path's drawing have their content (views.js has filled them)
    assert page.locator("#journey > li:not([hidden]) h3").count() == len(path.steps)
    assert page.locator(".path-drawing-box:not([hidden]) svg").count() == 1
    assert page.locator("[data-deferred]:not([hidden])").count() == 0


def test_every_page_loads_offline_without_errors(open_page: Any, base_url: str) -> None:
    watched = open_page()
    page = watched.page
    for url in ["index.html", "graph.html", *(f"{a.id}/index.html" for a in load().atlases)]:
        page.goto(base_url + url)
        assert page.locator("h1").count() == 1
        assert page.locator("svg.drawing title").count() >= 1 or url == "index.html"
    assert len(watched.requests) >= 4


def test_phone_width_and_dark_scheme(open_page: Any, base_url: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    phone = open_page(viewport=PHONE).page
    phone.goto(f"{base_url}pytorch/index.html#{fragment(PATHS[-1])}")
    check_view(phone, PATHS[-1])
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "the page scrolls sideways on a phone"
    phone.locator("#selector").scroll_into_view_if_needed()
    phone.screenshot(path=str(ARTIFACTS / "pytorch-phone.png"))
    phone.locator("#journey").scroll_into_view_if_needed()
    phone.screenshot(path=str(ARTIFACTS / "pytorch-phone-steps.png"))
    dark = open_page(color_scheme="dark").page
    dark.goto(f"{base_url}pytorch/index.html#{fragment(PATHS[2])}")
    check_view(dark, PATHS[2])
    background = dark.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 23, 26)"
    dark.locator("section.explorer").screenshot(path=str(ARTIFACTS / "pytorch-dark.png"))
