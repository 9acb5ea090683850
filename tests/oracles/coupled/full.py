"""Brute-force oracles for the coupled ``full`` problem (tiny instances only).

Written from the rules of Section III as stated in the task, independently of
``solvers/coupled/replay.py`` and ``full.py``.

:func:`brute_full` is a breadth-first search over slots keeping every reachable
state ``(iterations done, program progress per processor, allocation, data
progress per processor, compute progress)`` at the start of each slot; in each
slot every decision is tried: keep the configuration in force, or start an entry
with any allocation (the same one included: an explicit restart), then every set
of at most ``n_com`` useful transfers to UP enrolled workers. What survives: the
program until a DOWN slot (a partial one also lost on leaving the
configuration); data until the worker's DOWN slot, the end of the iteration or
its leaving, and across an entry up to what its new tasks need; computation
until any new attempt (Sections III-B, III-C, VI-A). The first slot at
whose end some state reaches ``K`` iterations gives the minimum makespan.

:func:`brute_nocomm` solves the communication-free problem (``T_prog = T_data =
0``) by a different argument: an attempt started at ``s`` on allocation ``x``
computes in every slot where its workers are all UP and dies at the first DOWN
of one of them, and an attempt may start at any slot after the previous
completion, so the earliest ``k``-th completion is the earliest over ``(s, x)``
with ``s`` after the earliest ``(k-1)``-th.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from volsched.instances.coupled import DOWN, UP, CoupledInstance


def allocations(instance: CoupledInstance) -> list[tuple[int, ...]]:
    """Every allocation: all zero, or ``0 <= x_q <= mu_q`` summing to ``m``."""
    m = instance.m
    caps = [int(min(mu, m)) for mu in instance.mu]
    out = [tuple([0] * instance.p)]
    for x in itertools.product(*(range(k + 1) for k in caps)):
        if sum(x) == m:
            out.append(tuple(x))
    return out


def _transfer_sets(avail_t, x, g, d, t_prog, t_data, n_com):
    """Every choice of per-processor transfer ('.', 'P' or 'D') with at most n_com transfers."""
    options = []
    for q, xq in enumerate(x):
        opts = ["."]
        if avail_t[q] == UP and xq >= 1:
            if g[q] < t_prog:
                opts.append("P")
            if d[q] < xq * t_data:
                opts.append("D")
        options.append(opts)
    for combo in itertools.product(*options):
        if sum(s != "." for s in combo) <= n_com:
            yield combo


def _enter(x, y, g, d, t_prog, t_data):
    """Program and data kept when allocation ``y`` replaces ``x`` (Sections III-C, VI-A).

    A worker that leaves loses a partial program and all its data; one that
    stays keeps its data up to what its new tasks need.
    """
    g2 = tuple(0 if x[q] and not y[q] and g[q] < t_prog else g[q] for q in range(len(x)))
    d2 = tuple(min(d[q], y[q] * t_data) for q in range(len(x)))
    return g2, d2


def brute_full(instance: CoupledInstance, holders=()) -> int | None:
    """Minimum makespan of ``K`` iterations (``None`` when none fits in the horizon); the processors
    of ``holders`` hold a complete program at slot 0 (a window just after a completed iteration)."""
    p, horizon, big_k = instance.p, instance.horizon, instance.K
    w, t_prog, t_data, n_com = [int(v) for v in instance.w], instance.T_prog, instance.T_data, instance.n_com
    avail = instance.availability
    allocs = allocations(instance)
    zeros = tuple([0] * p)
    start = tuple(t_prog if q in holders else 0 for q in range(p))
    states = {(0, start, zeros, zeros, 0)}  # done, g, x, d, c
    for t in range(horizon):
        col = avail[:, t]
        nxt = set()
        for done, g, x, d, c in states:
            choices = {(x, g, d, c)} | {(y, *_enter(x, y, g, d, t_prog, t_data), 0) for y in allocs}
            for xx, gg, dd, cc in choices:
                workload = max(xq * wq for xq, wq in zip(xx, w, strict=True))
                enrolled = [q for q in range(p) if xx[q] >= 1]
                for combo in _transfer_sets(col, xx, gg, dd, t_prog, t_data, n_com):
                    computes = workload > 0 and all(
                        col[q] == UP and gg[q] >= t_prog and dd[q] >= xx[q] * t_data and combo[q] == "."
                        for q in enrolled
                    )
                    c2 = cc + 1 if computes else cc
                    completed = computes and c2 == workload
                    done2 = done + completed
                    if done2 >= big_k:
                        return t + 1
                    g2 = tuple(0 if col[q] == DOWN else gg[q] + (combo[q] == "P") for q in range(p))
                    d2 = tuple(
                        0 if col[q] == DOWN or completed else dd[q] + (combo[q] == "D") for q in range(p)
                    )
                    if completed or any(col[q] == DOWN for q in enrolled):
                        c2 = 0
                    nxt.add((done2, g2, xx, d2, c2))
        states = nxt
    return None


def brute_nocomm(instance: CoupledInstance) -> int | None:
    """Minimum makespan of ``K`` iterations with ``T_prog = T_data = 0`` (transfers ignored)."""
    horizon, w = instance.horizon, instance.w
    up, down = instance.availability == UP, instance.availability == DOWN
    allocs = [np.asarray(x) for x in allocations(instance)[1:]]

    def finish(s, x):
        rows = np.flatnonzero(x)
        workload = int((x * w).max())
        count = 0
        for t in range(s, horizon):
            if down[rows, t].any():
                return math.inf
            if up[rows, t].all():
                count += 1
                if count == workload:
                    return t
        return math.inf

    earliest = 0  # first slot the next iteration may start
    for _ in range(instance.K):
        best = min((finish(s, x) for s in range(earliest, horizon) for x in allocs), default=math.inf)
        if best == math.inf:
            return None
        earliest = best + 1
    return earliest


def random_tiny(
    rng: np.random.Generator, max_p: int = 3, max_h: int = 8, comm: bool = True, max_k: int = 2
) -> CoupledInstance:
    """A random tiny instance (random U/R/D strings, w, mu, m, n_com, T's, K)."""
    while True:
        p = int(rng.integers(1, max_p + 1))
        horizon = int(rng.integers(max_h // 2, max_h + 1))
        probs = rng.dirichlet([8.0, 1.5, 1.0])
        avail = rng.choice(3, size=(p, horizon), p=probs).astype(np.int8)
        w = rng.integers(1, 4, p).tolist()
        mu = [None if v == 0 else int(v) for v in rng.integers(0, 3, p)]
        m = int(rng.integers(1, 4))
        if sum(min(m, v if v is not None else m) for v in mu) < m:
            continue
        return CoupledInstance(
            availability=avail,
            w=w,
            mu=mu,
            m=m,
            n_com=int(rng.integers(1, 3)),
            T_prog=int(rng.integers(0, 3)) if comm else 0,
            T_data=int(rng.integers(0, 2)) if comm else 0,
            K=int(rng.integers(1, max_k + 1)),
        )


def program_holders(instance: CoupledInstance, schedule: dict, end: int) -> list[int]:
    """The processors holding a complete program at the start of slot ``end`` under ``schedule``,
    from nothing at slot 0: a program grows by its ``'P'`` slots, is lost on DOWN, and a partial
    one is lost when its worker leaves the configuration (Sections III-B, III-C)."""
    p, t_prog = instance.p, instance.T_prog
    starts = {int(c["start"]): list(c["allocation"]) for c in schedule["configurations"]}
    x, g = [0] * p, [0] * p
    for t in range(end):
        y = starts.get(t, x)
        g = [0 if x[q] and not y[q] and g[q] < t_prog else g[q] for q in range(p)]
        x = y
        for q in range(p):
            row = schedule["communication"][q]
            if t < len(row) and row[t] == "P":
                g[q] += 1
            if instance.availability[q, t] == DOWN:
                g[q] = 0
    return [q for q in range(p) if g[q] >= t_prog]
