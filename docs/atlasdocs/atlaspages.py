"""A page per atlas, made from the shipped export: its facts, dimensions, paths and stages.

The paths are the atlas's views: one per combination of its dimension values (and per branch
that applies), each with the command that prints it and its size, computed by ``atlas.path``.
"""

from __future__ import annotations

import shlex
from typing import Any

import atlas
from atlas.models._iri import BASE_IRI
from atlasdocs.markdown import code, escape, table

__all__ = ["atlas_list", "page", "pages"]


def _local(concept_id: str) -> str:
    """The value's own id: ``pytorch-mode/eager`` -> ``eager``."""
    return concept_id.partition("/")[2]


def atlas_list() -> str:
    """The table of the atlases, linking to their pages."""
    rows = []
    for each in atlas.atlases():
        labels = [scheme.label for scheme in atlas.values(each.id)[each.id]]
        rows.append(
            [
                f"[{escape(each.label)}]({each.id}.md)",
                escape(each.question),
                escape(", ".join(labels) or "none"),
                str(_stage_count(each.id)),
            ]
        )
    return table(["atlas", "question", "dimensions", "stages"], rows) + "\n"


def _stage_count(atlas_id: str) -> int:
    return sum(1 for stage in atlas.load().stages if atlas_id in stage.atlases)


def pages() -> dict[str, str]:
    """Each atlas's page, by its path under ``docs/`` (``atlases/ID.md``)."""
    return {f"atlases/{each.id}.md": page(each.id) for each in atlas.atlases()}


def page(atlas_id: str) -> str:
    """The page of one atlas."""
    each = atlas.get(atlas_id)
    schemes = atlas.values(atlas_id)[atlas_id]
    stages = [stage for stage in atlas.load().stages if atlas_id in stage.atlases]
    live = [step for step in atlas.load().steps if step.atlas == atlas_id and not step.deprecated]
    facts = [
        ["id", code(each.id)],
        ["IRI", code(f"{BASE_IRI}atlas/{each.id}")],
        ["entry stage", code(each.entry_stage) if each.entry_stage else "none"],
        ["dimensions", escape(", ".join(s.label for s in schemes) or "none")],
        ["stages", str(len(stages))],
        ["steps", f"{len(live)} (not counting retired ones)"],
        ["paths", str(len(each.journeys))],
    ]
    parts = [f"# {escape(each.label)}", "", f"*{escape(each.question)}*", ""]
    parts += [escape(each.description), "", *(f"- {name}: {value}" for name, value in facts), ""]
    parts += _dimensions(schemes)
    parts += _paths(atlas_id)
    parts += _stages(stages) if stages else _relations(atlas_id)
    if each.scope_notes:
        parts += ["## What it leaves out", "", *(f"- {escape(n)}" for n in each.scope_notes), ""]
    parts += ["## On the command line", "", "```console", f"$ atlas values {atlas_id}"]
    if each.journeys:
        parts.append(f"$ {_command(atlas_id, each.journeys[0].values, ())} --brief")
    parts += ["```", ""]
    return "\n".join(parts)


def _dimensions(schemes: tuple[atlas.ConceptScheme, ...]) -> list[str]:
    parts = ["## Dimensions", ""] if schemes else []
    for scheme in schemes:
        parts += [f"### {escape(scheme.label)}", "", escape(scheme.definition or ""), ""]
        rows = [
            [
                escape(value.label),
                code(value.id),
                escape(", ".join(value.alt_labels) or "none"),
                escape(value.definition or ""),
            ]
            for value in scheme.values
        ]
        parts += [table(["value", "id", "also", "what it means"], rows), ""]
    return parts


def _command(atlas_id: str, values: tuple[str, ...], branches: tuple[str, ...]) -> str:
    schemes = {scheme.id: scheme.label for scheme in atlas.values(atlas_id)[atlas_id]}
    words = ["atlas", "path", "--atlas", atlas_id]
    words += [f"{schemes[value.partition('/')[0]]}={_local(value)}" for value in values]
    for branch in branches:
        words += ["--branch", _local(branch)]
    return shlex.join(words)


def _paths(atlas_id: str) -> list[str]:
    each = atlas.get(atlas_id)
    if not each.journeys:
        return []
    schemes = {scheme.id: scheme.label for scheme in atlas.values(atlas_id)[atlas_id]}
    rows = []
    for journey in each.journeys:
        selection: dict[str, Any] = {
            schemes[v.partition("/")[0]]: _local(v) for v in journey.values
        }
        found = atlas.path(
            atlas=atlas_id, branches=[_local(b) for b in journey.branches], **selection
        )
        rows.append(
            [escape(found.summary), code(_command(atlas_id, journey.values, journey.branches))]
        )
    intro = "Every selection of one value per dimension, and each branch that applies to it:"
    return ["## Paths", "", intro, "", table(["path", "printed by"], rows), ""]


def _stages(stages: list[atlas.Stage]) -> list[str]:
    rows = [
        [
            escape(stage.label),
            code(stage.id),
            code(_local(stage.kind)),
            code(stage.technology) if stage.technology else "",
            "yes" if stage.executes_in_python else "no",
        ]
        for stage in sorted(stages, key=lambda s: (s.order is None, s.order or 0, s.id))
    ]
    header = ["stage", "id", "kind", "technology", "runs as Python"]
    return ["## Stages", "", table(header, rows), ""]


def _relations(atlas_id: str) -> list[str]:
    document = atlas.load()
    labels = {technology.id: technology.label for technology in document.technologies}
    rows = [
        [escape(labels[r.from_technology]), escape(r.relation), escape(labels[r.to_technology])]
        for r in document.relations
        if r.atlas == atlas_id
    ]
    if not rows:
        return []
    return ["## Relations", "", table(["technology", "relation", "technology"], rows), ""]
