"""The publish layer: what goes out to users.

``diff`` (two exports and the version bump),
``graphstore`` (``atlas publish`` to a SPARQL store), ``serve`` (the SPARQL endpoint) and
``site`` (the explainer site). Imports every layer below it; nothing below imports it.
"""
