"""The two exact problems of the slack family, their methods, and what the methods share.

Canon et al. 2011 (Sections 3.3, 4, 5.1) as read in ``readings/slack.md``:

* ``slack``: minimum reference makespan ``C_max`` subject, at the instance's
  ``beta``, to the relaxed slack rule ``d_i^k >= beta max_{j in pi(i,k)} p_j``
  and the last-period rule ``e_i^k <= C_max`` for every used interval
  (slack.md 2.2-2.3: the last-period rule holds at every ``beta``; ``beta = 0``
  is not the plain problem). Infeasible when ``lambda = 0`` (slack.md 2.4).
  Methods ``cpsat`` (:mod:`.cpsat`) and ``milp`` (:mod:`.milp`, small cases).
* ``plain``: scheduling with unavailability periods, neither rule: a job runs
  inside one availability period (no spanning, no migration) or on a free
  machine or after a machine's last interval (:mod:`volsched.instances.slack`:
  a machine is available for ever after it, so the plain problem always has a
  schedule). Same methods.

Every method returns a :class:`~volsched.solvers.MethodOutcome`;
:func:`volsched.solvers.finish` verifies it with :mod:`.verify` (which shares
no code with the models) and sets the status. Each outcome's ``info`` carries
``combinatorial_bound``, the beta-independent lower bound of :mod:`.bound`
where that module is present, beside the method's own ``lower_bound``.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import importlib
import itertools
import time
from typing import TYPE_CHECKING

from ..deadline import HardStop
from ..problem import (
    STOPPED_BUDGET,
    STOPPED_CLOCK,
    Allowance,
    Effort,
    MethodOutcome,
    Metric,
    Problem,
    backend,
)
from .primal import STEPS_PER_UNIT as PRIMAL_STEPS_PER_UNIT
from .verify import verify_plain, verify_slack

if TYPE_CHECKING:
    from collections.abc import Callable

    from volsched.instances.slack import SlackInstance

#: The two problems; ``slack`` is the family's default.
NAMES = ("slack", "plain")


# --- schedules from bin contents ------------------------------------------------------------------


def schedule_of(instance: SlackInstance, contents: dict) -> list[list[int]]:
    """The verifier's ``schedule`` (``[[machine, start], ...]`` in job order) from bin contents.

    ``contents = {"intervals": {table row: [jobs]}, "open": {(machine, start): [jobs]}}``; each
    bin's jobs run back to back from its start in non-increasing ``p`` (Section 3.3, compact).
    """
    table = instance.table
    sched: list = [None] * instance.n
    segments = [
        (int(table["machine"][r]), int(table["start"][r]), jobs) for r, jobs in contents["intervals"].items()
    ]
    segments += [(i, start, jobs) for (i, start), jobs in contents["open"].items()]
    for i, start, jobs in segments:
        clock = start
        for j in sorted(jobs, key=lambda j: (-int(instance.p[j]), j)):
            sched[j] = [i, clock]
            clock += int(instance.p[j])
    assert all(s is not None for s in sched), "a job is in no bin"
    return sched


def makespan_of(instance: SlackInstance, contents: dict) -> int:
    """``max_j C_j`` of the compact schedule of ``contents``."""
    sched = schedule_of(instance, contents)
    return max(t + int(p) for (_, t), p in zip(sched, instance.p, strict=True))


# --- greedy upper bounds and simple lower bounds ------------------------------------------------


def greedy(instance: SlackInstance, problem: str) -> dict | None:
    """A feasible schedule's bin contents (``None`` for slack with ``lambda = 0``).

    slack: the better of LPT on the free machines alone (no interval used, so
    both rules hold) and :func:`_fill_then_lpt`; plain: jobs in LPT order, each
    where it ends earliest (an interval with room, a tail, a free machine).
    """
    order = sorted(range(instance.n), key=lambda j: (-int(instance.p[j]), j))
    if problem == "slack":
        if instance.lam == 0:
            return None
        alone = {"intervals": {}, "open": _lpt(instance, order)}
        filled = _fill_then_lpt(instance, order)
        if filled is not None and makespan_of(instance, filled) < makespan_of(instance, alone):
            return filled
        return alone
    table = instance.table
    bins = [[int(table["start"][r]), int(table["a"][r]), 0, ("r", r)] for r in range(len(table["a"]))]
    bins += [
        [int(row[-1, 1]) if len(row) else 0, None, 0, ("o", i)] for i, row in enumerate(instance.machines)
    ]
    bins.sort(key=lambda b: b[0])
    contents: dict = {"intervals": {}, "open": {}}
    for j in order:
        pj = int(instance.p[j])
        best = None
        for b in bins:
            if best is not None and b[0] >= best[0]:
                break
            if b[1] is None or b[2] + pj <= b[1]:
                end = b[0] + b[2] + pj
                if best is None or end < best[0]:
                    best = (end, b)
        b = best[1]
        b[2] += pj
        kind, key = b[3]
        if kind == "r":
            contents["intervals"].setdefault(key, []).append(j)
        else:
            contents["open"].setdefault((key, b[0]), []).append(j)
    return contents


def _lpt(instance: SlackInstance, jobs: list[int]) -> dict:
    """LPT of ``jobs`` (given in non-increasing ``p``) on the free machines: ``{(i, 0): [jobs]}``."""
    heap = [(0, i) for i in instance.free]
    out: dict = {(i, 0): [] for i in instance.free}
    for j in jobs:
        load, i = heapq.heappop(heap)
        out[(i, 0)].append(j)
        heapq.heappush(heap, (load + int(instance.p[j]), i))
    return {k: v for k, v in out.items() if v}


def _fill_then_lpt(instance: SlackInstance, order: list[int]) -> dict | None:
    """An incumbent in the manner of GAPS (Algorithm 1, lines 1-15, as read in slack.md 6), or ``None``.

    Intervals by non-decreasing ``e``; each takes, repeatedly, the longest
    remaining job that passes line 7 (``e <= (sum_S p - p_j) / lambda``) and the
    relaxed slack rule with the max over ``pi(i,k) + {j}`` (line 8: a job longer
    than the interval's first one raises the slack it needs); the rest go LPT on
    the free machines. Only an incumbent for the search: its schedule is
    kept only if it meets the last-period rule, checked here.
    """
    table = instance.table
    num, den = instance.beta_ratio
    lam = instance.lam
    p = [int(v) for v in instance.p]
    left = sorted(order, key=lambda j: (p[j], -j))  # ascending; bisect on sizes
    sizes = [p[j] for j in left]
    total = sum(p)
    intervals: dict = {}
    for r in sorted(range(len(table["e"])), key=lambda r: (int(table["e"][r]), r)):
        e, a = int(table["e"][r]), int(table["a"][r])
        if lam * e > total:
            break  # line 7 fails for every job, here and in every later interval
        load = lead = 0
        taken = []
        while sizes:
            # Line 8 with the max over pi + {j}: a job up to the lead needs a - load - p >= beta lead;
            # a longer one becomes the max and needs a - load - p >= beta p. The longest job that
            # fits need not be the first one taken, so both regimes are open.
            longer = den * (a - load) // (den + num)
            room = longer if not lead else min((den * (a - load) - num * lead) // den, max(longer, lead))
            room = min(room, total - lam * e)  # line 7: p_j <= sum_S - lambda e
            k = bisect.bisect_right(sizes, room) - 1
            if k < 0:
                break
            j = left.pop(k)
            sizes.pop(k)
            taken.append(j)
            load += p[j]
            lead = lead or p[j]
            total -= p[j]
        if taken:
            intervals[r] = taken
    rest = sorted(left, key=lambda j: (-p[j], j))
    contents = {"intervals": intervals, "open": _lpt(instance, rest)}
    cmax = max((sum(p[j] for j in js) for js in contents["open"].values()), default=0)
    if any(int(table["e"][r]) > cmax for r in intervals):
        return None
    return contents


def simple_lower_bound(instance: SlackInstance, problem: str) -> int:
    """``max_j`` of the earliest date job ``j`` alone can end by, under the problem's rules.

    slack: ``p_j`` on a free machine, or ``e_i^k`` of an interval it fits
    (``C_max >= e_i^k`` by the last-period rule); plain: ``p_j`` on a free
    machine, ``e_i^{k-1} + p_j`` in an interval with ``a_i^k >= p_j``, or the
    tail's start plus ``p_j``.
    """
    table = instance.table
    num, den = instance.beta_ratio
    a = [int(x) for x in table["a"]]
    if problem == "slack":
        # the longest job interval r takes alone: den (a - p) >= num p
        fit, when = [den * x // (den + num) for x in a], [int(x) for x in table["e"]]
    else:
        fit, when = a, [int(x) for x in table["start"]]
    order = sorted(range(len(fit)), key=lambda r: fit[r])
    fits_asc = [fit[r] for r in order]
    # soonest[k]: the smallest date among the intervals order[k:], those with fit >= fits_asc[k]
    soonest = [*list(itertools.accumulate((when[r] for r in reversed(order)), min))[::-1], None]
    tails = [int(row[-1, 1]) for row in instance.machines if len(row)]
    first_tail = min(tails) if problem == "plain" and tails else None
    best = 0
    for pj in sorted({int(v) for v in instance.p}):
        options = [pj] if instance.lam else []
        k = bisect.bisect_left(fits_asc, pj)
        if k < len(fits_asc):
            options.append(soonest[k] + (pj if problem == "plain" else 0))
        if first_tail is not None:
            options.append(first_tail + pj)
        if options:
            best = max(best, min(options))
    return best


def combinatorial_bound(instance: SlackInstance, problem: str = "plain") -> int | None:
    """The lower bound of :mod:`.bound` (``None`` if absent); ``"plain"``: the beta-independent one."""
    try:
        module = importlib.import_module(f"{__package__}.bound")
    except ImportError:
        return None
    fn = getattr(module, "lower_bound", None)
    return None if fn is None else fn(instance, problem)


def infeasible_reason(instance: SlackInstance, problem: str) -> str | None:
    """Why ``problem`` has no schedule on ``instance`` (``None`` if it has one)."""
    if problem != "slack" or instance.lam > 0:
        return None
    reason = (
        "no free machine (lambda = 0): the job ending at C_max lies in an interval whose "
        "unavailability ends after C_max, so the last-period rule fails at every beta "
        "(Section 4 after Theorem 1; slack.md 2.4)"
    )
    a = instance.table["a"]
    longest = int(instance.p.max())
    if not len(a) or longest > int(a.max()):
        reason += (
            f"; moreover job {int(instance.p.argmax())} (p = {longest}) is longer than every "
            "availability period"
        )
    return reason


# --- methods ----------------------------------------------------------------------------------------


def _outcome(
    instance: SlackInstance, problem: str, contents: dict | None, value, bound, proven: bool, info: dict
) -> MethodOutcome:
    info = {**info, "combinatorial_bound": combinatorial_bound(instance)}
    if contents is None:
        return MethodOutcome(None, None, bound, proven, info)
    if bound is None and not proven:  # the method proved nothing: the problem's combinatorial bound
        bound = combinatorial_bound(instance, problem)
    solution = {"schedule": schedule_of(instance, contents)}
    if problem == "slack":
        solution["beta"] = instance.beta
    return MethodOutcome(solution, value, bound, proven, info)


def _method(problem: str, run: Callable) -> Callable:
    def method(
        instance: SlackInstance, time_limit: float | None, seed: int, budget: float | None = None
    ) -> MethodOutcome:
        reason = infeasible_reason(instance, problem)
        if reason is not None:
            return _outcome(instance, problem, None, None, None, True, {"reason": reason})
        return run(instance, problem, time_limit, seed, budget)

    return method


#: Share of the budget the slack problem's bound phases (primal heuristic, LP bounds) may spend
#: before CP-SAT gets the rest; without a budget they stop at their own limits. Most of it: at the
#: paper's scale (300 x 3,000) CP-SAT improved neither bound in the budgets measured, and on small
#: instances the phases end long before their share.
BOUND_SHARE = 0.8
#: :mod:`.pcmax` search nodes per work unit (a node: one job placed, about as costly as a primal step).
PCMAX_NODES_PER_UNIT = 2e5


def _beta_phases(
    instance: SlackInstance,
    best: dict,
    hi: int,
    lo: int,
    time_limit: float | None,
    started: float,
    budget: float | None,
    effort: Effort,
    info: dict,
) -> tuple[dict, int, int]:
    """The slack problem's beta-aware phases: the cut, at ``beta = 0`` the exact-fill bound, a primal
    heuristic (:func:`.pack.pack` at ``beta = 0``, else or if it ran out of steps the leader
    heuristic), the leader-class LP, column generation.

    Returns the (possibly better) ``best``, ``hi`` and ``lo``. Their work is booked on ``effort``
    in budget units (:data:`PRIMAL_STEPS_PER_UNIT`, :data:`.bound.LEADER_TICKS_PER_UNIT`,
    :data:`.colgen.TICKS_PER_UNIT`): deterministic. Each primal heuristic may spend half of
    :data:`BOUND_SHARE`, the LPs what is left of it.
    """
    from .bound import LEADER_TICKS_PER_UNIT, fill_bound, leader_lp_bound, lower_bound
    from .colgen import TICKS_PER_UNIT, lp_bound
    from .pack import pack
    from .primal import best_fill

    cut = lower_bound(instance, "slack", beta=instance.beta_ratio)
    lo = max(lo, int(cut))
    info["beta_cut"] = int(cut)
    share = None if budget is None else BOUND_SHARE * budget
    if lo < hi and instance.beta_ratio[0] == 0:  # above it, the cut was never below it (RESULTS.md)
        exact = fill_bound(instance, lo, hi)
        effort.add(exact.steps / PRIMAL_STEPS_PER_UNIT)
        info["fill_bound"] = exact.bound
        lo = max(lo, exact.bound)
    packed = False
    if lo < hi and instance.beta_ratio[0] == 0:
        steps = None if share is None else int(share / 2 * PRIMAL_STEPS_PER_UNIT)
        contents, value, used = pack(instance, lo, steps)
        effort.add(used / PRIMAL_STEPS_PER_UNIT)
        info["pack_makespan"] = value if contents is not None else None
        packed = contents is not None
        if packed and value < hi:
            best, hi = contents, value
    if lo < hi and not packed:  # the leader heuristic, where pack does not apply or ran out of steps
        steps = None if share is None else int(share / 2 * PRIMAL_STEPS_PER_UNIT)
        contents, value, used = best_fill(instance, lo, hi, steps)
        effort.add(used / PRIMAL_STEPS_PER_UNIT)
        info["primal_makespan"] = value if contents is not None else None
        if contents is not None and value < hi:
            best, hi = contents, value
    if lo < hi:
        ticks = None if share is None else int((share - effort.work) * LEADER_TICKS_PER_UNIT)
        if ticks is None or ticks > 0:
            lead = leader_lp_bound(instance, lo, hi, ticks)
            effort.add(lead.ticks / LEADER_TICKS_PER_UNIT)
            info["leader_lp_bound"] = lead.bound
            info["leader_lps"] = lead.lps
            lo = max(lo, lead.bound)
    if lo < hi:
        deadline = None if time_limit is None else started + time_limit / 2
        allowance = Allowance(None if share is None else share - effort.work, deadline)
        if allowance.budget is None or allowance.budget > 0:
            lp = lp_bound(instance, lo, hi, allowance)
            effort.add(lp.ticks / TICKS_PER_UNIT)
            info["lp_bound"] = lp.bound
            info["lp_rounds"] = lp.rounds
            info["lp_converged"] = lp.converged
            lo = max(lo, lp.bound)
    return best, hi, lo


def _without_intervals(
    instance: SlackInstance, best: dict, hi: int, lo: int, budget: float | None, effort: Effort, info: dict
) -> tuple[dict, int, int]:
    """Both problems on an instance without intervals: ``P||C_max`` by :mod:`.pcmax`'s search.

    Returns the (possibly better) ``best``, ``hi`` and ``lo``; ``lo == hi`` when the search ended.
    Its nodes are booked on ``effort`` (:data:`PCMAX_NODES_PER_UNIT`), at most :data:`BOUND_SHARE`
    of the budget, so that CP-SAT gets the rest of an unfinished search.
    """
    from .pcmax import solve_pcmax

    nodes = None if budget is None else int(BOUND_SHARE * budget * PCMAX_NODES_PER_UNIT)
    found = solve_pcmax([int(v) for v in instance.p], instance.m, hi, nodes)
    effort.add(found.nodes / PCMAX_NODES_PER_UNIT)
    info["pcmax"] = {"nodes": found.nodes, "finished": found.finished, "lower_bound": found.lower}
    if found.machine is not None:
        contents: dict = {"intervals": {}, "open": {}}
        for j, i in enumerate(found.machine):
            contents["open"].setdefault((instance.free[i], 0), []).append(j)
        best, hi = contents, found.value
    return best, hi, max(lo, found.lower)


def _galloping(
    instance: SlackInstance,
    problem: str,
    time_limit: float | None,
    seed: int,
    budget: float | None = None,
    workers: int = 2,
    beta_phases: bool = True,
) -> MethodOutcome:
    """CP-SAT at targets ``lo, lo + d, lo + 3d, ...`` up to ``hi - 1`` (:mod:`.cpsat`).

    ``lo`` is the larger of :func:`simple_lower_bound` and :mod:`.bound`'s bound
    for the problem, ``hi`` the :func:`greedy` makespan, ``d`` the shortest job,
    doubling at each step. A target ``T`` minimises ``C`` over ``[lo, T]``: when
    it has a schedule its optimum is the optimum (every ``C < lo`` is excluded);
    when it has none, ``lo = T + 1``. A small target keeps the pattern pruning
    strong (forced jobs fill the free machines, little room is left).

    For the slack problem (``beta_phases``), before CP-SAT: ``lo`` takes the beta-aware cut and
    the leader-class LP bound of :mod:`.bound` and the column-generation bound of :mod:`.colgen`,
    ``hi`` the primal heuristic of :mod:`.primal` when it beats the greedy (:func:`_beta_phases`,
    at most :data:`BOUND_SHARE` of the budget).

    On an instance without intervals (``P||C_max``, either problem), :mod:`.pcmax`'s finished
    search proves the optimum first (:func:`_without_intervals`); CP-SAT runs only if it ran out
    of its share of the budget.

    ``budget`` is in work units: CP-SAT deterministic time over all the targets' models, plus the
    bound phases' deterministic work converted at fixed rates. ``beta_phases=False`` is the
    search without them (kept for before/after measurements).
    """
    solve_at = backend(f"{__package__}.cpsat", "solve_at", "ortools")
    started = time.perf_counter()
    best = greedy(instance, problem)
    hi = makespan_of(instance, best)
    lo = simple_lower_bound(instance, problem)
    own = combinatorial_bound(instance, problem)
    lo = lo if own is None else max(lo, int(own))
    info: dict = {"lower_bound": lo, "greedy_makespan": hi, "phases": []}
    effort = Effort()
    if instance.lam == instance.m and lo < hi:
        best, hi, lo = _without_intervals(instance, best, hi, lo, budget, effort, info)
        info["lower_bound"] = lo
    if problem == "slack" and beta_phases and instance.lam > 0:
        best, hi, lo = _beta_phases(instance, best, hi, lo, time_limit, started, budget, effort, info)
        info["lower_bound"] = lo
    step = int(instance.p.min())
    target = lo

    def done(*args) -> MethodOutcome:
        outcome = _outcome(instance, problem, *args, info)
        return dataclasses.replace(
            outcome, stopped=None if outcome.proven else effort.stopped, work=effort.work
        )

    try:
        while lo < hi:
            target = min(target, hi - 1)
            if budget is not None and effort.left(budget) <= 0:
                effort.stopped = STOPPED_BUDGET
                return done(best, hi, lo, False)
            status, contents, value, bound, phase = solve_at(
                instance, problem, lo, target, time_limit, seed, workers, started, effort.left(budget), effort
            )
            info["phases"].append(phase)
            if status == "unknown":
                return done(best, hi, lo, False)
            if status != "infeasible":
                return done(contents, value, bound, status == "optimal")
            lo = target + 1
            target += step
            step *= 2
    except HardStop:  # the hard limit fired in Python (building a model): keep the greedy schedule
        info["stopped"] = "hard time limit"
        effort.stopped = STOPPED_CLOCK
        return done(best, hi, lo, False)
    return done(best, hi, hi, True)


def _milp(
    instance: SlackInstance, problem: str, time_limit: float | None, seed: int, budget: float | None = None
) -> MethodOutcome:
    solve_milp = backend(f"{__package__}.milp", "solve_milp", "pulp")
    best = greedy(instance, problem)
    hi = makespan_of(instance, best)
    effort = Effort()
    contents, value, bound, proven, info = solve_milp(
        instance, problem, hi, time_limit, effort=effort, max_nodes=None if budget is None else int(budget)
    )
    if contents is None:
        contents = best
    value = makespan_of(instance, contents)
    outcome = _outcome(instance, problem, contents, value, bound, proven, {**info, "greedy_makespan": hi})
    return dataclasses.replace(outcome, stopped=None if proven else effort.stopped, work=effort.work)


def _verify_slack(instance: SlackInstance, solution: dict) -> int:
    return verify_slack(instance, solution)


def _verify_plain(instance: SlackInstance, solution: dict) -> int:
    return verify_plain(instance, solution)


#: Both problems declare the stability metrics: the heuristics scored against ``plain`` (LPT, list)
#: are run disturbed too (Section 3.2).
_METRICS = (
    Metric("makespan", "min", "reference makespan C_max = max_j C_j (Section 3.3)"),
    Metric("stability", "min", "disturbed makespan / the schedule's own reference makespan (3.3)"),
    Metric("disturbed_makespan", None, "makespan of the disturbed execution (Section 3.2)"),
)

PROBLEMS: dict[str, Problem] = {
    "slack": Problem(
        name="slack",
        sense="min",
        methods={"cpsat": _method("slack", _galloping), "milp": _method("slack", _milp)},
        verify=_verify_slack,
        metrics=_METRICS,
        budgets={"cpsat": "cpsat", "milp": "cbc-nodes"},
    ),
    "plain": Problem(
        name="plain",
        sense="min",
        methods={"cpsat": _method("plain", _galloping), "milp": _method("plain", _milp)},
        verify=_verify_plain,
        metrics=_METRICS,
        budgets={"cpsat": "cpsat", "milp": "cbc-nodes"},
    ),
}
