"""Build the explainer site from one :class:`~atlas.models.AtlasDocument` (the JSON export).

Pages: ``index.html`` (every atlas), ``graph.html`` (the full graph), and per atlas
``<atlas>/index.html`` (every combination of its dimensions, switched by ``site.js``) plus one
static page per combination, ``<atlas>/<combination>.html``, readable with JavaScript off.
"""

from __future__ import annotations

import datetime as dt
import re
import time
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from atlas import export
from atlas.errors import AtlasError
from atlas.models import (
    Atlas,
    AtlasDocument,
    Concept,
    ConceptScheme,
    Evidence,
    ExecutionPath,
    Relation,
    Source,
    Stage,
    Step,
    Technology,
)
from atlas.query import Index
from atlas.site._graph import Drawing, Edge, Node, draw, wrap

__all__ = ["BuildReport", "SiteError", "build"]

STAGE_KINDS = "stage-kind"
STATIC_FILES = ("site.css", "site.js")
GOLDEN_ANGLE = 137.508


class SiteError(AtlasError, RuntimeError):
    """The site cannot be built: a missing tool or extra, or data it cannot show."""


@dataclass(frozen=True)
class BuildReport:
    """What :func:`build` wrote: the pages, the page weights and the time it took."""

    outdir: Path
    pages: tuple[Path, ...]
    weights: dict[str, int] = field(default_factory=dict)  # page -> bytes with its CSS and JS
    seconds: float = 0.0

    @property
    def heaviest(self) -> tuple[str, int]:
        """The page with the largest weight and that weight in bytes."""
        return max(self.weights.items(), key=lambda item: (item[1], item[0]))


