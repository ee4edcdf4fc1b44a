"""The query layer: answers from the data.

``paths`` (execution paths and lookups, from an index of the export), ``_pathtable`` (the
printed paths, precomputed for the CLI's fast path),
``store`` (SPARQL over the graph, with named queries in ``queries/*.rq``), ``_sparql`` (the
read-only guard) and ``_results`` (result formats). Imports the model and data layers.
"""
