"""CP-SAT for the slack and plain problems: a pattern model per target, tried at the lower bound first.

Canon et al. 2011, Sections 3.3, 4 and 5.1, as read in ``readings/slack.md``
2.2-2.4. The objective is the reference makespan ``C_max = max_j C_j`` of a
compact schedule.

**Slack problem at beta.** Every used interval satisfies the relaxed slack rule
``d_i^k = a_i^k - sum_{j in pi(i,k)} p_j >= beta max_{j in pi(i,k)} p_j`` and
the last-period rule ``e_i^k <= C_max``. A job of an interval ends by
``s_i^k < e_i^k``, so the job ending at ``C_max`` is on a free machine:

.. math:: C_{\\max} = \\max_{f \\text{ free}} \\sum_{j \\in f} p_j
          \\quad\\text{and}\\quad e_i^k \\le C_{\\max}
          \\text{ for every used interval } (i, k).

The makespan is *attained* on a free machine (compact execution: no idle
time may push it up to some ``e_i^k``), which the model states with an
equality ``C = max_f load_f``, not ``C >= load_f``. With ``lambda = 0`` and
a job, no schedule exists (slack.md 2.4).

**Plain problem.** No rule; interval ``(i, k)`` holds jobs of total length at
most ``a_i^k`` that end at ``e_i^{k-1} + load``; a machine's tail after its
last interval and every free machine take any load.

**Model** (:mod:`.cpsat_patterns`): for a target ``T`` the intervals usable by
``T`` form classes of interchangeable bins; ``x_{c,P}`` counts the bins of
class ``c`` that take pattern ``P`` (a multiset of job sizes that fits,
pruned by necessary conditions), ``y_{o,t}`` the jobs of size ``v_t`` on open
bin ``o`` (free machine, or tail in the plain problem). Coverage:
``sum_{c,P} mult_P(t) x_{c,P} + sum_o y_{o,t} = n_t`` for every size ``t``.
Slack: ``used_c -> C >= e_c``; plain: ``x_{c,P} >= 1 -> C >= start_c +
load(P)``. A class whose patterns are too many to enumerate falls back to a
per-bin count model (``z_{b,t}`` jobs of size ``t`` in bin ``b``, leader
booleans ``h_{b,t}``: ``load_b + (a - floor(a - beta v_t)) h_{b,t} <= a``).

**Search** (:func:`volsched.solvers.slack.problems._galloping`): ``lo`` is a
combinatorial lower bound, ``hi`` a greedy schedule's makespan; the model is
solved at targets ``T = lo, lo + d, lo + 3d, ...`` (``d`` the shortest job,
doubling) up to ``hi - 1``, each minimising ``C`` over ``[lo, T]``. The first
target with a schedule gives the optimum; each infeasible one raises ``lo`` to
``T + 1``. Small targets keep the pruning strong: on 3-PARTITION instances the
model at ``T = lo`` is the exact-cover model of the triples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ortools.sat.python import cp_model

from ..cpsat import run_cpsat
from ..problem import STOPPED_CLOCK, Effort
from .cpsat_patterns import OutOfTime, Structure, TooMany, build, enumerate_patterns

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance

#: CP-SAT's LP relaxation level. The pattern model is a Gilmore-Gomory (configuration) model whose
#: LP bound is strong; level 2 lets CP-SAT use it: on a planted NO 3-PARTITION instance (m = 12,
#: target + 251) it proves the optimum in 1.9 s, where the default level was still unknown at 40 s
#: (same t501 times).
LINEARIZATION_LEVEL = 2

#: Most integer variables the per-bin count fallback may create (bins x sizes); beyond, the
#: target is left ``unknown`` and the method keeps its best schedule.
MAX_COUNT_VARS = 200_000


class TooLarge(Exception):
    """The count fallback would pass :data:`MAX_COUNT_VARS`."""


def _model(st: Structure, lo: int, deadline: float | None = None) -> tuple[cp_model.CpModel, dict]:
    """The CP-SAT model at ``st.target`` with ``lo <= C <= st.target``; ``parts`` to read a solution.

    Raises
    ------
    OutOfTime
        The pattern enumeration passed ``deadline``.
    TooLarge
        A class needs the count fallback and it would pass :data:`MAX_COUNT_VARS`.
    """
    q = len(st.sizes)
    if len(st.open) * q > MAX_COUNT_VARS:
        raise TooLarge
    model = cp_model.CpModel()
    sizes, counts = st.sizes, st.counts
    slack = st.problem == "slack"
    c_var = model.new_int_var(lo, st.target, "C")
    cover = [[] for _ in range(q)]
    spent, count_vars = [0, 0], 0
    parts = {"C": c_var, "classes": [], "open": []}
    # Every class's patterns first: a model that would pass MAX_COUNT_VARS is given up before any
    # variable is made (building the count bins of a paper-scale instance took seconds).
    enumerated = []
    for c in st.classes:
        try:
            enumerated.append(enumerate_patterns(st, c, deadline=deadline, spent=spent))
        except TooMany:
            enumerated.append(None)
            count_vars += c.m * len(sizes)
            if count_vars > MAX_COUNT_VARS:
                raise TooLarge from None
    for ci, (c, pats) in enumerate(zip(st.classes, enumerated, strict=True)):
        must = any(r > 0 for r in c.need) or c.min_load > 0
        used = None
        if slack and c.e > lo:
            used = model.new_bool_var(f"used{ci}")
            model.add(c_var >= c.e).only_enforce_if(used)
        if pats is not None:
            xs = []
            for pi, (pat, load) in enumerate(pats):
                ub = min([c.m] + [counts[t] // k for t, k in pat])
                x = model.new_int_var(0, ub, f"x{ci}_{pi}")
                xs.append(x)
                for t, k in pat:
                    cover[t].append(k * x if k > 1 else x)
                if not slack and c.start + load > lo:
                    w = model.new_bool_var(f"w{ci}_{pi}")
                    model.add(x == 0).only_enforce_if(w.Not())
                    model.add(c_var >= c.start + load).only_enforce_if(w)
            if must:
                model.add(sum(xs) == c.m)
            else:
                model.add(sum(xs) <= c.m)
            if used is not None:
                model.add(sum(xs) <= c.m * used)
            parts["classes"].append(("patterns", pats, xs))
            continue
        bins = []
        for b in range(c.m):
            z, h = {}, {}
            for t, v in enumerate(sizes):
                if t in st.forced or c.count_cap[t] == 0 or not st.fits(c, v):
                    continue
                z[t] = model.new_int_var(0, min(counts[t], c.count_cap[t]), f"z{ci}_{b}_{t}")
                cover[t].append(z[t])
                if slack and st.num > 0:
                    h[t] = model.new_bool_var(f"h{ci}_{b}_{t}")
                    model.add(z[t] == 0).only_enforce_if(h[t].Not())
            load = sum(sizes[t] * z[t] for t in z)
            model.add(load <= c.cap)
            for t, ht in h.items():
                model.add(load + (c.cap - st.max_load(c, sizes[t])) * ht <= c.cap)
            if c.min_load > 0:
                model.add(load >= c.min_load)
            for t in range(q):
                if c.need[t] > 0:
                    model.add(sum(z[u] for u in z if u <= t) >= c.need[t])
            if used is not None:
                model.add(load <= c.cap * used)
            if not slack and c.start > 0:
                ub = model.new_bool_var(f"ub{ci}_{b}")
                model.add(load == 0).only_enforce_if(ub.Not())
                model.add(c_var >= c.start + load).only_enforce_if(ub)
            elif not slack:
                model.add(c_var >= load)
            if bins:  # interchangeable bins: loads non-increasing
                model.add(bins[-1][1] >= load)
            bins.append((z, load))
        parts["classes"].append(("bins", bins, None))
    loads_free = []
    previous = None
    for oi, o in enumerate(st.open):
        y = {}
        for t in range(q):
            if sizes[t] <= st.target - o.start:
                y[t] = model.new_int_var(0, counts[t], f"y{oi}_{t}")
                cover[t].append(y[t])
        load = sum(sizes[t] * y[t] for t in y)
        model.add(load <= st.target - o.start)
        if previous is not None and previous[0] == o.start:
            model.add(previous[1] >= load)
        previous = (o.start, load)
        if slack:
            lv = model.new_int_var(0, st.target, f"load{oi}")
            model.add(lv == load)
            loads_free.append(lv)
        elif o.start > 0:
            used = model.new_bool_var(f"tail{oi}")
            model.add(load == 0).only_enforce_if(used.Not())
            model.add(c_var >= o.start + load).only_enforce_if(used)
        else:
            model.add(c_var >= load)
        parts["open"].append(y)
    for t in range(q):
        model.add(sum(cover[t]) == counts[t])
    if slack:
        model.add_max_equality(c_var, loads_free)
    model.minimize(c_var)
    return model, parts


def _read(st: Structure, parts: dict, solver: cp_model.CpSolver) -> dict:
    """``{"intervals": {table row: [jobs]}, "open": {(machine, start): [jobs]}}`` from a solution."""
    pool = [list(js) for js in st.jobs_of]
    intervals: dict[int, list[int]] = {}
    for c, (kind, data, xs) in zip(st.classes, parts["classes"], strict=True):
        rows = iter(c.rows)
        if kind == "patterns":
            for (pat, _), x in zip(data, xs, strict=True):
                for _ in range(solver.value(x)):
                    intervals[next(rows)] = [pool[t].pop() for t, k in pat for _ in range(k)]
        else:
            for z, _ in data:
                jobs = [pool[t].pop() for t, zt in z.items() for _ in range(solver.value(zt))]
                row = next(rows)
                if jobs:
                    intervals[row] = jobs
    opened: dict[tuple[int, int], list[int]] = {}
    for o, y in zip(st.open, parts["open"], strict=True):
        jobs = [pool[t].pop() for t, yt in y.items() for _ in range(solver.value(yt))]
        if jobs:
            opened[(o.machine, o.start)] = jobs
    assert not any(pool), "coverage leaves jobs unplaced"
    return {"intervals": intervals, "open": opened}


def solve_at(
    instance: SlackInstance,
    problem: str,
    lo: int,
    target: int,
    time_limit: float | None,
    seed: int,
    workers: int,
    started: float,
    budget: float | None = None,
    effort: Effort | None = None,
) -> tuple[str, dict | None, int | None, int, dict]:
    """One model, ``lo <= C <= target``: ``(status, contents, value, bound, info)``.

    ``budget``: CP-SAT deterministic time for this model; ``effort`` counts what it spent.

    ``status`` is ``"optimal"``, ``"feasible"``, ``"infeasible"`` (no schedule
    with ``C_max <= target``) or ``"unknown"``.
    """
    st = build(instance, problem, target, instance.beta_ratio)
    info = {"target": target, "classes": len(st.classes), "open_bins": len(st.open)}
    if st.infeasible is not None:
        info["reason"] = st.infeasible
        return "infeasible", None, None, target + 1, info
    deadline = None if time_limit is None else started + time_limit
    try:
        model, parts = _model(st, lo, deadline)
    except OutOfTime:
        info["reason"] = "the time limit passed while enumerating patterns"
        if effort is not None:
            effort.stopped = effort.stopped or STOPPED_CLOCK
        return "unknown", None, None, lo, info
    except TooLarge:
        info["reason"] = (
            f"the open bins' or a class's count model (its patterns are too many to "
            f"enumerate) would pass {MAX_COUNT_VARS} variables"
        )
        return "unknown", None, None, lo, info
    kinds = [k for k, _, _ in parts["classes"]]
    info["patterns"] = sum(len(d) for k, d, _ in parts["classes"] if k == "patterns")
    info["count_model_classes"] = kinds.count("bins")
    solver, status = run_cpsat(
        model, time_limit, seed, workers, started, budget, effort, linearization_level=LINEARIZATION_LEVEL
    )
    info["cpsat_status"] = solver.status_name(status)
    if status == cp_model.INFEASIBLE:
        return "infeasible", None, None, target + 1, info
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return "unknown", None, None, lo, info
    contents = _read(st, parts, solver)
    value = int(solver.value(parts["C"]))
    bound = int(round(solver.best_objective_bound))
    return ("optimal" if status == cp_model.OPTIMAL else "feasible"), contents, value, max(lo, bound), info