def css_token(name: str) -> str:
    """A string safe to use as a CSS class or an HTML id: ``+`` and ``.`` are spelled out.

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
        """Dimension name -> value name, e.g. ``{'mode': 'eager', 'device': 'cpu'}``."""
        return {k: c.name for k, c in zip(self.keys, self.path.selection, strict=True)}

    @property
    def fragment(self) -> str:
        """The URL fragment that selects this view, e.g. ``mode=eager&device=cpu``."""
        return urllib.parse.urlencode(self.values)

    @property
    def python_stages(self) -> tuple[Stage, ...]:
        """The stages of the path that the Python interpreter runs."""
        return tuple(s for s in self.path.stages if s.executes_in_python)


class _Site:
    """The data every template needs, computed once per build."""

    def __init__(self, document: AtlasDocument) -> None:
        self.document = document
        self.index = Index(document)
        self.kinds = self.index.schemes.get(STAGE_KINDS)
        self.download = f"execution-atlas-{document.version}.json"
        self.atlases = _ordered(document.atlases)

    # --- lookups used by templates ------------------------------------------------------
    def concept(self, concept_id: str) -> Concept:
        scheme = self.index.schemes.get(concept_id.split("/", 1)[0])
        for value in scheme.values if scheme else ():
            if value.id == concept_id:
                return value
        return Concept(id=concept_id, label=concept_id.split("/", 1)[-1])

    def kind_label(self, concept_id: str) -> str:
        return self.concept(concept_id).label

    def evidence(self, citations: Sequence[str]) -> tuple[Evidence, ...]:
        return self.index.evidence(tuple(citations))

    def stages_of(self, atlas: Atlas) -> list[Stage]:
        return _ordered(s for s in self.document.stages if atlas.id in s.atlases and not s.deprecated)

    def steps_of(self, atlas: Atlas) -> list[Step]:
        return _ordered(s for s in self.document.steps if s.atlas == atlas.id and not s.deprecated)

    def relations_of(self, atlas: Atlas) -> list[Relation]:
        return _ordered(r for r in self.document.relations if r.atlas == atlas.id)

    def dimensions(self, atlas: Atlas) -> list[ConceptScheme]:
        return [self.index.schemes[d] for d in atlas.dimensions if d in self.index.schemes]

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
        return "; ".join(parts) if parts else "always"

    def stage_label(self, stage_id: str) -> str:
        return self.index.stage(stage_id).label

    def atlas_label(self, atlas_id: str) -> str:
        found = self.index.atlases.get(atlas_id)
        return found.label if found else atlas_id

    def technologies(self) -> list[Technology]:
        return _ordered(self.document.technologies)

    def describe_all(self, stages: Sequence[Stage], steps: Sequence[Step]) -> str:
        """The text alternative of the full graph."""
        return (
            f"A top-down drawing of every stage ({len(stages)}, as boxes coloured by kind) and"
            f" every step ({len(steps)}, as labelled arrows) of {self.document.title}."
            " The table below lists the same steps with their conditions."
        )

    def technology_label(self, technology_id: str) -> str:
        tech = self.index.technologies.get(technology_id)
        return tech.label if tech else technology_id

    def kinds_in(self, stages: Iterable[Stage]) -> list[Concept]:
        """The stage kinds used by ``stages``, in the scheme's order."""
        used = {s.kind for s in stages}
        known = [k for k in (self.kinds.values if self.kinds else ()) if k.id in used]
        return known + [self.concept(k) for k in sorted(used - {k.id for k in known})]

    def support(self, step: Step) -> str:
        """How fully the citations of a step support it, e.g. 'full' or '2 full, 1 partial'."""
        levels = [e.citation.support for e in self.evidence(step.citations)]
        full, partial = levels.count("full"), levels.count("partial")
        text = "full" if not partial else "partial" if not full else f"{full} full, {partial} partial"
        if step.unsupported_claims:
            count = len(step.unsupported_claims)
            text += f"; {count} claim{'s' * (count != 1)} not yet sourced"
        return text

    def describe(self, atlas: Atlas, stages: Sequence[Stage], steps: Sequence[Step],
                 view: View | None) -> str:
        """The text alternative of a drawing."""
        text = (
            f"A top-down drawing of the {atlas.label} atlas: {len(stages)} stages drawn as boxes"
            f" coloured by kind, and {len(steps)} steps drawn as labelled arrows."
        )
        if any(s.executes_in_python for s in stages):
            text += " A dashed box groups the stages that run in the Python interpreter."
        if view is not None:
            text += (
                f" Highlighted: {view.path.summary}; every other stage and step is faded."
                " The same path is listed step by step next to the drawing."
            )
        return text

    def view_data(self, atlas: Atlas, views: Sequence[View]) -> dict[str, Any]:
        """What the page script needs: the dimensions, and each view's values and texts."""
        return {
            "dimensions": [
                {
                    "key": scheme.label,
                    "values": [
                        {"name": v.name, "keys": sorted({k.casefold() for k in
                                                         (v.name, v.label, *v.alt_labels)})}
                        for v in scheme.values
                    ],
                }
                for scheme in self.dimensions(atlas)
            ],
            "views": [
                {"slug": v.slug, "values": v.values, "sentence": v.sentence,
                 "title": v.title, "description": self.describe(
                     atlas, self.stages_of(atlas), self.steps_of(atlas), v)}
                for v in views
            ],
        }

    def step_label(self, step: Step) -> str:
        return (
            f"{self.index.stage(step.from_stage).label} \u2014 {step.verb} \u2192 "
            f"{self.index.stage(step.to_stage).label}"
        )

    def report_href(self, step: Step) -> str:
        """A ``mailto:`` link whose subject and body ask for a better source for ``step``."""
        subject = f"Execution Atlas: a better source for step {step.id}"
        body = (
            f"Step {step.id} (atlas {step.atlas}, data version {self.document.version}):\n"
            f"{self.step_label(step)}\n\nWhat is wrong:\n\n"
            "A better source (URL and the exact words that support the step):\n"
        )
        query = urllib.parse.urlencode({"subject": subject, "body": body}, quote_via=urllib.parse.quote)
        return f"mailto:?{query}"

    def sources_of(self, atlas: Atlas) -> list[Source]:
        """The sources quoted by the atlas's stages, steps, relations and their technologies."""
        cited: list[str] = []
        stages = self.stages_of(atlas)
        for record in (*stages, *self.steps_of(atlas), *self.relations_of(atlas)):
            cited.extend(record.citations)
        for tech_id in {s.technology for s in stages if s.technology}:
            tech = self.index.technologies.get(tech_id)
            cited.extend(tech.citations if tech else ())
        urls = {e.source.url: e.source for e in self.evidence(sorted(set(cited)))}
        return sorted(urls.values(), key=lambda s: (s.title.casefold(), s.url))

    def check_dates(self, atlas: Atlas) -> tuple[dt.date, dt.date] | None:
        cited = [c for r in (*self.stages_of(atlas), *self.steps_of(atlas)) for c in r.citations]
        dates = [e.citation.retrieved_on for e in self.evidence(sorted(set(cited)))]
        return (min(dates), max(dates)) if dates else None

    # --- views and drawings -------------------------------------------------------------
    def views(self, atlas: Atlas) -> list[View]:
        if not atlas.dimensions:
            return []
        keys = tuple(s.label for s in self.dimensions(atlas))
        views = [
            View("-".join(css_token(c.name) for c in p.selection), p, keys)
            for p in self.index.all_paths(atlas.id)
        ]
        slugs = [v.slug for v in views]
        if len(set(slugs)) != len(slugs):
            raise SiteError(f"atlas {atlas.id!r}: two combinations share a page name: {slugs!r}")
        return views

    def drawing(self, name: str, stages: Sequence[Stage], steps: Sequence[Step],
                views: Sequence[View] = ()) -> Drawing:
        on_stage: dict[str, list[str]] = {}
        on_step: dict[str, list[str]] = {}
        for view in views:
            for stage in view.path.stages:
                on_stage.setdefault(stage.id, []).append(f"on-{view.slug}")
            for journey_step in view.path.steps:
                on_step.setdefault(journey_step.id, []).append(f"on-{view.slug}")
        nodes = [
            Node(
                id=s.id,
                lines=(*wrap(s.label, 20), self.kind_label(s.kind)),
                classes=("stage", f"kind-{css_token(s.kind.split('/', 1)[-1])}",
                         *(("py",) if s.executes_in_python else ()), *on_stage.get(s.id, ())),
                tooltip=f"{s.label} ({self.kind_label(s.kind)})",
                python=s.executes_in_python,
            )
            for s in stages
        ]
        known = {s.id for s in stages}
        edges = [
            Edge(
                id=s.id, tail=s.from_stage, head=s.to_stage, label=s.verb,
                classes=("step", *on_step.get(s.id, ())),
                tooltip=f"{self.step_label(s)} (when: {self.when(s)})",
            )
            for s in steps
            if s.from_stage in known and s.to_stage in known
        ]
        return draw(name, nodes, edges)

    def kind_css(self) -> str:
        """Colours per stage kind, spread around the hue circle, for light and dark schemes."""
        values = self.kinds.values if self.kinds else ()
        light, dark = [], []
        for i, kind in enumerate(values):
            hue = round((200 + i * GOLDEN_ANGLE) % 360)
            token = f".kind-{css_token(kind.name)}"
            light.append(f"{token}{{--kf:hsl({hue} 70% 91%);--ks:hsl({hue} 45% 38%)}}")
            dark.append(f"{token}{{--kf:hsl({hue} 30% 22%);--ks:hsl({hue} 50% 62%)}}")
        return (
            "\n".join(light)
            + "\n@media (prefers-color-scheme: dark){\n"
            + "\n".join(dark)
            + "\n}"
        )


