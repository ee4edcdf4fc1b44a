"""What the templates use: the page of one atlas document, with its views.

:class:`Page` reads one :class:`~atlas.models.AtlasDocument` through
:class:`atlas.query.paths.Index`: its lookups come from
:class:`~atlas.publish.site._lookups.Lookups`, its texts from
:class:`~atlas.publish.site._texts.Texts`; here are the views of an atlas (every combination of
its dimension values and branches), the data the page script needs and the colours per kind
(:mod:`atlas.publish.site._drawings` makes the drawings). Nothing here reads files, and every
text goes to Jinja2 unescaped (the templates escape it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from atlas.errors import BranchNotApplicableError
from atlas.publish.site._lookups import KIND_SCHEMES, ordered
from atlas.publish.site._texts import Texts
from atlas.publish.site._views import BRANCH_KEY, NONE, SiteError, View, css_token, default_view
from atlas.query._atlasindex import value_keys

if TYPE_CHECKING:
    from atlas.models import Atlas, Concept

__all__ = ["Page"]

GOLDEN_ANGLE = 137.508


class Page(Texts):
    """The data and helpers that the templates use, computed from one document."""

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
        return ordered(self.concept(b) for b in named)

    def view_data(self, atlas: Atlas, views: Sequence[View]) -> dict[str, Any]:
        """What the page script needs: the dimensions, the default view, each view's texts.

        Each dimension has its name in the URL (``key``), its label, and its values, each with
        its name, label and the names it may be given in the URL (``keys``, folded). Each view
        names its steps and stages by their places in ``stepIds`` and ``stageIds`` (the page
        script highlights them in the drawing).
        """
        choices = [
            {
                "key": scheme.label,
                "label": scheme.label,
                "values": [
                    {"name": v.name, "label": v.label, "keys": sorted(value_keys(v))}
                    for v in scheme.values
                ],
            }
            for scheme in self.dimensions(atlas)
        ]
        branches = self.branches(atlas)
        if branches:  # a choice of its own: none (the default path), or one branch
            none = {"name": NONE, "label": "the default path", "keys": [NONE, "off"]}
            values = [
                {"name": b.name, "label": b.phrase, "keys": sorted(value_keys(b))} for b in branches
            ]
            choices.append({"key": BRANCH_KEY, "label": "branch", "values": [none, *values]})
        step_ids = list(dict.fromkeys(j.id for v in views for j in v.path.steps))
        stage_ids = list(dict.fromkeys(s.id for v in views for s in v.path.stages))
        position = {step: n for n, step in enumerate(step_ids)}
        place = {stage: n for n, stage in enumerate(stage_ids)}
        describe = self._description(atlas, views)
        return {
            "entry": atlas.entry_stage,
            "default": default_view(views).slug,
            "dimensions": choices,
            "stepIds": step_ids,
            "stageIds": stage_ids,
            # the drawing's description of every view: '{summary}' stands for the view's
            "describe": describe,
            "views": [
                {
                    "slug": v.slug,
                    "values": v.values,
                    "summary": v.path.summary,
                    "steps": [position[j.id] for j in v.path.steps],  # indices in stepIds
                    "stages": [place[s.id] for s in v.path.stages],  # indices in stageIds
                    **({} if describe else {"description": self.describe(atlas, v)}),
                }
                for v in views
            ],
        }

    def _description(self, atlas: Atlas, views: Sequence[View]) -> str | None:
        """The drawing's description of every view, '{summary}' standing for its summary.

        None when the descriptions differ otherwise: each view then carries its own.
        """
        if not views or "{summary}" in self.describe(atlas, views[0]):
            return None
        first = views[0].path.summary
        text = self.describe(atlas, views[0]).replace(first, "{summary}")
        for view in views:
            if text.replace("{summary}", view.path.summary) != self.describe(atlas, view):
                return None
        return text

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
