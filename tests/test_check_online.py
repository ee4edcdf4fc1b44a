"""``atlas check --online`` against fixture pages served on 127.0.0.1, never the internet."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from atlas.checks import verify
from atlas.data._fetch import FetchPolicy, html_text, refusal
from checkkit import MINI, no_network

TODAY = dt.date(2026, 12, 2)

GUIDE = """<!DOCTYPE html>
<html><head><title>The Toy Guide</title><style>p { color: red }</style></head>
<body><h1>The Toy Guide</h1>
<p>The toy interpreter reads your <em>source</em>
   and runs it. Statements run one at a time.</p>
<script>var hidden = "Statements run one at a time.";</script>
</body></html>
"""
SPEC = """<html><body><div>[...]</div>
<p>Hot loops are handed to the &quot;toy compiler&quot;. The compiler targets CPUs &amp; GPUs.</p>
</body></html>
"""


@dataclass
class Site:
    """What the fixture server answers: path -> (status, headers, body)."""

    port: int = 0
    routes: dict[str, tuple[int, dict[str, str], bytes]] = field(default_factory=dict)
    hits: list[str] = field(default_factory=list)

    def page(self, path: str, body: str, kind: str = "text/html; charset=utf-8") -> None:
        self.routes[path] = (200, {"content-type": kind}, body.encode())

    def redirect(self, path: str, location: str) -> None:
        self.routes[path] = (302, {"location": location}, b"")

    def policy(self, **changes: object) -> FetchPolicy:
        base = f"http://127.0.0.1:{self.port}/"
        options: dict[str, object] = {
            "timeout": 5.0,
            "allow_http_loopback": True,
            "rewrite": {"https://example.org/": base},
            "workers": 2,
        }
        options.update(changes)
        return FetchPolicy(**options)  # type: ignore[arg-type]


@pytest.fixture
def site() -> Iterator[Site]:
    state = Site()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.hits.append(self.path)
            if self.path == "/slow":
                time.sleep(1.5)
            status, headers, body = state.routes.get(self.path, (404, {}, b"not found"))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    state.page("/toy/guide.html", GUIDE)
    state.page("/toy/spec.html", SPEC)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _online(site: Site, **policy: object) -> verify.CheckResult:
    report = verify.check(
        dataset=MINI, online=True, today=TODAY, fetch_policy=site.policy(**policy)
    )
    return next(c for c in report.checks if c.name == "online")


def test_every_quote_is_found_on_its_page(site: Site) -> None:
    result = _online(site)
    assert (result.status, result.problems) == ("ran", ())
    assert sorted(site.hits) == ["/toy/guide.html", "/toy/spec.html"]  # each page once


def test_a_quote_gone_from_its_page_is_drift(site: Site) -> None:
    site.page("/toy/spec.html", SPEC.replace("targets CPUs", "targets only CPUs"))
    problems = _online(site).problems  # one per citation of that quote
    assert {p.code for p in problems} == {"drift"}
    (problem,) = [p for p in problems if p.subject and p.subject.endswith("/spec-targets")]
    assert problem.severity == "violation"
    assert problem.code == "drift"
    assert problem.subject == "https://w3id.org/execution-atlas/citation/spec-targets"
    assert problem.file is not None
    assert problem.file.endswith("toy.ttl")
    assert problem.line is not None
    assert "'The compiler targets CPUs & GPUs.'" in problem.message


def test_an_unreachable_page_is_a_warning_naming_the_url(site: Site) -> None:
    del site.routes["/toy/guide.html"]
    (problem,) = _online(site).problems
    assert problem.severity == "warning"
    assert problem.code == "unreachable"
    assert "<https://example.org/toy/guide.html>: HTTP 404 Not Found" in problem.message
    assert problem.file is not None
    assert problem.file.endswith("sources.ttl")


def test_redirects_are_followed_on_the_same_host_only(site: Site) -> None:
    site.routes["/moved.html"] = site.routes.pop("/toy/guide.html")
    site.redirect("/toy/guide.html", "/moved.html")
    assert _online(site).problems == ()
    site.redirect("/toy/guide.html", f"http://localhost:{site.port}/moved.html")
    (problem,) = _online(site).problems
    assert "refused: redirect to another host 'localhost' (from '127.0.0.1')" in problem.message


def test_too_many_redirects_are_refused(site: Site) -> None:
    site.redirect("/toy/guide.html", "/toy/guide.html")
    (problem,) = _online(site, max_redirects=2).problems
    assert "more than 2 redirects" in problem.message


def test_pages_over_the_size_cap_are_refused(site: Site) -> None:
    problems = _online(site, max_bytes=100).problems
    assert {p.code for p in problems} == {"unreachable"}
    assert all("page too large" in p.message for p in problems)


def test_a_slow_page_times_out(site: Site) -> None:
    site.redirect("/toy/guide.html", "/slow")
    site.page("/slow", GUIDE)
    (problem,) = _online(site, timeout=0.3).problems
    assert "timed out after 0.3 s" in problem.message


def test_plain_http_is_refused_without_the_test_override(site: Site) -> None:
    with no_network():
        problems = _online(site, allow_http_loopback=False).problems
    assert len(problems) == 2
    assert all("is not an https URL" in p.message for p in problems)
    assert site.hits == []


def test_plain_text_pages_are_read_as_they_are(site: Site) -> None:
    text = (MINI / "sources" / "toy-spec.txt").read_text(encoding="utf-8")
    site.page("/toy/spec.html", text, kind="text/plain; charset=utf-8")
    assert _online(site).problems == ()


def test_the_url_policy() -> None:
    policy = FetchPolicy()
    assert refusal("https://example.org/a", policy) is None
    assert refusal("https://example.org/b", policy, host="example.org") is None
    assert refusal("ftp://example.org/a", policy) == "'ftp://example.org/a' is not an https URL"
    assert refusal("http://127.0.0.1/a", policy) is not None
    assert refusal("http://127.0.0.1/a", FetchPolicy(allow_http_loopback=True)) is None
    assert refusal("http://example.org/a", FetchPolicy(allow_http_loopback=True)) is not None


def test_page_text_drops_markup_scripts_and_styles() -> None:
    text = html_text(GUIDE)
    assert text.startswith("The Toy Guide The toy interpreter reads your source and runs it.")
    assert "hidden" not in text
    assert "color" not in text
    assert html_text("<p>a</p><p>b</p>") == "a b"
    assert html_text("<code>torch</code>.compile") == "torch.compile"


def test_online_is_skipped_unless_asked(tmp_path: Path) -> None:
    report = verify.check(dataset=MINI, today=TODAY)
    online = next(c for c in report.checks if c.name == "online")
    assert (online.status, online.note) == ("skipped", "no --online")
