"""A primal heuristic for the slack problem at any ``beta``: fill the intervals by leader, then LPT.

Canon et al. 2011, Sections 3.3 and 5.1 (rules as read in ``readings/slack.md`` 2). GAPS
(Algorithm 1) fills intervals by end date and takes, in each, the longest job that still fits; at
``beta > 0`` the longest job of an interval (its *leader*) costs ``beta`` times its length in
slack, so the first choice decides how much the interval can hold. Here, for a horizon ``H``:

1. the intervals with ``e_i^k <= H`` that can hold the shortest job, by non-decreasing ``a_i^k``
   (short intervals first: they have the fewest choices);
2. in each, two dozen candidate leaders (a dozen at ``beta = 0``) among the remaining jobs that
   fit alone (``(1 + beta) p <= a``), spread geometrically in size from the longest down to the
   shortest (a long interval led by a short job loses little slack). Each candidate ``l`` leaves
   ``floor(a - beta p_l) - p_l`` for the rest, filled greedily by the longest remaining job no
   longer than ``p_l`` that fits; the candidate with the largest load wins;
3. the remaining jobs by LPT on the free machines; ``C_max`` is their largest load. Intervals whose
   ``e`` passes ``C_max`` (the last-period rule) are emptied, their jobs back to LPT, until the
   rule holds (``C_max`` only grows, so it ends).

Every horizon gives a schedule that obeys both rules (the slack rule by construction, the
last-period rule by step 3); :func:`best_fill` tries a grid of horizons, keeps the best, and
hands it to :func:`improve`, a local search that moves and swaps jobs between the most loaded free
machine, the intervals and the other free machines under both rules. Work is counted in
deterministic steps (job look-ups, LPT placements, blocks of candidate moves examined).
"""

from __future__ import annotations

import bisect
import heapq
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance

#: Primal heuristic steps (job look-ups, LPT placements) per work unit: about a second here.
STEPS_PER_UNIT = 2e5
#: Candidate leaders tried per interval at beta > 0 (half as many at beta = 0).
CANDIDATES = 24
#: Horizons of the first grid of :func:`best_fill`, then of each refinement.
GRID = 4
REFINE = 0
#: Kicks without a better schedule after which :func:`improve` stops.
KICKS = 5
#: Candidate (job, place) pairs :func:`improve` examines per step (numpy work, about one step's time).
OPS_PER_STEP = 256


def lpt(p: list[int], jobs: list[int], free: tuple[int, ...]) -> tuple[dict, int]:
    """``jobs`` by LPT (longest first, ties by index) on the ``free`` machines: ``({(i, 0): jobs},
    the largest load)``."""
    heap = [(0, i) for i in free]
    out: dict = {}
    for j in sorted(jobs, key=lambda j: (-p[j], j)):
        load, i = heapq.heappop(heap)
        out.setdefault((i, 0), []).append(j)
        heapq.heappush(heap, (load + p[j], i))
    return out, max(load for load, _ in heap)


def _candidates(sizes: list[int], top: int, count: int = CANDIDATES) -> list[int]:
    """Positions in ``sizes`` (ascending) of up to ``count`` distinct sizes ``<= sizes[top]``.

    A geometric spread from ``sizes[top]`` down to ``sizes[0]`` (integer arithmetic): a long
    interval can then be led by a short job and lose little slack, where a spread of positions
    below ``top`` would offer it only long leaders.
    """
    out: list[int] = []
    hi, lo = sizes[top], sizes[0]
    for k in range(count):
        # hi * (lo / hi) ** (k / (count - 1)), rounded down, in integers
        target = _iroot(hi ** (count - 1 - k) * lo**k, count - 1) if k else hi
        pos = bisect.bisect_right(sizes, target, 0, top + 1) - 1
        if pos >= 0 and (not out or sizes[pos] != sizes[out[-1]]):
            out.append(pos)
    return out


