"""The allocations of Section III-C (Casanova et al., HCW 2013), listed for the searches of problem ``full``.

An allocation gives ``0 <= x_q <= mu_q`` tasks per processor, summing to ``m``, or is all zero
(idle): :mod:`.replay` accepts exactly these.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from volsched.instances.coupled import CoupledInstance

#: Most allocations a search of problem ``full`` lists; beyond, it is not run (20 processors and
#: m = 10 tasks have 20 million).
MAX_ALLOCATIONS = 50_000


#: Most processors of the holder searches: their holder sets are bit masks of an int64 beside a
#: completion slot.
MAX_PROCESSORS = 40


def listable(instance: CoupledInstance) -> bool:
    """The holder search and bound run on the instance: at most :data:`MAX_ALLOCATIONS` allocations
    and :data:`MAX_PROCESSORS` processors."""
    return instance.p <= MAX_PROCESSORS and count_allocations(instance) <= MAX_ALLOCATIONS


def count_allocations(instance: CoupledInstance) -> int:
    """How many allocations :func:`allocations` lists (idle included), without listing them."""
    ways = [1] + [0] * instance.m
    for mu in instance.mu:
        cap = int(min(mu, instance.m))
        ways = [sum(ways[j - v] for v in range(min(cap, j) + 1)) for j in range(instance.m + 1)]
    return ways[instance.m] + 1


def allocations(instance: CoupledInstance) -> list[tuple[int, ...]]:
    """Every allocation of Section III-C: all zero (idle), or ``0 <= x_q <= mu_q`` summing to ``m``."""
    caps = tuple(int(min(mu, instance.m)) for mu in instance.mu)
    return [(0,) * instance.p, *_busy(instance.m, caps)]


@functools.lru_cache(maxsize=4)
def _busy(m: int, caps: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The allocations summing to ``m`` with ``x_q <= caps[q]``, the largest ``x_0`` first."""
    p = len(caps)
    out: list[tuple[int, ...]] = []

    def walk(q: int, left: int, prefix: tuple[int, ...]) -> None:
        if q == p:
            if left == 0:
                out.append(prefix)
            return
        for v in range(min(caps[q], left), -1, -1):
            walk(q + 1, left - v, (*prefix, v))

    walk(0, m, ())
    return tuple(out)


class AllocationArrays(NamedTuple):
    """The non-idle allocations as the compiled scans read them (row ``a`` is ``table[a]``)."""

    table: tuple[tuple[int, ...], ...]
    members: np.ndarray  # (A, m) int64: the enrolled processors, padded with -1
    tasks: np.ndarray  # (A, m) int64: their task counts
    work: np.ndarray  # (A,) int64: the workload W(x) = max_q x_q w_q
    masks: np.ndarray  # (A,) int64: the enrolled processors as a bit mask (0 beyond 62 processors)


def allocation_arrays(instance: CoupledInstance) -> AllocationArrays:
    """:func:`allocations` without the idle one, as arrays (kept for the last few instances' tasks
    and speeds: the holder search and the holder bound of one solve share them)."""
    caps = tuple(int(min(mu, instance.m)) for mu in instance.mu)
    return _arrays(instance.m, caps, tuple(int(v) for v in instance.w))


@functools.lru_cache(maxsize=4)
def _arrays(m: int, caps: tuple[int, ...], w: tuple[int, ...]) -> AllocationArrays:
    p = len(caps)
    table = _busy(m, caps)
    members = np.full((len(table), m), -1, dtype=np.int64)
    tasks = np.zeros_like(members)
    work = np.zeros(len(table), dtype=np.int64)
    masks = np.zeros(len(table), dtype=np.int64)
    for a, x in enumerate(table):
        enrolled = [q for q in range(p) if x[q]]
        members[a, : len(enrolled)] = enrolled
        tasks[a, : len(enrolled)] = [x[q] for q in enrolled]
        work[a] = max(x[q] * w[q] for q in enrolled)
        masks[a] = sum(1 << q for q in enrolled) if p < 63 else 0
    for array in (members, tasks, work, masks):
        array.flags.writeable = False
    return AllocationArrays(table, members, tasks, work, masks)


__all__ = [
    "MAX_ALLOCATIONS",
    "MAX_PROCESSORS",
    "AllocationArrays",
    "allocation_arrays",
    "allocations",
    "count_allocations",
    "listable",
]
