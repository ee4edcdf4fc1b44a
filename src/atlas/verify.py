"""Every verification of the dataset: consistency, quotes, dates (and more, see ``check``).

Each function returns a list of :class:`~atlas.errors.Problem` rather than raising, so that a
report can show every problem at once.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from pathlib import Path

from atlas.errors import CycleError, Problem
from atlas.models import BASE_IRI, AtlasDocument

__all__ = ["consistency_problems", "date_problems", "normalise", "quote_problems"]

STAGE_KINDS = "stage-kind"
TECHNOLOGY_KINDS = "technology-kind"


def normalise(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends.

    >>> normalise("  a\\n  b\\tc ")
    'a b c'
    """
    return re.sub(r"\s+", " ", text).strip()


def _iri(kind: str, local: str) -> str:
    return f"{BASE_IRI}{kind}/{local}"


def consistency_problems(document: AtlasDocument) -> list[Problem]:  # noqa: C901, PLR0912, PLR0915
    """Dangling references, missing citations, uncovered dimensions, duplicates and cycles."""
    problems: list[Problem] = []

    def bad(kind: str, local: str, message: str, hint: str | None = None, code: str = "") -> None:
        problems.append(
            Problem("violation", message, subject=_iri(kind, local), hint=hint, code=code)
        )

    for key in (
        "atlases",
        "stages",
        "steps",
        "citations",
        "sources",
        "technologies",
        "schemes",
        "relations",
    ):
        counted = Counter(getattr(item, "id") for item in getattr(document, key))  # noqa: B009
        for dup, n in sorted(counted.items()):
            if n > 1:
                problems.append(
                    Problem(
                        "violation",
                        f"duplicate id {dup!r} ({n} {key})",
                        subject=dup,
                        hint="every id names one record",
                        code="duplicate",
                    )
                )
    stages = {s.id: s for s in document.stages}
    steps = {s.id: s for s in document.steps}
    atlases = {a.id: a for a in document.atlases}
    schemes = {s.id: s for s in document.schemes}
    concepts = {c.id for s in document.schemes for c in s.values}
    citations = {c.id for c in document.citations}
    sources = {s.url for s in document.sources}
    technologies = {t.id for t in document.technologies}

    for atlas in document.atlases:
        if atlas.dimensions and atlas.entry_stage is None:
            bad("atlas", atlas.id, "has dimensions but no entry stage", code="missing")
        elif atlas.entry_stage is not None and atlas.entry_stage not in stages:
            bad(
                "atlas",
                atlas.id,
                f"entry stage {atlas.entry_stage!r} is not a stage",
                code="dangling",
            )
        for dim in atlas.dimensions:
            if dim not in schemes:
                bad(
                    "atlas", atlas.id, f"dimension {dim!r} is not a concept scheme", code="dangling"
                )
            elif not schemes[dim].values:
                bad("atlas", atlas.id, f"dimension {dim!r} has no values", code="empty-dimension")
        if not atlas.dimensions and any(s.atlas == atlas.id for s in document.steps):
            bad("atlas", atlas.id, "has steps but declares no dimension", code="missing")

    for stage in document.stages:
        if not stage.kind.startswith(f"{STAGE_KINDS}/") or stage.kind not in concepts:
            bad(
                "stage",
                stage.id,
                f"kind {stage.kind!r} is not a concept of the {STAGE_KINDS!r} scheme",
                hint="see catalog.ttl for the stage kinds",
                code="dangling",
            )
        if stage.technology is not None and stage.technology not in technologies:
            bad(
                "stage",
                stage.id,
                f"technology {stage.technology!r} is not a technology",
                code="dangling",
            )
        for aid in stage.atlases:
            if aid not in atlases:
                bad("stage", stage.id, f"is part of an unknown atlas {aid!r}", code="dangling")
        if not stage.atlases:
            bad(
                "stage",
                stage.id,
                "is part of no atlas",
                hint="add dcterms:isPartOf atlas:<id>",
                code="missing",
            )
        if stage.replaced_by is not None and stage.replaced_by not in stages:
            bad(
                "stage",
                stage.id,
                f"is replaced by an unknown stage {stage.replaced_by!r}",
                code="dangling",
            )
        for cid in stage.citations:
            if cid not in citations:
                bad("stage", stage.id, f"cites an unknown citation {cid!r}", code="dangling")

    for tech in document.technologies:
        if not tech.kind.startswith(f"{TECHNOLOGY_KINDS}/") or tech.kind not in concepts:
            bad(
                "technology",
                tech.id,
                f"kind {tech.kind!r} is not a concept of the {TECHNOLOGY_KINDS!r} scheme",
                code="dangling",
            )
        for cid in tech.citations:
            if cid not in citations:
                bad("technology", tech.id, f"cites an unknown citation {cid!r}", code="dangling")

    for step in document.steps:
        atlas = atlases.get(step.atlas)
        if atlas is None:
            bad("step", step.id, f"belongs to an unknown atlas {step.atlas!r}", code="dangling")
        for end, sid in (("from", step.from_stage), ("to", step.to_stage)):
            if sid not in stages:
                bad(
                    "step",
                    step.id,
                    f"{end}-stage {sid!r} is not a stage",
                    hint=f"declare stage:{sid} or fix the id",
                    code="dangling",
                )
            elif atlas is not None and atlas.id not in stages[sid].atlases:
                bad(
                    "step",
                    step.id,
                    f"{end}-stage {sid!r} is not part of atlas {atlas.id!r}",
                    hint=f"add dcterms:isPartOf atlas:{atlas.id} to stage:{sid}",
                    code="dangling",
                )
        if not step.citations:
            bad(
                "step",
                step.id,
                "has no citation",
                hint="every step needs at least one cited quote",
                code="no-citation",
            )
        for cid in step.citations:
            if cid not in citations:
                bad("step", step.id, f"cites an unknown citation {cid!r}", code="dangling")
        if step.replaced_by is not None and step.replaced_by not in steps:
            bad(
                "step",
                step.id,
                f"is replaced by an unknown step {step.replaced_by!r}",
                code="dangling",
            )
        for value in step.when:
            if value not in concepts:
                bad(
                    "step",
                    step.id,
                    f"condition {value!r} is not a known dimension value",
                    code="dangling",
                )
        if atlas is not None:
            for dim in atlas.dimensions:
                given = [v for v in step.when if v.startswith(dim + "/")]
                if given and dim in step.when_any:
                    bad(
                        "step",
                        step.id,
                        f"gives both values and 'any' for dimension {dim!r}",
                        code="condition",
                    )
                elif not given and dim not in step.when_any:
                    label = schemes[dim].label if dim in schemes else dim
                    bad(
                        "step",
                        step.id,
                        f"has no {label} condition (dimension {dim!r})",
                        hint=f"add ea:when <a {label}> or ea:whenAny scheme:{dim}",
                        code="condition",
                    )
            for dim in step.when_any:
                if dim not in atlas.dimensions:
                    bad(
                        "step",
                        step.id,
                        f"'any' names {dim!r}, not a dimension of atlas {atlas.id!r}",
                        code="condition",
                    )
            for value in step.when:
                if value.split("/", 1)[0] not in atlas.dimensions:
                    bad(
                        "step",
                        step.id,
                        f"condition {value!r} is not a value of a dimension of atlas {atlas.id!r}",
                        code="condition",
                    )
        for claim in step.unsupported_claims:
            problems.append(
                Problem(
                    "warning",
                    f"unsupported claim: {claim}",
                    subject=_iri("step", step.id),
                    hint="find a source that supports it, or remove it",
                    code="unsupported",
                )
            )
    for stage in document.stages:
        for claim in stage.unsupported_claims:
            problems.append(
                Problem(
                    "warning",
                    f"unsupported claim: {claim}",
                    subject=_iri("stage", stage.id),
                    hint="find a source that supports it, or remove it",
                    code="unsupported",
                )
            )

    for relation in document.relations:
        if relation.atlas not in atlases:
            bad(
                "relation",
                relation.id,
                f"belongs to an unknown atlas {relation.atlas!r}",
                code="dangling",
            )
        for end, tid in (("from", relation.from_technology), ("to", relation.to_technology)):
            if tid not in technologies:
                bad(
                    "relation",
                    relation.id,
                    f"{end}-technology {tid!r} is not a technology",
                    code="dangling",
                )
        if not relation.citations:
            bad("relation", relation.id, "has no citation", code="no-citation")
        for cid in relation.citations:
            if cid not in citations:
                bad("relation", relation.id, f"cites an unknown citation {cid!r}", code="dangling")

    for citation in document.citations:
        if citation.source not in sources:
            bad(
                "citation",
                citation.id,
                f"cites an unlisted source <{citation.source}>",
                hint="add the source to sources.ttl",
                code="dangling",
            )
        if citation.support == "partial":
            problems.append(
                Problem(
                    "warning",
                    "supports its claim only partly"
                    + (f": {citation.support_note}" if citation.support_note else ""),
                    subject=_iri("citation", citation.id),
                    code="partial",
                )
            )

    if not any(p.severity == "violation" for p in problems):
        from atlas.query import Index  # noqa: PLC0415 - avoid an import cycle

        index = Index(document)
        for atlas in document.atlases:
            try:
                index.all_paths(atlas.id)
            except CycleError as error:
                problems.extend(error.problems)
    return problems


