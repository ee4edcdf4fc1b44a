"""Claim-level evidence: every sentence users read has its own support, or says it has none.

A description is made of claims (:class:`~atlas.models.Claim`); each claim is backed by its
citations (each rated for that claim alone, so a citation backs exactly one claim), by witness
observations, or is flagged ``unsupported``. This module finds the claims that break that rule
and counts, per atlas, how the claims are backed (the summary ``atlas check`` prints).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.errors import Problem
from atlas.models._iri import BASE_IRI

if TYPE_CHECKING:
    from atlas.models import AtlasDocument, Citation, Claim

__all__ = ["SHAPED", "ClaimSummary", "claim_problems", "claimed", "summaries"]

#: The codes of the problems that the SHACL shapes also find in Turtle (``atlas check`` reports
#: them once, from the shapes).
SHAPED = frozenset({"no-support", "dangling", "unused-citation", "shared-citation"})

_HINT = (
    "cite it (prov:wasDerivedFrom cite:<id>), name a witness observation (ea:observedIn), "
    "or flag it ea:unsupported true with a skos:editorialNote saying why"
)


@dataclass(frozen=True)
class Owner:
    """A resource whose text is made of claims: its kind, id, and the atlases it belongs to."""

    kind: str  # atlas, stage, step, technology, relation, concept, nopath
    id: str
    atlases: tuple[str, ...]
    claims: tuple[Claim, ...]

    @property
    def iri(self) -> str:
        """The resource's IRI."""
        base = "scheme" if self.kind == "concept" else self.kind
        return f"{BASE_IRI}{base}/{self.id}"


def claimed(document: AtlasDocument) -> Iterator[Owner]:
    """Every resource with a text of claims, with the atlases whose summary counts them."""
    by_scheme = {dim: atlas.id for atlas in document.atlases for dim in atlas.dimensions}
    # technologies are part of the atlas their relations belong to (the technologies atlas)
    technologies = tuple(dict.fromkeys(r.atlas for r in document.relations))
    for atlas in document.atlases:
        yield Owner("atlas", atlas.id, (atlas.id,), atlas.claims)
    for scheme in document.schemes:
        for value in scheme.values:
            if value.claims:
                owner = (by_scheme[scheme.id],) if scheme.id in by_scheme else ()
                yield Owner("concept", value.id, owner, value.claims)
    for stage in document.stages:
        yield Owner("stage", stage.id, stage.atlases, stage.claims)
    for step in document.steps:
        yield Owner("step", step.id, (step.atlas,), step.claims)
    for tech in document.technologies:
        yield Owner("technology", tech.id, technologies, tech.claims)
    for relation in document.relations:
        yield Owner("relation", relation.id, (relation.atlas,), relation.claims)
    yield from _no_paths(document)


def _no_paths(document: AtlasDocument) -> Iterator[Owner]:
    """The selections with no path that have a text: one not covered is said by its note."""
    for no_path in document.no_paths:
        if no_path.reason == "does-not-exist" or no_path.claims:
            yield Owner("nopath", no_path.id, (no_path.atlas,), no_path.claims)


def _claim_iri(claim: Claim) -> str:
    return f"{BASE_IRI}claim/{claim.id}"


def claim_problems(document: AtlasDocument) -> list[Problem]:
    """Claims without support or flag, citations not rated for one claim, texts without claims.

    >>> from atlas import load
    >>> [p for p in claim_problems(load()) if p.severity == "violation"]
    []
    >>> sorted({p.code for p in claim_problems(load())})  # the flagged claims are listed
    ['unsupported']
    """
    citations = {c.id: c for c in document.citations}
    observations = _observations(document)
    problems: list[Problem] = []
    users: dict[str, list[str]] = {}
    seen: Counter[str] = Counter()
    for owner in claimed(document):
        if not owner.claims:  # a value without claims is no owner (see claimed)
            problems.append(
                Problem(
                    "violation",
                    f"{owner.kind} {owner.id!r} has no text: it needs at least one claim",
                    subject=owner.iri,
                    hint="add an ea:Claim with ea:about naming it and its sentence as rdf:value",
                    code="no-claim",
                )
            )
        for claim in owner.claims:
            seen[claim.id] += 1
            problems.extend(_problems_of(claim, citations, observations))
            for cid in claim.citations:
                users.setdefault(cid, []).append(claim.id)
    for claim_id, count in seen.items():
        if count > 1:
            problems.append(
                Problem(
                    "violation",
                    f"claim {claim_id!r} is about {count} resources; a claim is part of one text",
                    subject=f"{BASE_IRI}claim/{claim_id}",
                    code="claim-owners",
                )
            )
    problems.extend(_citation_use_problems(document.citations, users))
    return problems


