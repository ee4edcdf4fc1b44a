"""The site's page of each stage and step, at the path of its IRI (issue 23), on a tiny fixture.

``stage/<id>/index.html`` and ``step/<id>/index.html``: the record as its card shows it, the
steps of a stage, links that reach their pages; a retired record's page links to its replacement.
The last tests open the pages in Chromium and run axe-core on them, as ``test_site_a11y.py`` does
for the other pages (skipped without Chromium and Playwright).
"""

from __future__ import annotations

import html as htmllib
import re
import shutil
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from atlas.data import export
from atlas.models import AtlasDocument
from atlas.models._iri import BASE_IRI
from browserkit import CHROMIUM, chromium, served, watching
from fixtures_api import tiny_document

pytest.importorskip("jinja2", reason="the site needs the 'site' extra (Jinja2)")
pytestmark = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz 'dot' is not installed (apt-get install graphviz)"
)

from atlas.publish import site  # noqa: E402 - after the skip: the site package needs jinja2

MARKUP = "<b>bold</b> & co"
PAGE_LIMIT = 100 * 1024  # a record's page, with its stylesheet: as light as a view's
DERIVED = ("description", "whatHappens", "citations", "unsupportedClaims")  # made from claims


def retiring_document() -> AtlasDocument:
    """The tiny document with markup in a stage's label, and three retired records.

    ``old-interp`` is replaced by ``interp``, ``gone`` by nothing, and the step
    ``toy-old-src-interp`` (to ``old-interp``) by ``toy-src-interp``.
    """
    data = export.to_data(tiny_document())
    data["stages"][1]["label"] = f"Interpreter {MARKUP}"

    def retired(record: dict[str, Any], kind: str, rid: str, by: str | None, **more: Any) -> Any:
        new = {k: v for k, v in record.items() if k not in DERIVED}
        claim = {"id": f"{kind}-{rid}-1", "text": "It was.", "citations": ["c1"]}
        return {**new, "id": rid, "deprecated": True, "replacedBy": by, "claims": [claim], **more}

    data["stages"] += [
        retired(data["stages"][1], "stage", "old-interp", "interp", label="Old interpreter"),
        retired(data["stages"][1], "stage", "gone", None, label="Gone stage"),
    ]
    data["steps"].append(
        retired(data["steps"][0], "step", "toy-old-src-interp", "toy-src-interp", to="old-interp")
    )
    data["counts"]["stages"] += 2
    data["counts"]["steps"] += 1
    return AtlasDocument.model_validate(data)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AtlasDocument, Any]:
    document = retiring_document()
    out = tmp_path_factory.mktemp("record-pages")
    return out, document, site.build(out, document)


def read(out: Path, name: str) -> str:
    return (out / name).read_text(encoding="utf-8")


def main(page: str) -> str:
    return page[page.index("<main") : page.index("</main>")]


def record_pages(out: Path) -> list[Path]:
    return sorted([*out.glob("stage/*/index.html"), *out.glob("step/*/index.html")])


# --- the pages -----------------------------------------------------------------------------


def test_every_stage_and_step_has_a_page_at_the_path_of_its_iri(built) -> None:
    out, document, report = built
    records = [("stage", s.id) for s in document.stages] + [("step", s.id) for s in document.steps]
    assert len(records) == 14  # 5 + 2 retired stages, 6 + 1 retired step
    expected = {f"{kind}/{rid}/index.html" for kind, rid in records}
    assert {p.relative_to(out).as_posix() for p in record_pages(out)} == expected
    for kind, rid in records:
        name = f"{kind}/{rid}/index.html"
        # the IRI's path on the site's host is the page's folder
        assert urllib.parse.urlsplit(f"{BASE_IRI}{kind}/{rid}").path.endswith(
            "/" + name.removesuffix("/index.html")
        )
        assert f"<code>{BASE_IRI}{kind}/{rid}</code>" in read(out, name)
        assert report.weights[name] < PAGE_LIMIT


def test_a_stage_page_shows_its_record_and_the_steps_into_and_out_of_it(built) -> None:
    out, _, _ = built
    page = read(out, "stage/fastlib/index.html")
    assert "<title>Fast library — a stage of the Toy atlas — Toy</title>" in page
    assert '<p class="kicker">Stage of <a href="../../toy/index.html">the Toy atlas</a></p>' in page
    body = main(page)
    assert "Fast library does work." in body
    assert 'href="#stage-fastlib-q1"' in body
    assert 'id="stage-fastlib-q1"' in body  # the quote the marker leads to
    steps = body[body.index('<h2 id="steps-h">') :]
    into, out_of = steps.split("<h3>Out of it</h3>")
    assert 'href="../../step/toy-interp-fast/index.html"' in into
    assert 'href="../../step/toy-fast-chip/index.html"' in out_of
    assert 'href="../../step/toy-fast-slow/index.html"' in out_of
    assert "toy-interp-fast" not in out_of
    assert 'href="../../toy/stages.html#stage-fastlib"' in body
    assert "Source code" not in body  # no step of another stage


