"""Every verification of the dataset: consistency, quotes, dates (and more, see ``check``).

Each function returns a list of :class:`~atlas.errors.Problem` rather than raising, so that a
report can show every problem at once.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from atlas.checks._claims import SHAPED, ClaimSummary, claim_problems, summaries
from atlas.checks._sourcecheck import markup_problems, quote_problems, source_problems
from atlas.data._files import MAX_TURTLE_BYTES, UnsafeFileError, inside, read_bytes
from atlas.data._quotes import normalise
from atlas.errors import CycleError, DatasetError, Problem
from atlas.models._iri import BASE_IRI

if TYPE_CHECKING:
    from importlib.abc import Traversable

    from atlas.data._fetch import FetchPolicy
    from atlas.data.turtle import TurtleFile
    from atlas.models import Atlas, AtlasDocument

__all__ = [
    "CheckResult",
    "Report",
    "check",
    "consistency_problems",
    "date_problems",
    "export_problems",
    "markup_problems",
    "normalise",
    "quote_problems",
    "source_problems",
]

STAGE_KINDS = "stage-kind"
TECHNOLOGY_KINDS = "technology-kind"


_COLLECTION_KINDS = {
    "atlases": "atlas",
    "stages": "stage",
    "steps": "step",
    "citations": "citation",
    "sources": "source",
    "technologies": "technology",
    "schemes": "scheme",
    "relations": "relation",
}


def _iri(kind: str, local: str) -> str:
    return f"{BASE_IRI}{kind}/{local}"


def consistency_problems(document: AtlasDocument) -> list[Problem]:  # noqa: C901, PLR0912, PLR0915
    """Dangling references, missing citations, uncovered dimensions, duplicates and cycles."""
    problems: list[Problem] = []

    def bad(kind: str, local: str, message: str, hint: str | None = None, code: str = "") -> None:
        problems.append(
            Problem("violation", message, subject=_iri(kind, local), hint=hint, code=code)
        )

    for key, kind in _COLLECTION_KINDS.items():
        counted = Counter(item.id for item in getattr(document, key))
        for dup, n in sorted(counted.items()):
            if n > 1:
                urls = sorted(s.url for s in document.sources if s.id == dup and key == "sources")
                shown = "".join(f", <{url}>" for url in urls)
                problems.append(
                    Problem(
                        "violation",
                        f"duplicate id {dup!r} ({n} {key}{shown})",
                        subject=urls[-1] if urls else _iri(kind, dup),
                        hint="every id names one record: rename one of them",
                        code="duplicate",
                    )
                )
    problems.extend(_shared_url_problems(document))
    stages = {s.id: s for s in document.stages}
    steps = {s.id: s for s in document.steps}
    atlases = {a.id: a for a in document.atlases}
    schemes = {s.id: s for s in document.schemes}
    concepts = {c.id for s in document.schemes for c in s.values}
    sources = {s.url for s in document.sources}
    technologies = {t.id for t in document.technologies}

    with_steps = {s.atlas for s in document.steps}
    atlas: Atlas | None  # each step's atlas, below; None when unknown
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
        if not atlas.dimensions and atlas.id in with_steps:
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

    for tech in document.technologies:
        if not tech.kind.startswith(f"{TECHNOLOGY_KINDS}/") or tech.kind not in concepts:
            bad(
                "technology",
                tech.id,
                f"kind {tech.kind!r} is not a concept of the {TECHNOLOGY_KINDS!r} scheme",
                code="dangling",
            )

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
        if step.branch is not None and step.branch not in concepts:
            bad("step", step.id, f"branch {step.branch!r} is not a known concept", code="dangling")
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

    for citation in document.citations:
        if citation.source not in sources:
            bad(
                "citation",
                citation.id,
                f"cites an unlisted source <{citation.source}>",
                hint="add the source to sources.ttl",
                code="dangling",
            )

    if not any(p.severity == "violation" for p in problems):
        problems.extend(_cycle_problems(document))
    return problems


def _shared_url_problems(document: AtlasDocument) -> list[Problem]:
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
                    subject=_iri("source", distinct[-1]),
                    hint="one source per document: merge them, or correct the foaf:page of one",
                    code="duplicate-url",
                )
            )
    return problems


#: What each record of an export names: its key, and the collection whose ids (for sources:
#: URLs) the value must be. ``concepts`` are the values of the concept schemes.
_REFERENCES: dict[str, tuple[tuple[str, str], ...]] = {
    "atlases": (("entryStage", "stages"), ("dimensions", "schemes")),
    "stages": (
        ("kind", "concepts"),
        ("technology", "technologies"),
        ("atlases", "atlases"),
        ("citations", "citations"),
        ("replacedBy", "stages"),
    ),
    "technologies": (("kind", "concepts"), ("citations", "citations")),
    "steps": (
        ("atlas", "atlases"),
        ("from", "stages"),
        ("to", "stages"),
        ("when", "concepts"),
        ("whenAny", "schemes"),
        ("citations", "citations"),
        ("replacedBy", "steps"),
    ),
    "relations": (
        ("atlas", "atlases"),
        ("from", "technologies"),
        ("to", "technologies"),
        ("citations", "citations"),
    ),
    "citations": (("source", "sources"),),
    "claims": (("citations", "citations"),),
}
_NOUNS = {**_COLLECTION_KINDS, "concepts": "value of a concept scheme", "claims": "claim"}
_CLAIMED = ("atlases", "concepts", "stages", "steps", "technologies", "relations")


_Records = dict[str, list[tuple[list[Any], dict[str, Any]]]]  # collection -> (path, record)
_Found = list[tuple[list[Any], str, str]]  # path of the value at fault, message, code


def _export_records(data: dict[str, Any]) -> _Records:
    """The records of export data per collection, each with its path in the data."""
    found: _Records = {}
    for collection in _NOUNS:
        if collection == "claims":
            continue  # nested in the records that have a text, below
        if collection == "concepts":
            schemes = data.get("schemes")
            items = [
                (["schemes", i, "values", j], value)
                for i, scheme in enumerate(schemes if isinstance(schemes, list) else [])
                if isinstance(scheme, dict) and isinstance(scheme.get("values"), list)
                for j, value in enumerate(scheme["values"])
            ]
        else:
            records = data.get(collection)
            items = (
                [([collection, i], r) for i, r in enumerate(records)]
                if isinstance(records, list)
                else []
            )
        found[collection] = [(path, item) for path, item in items if isinstance(item, dict)]
    found["claims"] = [
        ([*path, "claims", k], claim)
        for owners in _CLAIMED
        for path, owner in found[owners]
        if isinstance(owner.get("claims"), list)
        for k, claim in enumerate(owner["claims"])
        if isinstance(claim, dict)
    ]
    return found


def export_problems(
    data: Any,
    *,
    file: str,
    lines: Mapping[str, int] | Callable[[], Mapping[str, int]] | None = None,
    document: AtlasDocument | None = None,
) -> list[Problem]:
    """What makes export data inconsistent, each problem at its place in the file.

    The ids it holds twice (sources: URLs), and the references to records it does not hold,
    each named by the JSON pointer of the value at fault; when there are none and ``document``
    (the models of ``data``) is given, the other violations of :func:`consistency_problems`,
    at their record. ``data`` matches the JSON Schema; ``lines`` maps JSON pointers to lines
    (or is a function that returns the map, called on the first problem only).

    >>> data = {"stages": [{"type": "Stage", "id": "a"}], "steps": [
    ...     {"type": "Step", "id": "s", "from": "a", "to": "b", "citations": []}]}
    >>> [p.message for p in export_problems(data, file="x.json")]
    ["/steps/0(s)/to: no stage has the id 'b'"]
    """
    from atlas.data import schema  # noqa: PLC0415

    if not isinstance(data, dict):
        return []
    records = _export_records(data)
    found: _Found = []
    known = _known_ids(data, records, found)
    for collection, references in _REFERENCES.items():
        for path, item in records[collection]:
            for key, target in references:
                _dangling(item.get(key), [*path, key], target, known[target], found)
    placed = [
        (
            Problem(
                "violation",
                f"{schema.described_pointer(data, path)}: {message}",
                subject=schema.record_iri(data, path),
                hint=_REFERENCE_HINTS[code],
                code=code,
            ),
            path,
        )
        for path, message, code in found
    ]
    if not placed and document is not None:  # the rest of consistency, at each record's id
        at = {
            schema.record_iri(data, path): path for items in records.values() for path, _ in items
        }
        placed = [
            (
                replace(p, message=f"{schema.described_pointer(data, at[p.subject])}: {p.message}"),
                [*at[p.subject], "id"],
            )
            if p.subject in at
            else (p, [])
            for p in consistency_problems(document)
            if p.severity == "violation"
        ]
    if not placed:
        return []
    table = lines() if callable(lines) else lines  # there are problems: the lines are wanted
    return [
        replace(p, file=file, line=schema.line_of_pointer(table, path) if table else None)
        for p, path in placed
    ]


def _models(data: Any) -> AtlasDocument | None:
    """The document of export data that matches the JSON Schema (None if the models refuse it)."""
    import pydantic  # noqa: PLC0415

    from atlas.models import AtlasDocument  # noqa: PLC0415

    try:
        return AtlasDocument.model_validate(data)
    except pydantic.ValidationError:
        return None


def _known_ids(data: dict[str, Any], records: _Records, found: _Found) -> dict[str, set[str]]:
    """The ids (source URLs) of each collection; each one held twice is added to ``found``."""
    from atlas.data import schema  # noqa: PLC0415
    from atlas.errors import shown  # noqa: PLC0415

    known: dict[str, set[str]] = {}
    for collection, items in records.items():
        for key in ("id", "url") if collection == "sources" else ("id",):
            first: dict[str, list[Any]] = {}
            for path, item in items:
                value = item.get(key)
                if not isinstance(value, str):
                    continue
                if value in first:
                    also = schema.described_pointer(data, first[value])
                    what = f"URL <{value}>" if key == "url" else f"id {shown(value)}"
                    found.append(([*path, key], f"duplicate {what}, also at {also}", "duplicate"))
                else:
                    first[value] = path
            known[collection] = set(first)  # sources: by URL, the key citations name them by
    return known


def _dangling(value: Any, path: list[Any], target: str, known: set[str], found: _Found) -> None:
    """Add to ``found`` each id in ``value`` (an id or a list of ids) that ``known`` lacks."""
    from atlas.errors import shown  # noqa: PLC0415

    named = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
    for index, name in named:
        if isinstance(name, str) and name not in known:
            what = f"URL <{name}>" if target == "sources" else f"id {shown(name)}"
            where = path if index is None else [*path, index]
            found.append((where, f"no {_NOUNS[target]} has the {what}", "dangling"))


_REFERENCE_HINTS = {
    "dangling": "a record names a record the export does not hold; export it again with "
    "'atlas export', which checks every reference",
    "duplicate": "every id (every source URL) names one record; export it again with "
    "'atlas export', which checks them",
}


def _cycle_problems(document: AtlasDocument) -> list[Problem]:
    """The cycles in the paths of each atlas whose steps form a cycle at all.

    A path takes some of its atlas's steps, so an atlas whose live steps form no cycle has no
    path with one: only the others are walked path by path, to name the cycle.
    """
    from graphlib import CycleError as GraphCycleError  # noqa: PLC0415
    from graphlib import TopologicalSorter  # noqa: PLC0415

    from atlas.query.paths import Index  # noqa: PLC0415 - avoid an import cycle

    graphs: dict[str, TopologicalSorter[str]] = {}
    for step in document.steps:
        if not step.deprecated:
            graphs.setdefault(step.atlas, TopologicalSorter()).add(step.to_stage, step.from_stage)
    cyclic = set()
    for atlas_id, graph in graphs.items():
        try:
            graph.prepare()
        except GraphCycleError:
            cyclic.add(atlas_id)
    if not cyclic:
        return []
    problems: list[Problem] = []
    index = Index(document)
    for atlas in document.atlases:
        if atlas.id not in cyclic:
            continue
        try:
            index.all_paths(atlas.id)
        except CycleError as error:
            problems.extend(replace(p, subject=_iri("atlas", atlas.id)) for p in error.problems)
    return problems


def date_problems(
    document: AtlasDocument, *, today: dt.date | None = None, max_age_days: int = 365
) -> list[Problem]:
    """Check dates in the future (violations) and checks older than ``max_age_days`` (warnings)."""
    today = today or dt.datetime.now(dt.UTC).date()
    problems: list[Problem] = []
    for citation in document.citations:
        subject = _iri("citation", citation.id)
        checked = citation.retrieved_on.date()
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
    problems.extend(
        Problem(
            "violation",
            f"snapshot date {source.retrieved_on.date().isoformat()} is in the future",
            subject=source.url,
            hint=f"use the day the snapshot was taken (today is {today})",
            code="future-date",
        )
        for source in document.sources
        if source.retrieved_on.date() > today
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


# --- atlas check ---------------------------------------------------------------------------

CheckStatus = Literal["ran", "skipped", "error"]

_TITLES = {
    "turtle": "Turtle files",
    "shapes": "SHACL shapes",
    "consistency": "consistency",
    "claims": "claim support",
    "dates": "dates",
    "markup": "quote markup",
    "quotes": "quotes against snapshots",
    "online": "quotes online",
    "export": "JSON export",
    "json-schema": "JSON Schema file",
}


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: its problems, or why it was skipped or could not run."""

    name: str
    status: CheckStatus
    problems: tuple[Problem, ...] = ()
    note: str = ""

    @property
    def title(self) -> str:
        """A readable name of the check."""
        return _TITLES.get(self.name, self.name)