def quote_problems(document: AtlasDocument, sources_dir: Path) -> list[Problem]:
    """Check every quote against the local snapshot of its source, whitespace collapsed."""
    problems: list[Problem] = []
    by_url = {s.url: s for s in document.sources}
    texts: dict[str, str | None] = {}
    for citation in document.citations:
        subject = _iri("citation", citation.id)
        source = by_url.get(citation.source)
        if source is None:
            continue  # reported by consistency_problems
        if source.snapshot not in texts:
            file = Path(sources_dir) / source.snapshot
            try:
                texts[source.snapshot] = normalise(file.read_text(encoding="utf-8"))
            except OSError:
                texts[source.snapshot] = None
        text = texts[source.snapshot]
        if text is None:
            problems.append(
                Problem(
                    "violation",
                    f"no snapshot {source.snapshot!r} in {sources_dir}",
                    subject=subject,
                    hint="check --sources",
                    code="snapshot-missing",
                )
            )
            continue
        quote = normalise(citation.quote)
        if not quote:
            problems.append(
                Problem("violation", "empty quote", subject=subject, code="empty-quote")
            )
        elif quote not in text:
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


def date_problems(
    document: AtlasDocument, *, today: dt.date | None = None, max_age_days: int = 365
) -> list[Problem]:
    """Check dates in the future (violations) and checks older than ``max_age_days`` (warnings)."""
    today = today or dt.datetime.now(dt.UTC).date()
    problems: list[Problem] = []
    for citation in document.citations:
        subject = _iri("citation", citation.id)
        checked = citation.retrieved_on
        if checked > today:
            problems.append(
                Problem(
                    "violation",
                    f"check date {checked.isoformat()} is in the future",
                    subject=subject,
                    hint=f"use the day you verified the quote (today is {today})",
                    code="future-date",
                )
            )
        elif (today - checked).days > max_age_days:
            problems.append(
                Problem(
                    "warning",
                    f"quote last checked {checked.isoformat()}, "
                    f"{(today - checked).days} days ago (limit {max_age_days})",
                    subject=subject,
                    hint="verify the quote again and update the date",
                    code="stale-date",
                )
            )
    if document.issued > today:
        problems.append(
            Problem(
                "violation",
                f"release date {document.issued} is in the future",
                subject=BASE_IRI,
                code="future-date",
            )
        )
    return problems
