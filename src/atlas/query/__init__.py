"""The query layer: answers from the data.

``paths`` (the public lookups and execution paths, from the shipped JSON export) over
``_index`` (the index of a dataset), ``_atlasindex`` (the index of one atlas), ``_bittables``
(its lookup tables) and ``_construct`` (models built without validation); ``_selection`` (a
selection in words: which atlas and values, over ``_reading``, one atlas's reading of them);
``_pathtable`` (the printed paths and the words' vocabulary, precomputed for the CLI's fast
path); ``store`` (SPARQL over the graph) over ``_engines`` (stores and evaluation) and
``_named`` (the named queries, ``queries/*.rq``); ``_sparql`` (the read-only guard), ``_lexer``
(a SPARQL lexer, forms and substitution) and ``_results`` (result formats). Imports the model
and data layers.
"""