@dataclass(frozen=True)
class Report:
    """Every problem ``atlas check`` found, grouped by check.

    >>> report = Report((CheckResult("dates", "ran", (Problem("warning", "old"),)),))
    >>> report.exit_code, report.text().splitlines()[-1]
    (0, 'atlas check: no violations, 1 warning (1 check run)')
    """

    checks: tuple[CheckResult, ...]
    claims: tuple[ClaimSummary, ...] = ()  # how each atlas's claims are backed

    @property
    def problems(self) -> tuple[Problem, ...]:
        """Every problem, check by check."""
        return tuple(p for c in self.checks for p in c.problems)

    @property
    def violations(self) -> tuple[Problem, ...]:
        """The problems that fail the check."""
        return tuple(p for p in self.problems if p.severity == "violation")

    @property
    def warnings(self) -> tuple[Problem, ...]:
        """The problems that are only reported."""
        return tuple(p for p in self.problems if p.severity == "warning")

    @property
    def errors(self) -> tuple[CheckResult, ...]:
        """The checks that could not run."""
        return tuple(c for c in self.checks if c.status == "error")

    @property
    def exit_code(self) -> int:
        """0 when clean (or warnings only), 1 with a violation, 2 when a check could not run."""
        if self.errors:
            return 2
        return 1 if self.violations else 0

    def summary(self) -> str:
        """One line: the counts of violations and warnings, and the checks run and skipped."""
        ran = sum(c.status == "ran" for c in self.checks)
        skipped = [c for c in self.checks if c.status == "skipped"]
        count = len(self.violations)
        head = f"{count} violation{'s' * (count != 1)}" if count else "no violations"
        if self.errors:
            failed = "; ".join(f"{c.title}: {c.note}" for c in self.errors)
            head = f"could not run: {failed}; {head}"
        warnings = len(self.warnings)
        head += f", {warnings} warning{'s' * (warnings != 1)}"
        tail = f"{ran} check{'s' * (ran != 1)} run"
        if skipped:
            tail += ", skipped: " + ", ".join(c.title for c in skipped)
        return f"atlas check: {head} ({tail})"

    def text(self) -> str:
        """The report for people: each check with its problems, then a summary line."""
        lines = []
        for result in self.checks:
            if result.status == "ran":
                violations = sum(p.severity == "violation" for p in result.problems)
                warnings = len(result.problems) - violations
                counts = [
                    f"{n} {word}{'s' * (n != 1)}"
                    for n, word in ((violations, "violation"), (warnings, "warning"))
                    if n
                ]
                state = ", ".join(counts) or "ok"
            elif result.status == "error" and result.problems:  # ran in part
                state = (
                    f"incomplete, {len(result.problems)} problem{'s' * (len(result.problems) != 1)}"
                )
            else:
                state = "skipped" if result.status == "skipped" else "could not run"
            note = f" ({result.note})" if result.note else ""
            lines.append(f"{result.title}: {state}{note}")
            lines.extend(f"  {problem}" for problem in result.problems)
            if result.name == "claims" and self.claims:
                lines.extend(f"  {summary}" for summary in self.claims)
        lines.append(self.summary())
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The report for tools."""
        return {
            "exitCode": self.exit_code,
            "summary": self.summary(),
            "violations": len(self.violations),
            "warnings": len(self.warnings),
            "claims": [summary.to_json() for summary in self.claims],
            "checks": [
                {
                    "name": c.name,
                    "status": c.status,
                    "note": c.note,
                    "problems": [
                        {
                            "severity": p.severity,
                            "message": p.message,
                            "file": p.file,
                            "line": p.line,
                            "subject": p.subject,
                            "hint": p.hint,
                            "code": p.code,
                        }
                        for p in c.problems
                    ],
                }
                for c in self.checks
            ],
        }


class _CouldNotRunError(Exception):
    """A check that cannot run: bad arguments or missing files, not a problem of the data."""

    def report(self) -> Report:
        """The report when reading the Turtle files fails this way."""
        return Report((CheckResult("turtle", "error", note=str(self)),))


def _guarded(name: str, run: Callable[[], list[Problem] | CheckResult]) -> CheckResult:
    try:
        outcome = run()
    except _CouldNotRunError as error:
        return CheckResult(name, "error", note=str(error))
    except Exception as error:  # noqa: BLE001 - a report, never a traceback
        return CheckResult(name, "error", note=f"{type(error).__name__}: {error}")
    if isinstance(outcome, CheckResult):
        return outcome
    return CheckResult(name, "ran", tuple(sorted(outcome, key=_problem_order)))


def _problem_order(problem: Problem) -> tuple[bool, str, int, str, str]:
    return (
        problem.severity != "violation",
        problem.file or "",
        problem.line or 0,
        problem.subject or "",
        problem.message,
    )


class _UnsafeTurtleError(_CouldNotRunError):
    """A Turtle file that may not be read: a violation of the data, not a failure to run."""

    def __init__(self, file: str, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.file, self.reason, self.line = file, reason, line

    def report(self) -> Report:
        """One violation that names the file (and the line, for text that is not UTF-8)."""
        problem = Problem(
            "violation",
            f"Turtle file refused: {self.reason}",
            file=self.file,
            line=self.line,
            hint="the dataset folder holds regular *.ttl files of UTF-8 text, and no symbolic "
            "link out of it",
            code="turtle-unsafe",
        )
        return Report((CheckResult("turtle", "ran", (problem,)),))


def _turtle_files(
    files: Iterable[Path | TurtleFile] | None, folder: Path | None = None
) -> list[TurtleFile]:
    """The Turtle files to check, read; those of a dataset ``folder`` must stay inside it."""
    from atlas.data import _resources  # noqa: PLC0415
    from atlas.data.turtle import TurtleFile  # noqa: PLC0415

    if files is None:
        return [TurtleFile.load(f, f"dataset/{f.name}") for f in _resources.turtle_files()]
    loaded = []
    for item in files:
        if isinstance(item, TurtleFile):
            loaded.append(item)
            continue
        try:
            if folder is not None:  # a symbolic link out is refused, as ea:snapshot's are
                inside(Path(folder), Path(item).name)
            data = read_bytes(Path(item), MAX_TURTLE_BYTES)
        except UnsafeFileError as error:
            raise _UnsafeTurtleError(str(item), str(error)) from None
        except OSError as error:
            raise _CouldNotRunError(f"cannot read {str(item)!r}: {error}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            reason = f"not UTF-8 text: {error.reason} at byte {error.start}"
            line = data.count(b"\n", 0, error.start) + 1
            raise _UnsafeTurtleError(str(item), reason, line) from None
        loaded.append(TurtleFile(str(item), text))
    if not loaded:
        raise _CouldNotRunError("no Turtle files to check")
    return loaded


def _argument_error(
    sources: Path | None, max_age_days: int, export_path: Path | None, dataset: Path | None
) -> CheckResult | None:
    """The first argument that makes the check impossible to run, as an error result."""
    if dataset is not None and not Path(dataset).is_dir():
        return CheckResult("turtle", "error", note=f"--dataset {str(dataset)!r} is not a folder")
    if sources is not None and not Path(sources).is_dir():
        return CheckResult(
            "quotes",
            "error",
            note=f"--sources {str(sources)!r} is not a folder (fill it with 'atlas sources fetch')",
        )
    if max_age_days < 0:
        return CheckResult("dates", "error", note=f"--max-age {max_age_days} is negative")
    if export_path is not None and not Path(export_path).is_file():
        return CheckResult("export", "error", note=f"--export {str(export_path)!r} is not a file")
    return None


class _Parsed:
    """The Turtle files parsed once, with a way to find the file and line of any resource.

    As soon as the files parse, the SHACL engine starts on them in ``pool`` (it releases the
    GIL), while this thread indexes the triples and reads the document.
    """

    def __init__(self, files: list[TurtleFile], pool: ThreadPoolExecutor) -> None:
        from atlas.data import _graph, schema  # noqa: PLC0415

        self.files = files
        self.shapes: Future[list[dict[str, Any]]] | None = None

        def start(n_triples: bytes) -> None:
            self.shapes = pool.submit(schema.shacl_report, n_triples)

        self.graph = _graph.parse(files, written=start)
        self.syntax = self.graph.problems

    def shape_results(self) -> list[dict[str, Any]]:
        """The SHACL engine's results, once it is done."""
        assert self.shapes is not None  # noqa: S101 - started when the files parse
        return self.shapes.result()

    def where(self, iri: str) -> dict[str, Any]:
        """``{"file": ..., "line": ...}`` of the resource ``iri``, or ``{}`` when not found."""
        return self.graph.where(iri)

    def located(self, problems: Iterable[Problem]) -> list[Problem]:
        """The problems, each with the file and line of its resource where it has none."""
        return [
            replace(p, **self.where(p.subject)) if p.subject and not p.file else p for p in problems
        ]


