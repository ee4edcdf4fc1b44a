"""Synthetic atlas sets of a chosen size, with the shape of the real data.

The shipped graph is copied as often as needed; copy k renames every id of the atlas (atlases,
schemes and their values, stages, steps, citations, technologies, relations, source records)
with a ``-kK`` suffix, every source URL with a ``#copy-K`` fragment, and every blank node, so the
copies are disjoint and each is a complete, valid dataset: copy k of the PyTorch atlas is
``pytorch-kK`` with the dimensions ``pytorch-mode-kK`` and ``pytorch-device-kK``. One Turtle file
per copy.

    python benchmarks/synthetic.py 100k /tmp/atlas-100k
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pyoxigraph

from atlas.models._iri import BASE_IRI, ID_KINDS
from atlas.query import store
from atlas.query._results import PREFIXES

KINDS = ID_KINDS
EA = f"{BASE_IRI}vocab#"


def parse_size(text: str) -> int:
    """``10k`` -> 10000, ``1M`` -> 1000000."""
    text = text.strip()
    scale = {"k": 1_000, "K": 1_000, "m": 1_000_000, "M": 1_000_000}.get(text[-1], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def _base() -> tuple[list[pyoxigraph.Triple], set[str]]:
    """The shipped triples, and the URLs of the sources (given a fragment per copy)."""
    triples = [q.triple for q in store.store()]
    page = pyoxigraph.NamedNode("http://xmlns.com/foaf/0.1/page")
    sources = {t.object.value for t in triples if t.predicate == page}
    return triples, sources


def _shared_schemes(triples: list[pyoxigraph.Triple]) -> set[str]:
    """Schemes that are not a dimension (stage kinds...): shared by every copy, not renamed."""
    schemes = {
        t.subject.value
        for t in triples
        if t.object == pyoxigraph.NamedNode("http://www.w3.org/2004/02/skos/core#ConceptScheme")
    }
    dimensions = {t.object.value for t in triples if t.predicate.value == f"{EA}dimension"}
    return {s.removeprefix(f"{BASE_IRI}scheme/") for s in schemes - dimensions}


def _rename(
    term: object, copy: int, sources: set[str], shared: set[str], memo: dict[object, object]
) -> object:
    """The term of copy ``copy``: ids suffixed, source URLs with a fragment, blank nodes renamed."""
    found = memo.get(term)
    if found is not None:
        return found
    new = term
    if isinstance(term, pyoxigraph.NamedNode):
        value = term.value
        if value in sources:
            new = pyoxigraph.NamedNode(f"{value}#copy-{copy}")
        elif value.startswith(BASE_IRI):
            kind, _, local = value[len(BASE_IRI) :].partition("/")
            head, sep, tail = local.partition("/")
            if kind in KINDS and local and not (kind == "scheme" and head in shared):
                new = pyoxigraph.NamedNode(f"{BASE_IRI}{kind}/{head}-k{copy}{sep}{tail}")
    elif isinstance(term, pyoxigraph.BlankNode):
        new = pyoxigraph.BlankNode(f"{term.value}k{copy}")
    memo[term] = new
    return new


def _description(triples: list[pyoxigraph.Triple]) -> set[object]:
    """The dataset's node and the nodes only its description reaches (distributions, contact)."""
    dataset = pyoxigraph.NamedNode(BASE_IRI)
    by_subject: dict[object, list[object]] = {}
    for t in triples:
        by_subject.setdefault(t.subject, []).append(t.object)
    reached, todo = {dataset}, [dataset]
    while todo:
        for obj in by_subject.get(todo.pop(), ()):
            kind = (
                obj.value[len(BASE_IRI) :].partition("/")[0]
                if isinstance(obj, pyoxigraph.NamedNode) and obj.value.startswith(BASE_IRI)
                else ""
            )
            if obj in by_subject and obj not in reached and kind not in KINDS:
                reached.add(obj)
                todo.append(obj)
    return reached


def generate(size: int, folder: Path) -> tuple[int, int]:
    """Write about ``size`` triples into ``folder``; returns (triples, copies)."""
    triples, sources = _base()
    shared = _shared_schemes(triples)
    per_copy = len(triples)
    copies = max(1, math.ceil(size / per_copy))
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.ttl"):
        old.unlink()
    total = 0
    described = _description(triples)
    for copy in range(copies):
        if copy == 0:
            out = triples
        else:
            memo: dict[object, object] = {}
            out = []
            for t in triples:
                if t.subject in described:
                    continue  # one dataset description (and its distributions) for the set
                obj = _rename(t.object, copy, sources, shared, memo)
                out.append(
                    pyoxigraph.Triple(
                        _rename(t.subject, copy, sources, shared, memo),  # type: ignore[arg-type]
                        t.predicate,
                        obj,  # type: ignore[arg-type]
                    )
                )
        pyoxigraph.serialize(
            out,
            folder / f"copy-{copy:05d}.ttl",
            format=pyoxigraph.RdfFormat.TURTLE,
            prefixes=PREFIXES,
        )
        total += len(out)
    return total, copies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", help="number of triples, e.g. 10k, 100k, 1M")
    parser.add_argument("folder", type=Path)
    args = parser.parse_args()
    triples, copies = generate(parse_size(args.size), args.folder)
    print(f"wrote {triples} triples ({copies} copies) to {args.folder}")


if __name__ == "__main__":
    main()
