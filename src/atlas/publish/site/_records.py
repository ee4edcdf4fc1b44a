"""The page of each stage and step, at the path of its IRI: ``stage/<id>/index.html``.

The IRI ``https://w3id.org/execution-atlas/stage/torchdynamo`` has its page at
``/stage/torchdynamo/`` of the site: a folder with an ``index.html``, which every static host
serves at ``/stage/torchdynamo/`` (and at ``/stage/torchdynamo``, adding the slash); ``atlas serve
--site`` redirects a browser asking for the IRI's path to it, and so do the w3id rules
(``w3id/.htaccess``). Each page shows the record as its card on the atlas's reference pages does,
with the steps into and out of a stage, and links to those pages. A retired record
(``deprecated``) keeps its page, which says so and links to the record that replaces it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from atlas.models import Stage, Step
from atlas.publish.site._lookups import SOURCES_PAGE, STAGES_PAGE, STEPS_PAGE, ordered

if TYPE_CHECKING:
    from collections.abc import Iterator

    from atlas.publish.site._pages import Page

__all__ = ["RECORD_KINDS", "record_page", "record_pages"]

#: The kinds of record with a page of their own, at ``<kind>/<id>/index.html``.
RECORD_KINDS = ("stage", "step")
_ROOT = "../../"  # from <kind>/<id>/ to the site's folder


def record_page(kind: str, record_id: str) -> str:
    """The page of a record, relative to the site's folder.

    >>> record_page("stage", "torchdynamo")
    'stage/torchdynamo/index.html'
    """
    return f"{kind}/{record_id}/index.html"


def record_pages(env: Any, page: Page, common: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Each stage's and step's page, retired ones included: its path and its text."""
    template = env.get_template("record.html")
    stages = {s.id: s for s in page.document.stages}
    steps = {s.id: s for s in page.document.steps}
    live = page.steps_of()
    for stage in ordered(stages.values()):
        context = _context(common, "stage", stage, stages.get(stage.replaced_by or ""), stages)
        context.update(
            atlases=stage.atlases,
            into=[s for s in live if s.to_stage == stage.id],
            out_of=[s for s in live if s.from_stage == stage.id],
        )
        yield record_page("stage", stage.id), template.render(**context)
    for step in ordered(steps.values()):
        context = _context(common, "step", step, steps.get(step.replaced_by or ""), stages)
        context["atlases"] = (step.atlas,)
        yield record_page("step", step.id), template.render(**context)


def _context(
    common: dict[str, Any],
    kind: str,
    record: Stage | Step,
    replacement: Stage | Step | None,
    stages: dict[str, Stage],
) -> dict[str, Any]:
    """What the template of a record's page needs, but the atlases it is part of."""
    atlas = (record.atlases or ("",))[0] if isinstance(record, Stage) else record.atlas
    replacement = replacement if record.deprecated else None
    return {
        **common,
        "root": _ROOT,
        "kind": kind,
        "record": record,
        "label": _label(record, stages),
        "replacement": replacement,
        "replacement_label": _label(replacement, stages) if replacement else "",
        # the macros link to the reference pages of the record's (first) atlas, from here
        "stages_page": f"{_ROOT}{atlas}/{STAGES_PAGE}",
        "steps_page": f"{_ROOT}{atlas}/{STEPS_PAGE}",
        "sources_page": f"{_ROOT}{atlas}/{SOURCES_PAGE}",
    }


def _label(record: Stage | Step, stages: dict[str, Stage]) -> str:
    """A stage's label, or a step's 'FX graph — is compiled by → TorchInductor'."""
    if isinstance(record, Stage):
        return record.label
    ends = [stages[s].label if s in stages else s for s in (record.from_stage, record.to_stage)]
    return f"{ends[0]} \u2014 {record.verb} \u2192 {ends[1]}"