def _turtle_checks(
    parsed: _Parsed, today: dt.date | None, max_age_days: int
) -> tuple[list[CheckResult], AtlasDocument | None]:
    """Reading, shapes, consistency and dates; also returns the document when it reads."""
    from atlas.data import schema, turtle  # noqa: PLC0415

    count = f"{len(parsed.files)} file{'s' * (len(parsed.files) != 1)}"
    if parsed.syntax:
        skipped = [
            CheckResult(name, "skipped", note="the Turtle files do not parse")
            for name in ("shapes", "consistency", "dates", "markup")
        ]
        syntax = tuple(sorted(parsed.syntax, key=_problem_order))
        return [CheckResult("turtle", "ran", syntax, count), *skipped], None
    document = None
    read: list[Problem] = []
    try:
        document = turtle.read_graph(parsed.graph)
    except DatasetError as error:
        read = list(error.problems)
    later: list[CheckResult] = []
    if document is not None:  # checked while the SHACL engine may still run
        doc = document
        later.append(
            _guarded(
                "consistency",
                lambda: parsed.located([*consistency_problems(doc), *source_problems(doc)]),
            )
        )
        later.append(
            _guarded(
                "dates",
                lambda: parsed.located(date_problems(doc, today=today, max_age_days=max_age_days)),
            )
        )
        later.append(_guarded("markup", lambda: parsed.located(markup_problems(doc))))
    shapes = _guarded(
        "shapes",
        lambda: parsed.located(schema.shacl_problems(parsed.graph, results=parsed.shape_results())),
    )
    kept = tuple(sorted(_without_duplicates(read, shapes), key=_problem_order))
    if document is None and not kept:
        count += "; not read, for the reasons the SHACL shapes give"
    results = [CheckResult("turtle", "ran", kept, count), shapes]
    if document is None:
        results += [
            CheckResult(name, "skipped", note="the Turtle files could not be read")
            for name in ("consistency", "dates", "markup")
        ]
        return results, None
    return results + later, document


