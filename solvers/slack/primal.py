"""A primal heuristic for the slack problem at any ``beta``: fill the intervals by leader, then LPT.

Canon et al. 2011, Sections 3.3 and 5.1 (rules as read in ``readings/slack.md`` 2). GAPS
(Algorithm 1) fills intervals by end date and takes, in each, the longest job that still fits; at
``beta > 0`` the longest job of an interval (its *leader*) costs ``beta`` times its length in
slack, so the first choice decides how much the interval can hold. Here, for a horizon ``H``:

1. the intervals with ``e_i^k <= H`` that can hold the shortest job, by non-decreasing ``a_i^k``
   (short intervals first: they have the fewest choices);
2. in each, a dozen candidate leaders among the remaining jobs that fit alone
   (``(1 + beta) p <= a``): the longest ones and a geometric spread of shorter sizes. Each candidate
   ``l`` leaves ``floor(a - beta p_l) - p_l`` for the rest, filled greedily by the longest remaining
   job no longer than ``p_l`` that fits; the candidate with the largest load wins;
3. the remaining jobs by LPT on the free machines; ``C_max`` is their largest load. Intervals whose
   ``e`` passes ``C_max`` (the last-period rule) are emptied, their jobs back to LPT, until the
   rule holds (``C_max`` only grows, so it ends).

Every horizon gives a schedule that obeys both rules (the slack rule by construction, the
last-period rule by step 3); :func:`best_fill` tries a grid of horizons and keeps the best.
Work is counted in deterministic steps (job look-ups and LPT placements).
"""

from __future__ import annotations

import bisect
import heapq
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance

#: Candidate leaders tried per interval.
CANDIDATES = 12
#: Horizons of the first grid of :func:`best_fill`, then of each refinement.
GRID = 10
REFINE = 2


def _lpt(p: list[int], jobs: list[int], free: tuple[int, ...]) -> tuple[dict, int]:
    heap = [(0, i) for i in free]
    out: dict = {}
    for j in sorted(jobs, key=lambda j: (-p[j], j)):
        load, i = heapq.heappop(heap)
        out.setdefault((i, 0), []).append(j)
        heapq.heappush(heap, (load + p[j], i))
    return out, max(load for load, _ in heap)


def _candidates(sizes: list[int], top: int) -> list[int]:
    """Positions in ``sizes`` (ascending) of up to :data:`CANDIDATES` distinct sizes ``<= sizes[top]``."""
    out, k, step = [], top, 1
    while k >= 0 and len(out) < CANDIDATES:
        out.append(k)
        v = sizes[k]
        k = bisect.bisect_left(sizes, v, 0, k) - 1  # the next shorter size
        for _ in range(step - 1):
            if k < 0:
                break
            k = bisect.bisect_left(sizes, sizes[k], 0, k) - 1
        if len(out) >= 4:
            step *= 2
    return out


def fill(instance: SlackInstance, horizon: int) -> tuple[dict, int, int]:
    """``(contents, makespan, steps)`` of the heuristic at ``horizon`` (module docstring)."""
    num, den = instance.beta_ratio
    p = [int(v) for v in instance.p]
    t = instance.table
    order = sorted(range(len(p)), key=lambda j: (p[j], j))
    sizes = [p[j] for j in order]
    rows = [
        r
        for r in range(len(t["a"]))
        if int(t["e"][r]) <= horizon and den * int(t["a"][r]) >= (den + num) * sizes[0]
    ]
    rows.sort(key=lambda r: (int(t["a"][r]), int(t["e"][r]), r))
    steps = 0
    intervals: dict = {}
    for r in rows:
        if not sizes:
            break
        a = int(t["a"][r])
        top = bisect.bisect_right(sizes, den * a // (den + num)) - 1
        if top < 0:
            continue
        best = None
        for li in _candidates(sizes, top):
            lead = sizes[li]
            room = (den * a - num * lead) // den - lead
            used, load = [li], lead
            limit = min(room, lead)
            while limit >= sizes[0]:
                k = bisect.bisect_right(sizes, limit) - 1
                while k >= 0 and k in used:
                    k -= 1
                steps += 1
                if k < 0:
                    break
                used.append(k)
                load += sizes[k]
                room -= sizes[k]
                limit = min(room, sizes[k])
            if best is None or load > best[0]:
                best = (load, used)
        for k in sorted(best[1], reverse=True):
            intervals.setdefault(r, []).append(order.pop(k))
            sizes.pop(k)
    free = instance.free
    rest = list(order)
    while True:
        opened, cmax = _lpt(p, rest, free)
        steps += len(rest)
        late = [r for r in intervals if int(t["e"][r]) > cmax]
        if not late:
            return {"intervals": intervals, "open": opened}, cmax, steps
        for r in late:
            rest += intervals.pop(r)


def best_fill(
    instance: SlackInstance, lo: int, hi: int, max_steps: int | None = None
) -> tuple[dict | None, int, int]:
    """The best :func:`fill` over horizons in ``[lo, hi]``: ``(contents, makespan, steps)``.

    A grid of :data:`GRID` horizons, then :data:`REFINE` rounds of a finer grid around the best.
    ``max_steps`` stops between horizons (deterministic). ``contents`` is ``None`` without a free
    machine.
    """
    if instance.lam == 0:
        return None, 0, 0
    best, steps = None, 0
    tried: set[int] = set()
    left, right = lo, hi
    for _ in range(1 + REFINE):
        span = max(1, right - left)
        grid = sorted({left + span * k // (GRID - 1) for k in range(GRID)})
        for h in grid:
            if h in tried:
                continue
            if max_steps is not None and steps >= max_steps:
                return (None, 0, steps) if best is None else (*best[:2], steps)
            tried.add(h)
            contents, cmax, used = fill(instance, h)
            steps += used
            if best is None or cmax < best[1]:
                best = (contents, cmax, h)
        centre = best[2]
        step = max(1, span // (GRID - 1))
        left, right = max(lo, centre - step), min(hi, centre + step)
    return best[0], best[1], steps
