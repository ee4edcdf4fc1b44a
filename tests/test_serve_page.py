"""The query page of ``atlas serve`` in a real browser (Debian's Chromium driven by Playwright).

Each test records console errors (a Content Security Policy violation is one) and every request,
and fails if one goes anywhere but the loopback server. Screenshots go to artifacts/serve/
(git-ignored) for people to look at.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from atlas.publish.serve import Settings
from browserkit import CHROMIUM, Watched, chromium, watching
from checkkit import serve_in_thread

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "serve"

pytest.importorskip("uvicorn")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright)"
)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium"
    ),
]


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    yield from serve_in_thread(Settings(workers=2, max_rows=50))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture
def open_page(browser: Any, base_url: str) -> Iterator[Callable[..., Watched]]:
    watch = watching(browser, base_url, {"width": 1200, "height": 900})
    opener = next(watch)

    def at_the_page(**options: Any) -> Watched:
        watched = opener(**options)
        watched.page.goto(base_url + "/")
        return watched

    yield at_the_page
    next(watch, None)


def _run(page: Any, query: str | None = None) -> str:
    """Run a query from the form (the one in it when ``None``); give the status line."""
    if query is not None:
        page.fill("#query", query)
    page.click("button[type=submit]")
    status = page.locator("#status")
    status.filter(has_not_text="Running").wait_for()
    return str(status.inner_text())


def test_the_page_runs_its_query_and_shows_a_table(open_page: Callable[..., Watched]) -> None:
    page = open_page().page
    assert page.title() == "Execution Atlas: SPARQL endpoint"
    assert _run(page).endswith("rows")
    headers = page.locator("#results th").all_inner_texts()
    assert headers == ["stage", "label"]
    labels = page.locator("#results td:nth-child(2)").all_inner_texts()
    assert "CPU" in labels
    assert labels == sorted(labels, key=str)  # ORDER BY ?label
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "query-page.png"), full_page=False)


def test_an_example_fills_the_form(open_page: Callable[..., Watched]) -> None:
    page = open_page().page
    page.click("summary:has-text('witness graphs')")
    page.click("button[data-example=example-witness]")
    assert "GRAPH ?graph" in page.input_value("#query")
    records = len(
        list((Path(__file__).resolve().parents[1] / "dataset" / "witness").glob("*.json"))
    )
    assert records > 1
    assert _run(page) == f"{records} rows"  # one per witness record
    graphs = page.locator("#results td:first-child").all_inner_texts()
    assert all(g.startswith("https://w3id.org/execution-atlas/witness/") for g in graphs)


@pytest.mark.parametrize(
    ("query", "status", "shown"),
    [
        ("ASK { ?s ?p ?o }", "Answer: true", None),
        (
            "CONSTRUCT WHERE { <https://w3id.org/execution-atlas/stage/cpu> a ?t }",
            "Graph",
            "stage:cpu a ea:Stage",
        ),
        ("SELECT * WHERE { ?s ?p ", "Error 400: invalid SPARQL", None),
        ("DELETE WHERE { ?s ?p ?o }", "Error 400: ", None),
    ],
    ids=["ask", "construct", "bad-syntax", "update"],
)
def test_each_kind_of_answer_is_shown(
    open_page: Callable[..., Watched], query: str, status: str, shown: str | None
) -> None:
    watched = open_page()
    assert _run(watched.page, query).startswith(status)
    if shown is not None:
        assert shown in watched.page.locator("#results pre").inner_text()
    if status.startswith("Error"):  # the browser logs the refused request: that is all
        assert watched.errors == [
            "Failed to load resource: the server responded with a status of 400 (Bad Request)"
        ]
        watched.errors.clear()


def test_text_from_the_data_is_never_markup(open_page: Callable[..., Watched]) -> None:
    page = open_page().page
    _run(page, 'SELECT ?x WHERE { BIND("<img src=x onerror=alert(1)>" AS ?x) }')
    assert page.locator("#results td").inner_text() == "<img src=x onerror=alert(1)>"
    assert page.locator("#results img").count() == 0


def test_without_script_the_form_is_a_plain_get(open_page: Callable[..., Watched]) -> None:
    page = open_page(java_script_enabled=False).page
    page.fill(
        "#query",
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nSELECT ?label "
        "WHERE { <https://w3id.org/execution-atlas/stage/cpu> rdfs:label ?label }",
    )
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "?query=" in url)
    assert page.locator("#status").inner_text() == "1 row"
    assert page.locator("#results td").all_inner_texts() == ["CPU"]
    assert "stage/cpu" in page.input_value("#query")  # the query stays in the form
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "query-page-without-script.png"))