def test_a_step_page_links_to_its_stages_and_to_every_step(built) -> None:
    out, _, _ = built
    body = main(read(out, "step/toy-interp-fast/index.html"))
    heading = re.search(r"<h1>(.*?)</h1>", body)
    assert heading
    assert 'href="../../stage/interp/index.html"' in heading[1]
    assert '<span class="verb">feeds</span>' in heading[1]
    assert 'href="../../stage/fastlib/index.html">Fast library</a>' in heading[1]
    assert "<dt>When</dt>" in body
    assert 'href="../../toy/steps.html#step-toy-interp-fast"' in body


def test_a_retired_record_links_to_what_replaces_it(built) -> None:
    out, document, _ = built
    stage = main(read(out, "stage/old-interp/index.html"))
    assert "<h1>Old interpreter</h1>" in stage
    assert "This stage is retired. It is replaced by" in stage
    assert '<a href="../../stage/interp/index.html">Interpreter &lt;b&gt;bold' in stage
    assert "It was." not in stage  # a retired record's text is not shown as current
    step = main(read(out, "step/toy-old-src-interp/index.html"))
    assert "This step is retired. It is replaced by" in step
    assert 'href="../../step/toy-src-interp/index.html"' in step
    gone = main(read(out, "stage/gone/index.html"))
    assert "This stage is retired. Nothing replaces it." in gone
    assert "Replaced by" not in gone
    for name in ("stage/old-interp/index.html", "step/toy-old-src-interp/index.html"):
        assert "a retired" in read(out, name).split("</title>")[0]
    # the atlas's own pages still leave the retired records out
    for name in ("toy/stages.html", "toy/steps.html", "toy/index.html"):
        assert "old-interp" not in read(out, name), name
    assert {s.id for s in document.stages if s.deprecated} == {"old-interp", "gone"}


def test_the_reference_cards_link_to_the_record_pages(built) -> None:
    out, _, _ = built
    stages = read(out, "toy/stages.html")
    assert f'<a href="../stage/interp/index.html"><code>{BASE_IRI}stage/interp</code></a>' in stages
    steps = read(out, "toy/steps.html")
    iri = f"{BASE_IRI}step/toy-fast-chip"
    assert f'<a href="../step/toy-fast-chip/index.html"><code>{iri}</code></a>' in steps


def test_every_link_of_the_record_pages_reaches_its_page_and_element(built) -> None:
    out, _, _ = built
    for page in record_pages(out):
        for raw in re.findall(r'href="([^"]*)"', page.read_text(encoding="utf-8")):
            href = htmllib.unescape(raw)
            if re.match(r"[a-z]+:", href) or href.endswith((".css", ".json")):
                continue
            path, _, fragment = href.partition("#")
            target = (page.parent / path).resolve() if path else page
            assert target.is_relative_to(out.resolve()), (page, href)
            assert target.is_file(), (page, href)
            if fragment:
                ids = re.findall(r'\bid="([^"]+)"', target.read_text(encoding="utf-8"))
                assert fragment in ids, (page, href)


def test_the_record_pages_escape_the_data_and_load_nothing(built) -> None:
    out, _, _ = built
    for page in record_pages(out):
        text = page.read_text(encoding="utf-8")
        assert "<b>bold" not in text, page
        assert "<script" not in text, page
        for value in re.findall(r"<(?:link|img|script)\b[^>]*?(?:src|href)=\"([^\"]*)\"", text):
            assert not re.match(r"(https?:)?//", value), (page, value)
    assert "Interpreter &lt;b&gt;bold&lt;/b&gt; &amp; co" in read(out, "stage/interp/index.html")


def test_a_static_server_answers_the_iri_path_with_the_page(built) -> None:
    out, _, _ = built
    httpd = site.server(out, 0, quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}"
        with urllib.request.urlopen(f"{base}/stage/interp", timeout=10) as answer:  # noqa: S310
            assert answer.url == f"{base}/stage/interp/"  # the slash added, as hosts do
            assert answer.read().decode() == read(out, "stage/interp/index.html")
    finally:
        httpd.shutdown()
        thread.join()
        httpd.server_close()


# --- in a browser: axe-core ----------------------------------------------------------------

WIDTHS = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed")
    yield from chromium()


@pytest.fixture(scope="module")
def base_url(built) -> Iterator[str]:
    yield from served(built[0])


@pytest.mark.slow
@pytest.mark.parametrize(("width", "scheme"), [("desktop", "light"), ("phone", "dark")])
def test_axe_finds_nothing_serious_on_the_record_pages(
    browser: Any, base_url: str, built, width: str, scheme: str
) -> None:
    axe = pytest.importorskip("axe_playwright_python.sync_playwright").Axe()
    out = built[0]
    watch = watching(browser, base_url, WIDTHS[width])
    page = next(watch)(color_scheme=scheme).page
    found = {}
    for name in (p.relative_to(out).as_posix() for p in record_pages(out)):
        page.goto(base_url + name)
        violations = axe.run(page).response["violations"]
        serious = [v["id"] for v in violations if v["impact"] in {"serious", "critical"}]
        if serious:
            found[name] = serious
    next(watch, None)
    assert found == {}
