"""The explainer site: pages, escaping, offline use and the CLI, on a tiny fixture (no browser).

The browser tests are in test_site_browser.py.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from atlas import cli, export
from atlas.models import AtlasDocument
from atlas.query import Index
from fixtures_api import tiny_document

pytest.importorskip("jinja2", reason="the site needs the 'site' extra (Jinja2)")
pytestmark = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz 'dot' is not installed (apt-get install graphviz)"
)

from atlas import site  # noqa: E402 - after the skip: the site package needs jinja2

HOSTILE = '<script>alert("owned")</script> & <b>bold</b>'
WEIGHT_LIMIT = 300 * 1024


def hostile_document() -> AtlasDocument:
    """The tiny document, with markup in a quote, a stage label, a note and a scope note."""
    data = export.to_data(tiny_document())
    data["citations"][0]["selector"]["exact"] = f"the toy runs {HOSTILE}"
    data["citations"][0]["support"] = "partial"
    data["citations"][0]["supportNote"] = '<img src="x" onerror="alert(1)">'
    data["stages"][1]["label"] = f"Interpreter {HOSTILE}"
    data["sources"][0]["title"] = "The <i>toy</i> doc"
    data["atlases"][0]["scopeNotes"] = ["Nothing about <marquee>speed</marquee>."]
    return AtlasDocument.model_validate(data)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AtlasDocument, site.BuildReport]:
    document = hostile_document()
    out = tmp_path_factory.mktemp("site")
    return out, document, site.build(out, document)


def pages(out: Path) -> list[Path]:
    return sorted(out.rglob("*.html"))


def test_build_writes_an_index_a_full_graph_and_a_page_per_atlas_and_combination(built) -> None:
    out, document, report = built
    paths = Index(document).all_paths("toy")
    expected = {"index.html", "graph.html", "toy/index.html"}
    expected |= {f"toy/{p.selection[0].name}-{p.selection[1].name}.html" for p in paths}
    assert {p.relative_to(out).as_posix() for p in pages(out)} == expected
    assert set(report.weights) == expected
    assert (out / "site.css").is_file()
    assert (out / "site.js").is_file()


def test_the_versioned_json_is_copied_and_linked(built) -> None:
    out, document, _ = built
    copy = out / f"execution-atlas-{document.version}.json"
    assert export.read(copy) == document
    for page in pages(out):
        assert f'execution-atlas-{document.version}.json" download' in page.read_text()


def test_every_text_from_the_data_is_escaped(built) -> None:
    out, _, _ = built
    for page in pages(out):
        html = page.read_text()
        assert "<script>alert" not in html, page
        assert "<b>bold" not in html, page
        assert "<img" not in html, page
        assert "<marquee" not in html, page
        assert "<i>toy" not in html, page
        # Our own scripts only: the data blob and site.js on the interactive page.
        assert len(re.findall(r"<script\b", html)) == (
            2 if page.name == "index.html" and page.parent.name == "toy" else 0
        )
    atlas_page = (out / "toy" / "index.html").read_text()
    assert (
        "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;"
        in atlas_page
    )
    svg = atlas_page[atlas_page.index("<svg") : atlas_page.index("</svg>")]
    assert "Interpreter &lt;script&gt;" in svg
    blob = atlas_page[atlas_page.index('id="atlas-data">') :]
    assert "</script>" not in blob.split("</script>", 1)[0]  # the JSON cannot end its element


def test_the_atlas_page_has_labelled_controls_a_summary_and_every_section(built) -> None:
    out, document, _ = built
    html = (out / "toy" / "index.html").read_text()
    assert "<h1>How does the toy run?</h1>" in html
    assert html.count("<fieldset>") == 2
    assert "<legend>Mode</legend>" in html
    assert "<legend>Device</legend>" in html
    radios = re.findall(
        r'<label class="choice"><input type="radio" name="(\w+)" value="([\w-]+)"', html
    )
    assert radios == [("mode", "fast"), ("mode", "slow"), ("device", "x"), ("device", "y")]
    first = Index(document).all_paths("toy")[0]
    assert f'<p id="summary" class="summary" role="status">Showing {first.summary}.</p>' in html
    for heading in (
        "The selected path, step by step",
        "Where Python ends",
        "Every stage",
        "Every step",
        "What this does not show",
        "How this page is checked",
    ):
        assert f">{heading}</h2>" in html, heading
    assert 'role="img" aria-labelledby="drawing-toy-title drawing-toy-desc"' in html
    assert "CC BY 4.0" in html
    assert document.attribution in html
    assert "partial support" in html


def test_each_step_has_a_prefilled_report_link(built) -> None:
    out, document, _ = built
    html = (out / "toy" / "index.html").read_text()
    links = re.findall(r'<a class="report" href="(mailto:[^"]+)"', html)
    assert len(links) == len(document.steps)
    for step, link in zip(document.steps, links, strict=True):
        assert f"step%20{step.id}" in link
        assert "better%20source" in link


def test_the_drawing_marks_every_combination_and_highlights_the_first(built) -> None:
    out, document, _ = built
    html = (out / "toy" / "index.html").read_text()
    paths = Index(document).all_paths("toy")
    slugs = [f"{p.selection[0].name}-{p.selection[1].name}" for p in paths]
    for step in document.steps:
        classes = re.search(rf'<g id="g-step-{step.id}" class="([^"]*)"', html)
        assert classes, step.id
        tokens = set(classes.group(1).split())
        on = {
            slug for slug, p in zip(slugs, paths, strict=True) if step.id in {j.id for j in p.steps}
        }
        assert {t.removeprefix("on-") for t in tokens if t.startswith("on-")} == on
        assert ("is-on" in tokens) == (slugs[0] in on)


def test_pages_without_javascript_show_their_combination(built) -> None:
    out, document, _ = built
    for path in Index(document).all_paths("toy"):
        slug = f"{path.selection[0].name}-{path.selection[1].name}"
        html = (out / "toy" / f"{slug}.html").read_text()
        assert "<script" not in html
        assert f"Showing {path.summary}." in html
        assert f'href="{slug}.html" aria-current="page"' in html
        shown = re.findall(r'<li data-step="([^"]+)"', html)
        assert shown == [j.id for j in path.steps]
    interactive = (out / "toy" / "index.html").read_text()
    assert "<noscript>" in interactive
    assert '<form id="selector" class="selector" hidden>' in interactive


def test_pages_load_nothing_from_elsewhere(built) -> None:
    out, _, _ = built
    for page in pages(out):
        html = page.read_text()
        for tag, attribute, value in re.findall(
            r"<(script|link|img|iframe|source)\b[^>]*?(src|href)=\"([^\"]*)\"", html
        ):
            assert not re.match(r"(https?:)?//", value), (page, tag, attribute, value)
        assert "@import" not in html
    css = (out / "site.css").read_text()
    assert "url(" not in css
    assert "@import" not in css
    assert "http" not in (out / "site.js").read_text()


def test_builds_are_reproducible(built, tmp_path: Path) -> None:
    out, document, _ = built
    site.build(tmp_path, document)
    for page in pages(out):
        assert (tmp_path / page.relative_to(out)).read_text() == page.read_text(), page


def test_an_atlas_without_dimensions_gets_a_page_without_selector(tmp_path: Path) -> None:
    data = export.to_data(tiny_document())
    data["atlases"][0]["dimensions"] = []
    site.build(tmp_path, AtlasDocument.model_validate(data))
    html = (tmp_path / "toy" / "index.html").read_text()
    assert "<form" not in html
    assert "<script" not in html
    assert "Every step" in html


def test_a_missing_graphviz_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    with pytest.raises(site.LayoutError, match="Graphviz 'dot' was not found"):
        site.build(tmp_path, tiny_document())


def test_the_shipped_site_stays_under_the_page_weight_limit(tmp_path: Path) -> None:
    report = site.build(tmp_path)
    page, weight = report.heaviest
    assert weight < WEIGHT_LIMIT, f"{page} weighs {weight} bytes with its CSS and JS"


def test_cli_builds_from_an_export_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = export.write(hostile_document(), tmp_path / "toy.json")
    code = cli.main(["site", "build", str(tmp_path / "out"), "--export", str(source)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert re.match(r"wrote 7 pages to .* in \d+\.\d\d s; heaviest: toy/index\.html", out)
    assert (tmp_path / "out" / "toy" / "index.html").is_file()


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["site", "serve", "--dir", str(tmp_path), "--port", "0"])
    _, err = capsys.readouterr()
    assert code == 1
    assert err.startswith("atlas site: error: no site in ")
    assert err.count("\n") == 1
    code = cli.main(["site", "build", str(tmp_path / "out"), "--export", str(tmp_path / "no.json")])
    assert code == 1
    assert capsys.readouterr().err.startswith("atlas site: error: ")


def test_the_server_serves_the_site_on_the_loopback_interface(built) -> None:
    out, _, _ = built
    with site.server(out, 0, quiet=True) as httpd:
        host, port = httpd.server_address[:2]
        assert host == "127.0.0.1"
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/toy/index.html") as response:
                assert response.status == 200
                assert b"How does the toy run?" in response.read()
        finally:
            httpd.shutdown()
            thread.join()


@pytest.mark.slow
def test_cli_serve_prints_its_url_and_serves(built) -> None:
    out, _, _ = built
    command = [sys.executable, "-m", "atlas", "site", "serve", "--dir", str(out), "--port", "0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            url = re.search(r"http://127\.0\.0\.1:\d+/", line)
            assert url, line
            with urllib.request.urlopen(url.group() + "index.html") as response:  # noqa: S310
                assert response.status == 200
        finally:
            process.terminate()
            process.wait(timeout=10)


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_colours_have_enough_contrast(scheme: str) -> None:
    css = (Path(site.__file__).parent / "static" / "site.css").read_text()
    light = css[css.index(":root {") : css.index("}", css.index(":root {"))]
    dark_start = css.index(":root {", css.index("prefers-color-scheme: dark"))
    block = light if scheme == "light" else css[dark_start : css.index("}", dark_start)]
    colours = dict(re.findall(r"--([\w-]+): (#[0-9a-f]{6});", block))
    text_pairs = [
        ("fg", "bg"),
        ("fg", "panel"),
        ("fg", "quote"),
        ("muted", "bg"),
        ("muted", "panel"),
        ("muted", "quote"),
        ("accent", "bg"),
        ("accent", "panel"),
        ("warn-fg", "warn-bg"),
        ("panel", "path"),
        ("fg", "accent-bg"),
    ]
    for fore, back in text_pairs:
        assert contrast(colours[fore], colours[back]) >= 4.5, (scheme, fore, back)
    for fore, back in [("path", "panel"), ("focus", "bg"), ("focus", "panel")]:
        assert contrast(colours[fore], colours[back]) >= 3, (scheme, fore, back)
