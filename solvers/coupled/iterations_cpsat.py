"""Problem ``iterations`` as one monolithic time-indexed CP-SAT model (the check of the chain).

Casanova et al. 2013, Section III-C without communication. For every
iteration ``k < K``: tasks ``x_kq in [0, min(mu_q, m)]`` with ``sum_q x_kq = m``,
enrolment ``e_kq <=> x_kq >= 1``, workload ``W_k >= w_q x_kq``, an attempt
window ``[s_k, c_k]`` with ``s_k > c_{k-1}``, and per slot ``a_kt <=> s_k <= t <=
c_k``:

* no enrolled worker is DOWN inside the window: ``not (a_kt and e_kq)`` where
  ``q`` is DOWN at ``t``;
* ``W_k = max_q w_q x_kq``;
* counted slots are exactly the window's slots with every enrolled worker UP
  (``b_kt = a_kt and not OR_{q not UP at t} e_kq``), ``sum_t b_kt = W_k`` and
  ``c_k`` is counted: the attempt completes exactly at ``c_k``, so every
  solution, optimal or not, is a schedule the replay accepts as claimed.

The objective is ``c_{K-1}``, with ``sum_k c_k`` as a tie-breaker. Nothing here uses
the chaining argument of :mod:`.iterations`, which is the point: the two agree
only if chaining is optimal. Time-indexed, so for small instances only.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ortools.sat.python import cp_model

from volsched.instances.coupled import DOWN, UP, CoupledInstance
from volsched.instances.errors import require

from ..cpsat import run_cpsat

if TYPE_CHECKING:
    from ..problem import Effort

#: Largest ``p * H * K`` the model accepts (the tests use p <= 6, H <= 60, K <= 3).
MAX_SIZE = 20_000


def solve_iterations_cpsat(
    instance: CoupledInstance,
    time_limit: float | None = None,
    seed: int = 0,
    workers: int = 2,
    budget: float | None = None,
    effort: Effort | None = None,
) -> tuple[list[dict] | None, int | None, int, bool]:
    """``(iterations, makespan, bound, proven)``; ``iterations`` lists start, completion, allocation.

    ``budget``: CP-SAT deterministic time; ``effort`` receives what was spent and why it stopped.

    ``iterations`` and ``makespan`` are ``None`` when no schedule was found
    (``proven`` then means that none completes ``K`` iterations in the horizon).
    """
    started = time.perf_counter()
    p, horizon, K, m = instance.p, instance.horizon, instance.K, instance.m
    require(
        p * horizon * K <= MAX_SIZE,
        "horizon",
        f"the time-indexed model has p * H * K = {p * horizon * K} > {MAX_SIZE} cells; use --method chain",
    )
    state = instance.availability
    model = cp_model.CpModel()
    top = int(instance.w.max()) * m
    ends, variables = [], []
    for k in range(K):
        x = [model.new_int_var(0, int(min(instance.mu[q], m)), f"x{k}_{q}") for q in range(p)]
        e = [model.new_bool_var(f"e{k}_{q}") for q in range(p)]
        model.add(sum(x) == m)
        work = model.new_int_var(1, top, f"W{k}")
        model.add_max_equality(work, [int(instance.w[q]) * x[q] for q in range(p)])
        for q in range(p):
            model.add(x[q] >= 1).only_enforce_if(e[q])
            model.add(x[q] == 0).only_enforce_if(e[q].Not())
        s = model.new_int_var(0, horizon - 1, f"s{k}")
        c = model.new_int_var(0, horizon - 1, f"c{k}")
        model.add(s <= c)
        if ends:
            model.add(s >= ends[-1] + 1)
        counted = []
        for t in range(horizon):
            after = model.new_bool_var(f"ge{k}_{t}")
            before = model.new_bool_var(f"le{k}_{t}")
            model.add(s <= t).only_enforce_if(after)
            model.add(s >= t + 1).only_enforce_if(after.Not())
            model.add(c >= t).only_enforce_if(before)
            model.add(c <= t - 1).only_enforce_if(before.Not())
            inside = model.new_bool_var(f"a{k}_{t}")
            model.add_bool_and([after, before]).only_enforce_if(inside)
            model.add_bool_or([after.Not(), before.Not()]).only_enforce_if(inside.Not())
            b = model.new_bool_var(f"b{k}_{t}")
            model.add_implication(b, inside)
            absent = [e[q] for q in range(p) if state[q, t] != UP]
            for q in range(p):
                if state[q, t] == DOWN:
                    model.add_bool_or([inside.Not(), e[q].Not()])
            for enrolled in absent:
                model.add_bool_or([b.Not(), enrolled.Not()])
            model.add_bool_or([b, inside.Not(), *absent])
            model.add(c != t).only_enforce_if(b.Not())
            counted.append(b)
        model.add(sum(counted) == work)
        ends.append(c)
        variables.append((s, c, x))
    model.minimize((horizon + 1) * K * ends[-1] + sum(ends))
    solver, status = run_cpsat(model, time_limit, seed, workers, started, budget, effort)
    if status == cp_model.INFEASIBLE:
        return None, None, horizon + 1, True
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, None, 1, False
    out = [
        {"start": solver.value(s), "completion": solver.value(c), "allocation": [solver.value(v) for v in x]}
        for s, c, x in variables
    ]
    makespan = out[-1]["completion"] + 1
    bound = int(solver.best_objective_bound) // ((horizon + 1) * K) + 1
    return out, makespan, max(1, min(bound, makespan)), status == cp_model.OPTIMAL
