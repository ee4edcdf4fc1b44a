"""The check layer: every verification of a dataset, as rules that return problems.

``check`` runs them all and reports (``atlas check``, :mod:`atlas.checks.verify`); the
consistency rules are listed in :mod:`atlas.checks.consistency`; :mod:`atlas.checks.build`
builds the export from checked Turtle. It imports the layers below it.
"""
