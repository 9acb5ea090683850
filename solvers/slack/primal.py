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


def _lpt(p: list[int], jobs: list[int], free: tuple[int, ...]) -> tuple[dict, int]:
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
        opened, cmax = _lpt(p, rest, free)
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


#: Fewest jobs a subset-sum fill of :func:`pack` chooses from (spread over the sizes that fit) ...
POOL = 128
#: ... and more where the room is short: as many as about this many steps of work allow.
POOL_STEPS = 512
#: :func:`pack` fills an interval by its longest jobs down to this room, then exactly.
EXACT_ROOM = 2**14


def _most(room: int) -> int:
    """Jobs a subset-sum fill of ``room`` chooses from: about :data:`POOL_STEPS` steps of work."""
    from .subsetsum import BITS_PER_STEP

    return max(POOL, POOL_STEPS * BITS_PER_STEP // (room + BITS_PER_STEP // 4))


def _spread(jobs: list[int], most: int) -> list[int]:
    """At most ``most`` of ``jobs`` (sorted by size), evenly spaced in rank: deterministic."""
    if len(jobs) <= most:
        return jobs
    return [jobs[k * (len(jobs) - 1) // (most - 1)] for k in range(most)]


def pack(instance: SlackInstance, target: int, max_steps: int | None = None) -> tuple[dict | None, int, int]:
    """A schedule at ``beta = 0`` aimed at makespan ``target``: intervals filled to the last unit.

    Returns ``(contents, makespan, steps)``; ``contents`` is ``None`` at ``beta > 0``, without a
    free machine, or when ``max_steps`` stops it while filling the intervals (stopped while the
    free machines share their jobs, it returns the schedule so far). The makespan meets
    :func:`.bound.fill_bound` when the intervals lose no more room than its matching and subset
    sums allow and the free machines share the rest evenly.

    1. The intervals with ``e <= target`` that can hold a job: the *single* ones (``a < 2
       p_min``: one job at most) take the jobs of a maximum-weight matching
       (:func:`.subsetsum.match_singles`), the others, by non-decreasing ``a``, their
       longest remaining jobs down to a room of :data:`EXACT_ROOM`, then the subset with the
       largest sum that fits, among the remaining jobs short enough, at most about
       :data:`POOL_STEPS` steps' worth of them spread over their sizes
       (:func:`.subsetsum.largest_subset`).
    2. The other jobs by LPT on the free machines, then, while the most loaded free machine is
       above the mean (rounded up), its jobs and those of the least loaded machine that it can
       share with are split between the two as evenly as their subset sums allow.
    3. If the makespan is below the ``e`` of a used interval (the last-period rule), the most
       loaded free machine and another share their jobs so that it ends at that ``e`` or just
       above (:func:`_lift`); if no pair can, again from 1 with the makespan as the target: fewer
       intervals, so it ends.

    At ``beta = 0`` the slack rule bounds an interval's load by ``a`` only (Section 5.1), so the
    schedule obeys both rules. Steps: :func:`.subsetsum.cost` of each subset sum, the matching's,
    and one per job placed; ``max_steps`` stops between intervals and between splits
    (deterministic).
    """
    num, _ = instance.beta_ratio
    if num or instance.lam == 0:
        return None, 0, 0
    steps = 0
    while True:
        left = None if max_steps is None else max_steps - steps
        contents, makespan, used = _pack_at(instance, target, left)
        steps += used
        if contents is None:
            return None, 0, steps
        t = instance.table
        last = max((int(t["e"][r]) for r in contents["intervals"]), default=0)
        if makespan >= last:
            return contents, makespan, steps
        lifted, used = _lift(instance, contents, last)
        steps += used
        if lifted is not None:
            return contents, lifted, steps
        target = makespan


def _lift(instance: SlackInstance, contents: dict, last: int) -> tuple[int | None, int]:
    """Bring the most loaded free machine up to ``last`` or just above, by sharing with another.

    The makespan of ``contents`` is below ``last``, the latest ``e`` of its intervals. The most
    loaded free machine and another one share their jobs anew so that the first ends at the least
    subset sum at or above ``last`` (the other then ends below it); the schedule then obeys the
    last-period rule. Changes ``contents`` in place; returns the new makespan (``None``: no pair
    reaches ``last``, nothing changed) and the steps.
    """
    from .subsetsum import cost, largest_subset, reachable

    p = [int(v) for v in instance.p]
    opened = contents["open"]
    loads = {key: sum(p[j] for j in jobs) for key, jobs in opened.items()}
    if len(loads) < 2:
        return None, 0
    top = max(loads, key=lambda k: (loads[k], k))
    best, steps = None, 0
    for key in sorted(loads, key=lambda k: (loads[k], k)):
        if key == top:
            continue
        both = opened[top] + opened[key]
        whole = loads[top] + loads[key]
        bits = reachable([p[j] for j in both], whole)
        steps += cost(len(both), whole)
        above = bits >> last
        if above:
            reach = last + (above & -above).bit_length() - 1  # the least subset sum >= last
            if best is None or reach < best[0]:
                best = (reach, key)
            if reach == last:
                break
    if best is None:
        return None, steps
    reach, key = best
    both = sorted(opened[top] + opened[key], key=lambda j: (p[j], j))
    chosen, total = largest_subset([p[j] for j in both], reach)
    steps += cost(len(both), reach)
    mine = {both[i] for i in chosen}
    opened[top] = [j for j in both if j in mine]
    opened[key] = [j for j in both if j not in mine]
    if not opened[key]:
        del opened[key]
    return total, steps


#: CP-SAT deterministic time :func:`_short_program` may use (1-2 s at 300 x 3,000: it finds the best
#: total early).
SHORT_CPSAT = 0.15


def _short_program(
    p: list[int], t: dict, few: list[int], intervals: dict, pmin: int, max_steps: int | None, steps: int
) -> tuple[dict | None, int]:
    """The intervals shorter than ``3 p_min`` filled again by CP-SAT over patterns.

    The patterns are those of :func:`.bound.short_columns` (the packing LP's columns) and those
    the intervals hold now (the start's hint); CP-SAT picks at most one per interval and job, the
    most work in all. Returns the new contents of those intervals if they hold more (else
    ``None``) and the steps: the column generation's, and CP-SAT's deterministic time at
    :data:`STEPS_PER_UNIT`. ``steps`` is what :func:`pack` spent so far, against ``max_steps``.
    """
    from ortools.sat.python import cp_model

    from ..cpsat import run_cpsat
    from .bound import short_columns

    if not few:
        return None, 0
    jobs = sorted((j for j in range(len(p)) if p[j] < 3 * pmin), key=lambda j: (p[j], j))
    at = {j: k for k, j in enumerate(jobs)}
    rooms = [int(t["a"][r]) for r in few]
    columns, _, used = short_columns(rooms, np.array([p[j] for j in jobs], dtype=np.int64), pmin)
    now = {}
    for i, r in enumerate(few):
        mine = sorted(at[j] for j in intervals.get(r, []))
        if mine:
            key = (i, mine[-1], mine[0] if len(mine) == 2 else -1)
            columns.setdefault(key, sum(p[j] for j in intervals[r]))
            now[key] = True
    left = None if max_steps is None else (max_steps - steps - used) / STEPS_PER_UNIT
    if left is not None and left <= 0:
        return None, used
    model = cp_model.CpModel()
    pick = {key: model.new_bool_var("") for key in columns}
    by_room: dict = {}
    by_job: dict = {}
    for (i, j, k), var in pick.items():
        by_room.setdefault(i, []).append(var)
        for job in (j, k):
            if job >= 0:
                by_job.setdefault(job, []).append(var)
    for group in (*by_room.values(), *by_job.values()):
        model.add_at_most_one(group)
    model.maximize(sum(value * pick[key] for key, value in columns.items()))
    for key, var in pick.items():
        model.add_hint(var, key in now)
    budget = SHORT_CPSAT if left is None else min(SHORT_CPSAT, left)
    solver, status = run_cpsat(model, budget=budget, workers=1)
    used += int(solver.deterministic_time * STEPS_PER_UNIT)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, used
    if solver.objective_value <= sum(columns[key] for key in now):
        return None, used
    better: dict = {}
    for (i, j, k), var in pick.items():
        if solver.value(var):
            better[few[i]] = [jobs[j]] + ([jobs[k]] if k >= 0 else [])
    return better, used


def _pack_at(instance: SlackInstance, target: int, max_steps: int | None) -> tuple[dict | None, int, int]:
    """Steps 1 and 2 of :func:`pack`, the last-period rule unchecked."""
    from .subsetsum import cost, largest_subset, match_singles

    p = [int(v) for v in instance.p]
    pmin = min(p)
    t = instance.table
    rows = [int(r) for r in np.flatnonzero((t["e"] <= target) & (t["a"] >= pmin))]
    rows.sort(key=lambda r: (int(t["a"][r]), r))
    left = sorted(range(len(p)), key=lambda j: (p[j], j))
    steps = 0
    intervals: dict = {}
    single = [r for r in rows if int(t["a"][r]) < 2 * pmin]
    short = [j for j in left if p[j] < 2 * pmin]
    pairs, _, charged = match_singles([int(t["a"][r]) for r in single], [p[j] for j in short])
    steps += charged
    for i, k in pairs:
        intervals[single[i]] = [short[k]]
    taken = {short[k] for _, k in pairs}
    left = [j for j in left if j not in taken]
    few = [r for r in rows if int(t["a"][r]) < 3 * pmin]  # one or two jobs each

    def fill_exactly(r: int) -> int:
        """Interval ``r``: its longest jobs down to :data:`EXACT_ROOM`, then a subset sum; steps."""
        nonlocal left
        room, jobs, used = int(t["a"][r]), [], 0
        while room > 2 * EXACT_ROOM and left:
            k = bisect.bisect_right([p[j] for j in left], room - EXACT_ROOM) - 1
            if k < 0:
                break
            jobs.append(left.pop(k))
            room -= p[jobs[-1]]
            used += 1
        pool = _spread(left[: bisect.bisect_right([p[j] for j in left], room)], _most(room))
        chosen, _ = largest_subset([p[j] for j in pool], room)
        jobs += [pool[i] for i in chosen]
        if jobs:
            intervals[r] = jobs
            gone = set(jobs)
            left = [j for j in left if j not in gone]
        return used + cost(len(pool), room)

    for r in few:
        if r not in intervals and int(t["a"][r]) >= 2 * pmin:
            if max_steps is not None and steps >= max_steps:
                return None, 0, steps
            steps += fill_exactly(r)
    better, used = _short_program(p, t, few, intervals, pmin, max_steps, steps)
    steps += used
    if better is not None:
        intervals = {**{q: jobs for q, jobs in intervals.items() if q not in few}, **better}
        held = {j for jobs in intervals.values() for j in jobs}
        left = [j for j in sorted(range(len(p)), key=lambda j: (p[j], j)) if j not in held]
    for r in rows[len(few) :]:
        if max_steps is not None and steps >= max_steps:
            return None, 0, steps
        steps += fill_exactly(r)
    intervals = {r: jobs for r, jobs in intervals.items() if jobs}
    opened, _ = _lpt(p, left, instance.free)
    steps += len(left)
    free = list(instance.free)
    machines = [list(opened.get((i, 0), [])) for i in free]
    loads = [sum(p[j] for j in jobs) for jobs in machines]
    goal = -(-sum(loads) // len(loads))
    while max(loads) > goal:
        if max_steps is not None and steps >= max_steps:
            break
        M = max(range(len(loads)), key=lambda i: (loads[i], -i))
        for other in sorted(range(len(loads)), key=lambda i: (loads[i], i)):
            if other == M:
                continue
            both = sorted(machines[M] + machines[other], key=lambda j: (p[j], j))
            whole = loads[M] + loads[other]
            chosen, half = largest_subset([p[j] for j in both], whole // 2)
            steps += cost(len(both), whole // 2)
            if whole - half < loads[M]:
                mine = {both[i] for i in chosen}
                machines[other] = [j for j in both if j in mine]
                machines[M] = [j for j in both if j not in mine]
                loads[other], loads[M] = half, whole - half
                break
        else:
            break
    makespan = max(loads)
    contents = {
        "intervals": intervals,
        "open": {(i, 0): jobs for i, jobs in zip(free, machines, strict=True) if jobs},
    }
    return contents, makespan, steps
