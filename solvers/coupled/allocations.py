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


def trackable(instance: CoupledInstance) -> bool:
    """The holder search and bound can track the instance's holder sets: at most
    :data:`MAX_PROCESSORS` processors (the allocations they enter from each state are those
    :func:`completable` lists)."""
    return instance.p <= MAX_PROCESSORS


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


#: Most allocations :func:`completable` lists from one state; beyond, it gives up on that state.
#: At m = 10, w_min = 1 and ``n_com = 5`` some states have more than 50,000 (the cap before):
#: both holder methods then gave up there, and gaps up to 0.139 remained (``benchmarks/RESULTS.md``).
MAX_COMPLETABLE = 1_000_000

#: Most partial allocations :func:`completable` walks through from one state; beyond, it gives up.
MAX_NODES = 20_000_000

#: Rows :func:`completable` reserves before its walk. A walk that finds more runs again with room
#: for all of them: at m = 10, states with a few thousand allocations are common, and the second
#: walk cost a third of the holder methods' time. Reserved rows that are never written cost no memory.
FIRST_ROWS = 1 << 16


class Allocations(NamedTuple):
    """Non-idle allocations as the compiled scans read them."""

    members: np.ndarray  # (A, m) int64: the enrolled processors, padded with -1
    tasks: np.ndarray  # (A, m) int64: their task counts
    work: np.ndarray  # (A,) int64: the workload W(x) = max_q x_q w_q
    masks: np.ndarray  # (A,) int64: the enrolled processors as a bit mask

    def allocation(self, a: int, p: int) -> tuple[int, ...]:
        """Row ``a`` as an allocation ``x`` of ``p`` processors."""
        x = [0] * p
        for q, v in zip(self.members[a].tolist(), self.tasks[a].tolist(), strict=True):
            if q >= 0:
                x[q] = v
        return tuple(x)


def completable(instance: CoupledInstance, ready: np.ndarray) -> Allocations | None:
    """The allocations of :func:`allocations` (idle aside, in its order) on which an iteration,
    entered where ``ready`` begins, can complete within its slots; ``None`` beyond
    :data:`MAX_COMPLETABLE` of them or :data:`MAX_NODES` partial ones.

    ``ready`` is :func:`._holders_kernel.readiness`; an allocation completes when ``W(x)`` slots
    since a member's last DOWN have every member ready for its tasks
    (:func:`._holders_kernel.first_completion`). The walk (:func:`._holders_kernel.completable`)
    never lists the others, so it reaches instances whose allocations cannot all be listed (20
    processors and m = 10 tasks have 20 million).

    Examples
    --------
    >>> import numpy as np
    >>> from volsched.instances.coupled import CoupledInstance
    >>> rows = np.zeros((3, 6), dtype=np.int8)
    >>> instance = CoupledInstance(availability=rows, w=[1, 1, 1], mu=[None] * 3, m=2, n_com=2,
    ...                            T_prog=0, T_data=0, K=1)
    >>> ready = np.full((3, 6), 2, dtype=np.int64)
    >>> ready[2, :] = -2  # processor 2 is DOWN throughout
    >>> found = completable(instance, ready)
    >>> [found.allocation(a, 3) for a in range(len(found.work))]
    [(2, 0, 0), (1, 1, 0), (0, 2, 0)]
    """
    from . import _holders_kernel  # numba only on first use

    m = instance.m
    bits, down = _holders_kernel.slot_bits(ready, m)
    caps = np.array([int(min(mu, m)) for mu in instance.mu], dtype=np.int64)
    w = np.asarray(instance.w, dtype=np.int64)
    size = FIRST_ROWS
    while True:
        rows = Allocations(
            np.empty((size, m), dtype=np.int64),
            np.empty((size, m), dtype=np.int64),
            np.empty(size, dtype=np.int64),
            np.empty(size, dtype=np.int64),
        )
        n = _holders_kernel.completable(bits, down, caps, w, m, MAX_NODES, *rows)
        if n < 0 or n > MAX_COMPLETABLE:
            return None
        if n <= size:  # copies: the unused rows are not kept alive
            return Allocations(*(array[:n].copy() for array in rows))
        size = n


__all__ = [
    "MAX_ALLOCATIONS",
    "MAX_COMPLETABLE",
    "MAX_NODES",
    "MAX_PROCESSORS",
    "Allocations",
    "allocations",
    "completable",
    "count_allocations",
    "trackable",
]
