"""What the templates show: views of an atlas, drawings, and texts computed from the data.

Everything here reads one :class:`~atlas.models.AtlasDocument` through
:class:`atlas.query.paths.Index`; nothing reads files, and every text goes to Jinja2 unescaped
(the templates escape it).
"""

from __future__ import annotations

import datetime as dt
import re
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atlas.errors import AtlasError, BranchNotApplicableError, UnknownIdError
from atlas.models import (
    Atlas,
    AtlasDocument,
    Claim,
    Concept,
    ConceptScheme,
    Evidence,
    ExecutionPath,
    JourneyStep,
    Relation,
    Source,
    Stage,
    Step,
    Technology,
)
from atlas.publish.site._graph import Drawing, Edge, Node, draw, wrap
from atlas.query.paths import Index, value_keys

if TYPE_CHECKING:
    from atlas.models._witness import Excerpt, StepStatus, WitnessRecord

__all__ = [
    "Page",
    "PathGroup",
    "SiteError",
    "View",
    "Witnessed",
    "css_token",
    "groups",
    "journey",
]

KIND_SCHEMES = ("stage-kind", "technology-kind")
GOLDEN_ANGLE = 137.508
MAX_EXCERPTS = 4  # per record and step; the rest are in the downloadable data
_STATUS_ORDER = ("observed", "not-observed", "not-checked")


class SiteError(AtlasError, RuntimeError):
    """The site cannot be built: no tool or extra, data it cannot show, a folder it must keep."""


#: The URL key of the branch choice (``#mode=...&device=...&branch=graph-breaks``), and its
#: value for the default path.
BRANCH_KEY = "branch"
NONE = "none"


def css_token(name: str) -> str:
    """A string safe to use as a CSS class or an HTML id: other characters are spelled out.

    >>> css_token("c++"), css_token("torch.compile")
    ('c_2b_2b', 'torch_2ecompile')
    """
    return re.sub(r"[^a-z0-9-]", lambda m: f"_{ord(m.group()):x}", name.lower())


def _ordered(records: Iterable[Any]) -> list[Any]:
    return sorted(records, key=lambda r: (r.order is None, r.order or 0, r.id))


@dataclass(frozen=True)
class View:
    """One combination of an atlas's dimension values and its execution path."""

    slug: str
    path: ExecutionPath
    keys: tuple[str, ...]  # the dimension names, as used in the URL fragment
    branch_key: str | None = None  # the key of the branch choice, when the atlas has branches

    @property
    def file(self) -> str:
        """The static page of this combination."""
        return f"{self.slug}.html"

    @property
    def sentence(self) -> str:
        """'Showing torch.compile on an NVIDIA GPU: 12 stages, 12 steps.'."""
        return f"Showing {self.path.summary}."

    @property
    def title(self) -> str:
        """The summary without its counts, e.g. 'torch.compile on an NVIDIA GPU'."""
        return self.path.summary.rsplit(":", 1)[0]

    @property
    def values(self) -> dict[str, str]:
        """Dimension name -> value name, e.g. ``{'mode': 'eager', 'device': 'cpu'}``.

        With branches, their choice too: ``'branch': 'graph-breaks'``, or ``'none'``.
        """
        values = {k: c.name for k, c in zip(self.keys, self.path.selection, strict=True)}
        if self.branch_key is not None:
            values[self.branch_key] = self.path.branches[0].name if self.path.branches else NONE
        return values

    @property
    def fragment(self) -> str:
        """The URL fragment that selects this view, e.g. ``mode=eager&device=cpu``."""
        return urllib.parse.urlencode(self.values)


