"""What the site's pages say (issue 20): quotes in sight, claim markers, report links, where
Python ends, reference pages, the default view, no curation notes, the landing page and the end
of the story. HTML checks on a small fixture, then on the shipped site; no browser (that is
test_site_a11y.py).
"""

from __future__ import annotations

import html as htmllib
import re
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from atlas import cli
from atlas.data import export
from atlas.models import AtlasDocument
from atlas.models._iri import BASE_IRI
from atlas.query._index import Index
from fixtures_api import tiny_document
from sitefiles import journey_items, page_text

pytest.importorskip("jinja2", reason="the site needs the 'site' extra (Jinja2)")

from atlas.publish import site
from atlas.publish.site._views import default_view

TRACKER = "https://tracker.example/toy/issues"
MARKDOWN_QUOTE = "see [the docs](https://example.org/docs) and *this*"
# curation notes: none of these may reach a page
NOTES = {
    "claim": "CURATOR-CLAIM-NOTE",
    "source": "CURATOR-SOURCE-NOTE seen as a search excerpt",
    "version": "page as crawled, CURATOR-VERSION",
    "license": "CURATOR-LICENCE found by text search",
}
VIEW_LIMIT = 100_000  # bytes of HTML per view page


def claim(cid: str, text: str, *citations: str, **fields: Any) -> dict[str, Any]:
    return {"id": cid, "text": text, "citations": list(citations), **fields}


def set_claims(record: dict[str, Any], claims: list[dict[str, Any]]) -> None:
    """Give a record (as JSON data) new claims; the keys derived from the old ones go."""
    for derived in ("citations", "unsupportedClaims", "whatHappens", "description", "explanation"):
        record.pop(derived, None)
    record["claims"] = claims


def content_document(*, tracker: bool = True, python: bool = True) -> AtlasDocument:
    """The tiny document with quotes of each support, a claim of each kind, notes, a tracker.

    The first step ``toy-src-interp`` says four sentences: one backed by a partial and a full
    quote, one by the partial quote alone, one observed by a witness run, one unsupported.
    The mode 'fast' explains where Python ends.
    """
    data = export.to_data(tiny_document())
    data["citations"] += [
        {
            "id": "c2",
            "source": "https://example.org/second",
            "retrievedOn": "2026-11-30T00:00:00Z",
            "support": "partial",
            "supportNote": "It leaves out the speed.",
            "selector": {"exact": MARKDOWN_QUOTE},
        },
        {
            "id": "c3",
            "source": "https://example.org/second",
            "retrievedOn": "2026-11-29T00:00:00Z",
            "support": "full",
            "selector": {"exact": "fast mode ends Python early"},
        },
    ]
    data["sources"][0] |= {
        "note": NOTES["source"],
        "version": NOTES["version"],
        "license": NOTES["license"],
        "publisher": "Toy Org (CURATOR-PUBLISHER remark)",
    }
    data["sources"].append(
        {
            "id": "second",
            "url": "https://example.org/second",
            "title": "The second doc",
            "retrievedOn": "2026-11-30T00:00:00Z",
            "complete": True,
            "snapshot": "second.txt",
            "primary": True,
        }
    )
    set_claims(
        data["steps"][0],
        [
            claim("s1", "Source code runs in the interpreter.", "c2", "c1", note=NOTES["claim"]),
            claim("s2", "It runs fast.", "c2"),
            claim("s3", "A run saw it.", observedIn=["toy-x-20261202-170221#src-interp"]),
            claim("s4", "Nobody knows why.", unsupported=True),
        ],
    )
    set_claims(
        data["schemes"][0]["values"][0],
        [
            claim("m1", "Under fast, Python ends at the fast library.", "c3"),
            claim("m2", "Each call still starts in Python.", "c2"),
        ],
    )
    if tracker:
        data["contactPoint"] = {"name": "Toy tracker", "url": TRACKER}
    if not python:
        for stage in data["stages"]:
            stage["executesInPython"] = False
    return AtlasDocument.model_validate(data)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("content")
    site.build(out, content_document())
    return out


