"""A journey: one selection of an atlas's dimension values, and its path's steps in order.

The export carries every selection's journey (``Atlas.journeys``), so that a reader of the JSON
gets the order ``atlas path`` prints without recomputing it; :data:`JOURNEY_ORDER` states the rule
that computes it (:mod:`atlas.query._atlasindex`). No I/O here.
"""

from __future__ import annotations

from pydantic import Field

from atlas.models._base import ConceptId, Id, _Model

__all__ = ["JOURNEY_ORDER", "Journey"]

#: How a journey's steps are ordered: stated once, in the JSON Schema of the export too.
JOURNEY_ORDER = (
    "The journey order is computed from the steps, never curated as such. A step is part of a "
    "path when it is not deprecated, when for every dimension the chosen value is in its 'when' "
    "or the dimension is in its 'whenAny', and when it is in no branch or in a branch asked for. "
    "The stages that the atlas's live steps join (branch steps included) are sorted "
    "topologically (Kahn's algorithm: of the stages whose incoming steps all come from stages "
    "already sorted, the one with the lowest 'order' comes next, a stage without one after "
    "those with one, then the lower id); the path's steps "
    "are sorted by the position of their 'from' stage in that order (ties: the lower step "
    "'order', then id), and only the steps whose 'from' stage the path reaches from the entry "
    "stage are kept. (Where the atlas's steps form a cycle as a whole, the same sort is made "
    "over each path's own steps.)"
)


class Journey(_Model):
    """One selection of an atlas's dimension values, with its path's steps in journey order."""

    values: tuple[ConceptId, ...] = Field(
        description=(
            "The chosen value of each dimension, in the order of the atlas's dimensions, e.g. "
            "['pytorch-mode/eager', 'pytorch-device/cpu']."
        )
    )
    branches: tuple[ConceptId, ...] = Field(
        (),
        description=(
            "The branches asked for, e.g. ['pytorch-branch/graph-breaks']; empty for the "
            "default path."
        ),
    )
    steps: tuple[Id, ...] = Field(
        description=(
            "The ids of the path's steps in journey order: the order in which 'atlas path' and "
            "atlas.path() number them (1, 2, 3...). " + JOURNEY_ORDER
        )
    )