@dataclass(frozen=True)
class PathGroup:
    """Views whose paths take the same steps: one list of steps serves them all."""

    views: tuple[View, ...]

    @property
    def slugs(self) -> str:
        """The slugs of the views, space-separated (the ``data-views`` attribute)."""
        return " ".join(v.slug for v in self.views)

    @property
    def steps(self) -> tuple[JourneyStep, ...]:
        """The numbered steps of the path."""
        return self.views[0].path.steps

    @property
    def stages(self) -> tuple[Stage, ...]:
        """The stages of the path, in journey order."""
        return self.views[0].path.stages

    @property
    def python_stages(self) -> tuple[Stage, ...]:
        """The stages of the path that the Python interpreter runs."""
        return tuple(s for s in self.stages if s.executes_in_python)

    @property
    def python_ends(self) -> tuple[JourneyStep, ...]:
        """The steps where the model's own operations stop running as individual Python calls."""
        return self.views[0].path.python_ends

    @property
    def explained(self) -> tuple[Concept, ...]:
        """The chosen values that explain where Python ends under them (the modes), in order."""
        return tuple(c for c in self.views[0].path.selection if c.claims)


@dataclass(frozen=True)
class Witnessed:
    """What one witness record showed of one step, over all the modes it ran."""

    record: WitnessRecord
    status: StepStatus  # observed in a mode wins over not-observed, which wins over not-checked
    modes: tuple[str, ...]  # labels of the modes with this status, e.g. ('eager', 'torch.compile')
    evidence: tuple[Excerpt, ...]  # the first excerpts, each once
    more: int  # how many further excerpts the record holds
    notes: tuple[str, ...]  # why a mode did not observe the step, as 'mode: note'

    @property
    def status_text(self) -> str:
        """'observed', 'not observed' or 'not checked'."""
        return self.status.replace("-", " ")

    @property
    def day(self) -> dt.date:
        """The day the run started (UTC)."""
        return self.record.started_at.astimezone(dt.UTC).date()

    @property
    def sentence(self) -> str:
        """'observed on NVIDIA H200 with torch 2.11.0+cu130 on 2026-12-02'."""
        return (
            f"{self.status_text} on {self.record.device_name} with torch"
            f" {self.record.versions.torch} on {self.day.isoformat()}"
        )


def journey(views: Sequence[View]) -> list[JourneyStep]:
    """Every step of these views once: the first view's in journey order, then the others'."""
    found: dict[str, JourneyStep] = {}
    for view in views:
        for item in view.path.steps:
            found.setdefault(item.id, item)
    return list(found.values())


def groups(views: Sequence[View]) -> list[PathGroup]:
    """The views grouped by the steps of their paths, in the order of their first view."""
    found: dict[tuple[str, ...], list[View]] = {}
    for view in views:
        found.setdefault(tuple(j.id for j in view.path.steps), []).append(view)
    return [PathGroup(tuple(members)) for members in found.values()]