def _quote_checks(
    parsed: _Parsed,
    document: AtlasDocument | None,
    sources: Path | None,
    online: bool,  # noqa: FBT001 - private helper mirroring check()'s options
    fetch_policy: FetchPolicy | None,
) -> list[CheckResult]:
    """Quotes against local snapshots and, when asked, against the live pages."""
    unread = "the Turtle files could not be read"
    results = []
    if sources is None:
        results.append(CheckResult("quotes", "skipped", note=NO_SOURCES))
    elif document is None:
        results.append(CheckResult("quotes", "skipped", note=unread))
    else:
        doc, snapshots = document, Path(sources)
        results.append(_guarded("quotes", lambda: parsed.located(quote_problems(doc, snapshots))))
    if not online:
        results.append(CheckResult("online", "skipped", note="no --online"))
    elif document is None:
        results.append(CheckResult("online", "skipped", note=unread))
    else:
        from atlas.data.sources import online_problems  # noqa: PLC0415

        doc = document
        fetched = _guarded("online", lambda: parsed.located(online_problems(doc, fetch_policy)))
        results.append(_not_reached(fetched, doc))
    return results


#: What ``atlas check`` says, in one line, when it was given no snapshots to check quotes with.
NO_SOURCES = (
    "quotes not verified: no snapshots given; get them with 'atlas sources fetch', "
    "then run 'atlas check --sources'"
)


