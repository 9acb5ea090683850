"""A compact MILP for the slack and plain problems (PuLP + CBC), the cross-check of :mod:`.cpsat`.

Job-by-bin assignment, written independently of the pattern model (no
pruning, no classes), for small instances only. ``hi`` is the makespan of a
known schedule; the MILP looks for one with ``C <= hi - 1`` and reports
``infeasible`` (proving ``hi`` optimal) when CBC's search finishes without one
(a stopped search proves nothing, :mod:`..cbc`). Bins: intervals
that could end a job by ``hi - 1`` (slack: ``e_b <= hi - 1``; plain:
``start_b + p <= hi - 1``), the free machines, and in the plain problem each
machine's tail after its last interval. ``x_{j,b}`` puts job ``j`` in bin ``b``.

Slack (Section 5.1 and the last-period rule, slack.md 2.2):

* ``sum_j p_j x_{j,b} + (a_b - floor(a_b - beta p_j)) x_{j,b} <= a_b`` for each
  job ``j``: the load with ``j`` in ``b`` is at most ``a_b - beta p_j``; taken
  over every ``j`` in ``b`` this is ``d_b >= beta max p`` (integers, exact);
* ``C >= e_b x_{j,b}`` (last-period rule);
* ``C = max_f load_f`` over the free machines: ``C >= load_f`` and
  ``C <= load_f + hi (1 - z_f)`` with ``sum_f z_f = 1`` (the makespan is
  attained by a compact schedule, see :mod:`.cpsat`).

Plain: ``sum_j p_j x_{j,b} <= a_b`` and ``C >= start_b x_{j,b} + load_b``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pulp

from volsched.instances.errors import require

from ..cbc import INFEASIBLE, OPTIMAL, STOPPED, run_cbc
from ..deadline import HardStop
from ..problem import STOPPED_CLOCK, Effort

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance

#: Most job-bin pairs (binaries) the MILP builds; beyond, it refuses the instance as bad input.
MAX_PAIRS = 20_000


class _OutOfTime(Exception):
    """The time limit passed while the model was built."""


def _check(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise _OutOfTime


def solve_milp(
    instance: SlackInstance,
    problem: str,
    hi: int,
    time_limit: float | None = None,
    max_nodes: int | None = None,
    effort: Effort | None = None,
) -> tuple[dict | None, int | None, int | None, bool, dict]:
    """``(contents, value, bound, proven, info)``; no contents but ``proven``: nothing beats ``hi``.

    ``proven`` and the bound come only from a CBC search that finished (:func:`..cbc.run_cbc`):
    the cutoff model's infeasibility proves ``hi`` optimal only then, never after a stop on
    ``time_limit`` (wall clock) or ``max_nodes`` (CBC nodes, the deterministic budget).
    ``effort`` receives the nodes and the stop cause. When ``time_limit`` passes while the
    model is built (a large model takes seconds of Python), or the hard time limit fires
    (:mod:`..deadline`), the outcome is a stop on the wall clock: no contents, nothing proven.
    """
    started = time.perf_counter()
    try:
        return _solve(instance, problem, hi, time_limit, max_nodes, effort, started)
    except (_OutOfTime, HardStop) as stop:
        if effort is not None:
            effort.add(0, STOPPED_CLOCK)
        why = (
            "the time limit passed while building the model"
            if isinstance(stop, _OutOfTime)
            else "hard time limit"
        )
        return None, None, None, False, {"milp_status": STOPPED, "cbc_result": why}


def _solve(instance, problem, hi, time_limit, max_nodes, effort, started):
    deadline = None if time_limit is None else started + time_limit
    p = [int(v) for v in instance.p]
    n = len(p)
    num, den = instance.beta_ratio if problem == "slack" else (0, 1)
    table = instance.table
    limit = hi - 1
    bins = []  # (key, start, cap or None, e or None)
    for r in range(len(table["a"])):
        a, e, start = int(table["a"][r]), int(table["e"][r]), int(table["start"][r])
        if problem == "slack" and e <= limit:
            bins.append((("interval", r), start, a, e))
        elif problem == "plain" and start + min(p) <= limit:
            bins.append((("interval", r), start, a, None))
    free = []
    for i, row in enumerate(instance.machines):
        if not len(row):
            free.append(len(bins))
            bins.append((("open", i, 0), 0, None, None))
        elif problem == "plain" and int(row[-1, 1]) + min(p) <= limit:
            bins.append((("open", i, int(row[-1, 1])), int(row[-1, 1]), None, None))
    pairs = n * len(bins)
    require(
        pairs <= MAX_PAIRS,
        "--method",
        f"milp is the cross-check for small instances: at most {MAX_PAIRS:,} job-bin pairs, this "
        f"instance has {pairs:,} ({n} jobs x {len(bins)} bins); use cpsat",
    )
    prob = pulp.LpProblem("slack_" + problem, pulp.LpMinimize)
    c = prob.add_variable("C", 0, max(limit, 0), cat="Integer")
    x: dict[tuple[int, int], pulp.LpVariable] = {}
    for b, (_, start, cap, _) in enumerate(bins):
        _check(deadline)
        for j in range(n):
            if start + p[j] > limit:
                continue
            if cap is not None and (den * (cap - p[j]) < num * p[j]):
                continue
            x[j, b] = prob.add_variable(f"x{j}_{b}", cat="Binary")
    prob += c
    for j in range(n):
        prob += pulp.lpSum(x[j, b] for b in range(len(bins)) if (j, b) in x) == 1
    for b, (_, start, cap, e) in enumerate(bins):
        _check(deadline)
        here = [j for j in range(n) if (j, b) in x]
        load = pulp.lpSum(p[j] * x[j, b] for j in here)
        if cap is not None:
            prob += load <= cap
            if num:
                for j in here:
                    prob += load + (cap - (den * cap - num * p[j]) // den) * x[j, b] <= cap
        if e is not None:
            for j in here:
                prob += c >= e * x[j, b]
        if problem == "plain" and here:
            if start:
                for j in here:
                    prob += c >= load + start * x[j, b]
            else:
                prob += c >= load
    if problem == "slack":
        z = [prob.add_variable(f"z{f}", cat="Binary") for f in free]
        prob += pulp.lpSum(z) == 1
        for f, zf in zip(free, z, strict=True):
            _check(deadline)
            load = pulp.lpSum(p[j] * x[j, f] for j in range(n) if (j, f) in x)
            prob += c >= load
            prob += c <= load + hi * (1 - zf)
    run = run_cbc(prob, time_limit, max_nodes, effort, started)
    info = {"milp_status": run.verdict, "cbc_result": run.result, "nodes": run.nodes, "variables": len(x) + 1}
    if run.verdict == INFEASIBLE:
        return None, None, hi, True, info
    if not run.solution:
        return None, None, None, False, info
    contents: dict = {"intervals": {}, "open": {}}
    for (j, b), var in x.items():
        if (var.value() or 0) > 0.5:
            key = bins[b][0]
            if key[0] == "interval":
                contents["intervals"].setdefault(key[1], []).append(j)
            else:
                contents["open"].setdefault((key[1], key[2]), []).append(j)
    value = int(round(pulp.value(c)))
    proven = run.verdict == OPTIMAL
    return contents, value, value if proven else None, proven, info
