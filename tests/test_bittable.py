"""The lookup tables behind paths: items and unions picked by the bits of a mask."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from atlas.query._bittables import MAX_ENTRIES as _MAX_ENTRIES
from atlas.query._bittables import BitTable as _BitTable
from atlas.query._bittables import RankedTable as _RankedTable


def _expected(count: int, extra: list[int], mask: int) -> tuple[list[int], int]:
    picked = [k for k in range(count) if mask >> k & 1]
    union = 0
    for k in picked:
        union |= extra[k]
    return picked, union


@given(st.data(), st.integers(0, 40))
def test_items_and_union_are_those_of_the_set_bits(data: st.DataObject, count: int) -> None:
    items = [f"item-{k}" for k in range(count)]
    extra = data.draw(st.lists(st.integers(0, 2**40), min_size=count, max_size=count))
    mask = data.draw(st.integers(0, (1 << count) - 1))
    table = _BitTable(items, extra)
    picked, union = _expected(count, extra, mask)
    assert table.select(mask) == (tuple(items[k] for k in picked), union)
    assert _BitTable(items).select(mask) == (tuple(items[k] for k in picked), 0)


def test_tables_stay_small() -> None:
    table = _BitTable(list(range(40)))
    assert table.width <= 11
    assert len(table.chunks) == 4
    assert all(len(chunk) == 1 << table.width for chunk in table.chunks)


def _variants(count: int) -> list[tuple[tuple[int, int], ...]]:
    """Item k as (k, r) when r picked items come before it."""
    return [tuple((k, r) for r in range(k + 1)) for k in range(count)]


# up to 100 items, past the point where ranked tables would grow too large (about 90)
@given(st.data(), st.one_of(st.integers(0, 25), st.integers(26, 100)))
def test_each_pick_comes_as_the_variant_for_its_rank(data: st.DataObject, count: int) -> None:
    extra = data.draw(st.lists(st.integers(0, 2**40), min_size=count, max_size=count))
    mask = data.draw(st.integers(0, (1 << count) - 1))
    picked, union = _expected(count, extra, mask)
    found = _RankedTable(_variants(count), extra).select(mask)
    assert found == (tuple((k, r) for r, k in enumerate(picked)), union)
    assert _RankedTable(_variants(count)).select(mask)[1] == 0


@pytest.mark.parametrize("count", [1, 12, 19, 20, 22, 40, 90, 91, 200])
def test_ranked_tables_stay_within_their_bound(count: int) -> None:
    table = _RankedTable(_variants(count))
    entries = sum(len(ranked) for tables in table.tables for ranked in tables)
    assert entries <= _MAX_ENTRIES
    if table.plain is None:  # every item's bit falls in some chunk
        assert sum(len(unions).bit_length() - 1 for unions in table.unions) == count
    else:  # too many items for ranked tables: picked as plain items, then ranked
        assert count > 90
        assert table.tables == ()
    full = (1 << count) - 1
    assert table.select(full)[0] == tuple((k, k) for k in range(count))


def test_the_shipped_atlases_sizes_take_two_lookups() -> None:
    # 19 and 20 live steps: two chunks of bits, so one path needs two table lookups
    assert len(_RankedTable(_variants(19)).tables) == 2
    assert len(_RankedTable(_variants(20)).tables) == 2
