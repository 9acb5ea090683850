"""The allocations of Section III-C (Casanova et al., HCW 2013), listed for the searches of problem ``full``.

An allocation gives ``0 <= x_q <= mu_q`` tasks per processor, summing to ``m``, or is all zero
(idle): :mod:`.replay` accepts exactly these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from volsched.instances.coupled import CoupledInstance

#: Most allocations a search of problem ``full`` lists; beyond, it is not run (20 processors and
#: m = 10 tasks have 20 million).
MAX_ALLOCATIONS = 50_000


def count_allocations(instance: CoupledInstance) -> int:
    """How many allocations :func:`allocations` lists (idle included), without listing them."""
    ways = [1] + [0] * instance.m
    for mu in instance.mu:
        cap = int(min(mu, instance.m))
        ways = [sum(ways[j - v] for v in range(min(cap, j) + 1)) for j in range(instance.m + 1)]
    return ways[instance.m] + 1


def allocations(instance: CoupledInstance) -> list[tuple[int, ...]]:
    """Every allocation of Section III-C: all zero (idle), or ``0 <= x_q <= mu_q`` summing to ``m``."""
    m, p = instance.m, instance.p
    caps = [int(min(mu, m)) for mu in instance.mu]
    out = [(0,) * p]

    def walk(q: int, left: int, prefix: tuple[int, ...]) -> None:
        if q == p:
            if left == 0:
                out.append(prefix)
            return
        for v in range(min(caps[q], left), -1, -1):
            walk(q + 1, left - v, (*prefix, v))

    walk(0, m, ())
    return out


__all__ = ["MAX_ALLOCATIONS", "allocations", "count_allocations"]
