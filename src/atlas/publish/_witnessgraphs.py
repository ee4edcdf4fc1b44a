"""The witness records' named graphs: one graph per recorded run, served and published.

Each record of ``dataset/witness/`` ships beside its JSON as TriG (``atlas._witness.files``
writes it; a data test keeps the two equal): its triples in the named graph ``<record IRI>``,
apart from the documented claims of the default graph. ``atlas serve`` answers queries over the
atlas with these graphs as the named graphs of its dataset (``GRAPH ?g { ... }``), and ``atlas
publish`` puts each into the store as a named graph of the same IRI.
"""

from __future__ import annotations

import pyoxigraph

from atlas.data._dataset import WITNESS_FOLDER
from atlas.data._resources import dataset_dir

__all__ = ["add_witness_graphs", "witness_graphs"]


def witness_graphs() -> dict[str, tuple[pyoxigraph.Triple, ...]]:
    """The named graphs of the shipped witness records (``witness/*.trig``), by graph IRI.

    >>> all(iri.startswith("https://w3id.org/execution-atlas/witness/") for iri in witness_graphs())
    True

    Raises:
        SyntaxError: a TriG file that does not parse (the data tests keep them valid).
    """
    folder = dataset_dir() / WITNESS_FOLDER
    if not folder.is_dir():
        return {}
    graphs: dict[str, list[pyoxigraph.Triple]] = {}
    for file in sorted(folder.iterdir(), key=lambda f: f.name):
        if not file.name.endswith(".trig"):
            continue
        for quad in pyoxigraph.parse(file.read_bytes(), format=pyoxigraph.RdfFormat.TRIG):
            if isinstance(quad.graph_name, pyoxigraph.NamedNode):  # a record writes no other
                graphs.setdefault(quad.graph_name.value, []).append(quad.triple)
    return {name: tuple(triples) for name, triples in sorted(graphs.items())}


def add_witness_graphs(target: pyoxigraph.Store) -> int:
    """Add the shipped witness graphs to a store as named graphs; give how many were added."""
    graphs = witness_graphs()
    for name, triples in graphs.items():
        graph = pyoxigraph.NamedNode(name)
        target.extend(pyoxigraph.Quad(t.subject, t.predicate, t.object, graph) for t in triples)
    return len(graphs)
