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
its reachable ``sigma <= sum_{h <= j} c_h`` and every successor ``i > j``. ``F``
and ``H`` (rather than the survival function and the tail expectation) keep
every term no larger than ``b F(b)``, so a job much shorter than the mean time
to failure keeps its digits. The path is recovered by re-evaluating, for each
checkpoint on it, the one column of candidates that produced it.

**Compressed index.** The columns are not the values of ``sigma`` but the
positions in the sorted set ``U`` of the overheads a predecessor can have, the
subset sums of ``c_1 .. c_{n-1}`` (:func:`.states.reachable_overheads`):
``c = [10^9, 1, 1, 1, 1, 1]`` needs 10 columns, not ``10^9 + 5``. Column ``s``
holds ``sigma = U[s]``, and row ``j``'s ``sigma <= sum_{h <= j} c_h`` are a
prefix of the columns. The shift ``sigma -> sigma + c_j`` into row ``j`` is an
index map (``searchsorted`` of ``U[s] + c_j`` in ``U``, keeping the targets
that are in ``U``: every reachable one is), and so is the step back on the
path. A column no state of the row has stays infinite, as an unreachable
``sigma`` of a dense range does. The law is evaluated row by row, on
``tau_j + U`` and ``tau_i + c_i + U``.

**Dense index, the common case.** When ``U`` fills at least half of the range
``0 .. c_1 + ... + c_{n-1}`` (small integer costs), the columns are that whole
range: the index is the value, the shift a slice, and the law is evaluated
once, on the union of all interval starts and ends (contiguous ranges), of
which each row's values are a slice; a small job gathers the terms of all rows
at once. The result is the same, bit for bit, as on the compressed index.

**Memory.** The DP holds :data:`.states.DP_ARRAYS` arrays of ``n x columns``
doubles; a job above :data:`.states.MEMORY_BUDGET` is refused as bad input
(exit 2) before anything is allocated, with a method that can still solve it.

The separable terms are of the size of ``b F(b)``, not of the waste: summed
along a path of ``n`` edges their rounding reaches ``3e-10`` relative at
``n = 2000`` under a heavy-tailed law (``benchmarks/RESULTS.md``).
So the objective returned is the path's waste summed interval by interval
(:meth:`CheckpointInstance.expected_waste`, a few ``1e-12`` there); the path
is optimal up to the DP's rounding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import states

if TYPE_CHECKING:
    from volsched.instances.checkpoint import CheckpointInstance

#: The columns are the whole range ``0 .. sum c`` when it is at most this many
#: times the number of reachable overheads (and fits the budget).
DENSE_RATIO = 2

#: Bytes per point of the union of interval starts and ends (the point, its CDF
#: and head expectation); the union is used only while it fits the budget too.
UNION_BYTES = 24

#: Up to this many cells ``n x columns`` (law on the union), the terms of all rows are computed
#: at once, as full arrays (five more: 2.5 MiB at most, not counted in the budget).
ALL_ROWS_CELLS = 2**16


def _union_of_ranges(lo: np.ndarray, hi: np.ndarray, limit: int) -> np.ndarray | None:
    """Sorted union of the integer ranges ``[lo_k, hi_k]`` (inclusive); ``None`` above ``limit`` values."""
    order = np.argsort(lo, kind="stable")
    lo, hi = lo[order], np.maximum.accumulate(hi[order])
    fresh = np.concatenate([[True], lo[1:] > hi[:-1]])
    first = lo[fresh]
    last = hi[np.concatenate([np.flatnonzero(fresh)[1:] - 1, [len(lo) - 1]])]
    lengths = last - first + 1
    if lengths.sum() > limit:
        return None
    shift = first - np.concatenate([[0], np.cumsum(lengths)[:-1]])
    return np.repeat(shift, lengths) + np.arange(lengths.sum())