def read(out: Path, name: str) -> str:
    return page_text(out / name)  # an interactive page with what views.js brings


def cards(html: str, kind: str) -> dict[str, str]:
    """Record id -> its card on a reference page (``kind``: 'stage' or 'step')."""
    return {
        m.group(1): m.group(2)
        for m in re.finditer(
            rf'<article class="card" id="{kind}-([^"]+)">(.*?)</article>', html, re.DOTALL
        )
    }


def view_pages(out: Path, atlas: str) -> list[Path]:
    return sorted(
        p
        for p in (out / atlas).glob("*.html")
        if p.name not in {"stages.html", "steps.html", "sources.html"}
    )


def ids_in(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


def text_of(markup: str) -> str:
    return htmllib.unescape(re.sub(r"<[^>]+>", "", markup))


# --- quotes in sight, claim by claim ------------------------------------------------------


def test_each_step_of_a_view_shows_its_strongest_quote_and_links_to_the_others(
    built: Path,
) -> None:
    document = content_document()
    steps_page = read(built, "toy/steps.html")
    step_cards = cards(steps_page, "step")
    for page in view_pages(built, "toy"):
        for step_id, item in journey_items(read(built, f"toy/{page.name}")).items():
            quotes = re.findall(rf'<li id="step-{step_id}-q(\d+)"', item)
            assert quotes == ["1"], (page.name, step_id)  # one quote in sight
            card = step_cards[step_id]
            assert re.findall(rf'<li id="step-{step_id}-q(\d+)"', card) == [
                str(n) for n in range(1, len(re.findall(r"<blockquote>", card)) + 1)
            ]
            first = re.search(r"<blockquote>(.*?)</blockquote>", item, re.DOTALL)
            assert first
            assert first.group(1) == re.search(r"<blockquote>(.*?)</blockquote>", card).group(1)
            assert re.search(r"checked <time>\d{4}-\d\d-\d\d</time>", item)
            assert f'href="steps.html#step-{step_id}"' in item
    # the strongest first: the full quote before the partial one, though cited after it
    item = journey_items(read(built, "toy/index.html"))["toy-src-interp"]
    assert "<blockquote>the toy runs</blockquote>" in item
    assert '<a href="https://example.org/doc">The toy doc</a>' in item
    assert ">1 more quote and its check date</a>" in item
    card = step_cards["toy-src-interp"]
    assert card.index("the toy runs") < card.index("see [the docs]")
    assert "It leaves out the speed." in card  # a partial quote says what it leaves out
    assert document.steps[0].id == "toy-src-interp"


def sentence_marks(block: str) -> list[tuple[str, list[str], str]]:
    """Each sentence of a record: its text, its markers' targets, and its badge (or '')."""
    found = []
    for m in re.finditer(r'<span class="claim claim-(\w+)">(.*?)</span>(?= |</p>)', block):
        markup = m.group(2)
        targets = re.findall(r'<a href="([^"]+)">\[\d+\]</a>', markup)
        badge = re.search(r'<span class="badge (\w+)">', markup)
        text = text_of(re.sub(r'<sup class="marks">.*?</sup>|<span class="badge.*', "", markup))
        found.append((text.strip(), targets, badge.group(1) if badge else ""))
    return found


def test_each_sentence_carries_its_quotes_and_its_support(built: Path) -> None:
    item = journey_items(read(built, "toy/index.html"))["toy-src-interp"]
    prefix = "step-toy-src-interp-q"
    assert sentence_marks(item) == [
        ("Source code runs in the interpreter.", [f"#{prefix}1", f"steps.html#{prefix}2"], ""),
        ("It runs fast.", [f"steps.html#{prefix}2"], "partial"),
        ("A run saw it.", [], "observed"),
        ("Nobody knows why.", [], "unsupported"),
    ]
    card = cards(read(built, "toy/steps.html"), "step")["toy-src-interp"]
    assert [targets for _, targets, _ in sentence_marks(card)] == [
        [f"#{prefix}1", f"#{prefix}2"],
        [f"#{prefix}2"],
        [],
        [],
    ]


def test_every_marker_reaches_its_quote(built: Path) -> None:
    for page in sorted(built.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        for href in re.findall(r'<sup class="marks">(.*?)</sup>', html):
            for target in re.findall(r'href="([^"]+)"', href):
                name, _, fragment = target.partition("#")
                other = read(page.parent, name) if name else html
                assert fragment in ids_in(other), (page.name, target)


def test_quotes_are_shown_as_stored(built: Path) -> None:
    card = cards(read(built, "toy/steps.html"), "step")["toy-src-interp"]
    escaped = htmllib.escape(MARKDOWN_QUOTE, quote=True).replace("&#x27;", "&#39;")
    assert f"<blockquote>{escaped}</blockquote>" in card  # not rendered, not altered
    assert '<a href="https://example.org/docs">' not in card


# --- report a problem ----------------------------------------------------------------------


def report_links(html: str) -> list[str]:
    return [htmllib.unescape(h) for h in re.findall(r'<a class="report" href="([^"]+)"', html)]


def issue(href: str) -> dict[str, str]:
    """The title and body of a new-issue link, checked to be a well-encoded URL."""
    assert re.fullmatch(r"[!#-~]+", href), href  # no raw space, newline or non-ASCII
    parts = urllib.parse.urlsplit(href)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{TRACKER}/new"
    query = urllib.parse.parse_qs(parts.query, strict_parsing=True)
    assert set(query) == {"title", "body"}
    return {key: values[0] for key, values in query.items()}


def test_report_links_open_a_prefilled_issue_naming_the_record(built: Path) -> None:
    document = content_document()
    for page in view_pages(built, "toy"):
        html = read(built, f"toy/{page.name}")
        for step_id, item in journey_items(html).items():
            (href,) = report_links(item)
            fields = issue(href)
            assert step_id in fields["title"]
            assert f"{BASE_IRI}step/{step_id}" in fields["body"]
            assert "\n" in fields["body"]
    step_cards = cards(read(built, "toy/steps.html"), "step")
    assert set(step_cards) == {s.id for s in document.steps}
    for step_id, card in step_cards.items():
        (href,) = report_links(card)
        assert f"{BASE_IRI}step/{step_id}" in issue(href)["body"]
    stage_cards = cards(read(built, "toy/stages.html"), "stage")
    assert set(stage_cards) == {s.id for s in document.stages}
    for stage_id, card in stage_cards.items():
        (href,) = report_links(card)
        fields = issue(href)
        assert fields["body"].startswith(f"{BASE_IRI}stage/{stage_id} (data 1.0.0)\n")
        assert f"Stage {stage_id}" in fields["title"]
    for page in built.rglob("*.html"):
        assert "mailto:" not in page.read_text(encoding="utf-8"), page


def test_the_issues_url_given_to_the_build_wins(tmp_path: Path) -> None:
    other = "https://elsewhere.example/o/r/issues"
    site.build(tmp_path / "a", content_document(), issues_url=other + "/")
    links = report_links(read(tmp_path / "a", "toy/steps.html"))
    assert links
    assert all(link.startswith(f"{other}/new?title=") for link in links)
    with pytest.raises(site.SiteError, match=r"'ftp://x/issues' is not an https:// URL"):
        site.build(tmp_path / "b", content_document(), issues_url="ftp://x/issues")
    assert not (tmp_path / "b").exists()  # refused before anything is written


def test_the_cli_takes_an_issues_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = export.write(content_document(tracker=False), tmp_path / "toy.json")
    args = ["site", "build", str(tmp_path / "out"), "--export", str(source)]
    assert cli.main([*args, "--issues-url", TRACKER]) == 0
    links = report_links(read(tmp_path / "out", "toy/steps.html"))
    assert links
    assert all(link.startswith(f"{TRACKER}/new?") for link in links)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*args, "--issues-url", "https://x.example/a?b=c"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--issues-url: not an https:// URL without '?' or '#': 'https://x.example/a?b=c'" in err


def test_without_a_tracker_no_page_offers_to_report(tmp_path: Path) -> None:
    site.build(tmp_path, content_document(tracker=False))
    for page in tmp_path.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert 'class="report"' not in html, page
        assert "mailto:" not in html, page


# --- where Python ends -----------------------------------------------------------------------


def python_section(html: str) -> str:
    start = html.index('<section id="python"')
    return html[start : html.index("</section>", start)]


def test_where_python_ends_is_explained_per_mode_with_its_quotes(built: Path) -> None:
    paths = {
        f"{p.selection[0].name}-{p.selection[1].name}": p
        for p in Index(content_document()).all_paths("toy")
    }
    for slug, path in paths.items():
        section = python_section(read(built, f"toy/{slug}.html"))
        explained = "Under fast, Python ends at the fast library." in section
        assert explained == (path.selection[0].name == "fast"), slug
        (end,) = path.python_ends
        assert f'<a href="#step-{end.id}">step {end.number}</a>' in section
        if explained:
            assert sentence_marks(section)[:2] == [
                ("Under fast, Python ends at the fast library.", ["#python-fast-q1"], ""),
                ("Each call still starts in Python.", ["#python-fast-q2"], "partial"),
            ]
            assert '<li id="python-fast-q1"' in section
            assert "<blockquote>fast mode ends Python early</blockquote>" in section
    # the interactive page holds every mode's explanation, the default's in sight
    section = python_section(read(built, "toy/index.html"))
    assert section.count('<div class="python-part"') == 2


def test_where_python_ends_is_left_out_where_no_stage_runs_python(tmp_path: Path) -> None:
    site.build(tmp_path, content_document(python=False))
    for page in view_pages(tmp_path, "toy"):
        html = page.read_text(encoding="utf-8")
        assert "Where Python ends" not in html, page
        assert "Python interpreter" not in html, page
        assert "Under fast, Python ends" not in html, page


# --- reference pages, weights, the default view ---------------------------------------------


def test_reference_material_has_pages_of_its_own(built: Path) -> None:
    for page in view_pages(built, "toy"):
        html = page.read_text(encoding="utf-8")
        for gone in ('id="stages"', 'class="sources-table', 'id="witnesses"', 'id="sources"'):
            assert gone not in html, (page.name, gone)
        for link in ("stages.html", "steps.html", "sources.html"):
            assert f'href="{link}"' in html, (page.name, link)
    sources = read(built, "toy/sources.html")
    assert "The second doc" in sources
    assert '<a href="https://example.org/doc">The toy doc</a>' in sources
    assert ">Every stage</h1>" in read(built, "toy/stages.html")
    assert ">Every step</h1>" in read(built, "toy/steps.html")


def test_the_interactive_page_opens_on_the_path_that_shows_the_most(built: Path) -> None:
    paths = Index(content_document()).all_paths("toy")
    longest = max(paths, key=lambda p: (len(p.steps), len(p.stages)))
    html = read(built, "toy/index.html")
    assert f'<p id="summary" class="summary" role="status">Showing {longest.summary}.</p>' in html
    slug = f"{longest.selection[0].name}-{longest.selection[1].name}"
    assert f'"default": "{slug}"' in html
    checked = re.findall(r'value="([\w-]+)" checked', html)
    assert checked == [c.name for c in longest.selection]


def test_default_view_prefers_the_longest_path_then_the_first() -> None:
    page = site._pages.Page(content_document())
    views = page.views(page.atlases[0])
    chosen = default_view(views)
    assert len(chosen.path.steps) == max(len(v.path.steps) for v in views)
    ties = [v for v in views if len(v.path.steps) == len(chosen.path.steps)]
    assert chosen is max(ties, key=lambda v: (len(v.path.stages), -views.index(v)))
    with pytest.raises(site.SiteError):
        default_view([])


# --- notes, counts and the end of the story ---------------------------------------------------


def test_curation_notes_never_reach_a_page(built: Path) -> None:
    for page in built.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for what, note in NOTES.items():
            assert note not in html, (page, what)
        assert "CURATOR-PUBLISHER" not in html, page
    assert ">Toy Org</td>" in read(built, "toy/sources.html")


def test_the_view_pages_end_with_more_paths_and_the_full_graph(built: Path) -> None:
    for page in view_pages(built, "toy"):
        html = page.read_text(encoding="utf-8")
        end = html.index('id="more"')
        assert html.index('id="checked"') < end
        assert '<a href="../graph.html">Explore the full graph →</a>' in html[end:]
        assert html.index("</main>") > end


# --- the shipped site ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shipped-content")
    site.build(out)
    return out


def test_each_shipped_view_page_stays_under_100_kb(shipped: Path) -> None:
    pages = [p for atlas in ("pytorch", "llamacpp") for p in view_pages(shipped, atlas)]
    assert len(pages) == 14 + 19  # each atlas's page, and its 13 and 18 views
    for page in pages:
        if page.name != "index.html":  # one page per view
            assert page.stat().st_size < VIEW_LIMIT, (page.name, page.stat().st_size)


def test_the_interactive_pages_open_under_100_kb_and_bring_the_rest_when_asked(
    shipped: Path,
) -> None:
    """The page that switches between every view of an atlas holds its opening view only.

    What only the other views show is in ``views.js`` beside it (loaded by ``site.js`` when
    another view is first asked for): the page itself stays under the limit of one view.
    """
    for atlas in ("pytorch", "llamacpp"):
        size = (shipped / atlas / "index.html").stat().st_size
        assert size < VIEW_LIMIT, (atlas, size)
        assert (shipped / atlas / "views.js").stat().st_size > 0, atlas


def test_the_shipped_atlas_pages_give_search_engines_their_first_sentence(shipped: Path) -> None:
    from markupsafe import escape  # noqa: PLC0415 - Jinja2's, which the site needs

    document = export.read(next(shipped.glob("execution-atlas-*.json")))
    pytorch = next(a for a in document.atlases if a.id == "pytorch")
    first = pytorch.description.split(". ", 1)[0] + "."
    assert len(first) < len(pytorch.description) / 3
    for page in view_pages(shipped, "pytorch"):
        html = page.read_text(encoding="utf-8")
        assert f'<meta name="description" content="{escape(first)}">' in html, page.name
        assert f'<p class="lede">{escape(pytorch.description)}</p>' in html  # the page: all


def test_the_shipped_pages_open_on_meaningful_views(shipped: Path) -> None:
    index = Index(export.read(next(shipped.glob("execution-atlas-*.json"))))
    expected = {
        "pytorch": index.path("torch.compile", "nvidia gpu", atlas="pytorch"),
        "llamacpp": index.path("nvidia gpu", "all layers on gpu", atlas="llamacpp"),
    }
    for atlas, path in expected.items():
        html = read(shipped, f"{atlas}/index.html")
        assert f'role="status">Showing {path.summary}.</p>' in html, atlas


def test_the_shipped_site_shows_no_curation_note(shipped: Path) -> None:
    document = export.read(next(shipped.glob("execution-atlas-*.json")))
    notes = {s.note for s in document.sources if s.note}
    notes |= {s.version for s in document.sources if s.version and len(s.version) > 24}
    notes |= {s.license for s in document.sources if s.license and "(" in s.license}
    for owner in (*document.stages, *document.steps, *document.technologies):
        notes |= {c.note for c in owner.claims if c.note}
    assert len(notes) > 20
    for page in shipped.rglob("*.html"):
        html = htmllib.unescape(page.read_text(encoding="utf-8"))
        for phrase in ("as crawled", "search excerpt", "not re-read in this session"):
            assert phrase not in html, (page, phrase)
        for note in notes:
            assert note not in html, (page, note[:60])


def test_the_shipped_python_explanation_and_its_absence(shipped: Path) -> None:
    document = export.read(next(shipped.glob("execution-atlas-*.json")))
    modes = {c.name: c for s in document.schemes if s.id == "pytorch-mode" for c in s.values}
    for slug, mode in (("eager-cpu", "eager"), ("torch-compile-nvidia-gpu", "torch-compile")):
        section = python_section(read(shipped, f"pytorch/{slug}.html"))
        text = re.sub(r"\s+", " ", text_of(re.sub(r'<sup class="marks">.*?</sup>', "", section)))
        for claim_ in modes[mode].claims:
            assert claim_.text in text, (slug, claim_.id)
    for page in (shipped / "llamacpp").glob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "Where Python ends" not in html, page
        assert "runs in the Python interpreter" not in html, page


def test_the_shipped_landing_page_counts_what_each_atlas_holds(shipped: Path) -> None:
    html = read(shipped, "index.html")
    assert "0 stages, 0 steps" not in html
    document = export.read(next(shipped.glob("execution-atlas-*.json")))
    relations = [r for r in document.relations if r.atlas == "technologies"]
    techs = document.technologies  # its page lists every one
    assert f"{len(techs)} technologies, {len(relations)} relations" in html
    assert len(
        re.findall(
            r'<article class="card" id="technology-', read(shipped, "technologies/index.html")
        )
    ) == len(techs)
    stages = [s for s in document.stages if "pytorch" in s.atlases and not s.deprecated]
    steps = [s for s in document.steps if s.atlas == "pytorch" and not s.deprecated]
    assert f"{len(stages)} stages, {len(steps)} steps; 13 paths:" in html


def test_the_shipped_story_ends_as_the_page_it_re_creates(shipped: Path) -> None:
    html = read(shipped, "pytorch/index.html")
    end = html[html.index('<section id="more"') :]
    assert "More execution paths" in end
    assert '<a href="../llamacpp/index.html">How does llama.cpp run a model' in end
    assert '<a href="../graph.html">Explore the full graph →</a>' in end
    sentence = re.search(r"What these tools are themselves written in(.*?)</p>", end, re.DOTALL)
    assert sentence
    assert '<a href="../technologies/index.html">the Technologies atlas</a>' in sentence.group(1)
    for tech in ("Python", "PyTorch", "C++", "CUDA", "Triton", "LLVM"):
        assert f">{tech}</a>" in sentence.group(1), tech
    assert "../pytorch/index.html" in read(shipped, "llamacpp/index.html")


def test_default_view_is_chosen_among_the_first_two_values_of_each_dimension() -> None:
    # a third mode whose path is longer (reduce-overhead beside eager and torch.compile) does
    # not become the view the page opens on; without such a limit it would
    from types import SimpleNamespace  # noqa: PLC0415

    from atlas.publish.site._views import View  # noqa: PLC0415

    def value(name: str, order: int) -> SimpleNamespace:
        return SimpleNamespace(id=name, order=order)

    modes = [value("eager", 1), value("compile", 2), value("overhead", 3)]
    devices = [value("cpu", 1), value("gpu", 2)]
    views = [
        View(
            slug=f"{m.id}-{d.id}",
            path=SimpleNamespace(  # type: ignore[arg-type]
                branches=(), selection=(m, d), steps=[0] * (m.order * 4 + d.order), stages=[]
            ),
            keys=("mode", "device"),
        )
        for m in modes
        for d in devices
    ]
    assert default_view(views).slug == "compile-gpu"
    assert default_view([v for v in views if v.slug.startswith("overhead")]).slug == "overhead-gpu"
