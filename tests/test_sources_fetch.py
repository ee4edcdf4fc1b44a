"""Pinned, hashed sources: ``atlas sources fetch``, ``atlas check --sources/--online``, markup.

Every download goes to a server on 127.0.0.1 in this process (``sourcekit.PageServer``), never to
the internet: the dataset's https://example.org/ URLs are rewritten to it.
"""

from __future__ import annotations

import ast
import datetime as dt
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from atlas.checks import verify
from atlas.cli import main
from atlas.data import _dataset, _fetch, _quotes, sources, turtle
from atlas.errors import DatasetError, UnknownIdError
from checkkit import no_network
from sourcekit import GUIDE_URL, PAGES, SNAPSHOTS, SPEC_URL, PageServer, closed_port, make_dataset

if TYPE_CHECKING:
    from atlas.models import AtlasDocument

TODAY = dt.date(2026, 12, 2)
SPEC = "https://example.org/toy/spec.html"
CITE = "https://w3id.org/execution-atlas/citation/"
QUOTECHECK = Path(__file__).resolve().parents[2] / "shared" / "tools" / "quotecheck.py"
MARKUP_TTL = """\
@prefix ea: <https://w3id.org/execution-atlas/vocab#> .
@prefix stage: <https://w3id.org/execution-atlas/stage/> .
@prefix cite: <https://w3id.org/execution-atlas/citation/> .
@prefix claim: <https://w3id.org/execution-atlas/claim/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix oa: <http://www.w3.org/ns/oa#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix pav: <http://purl.org/pav/> .

claim:stage-toy-cpu-2 a ea:Claim ;
    ea:about stage:toy-cpu ;
    ea:order 2 ;
    rdf:value "The interpreter reads the source." ;
    prov:wasDerivedFrom cite:guide-markup .

cite:guide-markup a ea:Citation ;
    oa:hasSource <https://example.org/toy/guide.html> ;
    oa:hasSelector [ a oa:TextQuoteSelector ;
        oa:exact "reads your `source` and runs it" ] ;
    pav:retrievedOn "2026-12-01T08:00:00Z"^^xsd:dateTime ;
    ea:support "full" .
"""


@pytest.fixture
def server() -> Iterator[PageServer]:
    with PageServer() as running:
        yield running


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return make_dataset(tmp_path, witness=False)


def _document(folder: Path) -> AtlasDocument:
    return turtle.read_turtle(_dataset.turtle_files(folder))


def _result(report: verify.Report, name: str) -> verify.CheckResult:
    return next(c for c in report.checks if c.name == name)


def _quoting(folder: Path, url: str, quote: str | None = None) -> list[str]:
    """The ids of the citations of ``url`` (that quote ``quote``), as the mini dataset has them."""
    return sorted(
        c.id
        for c in _document(folder).citations
        if c.source == url and (quote is None or " ".join(c.quote.split()) == quote)
    )


def _fetch_into(folder: Path, server: PageServer, tmp_path: Path) -> sources.FetchReport:
    return sources.fetch_sources(_document(folder), tmp_path / "cache", policy=server.policy())


# --- atlas sources fetch ---------------------------------------------------------------------


def test_a_pinned_file_is_verified_by_hash_and_a_page_stored_as_its_text(
    dataset: Path, server: PageServer, tmp_path: Path
) -> None:
    report = _fetch_into(dataset, server, tmp_path)
    guide, spec = report.outcomes
    assert (guide.source, guide.status, guide.snapshot) == (
        "toy-guide",
        "verified",
        "toy-guide.txt",
    )
    assert (spec.source, spec.status, spec.drifted) == ("toy-spec", "page", ())
    assert report.exit_code == 0
    assert sorted(server.hits) == [GUIDE_URL, SPEC_URL]  # the pinned URL, else the page
    cache = tmp_path / "cache"
    assert (cache / "toy-guide.txt").read_bytes() == (SNAPSHOTS / "toy-guide.txt").read_bytes()
    page = (cache / "toy-spec.txt").read_text(encoding="utf-8")
    assert 'Hot loops are handed to the "toy compiler". The compiler targets CPUs & GPUs.' in page
    assert "color" not in page
    assert "targets nothing" not in page  # hidden
    assert "var text" not in page  # a script
    assert report.summary() == (
        f"atlas sources fetch: 2 sources into {cache}: 1 verified by hash, 1 stored as page text"
    )


