"""Vectorised dynamic program over the checkpoint DAG (Section III-C).

Same states, edges and costs as :mod:`.graph`. The DAG is acyclic in the slice
index, so its shortest path is the forward recursion

.. math:: V(i, \\sigma + c_i) = \\min_{j < i} V(j, \\sigma) + w(j, \\sigma, i),
          \\qquad V(0, 0) = 0,

with ``w`` Expression 3. Writing ``a = tau_j + sigma`` for the interval's start,
``b = tau_i + c_i + sigma`` for its end, ``F`` the CDF and
``H(t) = E[T; T <= t]``,

.. math:: w = (\\sigma + c_i - \\alpha a)(F(b) - F(a)) + \\alpha (H(b) - H(a))
            = U_{j\\sigma} - c_i F(a) + (\\sigma - \\alpha a) F(b) + W_{i\\sigma},

where ``U = -(sigma - alpha a) F(a) - alpha H(a)`` depends on the predecessor
only and ``W = c_i F(b) + alpha H(b)`` on the successor only, so ``W`` leaves
the minimum over ``j``. Each ``i`` is then one array expression over all
predecessors ``(j, sigma)``; the law is evaluated once, on the union of all
interval starts and ends. ``F`` and ``H`` (rather than the survival function
and tail expectation) keep every term no larger than ``b F(b)``, so a job much
shorter than the mean time to failure keeps its digits. The optimal path is
recovered by re-evaluating one column per checkpoint.
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

    # x[j, sigma] = V(j, sigma) + U[j, sigma]; unreachable states stay infinite.
    x = np.full((n, width), np.inf)
    x[0, 0] = u[0, 0]
    buf = np.empty((n, width))
    for i in range(1, n):
        k, ci = reach[i - 1] + 1, c[i - 1]
        t = buf[:i, :k]
        np.multiply(coef[:i, :k], f_end[i - 1, :k], out=t)
        np.add(x[:i, :k], t, out=t)
        t -= ci * f_start[:i, :k]
        best = t.min(axis=0)
        x[i, ci : ci + k] = best + w[i - 1, :k] + u[i, ci : ci + k]

    final = (x - c[-1] * f_start + coef * f_end[-1]).min(axis=0) + w[-1]
    s = int(np.argmin(final))
    objective = float(final[s])

    a = np.zeros(n, dtype=bool)
    i = n
    while True:
        a[i - 1] = True
        j = int(np.argmin(x[:i, s] - c[i - 1] * f_start[:i, s] + coef[:i, s] * f_end[i - 1, s]))
        if j == 0:
            return a, objective
        i, s = j, s - int(c[j - 1])
