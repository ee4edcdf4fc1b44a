"""The index of an atlas, its tables and the printed-path table: tests that kill mutants (issue 17).

Each test names the survivors of a mutmut run it kills, in ``query/_atlasindex.py`` (the curated
order of steps, an entry stage no step leaves), ``query/_bittables.py`` (the width of a ranked
table), ``query/_pathtable.py`` (where Python ends, the vocabulary, ``expand``, ``lookup_json``
with an atlas or named values) and ``data/_consistency.py`` (the subject of a problem about
three records). The equivalent survivors, and why, are in ``tests/MUTATION.md``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from atlas.data import _consistency as rules
from atlas.data import export
from atlas.errors import Problem
from atlas.models import AtlasDocument, ExecutionPath
from atlas.query import _pathtable
from atlas.query._bittables import RankedTable
from atlas.query._index import Index
from atlas.query._selection import Vocabulary
from checkkit import MINI, changed_export
from fixtures_api import tiny_document

_TINY = tiny_document().model_dump(by_alias=True, mode="json")
_DERIVED = {"journeys", "description", "whatHappens"}  # made again by the models


def _records(key: str) -> list[dict[str, Any]]:
    """The tiny atlas's records of ``key`` as JSON data, without the keys the models derive."""
    return [{k: v for k, v in r.items() if k not in _DERIVED} for r in _TINY[key]]


