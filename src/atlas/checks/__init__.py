"""The check layer: every verification of a dataset, as rules that return problems.

``check`` runs them all and reports (``atlas check``). It imports the layers below it.
"""