class Page:
    """The data and helpers that the templates use, computed from one document."""

    def __init__(self, document: AtlasDocument) -> None:
        self.document = document
        self.index = Index(document)
        self.download = f"execution-atlas-{document.version}.json"
        self.atlases = _ordered(document.atlases)
        self._witnessed = self._witness_index()

    # --- lookups ------------------------------------------------------------------------
    def concept(self, concept_id: str) -> Concept:
        """The concept with this id; an unknown one gets its id's last part as label."""
        try:
            return self.index.concept(concept_id)
        except UnknownIdError:
            return Concept(id=concept_id, label=concept_id.split("/", 1)[-1])

    def kind_label(self, concept_id: str) -> str:
        """The label of a kind, e.g. 'compiler'."""
        return self.concept(concept_id).label

    def evidence(self, citations: Sequence[str]) -> tuple[Evidence, ...]:
        """The citations with their sources."""
        return self.index.evidence(tuple(citations))

    def claim_evidence(self, claims: Sequence[Claim]) -> tuple[Evidence, ...]:
        """The citations of these claims, in order, with their sources."""
        return self.evidence([c for claim in claims for c in claim.citations])

    def stage_label(self, stage_id: str) -> str:
        """The label of a stage."""
        return self.index.stage(stage_id).label

    def technology_label(self, technology_id: str) -> str:
        """The label of a technology (its id when unknown)."""
        tech = self.index.technologies.get(technology_id)
        return tech.label if tech else technology_id

    def atlas_label(self, atlas_id: str) -> str:
        """The label of an atlas (its id when unknown)."""
        found = self.index.atlases.get(atlas_id)
        return found.label if found else atlas_id

    def atlas_names(self, atlas_ids: Iterable[str]) -> str:
        """'the PyTorch and llama.cpp atlases' (in the order of the atlases)."""
        wanted = set(atlas_ids)
        labels = [a.label for a in self.atlases if a.id in wanted]
        labels += sorted(wanted - {a.id for a in self.atlases})
        if len(labels) == 1:
            return f"the {labels[0]} atlas"
        return f"the {', '.join(labels[:-1])} and {labels[-1]} atlases"

    def stages_of(self, atlas: Atlas | None = None) -> list[Stage]:
        """The live stages of an atlas (of every atlas: ``None``), in curated order."""
        return _ordered(
            s
            for s in self.document.stages
            if not s.deprecated and (atlas is None or atlas.id in s.atlases)
        )

    def steps_of(self, atlas: Atlas | None = None) -> list[Step]:
        """The live steps of an atlas (of every atlas: ``None``), in curated order."""
        return _ordered(
            s
            for s in self.document.steps
            if not s.deprecated and (atlas is None or s.atlas == atlas.id)
        )

    def relations_of(self, atlas: Atlas | None = None) -> list[Relation]:
        """The relations between technologies of an atlas (of all: ``None``)."""
        return _ordered(r for r in self.document.relations if atlas is None or r.atlas == atlas.id)

    def technologies(self) -> list[Technology]:
        """Every technology, in curated order."""
        return _ordered(self.document.technologies)

    def dimensions(self, atlas: Atlas) -> list[ConceptScheme]:
        """The concept schemes an atlas's paths vary along."""
        return [self.index.schemes[d] for d in atlas.dimensions if d in self.index.schemes]

    def kinds_in(self, records: Iterable[Stage | Technology]) -> list[Concept]:
        """The kinds used by these stages or technologies, in their scheme's order."""
        used = {r.kind for r in records}
        ordered = [k for scheme in KIND_SCHEMES for k in self._scheme_values(scheme)]
        known = [k for k in ordered if k.id in used]
        return known + [self.concept(k) for k in sorted(used - {k.id for k in known})]

    def _scheme_values(self, scheme_id: str) -> tuple[Concept, ...]:
        scheme = self.index.schemes.get(scheme_id)
        return scheme.values if scheme else ()

    # --- texts --------------------------------------------------------------------------
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

    # --- witness records ----------------------------------------------------------------
    def witnesses_of(self, atlas: Atlas | None = None) -> list[WitnessRecord]:
        """The witness records of an atlas (of every atlas: ``None``), oldest first."""
        return sorted(
            (w for w in self.document.witnesses if atlas is None or w.atlas == atlas.id),
            key=lambda w: (w.started_at, w.id),
        )

    def witnessed(self, step_id: str) -> tuple[Witnessed, ...]:
        """What each witness record showed of a step; records that did not look are left out."""
        return self._witnessed.get(step_id, ())

    def mode_label(self, record: WitnessRecord, mode: str) -> str:
        """The label of a record's mode in its atlas, e.g. 'torch.compile' (else the name)."""
        atlas = self.index.atlases.get(record.atlas)
        for scheme in self.dimensions(atlas) if atlas else []:
            for value in scheme.values:
                if value.name == mode:
                    return value.label
        return mode

    def undocumented(self, record: WitnessRecord) -> list[str]:
        """Ids of steps the record observed that its atlas does not document (or retired)."""
        atlas = self.index.atlases.get(record.atlas)
        known = {s.id for s in self.steps_of(atlas)} if atlas else set()
        return [s for s in record.observed_steps() if s not in known]

    def _witness_index(self) -> dict[str, tuple[Witnessed, ...]]:
        found: dict[str, list[Witnessed]] = {}
        for record in self.witnesses_of():
            by_step: dict[str, list[tuple[str, Any]]] = {}
            for mode in record.modes:
                for observation in mode.steps:
                    by_step.setdefault(observation.step, []).append((mode.mode, observation))
            for step_id, seen in by_step.items():
                status = min((o.status for _, o in seen), key=_STATUS_ORDER.index)
                chosen = [(m, o) for m, o in seen if o.status == status]
                excerpts = list(dict.fromkeys(e for _, o in chosen for e in o.evidence))
                notes = [
                    f"{self.mode_label(record, m)}: {o.note}"
                    for m, o in seen
                    if o.note and (o.status != "observed")
                ]
                found.setdefault(step_id, []).append(
                    Witnessed(
                        record=record,
                        status=status,
                        modes=tuple(dict.fromkeys(self.mode_label(record, m) for m, _ in chosen)),
                        evidence=tuple(excerpts[:MAX_EXCERPTS]),
                        more=max(0, len(excerpts) - MAX_EXCERPTS),
                        notes=tuple(dict.fromkeys(notes)),
                    )
                )
        return {step: tuple(items) for step, items in found.items()}

    # --- technologies and links between atlases -----------------------------------------
    def technology_page(self) -> str | None:
        """The page, relative to the site root, that has an entry for every technology."""
        for atlas in self.atlases:
            if self.relations_of(atlas) and not self.stages_of(atlas):
                return f"{atlas.id}/index.html"
        return "graph.html" if self.document.technologies else None

    def technology_href(self, technology_id: str) -> str | None:
        """The link, relative to the site root, to a technology's entry (``None``: no entry)."""
        page = self.technology_page()
        if page is None or technology_id not in self.index.technologies:
            return None
        return f"{page}#technology-{technology_id}"

    def stages_of_technology(self, technology_id: str) -> list[Stage]:
        """The live stages that belong to a technology, in curated order."""
        return [s for s in self.stages_of() if s.technology == technology_id]

    def stage_href(self, stage: Stage, atlas_id: str | None = None) -> str:
        """The link, relative to the site root, to a stage's card (in ``atlas_id``'s page)."""
        page = atlas_id if atlas_id in stage.atlases else stage.atlases[0]
        return f"{page}/index.html#stage-{stage.id}"

    def shared_stages(self) -> list[Stage]:
        """The live stages that several atlases share, in curated order."""
        return [s for s in self.stages_of() if len(set(s.atlases)) > 1]

    def shared_technologies(self) -> list[tuple[Technology, list[str]]]:
        """Technologies whose stages are in several atlases, with those atlases' ids."""
        found = []
        for tech in self.technologies():
            atlases = {a for s in self.stages_of_technology(tech.id) for a in s.atlases}
            if len(atlases) > 1:
                found.append((tech, [a.id for a in self.atlases if a.id in atlases]))
        return found

    # --- views and drawings -------------------------------------------------------------
    def views(self, atlas: Atlas) -> list[View]:
        """Every combination of the atlas's dimension values (none for an atlas without)."""
        if not atlas.dimensions:
            return []
        keys = tuple(s.label for s in self.dimensions(atlas))
        branches = self.branches(atlas)
        key = BRANCH_KEY if branches else None
        plain = self.index.all_paths(atlas.id)
        found = [
            View("-".join(css_token(c.name) for c in p.selection), p, keys, key) for p in plain
        ]
        for branch in branches:  # each path again with the branch, where it applies
            for view in list(found[: len(plain)]):
                values = tuple(c.id for c in view.path.selection)
                try:
                    path = self.index.path(*values, atlas=atlas.id, branches=(branch.id,))
                except BranchNotApplicableError:
                    continue
                found.append(View(f"{view.slug}-{css_token(branch.name)}", path, keys, key))
        slugs = [v.slug for v in found]
        if len(set(slugs)) != len(slugs):
            raise SiteError(f"atlas {atlas.id!r}: two combinations share a page name: {slugs!r}")
        return found

    def branches(self, atlas: Atlas) -> list[Concept]:
        """The branches of the atlas's steps (graph breaks), in curated order."""
        named = {s.branch for s in self.document.steps if s.atlas == atlas.id and s.branch}
        return _ordered(self.concept(b) for b in named)

    def view_data(self, atlas: Atlas, views: Sequence[View]) -> dict[str, Any]:
        """What the page script needs: the dimensions, and each view's values and texts."""
        choices = [
            {
                "key": scheme.label,
                "values": [{"name": v.name, "keys": sorted(value_keys(v))} for v in scheme.values],
            }
            for scheme in self.dimensions(atlas)
        ]
        branches = self.branches(atlas)
        if branches:  # a choice of its own: none (the default path), or one branch
            none = {"name": NONE, "keys": [NONE, "off"]}
            values = [{"name": b.name, "keys": sorted(value_keys(b))} for b in branches]
            choices.append({"key": BRANCH_KEY, "values": [none, *values]})
        return {
            "entry": atlas.entry_stage,
            "dimensions": choices,
            "views": [
                {
                    "slug": v.slug,
                    "values": v.values,
                    "sentence": v.sentence,
                    "title": v.title,
                    "description": self.describe(atlas, v),
                    "steps": [j.id for j in v.path.steps],
                }
                for v in views
            ],
        }

    def drawing(self, atlas: Atlas | None, views: Sequence[View] = ()) -> Drawing:
        """The drawing of an atlas (``None``: of everything), marked for every view."""
        stages, steps = self.stages_of(atlas), self.steps_of(atlas)
        if not stages and atlas is not None:
            return self._technology_drawing(atlas)
        on_stage: dict[str, list[str]] = {}
        on_step: dict[str, list[str]] = {}
        for view in views:
            for stage in view.path.stages:
                on_stage.setdefault(stage.id, []).append(f"on-{view.slug}")
            for journey_step in view.path.steps:
                on_step.setdefault(journey_step.id, []).append(f"on-{view.slug}")
        shared = {s.id for s in self.shared_stages()} if atlas is None else set()
        nodes = [
            Node(
                id=s.id,
                lines=(*wrap(s.label, 20), self.kind_label(s.kind)),
                classes=(
                    "stage",
                    f"kind-{css_token(s.kind.split('/', 1)[-1])}",
                    *(("shared",) if s.id in shared else ()),
                    *on_stage.get(s.id, ()),
                ),
                tooltip=f"{s.label} ({self.kind_label(s.kind)})"
                + (f"; in {self.atlas_names(s.atlases)}" if s.id in shared else ""),
                python=s.executes_in_python,
            )
            for s in stages
        ]
        known = {s.id for s in stages}
        edges = [
            Edge(
                id=s.id,
                tail=s.from_stage,
                head=s.to_stage,
                label=s.verb,
                classes=("step", *on_step.get(s.id, ())),
                tooltip=f"{self.step_label(s)} (when: {self.when(s)})",
            )
            for s in steps
            if s.from_stage in known and s.to_stage in known
        ]
        return draw(atlas.id if atlas else "all", nodes, edges)

    def _technology_drawing(self, atlas: Atlas) -> Drawing:
        relations = self.relations_of(atlas)
        used = {t for r in relations for t in (r.from_technology, r.to_technology)}
        techs = [t for t in self.technologies() if t.id in used]
        nodes = [
            Node(
                id=t.id,
                lines=(*wrap(t.label, 20), self.kind_label(t.kind)),
                classes=("technology", f"kind-{css_token(t.kind.split('/', 1)[-1])}"),
                tooltip=f"{t.label} ({self.kind_label(t.kind)})",
                element="technology",
            )
            for t in techs
        ]
        edges = [
            Edge(
                id=r.id,
                tail=r.from_technology,
                head=r.to_technology,
                label=r.relation,
                classes=("step", "relation"),
                tooltip=(
                    f"{self.technology_label(r.from_technology)} is {r.relation}"
                    f" {self.technology_label(r.to_technology)}"
                ),
                element="relation",
            )
            for r in relations
        ]
        return draw(atlas.id, nodes, edges)

    def kind_css(self) -> str:
        """Colours per kind, spread around the hue circle, for the light and dark schemes."""
        names: list[str] = []
        for scheme in KIND_SCHEMES:
            names.extend(v.name for v in self._scheme_values(scheme) if v.name not in names)
        light, dark = [], []
        for i, name in enumerate(names):
            hue = round((200 + i * GOLDEN_ANGLE) % 360)
            token = f".kind-{css_token(name)}"
            light.append(f"{token}{{--kf:hsl({hue} 70% 91%);--ks:hsl({hue} 45% 38%)}}")
            dark.append(f"{token}{{--kf:hsl({hue} 30% 22%);--ks:hsl({hue} 50% 62%)}}")
        return "\n".join([*light, "@media (prefers-color-scheme: dark) {", *dark, "}"])