def _iroot(x: int, k: int) -> int:
    """``floor(x ** (1 / k))`` for integers ``x >= 0``, ``k >= 1``."""
    r = int(round(x ** (1.0 / k)))
    while r**k > x:
        r -= 1
    while (r + 1) ** k <= x:
        r += 1
    return r


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
    # at beta = 0 a leader costs no slack and only bounds the others' sizes: half as many suffice
    count = CANDIDATES if num else max(2, CANDIDATES // 2)
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
        for li in _candidates(sizes, top, count):
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
        opened, cmax = lpt(p, rest, free)
        steps += len(rest)
        late = [r for r in intervals if int(t["e"][r]) > cmax]
        if not late:
            return {"intervals": intervals, "open": opened}, cmax, steps
        for r in late:
            rest += intervals.pop(r)


class _State:
    """A schedule as arrays: where each job is, the intervals' loads and leaders, the free loads."""

    def __init__(self, instance: SlackInstance, contents: dict, horizon: int):
        num, den = instance.beta_ratio
        self.num, self.den = num, den
        self.p = p = instance.p.astype(np.int64)
        t = instance.table
        # every interval that could join: it ends by the horizon and holds the shortest job alone
        self.rows = np.flatnonzero((t["e"] <= horizon) & (den * t["a"] >= (den + num) * int(p.min())))
        self.rows = np.union1d(self.rows, np.array(list(contents["intervals"]), dtype=np.int64))
        self.a = t["a"][self.rows].astype(np.int64)
        self.e = t["e"][self.rows].astype(np.int64)
        self.free = list(instance.free)
        at = {int(r): i for i, r in enumerate(self.rows)}
        self.load = np.zeros(len(self.rows), np.int64)
        self.lead = np.zeros(len(self.rows), np.int64)
        self.where = np.full(len(p), -1, np.int64)  # an interval's index, or -1 - a free machine's
        self.floads = np.zeros(len(self.free), np.int64)
        for r, jobs in contents["intervals"].items():
            i = at[int(r)]
            for j in jobs:
                self.where[j] = i
            self.load[i] = p[jobs].sum()
            self.lead[i] = p[jobs].max()
        machine = {m: i for i, m in enumerate(self.free)}
        for (m, _), jobs in contents["open"].items():
            self.where[jobs] = -1 - machine[m]
            self.floads[machine[m]] = p[jobs].sum()

    def last_e(self) -> int:
        """The latest ``e`` of a used interval (the makespan may not go below it)."""
        used = self.load > 0
        return int(self.e[used].max()) if used.any() else 0

    def cap(self, rows: np.ndarray | slice, lead: np.ndarray) -> np.ndarray:
        """``floor(a - beta lead)``: the load an interval led by ``lead`` may hold (Section 5.1)."""
        return (self.den * self.a[rows] - self.num * lead) // self.den

    def contents(self, where: np.ndarray) -> dict:
        intervals: dict = {}
        opened: dict = {}
        for j, w in enumerate(where.tolist()):
            if w >= 0:
                intervals.setdefault(int(self.rows[w]), []).append(j)
            else:
                opened.setdefault((self.free[-1 - w], 0), []).append(j)
        return {"intervals": intervals, "open": opened}


def improve(
    instance: SlackInstance, contents: dict, horizon: int, max_steps: int | None = None
) -> tuple[dict, int, int]:
    """A local search from a schedule (``contents``): ``(contents, makespan, steps)``.

    The makespan is the most loaded free machine's load (Section 3.3, as in the module
    docstring); each move takes work off that machine ``M``:

    1. a job of ``M`` joins an interval (ending by the horizon) that holds it under the relaxed
       slack rule, its leader being the longer of the two (best fit);
    2. a job ``x`` of ``M`` swaps with a shorter job ``y`` of an interval that holds ``x`` in its
       place (``y`` goes to ``M``);
    3. if neither exists, a job of ``M`` moves to, or swaps with a shorter job of, another free
       machine, the move that leaves the pair's larger load least.

    A move is taken only if the makespan it leaves is at least the ``e`` of every used interval
    (the last-period rule), so every state is a schedule. When no move exists and the latest used
    interval is what holds the makespan up, that interval is emptied onto the least loaded free
    machines (a *kick*) and the search goes on; it stops after :data:`KICKS` kicks without a
    better schedule. Moves 1 and 2 grow the intervals' work; move 3 lowers the sum of squares of
    the free loads at constant work, so the search ends. The best schedule seen is returned.

    Steps: one per :data:`OPS_PER_STEP` candidate (job, place) pairs examined, and one per job
    moved; ``max_steps`` stops between moves (deterministic).
    """
    st = _State(instance, contents, horizon)
    p, nfree = st.p, len(st.free)
    big = np.iinfo(np.int64).max
    best = (int(st.floads.max()), st.where.copy())
    steps = ops = 0
    kicks = 0
    while max_steps is None or steps + ops // OPS_PER_STEP < max_steps:
        steps += 1
        order = np.argsort(st.floads, kind="stable")
        M = int(order[-1])
        top = int(st.floads[M])
        second = int(st.floads[order[-2]]) if nfree > 1 else 0
        last = st.last_e()
        mine = np.flatnonzero(st.where == -1 - M)
        xs = p[mine]
        after = np.maximum(top - xs, second)  # the makespan if x leaves M
        moves = []
        # 1. x joins an interval
        cap = st.cap(slice(None), np.maximum(st.lead[None, :], xs[:, None]))
        fits = (st.load[None, :] + xs[:, None] <= cap) & (st.e[None, :] <= after[:, None])
        fits &= (after >= last)[:, None]
        ops += fits.size
        if fits.any():
            q = int(np.argmax(np.where(fits.any(axis=1), xs, -1)))
            r = int(np.argmin(np.where(fits[q], cap[q] - st.load - xs[q], big)))
            moves.append((int(xs[q]), 1, int(mine[q]), r))
        # 2. x swaps with a shorter y of an interval
        held = np.flatnonzero(st.where >= 0)
        if len(held):
            rows = st.where[held]
            gain = xs[:, None] - p[held][None, :]
            cap = st.cap(rows[None, :], np.maximum(st.lead[rows][None, :], xs[:, None]))
            ok = (gain > 0) & (st.load[rows][None, :] + gain <= cap)
            ok &= np.maximum(top - gain, second) >= last
            ops += ok.size
            if ok.any():
                q, y = divmod(int(np.argmax(np.where(ok, gain, -1))), len(held))
                moves.append((int(gain[q, y]), 2, int(mine[q]), int(held[y])))
        if moves:
            _, kind, j, target = max(moves, key=lambda m: (m[0], -m[1]))
            x = int(p[j])
            if kind == 1:
                st.where[j] = target
                st.load[target] += x
                st.lead[target] = max(int(st.lead[target]), x)
                st.floads[M] -= x
            else:
                r, y = int(st.where[target]), int(p[target])
                st.where[j], st.where[target] = r, -1 - M
                st.load[r] += x - y
                st.lead[r] = p[st.where == r].max()
                st.floads[M] += y - x
        else:
            # 3. between free machines: moves (y = 0) and swaps with a shorter y
            others = np.flatnonzero((st.where < 0) & (st.where != -1 - M))
            ys = np.concatenate([p[others], np.zeros(nfree, np.int64)])
            on = np.concatenate([-1 - st.where[others], np.arange(nfree)])
            d = xs[:, None] - ys[None, :]
            pair = np.maximum(top - d, st.floads[on][None, :] + d)
            ok = (d > 0) & (pair < top) & (on != M)[None, :]
            ok &= np.maximum(pair, second) >= last
            ops += ok.size
            if ok.any():
                q, y = divmod(int(np.argmin(np.where(ok, pair, big))), len(ys))
                j, m2 = int(mine[q]), int(on[y])
                st.where[j] = -1 - m2
                st.floads[M] -= int(d[q, y])
                st.floads[m2] += int(d[q, y])
                if y < len(others):
                    st.where[others[y]] = -1 - M
            elif last > 0 and kicks < KICKS:
                kicks += 1
                r = int(np.argmax(np.where(st.load > 0, st.e, -1)))
                jobs = np.flatnonzero(st.where == r)
                for j in jobs[np.argsort(-p[jobs], kind="stable")]:
                    m2 = int(np.argmin(st.floads))
                    st.where[j] = -1 - m2
                    st.floads[m2] += p[j]
                    steps += 1
                st.load[r] = st.lead[r] = 0
                st.e[r] = big // 4  # not again: its e held the makespan up
            else:
                break
        makespan = int(st.floads.max())
        if makespan < best[0] and makespan >= st.last_e():
            best = (makespan, st.where.copy())
            kicks = 0
    return st.contents(best[1]), best[0], steps + ops // OPS_PER_STEP


def best_fill(
    instance: SlackInstance, lo: int, hi: int, max_steps: int | None = None
) -> tuple[dict | None, int, int]:
    """The best :func:`fill` over horizons in ``[lo, hi]``, then :func:`improve` on it.

    Returns ``(contents, makespan, steps)``.

    A grid of :data:`GRID` horizons, then :data:`REFINE` rounds of a finer grid around the best;
    the best fill is the local search's start. ``max_steps`` stops between horizons and between
    moves (deterministic). ``contents`` is ``None`` without a free machine.
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
    contents, cmax, used = improve(
        instance, best[0], best[1], None if max_steps is None else max_steps - steps
    )
    return contents, cmax, steps + used