def _not_reached(online: CheckResult, document: AtlasDocument) -> CheckResult:
    """The online check, as an error saying how many sources and quotes were not checked."""
    unreached = {p.subject for p in online.problems if p.code == "unreachable"}
    if online.status != "ran" or not unreached:
        return online
    cited = {c.source for c in document.citations}
    quotes = sum(c.source in unreached for c in document.citations)
    note = (
        f"{len(unreached)} of {len(cited)} cited sources were not checked (not reached, or not "
        f"text): their {quotes} quote{'s' * (quotes != 1)} were not verified"
    )
    return replace(online, status="error", note=note)


def check(
    *,
    sources: Path | None = None,
    online: bool = False,
    max_age_days: int = 365,
    today: dt.date | None = None,
    files: Iterable[Path | TurtleFile] | None = None,
    export_path: Path | None = None,
    dataset: Path | None = None,
    fetch_policy: FetchPolicy | None = None,
) -> Report:
    """Run every check of a dataset (default: the shipped one) and report every problem.

    Checks: the Turtle files read cleanly; the SHACL shapes; consistency (references, conditions,
    cycles); dates; quotes against ``sources`` snapshots; quotes online (``online``); the JSON
    export against the JSON Schema and against a fresh export of the Turtle; the committed JSON
    Schema against the models. Nothing is written, and nothing touches the network unless
    ``online`` is true.

    ``dataset`` names a folder whose ``*.ttl`` files (and ``atlas.json`` with ``paths.json``,
    where there are) are checked instead of the shipped ones, the export against a fresh one made
    with the folder's witness records (``witness/*.json``); ``files`` and ``export_path`` name
    them one by one. Without ``sources`` the quotes are not verified (the report says so in one
    line). ``fetch_policy`` sets the limits of the online check, which is an error when it could
    not reach some sources.

    >>> check().exit_code
    0
    """
    error = _argument_error(sources, max_age_days, export_path, dataset)
    if error is not None:
        return Report((error,))
    confine: Path | None = None
    if dataset is not None:
        folder = Path(dataset)
        files = sorted(folder.glob("*.ttl")) if files is None else files
        if export_path is None and os.path.lexists(folder / "atlas.json"):
            export_path = folder / "atlas.json"
            confine = folder  # the dataset's own export: no symbolic link out of its folder
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="atlas-shapes") as pool:
        try:
            parsed = _Parsed(_turtle_files(files, dataset), pool)
        except _CouldNotRunError as failed:
            return failed.report()
        results, document = _turtle_checks(parsed, today, max_age_days)
    claims: tuple[ClaimSummary, ...] = ()
    witnessed: AtlasDocument | None = None
    unread: DatasetError | None = None  # the witness records could not be read
    if document is not None:
        witnessed, unread = _witnessed(document, dataset, shipped=files is None)
        results.append(
            _guarded(
                "claims",
                lambda: parsed.located(
                    [p for p in claim_problems(witnessed or document) if p.code not in SHAPED]
                ),
            )
        )
        claims = summaries(document)
    results += _quote_checks(parsed, document, sources, online, fetch_policy)
    clean = document is not None and not any(
        p.severity == "violation" for r in results for p in r.problems
    )
    compared = _fresh_export(witnessed, unread) if clean and witnessed else None
    if export_path is None and files is None:
        from atlas.data import _resources  # noqa: PLC0415

        shipped = _resources.export_file()
        name = f"dataset/{shipped.name}"

        def shipped_export() -> CheckResult:
            result = _export_check(shipped, name, compared)
            if result.problems:
                return result
            return replace(result, problems=tuple(_path_table_problems(shipped)))

        results.append(_guarded("export", shipped_export))
    elif export_path is None:
        results.append(CheckResult("export", "skipped", note="no --export FILE given"))
    else:
        given = Path(export_path)
        results.append(_guarded("export", lambda: _folder_export_check(given, compared, confine)))
    results.append(_guarded("json-schema", _schema_file_problems))
    return Report(tuple(results), claims)


