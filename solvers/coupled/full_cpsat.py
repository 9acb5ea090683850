"""Problem ``full``: the complete model of Section III, an exact time-indexed CP-SAT model.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Section III: minimise the makespan
(last completion slot plus one) of ``K`` iterations within the horizon, with
heterogeneous ``w``, bounded ``mu``, program and data transfers and the master's
``n_com`` bandwidth. The model is the replay rules of :mod:`.replay`, slot by
slot, with one variable per rule:

* ``x[q,t]`` tasks of ``q`` in force at ``t``, ``e[q,t] = (x[q,t] >= 1)``,
  ``act[t]`` (``sum_q x = m act``), ``r[t]`` a configuration entry starts at ``t``
  (``x`` may only change there; no entry before the first one means idle);
* ``new[t] = r[t] or done[t-1] or (some enrolled worker DOWN at t-1)``;
* ``P[q,t]``, ``D[q,t]`` transfers (``q`` UP and enrolled, at most one per
  processor and ``n_com`` per slot, never useless);
* ``g[q,t]`` program progress (``+P``; 0 after a DOWN slot, and when ``q``
  leaves the configuration with a partial program: ``lose[q,t]``),
  ``d[q,t]`` data progress (``+D``; ``min(d, T_data x[q,t])`` across an entry,
  so 0 for a worker that leaves; 0 after ``q``'s DOWN slot and after a
  completed iteration), ``c[t]`` compute progress (0 at a new attempt), all at
  the start of ``t`` (what a worker keeps: :mod:`.replay`, "Kept data");
* ``comp[t]`` iff the allocation is not idle and every enrolled worker is UP
  with the whole program and data (forced, in both directions);
  ``done[t]`` iff ``comp[t]`` and ``c[t] + 1 = W[t] = max_q w_q x[q,t]``;
* ``f[t]`` (``K`` iterations done by the end of ``t``), monotone and true at
  ``H - 1``; the makespan is ``1 + #{t : not f[t]}``.

It is only practical for tiny instances (a few processors, a few tens of slots):
:data:`MAX_CELLS` bounds ``p x H``. The returned schedule is replayed by the
dispatcher (:func:`volsched.solvers.finish`), not here.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

from ortools.sat.python import cp_model

from volsched.instances.coupled import DOWN, UP, CoupledInstance
from volsched.instances.errors import require

from ..cpsat import run_cpsat
from .full import MAX_CELLS, trivial_bound
from .replay import DATA, LETTERS, PROG

if TYPE_CHECKING:
    from collections.abc import Collection

    from ..problem import Effort


def _hint_decisions(model: cp_model.CpModel, hint: dict, x, r, send_p, send_d, p: int, horizon: int) -> None:
    """Hint the decisions of a schedule (entries, allocations, transfers); CP-SAT completes the states.

    Read straight from the schedule dict, not through the verifier's replay:
    only the dispatcher verifies.
    """
    starts = {int(c["start"]): [int(v) for v in c["allocation"]] for c in hint.get("configurations", [])}
    current = [0] * p
    for t in range(horizon):
        model.add_hint(r[t], int(t in starts))
        current = starts.get(t, current)
        for q in range(p):
            model.add_hint(x[q][t], current[q])
    for q, row in enumerate(hint.get("communication", [])):
        for t in range(horizon):
            letter = row[t] if t < len(row) else LETTERS[0]
            model.add_hint(send_p[q][t], int(letter == LETTERS[PROG]))
            model.add_hint(send_d[q][t], int(letter == LETTERS[DATA]))


def solve_full_cpsat(
    instance: CoupledInstance,
    time_limit: float | None = None,
    seed: int = 0,
    workers: int = 2,
    hint: dict | None = None,
    budget: float | None = None,
    effort: Effort | None = None,
    holders: Collection[int] = (),
    gather: Collection[int] | None = None,
    exclude: Collection[Collection[int]] = (),
    **parameters,
):
    """Minimum makespan of ``K`` iterations under the full model of Section III.

    Parameters
    ----------
    instance : CoupledInstance
        At most :data:`MAX_CELLS` processor-slots (``p x H``).
    time_limit : float, optional
        Seconds for CP-SAT.
    seed, workers : int
        CP-SAT ``random_seed`` and ``num_workers``.
    hint : dict, optional
        A schedule in the format of :mod:`.replay` (e.g. from
        :func:`.greedy_full.greedy_full`) given to CP-SAT as a solution hint.
    budget : float, optional
        CP-SAT deterministic time (:mod:`..cpsat`).
    effort : Effort, optional
        Receives what the search spent and why it stopped.
    holders : collection of int, optional
        Processors that hold a complete program at slot 0 (default none, as in the paper's
        start): a window of a longer run that begins just after an iteration completed
        (:mod:`.full_windows`).
    gather : collection of int, optional
        Instead of the makespan, maximise how many of these processors hold a complete program
        at the end of the horizon, with ``K`` iterations completed within it and nothing entered
        or sent after the ``K``-th completion. The schedule then also lists ``holders``, the
        processors holding a complete program just after that completion, and the bound is
        ``None`` (``proven`` is only ever true for a window where no ``K`` iterations fit).
    exclude : collection of collections of int, optional
        With ``gather``: sets of processors that the schedule's ``kept`` (the processors holding a
        complete program at the end of the horizon, also returned) must not lie within: a window
        solved again after the state it led to was a dead end (:mod:`.full_windows`), where fewer
        holders would be no better.
    **parameters
        Further CP-SAT parameters by name (:func:`..cpsat.run_cpsat`).

    Returns
    -------
    (schedule, makespan, bound, proven)
        ``schedule`` (dict, replayed) and ``makespan`` are ``None`` when no
        schedule was found; ``bound`` is a proven lower bound on the makespan
        (``H + 1`` when infeasible); ``proven`` says the answer is optimal (or
        proven infeasible).

    Raises
    ------
    InputError
        ``p x H`` exceeds :data:`MAX_CELLS`.
    """
    started = time.perf_counter()
    p, horizon, m, big_k = instance.p, instance.horizon, instance.m, instance.K
    require(
        p * horizon <= MAX_CELLS,
        "horizon",
        f"p x H = {p} x {horizon} = {p * horizon} exceeds the full model's limit of {MAX_CELLS} "
        "processor-slots (use --method greedy for bounds)",
    )
    avail, w = instance.availability, [int(v) for v in instance.w]
    up, down = avail == UP, avail == DOWN
    cap = [int(min(instance.mu[q], m)) for q in range(p)]
    t_prog, t_data = instance.T_prog, instance.T_data
    w_max = max(w[q] * cap[q] for q in range(p))
    model = cp_model.CpModel()
    nb, ni = model.new_bool_var, model.new_int_var
    Q, T = range(p), range(horizon)

    x = [[ni(0, cap[q], f"x{q}_{t}") for t in T] for q in Q]
    e = [[nb(f"e{q}_{t}") for t in T] for q in Q]
    act = [nb(f"act{t}") for t in T]
    r = [nb(f"r{t}") for t in T]
    new = [nb(f"new{t}") for t in T]
    send_p = [[nb(f"P{q}_{t}") for t in T] for q in Q]
    send_d = [[nb(f"D{q}_{t}") for t in T] for q in Q]
    g = [[ni(0, t_prog, f"g{q}_{t}") for t in T] for q in Q]
    d = [[ni(0, cap[q] * t_data, f"d{q}_{t}") for t in T] for q in Q]
    pc = [[nb(f"pc{q}_{t}") for t in T] for q in Q]
    dc = [[nb(f"dc{q}_{t}") for t in T] for q in Q]
    bad = [[nb(f"bad{q}_{t}") for t in T] for q in Q]
    work = [ni(0, w_max, f"W{t}") for t in T]
    c = [ni(0, w_max, f"c{t}") for t in T]
    comp = [nb(f"comp{t}") for t in T]
    done = [nb(f"done{t}") for t in T]
    cum = [ni(0, horizon, f"cum{t}") for t in T]
    fin = [nb(f"f{t}") for t in T]

    for t in T:
        model.add(sum(x[q][t] for q in Q) == m * act[t])
        model.add_max_equality(work[t], [w[q] * x[q][t] for q in Q])
        model.add(sum(send_p[q][t] + send_d[q][t] for q in Q) <= instance.n_com)
        for q in Q:
            model.add(x[q][t] >= e[q][t])
            model.add(x[q][t] <= cap[q] * e[q][t])
            if t == 0:
                model.add(x[q][t] == 0).only_enforce_if(~r[t])
            else:
                model.add(x[q][t] == x[q][t - 1]).only_enforce_if(~r[t])
            # Transfers: UP, enrolled, one per processor, never useless.
            if not up[q, t]:
                model.add(send_p[q][t] == 0)
                model.add(send_d[q][t] == 0)
            model.add_implication(send_p[q][t], e[q][t])
            model.add_implication(send_d[q][t], e[q][t])
            model.add(send_p[q][t] + send_d[q][t] <= 1)
            model.add(g[q][t] + send_p[q][t] <= t_prog)
            model.add(d[q][t] + send_d[q][t] <= t_data * x[q][t])
            # Program: kept while RECLAIMED, lost when DOWN; a partial one lost on leaving.
            if t == 0:
                model.add(g[q][t] == (t_prog if q in holders else 0))
            elif down[q, t - 1]:
                model.add(g[q][t] == 0)
            else:
                gp = g[q][t - 1] + send_p[q][t - 1]
                leave, lose, full = nb(f"leave{q}_{t}"), nb(f"lose{q}_{t}"), nb(f"full{q}_{t}")
                model.add_bool_and([e[q][t - 1], ~e[q][t]]).only_enforce_if(leave)
                model.add_bool_or([~e[q][t - 1], e[q][t], leave])
                model.add(gp >= t_prog).only_enforce_if(full)
                model.add(gp <= t_prog - 1).only_enforce_if(~full)
                model.add_bool_and([leave, ~full]).only_enforce_if(lose)
                model.add_bool_or([~leave, full, lose])
                model.add(g[q][t] == 0).only_enforce_if(lose)
                model.add(g[q][t] == gp).only_enforce_if(~lose)
            # Data: kept up to the new allocation's need, lost on DOWN and after an iteration.
            if t == 0 or down[q, t - 1]:
                model.add(d[q][t] == 0)
            else:
                kept = ni(0, cap[q] * t_data, f"kept{q}_{t}")
                model.add_min_equality(kept, [d[q][t - 1] + send_d[q][t - 1], t_data * x[q][t]])
                model.add(d[q][t] == 0).only_enforce_if(done[t - 1])
                model.add(d[q][t] == kept).only_enforce_if(~done[t - 1])
            # pc, dc: program and data complete at the start of t.
            model.add(g[q][t] >= t_prog).only_enforce_if(pc[q][t])
            if t_prog > 0:
                model.add(g[q][t] <= t_prog - 1).only_enforce_if(~pc[q][t])
            elif gather is not None:  # without a makespan to minimise, nothing else forces it
                model.add(pc[q][t] == 1)
            model.add(d[q][t] >= t_data * x[q][t]).only_enforce_if(dc[q][t])
            if t_data > 0:
                model.add(d[q][t] <= t_data * x[q][t] - 1).only_enforce_if(~dc[q][t])
            elif gather is not None:
                model.add(dc[q][t] == 1)
            # bad: enrolled but not ready to compute.
            model.add_implication(bad[q][t], e[q][t])
            if up[q, t]:
                model.add_bool_or([~bad[q][t], ~pc[q][t], ~dc[q][t]])
                model.add_bool_or([~e[q][t], pc[q][t], bad[q][t]])
                model.add_bool_or([~e[q][t], dc[q][t], bad[q][t]])
            else:
                model.add_implication(e[q][t], bad[q][t])
        # Forced computation.
        model.add_implication(comp[t], act[t])
        for q in Q:
            model.add_implication(comp[t], ~bad[q][t])
        model.add_bool_or([~act[t], comp[t], *(bad[q][t] for q in Q)])
        # Attempts and compute progress.
        causes = [r[t]]
        if t > 0:
            causes += [done[t - 1], *(e[q][t - 1] for q in Q if down[q, t - 1])]
        for lit in causes:
            model.add_implication(lit, new[t])
        model.add_bool_or([~new[t], *causes])
        if t == 0:
            model.add(c[t] == 0)
        else:
            model.add(c[t] == 0).only_enforce_if(new[t])
            model.add(c[t] == c[t - 1] + comp[t - 1]).only_enforce_if(~new[t])
        model.add(c[t] + comp[t] <= work[t])
        model.add_implication(done[t], comp[t])
        model.add(c[t] + 1 == work[t]).only_enforce_if(done[t])
        model.add(c[t] + 2 <= work[t]).only_enforce_if([comp[t], ~done[t]])
        # K iterations by the end of t.
        model.add(cum[t] == (cum[t - 1] if t > 0 else 0) + done[t])
        model.add(cum[t] >= big_k).only_enforce_if(fin[t])
        if gather is not None:  # no objective makes fin exact here
            model.add(cum[t] <= big_k - 1).only_enforce_if(~fin[t])
        if t > 0:
            model.add_implication(fin[t - 1], fin[t])
            if gather is not None:
                model.add_implication(fin[t - 1], ~r[t])
                for q in Q:
                    model.add_implication(fin[t - 1], ~send_p[q][t])
                    model.add_implication(fin[t - 1], ~send_d[q][t])
    model.add(fin[horizon - 1] == 1)
    if gather is None:
        model.minimize(1 + horizon - sum(fin))
    else:
        end = horizon - 1
        held = {}
        for q in Q:
            if down[q, end] or (q not in gather and not exclude):
                continue
            held[q] = h = nb(f"h{q}")
            model.add(g[q][end] + send_p[q][end] >= t_prog).only_enforce_if(h)
            if exclude:  # exact only where a set is excluded: the objective needs one side
                model.add(g[q][end] + send_p[q][end] <= t_prog - 1).only_enforce_if(~h)
        for other in exclude:
            model.add_bool_or([h for q, h in held.items() if q not in other])
        model.maximize(sum(held[q] for q in gather if q in held))

    if hint is not None:
        _hint_decisions(model, hint, x, r, send_p, send_d, p, horizon)

    solver, status = run_cpsat(model, time_limit, seed, workers, started, budget, effort, **parameters)
    if status == cp_model.INFEASIBLE:
        return None, None, horizon + 1, True
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, None, trivial_bound(instance), False
    if gather is None:
        makespan = int(round(solver.objective_value))
    else:
        makespan = 1 + horizon - sum(solver.value(v) for v in fin)
    schedule = {
        "configurations": [
            {"start": t, "allocation": [int(solver.value(x[q][t])) for q in Q]}
            for t in range(makespan)
            if solver.boolean_value(r[t])
        ],
        "communication": [
            "".join(
                LETTERS[PROG]
                if solver.boolean_value(send_p[q][t])
                else LETTERS[DATA]
                if solver.boolean_value(send_d[q][t])
                else LETTERS[0]
                for t in range(makespan)
            ).rstrip(LETTERS[0])
            for q in Q
        ],
        "completions": [t for t in T if solver.boolean_value(done[t])][:big_k],
    }
    if gather is not None:  # the objective counts holders: no bound on the makespan
        last = makespan - 1
        gp = [solver.value(g[q][last]) + solver.value(send_p[q][last]) for q in Q]
        schedule["holders"] = [q for q in Q if t_prog == 0 or (not down[q, last] and gp[q] >= t_prog)]
        ends = [solver.value(g[q][end]) + solver.value(send_p[q][end]) for q in Q]
        schedule["kept"] = [q for q in Q if t_prog == 0 or (not down[q, end] and ends[q] >= t_prog)]
        return schedule, makespan, None, False
    bound = max(int(math.ceil(solver.best_objective_bound - 1e-6)), trivial_bound(instance))
    return schedule, makespan, min(bound, makespan), status == cp_model.OPTIMAL


__all__ = ["MAX_CELLS", "solve_full_cpsat", "trivial_bound"]
