"""The data layer: read the dataset, and build, write and read the export, atomically.

It reads Turtle, witness records and cited sources, and writes JSON and JSON-LD. It imports only
the model layer.

``turtle`` turns Turtle into models, ``export`` writes and reads the export, ``schema`` makes
its JSON Schema, ``sources`` fetches cited documents; ``_resources`` knows where shipped files
live, ``_files`` reads files within bounds, ``_atomic`` writes whole files or none.
"""