def test_check_verifies_every_quote_against_the_fetched_sources(
    dataset: Path, server: PageServer, tmp_path: Path
) -> None:
    _fetch_into(dataset, server, tmp_path)
    report = verify.check(dataset=dataset, sources=tmp_path / "cache", today=TODAY)
    quotes = _result(report, "quotes")
    assert (quotes.status, quotes.problems) == ("ran", ())
    shared = verify.check(dataset=dataset, sources=SNAPSHOTS, today=TODAY)  # the originals
    assert _result(shared, "quotes").problems == ()


def test_a_pinned_file_whose_hash_differs_is_not_stored(
    dataset: Path, server: PageServer, tmp_path: Path
) -> None:
    server.page(GUIDE_URL, (PAGES / "guide.md").read_bytes() + b"\nA new line.\n", "text/plain")
    report = _fetch_into(dataset, server, tmp_path)
    guide = report.outcomes[0]
    assert guide.status == "changed"
    served = hashlib.sha256((PAGES / "guide.md").read_bytes() + b"\nA new line.\n").hexdigest()
    assert served in guide.detail
    assert "0c48a5cc47c6ab70fa8f99d58ea1531e303be89295f3faec86717d0b240ced91" in guide.detail
    assert guide.drifted == ()  # its quotes are all still there
    assert not (tmp_path / "cache" / "toy-guide.txt").exists()
    assert report.exit_code == 1
    assert "1 changed (not stored)" in report.summary()
    assert report.text().startswith("source:toy-guide: changed: <https://example.org/raw/")
    missing = _result(verify.check(dataset=dataset, sources=tmp_path / "cache"), "quotes")
    assert {p.code for p in missing.problems} == {"snapshot-missing"}
    assert all("atlas sources fetch" in (p.hint or "") for p in missing.problems)


def test_a_drifted_quote_is_reported_quote_by_quote(
    dataset: Path, server: PageServer, tmp_path: Path
) -> None:
    html = (PAGES / "spec.html").read_text(encoding="utf-8")
    server.page(SPEC_URL, html.replace("<em>targets</em> CPUs", "targets only CPUs"))
    report = _fetch_into(dataset, server, tmp_path)
    spec = report.outcomes[1]
    assert spec.status == "page"
    gone = _quoting(dataset, SPEC, "The compiler targets CPUs & GPUs.")
    kept = len(_quoting(dataset, SPEC)) - len(gone)
    assert gone
    assert kept > 0
    assert [d.citation for d in spec.drifted] == gone
    assert {d.quote for d in spec.drifted} == {"The compiler targets CPUs & GPUs."}
    assert spec.quotes == kept + len(gone)
    assert f"{kept} of {spec.quotes} quotes found" in spec.detail
    assert report.exit_code == 1
    quotes = len(_document(dataset).citations)
    assert f"{len(gone)} of {quotes} quotes no longer found" in report.summary()
    assert f"    cite:{gone[0]}: 'The compiler targets CPUs & GPUs.'" in report.text()
    found = _result(verify.check(dataset=dataset, sources=tmp_path / "cache"), "quotes")
    assert {p.code for p in found.problems} == {"quote-not-found"}
    assert sorted(p.subject or "" for p in found.problems) == [CITE + c for c in gone]
    assert all(p.file and p.file.endswith("toy.ttl") and p.line for p in found.problems)


def test_an_unreachable_source_fails_with_its_id_and_keeps_the_old_file(
    dataset: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "toy-spec.txt").write_text("kept", encoding="utf-8")
    policy = _fetch.FetchPolicy(
        timeout=2.0,
        allow_http_loopback=True,
        rewrite={"https://example.org/": f"http://127.0.0.1:{closed_port()}/"},
    )
    report = sources.fetch_sources(_document(dataset), cache, policy=policy)
    assert [o.status for o in report.outcomes] == ["failed", "failed"]
    assert report.text().startswith("source:toy-guide: failed: <https://example.org/raw/")
    assert "ConnectError" in report.outcomes[0].detail
    assert (cache / "toy-spec.txt").read_text(encoding="utf-8") == "kept"
    assert report.exit_code == 1


