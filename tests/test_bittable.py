"""The lookup tables behind paths: items and unions picked by the bits of a mask."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from atlas.query import _BitTable


@given(st.data(), st.integers(0, 40))
def test_items_and_union_are_those_of_the_set_bits(data: st.DataObject, count: int) -> None:
    items = [f"item-{k}" for k in range(count)]
    extra = data.draw(st.lists(st.integers(0, 2**40), min_size=count, max_size=count))
    mask = data.draw(st.integers(0, (1 << count) - 1))
    table = _BitTable(items, extra)
    picked = [k for k in range(count) if mask >> k & 1]
    union = 0
    for k in picked:
        union |= extra[k]
    assert table.select(mask) == (tuple(items[k] for k in picked), union)
    assert _BitTable(items).select(mask) == (tuple(items[k] for k in picked), 0)


def test_tables_stay_small() -> None:
    table = _BitTable(list(range(40)))
    assert table.width <= 11
    assert len(table.chunks) == 4
    assert all(len(chunk) == 1 << table.width for chunk in table.chunks)