def _witnessed(
    document: AtlasDocument, dataset: Path | None, *, shipped: bool
) -> tuple[AtlasDocument, DatasetError | None]:
    """The document with its witness records, read once for the claims and the export check.

    Those of the ``dataset`` folder, the shipped ones for the shipped Turtle, none for Turtle
    files given one by one; when they cannot be read, the document alone and why.
    """
    from atlas.data import _dataset, export  # noqa: PLC0415

    try:
        if dataset is not None:
            return export.with_witnesses(document, _dataset.witness_records(dataset)), None
        return (export.with_witnesses(document) if shipped else document), None
    except DatasetError as error:  # reported by the export check; claims then name none
        return document, error


def _fresh_export(document: AtlasDocument, unread: DatasetError | None) -> Callable[[], str]:
    """What 'atlas export' would write now: the document already read and checked.

    It carries its witness records (:func:`_witnessed`); ``unread`` says why they could not be
    read, and is raised when the export is compared.
    """

    def fresh() -> str:
        from atlas.data import export  # noqa: PLC0415

        if unread is not None:
            raise unread
        return export.dumps(document)

    return fresh


def _without_duplicates(read: list[Problem], shapes: CheckResult) -> list[Problem]:
    """Drop reader problems that a SHACL shape already reports for the same resource and key."""
    covered = {(p.subject, p.message.split(":", 1)[0]) for p in shapes.problems if p.subject}
    return [p for p in read if (p.subject, p.message.split(":", 1)[0]) not in covered]


