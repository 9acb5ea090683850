"""Enumeration of all m-subsets of processors for OFF-LINE-COUPLED (the tests' oracle, p <= 16)."""

from __future__ import annotations

import itertools

import numpy as np

from volsched.instances.errors import require

MAX_PROCESSORS = 16


def solve_brute(up: np.ndarray, m: int) -> tuple[list[int], int]:
    p = up.shape[0]
    require(p <= MAX_PROCESSORS, "method", f"brute enumerates all m-subsets; p = {p} > {MAX_PROCESSORS}")
    best, best_set = -1, []
    for subset in itertools.combinations(range(p), m):
        value = int(np.logical_and.reduce(up[list(subset)], axis=0).sum())
        if value > best:
            best, best_set = value, list(subset)
    return best_set, best


def solve_flexible_brute(up: np.ndarray, m: int, w: int) -> tuple[list[int] | None, int | None]:
    """OFF-LINE-COUPLED (mu = inf) by enumeration: ``(processors, T)`` or ``(None, None)``."""
    import math

    p = up.shape[0]
    require(p <= MAX_PROCESSORS, "method", f"brute enumerates all subsets; p = {p} > {MAX_PROCESSORS}")
    best, best_set = None, None
    for k in range(1, min(m, p) + 1):
        need = math.ceil(m / k) * w
        for subset in itertools.combinations(range(p), k):
            common = np.flatnonzero(np.logical_and.reduce(up[list(subset)], axis=0))
            if len(common) >= need and (best is None or common[need - 1] + 1 < best):
                best, best_set = int(common[need - 1]) + 1, list(subset)
    return best_set, best


def iterations_brute(instance) -> list[tuple[int, int, list[int], int]]:
    """Problem ``iterations`` by enumeration: ``[(start, completion, allocation, W)]``.

    Every allocation ``x`` (``0 <= x_q <= min(mu_q, m)``, ``sum x = m``) is
    scanned slot by slot from the iteration's start: its count of all-UP
    slots restarts after each DOWN of an enrolled worker and the iteration
    completes when it reaches ``max x_q w_q``; the earliest over all
    allocations is chained (``p <= 6``).
    """
    p = instance.p
    require(p <= 6, "method", f"iterations brute enumerates every allocation; p = {p} > 6")
    limits = [int(min(mu, instance.m)) for mu in instance.mu]
    allocations = [x for x in itertools.product(*(range(c + 1) for c in limits)) if sum(x) == instance.m]
    state = instance.availability
    done, start = [], 0
    while len(done) < instance.K:
        best = None
        for x in allocations:
            enrolled = [q for q in range(p) if x[q]]
            need = max(x[q] * int(instance.w[q]) for q in enrolled)
            count, begin = 0, start
            for t in range(start, instance.horizon):
                if any(state[q, t] == 2 for q in enrolled):
                    count, begin = 0, t + 1
                elif all(state[q, t] == 0 for q in enrolled):
                    count += 1
                    if count == need:
                        if best is None or t < best[1]:
                            best = (begin, t, list(x), need)
                        break
        if best is None:
            break
        done.append(best)
        start = best[1] + 1
    return done
