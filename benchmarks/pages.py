"""The weight of the explainer site's view pages (issue 20): the HTML of each page with a path.

The site is built from the shipped export into a temporary folder; the CSS and script that the
pages share are not counted. ``python benchmarks/pages.py`` prints the rows of ``run.py``'s
``site`` section, then the weight of every view page.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from _measure import Row, fmt_time, verdict

__all__ = ["PAGE_GOAL", "page_weights", "site_weight"]

PAGE_GOAL = 100_000  # bytes of HTML per view page (issue 20): "under 100 KB"


def fmt_kb(size: int) -> str:
    """A size in kB (1,000 bytes)."""
    return f"{size / 1000:.1f} kB"


def site_weight() -> list[Row]:
    """The HTML of each view page of the site (``<atlas>/index.html`` and one per combination).

    The site is built from the shipped export into a temporary folder; the CSS and script that
    the pages share are not counted (they are cached once for all pages). One row per atlas with
    paths: its interactive page as it opens (its default view; what only the other views show
    comes from ``views.js`` when another view is first chosen, shown beside it), and the
    heaviest and lightest of its static pages (one view each); then the reference pages, which
    have no goal.
    """
    from atlas.publish import site  # noqa: PLC0415
    from atlas.publish.site._pages import Page  # noqa: PLC0415
    from atlas.query.paths import load  # noqa: PLC0415

    page = Page(load())
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="atlas-site-") as tmp:
        out = Path(tmp) / "site"
        report = site.build(out)
        size = {name: (out / name).stat().st_size for name in report.weights}
        for atlas in page.atlases:
            views = page.views(atlas)
            if not views:
                continue
            interactive = f"{atlas.id}/index.html"
            static = sorted((size[f"{atlas.id}/{v.file}"], v.file) for v in views)
            drawn = svg_bytes(out / interactive)
            later = out / atlas.id / "views.js"
            brought = f"; views.js {fmt_kb(later.stat().st_size)}" if later.exists() else ""
            rows.append(
                (
                    f"site: {interactive} (opens on 1 of {len(views)} views)",
                    f"{fmt_kb(size[interactive])} (drawings {fmt_kb(drawn)}{brought})",
                    "< 100 kB",
                    verdict(size[interactive] < PAGE_GOAL),
                )
            )
            drawn = svg_bytes(out / atlas.id / static[-1][1])
            rows.append(
                (
                    f"site: {atlas.id}/ one page per view ({len(views)} pages)",
                    (
                        f"{fmt_kb(static[0][0])} to {fmt_kb(static[-1][0])}"
                        f" ({static[-1][1]}; drawings {fmt_kb(drawn)})"
                    ),
                    "< 100 kB each",
                    verdict(static[-1][0] < PAGE_GOAL),
                )
            )
        reference = {n: b for n, b in size.items() if n.rsplit("/", 1)[-1] in _REFERENCE_PAGES}
        name = max(reference, key=reference.__getitem__)
        rows.append(
            (
                f"site: reference pages ({len(reference)}), heaviest",
                f"{fmt_kb(reference[name])} ({name})",
                "",
                "",
            )
        )
        rows.append(("site: build (atlas site build)", fmt_time(report.seconds), "", ""))
    return rows


def svg_bytes(path: Path) -> int:
    """The bytes of the inline SVG drawings of a page."""
    text = path.read_text(encoding="utf-8")
    return sum(len(m.encode()) for m in re.findall(r"<svg\b.*?</svg>", text, re.DOTALL))


_REFERENCE_PAGES = frozenset({"stages.html", "steps.html", "sources.html"})


def page_weights() -> list[tuple[str, int]]:
    """Every view page of the shipped site (each atlas's ``index.html`` and one per view): bytes."""
    from atlas.publish import site  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="atlas-site-") as tmp:
        out = Path(tmp) / "site"
        report = site.build(out)
        return [
            (name, (out / name).stat().st_size)
            for name in sorted(report.weights)
            if name.count("/") == 1 and name.rsplit("/", 1)[-1] not in _REFERENCE_PAGES
        ]


if __name__ == "__main__":
    for row in site_weight():
        print(" | ".join(row))
    for name, size in page_weights():
        print(f"{name}: {fmt_kb(size)} ({size} bytes){'' if size < PAGE_GOAL else ' MISSED'}")
