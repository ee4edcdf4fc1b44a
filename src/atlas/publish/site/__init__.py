"""The explainer site: static pages generated from the versioned JSON export.

``build(outdir)`` writes one page per atlas (plus a static page per combination of its
dimensions), an index and a full-graph page; ``server(directory)`` makes a server for a built
site on the loopback interface. Needs the ``site`` extra (Jinja2). The drawings' layouts are
made by Graphviz ``dot`` when the export is made (``write_layouts``) and shipped with it; a
build needs ``dot`` only for a drawing whose data changed since.
"""

from __future__ import annotations

from atlas.publish.site._build import BuildReport, build
from atlas.publish.site._drawings import write_layouts
from atlas.publish.site._layout import LayoutError
from atlas.publish.site._serve import server
from atlas.publish.site._views import SiteError

__all__ = ["BuildReport", "LayoutError", "SiteError", "build", "server", "write_layouts"]