def _problems_of(
    claim: Claim, citations: dict[str, Citation], observations: set[str] | None
) -> Iterator[Problem]:
    subject = _claim_iri(claim)
    for cid in claim.citations:
        if cid not in citations:
            yield Problem(
                "violation",
                f"claim {claim.id!r} cites an unknown citation {cid!r}",
                subject=subject,
                hint="declare cite:<id> as an ea:Citation, or fix the id",
                code="dangling",
            )
    for observation in claim.observed_in:
        if observations is not None and observation not in observations:
            yield Problem(
                "violation",
                f"claim {claim.id!r} names {observation!r}, which no witness record observed",
                subject=subject,
                hint='name an ea:Observation with ea:status "observed" in dataset/witness/',
                code="dangling",
            )
    backed = bool(claim.citations or claim.observed_in)
    if claim.unsupported and backed:
        yield Problem(
            "violation",
            f"claim {claim.id!r} is flagged unsupported but is cited or observed",
            subject=subject,
            hint="remove ea:unsupported true, or the citations that do not support it",
            code="unsupported-flag",
        )
    elif claim.unsupported:
        note = f" ({claim.note})" if claim.note else ""
        yield Problem(
            "warning",
            f"unsupported claim {claim.id!r}: {claim.text}{note}",
            subject=subject,
            hint="find a source that supports it, or reword or remove it",
            code="unsupported",
        )
    elif not backed:
        yield Problem(
            "violation",
            f"claim {claim.id!r} has no support and is not flagged unsupported: {claim.text}",
            subject=subject,
            hint=_HINT,
            code="no-support",
        )


def _citation_use_problems(
    citations: tuple[Citation, ...], users: dict[str, list[str]]
) -> Iterator[Problem]:
    for citation in citations:
        subject = f"{BASE_IRI}citation/{citation.id}"
        claims = users.get(citation.id, [])
        if citation.deprecated:
            if claims:
                yield Problem(
                    "violation",
                    f"citation {citation.id!r} is retired (owl:deprecated) but claims still cite "
                    f"it: {', '.join(sorted(claims))}",
                    subject=subject,
                    hint="cite a live citation, or take the retirement back",
                    code="retired-citation",
                )
        elif not claims:
            yield Problem(
                "violation",
                f"citation {citation.id!r} supports no claim",
                subject=subject,
                hint="cite it from the claim it supports (prov:wasDerivedFrom), or remove it",
                code="unused-citation",
            )
        elif len(claims) > 1:
            yield Problem(
                "violation",
                f"citation {citation.id!r} is cited by {len(claims)} claims "
                f"({', '.join(sorted(claims))}); its rating judges one pair",
                subject=subject,
                hint="copy the citation under a new id for each further claim, rated for it",
                code="shared-citation",
            )
        if citation.support == "partial" and not citation.support_note:
            yield Problem(
                "violation",
                f"citation {citation.id!r} is rated partial without a note of what it leaves out",
                subject=subject,
                hint='add ea:supportNote "what the quote does not support"',
                code="partial-without-note",
            )


def _observations(document: AtlasDocument) -> set[str] | None:
    """The ids (``record#node``) of every observed step of the witness records, if any."""
    if not document.witnesses:
        return None
    found: set[str] = set()
    for record in document.witnesses:
        for run in record.modes:
            for observed in run.steps:
                if observed.status == "observed":
                    found.add(f"{record.id}#{run.mode}-{observed.step}")
    return found


@dataclass(frozen=True)
class ClaimSummary:
    """How the claims of one atlas are backed."""

    atlas: str
    claims: int
    fully_cited: int  # at least one citation rated full
    partially_cited: int  # cited, every citation partial
    observed: int  # not cited, shown by a witness observation
    unsupported: int  # flagged
    without_support: int  # neither backed nor flagged: a violation

    def __str__(self) -> str:
        text = (
            f"{self.atlas}: {self.claims} claims; {self.fully_cited} fully cited, "
            f"{self.partially_cited} partially cited, {self.observed} observed, "
            f"{self.unsupported} flagged unsupported"
        )
        if self.without_support:
            text += f", {self.without_support} without support or flag"
        return text

    def to_json(self) -> dict[str, object]:
        """The summary for tools."""
        return {
            "atlas": self.atlas,
            "claims": self.claims,
            "fullyCited": self.fully_cited,
            "partiallyCited": self.partially_cited,
            "observed": self.observed,
            "unsupported": self.unsupported,
            "withoutSupport": self.without_support,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ClaimSummary:
        """The summary :meth:`to_json` gave ``data``.

        Raises:
            KeyError, TypeError: ``data`` is not such a summary.
        """
        counts = [data[key] for key in _COUNTS]
        if not isinstance(data["atlas"], str) or any(type(n) is not int for n in counts):
            raise TypeError(f"not a summary of claims: {data!r}")
        return cls(data["atlas"], *counts)  # type: ignore[arg-type]  # ints, as just checked


_COUNTS = ("claims", "fullyCited", "partiallyCited", "observed", "unsupported", "withoutSupport")


def summaries(document: AtlasDocument) -> tuple[ClaimSummary, ...]:
    """One summary per atlas, in the atlases' order (a shared stage counts in each).

    >>> from atlas import load
    >>> [s.atlas for s in summaries(load())]
    ['pytorch', 'llamacpp', 'technologies']
    """
    ratings = {c.id: c.support for c in document.citations}
    counts: dict[str, Counter[str]] = {a.id: Counter() for a in document.atlases}
    for owner in claimed(document):
        for claim in owner.claims:
            kind = _backing(claim, ratings)
            for atlas in owner.atlases:
                if atlas in counts:
                    counts[atlas]["claims"] += 1
                    counts[atlas][kind] += 1
    return tuple(
        ClaimSummary(
            atlas,
            c["claims"],
            c["full"],
            c["partial"],
            c["observed"],
            c["unsupported"],
            c["none"],
        )
        for atlas, c in counts.items()
    )


def _backing(claim: Claim, ratings: Mapping[str, str]) -> str:
    if claim.citations:
        full = any(ratings.get(cid) == "full" for cid in claim.citations)
        return "full" if full else "partial"
    if claim.observed_in:
        return "observed"
    return "unsupported" if claim.unsupported else "none"