def solve_dp(instance: CheckpointInstance) -> tuple[np.ndarray, float]:
    """Optimal checkpoint vector and its expected waste.

    Raises
    ------
    InputError
        The DP's arrays would exceed :data:`.states.MEMORY_BUDGET`.
    """
    n, c, alpha, law = instance.n, instance.c, instance.alpha, instance.law
    tau = instance.tau
    reach = np.concatenate([[0], np.cumsum(c)])  # the largest sigma of state j
    sigma = states.reachable_overheads(instance, "dp")  # column k holds sigma[k]
    width = int(reach[n - 1]) + 1
    dense = width <= DENSE_RATIO * len(sigma) and states.dp_bytes(n, width) <= states.MEMORY_BUDGET
    if dense:
        sigma = np.arange(width)
    columns = len(sigma)
    rows = np.searchsorted(sigma, reach[:n], side="right").tolist()  # row j's sigma: sigma[:rows[j]]

    # State j's intervals start at tau_j + sigma; edges into i end at tau_i + c_i + sigma.
    start0, end0 = tau[:n], tau[1:] + c
    points = None
    if dense:  # every row's values are one contiguous range of the union: evaluate the law once
        spare = (states.MEMORY_BUDGET - states.dp_bytes(n, columns)) // UNION_BYTES
        points = _union_of_ranges(
            np.concatenate([start0, end0]), np.concatenate([start0 + reach[:n], end0 + reach[:n]]), spare
        )
    if points is not None:
        cdf = law.cdf(points.astype(float))
        head = alpha * law.head_expectation(points.astype(float))
        at_start, at_end = (np.searchsorted(points, v).tolist() for v in (start0, end0))

        def law_at(values, offsets, j, r):
            """``values`` (F or alpha H) at ``base_j + sigma[:r]``: a slice of the union's."""
            return values[offsets[j] : offsets[j] + r]
    else:
        cdf, head = law.cdf, (lambda t: alpha * law.head_expectation(t))
        at_start, at_end = start0, end0

        def law_at(fn, bases, j, r):
            return fn((bases[j] + sigma[:r]).astype(float))

    def shift(j, r):
        """Columns ``src`` of the predecessors' sigma and ``tgt`` of ``sigma + c_j`` in row ``j``."""
        if dense:
            cj = int(c[j - 1])
            return slice(0, r - cj), slice(cj, r)
        src = np.arange(rows[j - 1])
        moved = sigma[src] + c[j - 1]
        tgt = np.searchsorted(sigma[:r], moved)
        keep = tgt < r
        keep[keep] = sigma[tgt[keep]] == moved[keep]
        return src[keep], tgt[keep]

    if points is not None and n * columns <= ALL_ROWS_CELLS:
        # A small job: every row's terms at once, gathered from the union (numpy's cost per call
        # dominates at this size). Entries past a row's reach are clipped and never read.
        last = len(points) - 1
        k_start = np.minimum(np.add.outer(np.asarray(at_start), sigma), last)
        k_end = np.minimum(np.add.outer(np.asarray(at_end), sigma), last)
        f_start, f_end = cdf[k_start], cdf[k_end]
        coef_all = sigma - alpha * (start0[:, None] + sigma)
        u_all = -coef_all * f_start - head[k_start]
        w_all = c[:, None] * f_end + head[k_end]

        def row_terms(j, r):
            return coef_all[j, :r], u_all[j, :r], w_all[j, :r]

        def coef_column(i, s):
            return coef_all[:i, s]
    else:
        f_start, f_end = np.zeros((n, columns)), np.zeros((n, columns))
        for i in range(n):
            f_end[i, : rows[i]] = law_at(cdf, at_end, i, rows[i])

        def row_terms(j, r):
            """``sigma - alpha a``, ``U`` and ``W`` of row ``j`` (and its ``F(a)`` into ``f_start``)."""
            f_start[j, :r] = law_at(cdf, at_start, j, r)
            coef = sigma[:r] - alpha * (start0[j] + sigma[:r])
            u = -coef * f_start[j, :r] - law_at(head, at_start, j, r)
            return coef, u, c[j] * f_end[j, :r] + law_at(head, at_end, j, r)

        def coef_column(i, s):
            """``sigma - alpha a`` of the states ``(j < i, sigma[s])``, as :func:`row_terms` has it."""
            return sigma[s] - alpha * (start0[:i] + sigma[s])

    w_prev = None  # W of the edges into the current row, over the previous row's sigma
    # best[i - 1, s]: the shortest path into (i, sigma[s] + c_i), with sigma[s] the predecessor's;
    # x[j, s] = V(j, sigma[s]) + U[j, s]. Unreachable states stay infinite.
    best = np.full((n, columns), np.inf)
    x = np.full((n, columns), np.inf)
    for j in range(n):
        r = rows[j]
        coef, u, w = row_terms(j, r)
        if j:
            src, tgt = shift(j, r)
            x[j, tgt] = best[j - 1, src] + w_prev[src] + u[tgt]
        else:
            x[0, 0] = u[0]
        w_prev = w
        t = f_end[j:, :r] * coef
        t -= np.multiply.outer(c[j:], f_start[j, :r])
        t += x[j, :r]
        np.minimum(best[j:, :r], t, out=best[j:, :r])

    final = best[n - 1] + w_prev
    s = int(np.argmin(final))
    a = np.zeros(n, dtype=bool)
    i = n
    while True:
        a[i - 1] = True
        j = int(np.argmin(f_end[i - 1, s] * coef_column(i, s) - c[i - 1] * f_start[:i, s] + x[:i, s]))
        if j == 0:
            return a, instance.expected_waste(a)
        i, s = j, (s - int(c[j - 1]) if dense else int(np.searchsorted(sigma, sigma[s] - c[j - 1])))
