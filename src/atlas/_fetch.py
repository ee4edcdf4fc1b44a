"""Fetch cited pages for ``atlas check --online``: https only, same host, bounded time and size.

Only :func:`online_problems` touches the network, and only when asked to. Each source URL is
fetched once; its HTML is reduced to text (stdlib ``html.parser``), whitespace is collapsed, and
every quote citing it is looked up verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from atlas._iri import BASE_IRI
from atlas.errors import Problem

if TYPE_CHECKING:
    import httpx

    from atlas.models import AtlasDocument

__all__ = ["FetchPolicy", "Page", "fetch", "html_text", "online_problems", "refusal"]

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class FetchPolicy:
    """Limits of an online check. ``allow_http_loopback`` and ``rewrite`` exist for tests."""

    timeout: float = 15.0
    max_bytes: int = 10 * 2**20
    max_redirects: int = 5
    workers: int = 8
    #: Tests only: allow plain http to 127.0.0.1/localhost, where fixture pages are served.
    allow_http_loopback: bool = False
    #: Tests only: URL prefix -> replacement, to send the cited URLs to a local server.
    rewrite: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Page:
    """The text of a fetched page, or why it could not be fetched."""

    url: str
    text: str | None = None
    error: str | None = None


def refusal(url: str, policy: FetchPolicy, host: str | None = None) -> str | None:
    """Why ``url`` may not be fetched (not https, another host), or None when it may.

    >>> refusal("http://example.org/", FetchPolicy())
    "'http://example.org/' is not an https URL"
    >>> refusal("https://b.org/x", FetchPolicy(), host="a.org")
    "redirect to another host 'b.org' (from 'a.org')"
    """
    parts = urlsplit(url)
    hostname = parts.hostname or ""
    if parts.scheme != "https" and not (
        parts.scheme == "http" and policy.allow_http_loopback and hostname in LOOPBACK
    ):
        return f"{url!r} is not an https URL"
    if host is not None and hostname != host:
        return f"redirect to another host {hostname!r} (from {host!r})"
    return None


class _TextExtractor(HTMLParser):
    _SKIP = frozenset({"script", "style", "noscript", "template", "head", "svg"})
    _BLOCK = frozenset(
        {
            "address",
            "article",
            "aside",
            "blockquote",
            "br",
            "dd",
            "div",
            "dl",
            "dt",
            "figcaption",
            "figure",
            "footer",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "header",
            "hr",
            "li",
            "main",
            "nav",
            "ol",
            "p",
            "pre",
            "section",
            "table",
            "td",
            "th",
            "tr",
            "ul",
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:  # noqa: ARG002
        if tag in self._SKIP:
            self.skipping += 1
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def html_text(html: str) -> str:
    """The visible text of an HTML page, whitespace collapsed.

    >>> html_text("<p>The <code>torch</code> API</p><p>is &amp; was</p><script>x()</script>")
    'The torch API is & was'
    """
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return normalise("".join(parser.parts))


def normalise(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return re.sub(r"\s+", " ", text).strip()


def _rewritten(url: str, policy: FetchPolicy) -> str:
    for prefix, target in policy.rewrite.items():
        if url.startswith(prefix):
            return target + url[len(prefix) :]
    return url


def fetch(url: str, policy: FetchPolicy, client: httpx.Client) -> Page:
    """Fetch one page's text under ``policy``; never raises for network trouble."""
    import httpx  # noqa: PLC0415

    try:
        return _follow(url, policy, client)
    except httpx.TimeoutException:
        return Page(url, error=f"timed out after {policy.timeout:g} s")
    except httpx.HTTPError as error:
        return Page(url, error=f"{type(error).__name__}: {error}")


def _follow(url: str, policy: FetchPolicy, client: httpx.Client) -> Page:
    """GET ``url``, following redirects on the same host only, each one checked first."""
    current = _rewritten(url, policy)
    why = refusal(current, policy)
    host = urlsplit(current).hostname
    for _ in range(policy.max_redirects + 1):
        if why:
            return Page(url, error=f"refused: {why}")
        with client.stream("GET", current) as response:
            if not response.is_redirect:
                return _page(url, response, policy)
            current = urljoin(current, response.headers.get("location", ""))
            why = refusal(current, policy, host)
    return Page(url, error=f"more than {policy.max_redirects} redirects")


def _page(url: str, response: httpx.Response, policy: FetchPolicy) -> Page:
    """The text of a final response, read up to the size cap."""
    if response.status_code != 200:  # noqa: PLR2004 - HTTP OK
        return Page(url, error=f"HTTP {response.status_code} {response.reason_phrase}")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > policy.max_bytes:
        return Page(url, error=f"page too large ({declared} bytes, limit {policy.max_bytes})")
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > policy.max_bytes:
            return Page(url, error=f"page too large (over {policy.max_bytes} bytes)")
    text = bytes(body).decode(response.charset_encoding or "utf-8", errors="replace")
    kind = response.headers.get("content-type", "")
    head = text.lstrip()[:15].lower()
    is_html = "html" in kind or head.startswith(("<!doctype", "<html"))
    return Page(url, text=html_text(text) if is_html else normalise(text))


def online_problems(document: AtlasDocument, policy: FetchPolicy | None = None) -> list[Problem]:
    """Fetch every cited source and look up each quote on the live page.

    A quote missing from its page is a violation (drift); a page that cannot be fetched is a
    warning naming the reason.
    """
    import httpx  # noqa: PLC0415

    policy = policy or FetchPolicy()
    cited = sorted({c.source for c in document.citations})
    from atlas._version import __version__  # noqa: PLC0415

    headers = {"user-agent": f"execution-atlas-check/{__version__} (+{BASE_IRI})"}
    with (
        httpx.Client(timeout=policy.timeout, follow_redirects=False, headers=headers) as client,
        ThreadPoolExecutor(max_workers=max(1, policy.workers)) as pool,
    ):
        fetched = pool.map(lambda u: fetch(u, policy, client), cited)
        pages = dict(zip(cited, fetched, strict=True))
    problems: list[Problem] = []
    for url in cited:
        page = pages[url]
        if page.error is not None:
            problems.append(
                Problem(
                    "warning",
                    f"cannot verify quotes online: <{url}>: {page.error}",
                    subject=url,
                    hint="check the URL, or retry later",
                    code="unreachable",
                )
            )
    for citation in document.citations:
        page = pages[citation.source]
        if page.text is None:
            continue
        quote = normalise(citation.quote)
        if quote not in page.text:
            problems.append(
                Problem(
                    "violation",
                    f"quote no longer on its page <{citation.source}>: {quote[:80]!r}",
                    subject=f"{BASE_IRI}citation/{citation.id}",
                    hint="the page changed: re-check the quote, update it and pav:retrievedOn",
                    code="drift",
                )
            )
    return problems
