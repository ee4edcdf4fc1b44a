"""The consistency rules of a document's records: each a named function of the models.

A rule takes an :class:`~atlas.models.AtlasDocument` and returns the
:class:`~atlas.errors.Problem` list it finds (duplicate ids, references to records that do not
exist, conditions that do not fit their atlas, ...), so that every problem is reported at once.
``RECORD_RULES`` lists them in the order they run; :func:`record_problems` runs them all. They
read nothing and need only the models, so that reading an export can check them
(:mod:`atlas.data._integrity`); the consistency check of ``atlas check`` and ``atlas export``
runs them, then the cycle rule, which walks the paths (:mod:`atlas.checks.consistency`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.data._nopathrules import no_path_records
from atlas.errors import Problem
from atlas.models._iri import BASE_IRI

if TYPE_CHECKING:
    from atlas.models import Atlas, AtlasDocument, ConceptScheme, Stage, Step

__all__ = [
    "COLLECTION_KINDS",
    "RECORD_RULES",
    "STAGE_KINDS",
    "TECHNOLOGY_KINDS",
    "Rule",
    "atlas_entries_and_dimensions",
    "citation_sources",
    "iri",
    "no_path_records",
    "record_problems",
    "relation_references",
    "shared_source_urls",
    "stage_references",
    "step_references_and_conditions",
    "technology_kinds",
    "unique_ids",
]

#: A consistency rule: the problems it finds in a document.
Rule = Callable[["AtlasDocument"], list[Problem]]

STAGE_KINDS = "stage-kind"
TECHNOLOGY_KINDS = "technology-kind"

#: Each collection of a document, with the kind of its records (the path segment of their IRI).
COLLECTION_KINDS = {
    "atlases": "atlas",
    "stages": "stage",
    "steps": "step",
    "citations": "citation",
    "sources": "source",
    "technologies": "technology",
    "schemes": "scheme",
    "relations": "relation",
    "noPaths": "nopath",
}
#: The attribute of a document that holds a collection, where it is not the collection's key.
_ATTRIBUTES = {"noPaths": "no_paths"}


def iri(kind: str, local: str) -> str:
    """The IRI of the record ``local`` of the kind ``kind``."""
    return f"{BASE_IRI}{kind}/{local}"


def _bad(kind: str, local: str, message: str, hint: str | None = None, code: str = "") -> Problem:
    return Problem("violation", message, subject=iri(kind, local), hint=hint, code=code)


def _concepts(document: AtlasDocument) -> set[str]:
    return {c.id for s in document.schemes for c in s.values}


def unique_ids(document: AtlasDocument) -> list[Problem]:
    """Every id names one record of its collection."""
    problems = []
    for key, kind in COLLECTION_KINDS.items():
        records = getattr(document, _ATTRIBUTES.get(key, key))
        counted = Counter(item.id for item in records)
        for dup, n in sorted(counted.items()):
            if n > 1:
                urls = sorted(s.url for s in document.sources if s.id == dup and key == "sources")
                shown = "".join(f", <{url}>" for url in urls)
                problems.append(
                    Problem(
                        "violation",
                        f"duplicate id {dup!r} ({n} {key}{shown})",
                        subject=urls[-1] if urls else iri(kind, dup),
                        hint="every id names one record: rename one of them",
                        code="duplicate",
                    )
                )
    return problems


def shared_source_urls(document: AtlasDocument) -> list[Problem]:
    """Sources that share one URL: citations name a source by its URL, so one would hide the other.

    Sources with the same id are one record (reported as a duplicate id), not two.
    """
    ids: dict[str, list[str]] = {}
    for source in document.sources:
        ids.setdefault(source.url, []).append(source.id)
    problems = []
    for url, named in ids.items():
        distinct = sorted(set(named))
        if len(distinct) > 1:
            listed = ", ".join(f"source:{i}" for i in distinct)
            problems.append(
                Problem(
                    "violation",
                    f"sources {listed} have the same URL <{url}> (foaf:page): a citation of it "
                    "could be checked against either snapshot",
                    subject=iri("source", distinct[-1]),
                    hint="one source per document: merge them, or correct the foaf:page of one",
                    code="duplicate-url",
                )
            )
    return problems


def atlas_entries_and_dimensions(document: AtlasDocument) -> list[Problem]:
    """Each atlas enters at one of its stages and branches on non-empty concept schemes."""
    stages = {s.id for s in document.stages}
    schemes = {s.id: s for s in document.schemes}
    with_steps = {s.atlas for s in document.steps}
    problems = []
    for atlas in document.atlases:
        if atlas.dimensions and atlas.entry_stage is None:
            problems.append(
                _bad("atlas", atlas.id, "has dimensions but no entry stage", code="missing")
            )
        elif atlas.entry_stage is not None and atlas.entry_stage not in stages:
            message = f"entry stage {atlas.entry_stage!r} is not a stage"
            problems.append(_bad("atlas", atlas.id, message, code="dangling"))
        for dim in atlas.dimensions:
            if dim not in schemes:
                message = f"dimension {dim!r} is not a concept scheme"
                problems.append(_bad("atlas", atlas.id, message, code="dangling"))
            elif not schemes[dim].values:
                message = f"dimension {dim!r} has no values"
                problems.append(_bad("atlas", atlas.id, message, code="empty-dimension"))
        if not atlas.dimensions and atlas.id in with_steps:
            message = "has steps but declares no dimension"
            problems.append(_bad("atlas", atlas.id, message, code="missing"))
    return problems


def stage_references(document: AtlasDocument) -> list[Problem]:
    """Each stage has a stage kind, known technology and atlases (one at least), known successor."""
    stages = {s.id for s in document.stages}
    atlases = {a.id for a in document.atlases}
    concepts = _concepts(document)
    technologies = {t.id for t in document.technologies}
    problems = []
    for stage in document.stages:
        if not stage.kind.startswith(f"{STAGE_KINDS}/") or stage.kind not in concepts:
            message = f"kind {stage.kind!r} is not a concept of the {STAGE_KINDS!r} scheme"
            hint = "see catalog.ttl for the stage kinds"
            problems.append(_bad("stage", stage.id, message, hint=hint, code="dangling"))
        if stage.technology is not None and stage.technology not in technologies:
            message = f"technology {stage.technology!r} is not a technology"
            problems.append(_bad("stage", stage.id, message, code="dangling"))
        problems.extend(
            _bad("stage", stage.id, f"is part of an unknown atlas {aid!r}", code="dangling")
            for aid in stage.atlases
            if aid not in atlases
        )
        if not stage.atlases:
            hint = "add dcterms:isPartOf atlas:<id>"
            problems.append(
                _bad("stage", stage.id, "is part of no atlas", hint=hint, code="missing")
            )
        if stage.replaced_by is not None and stage.replaced_by not in stages:
            message = f"is replaced by an unknown stage {stage.replaced_by!r}"
            problems.append(_bad("stage", stage.id, message, code="dangling"))
    return problems


def technology_kinds(document: AtlasDocument) -> list[Problem]:
    """Each technology has a technology kind."""
    concepts = _concepts(document)
    return [
        _bad(
            "technology",
            tech.id,
            f"kind {tech.kind!r} is not a concept of the {TECHNOLOGY_KINDS!r} scheme",
            code="dangling",
        )
        for tech in document.technologies
        if not tech.kind.startswith(f"{TECHNOLOGY_KINDS}/") or tech.kind not in concepts
    ]


def step_references_and_conditions(document: AtlasDocument) -> list[Problem]:
    """Each step joins stages of its atlas, and its conditions cover that atlas's dimensions.

    Step by step: first what it names (atlas, stages, successor, values), then its conditions.
    """
    atlases = {a.id: a for a in document.atlases}
    known = _Known(
        stages={s.id: s for s in document.stages},
        steps={s.id: s.atlas for s in document.steps},
        concepts=_concepts(document),
        schemes={s.id: s for s in document.schemes},
    )
    problems = []
    for step in document.steps:
        atlas = atlases.get(step.atlas)
        problems += _step_references(known, step, atlas)
        if atlas is not None:
            problems += _step_conditions(known, step, atlas)
    return problems


@dataclass(frozen=True)
class _Known:
    """The records that the steps name, by id."""

    stages: dict[str, Stage]
    steps: dict[str, str]  # step id -> its atlas
    concepts: set[str]
    schemes: dict[str, ConceptScheme]


def _step_references(known: _Known, step: Step, atlas: Atlas | None) -> list[Problem]:
    """What one step names that does not exist (or is not part of its atlas)."""
    stages, concepts = known.stages, known.concepts
    problems = []
    if atlas is None:
        message = f"belongs to an unknown atlas {step.atlas!r}"
        problems.append(_bad("step", step.id, message, code="dangling"))
    for end, sid in (("from", step.from_stage), ("to", step.to_stage)):
        if sid not in stages:
            message, hint = (
                f"{end}-stage {sid!r} is not a stage",
                f"declare stage:{sid} or fix the id",
            )
            problems.append(_bad("step", step.id, message, hint=hint, code="dangling"))
        elif atlas is not None and atlas.id not in stages[sid].atlases:
            message = f"{end}-stage {sid!r} is not part of atlas {atlas.id!r}"
            hint = f"add dcterms:isPartOf atlas:{atlas.id} to stage:{sid}"
            problems.append(_bad("step", step.id, message, hint=hint, code="dangling"))
    if step.replaced_by is not None and step.replaced_by not in known.steps:
        message = f"is replaced by an unknown step {step.replaced_by!r}"
        problems.append(_bad("step", step.id, message, code="dangling"))
    problems.extend(
        _bad(
            "step", step.id, f"condition {value!r} is not a known dimension value", code="dangling"
        )
        for value in step.when
        if value not in concepts
    )
    if step.branch is not None and step.branch not in concepts:
        message = f"branch {step.branch!r} is not a known concept"
        problems.append(_bad("step", step.id, message, code="dangling"))
    return problems + _read_after(known, step)


def _read_after(known: _Known, step: Step) -> list[Problem]:
    """The step a step is read after is another step of its atlas."""
    after = step.read_after
    if after is None:
        return []
    if after == step.id:
        message, hint = "is read after itself", "drop ea:readAfter or name another step"
    elif after not in known.steps:
        message = f"is read after an unknown step {after!r}"
        hint = f"declare step:{after} or fix the id"
    elif known.steps[after] != step.atlas:
        message = f"is read after step {after!r} of another atlas ({known.steps[after]!r})"
        hint = f"name a step of atlas {step.atlas!r}"
    else:
        return []
    return [_bad("step", step.id, message, hint=hint, code="dangling")]


def _step_conditions(known: _Known, step: Step, atlas: Atlas) -> list[Problem]:
    """One value or 'any' for each dimension of the step's atlas, and none for another one."""
    schemes = known.schemes
    problems = []
    for dim in atlas.dimensions:
        given = [v for v in step.when if v.startswith(dim + "/")]
        if given and dim in step.when_any:
            message = f"gives both values and 'any' for dimension {dim!r}"
            problems.append(_bad("step", step.id, message, code="condition"))
        elif not given and dim not in step.when_any:
            label = schemes[dim].label if dim in schemes else dim
            message = f"has no {label} condition (dimension {dim!r})"
            hint = f"add ea:when <a {label}> or ea:whenAny scheme:{dim}"
            problems.append(_bad("step", step.id, message, hint=hint, code="condition"))
    problems.extend(
        _bad(
            "step",
            step.id,
            f"'any' names {dim!r}, not a dimension of atlas {atlas.id!r}",
            code="condition",
        )
        for dim in step.when_any
        if dim not in atlas.dimensions
    )
    problems.extend(
        _bad(
            "step",
            step.id,
            f"condition {value!r} is not a value of a dimension of atlas {atlas.id!r}",
            code="condition",
        )
        for value in step.when
        if value.split("/", 1)[0] not in atlas.dimensions
    )
    return problems


