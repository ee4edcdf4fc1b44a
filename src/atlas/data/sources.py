"""The documents a dataset quotes: fetch them into a folder, and look each quote up online.

A source record pins what was read (:class:`atlas.models.Source`): ``retrieved_from``, a URL
that serves exactly that version where one exists (a file's raw URL at a commit), and
``sha256``, the hash of the snapshot text its quotes were checked against. :func:`fetch_sources`
downloads every source of a dataset into a folder, each as its snapshot's file name:

- a complete snapshot at a pinned URL is checked against its ``sha256`` and stored as fetched
  (``verified``); one whose hash differs is not stored (``changed``);
- any other (a trimmed or excerpt-only snapshot, a rendered page) is stored as the text a reader
  sees (``page``), and its quotes are looked up one by one: drift is reported quote by quote.

``atlas check --sources DIR`` then verifies every quote against the folder; :func:`online_problems`
does the same without storing anything (``atlas check --online``). Only these two functions touch
the network, and only when called.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from atlas.data._fetch import FetchPolicy, download, page_text
from atlas.data._quotes import Haystack, normalise
from atlas.data._resources import user_cache
from atlas.errors import Problem, UnknownIdError
from atlas.models._iri import BASE_IRI

if TYPE_CHECKING:
    from collections.abc import Iterable

    import httpx

    from atlas.models import AtlasDocument, Citation, Source

__all__ = [
    "Drift",
    "FetchReport",
    "Outcome",
    "Retrieved",
    "default_folder",
    "fetch_sources",
    "online_problems",
    "retrieve",
]

Status = Literal["verified", "page", "changed", "failed"]


def default_folder() -> Path:
    """The user's cache of fetched sources: ``$XDG_CACHE_HOME/execution-atlas/sources``.

    ``~/.cache`` stands for ``XDG_CACHE_HOME`` when it is unset or not absolute (the XDG rule).
    """
    return user_cache("sources")


@dataclass(frozen=True)
class Retrieved:
    """What was fetched for one source: its text, or why there is none.

    ``text`` is what a folder of sources holds for it: the file itself when its hash was checked
    and matched, else the text a reader sees (an HTML page reduced to its visible text).
    """

    source: Source
    url: str
    text: str | None = None
    error: str | None = None
    digest: str | None = None

    @property
    def hashed(self) -> bool:
        """Whether the fetched bytes are compared with the record's hash: complete and pinned."""
        source = self.source
        return bool(source.complete and source.retrieved_from and source.sha256)

    @property
    def changed(self) -> bool:
        """Whether a hashed source's bytes differ from the ones the record pins."""
        return self.hashed and self.digest is not None and self.digest != self.source.sha256


def retrieve(source: Source, policy: FetchPolicy, http: httpx.Client) -> Retrieved:
    """Fetch ``source`` from its pinned URL (``retrieved_from``), else from its page (``url``)."""
    url = source.retrieved_from or source.url
    got = download(url, policy, http)
    if got.body is None:
        return Retrieved(source, url, error=got.error)
    digest = hashlib.sha256(got.body).hexdigest()
    found = Retrieved(source, url, digest=digest)
    if found.hashed and not found.changed:
        try:  # the very bytes the quotes were checked against: stored as they are
            text = got.body.decode("utf-8")
        except UnicodeDecodeError as error:
            return Retrieved(source, url, error=f"not UTF-8 text: {error.reason}", digest=digest)
    elif got.is_html:
        text = page_text(got.body, got.charset)
    elif got.is_text:
        text = got.body.decode(got.charset or "utf-8", errors="replace")
    else:
        kind = got.media_type or "unknown type"
        return Retrieved(source, url, error=f"not a text or HTML document ({kind})", digest=digest)
    return Retrieved(source, url, text=text, digest=digest)


@dataclass(frozen=True)
class Drift:
    """A quote no longer found in the fetched text of its source."""

    citation: str
    quote: str


def _drifted(citations: Iterable[Citation], text: str) -> tuple[Drift, ...]:
    haystack = Haystack(text)
    return tuple(Drift(c.id, normalise(c.quote)) for c in citations if not haystack.finds(c.quote))


