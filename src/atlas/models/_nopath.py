"""A selection that has no path: the combination does not exist, or the sources do not cover it.

Some combinations of an atlas's dimension values have no execution path of their own
(``reduce-overhead`` on a CPU: PyTorch silently runs plain ``torch.compile`` there), and some are
not covered by the atlas's sources yet. Without a record saying so, the path index would answer
such a selection with the few steps that apply under any value: a truncated path. A
:class:`NoPath` names the selection (one value per dimension, ``ea:when``) and why it has no
path; ``atlas path`` and :func:`atlas.path` then answer with an error that says so.
"""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import Field, computed_field

from atlas.models._base import ConceptId, Id, Text, _Cited, _joined

__all__ = ["NO_PATH_REASONS", "NoPath"]

#: The reasons a selection has no path (``ea:noPathReason``).
NO_PATH_REASONS = ("does-not-exist", "not-covered")


class NoPath(_Cited):
    """A selection (one value per dimension) that has no path, and why.

    ``does-not-exist``: the combination does not exist in the tool; its claims say why (cited
    as any claim), and ``see_path`` may name the value that gives the path that really runs.
    ``not-covered``: the atlas's sources do not cover it yet; ``note`` says what is missing.
    A no-path record wins over steps: its selection has no path, whatever steps apply under it.
    """

    type: Literal["NoPath"] = Field("NoPath", description="Always 'NoPath' (ea:NoPath).")
    id: Id = Field(description="The record's id, e.g. 'pytorch-reduce-overhead-cpu'.")
    atlas: Id = Field(description="The atlas the selection belongs to (dcterms:isPartOf).")
    when: tuple[ConceptId, ...] = Field(
        min_length=1,
        description="The selection: one value of each dimension of the atlas (ea:when).",
    )
    reason: Literal["does-not-exist", "not-covered"] = Field(
        description=(
            "Why there is no path (ea:noPathReason): 'does-not-exist' (the combination does "
            "not exist; its claims say why) or 'not-covered' (the sources do not cover it yet)."
        )
    )
    see_path: ConceptId | None = Field(
        None,
        description=(
            "A value to put in place of the selection's value of the same dimension, for the "
            "path that really runs (ea:seePath), e.g. 'pytorch-mode/torch-compile'."
        ),
    )
    note: Text | None = Field(
        None,
        description="A curator's note (skos:editorialNote): for 'not-covered', what is missing.",
    )

    @computed_field(  # type: ignore[prop-decorator]
        description="Why there is no path: its claims joined in order. Outside the JSON-LD "
        "context (dropped by JSON-LD processors): derived from the claims, which are in the graph."
    )
    @functools.cached_property
    def explanation(self) -> str:
        """Why there is no path: its claims joined in order."""
        return _joined(self.claims)
