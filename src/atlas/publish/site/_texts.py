"""Texts computed from the data: conditions, labels, support, sources and drawing descriptions.

:class:`Texts` adds to :class:`~atlas.publish.site._lookups.Lookups` the sentences and links
that the templates show as they are (Jinja2 escapes them): when a step applies, how fully its
citations support it, which sources an atlas quotes, a ``mailto:`` link to report a step, and
the text alternative of each drawing.
"""

from __future__ import annotations

import datetime as dt
import urllib.parse
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from atlas.publish.site._lookups import Lookups

if TYPE_CHECKING:
    from atlas.models import Atlas, Claim, Evidence, Relation, Source, Stage, Step
    from atlas.publish.site._views import View

__all__ = ["Texts"]


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

    def sources_in(self, evidence: Iterable[Evidence]) -> list[tuple[Source, bool, dt.date]]:
        """Each source once: the source, whether any of its quotes is partial, the last check."""
        found: dict[str, tuple[Source, bool, dt.date]] = {}
        for item in evidence:
            source, partial, day = found.get(
                item.source.url, (item.source, False, item.citation.retrieved_on)
            )
            found[source.url] = (
                source,
                partial or item.citation.support == "partial",
                max(day, item.citation.retrieved_on),
            )
        return list(found.values())

    def sentences(
        self, claims: Sequence[Claim], evidence: Sequence[Evidence]
    ) -> list[tuple[Claim, list[int]]]:
        """Each claim with the numbers of its sources, as :meth:`sources_in` numbers them (1...)."""
        numbers = {source.url: n for n, (source, _, _) in enumerate(self.sources_in(evidence), 1)}
        by_citation = {item.citation.id: numbers[item.source.url] for item in evidence}
        return [
            (claim, sorted({by_citation[c] for c in claim.citations if c in by_citation}))
            for claim in claims
        ]

    def report_href(self, step: Step) -> str:
        """A ``mailto:`` link whose subject and body ask for a better source for ``step``."""
        subject = f"Execution Atlas: a better source for step {step.id}"
        body = (
            f"Step {step.id} (atlas {step.atlas}, data version {self.document.version}):\n"
            f"{self.step_label(step)}\n\nWhat is wrong:\n\n"
            "A better source (URL and the exact words that support the step):\n"
        )
        query = urllib.parse.urlencode(
            {"subject": subject, "body": body}, quote_via=urllib.parse.quote
        )
        return f"mailto:?{query}"

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