def _export_bytes(
    file: Path | Traversable, name: str, folder: Path | None = None
) -> bytes | CheckResult:
    """The bytes of the export, or the check's result when it is missing or refused."""
    from atlas.data import schema  # noqa: PLC0415

    try:
        if folder is not None:  # a file of a dataset folder stays inside it
            inside(folder, file.name)
        if isinstance(file, Path):
            raw = read_bytes(file, schema.MAX_EXPORT_BYTES)
        else:
            raw = file.read_bytes()
    except FileNotFoundError:
        return CheckResult(
            "export",
            "ran",
            (
                Problem(
                    "violation",
                    "the JSON export is missing",
                    file=name,
                    hint="run 'atlas export'",
                    code="missing",
                ),
            ),
        )
    except UnsafeFileError as error:
        problem = Problem(
            "violation",
            f"the JSON export is refused: {error}",
            file=name,
            hint="the export is a regular file, as 'atlas export' writes it",
            code="unsafe",
        )
        return CheckResult("export", "ran", (problem,))
    except OSError as error:
        raise _CouldNotRunError(f"cannot read {name!r}: {error}") from None
    return raw


def _export_check(
    file: Path | Traversable,
    name: str,
    fresh: Callable[[], str] | None,
    folder: Path | None = None,
) -> CheckResult:
    """The export parses, matches the JSON Schema, and equals ``fresh()``, a fresh export.

    ``fresh`` is None when the Turtle files have violations: no fresh export to compare with.
    ``folder``: the dataset folder that holds ``file``, which must not lead out of it.
    An export equal to the fresh one is not validated again: it is the document that the models
    just validated, and the JSON Schema is generated from them (a check of its own).
    """
    from atlas.data import export, schema  # noqa: PLC0415
    from atlas.models import SCHEMA_URL  # noqa: PLC0415

    raw = _export_bytes(file, name, folder)
    if isinstance(raw, CheckResult):
        return raw
    try:  # strictly: UTF-8, no NaN, bounded numbers and nesting, each refusal with its line
        text, data = schema.load_json(raw, name)
    except DatasetError as error:
        return CheckResult("export", "ran", error.problems)

    @functools.cache
    def lines() -> dict[str, int]:  # the line of each value: only wanted for a problem
        return schema.json_lines(text)

    pointers = {
        "remote-context": "/@context",
        "context": "/@context",
        "schema-version": "/schemaVersion",
    }
    problems = [
        replace(p, line=lines().get(pointers.get(p.code, ""), p.line))
        for p in export._shape_problems(data, name)  # noqa: SLF001 - same package
    ]
    if isinstance(data, dict) and "$schema" in data and data["$schema"] != SCHEMA_URL:
        problems.append(
            Problem(
                "violation",
                f"$schema is {data['$schema']!r}, expected {SCHEMA_URL!r}",
                file=name,
                line=lines().get("/$schema"),
                hint="this package reads exports of its own schema version; export again",
                code="schema-url",
            )
        )
    covered = tuple(pointers[p.code] for p in problems if p.code in pointers)
    now = fresh() if fresh is not None and not problems else None
    if text != now:  # a fresh export of the document just read and checked conforms already
        problems.extend(schema.schema_problems(data, file=name, lines=lines, ignore=covered))
        if not problems:  # well formed: then every id it names must be one of its records
            problems.extend(export_problems(data, file=name, lines=lines, document=_models(data)))
    note = ""
    if fresh is None and not problems:
        note = "not compared with the Turtle files, which have violations"
    elif now is not None and not problems:
        problems.extend(_staleness(text, now, name))
    return CheckResult("export", "ran", tuple(problems), note)


