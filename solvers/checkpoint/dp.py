"""Vectorised dynamic program over the checkpoint DAG (Section III-C).

Same states, edges and costs as :mod:`.graph`. The DAG is acyclic in the slice
index, so its shortest path is found by relaxing the edges out of the states
of slice ``j = 0, 1, ..., n - 1`` in order:

.. math:: V(i, \\sigma + c_i) = \\min_{j < i} V(j, \\sigma) + w(j, \\sigma, i),
          \\qquad V(0, 0) = 0,

with ``w`` Expression 3. Writing ``a = tau_j + sigma`` for the interval's start,
``b = tau_i + c_i + sigma`` for its end, ``F`` the CDF and
``H(t) = E[T; T <= t]``,

.. math:: w = (\\sigma + c_i - \\alpha a)(F(b) - F(a)) + \\alpha (H(b) - H(a))
            = U_{j\\sigma} - c_i F(a) + (\\sigma - \\alpha a) F(b) + W_{i\\sigma},

where ``U = -(sigma - alpha a) F(a) - alpha H(a)`` depends on the predecessor
only and ``W = c_i F(b) + alpha H(b)`` on the successor only, so ``W`` leaves
the minimum over ``j``. Relaxing state row ``j`` is one array expression over
its reachable ``sigma <= sum_{h <= j} c_h`` and every successor ``i > j``; the
law is evaluated once, on the union of all interval starts and ends. ``F`` and
``H`` (rather than the survival function and the tail expectation) keep every
term no larger than ``b F(b)``, so a job much shorter than the mean time to
failure keeps its digits. The path is recovered by re-evaluating, for each
checkpoint on it, the one column of candidates that produced it.

The separable terms are of the size of ``b F(b)``, not of the waste: summed
along a path of ``n`` edges their rounding reaches ``3e-10`` relative at
``n = 2000`` under a heavy-tailed law (``benchmarks/RESULTS.md``, issue 14).
So the objective returned is the path's waste summed interval by interval
(:meth:`CheckpointInstance.expected_waste`, a few ``1e-12`` there); the path
is optimal up to the DP's rounding.
"""

from __future__ import annotations

import numpy as np

from volsched.instances.checkpoint import CheckpointInstance


def _union_of_ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Sorted union of the integer ranges ``[lo_k, hi_k]`` (inclusive)."""
    order = np.argsort(lo, kind="stable")
    lo, hi = lo[order], np.maximum.accumulate(hi[order])
    fresh = np.concatenate([[True], lo[1:] > hi[:-1]])
    first = lo[fresh]
    last = hi[np.concatenate([np.flatnonzero(fresh)[1:] - 1, [len(lo) - 1]])]
    lengths = last - first + 1
    shift = first - np.concatenate([[0], np.cumsum(lengths)[:-1]])
    return np.repeat(shift, lengths) + np.arange(lengths.sum())


def solve_dp(instance: CheckpointInstance) -> tuple[np.ndarray, float]:
    """Optimal checkpoint vector and its expected waste."""
    n, c, alpha, law = instance.n, instance.c, instance.alpha, instance.law
    tau = instance.tau
    reach = np.concatenate([[0], np.cumsum(c)])  # the largest sigma of state j
    width = reach[n - 1] + 1
    sigma = np.arange(width)

    # State j's intervals start in [tau_j, tau_j + reach_j]; edges into i end in
    # [tau_i + c_i, tau_i + c_i + reach_{i-1}]. Each range is contiguous in the union.
    start0, end0 = tau[:n], tau[1:] + c
    points = _union_of_ranges(np.concatenate([start0, end0]),
                              np.concatenate([start0 + reach[:n], end0 + reach[:n]]))
    cdf = law.cdf(points.astype(float))
    head = alpha * law.head_expectation(points.astype(float))
    last = len(points) - 1
    at_start = np.minimum(np.searchsorted(points, start0)[:, None] + sigma, last)
    at_end = np.minimum(np.searchsorted(points, end0)[:, None] + sigma, last)

    f_start, f_end = cdf[at_start], cdf[at_end]
    coef = sigma - alpha * (start0[:, None] + sigma)
    u = -coef * f_start - head[at_start]
    w = c[:, None] * f_end + head[at_end]

    # best[i - 1, s]: the shortest path into (i, s + c_i), with s the predecessor's sigma;
    # x[j, s] = V(j, s) + U[j, s]. Unreachable states stay infinite.
    best = np.full((n, width), np.inf)
    x = np.full((n, width), np.inf)
    x[0, 0] = u[0, 0]
    for j in range(n):
        r = reach[j] + 1
        if j:
            cj = c[j - 1]
            x[j, cj:r] = best[j - 1, : r - cj] + w[j - 1, : r - cj] + u[j, cj:r]
        t = f_end[j:, :r] * coef[j, :r]
        t -= np.multiply.outer(c[j:], f_start[j, :r])
        t += x[j, :r]
        np.minimum(best[j:, :r], t, out=best[j:, :r])

    final = best[n - 1] + w[n - 1]
    s = int(np.argmin(final))
    a = np.zeros(n, dtype=bool)
    i = n
    while True:
        a[i - 1] = True
        j = int(np.argmin(f_end[i - 1, s] * coef[:i, s] - c[i - 1] * f_start[:i, s] + x[:i, s]))
        if j == 0:
            return a, instance.expected_waste(a)
        i, s = j, s - int(c[j - 1])
