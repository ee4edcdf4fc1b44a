"""The records of one atlas document as the site shows them: looked up, labelled and ordered.

:class:`Lookups` is the base of :class:`~atlas.publish.site._pages.Page`: it finds records by
id (an unknown one gets a stand-in label), lists the live records of an atlas in curated order,
reads the witness records, and links technologies, stages and steps across atlases and to the
reference pages of each atlas (:data:`STAGES_PAGE`, :data:`STEPS_PAGE`, :data:`SOURCES_PAGE`).
It keeps the issue tracker that pages link to. Nothing here reads files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from atlas.errors import UnknownIdError
from atlas.models import (
    Atlas,
    AtlasDocument,
    Claim,
    Concept,
    ConceptScheme,
    Evidence,
    Relation,
    Stage,
    Step,
    Technology,
)
from atlas.publish.site._views import tracker
from atlas.publish.site._witnessed import Witnessed, witness_index
from atlas.query._index import Index

if TYPE_CHECKING:
    from atlas.models._witness import WitnessRecord

__all__ = ["KIND_SCHEMES", "SOURCES_PAGE", "STAGES_PAGE", "STEPS_PAGE", "Lookups", "ordered"]

KIND_SCHEMES = ("stage-kind", "technology-kind")
# the reference pages of an atlas, beside its view pages
STAGES_PAGE = "stages.html"
STEPS_PAGE = "steps.html"
SOURCES_PAGE = "sources.html"


def _count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


def ordered(records: Iterable[Any]) -> list[Any]:
    """The records in curated order: by their ``order``, those without one last, then by id."""
    return sorted(records, key=lambda r: (r.order is None, r.order or 0, r.id))


class Lookups:
    """The records of one document, found by id and listed per atlas, for the templates."""

    def __init__(self, document: AtlasDocument, issues_url: str | None = None) -> None:
        """``issues_url``: the issue tracker (default: the one the dataset's metadata names)."""
        self.document = document
        contact = document.contact_point
        self.tracker = tracker(issues_url or (contact.url if contact else None))
        self.index = Index(document)
        self.download = f"execution-atlas-{document.version}.json"
        self.atlases = ordered(document.atlases)
        self._witnessed = witness_index(self.witnesses_of(), self.mode_label)

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
        return ordered(
            s
            for s in self.document.stages
            if not s.deprecated and (atlas is None or atlas.id in s.atlases)
        )

    def steps_of(self, atlas: Atlas | None = None) -> list[Step]:
        """The live steps of an atlas (of every atlas: ``None``), in curated order."""
        return ordered(
            s
            for s in self.document.steps
            if not s.deprecated and (atlas is None or s.atlas == atlas.id)
        )

    def relations_of(self, atlas: Atlas | None = None) -> list[Relation]:
        """The relations between technologies of an atlas (of all: ``None``)."""
        return ordered(r for r in self.document.relations if atlas is None or r.atlas == atlas.id)

    def technologies(self) -> list[Technology]:
        """Every technology, in curated order."""
        return ordered(self.document.technologies)

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

    def witnessed_briefly(self, step_id: str) -> list[tuple[str, str, list[str]]]:
        """What the runs showed of a step, by status: its class, its words, the devices.

        E.g. ``[("observed", "observed", ["NVIDIA H200", "AMD EPYC"])]``.
        """
        found: dict[str, list[str]] = {}
        words: dict[str, str] = {}
        for item in self.witnessed(step_id):
            devices = found.setdefault(item.status, [])
            words[item.status] = item.status_text
            if item.record.device_name not in devices:
                devices.append(item.record.device_name)
        return [(status, words[status], devices) for status, devices in found.items()]

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

    # --- technologies and links between atlases -----------------------------------------
    def technology_page(self) -> str | None:
        """The page, relative to the site root, that has an entry for every technology."""
        found = self.technology_atlas()
        if found is not None:
            return f"{found.id}/index.html"
        return "graph.html" if self.document.technologies else None

    def technology_href(self, technology_id: str) -> str | None:
        """The link, relative to the site root, to a technology's entry (``None``: no entry)."""
        page = self.technology_page()
        if page is None or technology_id not in self.index.technologies:
            return None
        return f"{page}#technology-{technology_id}"

    def technology_atlas(self) -> Atlas | None:
        """The atlas of technologies and their relations (one without stages), if there is one."""
        return next(
            (a for a in self.atlases if self.relations_of(a) and not self.stages_of(a)), None
        )

    def technology_atlas_name(self) -> str:
        """'the Technologies atlas', or 'the full graph' where no atlas lists the technologies."""
        found = self.technology_atlas()
        return f"the {found.label} atlas" if found else "the full graph"

    def technologies_in(self, atlas: Atlas) -> list[Technology]:
        """The technologies of an atlas's stages, in the stages' order (none for its own atlas)."""
        if atlas is self.technology_atlas():
            return []
        ids = dict.fromkeys(s.technology for s in self.stages_of(atlas) if s.technology)
        return [self.index.technologies[t] for t in ids if t in self.index.technologies]

    def atlases_with_paths(self) -> list[Atlas]:
        """The atlases whose pages show execution paths (those with dimensions), in order."""
        return [a for a in self.atlases if a.dimensions]

    def stages_of_technology(self, technology_id: str) -> list[Stage]:
        """The live stages that belong to a technology, in curated order."""
        return [s for s in self.stages_of() if s.technology == technology_id]

    def stage_href(self, stage: Stage, atlas_id: str | None = None) -> str:
        """The link, relative to the site root, to a stage's card (in ``atlas_id``'s pages)."""
        page = atlas_id if atlas_id in stage.atlases else stage.atlases[0]
        return f"{page}/{STAGES_PAGE}#stage-{stage.id}"

    def step_href(self, step: Step) -> str:
        """The link, relative to the site root, to a step's entry among every step."""
        return f"{step.atlas}/{STEPS_PAGE}#step-{step.id}"

    def steps_page(self, atlas: Atlas) -> str:
        """The page of every step of an atlas, relative to the site root."""
        return f"{atlas.id}/{STEPS_PAGE}"

    def counts(self, atlas: Atlas) -> str:
        """What an atlas holds, e.g. '12 stages, 19 steps' or '25 technologies, 24 relations'."""
        stages, steps = len(self.stages_of(atlas)), len(self.steps_of(atlas))
        if stages or steps:
            return f"{_count(stages, 'stage')}, {_count(steps, 'step')}"
        # the page of an atlas of technologies lists every technology, and its relations
        technologies = _count(len(self.document.technologies), "technology", "technologies")
        return f"{technologies}, {_count(len(self.relations_of(atlas)), 'relation')}"

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
