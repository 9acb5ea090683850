"""Exact subset sums on bitsets: the kernel of the exact fills of :mod:`.primal` and :mod:`.bound`.

A set of reachable sums ``{0, ..., cap}`` is one Python integer whose bit ``s`` says whether ``s`` is
the sum of a subset; adding an item ``v`` is ``bits | bits << v``, masked to ``cap``. Python's
integers do the word-parallel work, so ``n`` items up to ``cap`` cost ``n`` shifts of ``cap / 64``
words. The work charged is deterministic: :func:`cost`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

#: Bits per charged step of a shift: a step of :mod:`.primal` is about 5 microseconds, and a shift
#: of 2^16 bits about as long on the development machine (2^14 bits: 2.5, 2^18: 22).
BITS_PER_STEP = 2**16


def cost(items: int, cap: int) -> int:
    """The steps charged for ``items`` shifts of a ``cap``-bit set: ``cap / 2^16`` each, plus a
    quarter for the Python work around a shift."""
    return -(-items * (cap + BITS_PER_STEP // 4) // BITS_PER_STEP)


def reachable(values: Sequence[int], cap: int) -> int:
    """The bitset of the subset sums of ``values`` (each used at most once) that are ``<= cap``.

    >>> bin(reachable([2, 3], 5))
    '0b101101'
    """
    mask = (1 << (cap + 1)) - 1
    bits = 1
    for v in values:
        if v <= cap:
            bits = (bits | bits << v) & mask
    return bits


def best_at_most(bits: int, cap: int) -> int:
    """The largest sum ``<= cap`` in ``bits`` (0 is always one)."""
    return (bits & ((1 << (cap + 1)) - 1)).bit_length() - 1


def largest_subset(values: Sequence[int], cap: int) -> tuple[list[int], int]:
    """Positions of a subset of ``values`` with the largest sum ``<= cap``, and that sum.

    Among the subsets of that sum it leaves the later values out when it can (the walk back
    takes a value only if the earlier ones cannot make the sum), so list the values to spare last.

    >>> largest_subset([5, 4, 3], 7)
    ([2, 1], 7)
    """
    mask = (1 << (cap + 1)) - 1
    history = []
    bits = 1
    for v in values:
        history.append(bits)
        if v <= cap:
            bits = (bits | bits << v) & mask
    total = bits.bit_length() - 1
    chosen, left = [], total
    for i in range(len(values) - 1, -1, -1):
        if not history[i] >> left & 1:
            chosen.append(i)
            left -= values[i]
    assert left == 0
    return chosen, total


#: Cells of an assignment matrix per charged step (about 0.3 microseconds a cell).
ASSIGNMENT_CELLS_PER_STEP = 16


def match_singles(rooms: Sequence[int], sizes: Sequence[int]) -> tuple[list[tuple[int, int]], int, int]:
    """A maximum-weight matching of rooms to items, an item fitting a room no shorter than it.

    For rooms that hold one item at most: returns the matched ``(room, item)`` positions, the
    total size matched and the steps charged. By
    :func:`scipy.optimize.linear_sum_assignment`, exact (integer weights below ``2^53``).

    >>> match_singles([5, 3], [3, 4, 6])
    ([(0, 1), (1, 0)], 7, 0)
    """
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    if not len(rooms) or not len(sizes):
        return [], 0, 0
    room = np.asarray(rooms, dtype=np.int64)[:, None]
    size = np.asarray(sizes, dtype=np.int64)[None, :]
    weight = np.where(size <= room, size, 0)
    rows, cols = linear_sum_assignment(weight, maximize=True)
    pairs = [(int(r), int(c)) for r, c in zip(rows, cols, strict=True) if weight[r, c]]
    return pairs, sum(int(weight[r, c]) for r, c in pairs), weight.size // ASSIGNMENT_CELLS_PER_STEP


__all__ = [
    "ASSIGNMENT_CELLS_PER_STEP",
    "BITS_PER_STEP",
    "best_at_most",
    "cost",
    "largest_subset",
    "match_singles",
    "reachable",
]
