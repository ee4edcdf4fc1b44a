"""The lookup tables behind paths: items, and the union of their ints, picked by a mask's bits.

A :class:`BitTable` gives the items whose bits are set; a :class:`RankedTable` gives each picked
item as the variant for its rank among the picked ones (a step numbered in its journey). Both
answer with one lookup per chunk of bits, from tables made once from the items alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

__all__ = ["MAX_ENTRIES", "BitTable", "RankedTable"]

_I = TypeVar("_I")
_MAX_WIDTH = 11  # bits per lookup table of a BitTable or RankedTable: at most 2048 entries each


def _subsets(size: int) -> list[tuple[int, int]]:
    """For bits 1 to 2**size - 1 in turn: the index of the highest set bit, and the bits without it.

    Tables indexed by bits are filled in this order, each entry from an earlier one: the entry
    without the highest bit, then the highest bit's item.
    """
    return [
        (bits.bit_length() - 1, bits ^ 1 << bits.bit_length() - 1) for bits in range(1, 1 << size)
    ]


class BitTable(Generic[_I]):
    """Items numbered 0..n-1, looked up as the set bits of a mask, a few bits at a time.

    :meth:`select` gives the items whose bits are set, in order, and the union of the ints
    given with each of them (0 without): a lookup in a table per ``width`` bits (at most
    2**11 entries each) where a loop would visit every item. The tables depend only on the
    items, never on a query.
    """

    __slots__ = ("chunks", "low", "width")

    def __init__(self, items: Sequence[_I], extra: Sequence[int] = ()) -> None:
        count = -(-len(items) // _MAX_WIDTH)  # so many tables, as few as the width allows
        self.width = -(-len(items) // count) if items else 1
        self.low = (1 << self.width) - 1
        chunks: list[tuple[tuple[tuple[_I, ...], int], ...]] = []
        for base in range(0, len(items), self.width):
            entries: list[tuple[tuple[_I, ...], int]] = [((), 0)]
            for top, rest in _subsets(min(self.width, len(items) - base)):
                found, union = entries[rest]
                more = extra[base + top] if extra else 0
                entries.append(((*found, items[base + top]), union | more))
            chunks.append(tuple(entries))
        self.chunks = tuple(chunks)

    def select(self, mask: int) -> tuple[tuple[_I, ...], int]:
        """The items whose bits are set in ``mask``, and the union of their ints."""
        chunks = self.chunks
        if len(chunks) == 2:  # noqa: PLR2004 - two tables (12 to 22 items), without a loop
            first, a = chunks[0][mask & self.low]
            second, b = chunks[1][mask >> self.width]
            return first + second, a | b
        found: tuple[_I, ...] = ()
        union = 0
        low, width = self.low, self.width
        for chunk in chunks:
            items, bits = chunk[mask & low]
            found += items
            union |= bits
            mask >>= width
        return found, union


MAX_ENTRIES = 1 << 13  # entries of the tables of a RankedTable, all chunks together


def _ranked_width(count: int) -> int | None:
    """The chunk width giving a RankedTable the fewest chunks, then the fewest entries.

    None when even the smallest tables would exceed ``MAX_ENTRIES``.
    """
    best: tuple[int, int, int] | None = None
    for width in range(1, max(1, min(count, _MAX_WIDTH)) + 1):
        # a table per chunk and per rank of its first item (0..base), 2**bits entries each
        entries = sum((base + 1) << min(width, count - base) for base in range(0, count, width))
        candidate = (-(-count // width), entries, width)
        if entries <= MAX_ENTRIES and (best is None or candidate < best):
            best = candidate
    return best[2] if best else None


class RankedTable(Generic[_I]):
    """Items picked by the set bits of a mask, each as the variant for its rank among them.

    ``variants[k][r]`` stands for item ``k`` when ``r`` picked items come before it (so
    ``r <= k``), e.g. a step as the (r+1)-th step of a journey. :meth:`select` gives the
    picked items' variants in order, and the union of the ints given with them: one lookup
    per chunk of bits, in the table for that chunk and the rank of its first pick. Every
    entry is made when the table is built, from the items alone; none on a query. Where
    such tables would hold more than ``MAX_ENTRIES`` entries, the items are picked from a
    :class:`BitTable` and each variant then looked up by its rank.
    """

    __slots__ = ("low", "plain", "tables", "unions", "width")

    def __init__(self, variants: Sequence[tuple[_I, ...]], extra: Sequence[int] = ()) -> None:
        width = _ranked_width(len(variants))
        self.plain = None if width else BitTable(variants, extra)
        self.width = width or 1
        self.low = (1 << self.width) - 1
        tables: list[tuple[tuple[tuple[_I, ...], ...], ...]] = []
        unions: list[tuple[int, ...]] = []
        for base in range(0, len(variants) if width else 0, self.width):
            size = min(self.width, len(variants) - base)
            tops = _subsets(size)
            chunk_unions = [0]
            for top, rest in tops:
                chunk_unions.append((chunk_unions[rest] | extra[base + top]) if extra else 0)
            unions.append(tuple(chunk_unions))
            ranked = []
            for rank in range(base + 1):
                table: list[tuple[_I, ...]] = [()]
                for top, rest in tops:
                    before = table[rest]
                    table.append((*before, variants[base + top][rank + len(before)]))
                ranked.append(tuple(table))
            tables.append(tuple(ranked))
        self.tables = tuple(tables)
        self.unions = tuple(unions)

    def select(self, mask: int) -> tuple[tuple[_I, ...], int]:
        """The variants of the items whose bits are set in ``mask``, and the union of their ints."""
        tables, unions = self.tables, self.unions
        if len(tables) == 2:  # noqa: PLR2004 - two chunks, without a loop
            low, high = mask & self.low, mask >> self.width
            first = tables[0][0][low]
            return first + tables[1][len(first)][high], unions[0][low] | unions[1][high]
        if self.plain is not None:
            items, union = self.plain.select(mask)
            return tuple([variant[r] for r, variant in enumerate(items)]), union
        found: list[_I] = []
        union = 0
        low, width = self.low, self.width
        for table, chunk_unions in zip(tables, unions, strict=True):
            bits = mask & low
            if bits:  # an empty chunk adds nothing
                found += table[len(found)][bits]
                union |= chunk_unions[bits]
            mask >>= width
            if not mask:  # nothing picked further on
                break
        return tuple(found), union
