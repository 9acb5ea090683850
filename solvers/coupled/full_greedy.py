"""A constructive schedule for problem ``full`` (an upper bound on the makespan, any size).

Casanova et al. (HCW 2013), Section III rules as replayed by :mod:`.replay`.
Iteration after iteration, from the current slot ``t0``:

1. Candidates are allocations over the processors UP at ``t0``: each single
   processor that can hold all ``m`` tasks, and sets of processors with the
   ``m`` tasks water-filled to minimise ``max_q x_q w_q`` under ``mu_q``: every
   set of at most ``m`` of them when at most :data:`ALL_SUBSETS` are UP, else for
   ``k = 1..m`` the first ``k`` of these orders: fastest ``w_q``; longest time
   before their next DOWN slot; longest current UP run; most program received
   first, then fastest; and, for each span ``2, 4, 8, ...`` that some processor
   stays UP from ``t0``, the fastest among those UP throughout it first (fast
   but soon lost workers are what the first orders miss).
2. Each candidate is simulated as one attempt started at ``t0``: transfers
   as soon as possible under ``n_com`` (the workers with the most left to receive
   first, program before data), then computation in every slot where all its
   workers are UP; it fails at the first DOWN slot of one of its workers.
3. The candidate completing earliest is committed (an entry at ``t0``, its
   transfers) and ``t0`` moves to the slot after its completion. If none
   completes, ``t0`` moves to ``t1``, the earliest slot after a candidate's
   failure or where a processor comes UP; the candidate failing last is put in
   force at ``t0`` with only its program transfers before ``t1`` (a program is
   kept while its holder is not DOWN, Section III-C), or the configuration is
   set idle when it would send nothing.

A greedy is not monotone in its candidates: an earlier first iteration can leave
worse workers for the next. :func:`greedy_full` therefore makes two passes, with
and without the span orders, and keeps the earlier makespan (on the 3,000 m = 5
paper realizations the span pass alone was better on 547 and worse on 107,
``benchmarks/RESULTS.md``).

Deterministic (ties go to the earlier candidate, lower indices first). The
dispatcher (:func:`volsched.solvers.finish`) replays the schedule; this module does not.
The steps run compiled (:mod:`._greedy_kernel`); this module sizes the arrays, keeps the
deadline and writes the schedule.
"""

from __future__ import annotations

import time

import numpy as np

from volsched.instances.coupled import CoupledInstance

from .replay import LETTERS

ALL_SUBSETS = 5
"""With at most this many processors UP, every subset of at most ``m`` of them is a candidate."""

#: Greedy steps per compiled call between two looks at the deadline (about 10 ms of steps).
BUDGET = 2000


def greedy_full(instance: CoupledInstance, deadline: float | None = None) -> dict | None:
    """A schedule of ``K`` iterations in the format of :mod:`.replay`, or ``None`` if none was found.

    The better of the two passes of the module docstring (the span pass on a tie).
    ``None`` does not prove infeasibility. Once the replay accepts it, its
    makespan is an upper bound on the optimum. With ``deadline`` (a
    ``time.perf_counter()`` value) a pass gives up, with ``None``, once that has passed.
    """
    found = [schedule for spans in (True, False)
             if (schedule := greedy_pass(instance, spans, deadline)) is not None]
    return min(found, key=lambda schedule: schedule["completions"][-1], default=None)


def greedy_pass(instance: CoupledInstance, spans: bool, deadline: float | None = None) -> dict | None:
    """One pass of the greedy, with or without the span orders; ``None`` as :func:`greedy_full`."""
    from . import _greedy_kernel as kernel  # numba only on first use

    if deadline is not None and time.perf_counter() > deadline:
        return None
    p, horizon, m, big_k = instance.p, instance.horizon, instance.m, instance.K
    avail = np.ascontiguousarray(instance.availability, dtype=np.int8)
    w = np.asarray(instance.w, dtype=np.int64)
    cap = np.array([int(min(mu, m)) for mu in instance.mu], dtype=np.int64)
    next_down, next_off, next_rise, count = kernel.tables(avail)
    state = np.zeros(3, dtype=np.int64)
    prog = np.zeros(p, dtype=np.int64)
    current = np.zeros(p, dtype=np.int64)
    starts = np.zeros(64, dtype=np.int64)
    allocations = np.zeros((64, p), dtype=np.int64)
    completions = np.zeros(big_k, dtype=np.int64)
    comm = np.zeros((p, horizon), dtype=np.int8)
    while True:
        code = kernel.steps(avail, next_down, next_off, next_rise, count, w, cap, m, big_k, instance.n_com,
                            instance.T_prog, instance.T_data, ALL_SUBSETS, spans, state, prog, current,
                            starts, allocations, completions, comm, BUDGET)
        if code in (kernel.DONE, kernel.OUT):
            break
        if code == kernel.FULL:
            starts = np.concatenate([starts, np.zeros_like(starts)])
            allocations = np.concatenate([allocations, np.zeros_like(allocations)])
        if deadline is not None and time.perf_counter() > deadline:
            return None
    if code == kernel.OUT:
        return None
    n = int(state[kernel.ENTRIES])
    codes = np.frombuffer(LETTERS.encode(), dtype=np.uint8)
    return {
        "configurations": [{"start": t, "allocation": row}
                           for t, row in zip(starts[:n].tolist(), allocations[:n].tolist(), strict=True)],
        "communication": [codes[row].tobytes().decode().rstrip(LETTERS[0]) for row in comm],
        "completions": completions.tolist(),
    }


__all__ = ["greedy_full", "greedy_pass"]