def _steps_plus(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    """The tiny atlas's steps, with ``extra`` steps made from its first one (src -> interp)."""
    steps = _records("steps")
    return steps + [{**steps[0], **e} for e in extra]


def _ids(path: ExecutionPath) -> list[str]:
    return [j.id for j in path.steps]


def _json(path: ExecutionPath) -> Any:
    return path.model_dump(mode="json", by_alias=True, exclude_none=True)


# --- query/_atlasindex.py: build ------------------------------------------------------------


def test_steps_from_one_stage_come_in_curated_order_order_zero_first_and_no_order_last() -> None:
    """Kills the sort key of the live steps: ``order is not None`` and ``order or 1``.

    Steps leaving one stage keep their curated order in a journey: the lower ``order`` first
    (0 before 1, whatever their ids), a step without one after every step with one.
    """
    steps = _steps_plus(
        # from src, as toy-src-interp (order 1), but of order 0 and an id sorted after it
        {"id": "toy-src-z", "to": "chip", "order": 0},
        # from fastlib, as toy-fast-slow (order 6), but without an order
        {"id": "toy-fast-any", "from": "fastlib", "to": "chip", "order": None},
    )
    path = Index(tiny_document(steps=steps)).path("fast", "y", atlas="toy")
    assert _ids(path) == [
        "toy-src-z",
        "toy-src-interp",
        "toy-interp-fast",
        "toy-fast-slow",
        "toy-fast-any",
        "toy-slow-chip",
    ]
    assert [j.number for j in path.steps] == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("entry", [None, "lonely"], ids=["no-entry", "entry-without-steps"])
def test_a_path_from_an_entry_stage_that_no_step_leaves_has_no_stage_and_no_step(
    entry: str | None,
) -> None:
    """Kills the entry bit of an entry stage no live step names: ``None`` or 1 instead of 0.

    No step is reached from such an entry, so the path has none (with the bit of the first
    stage in journey order, src, every step would be reached; with ``None``, a TypeError).
    """
    (toy,) = _records("atlases")
    lonely = {**_records("stages")[0], "id": "lonely", "label": "Lonely", "order": 9}
    document = tiny_document(
        atlases=[{**toy, "entryStage": entry}], stages=[*_records("stages"), lonely]
    )
    path = Index(document).path("fast", "x", atlas="toy")
    assert (path.summary, path.stages, path.steps) == ("fast on an X: 0 stages, 0 steps", (), ())


# --- query/_bittables.py: _ranked_width -----------------------------------------------------


def _variants(count: int) -> list[tuple[tuple[int, int], ...]]:
    """Item k as (k, r) when r picked items come before it."""
    return [tuple((k, r) for r in range(k + 1)) for k in range(count)]


@pytest.mark.parametrize(
    ("count", "width", "sizes", "entries"),
    [
        # 2 chunks at least (11 bits a table); of the widths giving 2 (6..11), 7 has the fewest
        # entries: 2**7 for the first chunk, and 8 ranks x 2**5 for the second
        (12, 7, [7, 5], 2**7 + 8 * 2**5),
        (13, 8, [8, 5], 2**8 + 9 * 2**5),
        (20, 11, [11, 9], 2**11 + 12 * 2**9),
    ],
)
def test_a_ranked_table_takes_the_fewest_chunks_then_the_fewest_entries(
    count: int, width: int, sizes: list[int], entries: int
) -> None:
    """Kills ``_ranked_width``'s widths up to 12 bits, its chunks counted as a float, and its
    entries counted from the second item."""
    table = RankedTable(_variants(count))
    assert table.plain is None
    assert table.width == width
    # a chunk of ``size`` items: 2**size entries for each rank of its first item (0..base)
    assert [len(ranked[0]).bit_length() - 1 for ranked in table.tables] == sizes
    assert sum(len(r) for ranked in table.tables for r in ranked) == entries
    assert max(len(r) for ranked in table.tables for r in ranked) <= 2**11
    full = (1 << count) - 1
    assert table.select(full)[0] == tuple((k, k) for k in range(count))


# --- query/_pathtable.py --------------------------------------------------------------------


def _two_atlases() -> AtlasDocument:
    """The tiny atlas between an atlas without dimensions and a twin with the same dimensions.

    The twin has no steps: its paths are empty, and words such as 'fast x' fit both atlases.
    """
    (toy,) = _records("atlases")
    notes = {**toy, "id": "notes", "label": "Notes", "dimensions": [], "entryStage": None}
    twin = {**toy, "id": "twin", "label": "Twin"}
    counts = {**_TINY["counts"], "atlases": 3}
    return tiny_document(atlases=[notes, toy, twin], counts=counts)


@pytest.fixture(scope="module")
def two_atlases() -> tuple[AtlasDocument, bytes, bytes]:
    """The document, its export and the table of printed paths made from that export."""
    document = _two_atlases()
    text = export.dumps(document)
    return document, text.encode("utf-8"), _pathtable.dumps(_pathtable.build(text)).encode()


def test_where_python_ends_names_each_step_separated_by_a_semicolon() -> None:
    """Kills the separator of the steps where Python ends (``"XX; XX"``)."""
    steps = _records("steps")
    steps[0]["endsPython"] = True  # src -> interp, before interp -> fastlib (also ends Python)
    path = Index(tiny_document(steps=steps)).path("fast", "x", atlas="toy")
    last = _pathtable.render(path).split("\n\n")[-1]
    assert last == (
        "Where Python ends: step 1 (Source code — feeds → Interpreter); "
        "step 2 (Interpreter — feeds → Fast library)\n"
    )


def test_the_vocabulary_holds_the_atlases_after_one_without_dimensions() -> None:
    """Kills ``continue`` to ``break`` at an atlas without dimensions."""
    data = _pathtable.vocabulary_data(Index(_two_atlases()))
    assert data["ids"] == ["notes", "toy", "twin"]
    assert data["folded"] == {"notes": "notes", "toy": "toy", "twin": "twin"}
    assert sorted(data["atlases"]) == ["toy", "twin"]
    assert data["atlases"]["twin"]["values"] == [
        [["toy-mode/fast", "fast"], ["toy-mode/slow", "slow"]],
        [["toy-hw/x", "X"], ["toy-hw/y", "Y device"]],
    ]


def _words(vocabulary: Vocabulary | None) -> Any:
    assert vocabulary is not None
    return (
        vocabulary.ids,
        dict(vocabulary.folded),
        [(a.id, a.label, a.names, a.keys, a.values) for a in vocabulary.atlases],
    )


def test_the_vocabulary_of_a_table_is_read_when_made_from_the_export_and_not_when_stale(
    two_atlases: tuple[AtlasDocument, bytes, bytes],
) -> None:
    """Kills ``vocabulary`` answering ``None`` (for its data, or its test turned round)."""
    document, data, table = two_atlases
    expected = Vocabulary.from_data(_pathtable.vocabulary_data(Index(document)))
    assert _words(_pathtable.vocabulary(data, table)) == _words(expected)
    assert _pathtable.vocabulary(data + b"\n", table) is None  # another export: stale


def test_expand_walks_into_a_dict_that_is_not_a_reference() -> None:
    """Kills ``len(value) == 1 and "$ref" in value`` to ``or``."""
    skeleton = {
        "one": {"id": "y"},  # one key, not "$ref"
        "two": {"$ref": ["stages", 0], "note": "n"},  # "$ref" among other keys
        "three": [{"$ref": ["stages", 0]}],
    }
    assert _pathtable.expand(skeleton, {"stages": [{"id": "x"}]}) == {
        "one": {"id": "y"},
        "two": {"$ref": ["stages", 0], "note": "n"},
        "three": [{"id": "x"}],
    }


def test_lookup_json_reads_the_words_in_the_atlas_asked_for(
    two_atlases: tuple[AtlasDocument, bytes, bytes],
) -> None:
    """Kills ``_found(values, None, ...)``: 'fast x' fits both atlases, the one named decides."""
    document, data, table = two_atlases
    index = Index(document)
    for name in ("toy", "twin"):
        expected = _json(index.path("fast", "x", atlas=name))
        assert _pathtable.lookup_json(["fast", "x"], name, data, table) == expected
    assert _json(index.path("fast", "x", atlas="twin"))["steps"] == []
    assert _pathtable.lookup_json(["fast", "x"], None, data, table) is None  # which atlas?


def test_lookup_json_takes_named_values(two_atlases: tuple[AtlasDocument, bytes, bytes]) -> None:
    """Kills ``_found(..., None)``: the named values are passed on."""
    document, data, table = two_atlases
    expected = _json(Index(document).path("slow", "y", atlas="toy"))
    found = _pathtable.lookup_json(["slow"], "toy", data, table, {"device": "why"})
    assert found == expected
    assert _pathtable.lookup_json(["slow"], "toy", data, table) is None  # no device


def test_lookup_json_decodes_only_where_the_table_says_records_start(
    two_atlases: tuple[AtlasDocument, bytes, bytes],
) -> None:
    """The offsets find every record; without them the whole export is read; wrong, declined."""
    document, data, table = two_atlases
    expected = _json(Index(document).path("fast", "x", atlas="toy"))
    read = json.loads(table)
    text = data.decode("utf-8")
    assert read["offsets"]["stages"]
    assert read["offsets"]["steps"]
    for key, starts in read["offsets"].items():
        records = json.loads(text)[key]
        assert len(starts) == len(records)
        decoder = json.JSONDecoder()
        assert [decoder.raw_decode(text, start)[0] for start in starts] == records
    older = json.dumps({k: v for k, v in read.items() if k != "offsets"}).encode()
    assert _pathtable.lookup_json(["fast", "x"], "toy", data, older) == expected
    read["offsets"] = {
        key: [start + 1 for start in starts] for key, starts in read["offsets"].items()
    }
    wrong = json.dumps(read).encode()
    assert _pathtable.lookup_json(["fast", "x"], "toy", data, wrong) is None


def test_offsets_of_text_that_is_not_an_export_are_an_error() -> None:
    with pytest.raises(ValueError, match="expected '\\{' at character 0"):
        _pathtable.offsets('["stages"]')
    with pytest.raises(ValueError, match="expected ':'"):
        _pathtable.offsets('{"stages" [1]}')
    assert _pathtable.offsets(' {"stages": [ ] , "x": {"stages": [1]}}\n') == {"stages": []}
    assert _pathtable.offsets('{"steps":[{"id":"x"}]}') == {"steps": [10]}  # no blank at all
    for text in ('{"a"X: 1}', '{"a": X1}'):  # a letter is no blank
        with pytest.raises(ValueError):  # noqa: PT011 - where it fails is what is tested
            _pathtable.offsets(text)


# --- data/_consistency.py: the subject of a problem about three records ---------------------

_GOOD = AtlasDocument.model_validate_json((MINI / "atlas.json").read_bytes())


def _sources() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = export.to_data(_GOOD)["sources"]
    return found


def _with_sources(sources: list[dict[str, Any]]) -> AtlasDocument:
    document: AtlasDocument = changed_export(_GOOD, sources=sources)
    return document


def test_a_source_id_held_three_times_is_reported_at_its_last_url() -> None:
    """Kills ``urls[+1]``: of three URLs sorted, the subject is the last, not the second."""
    sources = _sources()
    twins = [
        {**copy.deepcopy(sources[0]), "url": f"https://example.org/toy/{n}.html"} for n in "ab"
    ]
    found = rules.unique_ids(_with_sources([*sources, *twins]))
    assert found == [
        Problem(
            "violation",
            "duplicate id 'toy-guide' (3 sources, <https://example.org/toy/a.html>, "
            "<https://example.org/toy/b.html>, <https://example.org/toy/guide.html>)",
            subject="https://example.org/toy/guide.html",
            hint="every id names one record: rename one of them",
            code="duplicate",
        )
    ]
    assert [p.code for p in found] == ["duplicate"]


def test_three_sources_with_one_url_are_reported_at_the_last_id() -> None:
    """Kills ``distinct[+1]``: of three ids sorted, the subject is the last, not the second."""
    sources = _sources()
    aliases = [{**copy.deepcopy(sources[0]), "id": f"toy-alias-{n}"} for n in "ab"]
    found = rules.shared_source_urls(_with_sources([*sources, *aliases]))
    assert found == [
        Problem(
            "violation",
            "sources source:toy-alias-a, source:toy-alias-b, source:toy-guide have the same URL "
            "<https://example.org/toy/guide.html> (foaf:page): a citation of it could be "
            "checked against either snapshot",
            subject=rules.iri("source", "toy-guide"),
            hint="one source per document: merge them, or correct the foaf:page of one",
            code="duplicate-url",
        )
    ]
    assert [p.code for p in found] == ["duplicate-url"]