def _environment() -> Any:
    try:
        import jinja2  # noqa: PLC0415 - an optional extra
    except ImportError:
        raise SiteError(
            "the site needs Jinja2: pip install 'execution-atlas[site]'"
        ) from None
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("atlas.site", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["token"] = css_token
    env.filters["date"] = lambda d: d.isoformat()
    return env


def build(outdir: Path, document: AtlasDocument | None = None) -> BuildReport:
    """Write the whole site for ``document`` (default: the shipped export) into ``outdir``.

    Raises:
        SiteError: Jinja2 is not installed, or the data cannot be shown.
        LayoutError: Graphviz ``dot`` is missing or fails.
    """
    start = time.perf_counter()
    if document is None:
        from atlas.query import load  # noqa: PLC0415

        document = load()
    env = _environment()
    site = _Site(document)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def write(relative: str, text: str) -> None:
        target = outdir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="\n")
        written.append(target)

    static = resources.files("atlas.site") / "static"
    for name in STATIC_FILES:
        write(name, (static / name).read_text(encoding="utf-8"))
    write(site.download, export.dumps(document))

    common = {"site": site, "doc": document, "kind_css": site.kind_css()}
    for atlas in site.atlases:
        stages, steps = site.stages_of(atlas), site.steps_of(atlas)
        views = site.views(atlas)
        drawing = site.drawing(atlas.id, stages, steps, views)
        page = env.get_template("atlas.html")
        context = {**common, "atlas": atlas, "root": "../", "stages": stages, "steps": steps,
                   "views": views, "drawing": drawing}
        write(f"{atlas.id}/index.html", page.render(**context, shown=views, interactive=True))
        for view in views:
            write(
                f"{atlas.id}/{view.file}",
                page.render(**context, shown=[view], interactive=False),
            )
    all_stages = _ordered(s for s in document.stages if not s.deprecated)
    all_steps = _ordered(s for s in document.steps if not s.deprecated)
    full = site.drawing("all", all_stages, all_steps)
    write("graph.html", env.get_template("graph.html").render(
        **common, root="", stages=all_stages, steps=all_steps, drawing=full))
    write("index.html", env.get_template("index.html").render(**common, root=""))

    weights = {}
    css = (outdir / "site.css").stat().st_size
    js = (outdir / "site.js").stat().st_size
    for path in written:
        if path.suffix == ".html":
            text = path.read_text(encoding="utf-8")
            weight = path.stat().st_size + css + (js if "site.js" in text else 0)
            weights[path.relative_to(outdir).as_posix()] = weight
    return BuildReport(outdir, tuple(written), weights, time.perf_counter() - start)