@dataclass(frozen=True)
class Outcome:
    """What became of one source: stored (verified by hash, or as a page's text), or not."""

    source: str
    url: str
    status: Status
    detail: str
    snapshot: str | None = None
    quotes: int = 0
    drifted: tuple[Drift, ...] = ()

    @property
    def ok(self) -> bool:
        """Stored, with every quote found."""
        return self.status in ("verified", "page") and not self.drifted

    def text(self) -> str:
        """One line for the source, then one per drifted quote."""
        lines = [f"source:{self.source}: {self.detail}"]
        lines += [f"    cite:{d.citation}: {_cut(d.quote)!r}" for d in self.drifted]
        return "\n".join(lines)


def _cut(text: str, width: int = 100) -> str:
    return text if len(text) <= width else text[: width - 1] + "\u2026"


@dataclass(frozen=True)
class FetchReport:
    """Every source fetched into ``folder``, with what became of it."""

    folder: Path
    outcomes: tuple[Outcome, ...]

    @property
    def exit_code(self) -> int:
        """0 when every source is stored with all its quotes found, else 1."""
        return 0 if all(o.ok for o in self.outcomes) else 1

    def summary(self) -> str:
        """One line: how many sources were stored, changed or failed, and how many quotes drifted.

        >>> FetchReport(Path("cache"), ()).summary()
        'atlas sources fetch: 0 sources into cache'
        """
        count: dict[str, int] = {}
        for outcome in self.outcomes:
            count[outcome.status] = count.get(outcome.status, 0) + 1
        parts = [
            f"{count[status]} {words}"
            for status, words in (
                ("verified", "verified by hash"),
                ("page", "stored as page text"),
                ("changed", "changed (not stored)"),
                ("failed", "failed"),
            )
            if count.get(status)
        ]
        n = len(self.outcomes)
        line = f"atlas sources fetch: {n} source{'s' * (n != 1)} into {self.folder}"
        if parts:
            line += ": " + ", ".join(parts)
        drifted = sum(len(o.drifted) for o in self.outcomes)
        if drifted:
            quotes = sum(o.quotes for o in self.outcomes)
            line += f"; {drifted} of {quotes} quotes no longer found"
        return line

    def text(self) -> str:
        """A line per source (and per drifted quote), then the summary."""
        return "\n".join([*(o.text() for o in self.outcomes), self.summary()])

    def to_json(self) -> dict[str, Any]:
        """The report for tools."""
        return {
            "exitCode": self.exit_code,
            "folder": str(self.folder),
            "summary": self.summary(),
            "sources": [
                {
                    "id": o.source,
                    "url": o.url,
                    "status": o.status,
                    "detail": o.detail,
                    "snapshot": o.snapshot,
                    "quotes": o.quotes,
                    "drifted": [{"citation": d.citation, "quote": d.quote} for d in o.drifted],
                }
                for o in self.outcomes
            ],
        }


def _outcome(found: Retrieved, citations: list[Citation], folder: Path) -> Outcome:
    """Store what was fetched for one source, and say what became of it."""
    from atlas.data._atomic import write_text_atomic  # noqa: PLC0415
    from atlas.data._files import UnsafeFileError, inside  # noqa: PLC0415

    source, url = found.source, found.url
    if found.text is None:
        return Outcome(source.id, url, "failed", f"failed: <{url}>: {found.error}")
    drifted = _drifted(citations, found.text)
    if found.changed:
        detail = (
            f"changed: <{url}> has sha256 {found.digest}, the record pins {source.sha256}; "
            f"not stored"
        )
        return Outcome(source.id, url, "changed", detail, None, len(citations), drifted)
    try:
        write_text_atomic(inside(folder, source.snapshot), found.text)
    except (UnsafeFileError, OSError) as error:
        reason = getattr(error, "strerror", None) or error
        return Outcome(source.id, url, "failed", f"failed: cannot store it: {reason}")
    status: Status = "verified" if found.hashed else "page"
    how = "sha256 as recorded" if found.hashed else f"the text of <{url}>"
    quotes = f"{len(citations) - len(drifted)} of {len(citations)} quotes found"
    detail = f"{status}: {source.snapshot} ({how}); {quotes}"
    return Outcome(source.id, url, status, detail, source.snapshot, len(citations), drifted)


