"""Write the explainer site for one :class:`~atlas.models.AtlasDocument` (the JSON export).

Pages: ``index.html`` (every atlas), ``graph.html`` (the full graph), and per atlas
``<atlas>/index.html`` (every combination of its dimensions, switched by ``site.js``) plus one
static page per combination, ``<atlas>/<combination>.html``, readable with JavaScript off.
"""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas import export
from atlas.site._pages import Page, SiteError, View, css_token, groups, journey

if TYPE_CHECKING:
    from atlas.models import AtlasDocument
    from atlas.site._graph import Drawing

__all__ = ["BuildReport", "build"]

STATIC_FILES = ("site.css", "site.js")
_INDENT = re.compile(r"\n[ \t]+")


@dataclass(frozen=True)
class BuildReport:
    """What :func:`build` wrote: the files, each page's weight and the time it took."""

    outdir: Path
    files: tuple[Path, ...]
    weights: dict[str, int] = field(default_factory=dict)  # page -> bytes, with its CSS and JS
    seconds: float = 0.0

    @property
    def heaviest(self) -> tuple[str, int]:
        """The page with the largest weight, and that weight in bytes."""
        return max(self.weights.items(), key=lambda item: (item[1], item[0]))


def _environment() -> Any:
    try:
        import jinja2  # noqa: PLC0415 - an optional extra
    except ImportError:
        raise SiteError("the site needs Jinja2: pip install 'execution-atlas[site]'") from None
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("atlas.site", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["token"] = css_token
    env.filters["date"] = lambda day: day.isoformat()
    return env


def build(outdir: Path, document: AtlasDocument | None = None) -> BuildReport:
    """Write the whole site for ``document`` (default: the shipped export) into ``outdir``.

    Existing files of the same names are replaced; other files are left alone.

    Raises:
        SiteError: Jinja2 is not installed, or the data cannot be shown.
        LayoutError: Graphviz ``dot`` is missing or fails.
    """
    start = time.perf_counter()
    if document is None:
        from atlas.query import load  # noqa: PLC0415

        document = load()
    env = _environment()
    page = Page(document)
    outdir = Path(outdir)
    written: list[Path] = []

    def write(relative: str, text: str) -> None:
        if relative.endswith(".html"):
            text = _INDENT.sub("\n", text)  # the templates' indentation is not content
        target = outdir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="\n")
        written.append(target)

    static = resources.files("atlas.site") / "static"
    for name in STATIC_FILES:
        write(name, (static / name).read_text(encoding="utf-8"))
    write(page.download, export.dumps(document))

    common = {"site": page, "doc": document, "kind_css": page.kind_css()}
    template, reference = env.get_template("atlas.html"), env.get_template("_reference.html")
    markup = env.filters["safe"]
    all_views = {atlas.id: page.views(atlas) for atlas in page.atlases}
    drawings = _drawings(page, all_views)
    for atlas in page.atlases:
        views = all_views[atlas.id]
        context = {
            **common,
            "root": "../",
            "atlas": atlas,
            "views": views,
            "stages": page.stages_of(atlas),
            "steps": page.steps_of(atlas),
            "relations": page.relations_of(atlas),
            "drawing": drawings[atlas.id],
        }
        # The reference sections are the same on every page of an atlas: render them once.
        context["reference"] = markup(reference.render(**context))
        write(
            f"{atlas.id}/index.html",
            template.render(
                **context,
                shown=views,
                groups=groups(views),
                journey=journey(views),
                interactive=True,
            ),
        )
        for view in views:
            write(
                f"{atlas.id}/{view.file}",
                template.render(
                    **context,
                    shown=[view],
                    groups=groups([view]),
                    journey=journey([view]),
                    interactive=False,
                ),
            )
    write(
        "graph.html",
        env.get_template("graph.html").render(
            **common,
            root="",
            stages=page.stages_of(),
            steps=page.steps_of(),
            shared=page.shared_stages(),
            drawing=drawings[""],
        ),
    )
    write("index.html", env.get_template("index.html").render(**common, root=""))
    return BuildReport(
        outdir, tuple(written), _weights(outdir, written), time.perf_counter() - start
    )


def _drawings(page: Page, views: dict[str, list[View]]) -> dict[str, Drawing]:
    """The drawing of each atlas and of everything (key ``""``), laid out by ``dot`` in parallel."""
    atlases = {a.id: a for a in page.atlases}
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {
            key: pool.submit(page.drawing, atlases.get(key), views.get(key, ()))
            for key in [*atlases, ""]
        }
        return {key: future.result() for key, future in futures.items()}


def _weights(outdir: Path, written: list[Path]) -> dict[str, int]:
    """Each page's bytes plus those of the stylesheet and script it loads."""
    extra = {name: (outdir / name).stat().st_size for name in STATIC_FILES}
    weights = {}
    for path in written:
        if path.suffix == ".html":
            text = path.read_text(encoding="utf-8")
            loads = sum(size for name, size in extra.items() if f'{name}"' in text)
            weights[path.relative_to(outdir).as_posix()] = len(text.encode()) + loads
    return weights