def relation_references(document: AtlasDocument) -> list[Problem]:
    """Each relation belongs to a known atlas and joins two known technologies."""
    atlases = {a.id for a in document.atlases}
    technologies = {t.id for t in document.technologies}
    problems = []
    for relation in document.relations:
        if relation.atlas not in atlases:
            message = f"belongs to an unknown atlas {relation.atlas!r}"
            problems.append(_bad("relation", relation.id, message, code="dangling"))
        for end, tid in (("from", relation.from_technology), ("to", relation.to_technology)):
            if tid not in technologies:
                message = f"{end}-technology {tid!r} is not a technology"
                problems.append(_bad("relation", relation.id, message, code="dangling"))
    return problems


def citation_sources(document: AtlasDocument) -> list[Problem]:
    """Each citation cites a listed source."""
    sources = {s.url for s in document.sources}
    return [
        _bad(
            "citation",
            citation.id,
            f"cites an unlisted source <{citation.source}>",
            hint="add the source to sources.ttl",
            code="dangling",
        )
        for citation in document.citations
        if citation.source not in sources
    ]


#: The record rules, in the order they run (and their problems are reported).
RECORD_RULES: tuple[Rule, ...] = (
    unique_ids,
    shared_source_urls,
    atlas_entries_and_dimensions,
    stage_references,
    technology_kinds,
    step_references_and_conditions,
    relation_references,
    citation_sources,
    no_path_records,
)


def record_problems(document: AtlasDocument) -> list[Problem]:
    """The problems of every record rule, rule by rule."""
    return [problem for rule in RECORD_RULES for problem in rule(document)]