def fetch_sources(
    document: AtlasDocument,
    folder: Path,
    *,
    policy: FetchPolicy | None = None,
    only: Iterable[str] = (),
) -> FetchReport:
    """Download the sources of ``document`` (or those whose ids ``only`` names) into ``folder``.

    Each is written atomically as its snapshot's file name; a source that cannot be fetched,
    is not text, or changed at its pinned URL leaves the folder's previous file alone.

    Raises:
        UnknownIdError: ``only`` names a source the document does not hold.
        OSError: ``folder`` cannot be made.
    """
    policy = policy or FetchPolicy()
    known = {s.id: s for s in document.sources}
    wanted = list(dict.fromkeys(only))
    for sid in wanted:
        if sid not in known:
            raise UnknownIdError("source", sid, sorted(known))
    sources = [known[sid] for sid in wanted] if wanted else list(document.sources)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    citing: dict[str, list[Citation]] = {}
    for citation in document.citations:
        citing.setdefault(citation.source, []).append(citation)
    found = _retrieve_all(sources, policy)
    outcomes = tuple(_outcome(f, citing.get(f.source.url, []), folder) for f in found)
    return FetchReport(folder, outcomes)


def _retrieve_all(sources: list[Source], policy: FetchPolicy) -> list[Retrieved]:
    from atlas.data._fetch import client  # noqa: PLC0415

    with (
        client(policy) as http,
        ThreadPoolExecutor(max_workers=max(1, policy.workers)) as pool,
    ):
        return list(pool.map(lambda s: _guarded(s, policy, http), sources))


def _guarded(source: Source, policy: FetchPolicy, http: httpx.Client) -> Retrieved:
    """:func:`retrieve`, whose unforeseen failure is the source's error, never a traceback."""
    try:
        return retrieve(source, policy, http)
    except Exception as error:  # noqa: BLE001 - a report names the source, never a traceback
        url = source.retrieved_from or source.url
        return Retrieved(source, url, error=f"{type(error).__name__}: {error}")


def online_problems(document: AtlasDocument, policy: FetchPolicy | None = None) -> list[Problem]:
    """Fetch every cited source and look each of its quotes up in it; nothing is stored.

    A quote no longer found is a violation (``drift``), and so is a complete snapshot whose
    pinned URL now serves other bytes (``changed``). A source that cannot be fetched or read is
    a warning (``unreachable``) naming the URL and the reason: its quotes were not checked.
    """
    policy = policy or FetchPolicy()
    by_url = {s.url: s for s in document.sources}
    citing: dict[str, list[Citation]] = {}
    for citation in document.citations:
        if citation.source in by_url:
            citing.setdefault(citation.source, []).append(citation)
    sources = [by_url[url] for url in sorted(citing)]
    problems: list[Problem] = []
    for found in _retrieve_all(sources, policy):
        source = found.source
        if found.text is None:
            problems.append(
                Problem(
                    "warning",
                    f"cannot verify quotes online: <{found.url}>: {found.error}",
                    subject=source.url,
                    hint="check the URL, or retry later",
                    code="unreachable",
                )
            )
            continue
        if found.changed:
            problems.append(
                Problem(
                    "violation",
                    f"<{found.url}> now has sha256 {found.digest}, the record pins {source.sha256}",
                    subject=f"{BASE_IRI}source/{source.id}",
                    hint="the pinned document changed: re-check its quotes, then update "
                    "ea:sha256 and pav:retrievedOn",
                    code="changed",
                )
            )
        problems.extend(
            Problem(
                "violation",
                f"quote no longer on its page <{found.url}>: {_cut(drift.quote, 80)!r}",
                subject=f"{BASE_IRI}citation/{drift.citation}",
                hint="the page changed: re-check the quote, update it and pav:retrievedOn",
                code="drift",
            )
            for drift in _drifted(citing[source.url], found.text)
        )
    return problems
