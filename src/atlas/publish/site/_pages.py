"""What the templates use: the page of one atlas document, with its views and drawings.

:class:`Page` reads one :class:`~atlas.models.AtlasDocument` through
:class:`atlas.query.paths.Index`: its lookups come from
:class:`~atlas.publish.site._lookups.Lookups`, its texts from
:class:`~atlas.publish.site._texts.Texts`; here are the views of an atlas (every combination of
its dimension values and branches), the data the page script needs, the drawings and the colours
per kind. Nothing here reads files, and every text goes to Jinja2 unescaped (the templates
escape it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from atlas.errors import BranchNotApplicableError
from atlas.publish.site._graph import Drawing, Edge, Node, draw, wrap
from atlas.publish.site._lookups import KIND_SCHEMES, ordered
from atlas.publish.site._texts import Texts
from atlas.publish.site._views import BRANCH_KEY, NONE, SiteError, View, css_token
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
