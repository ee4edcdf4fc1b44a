"""Rules about sources and quotes: quotes in their snapshots, as pages read them, pinned records.

Each rule returns a list of :class:`~atlas.errors.Problem` (see :mod:`atlas.checks.verify`,
which runs them and re-exports them). The quote rule is that of the shared snapshots' README
(:mod:`atlas.data._quotes`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.data._files import MAX_SNAPSHOT_BYTES, UnsafeFileError, inside, read_bytes
from atlas.data._quotes import Haystack, is_program_source, markup, normalise, unmark
from atlas.errors import Problem
from atlas.models._iri import BASE_IRI

if TYPE_CHECKING:
    from atlas.models import AtlasDocument

__all__ = ["markup_problems", "quote_problems", "source_problems"]


def _iri(kind: str, local: str) -> str:
    return f"{BASE_IRI}{kind}/{local}"


def quote_problems(document: AtlasDocument, sources_dir: Path) -> list[Problem]:
    """Check every quote against the snapshot of its source in ``sources_dir``.

    A quote is found when, whitespace collapsed, it is in the snapshot as it is or with inline
    Markdown/reST markup removed on both sides (:mod:`atlas.data._quotes`; the rule of the shared
    snapshots' README). A complete snapshot at a pinned URL must also have the ``sha256`` that
    its record pins: its quotes were checked against those very bytes.
    """
    by_url = {s.url: s for s in document.sources}
    texts = {s.snapshot: _snapshot(Path(sources_dir), s.snapshot) for s in document.sources}
    problems = _hash_problems(document, texts)
    for citation in document.citations:
        subject = _iri("citation", citation.id)
        source = by_url.get(citation.source)
        if source is None:
            continue  # reported by consistency_problems
        text = texts[source.snapshot]
        if isinstance(text, UnsafeFileError):
            problems.append(
                Problem(
                    "violation",
                    f"snapshot refused: {text}",
                    subject=subject,
                    hint="ea:snapshot names a regular file inside --sources",
                    code="snapshot-unsafe",
                )
            )
            continue
        if text is None:
            problems.append(
                Problem(
                    "violation",
                    f"no snapshot {source.snapshot!r} in {sources_dir}",
                    subject=subject,
                    hint="get it with 'atlas sources fetch', or check --sources",
                    code="snapshot-missing",
                )
            )
            continue
        quote = normalise(citation.quote)
        if not quote:
            problems.append(
                Problem("violation", "empty quote", subject=subject, code="empty-quote")
            )
        elif not text.haystack.finds(quote):
            problems.append(
                Problem(
                    "violation",
                    f"quote not found verbatim in {source.snapshot}: {quote[:80]!r}",
                    subject=subject,
                    hint="copy the quote from the snapshot; never retype it",
                    code="quote-not-found",
                )
            )
    return problems


def _hash_problems(
    document: AtlasDocument, texts: dict[str, _Snapshot | UnsafeFileError | None]
) -> list[Problem]:
    """Complete snapshots at a pinned URL whose sha256 is not the one their record pins."""
    problems = []
    for record in document.sources:
        snapshot = texts[record.snapshot]
        pinned = record.complete and record.retrieved_from and record.sha256
        if isinstance(snapshot, _Snapshot) and pinned and snapshot.digest != record.sha256:
            problems.append(
                Problem(
                    "violation",
                    f"snapshot {record.snapshot!r} has sha256 {snapshot.digest}, the record "
                    f"pins {record.sha256}",
                    subject=_iri("source", record.id),
                    hint="fetch it again ('atlas sources fetch'); if the snapshot was updated, "
                    "re-check its quotes and update ea:sha256",
                    code="snapshot-changed",
                )
            )
    return problems


@dataclass(frozen=True)
class _Snapshot:
    """A snapshot read once: its text to look quotes up in, and the sha256 of its bytes."""

    haystack: Haystack
    digest: str


def _snapshot(folder: Path, name: str) -> _Snapshot | UnsafeFileError | None:
    """A snapshot, the reason it is refused, or None when it is missing."""
    try:
        data = read_bytes(inside(folder, name), MAX_SNAPSHOT_BYTES)
        return _Snapshot(Haystack(data.decode("utf-8")), hashlib.sha256(data).hexdigest())
    except UnsafeFileError as error:
        return error
    except UnicodeDecodeError as error:
        return UnsafeFileError(f"{name!r} is not UTF-8 text: {error.reason} at byte {error.start}")
    except OSError:
        return None


def markup_problems(document: AtlasDocument) -> list[Problem]:
    """Quotes that carry inline Markdown/reST markup: a quote reads as the rendered page reads.

    Backticks, ``**``, roles (``:func:``, ``{ref}``) and link syntax are what a page's source
    holds, not what a reader sees, so a reader could not find such a quote on the page. Quotes
    of program source (a ``.py`` or ``.cpp`` file, shown as written) are left alone.
    """
    by_url = {s.url: s for s in document.sources}
    problems: list[Problem] = []
    for citation in document.citations:
        source = by_url.get(citation.source)
        if source is not None and is_program_source(source.retrieved_from or source.url):
            continue
        found = markup(citation.quote)
        if found is None:
            continue
        quote = normalise(citation.quote)
        problems.append(
            Problem(
                "violation",
                f"quote carries inline markup ({found}): {quote[:80]!r}",
                subject=_iri("citation", citation.id),
                hint=f"quote it as the page reads: {normalise(unmark(quote))[:80]!r}",
                code="quote-markup",
            )
        )
    return problems


def source_problems(document: AtlasDocument) -> list[Problem]:
    """Source records that do not pin what was read: no ``ea:sha256``, or no ``ea:primary``."""
    problems: list[Problem] = []
    for source in document.sources:
        missing = [
            (term, hint)
            for term, value, hint in (
                (
                    "ea:sha256",
                    source.sha256,
                    "the sha256 (hex) of the snapshot text its quotes were checked against",
                ),
                (
                    "ea:primary",
                    source.primary,
                    "true for the tool's own docs, code or threads, false for a third party's",
                ),
            )
            if value is None
        ]
        problems.extend(
            Problem(
                "violation",
                f"source record without {term}",
                subject=_iri("source", source.id),
                hint=f"add {term}: {hint}",
                code="source-unpinned",
            )
            for term, hint in missing
        )
    return problems
