"""A CP-SAT model of the prescient optimum, exact for any task sizes on small instances.

With non-identical sizes the problem is strongly NP-hard (it contains
``P || C_max``), and the greedy of Section 3.4 is only a heuristic; this model
is the family's exact method for them, and for identical tasks it must agree
with the greedy (tests).

Reduction (proved here, for the model's soundness)
--------------------------------------------------
Call a *bin* one effective availability interval of a host from the
submission on (an up interval, clipped to start at ``t0``; without
suspension, also cut at runs of share 0), with ``F_b(D)`` the work it delivers
from its start to ``min(D, its end)``. Left-shifting (see :mod:`.greedy`)
shows that some optimal schedule runs each bin's tasks back to back from the
bin's start; their last completion is ``F_b^{-1}(load_b)`` (the first instant
the bin has delivered its load), whatever their order. So

* a schedule meets a deadline ``D`` iff the tasks pack into the bins with
  ``load_b <= F_b(D)`` (``F_b`` is continuous and non-decreasing), and
* the optimum is ``F_b^{-1}(sigma)`` for some bin ``b`` and some subset sum
  ``sigma`` of the task sizes: it lies in the finite *candidate* set
  ``{F_b^{-1}(sigma)}``.

The model is a bin packing with the deadline in order encoding over the
sorted candidates ``D_0 < D_1 < ...``: booleans ``x[t, b]`` (task ``t`` in
bin ``b``, exactly one bin per task), ``u_c`` = "the makespan is at least
``D_c``" (``u_c >= u_{c+1}``), and for every bin

.. math:: \\sum_t w_t x_{t,b} \\le F_b(D_0) + \\sum_{c \\ge 1} u_c (F_b(D_c) - F_b(D_{c-1})),

minimising ``sum_c u_c`` (the candidate's index). Sizes are exact integers
(operations, rounded to the nearest: a fraction of one of the paper's
operations is about 1e-8 s), capacities their floor (with a relative slack of
:data:`CAP_RTOL` for the rounding of ``F``, so that an exact fit stays one).
CP-SAT's bound on the index is a bound on the makespan. Bins that start after
a feasible schedule's last completion, and candidates above it, are left out
(:func:`solve_cpsat`). ``F`` comes from the instance model's
:class:`~volsched.instances.prescient.WorkProfile` (the greedy reads the
traces its own way); the returned schedule is rebuilt back to back per bin
and re-checked by :mod:`.verify`.

Size: the candidates are enumerated from the distinct subset sums (``T + 1``
for identical tasks, up to ``2^T``); the model refuses, as bad input, more
than :data:`MAX_CANDIDATES` candidates or :data:`MAX_TASKS` tasks.
"""

from __future__ import annotations

import math
import time

import numpy as np
from ortools.sat.python import cp_model

from volsched.instances.errors import require
from volsched.instances.prescient import WorkProfile

from ..cpsat import run_cpsat
from ..problem import Effort

MAX_TASKS = 40
MAX_CANDIDATES = 20_000
#: Capacities are floored after this relative slack (the float rounding of ``F``).
CAP_RTOL = 1e-12


def _subset_sums(sizes: list[int], limit: int) -> list[int]:
    """Distinct positive subset sums up to ``limit`` (refused beyond :data:`MAX_CANDIDATES`)."""
    sums = {0}
    for s in sizes:
        sums |= {v + s for v in sums if v + s <= limit}
        require(
            len(sums) <= MAX_CANDIDATES,
            "--method",
            f"cpsat enumerates subset sums of the task sizes; more than {MAX_CANDIDATES} here "
            "(use fewer or identical tasks, or --method greedy)",
        )
    return sorted(sums - {0})


class _Bins:
    """The bins of an instance (module docstring) on the model's work profile."""

    def __init__(self, instance):
        t0 = float(instance.start)
        prof = WorkProfile(instance)
        keep = prof.iv_end > t0
        self.profile = prof
        self.iv = np.flatnonzero(keep)
        self.host = prof.iv_host[keep]
        self.start = np.maximum(prof.iv_start[keep], t0)
        self.end = prof.iv_end[keep]
        self.full = self.capacity(np.full(len(self.host), np.inf))

    def capacity(self, deadline: np.ndarray) -> np.ndarray:
        """``F_b(D)`` of every bin, operations (0 before the bin starts)."""
        d = np.clip(deadline, self.start, self.end)
        return self.profile.work_between(self.host, self.start, d)

    def capacities(self, deadlines: np.ndarray) -> np.ndarray:
        """``F_b(D)`` for every deadline (rows) and bin (columns)."""
        d = np.clip(deadlines[:, None], self.start[None, :], self.end[None, :])
        return self.profile.work_between(self.host[None, :], self.start[None, :], d)

    def finish(self, b: int, load: float) -> float:
        """``F_b^{-1}(load)``: when bin ``b``, started at its start, has delivered ``load`` operations.

        A load above the bin's work by rounding only (the capacities' slack)
        ends at the bin's end, not in a later interval.
        """
        f, _, k = self.profile.earliest_completion(self.host[b], self.start[b], load)
        return float(f) if int(k) == self.iv[b] else float(self.end[b])


def list_schedule_end(instance, profile: WorkProfile) -> float:
    """The last completion of a feasible schedule (largest task first, earliest completion), or ``inf``.

    Built on the model's :meth:`WorkProfile.earliest_completion`; only an
    upper bound for pruning the model (bins starting after it, candidates
    above it).
    """
    hosts = np.arange(instance.n_hosts)
    ready = np.full(instance.n_hosts, float(instance.start))
    last = float(instance.start)
    for w in sorted(np.asarray(instance.task_ops, dtype=float).tolist(), reverse=True):
        finish, _, _ = profile.earliest_completion(hosts, ready, w)
        h = int(np.argmin(finish))
        if not math.isfinite(finish[h]):
            return math.inf
        ready[h] = finish[h]
        last = max(last, float(finish[h]))
    return last


