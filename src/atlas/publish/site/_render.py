"""The files of the site, rendered from one document: every page's path and text.

Per atlas with paths: ``<atlas>/index.html`` (every combination of its dimensions, switched by
``site.js``, opening on :func:`~atlas.publish.site._views.default_view`; what only the other
combinations show is in ``<atlas>/views.js``, see :mod:`atlas.publish.site._deferred`), one
static page per combination (``<atlas>/<combination>.html``, readable with JavaScript off), and
the reference pages beside them: every stage (``stages.html``), every step (``steps.html``),
and the sources and witness runs (``sources.html``). An atlas of technologies gets its page and
its sources. Each stage and step has a page at the path of its IRI (``stage/<id>/index.html``,
see :mod:`atlas.publish.site._records`).
Then ``graph.html`` (the full graph) and ``index.html`` (every atlas). The pages share
``site.js`` and ``site.css``, which ends with the colours of each kind in the data.
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING, Any

from atlas.data import export
from atlas.publish.site._deferred import DEFERRED_FILE, Deferred
from atlas.publish.site._drawings import drawings as laid_out
from atlas.publish.site._lookups import SOURCES_PAGE, STAGES_PAGE, STEPS_PAGE
from atlas.publish.site._pages import Page
from atlas.publish.site._records import record_page, record_pages
from atlas.publish.site._texts import first_sentence
from atlas.publish.site._views import (
    SiteError,
    View,
    css_token,
    default_view,
    journey,
    python_parts,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from atlas.models import Atlas, AtlasDocument
    from atlas.publish.site._graph import Drawing

__all__ = ["STATIC_FILES", "environment", "site_files"]

STATIC_FILES = ("site.css", "site.js")


def environment() -> Any:
    """The Jinja2 environment of the templates (autoescaped, strict about undefined names)."""
    try:
        import jinja2  # noqa: PLC0415 - an optional extra
    except ImportError:
        raise SiteError("the site needs Jinja2: pip install 'execution-atlas[site]'") from None
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("atlas.publish.site", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["token"] = css_token
    env.filters["first_sentence"] = first_sentence
    env.globals.update(stages_page=STAGES_PAGE, steps_page=STEPS_PAGE, sources_page=SOURCES_PAGE)
    env.globals["record_page"] = record_page
    # a check time is shown as its day (pav:retrievedOn is a date-time, midnight UTC here)
    env.filters["date"] = lambda moment: getattr(moment, "date", lambda: moment)().isoformat()
    return env


def site_files(
    document: AtlasDocument, env: Any, issues_url: str | None = None
) -> Iterator[tuple[str, str]]:
    """Each file of the site: its path relative to the site's folder, and its text."""
    page = Page(document, issues_url)
    static = resources.files("atlas.publish.site") / "static"
    for name in STATIC_FILES:
        text = (static / name).read_text(encoding="utf-8")
        if name == "site.css":  # the colours of the kinds, from the data: once for every page
            text += f"\n/* the colours of each kind of stage and technology */\n{page.kind_css()}\n"
        yield name, text
    yield page.download, export.dumps(document)

    common = {"site": page, "doc": document}
    all_views = {atlas.id: page.views(atlas) for atlas in page.atlases}
    drawings = laid_out(page, all_views)  # a drawing per atlas, and of everything ("")
    for atlas in page.atlases:
        context = {
            **common,
            "root": "../",
            "atlas": atlas,
            "views": all_views[atlas.id],
            "stages": page.stages_of(atlas),
            "steps": page.steps_of(atlas),
            "relations": page.relations_of(atlas),
        }
        yield from _atlas_pages(env, context, drawings[atlas.id])
    yield from record_pages(env, page, common)
    yield (
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
    yield "index.html", env.get_template("index.html").render(**common, root="")


def _atlas_pages(env: Any, context: dict[str, Any], drawing: Drawing) -> Iterator[tuple[str, str]]:
    """The pages of one atlas: its views (or its one page), then its reference pages."""
    atlas: Atlas = context["atlas"]
    views: list[View] = context["views"]
    template = env.get_template("atlas.html")
    shown = [default_view(views)] if views else []

    def page(
        first: list[View],
        others: list[View],
        *,
        interactive: bool,
        deferred: Deferred | None = None,
    ) -> str:
        return str(
            template.render(
                **context,
                drawing=drawing,
                shown=first,
                journey=journey([*first, *others]),  # the first view's steps in their order
                parts=python_parts(others or first),
                interactive=interactive,
                deferred=deferred,
                deferred_file=DEFERRED_FILE,
                part="view",
            )
        )

    kept = Deferred()  # what only the other views show: loaded by site.js when first needed
    yield f"{atlas.id}/index.html", page(shown, views, interactive=True, deferred=kept)
    if kept.parts:
        yield f"{atlas.id}/{DEFERRED_FILE}", kept.script()
    for view in views:
        yield f"{atlas.id}/{view.file}", page([view], [], interactive=False)
    reference = env.get_template("reference.html")
    parts = [SOURCES_PAGE]
    if context["stages"] or context["steps"]:
        parts = [STAGES_PAGE, STEPS_PAGE, SOURCES_PAGE]
    for name in parts:
        yield f"{atlas.id}/{name}", reference.render(**context, part=name.removesuffix(".html"))