def test_downloads_are_bounded_and_https_only(
    dataset: Path, server: PageServer, tmp_path: Path
) -> None:
    small = sources.fetch_sources(
        _document(dataset), tmp_path / "a", policy=server.policy(max_bytes=50)
    )
    assert all("page too large" in o.detail for o in small.outcomes)
    with no_network():
        plain = sources.fetch_sources(
            _document(dataset), tmp_path / "b", policy=server.policy(allow_http_loopback=False)
        )
    assert all("is not an https URL" in o.detail for o in plain.outcomes)


def test_a_document_that_is_not_text_is_refused(
    dataset: Path, server: PageServer, tmp_path: Path
) -> None:
    server.page(SPEC_URL, b"%PDF-1.7 ...", "application/pdf")
    spec = _fetch_into(dataset, server, tmp_path).outcomes[1]
    assert spec.status == "failed"
    assert "not a text or HTML document (application/pdf)" in spec.detail


def test_a_snapshot_name_that_leads_out_of_the_folder_is_not_written(
    dataset: Path, server: PageServer, tmp_path: Path
) -> None:
    turtle_file = dataset / "sources.ttl"
    text = turtle_file.read_text(encoding="utf-8")
    turtle_file.write_text(text.replace('"toy-spec.txt"', '"../escaped.txt"'), encoding="utf-8")
    spec = _fetch_into(dataset, server, tmp_path).outcomes[1]
    assert spec.status == "failed"
    assert "leads out of its folder" in spec.detail
    assert not (tmp_path / "escaped.txt").exists()


def test_only_the_sources_asked_for(dataset: Path, server: PageServer, tmp_path: Path) -> None:
    document = _document(dataset)
    report = sources.fetch_sources(
        document, tmp_path / "c", policy=server.policy(), only=["toy-spec"]
    )
    assert [o.source for o in report.outcomes] == ["toy-spec"]
    with pytest.raises(UnknownIdError, match="unknown source id 'toy-gide'"):
        sources.fetch_sources(document, tmp_path / "c", policy=server.policy(), only=["toy-gide"])


def test_the_default_folder_is_the_user_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert sources.default_folder() == tmp_path / "execution-atlas" / "sources"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # ignored, as the XDG rule says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert sources.default_folder() == tmp_path / "home" / ".cache" / "execution-atlas" / "sources"


