"""The site's drawings: what each shows, where its layout comes from, and the shipped layouts.

:func:`drawings` makes the drawing of each atlas and of everything (key ``""``) for a
:class:`~atlas.publish.site._pages.Page`: the boxes and arrows from the data, their layout from
the shipped ``layouts.json`` where it was made from the same layout source, else from Graphviz
``dot``. :func:`write_layouts` makes that file (``atlas export --dataset DIR`` calls it), and
:func:`path_drawings` draws each path of an atlas as one column, for narrow screens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.data import _atomic, _resources
from atlas.publish.site._column import Arrow, Box, column
from atlas.publish.site._graph import Drawing, Edge, Node, PathDrawing, relative, wrap
from atlas.publish.site._layout import Layout, LayoutError, digest, dot_layout, dumps, loads, source
from atlas.publish.site._views import css_token, groups

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from atlas.models import Atlas, AtlasDocument
    from atlas.publish.site._pages import Page
    from atlas.publish.site._views import PathGroup, View

__all__ = ["drawings", "path_drawings", "shipped_layouts", "write_layouts"]

LAYOUTS_NAME = "layouts.json"
ALL = "all"  # the name of the drawing of everything


@dataclass(frozen=True)
class _Spec:
    """What one drawing shows, before it is laid out."""

    name: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    numbered: bool

    @property
    def source(self) -> str:
        return source(
            self.name,
            (n.shape for n in self.nodes),
            (e.wire for e in self.edges),
            numbered=self.numbered,
        )


def _spec(page: Page, atlas: Atlas | None, views: Sequence[View]) -> _Spec:
    """What the drawing of an atlas (``None``: of everything) shows; numbered if it has views.

    Which stages and steps each view takes is in the page's data, not in the drawing.
    """
    stages, steps = page.stages_of(atlas), page.steps_of(atlas)
    if not stages and atlas is not None:
        return _technology_spec(page, atlas)
    shared = {s.id for s in page.shared_stages()} if atlas is None else set()
    home = atlas.id if atlas else None
    nodes = tuple(
        Node(
            id=s.id,
            lines=(*wrap(s.label, 20), page.kind_label(s.kind)),
            classes=(
                "stage",
                f"kind-{css_token(s.kind.split('/', 1)[-1])}",
                *(("shared",) if s.id in shared else ()),
            ),
            tooltip=f"Stage: {s.label} ({page.kind_label(s.kind)})"
            + (f"; in {page.atlas_names(s.atlases)}" if s.id in shared else ""),
            python=s.executes_in_python,
            href=page.stage_href(s, home),
        )
        for s in stages
    )
    known = {s.id for s in stages}
    edges = tuple(
        Edge(
            id=s.id,
            tail=s.from_stage,
            head=s.to_stage,
            label=s.verb,
            classes=("step",),
            tooltip=f"Step: {page.step_label(s)} (when: {page.when(s)})",
            href=page.step_href(s),
        )
        for s in steps
        if s.from_stage in known and s.to_stage in known
    )
    return _Spec(atlas.id if atlas else ALL, nodes, edges, numbered=bool(views))


def _technology_spec(page: Page, atlas: Atlas) -> _Spec:
    relations = page.relations_of(atlas)
    used = {t for r in relations for t in (r.from_technology, r.to_technology)}
    nodes = tuple(
        Node(
            id=t.id,
            lines=(*wrap(t.label, 20), page.kind_label(t.kind)),
            classes=("technology", f"kind-{css_token(t.kind.split('/', 1)[-1])}"),
            tooltip=f"Technology: {t.label} ({page.kind_label(t.kind)})",
            href=page.technology_href(t.id),
        )
        for t in page.technologies()
        if t.id in used
    )
    edges = tuple(
        Edge(
            id=r.id,
            tail=r.from_technology,
            head=r.to_technology,
            label=r.relation,
            classes=("step", "relation"),
            tooltip=(
                f"{page.technology_label(r.from_technology)} is {r.relation}"
                f" {page.technology_label(r.to_technology)}"
            ),
        )
        for r in relations
    )
    return _Spec(atlas.id, nodes, edges, numbered=False)


def _specs(page: Page, views: Mapping[str, Sequence[View]]) -> dict[str, _Spec]:
    """The drawing of each atlas (by id) and of everything (``""``)."""
    atlases = {a.id: a for a in page.atlases}
    return {key: _spec(page, atlases.get(key), views.get(key, ())) for key in [*atlases, ""]}


def shipped_layouts(path: Path | Traversable | None = None) -> dict[str, Layout]:
    """The layouts in ``path`` (default: the shipped ``layouts.json``); none when it is missing.

    Raises:
        LayoutError: the file is not a layouts file.
    """
    where = _resources.layout_file() if path is None else path
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise LayoutError(f"cannot read the layouts {str(where)!r}: {error.strerror}") from None
    return loads(text, repr(str(where)))


def _laid_out(
    specs: Mapping[str, _Spec], known: Mapping[str, Layout], where: str, advice: str
) -> dict[str, Layout]:
    """The layout of each drawing: a known one made from its source, else ``dot``'s.

    Raises:
        LayoutError: ``dot`` is needed and cannot run; the message names the drawings, says
            that ``where`` has no layout for them, and ends with ``advice``.
    """
    sources = {key: spec.source for key, spec in specs.items()}
    found = {}
    for key, spec in specs.items():
        layout = known.get(spec.name)
        if layout is not None and layout.hash == digest(sources[key]):
            found[key] = layout
    missing = [key for key in specs if key not in found]
    if not missing:
        return found
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            laid = pool.map(dot_layout, (sources[k] for k in missing))
            made = dict(zip(missing, laid, strict=True))
    except LayoutError as error:
        names = ", ".join(repr(specs[k].name) for k in missing)
        drawings = "drawing" if len(missing) == 1 else "drawings"
        raise LayoutError(
            f"{error}; it is needed to lay out the {drawings} {names}, which {where} has no"
            f" layout of made from this data; {advice}"
        ) from None
    return found | made


def drawings(page: Page, views: Mapping[str, Sequence[View]]) -> dict[str, Drawing]:
    """The drawing of each atlas (by id) and of everything (key ``""``), laid out.

    Raises:
        LayoutError: a drawing has no current shipped layout, and ``dot`` cannot make one.
    """
    specs = _specs(page, views)
    advice = "install Graphviz, or make the layouts where it is: atlas export --dataset DIR"
    layouts = _laid_out(specs, shipped_layouts(), f"the shipped {LAYOUTS_NAME}", advice)
    atlases = {a.id: a for a in page.atlases}
    return {
        key: Drawing(
            spec.name,
            layouts[key],
            spec.nodes,
            spec.edges,
            spec.numbered,
            tuple(path_drawings(page, atlases[key], views[key])) if key in views else (),
            page.steps_page(atlases[key]) if key in atlases else None,
        )
        for key, spec in specs.items()
    }


def write_layouts(document: AtlasDocument, folder: Path) -> Path:
    """Lay out every drawing of the site for ``document`` into ``folder/layouts.json``.

    A layout already in that file and made from the same source is kept; the others are made
    by ``dot``. The file is written atomically.

    Raises:
        LayoutError: a drawing needs ``dot``, and it is missing or fails.
    """
    from atlas.publish.site._pages import Page  # noqa: PLC0415 - the page imports this module

    page = Page(document)
    specs = _specs(page, {a.id: page.views(a) for a in page.atlases})
    target = Path(folder) / LAYOUTS_NAME
    advice = f"{LAYOUTS_NAME} was left as it was"
    layouts = _laid_out(specs, shipped_layouts(target), repr(str(target)), advice)
    text = dumps({specs[key].name: layout for key, layout in layouts.items()})
    _atomic.write_text_atomic(target, text)
    return target


def path_drawings(page: Page, atlas: Atlas, views: Sequence[View]) -> list[PathDrawing]:
    """Each path of these views drawn as one column (views that share a path share it)."""
    return [PathDrawing(group.slugs, _column(page, atlas, group)) for group in groups(views)]


def _column(page: Page, atlas: Atlas, group: PathGroup) -> str:
    boxes = [
        Box(
            id=s.id,
            name=s.label,
            kind=page.kind_label(s.kind),
            classes=("stage", f"kind-{css_token(s.kind.split('/', 1)[-1])}"),
            tooltip=f"Stage: {s.label} ({page.kind_label(s.kind)})",
            href=relative(page.stage_href(s, atlas.id), "../", f"{atlas.id}/"),
            python=s.executes_in_python,
        )
        for s in group.stages
    ]
    arrows = [
        Arrow(
            id=j.id,
            tail=j.from_stage.id,
            head=j.to_stage.id,
            number=j.number,
            label=j.step.verb,
            tooltip=f"Step {j.number}: {j.label}",
            href=f"#step-{j.id}",  # the step in the page's list
        )
        for j in group.steps
    ]
    title = group.views[0].title
    return column(boxes, arrows, label=f"The path, one stage under the other: {title}")
