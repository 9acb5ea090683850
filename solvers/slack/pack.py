"""A schedule at ``beta = 0`` with the intervals filled to the unit: :func:`pack`.

Canon et al. 2011, Sections 3.3 and 5.1 (rules as read in ``readings/slack.md`` 2). At ``beta = 0``
the slack rule bounds an interval's load by its length ``a`` only, so the best schedules leave as
little room unused in the intervals as the jobs allow and share the rest evenly between the free
machines; :func:`.bound.fill_bound` bounds how little that can be, and :func:`pack` aims at it. The
leader heuristic of :mod:`.primal` serves every ``beta``; this one serves ``beta = 0`` only.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

import numpy as np

from .primal import STEPS_PER_UNIT, lpt

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance

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

    1. The intervals with ``e <= target`` that can hold a job, by non-decreasing ``a``: the
       *single* ones (``a < 2 p_min``: one job at most) take the jobs of a maximum-weight matching
       (:func:`.subsetsum.match_singles`), the others their longest remaining jobs down to a room
       of :data:`EXACT_ROOM`, then the subset with the largest sum that fits, among the remaining
       jobs short enough, at most about :data:`POOL_STEPS` steps' worth of them spread over their
       sizes (:func:`.subsetsum.largest_subset`). Before the intervals of ``3 p_min`` and more,
       the shorter ones (one or two jobs each) are filled again by CP-SAT over patterns if that
       holds more (:func:`_short_program`).
    2. The other jobs by LPT on the free machines, then, while the most loaded free machine is
       above the mean (rounded up), its jobs and those of the least loaded machine that it can
       share with are split between the two as evenly as their subset sums allow.
    3. If the makespan is below the ``e`` of a used interval (the last-period rule), the most
       loaded free machine and another share their jobs so that it ends at that ``e`` or just
       above (:func:`_lift`); if no pair can, again from 1 with the makespan as the target: fewer
       intervals, so it ends.

    At ``beta = 0`` the slack rule bounds an interval's load by ``a`` only (Section 5.1), so the
    schedule obeys both rules. Steps: :func:`.subsetsum.cost` of each subset sum, the matching's,
    :func:`_short_program`'s and one per job placed; ``max_steps`` stops between intervals and
    between splits (deterministic).
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
    :data:`.primal.STEPS_PER_UNIT`. ``steps`` is what :func:`pack` spent so far, against ``max_steps``.
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
    order = sorted(range(len(p)), key=lambda j: (p[j], j))
    left = order
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
        sizes = [p[j] for j in left]
        while room > 2 * EXACT_ROOM and left:
            k = bisect.bisect_right(sizes, room - EXACT_ROOM) - 1
            if k < 0:
                break
            sizes.pop(k)
            jobs.append(left.pop(k))
            room -= p[jobs[-1]]
            used += 1
        pool = _spread(left[: bisect.bisect_right(sizes, room)], _most(room))
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
        left = [j for j in order if j not in held]
    for r in rows[len(few) :]:
        if max_steps is not None and steps >= max_steps:
            return None, 0, steps
        steps += fill_exactly(r)
    opened, _ = lpt(p, left, instance.free)
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
