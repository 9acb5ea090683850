"""Exhaustive enumeration of all ``2^(n-1)`` checkpoint vectors with ``a_n = 1``.

The oracle of the tests. It evaluates every vector at once with numpy, from
the interval decomposition of Expression 1 rather than from the DAG.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from volsched.instances.errors import require

if TYPE_CHECKING:
    from volsched.instances.checkpoint import CheckpointInstance

MAX_SLICES = 16


def solve_brute(instance: CheckpointInstance) -> tuple[np.ndarray, float]:
    """Optimal checkpoint vector and its expected waste by enumeration (``n <= 16``)."""
    n = instance.n
    require(n <= MAX_SLICES, "method", f"brute enumerates 2^(n-1) schedules; n = {n} > {MAX_SLICES}")
    codes = np.arange(2 ** (n - 1), dtype=np.int64)
    bits = (codes[:, None] >> np.arange(n - 1)) & 1
    a = np.concatenate([bits, np.ones((len(codes), 1), dtype=np.int64)], axis=1).astype(bool)

    sigma = np.cumsum(a * instance.c, axis=1)
    end = instance.tau[1:] + sigma
    # Start of the interval that closes at slice i: the end of the previous checkpoint, or 0.
    marks = np.where(a, np.arange(1, n + 1), 0)
    previous = np.concatenate(
        [np.zeros((len(codes), 1), dtype=np.int64), np.maximum.accumulate(marks, axis=1)[:, :-1]], axis=1
    )
    start = np.take_along_axis(np.concatenate([np.zeros((len(codes), 1)), end], axis=1), previous, axis=1)
    law, alpha = instance.law, instance.alpha
    prob = law.interval_probability(start, end)
    cost = (sigma - alpha * start) * prob + alpha * law.partial_expectation(start, end)
    waste = np.where(a, cost, 0.0).sum(axis=1)
    best = int(np.argmin(waste))
    return a[best], float(waste[best])