def test_the_command_fetches_and_reports(
    dataset: Path,
    server: PageServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    policy = server.policy()
    monkeypatch.setattr(_fetch, "FetchPolicy", lambda **_: policy)
    cache = tmp_path / "cache"
    assert main(["sources", "fetch", str(cache), "--dataset", str(dataset)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("source:toy-guide: verified: toy-guide.txt (sha256 as recorded)")
    assert lines[-1].startswith("atlas sources fetch: 2 sources into ")
    server.page(SPEC_URL, "<p>Nothing of the kind.</p>")
    assert main(["sources", "fetch", str(cache), "--dataset", str(dataset), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["exitCode"] == 1
    assert [d["citation"] for d in data["sources"][1]["drifted"]] == _quoting(dataset, SPEC)
    assert main(["sources", "fetch", str(cache), "--dataset", str(dataset), "--source", "x"]) == 1
    assert "error: unknown source id 'x'" in capsys.readouterr().err


def test_check_sources_alone_reads_the_default_folder(
    dataset: Path,
    server: PageServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    sources.fetch_sources(_document(dataset), sources.default_folder(), policy=server.policy())
    main(["check", str(dataset), "--sources", "--today", "2026-12-02"])
    assert "quotes against snapshots: ok" in capsys.readouterr().out.splitlines()


# --- atlas check: without sources, online ----------------------------------------------------


def test_without_sources_check_says_so_in_one_line(
    dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = verify.check(dataset=dataset, today=TODAY)
    quotes = _result(report, "quotes")
    assert quotes.status == "skipped"
    assert quotes.note == verify.NO_SOURCES
    with_sources = verify.check(dataset=dataset, sources=SNAPSHOTS, today=TODAY)
    assert report.exit_code == with_sources.exit_code  # not an error, and no pass either
    main(["check", str(dataset), "--today", "2026-12-02"])
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if "atlas sources fetch" in line]
    assert line.startswith("quotes against snapshots: skipped (quotes not verified")


def test_online_fails_and_counts_the_sources_it_could_not_reach(dataset: Path) -> None:
    policy = _fetch.FetchPolicy(
        timeout=2.0,
        allow_http_loopback=True,
        rewrite={"https://example.org/": f"http://127.0.0.1:{closed_port()}/"},
    )
    report = verify.check(dataset=dataset, online=True, today=TODAY, fetch_policy=policy)
    online = _result(report, "online")
    assert online.status == "error"
    quotes = len(_document(dataset).citations)
    assert online.note == (
        "2 of 2 cited sources were not checked (not reached, or not text): "
        f"their {quotes} quotes were not verified"
    )
    assert {p.code for p in online.problems} == {"unreachable"}
    assert report.exit_code != 0
    assert "could not run: quotes online: 2 of 2 cited sources were not" in report.summary()
    assert "quotes online: incomplete, 2 problems (2 of 2" in report.text()


def test_online_checks_pinned_files_by_hash_and_pages_quote_by_quote(
    dataset: Path, server: PageServer
) -> None:
    clean = verify.check(dataset=dataset, online=True, today=TODAY, fetch_policy=server.policy())
    assert (_result(clean, "online").status, _result(clean, "online").problems) == ("ran", ())
    server.page(GUIDE_URL, b"The toy interpreter reads your source and runs it.\n", "text/plain")
    changed = verify.check(dataset=dataset, online=True, fetch_policy=server.policy())
    problems = {(p.code, p.subject) for p in _result(changed, "online").problems}
    gone = _quoting(dataset, "https://example.org/toy/guide.html", "Statements run one at a time.")
    assert gone
    assert problems == {
        ("changed", "https://w3id.org/execution-atlas/source/toy-guide"),
        *(("drift", CITE + c) for c in gone),
    }
    assert changed.exit_code == 1


def test_the_online_command_exits_non_zero_when_a_source_is_unreachable(
    dataset: Path,
    server: PageServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    del server.routes[SPEC_URL]
    policy = server.policy()
    monkeypatch.setattr(sources, "FetchPolicy", lambda **_: policy)  # the page server, not the web
    assert main(["check", str(dataset), "--online", "--today", "2026-12-02"]) == 3
    captured = capsys.readouterr()
    quotes = len(_quoting(dataset, SPEC))
    assert (
        "atlas check: error: quotes online: 1 of 2 cited sources were not checked (not "
        f"reached, or not text): their {quotes} quotes were not verified"
    ) in captured.err
    assert "<https://example.org/toy/spec.html>: HTTP 404 Not Found" in captured.out


# --- quotes as the rendered page reads them ---------------------------------------------------


def test_a_quote_that_carries_markup_is_a_violation_at_its_line(dataset: Path) -> None:
    (dataset / "extra.ttl").write_text(MARKUP_TTL, encoding="utf-8")
    report = verify.check(dataset=dataset, sources=SNAPSHOTS, today=TODAY)
    (problem,) = _result(report, "markup").problems
    assert problem.severity == "violation"
    assert problem.code == "quote-markup"
    assert problem.subject == "https://w3id.org/execution-atlas/citation/guide-markup"
    assert problem.file is not None
    assert problem.file.endswith("extra.ttl")
    assert problem.line == 17
    assert "(backticks)" in problem.message
    assert "'reads your source and runs it'" in (problem.hint or "")
    assert _result(report, "quotes").problems == ()  # found, as the page reads


def test_markup_is_named_and_program_source_left_alone() -> None:
    assert _quotes.markup("see :func:`torch.compile` and **this**") == (
        "backticks, a role, ** emphasis"
    )
    assert _quotes.markup("see `the docs <https://x.org>`_") == "backticks, link syntax"
    assert _quotes.markup("a [link](https://x.org) here") == "link syntax"
    assert _quotes.markup("plain words, 2 * 3") is None
    assert _quotes.is_program_source("https://raw.githubusercontent.com/o/r/c/x/eval_frame.c")
    assert not _quotes.is_program_source("https://github.com/o/r/blob/main/README.md")


@pytest.mark.skipif(not QUOTECHECK.is_file(), reason=f"no {QUOTECHECK}")
@pytest.mark.parametrize(
    "text",
    [
        "Use `torch.compile` and {ref}`the guide` or :func:`torch.fx.trace`.",
        "See `the docs <https://x.org/a>`_ and `more <b.html>`__, [FX](fx.md) **now**.",
        "Unclosed `tick and [bracket](no close",
        "line one\n[two\nlines](x) `a\nb`",
    ],
)
def test_the_markup_rule_is_the_shared_quotecheck_rule(text: str) -> None:
    tree = ast.parse(QUOTECHECK.read_text(encoding="utf-8"))
    (function,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "unmark"]
    namespace: dict[str, object] = {"re": __import__("re")}
    exec(compile(ast.Module([function], []), str(QUOTECHECK), "exec"), namespace)  # noqa: S102
    assert _quotes.unmark(text) == namespace["unmark"](text)  # type: ignore[operator]


# --- source records and dates -----------------------------------------------------------------


def test_a_source_record_without_its_hash_or_kind_is_a_violation(dataset: Path) -> None:
    turtle_file = dataset / "sources.ttl"
    text = turtle_file.read_text(encoding="utf-8")
    text = text.replace("    ea:primary false ;\n", "").replace(
        ' ;\n    ea:sha256 "0c48a5cc47c6ab70fa8f99d58ea1531e303be89295f3faec86717d0b240ced91" .',
        " .",
    )
    turtle_file.write_text(text, encoding="utf-8")
    found = {
        (p.code, p.subject, p.message)
        for p in _result(verify.check(dataset=dataset, today=TODAY), "consistency").problems
        if p.code == "source-unpinned"
    }
    assert found == {
        (
            "source-unpinned",
            "https://w3id.org/execution-atlas/source/toy-guide",
            "source record without ea:sha256",
        ),
        (
            "source-unpinned",
            "https://w3id.org/execution-atlas/source/toy-spec",
            "source record without ea:primary",
        ),
    }


def test_a_snapshot_that_differs_from_its_pinned_hash_is_a_violation(
    dataset: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "snapshots"
    folder.mkdir()
    for name in ("toy-guide.txt", "toy-spec.txt"):
        (folder / name).write_bytes((SNAPSHOTS / name).read_bytes())
    with (folder / "toy-guide.txt").open("a", encoding="utf-8") as handle:
        handle.write("An edit.\n")
    (problem,) = _result(verify.check(dataset=dataset, sources=folder), "quotes").problems
    assert problem.code == "snapshot-changed"
    assert problem.subject == "https://w3id.org/execution-atlas/source/toy-guide"
    assert problem.file is not None
    assert problem.file.endswith("sources.ttl")


def test_retrieval_times_are_date_times_in_utc(dataset: Path) -> None:
    document = _document(dataset)
    assert document.sources[0].retrieved_on == dt.datetime(2026, 11, 30, 9, 15, tzinfo=dt.UTC)
    data = document.model_dump(mode="json", by_alias=True)
    assert data["sources"][0]["retrievedOn"] == "2026-11-30T09:15:00Z"
    # while atlas.models._vocab.CITATION_DATES_MAY_BE_DAYS: a citation's xsd:date is midnight UTC
    assert data["citations"][0]["retrievedOn"] == "2026-11-30T00:00:00Z"
    assert data["@context"]["Source"]["@context"]["retrievedOn"]["@type"] == "xsd:dateTime"


def test_a_source_date_must_be_a_date_time(dataset: Path) -> None:
    turtle_file = dataset / "sources.ttl"
    text = turtle_file.read_text(encoding="utf-8")
    turtle_file.write_text(
        text.replace('"2026-11-30T00:00:00Z"^^xsd:dateTime', '"2026-11-30"^^xsd:date'),
        encoding="utf-8",
    )
    with pytest.raises(DatasetError) as caught:
        _document(dataset)
    (problem,) = caught.value.problems
    assert problem.message.startswith("retrievedOn: expected an xsd:dateTime literal")
    assert problem.hint == 'write "2026-12-02T00:00:00Z"^^xsd:dateTime'
    assert problem.file is not None
    assert problem.file.endswith("sources.ttl")