def solve_cpsat(
    instance,
    time_limit: float | None = None,
    seed: int = 0,
    workers: int = 2,
    budget: float | None = None,
    effort: Effort | None = None,
):
    """The optimum by the model above.

    ``budget``: CP-SAT deterministic time over the model's solves, which ``effort`` counts.

    The model keeps only the bins that start before a feasible schedule's last
    completion ``U`` (:func:`list_schedule_end`) and the candidates up to it
    (with a relative slack of 1e-9 for rounding); should that ever leave it
    infeasible, it is built again on every bin and candidate.

    Returns
    -------
    (schedule or None, makespan or None, bound or None, proven, info)
        ``schedule`` has ``host``, ``start``, ``end`` arrays over the tasks;
        ``makespan`` in seconds from the submission; ``proven`` with a
        schedule: optimal; without one: no schedule exists.
    """
    started = time.perf_counter()
    limits = (time_limit, seed, workers, started, budget, Effort() if effort is None else effort)
    n_tasks = instance.n_tasks
    require(
        n_tasks <= MAX_TASKS,
        "--method",
        f"cpsat takes at most {MAX_TASKS} tasks, got {n_tasks} (use --method greedy)",
    )
    bins = _Bins(instance)
    upper = list_schedule_end(instance, bins.profile)
    if not math.isfinite(upper):
        return _solve(instance, bins, math.inf, *limits)
    found = _solve(instance, bins, upper * (1 + 1e-9) + 1e-9, *limits)
    if found[0] is None and found[3]:  # pragma: no cover - the upper bound is feasible
        return _solve(instance, bins, math.inf, *limits)
    found[4]["upper_bound_s"] = upper - float(instance.start)
    return found


def _solve(instance, bins: _Bins, upper: float, time_limit, seed, workers, started, budget, effort):
    n_tasks = instance.n_tasks
    t0 = float(instance.start)
    ops = np.asarray(instance.task_ops, dtype=float)
    sizes = [int(round(v)) for v in ops.tolist()]
    floor_cap = [int(math.floor(c * (1 + CAP_RTOL))) for c in bins.full.tolist()]
    useful = [b for b in range(len(floor_cap)) if floor_cap[b] >= min(sizes) and bins.start[b] < upper]
    info = {"bins": len(useful)}
    if not useful:
        return None, None, None, True, info
    sums = _subset_sums(sizes, max(floor_cap[b] for b in useful))
    cand = set()
    for b in useful:
        for s in sums:
            if s > floor_cap[b]:
                break
            c = bins.finish(b, float(s))
            if c > upper:
                break
            cand.add(c)
        require(
            len(cand) <= MAX_CANDIDATES,
            "--method",
            f"cpsat would need more than {MAX_CANDIDATES} candidate makespans (use --method greedy)",
        )
    if not cand:
        return None, None, None, True, info
    times = np.array(sorted(cand))
    info["candidates"] = len(times)
    caps_int = np.floor(bins.capacities(times) * (1 + CAP_RTOL)).astype(np.int64)  # (C, bins)

    model = cp_model.CpModel()
    x = {(t, b): model.new_bool_var(f"x{t}_{b}") for t in range(n_tasks) for b in useful}
    for t in range(n_tasks):
        model.add_exactly_one(x[t, b] for b in useful)
    u = [model.new_bool_var(f"u{c}") for c in range(1, len(times))]
    for c in range(len(u) - 1):
        model.add_implication(u[c + 1], u[c])
    for b in useful:
        col = [int(v) for v in caps_int[:, b]]
        load = sum(sizes[t] * x[t, b] for t in range(n_tasks))
        steps = [(col[c] - col[c - 1]) * u[c - 1] for c in range(1, len(times)) if col[c] != col[c - 1]]
        model.add(load <= col[0] + sum(steps))
    # Identical tasks are interchangeable: fill bins in task order (symmetry breaking).
    if len(set(sizes)) == 1:
        pos = {b: i for i, b in enumerate(useful)}
        where = [sum(pos[b] * x[t, b] for b in useful) for t in range(n_tasks)]
        for t in range(n_tasks - 1):
            model.add(where[t] <= where[t + 1])
    model.minimize(sum(u))
    solver, status = run_cpsat(model, time_limit, seed, workers, started, effort.left(budget), effort)
    info.update(status=solver.status_name(status))
    if status == cp_model.INFEASIBLE:
        return None, None, None, True, info
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, None, None, False, info
    bound_index = max(0, min(len(times) - 1, int(math.ceil(solver.best_objective_bound - 1e-9))))
    host = np.zeros(n_tasks, dtype=np.int64)
    begin = np.zeros(n_tasks)
    done = np.zeros(n_tasks)
    for b in useful:
        clock = bins.start[b]
        loaded = 0.0
        for t in range(n_tasks):
            if solver.value(x[t, b]):
                loaded += ops[t]
                host[t], begin[t] = bins.host[b], clock
                clock = bins.finish(b, loaded)
                done[t] = clock
    makespan = float(done.max()) - t0
    proven = status == cp_model.OPTIMAL
    return (
        {"host": host, "start": begin, "end": done},
        makespan,
        float(times[bound_index]) - t0,
        proven,
        info,
    )
