"""Texts computed from the data: conditions, labels, support, sources and drawing descriptions.

:class:`Texts` adds to :class:`~atlas.publish.site._lookups.Lookups` the sentences and links
that the templates show as they are (Jinja2 escapes them): when a step applies, its quotes
strongest first and each of its sentences with the quotes that back it, which sources an atlas
quotes, a link that opens an issue about a record on the project's tracker, and the text
alternative of each drawing. :func:`first_sentence` gives a page's summary for search engines.
"""

from __future__ import annotations

import datetime as dt
import re
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from atlas.models._iri import BASE_IRI
from atlas.publish.site._lookups import Lookups

if TYPE_CHECKING:
    from atlas.models import Atlas, Claim, Evidence, Relation, Source, Stage, Step, Technology
    from atlas.publish.site._views import View

__all__ = ["Sentence", "Texts", "first_sentence"]


Level = Literal["full", "partial", "observed", "unsupported"]
# a sentence ends at '.', '!' or '?' before the next one's capital letter or digit (not 'e.g. x')
_FIRST_SENTENCE = re.compile(r"\s*(.+?[.!?])(?=\s+[A-Z0-9]|\s*$)", re.DOTALL)
# what a query may hold unencoded besides letters and digits (RFC 3986), but for '&', '=' and '+'
_QUERY_SAFE = ":/(),"


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (all of it when it has one).

    A page's description for search engines, which show a sentence or two, where the page
    itself shows the whole text.

    >>> first_sentence("It runs torch.compile, e.g. on a GPU. Then more.")
    'It runs torch.compile, e.g. on a GPU.'
    >>> first_sentence("No full stop")
    'No full stop'
    """
    found = _FIRST_SENTENCE.match(text)
    return found.group(1) if found else text.strip()


@dataclass(frozen=True)
class Sentence:
    """One claim as a page shows it: its text, the numbers of its quotes, how it is backed."""

    claim: Claim
    numbers: tuple[int, ...]  # the quotes that back it, as numbered on the page (1...)
    # full: a quote backs it fully; partial: its quotes back part of it; observed: no quote,
    # but a witness run showed it; unsupported: nothing backs it yet
    level: Level


class Texts(Lookups):
    """The records of one document, with the texts the templates show about them."""

    def when(self, step: Step) -> str:
        """The conditions of a step, e.g. 'torch.compile; any device'."""
        atlas = self.index.atlases.get(step.atlas)
        parts = []
        for scheme in self.dimensions(atlas) if atlas else []:
            if scheme.id in step.when_any:
                parts.append(f"any {scheme.label}")
            else:
                labels = [v.label for v in scheme.values if v.id in step.when]
                parts.append(" or ".join(labels) if labels else f"no {scheme.label}")
        if step.branch is not None:  # off by default: shown only when its branch is asked for
            branch = self.concept(step.branch)
            parts.append(f"only {branch.phrase}, a branch off by default")
        return "; ".join(parts) if parts else "always"

    def step_label(self, step: Step) -> str:
        """'FX graph \u2014 is compiled by \u2192 TorchInductor'."""
        return (
            f"{self.stage_label(step.from_stage)} \u2014 {step.verb} \u2192 "
            f"{self.stage_label(step.to_stage)}"
        )

    def support(self, citations: Sequence[str], unsupported: Sequence[str] = ()) -> str:
        """How fully citations support a claim, e.g. 'full' or '2 full, 1 partial'."""
        levels = [e.citation.support for e in self.evidence(citations)]
        full, partial = levels.count("full"), levels.count("partial")
        text = (
            "full" if not partial else "partial" if not full else f"{full} full, {partial} partial"
        )
        if unsupported:
            count = len(unsupported)
            text += f"; {count} claim{'s' * (count != 1)} not yet sourced"
        return text

    def quotes(self, claims: Sequence[Claim]) -> tuple[Evidence, ...]:
        """The citations of these claims, each once, the strongest first.

        Stronger: a ``full`` rating before a ``partial`` one, then the quote that backs more of
        the claims, then a primary source (the tool's own) before a secondary one, then the
        order of the claims.
        """
        cited = list(dict.fromkeys(c for claim in claims for c in claim.citations))
        backs = {cid: sum(cid in claim.citations for claim in claims) for cid in cited}
        items = list(self.evidence(cited))
        return tuple(
            sorted(
                items,
                key=lambda e: (
                    e.citation.support != "full",
                    -backs[e.citation.id],
                    e.source.primary is False,
                    items.index(e),
                ),
            )
        )

    def sentences(self, claims: Sequence[Claim], quotes: Sequence[Evidence]) -> list[Sentence]:
        """Each claim with the numbers of the quotes that back it (as ``quotes`` orders them)."""
        numbers = {item.citation.id: n for n, item in enumerate(quotes, 1)}
        ratings = {item.citation.id: item.citation.support for item in quotes}
        found = []
        for claim in claims:
            cited = [c for c in claim.citations if c in numbers]
            level: Level
            if cited:
                level = "full" if any(ratings[c] == "full" for c in cited) else "partial"
            else:
                level = "observed" if claim.observed_in else "unsupported"
            found.append(Sentence(claim, tuple(sorted(numbers[c] for c in cited)), level))
        return found

    def record_iri(self, record: Stage | Step | Technology | Relation) -> str:
        """The IRI of a stage, step, technology or relation."""
        return f"{BASE_IRI}{record.type.lower()}/{record.id}"

    def report_href(self, record: Stage | Step | Technology | Relation) -> str | None:
        """A link that opens a new issue on the tracker, naming ``record`` (None: no tracker).

        The issue's title and body are filled in (GitHub's ``/new?title=...&body=...``): the
        record's kind and id, its IRI, the data version, and what to write.
        """
        if self.tracker is None:
            return None
        title = f"{record.type} {record.id}"
        body = (
            f"{self.record_iri(record)} (data {self.document.version})\n\n"
            "What is wrong, and a better source (its URL and exact words):\n"
        )
        # form-encoded, as GitHub reads it ('+': a space), no more escaped than a query needs
        query = urllib.parse.urlencode({"title": title, "body": body}, safe=_QUERY_SAFE)
        return f"{self.tracker}/new?{query}"

    def cited_in(self, atlas: Atlas) -> list[Evidence]:
        """Every citation of an atlas's stages, steps, relations and their technologies."""
        stages = self.stages_of(atlas)
        records: list[Stage | Step | Relation] = [
            *stages,
            *self.steps_of(atlas),
            *self.relations_of(atlas),
        ]
        cited = {c for r in records for c in r.citations}
        techs = {s.technology for s in stages if s.technology}
        techs |= {t for r in self.relations_of(atlas) for t in (r.from_technology, r.to_technology)}
        for tech_id in techs:
            tech = self.index.technologies.get(tech_id)
            cited.update(tech.citations if tech else ())
        return list(self.evidence(sorted(cited)))

    def sources_of(self, atlas: Atlas) -> list[Source]:
        """The sources an atlas quotes, by title."""
        urls = {e.source.url: e.source for e in self.cited_in(atlas)}
        return sorted(urls.values(), key=lambda s: (s.title.casefold(), s.url))

    def publisher_name(self, source: Source) -> str:
        """The publisher's name, without the curator's words in brackets after it ('—': none).

        E.g. 'PyTorch' for 'PyTorch (pytorch/pytorch)'.
        """
        return (source.publisher or "\u2014").split(" (", 1)[0]

    def check_dates(self, atlas: Atlas) -> tuple[dt.date, dt.date] | None:
        """The first and the last day on which a quote of the atlas was checked."""
        dates = [e.citation.retrieved_on for e in self.cited_in(atlas)]
        return (min(dates), max(dates)) if dates else None

    def describe(self, atlas: Atlas | None, view: View | None = None) -> str:
        """The text alternative of a drawing (``atlas=None``: the full graph)."""
        stages, steps = self.stages_of(atlas), self.steps_of(atlas)
        name = f"the {atlas.label} atlas" if atlas else self.document.title
        if not stages and atlas is not None:
            relations = self.relations_of(atlas)
            return (
                f"A drawing of {name}: technologies as boxes coloured by kind and"
                f" {len(relations)} relations as labelled arrows. The same relations are listed"
                " in the table below."
            )
        text = (
            f"A top-down drawing of {name}: {len(stages)} stages as boxes coloured by kind,"
            f" and {len(steps)} steps as labelled arrows."
        )
        if any(s.executes_in_python for s in stages):
            text += " A dashed box groups the stages that run in the Python interpreter."
        shared = self.shared_stages() if atlas is None else []
        if shared:
            names = ", ".join(s.label for s in shared)
            text += (
                f" The stages that several atlases share ({names}) are drawn once, with a thick"
                " outline; the steps of each atlas lead to them."
            )
        if view is not None:
            text += (
                f" Highlighted: {view.path.summary}; every other stage and step is faded."
                " The same path is listed step by step next to the drawing."
            )
        return text
