"""The holder search's preloading iterations in plain Python, one whole replay per trial.

The rules of :func:`volsched.solvers.coupled.full_holders._preloads`, written out with lists, sets
and a dictionary that keeps the first of equal choices, and each trial replayed to its end by
:func:`volsched.solvers.coupled.full_holders.replay_iteration` (which never stops a replay early).
The compiled :func:`volsched.solvers.coupled._holders_kernel.preloads` must give the same rows in
the same order.
"""

from __future__ import annotations

import numpy as np

from volsched.instances.coupled import DOWN
from volsched.solvers.coupled.full_holders import (
    PAIR_SPARES,
    PRELOAD_ALLOCATIONS,
    SINGLE_SPARES,
    replay_iteration,
)


def preloads(instance, chain, start, holder, rows, out, last, order) -> list[tuple]:
    """``(c, a, join, spares, gained)`` per preloading iteration that completes by ``last``
    (``spares`` a tuple)."""
    if instance.T_prog == 0 or instance.T_data == 0:
        return []
    m, p = instance.m, instance.p
    avail, count, since = chain.avail, chain.count, chain.since
    holding = {q for q in range(p) if holder[q]}
    candidates = []
    for a in range(len(rows.work)):
        enrolled = {int(q) for q in rows.members[a] if q >= 0}
        if out[a] >= 0 and (len(enrolled) < m or enrolled & holding):
            candidates.append((int(out[a]), a))
    found = []
    for _, a in sorted(candidates)[:PRELOAD_ALLOCATIONS]:
        x = rows.allocation(a, p)
        enrolled = {q for q in range(p) if x[q]}
        end = int(out[a]) + 1
        idle = []
        for q in order:
            after = int(since[q, end])
            keeps = q in holding and after <= start
            fits = count[q, end] - count[q, max(start, after)] >= instance.T_prog
            if q not in enrolled and not keeps and fits:
                idle.append(q)
        choices = [(q,) for q in idle[:SINGLE_SPARES]]
        if m - len(enrolled) >= 2:
            top = idle[:PAIR_SPARES]
            choices += [(q, r) for i, q in enumerate(top) for r in top[i + 1 :]]
        life = {}
        for q in idle:
            up = 0
            for u in range(end, min(end + (end - start), avail.shape[1])):
                if avail[q, u] == DOWN:
                    break
                up += int(count[q, u + 1] - count[q, u])
            life[q] = up
        lived = sorted(idle, key=lambda q: -life[q])  # stable: the fastest first among equals
        most = min(m - len(enrolled) + len(enrolled & holding), len(idle))
        for ranked in (idle, lived):
            choices += [tuple(ranked[:size]) for size in range(2, most + 1)]
        for chosen in dict.fromkeys(choices):
            back = max(int(since[q, end]) for q in chosen)
            joins = ([] if set(chosen) & holding else [start]) + ([back] if back > start else [])
            for join in joins:
                trial = (instance, avail, start, holder, x, list(chosen), last, None, join)
                c, _, _, left = replay_iteration(*trial)
                if c >= 0:
                    kept = [q for q, gone in zip(chosen, left, strict=True) if since[q, c + 1] <= gone]
                    gained = sum(1 << q for q in kept)
                    found.append((c, a, join, chosen, gained))
    return found


def random_case(rng, p, slots, down):
    """A random realization (``avail`` as ``int8``, UP 0, RECLAIMED 1, DOWN 2), a holder set, an
    allocation's ``(members, tasks, W)`` and spares: the inputs of one replay."""
    weights = [1 - down - 0.1, 0.1, down]
    avail = rng.choice(np.arange(3), size=(p, slots), p=weights).astype(np.int8)
    holder = rng.random(p) < 0.4
    who = rng.permutation(p)
    size = int(rng.integers(1, max(2, p // 2 + 1)))
    members = np.sort(who[:size]).astype(np.int64)
    tasks = rng.integers(1, 3, size=size).astype(np.int64)
    spares = who[size : size + int(rng.integers(0, min(3, p - size) + 1))].astype(np.int64)
    return avail, holder, members, tasks, spares