def _folder_export_check(
    file: Path, fresh: Callable[[], str] | None, folder: Path | None
) -> CheckResult:
    """The export check of a given file; for a dataset folder's own export, its table too.

    A witness record of the folder that cannot be read is a violation of the export check.
    """
    from atlas.data import _dataset  # noqa: PLC0415

    try:
        result = _export_check(file, str(file), fresh, folder)
    except DatasetError as error:
        return CheckResult("export", "ran", error.problems)
    table = None if folder is None else Path(folder) / _dataset.TABLE_NAME
    if result.problems or fresh is None or table is None or not os.path.lexists(table):
        return result  # a folder's table is a cache: checked where there is one
    return replace(result, problems=tuple(_folder_table_problems(file, table, folder)))


def _folder_table_problems(export_file: Path, table: Path, folder: Path | None) -> list[Problem]:
    """The table of printed paths beside a folder's export was made from it."""
    from atlas.query import _pathtable  # noqa: PLC0415

    try:
        if folder is not None:
            inside(folder, table.name)
        text = read_bytes(table, MAX_TURTLE_BYTES).decode("utf-8")
        export_text = read_bytes(export_file, MAX_TURTLE_BYTES).decode("utf-8")
    except (UnsafeFileError, UnicodeDecodeError) as error:
        reason = f"refused: {error}"
    except OSError as error:
        raise _CouldNotRunError(f"cannot read {str(table)!r}: {error}") from None
    else:
        if text == _pathtable.dumps(_pathtable.build(export_text)):
            return []
        reason = "stale: not made from the export beside it"
    return [
        Problem(
            "violation",
            f"{reason} ('atlas path' would answer through the models, more slowly)",
            file=str(table),
            hint=f"run 'atlas export --dataset {folder}' and commit the result",
            code="stale" if reason.startswith("stale") else "unsafe",
        )
    ]


def _staleness(text: str, fresh: str, name: str) -> list[Problem]:
    """A violation naming the first line where an export differs from a fresh one."""
    if text == fresh:
        return []
    old_lines, new_lines = text.splitlines(), fresh.splitlines()
    pairs = enumerate(zip(old_lines, new_lines, strict=False), start=1)
    number = next((i for i, (a, b) in pairs if a != b), min(len(old_lines), len(new_lines)) + 1)
    shown = old_lines[number - 1].strip() if number <= len(old_lines) else "<end of file>"
    return [
        Problem(
            "violation",
            f"stale: differs from a fresh export of the Turtle files from line {number} "
            f"({shown[:60]!r})",
            file=name,
            line=number,
            hint="run 'atlas export' and commit the result",
            code="stale",
        )
    ]


def _path_table_problems(export_file: Traversable) -> list[Problem]:
    """The table of printed paths shipped beside the export was made from it."""
    from atlas.data import _resources  # noqa: PLC0415
    from atlas.query import _pathtable  # noqa: PLC0415

    table = _resources.path_table_file()
    name = f"dataset/{table.name}"
    try:
        text: str | None = table.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    if text == _pathtable.dumps(_pathtable.build(export_file.read_text(encoding="utf-8"))):
        return []
    message = (
        "the table of printed paths is missing"
        if text is None
        else "stale: not made from the export beside it"
    )
    return [
        Problem(
            "violation",
            f"{message} ('atlas path' then answers through the models, more slowly)",
            file=name,
            hint="run 'atlas export' and commit the result",
            code="missing" if text is None else "stale",
        )
    ]


def _schema_file_problems() -> list[Problem]:
    """The committed JSON Schema equals the one generated from the models."""
    from atlas.data import _resources, schema  # noqa: PLC0415

    file = _resources.schema_dir() / schema.SCHEMA_NAME
    name = f"schema/{schema.SCHEMA_NAME}"
    try:
        committed = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [
            Problem(
                "violation",
                "the JSON Schema is missing",
                file=name,
                hint="regenerate it: python -m atlas.data.schema",
                code="missing",
            )
        ]
    if committed != schema.dumps_schema():
        return [
            Problem(
                "violation",
                "stale: differs from the schema generated from the models",
                file=name,
                hint="regenerate it: python -m atlas.data.schema",
                code="stale",
            )
        ]
    return []
