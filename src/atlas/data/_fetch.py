"""Download cited documents: https only, same host, bounded time and size; pages read as text.

Nothing here runs unless asked (``atlas sources fetch``, ``atlas check --online``). A download
never raises for network trouble: it says why it failed. An HTML page is reduced to the text a
reader sees (:func:`page_text`, with BeautifulSoup): scripts, styles, the head and hidden
elements dropped, a line break at each block.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from atlas.data._quotes import normalise
from atlas.models._iri import BASE_IRI

if TYPE_CHECKING:
    import httpx

__all__ = [
    "Download",
    "FetchPolicy",
    "Page",
    "client",
    "download",
    "fetch",
    "html_text",
    "page_text",
    "refusal",
]

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class FetchPolicy:
    """Limits of a download. ``allow_http_loopback`` and ``rewrite`` exist for tests."""

    timeout: float = 15.0
    max_bytes: int = 10 * 2**20
    max_redirects: int = 5
    workers: int = 8
    #: Tests only: allow plain http to 127.0.0.1/localhost, where fixture pages are served.
    allow_http_loopback: bool = False
    #: Tests only: URL prefix -> replacement, to send the cited URLs to a local server.
    rewrite: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Download:
    """The body of a fetched URL and its media type, or why it could not be fetched."""

    url: str
    body: bytes | None = None
    media_type: str = ""
    charset: str | None = None
    error: str | None = None

    @property
    def is_html(self) -> bool:
        """Whether the body is an HTML page (by its media type, else by its first bytes)."""
        if self.media_type in ("text/html", "application/xhtml+xml"):
            return True
        head = (self.body or b"").lstrip()[:15].lower()
        return not self.media_type.startswith("text/") and head.startswith((b"<!doctype", b"<html"))

    @property
    def is_text(self) -> bool:
        """Whether the body is text a quote can be looked up in (plain text, Markdown, HTML)."""
        return not self.media_type or self.media_type.startswith("text/") or self.is_html


@dataclass(frozen=True)
class Page:
    """The text of a fetched page, whitespace collapsed, or why it could not be fetched."""

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


#: Elements whose content a reader never sees.
_UNSEEN = ("script", "style", "noscript", "template", "head", "svg", "iframe", "object")
#: Elements that start a new line where a browser shows them.
_BLOCKS = (
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "details",
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
    "summary",
    "table",
    "td",
    "th",
    "tr",
    "ul",
)


def page_text(html: str | bytes, encoding: str | None = None) -> str:
    """The text a reader sees on an HTML page: one line per block, spaces collapsed in each.

    ``html`` as bytes is decoded by BeautifulSoup (``encoding`` first, then the page's own
    declaration, then a guess).

    >>> print(page_text("<h1>Title</h1><p>The <code>torch</code>  API<script>x()</script></p>"))
    Title
    The torch API
    """
    from bs4 import BeautifulSoup  # noqa: PLC0415 - only pages need it
    from bs4.element import PreformattedString  # noqa: PLC0415

    soup = BeautifulSoup(
        html, "html.parser", from_encoding=encoding if isinstance(html, bytes) else None
    )
    for unseen in soup.find_all([*_UNSEEN]):
        unseen.decompose()
    for hidden in soup.find_all(None, attrs={"hidden": True}):
        hidden.decompose()
    for special in soup.find_all(string=lambda s: isinstance(s, PreformattedString)):
        special.extract()  # comments, the doctype, processing instructions: never shown
    for string in soup.find_all(string=True):  # as a browser shows text: spaces collapsed
        if string.find_parent(["pre", "textarea"]) is None:
            string.replace_with(re.sub(r"\s+", " ", string))
    for block in soup.find_all([*_BLOCKS]):
        block.insert_before("\n")
        block.insert_after("\n")
    lines = (re.sub(r"[^\S\n]+", " ", line).strip() for line in soup.get_text().splitlines())
    return "\n".join(line for line in lines if line)


def html_text(html: str) -> str:
    """The visible text of an HTML page, whitespace collapsed.

    >>> html_text("<p>The <code>torch</code> API</p><p>is &amp; was</p><script>x()</script>")
    'The torch API is & was'
    """
    return normalise(page_text(html))


def client(policy: FetchPolicy) -> httpx.Client:
    """An HTTP client for ``policy``: its timeout, no automatic redirects, our user agent."""
    import httpx  # noqa: PLC0415

    from atlas._version import __version__  # noqa: PLC0415

    headers = {"user-agent": f"execution-atlas/{__version__} (+{BASE_IRI})"}
    return httpx.Client(timeout=policy.timeout, follow_redirects=False, headers=headers)


def _rewritten(url: str, policy: FetchPolicy) -> str:
    for prefix, target in policy.rewrite.items():
        if url.startswith(prefix):
            return target + url[len(prefix) :]
    return url


def download(url: str, policy: FetchPolicy, http: httpx.Client) -> Download:
    """GET ``url`` under ``policy``; never raises for network trouble.

    Redirects are followed on the same host only, each one checked first; the body is read up
    to ``policy.max_bytes``.
    """
    import httpx  # noqa: PLC0415

    try:
        return _follow(url, policy, http)
    except httpx.TimeoutException:
        return Download(url, error=f"timed out after {policy.timeout:g} s")
    except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as error:
        return Download(url, error=f"{type(error).__name__}: {error}")


def _follow(url: str, policy: FetchPolicy, http: httpx.Client) -> Download:
    current = _rewritten(url, policy)
    why = refusal(current, policy)
    host = urlsplit(current).hostname
    for _ in range(policy.max_redirects + 1):
        if why:
            return Download(url, error=f"refused: {why}")
        with http.stream("GET", current) as response:
            if not response.is_redirect:
                return _body(url, response, policy)
            current = urljoin(current, response.headers.get("location", ""))
            why = refusal(current, policy, host)
    return Download(url, error=f"more than {policy.max_redirects} redirects")


def _body(url: str, response: httpx.Response, policy: FetchPolicy) -> Download:
    """The body of a final response, read up to the size cap."""
    if response.status_code != 200:  # noqa: PLR2004 - HTTP OK
        return Download(url, error=f"HTTP {response.status_code} {response.reason_phrase}")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > policy.max_bytes:
        return Download(url, error=f"page too large ({declared} bytes, limit {policy.max_bytes})")
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > policy.max_bytes:
            return Download(url, error=f"page too large (over {policy.max_bytes} bytes)")
    media_type = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return Download(url, bytes(body), media_type, response.charset_encoding)


def fetch(url: str, policy: FetchPolicy, http: httpx.Client) -> Page:
    """Fetch one page's text under ``policy`` (HTML reduced to what a reader sees)."""
    got = download(url, policy, http)
    if got.body is None:
        return Page(url, error=got.error)
    if got.is_html:
        return Page(url, text=normalise(page_text(got.body, got.charset)))
    return Page(url, text=normalise(got.body.decode(got.charset or "utf-8", errors="replace")))
