"""Compiled (numba) incumbent heuristics of :mod:`.bnb`: a greedy completion and a tabu swap search.

Both choose ``m`` items (rows of a bitset matrix ``A``, ``uint64`` words) to maximise the
number of elements common to all of them; :func:`.bnb.solve_bnb` starts its search from the
better of the two (:mod:`.bnb`'s docstring).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._bits_kernel import ascending, count, now, popc


@njit(cache=True, nogil=True)
def greedy(A, m):
    """Best of one greedy completion per starting item: ``(common count, sorted items)``."""
    n, words = A.shape
    best, best_set = -1, np.zeros(m, np.int64)
    chosen = np.zeros(m, np.int64)
    common = np.empty(words, np.uint64)
    free = np.ones(n, np.bool_)
    for start in range(n):
        for w in range(words):
            common[w] = A[start, w]
        free[:] = True
        free[start] = False
        chosen[0] = start
        for step in range(1, m):
            top, arg = -1, -1
            for r in range(n):
                if free[r]:
                    c = count(common, A[r])
                    if c > top:
                        top, arg = c, r
            chosen[step] = arg
            free[arg] = False
            for w in range(words):
                common[w] &= A[arg, w]
        value = 0
        for w in range(words):
            value += popc(common[w])
        if value > best:
            best = value
            for i in range(m):
                best_set[i] = chosen[i]
    return best, ascending(best_set)


@njit(cache=True, nogil=True)
def tabu(A, start, iterations, deadline):
    """Swap local search from the item set ``start``: each step moves to the best set one swap
    away whose incoming item is not tabu (recently swapped out), unless it beats the best.

    Returns ``(best common count, sorted items)``.
    """
    rng = np.uint64(0x9E3779B97F4A7C15)  # xorshift64 state, for reproducible tie-breaking
    n, words = A.shape
    m = start.shape[0]
    inside = np.zeros(n, np.bool_)
    cur = start.copy()
    for r in cur:
        inside[r] = True
    tabu_until = np.zeros(n, np.int64)
    best, best_set = -1, cur.copy()
    pre = np.empty((m + 1, words), np.uint64)
    suf = np.empty((m + 1, words), np.uint64)
    for it in range(iterations):
        if (it & 15) == 15 and now() > deadline:
            break
        pre[0, :] = ~np.uint64(0)
        suf[m, :] = ~np.uint64(0)
        for i in range(m):
            for w in range(words):
                pre[i + 1, w] = pre[i, w] & A[cur[i], w]
        for i in range(m - 1, -1, -1):
            for w in range(words):
                suf[i, w] = suf[i + 1, w] & A[cur[i], w]
        value = 0
        for w in range(words):
            value += popc(pre[m, w])
        if value > best:
            best = value
            for i in range(m):
                best_set[i] = cur[i]
        top, out, into = -1, -1, -1
        for i in range(m):
            for r in range(n):
                if inside[r]:
                    continue
                c = 0
                for w in range(words):
                    c += popc(pre[i, w] & suf[i + 1, w] & A[r, w])
                if tabu_until[r] > it and c <= best:
                    continue
                rng ^= rng << np.uint64(13)
                rng ^= rng >> np.uint64(7)
                rng ^= rng << np.uint64(17)
                score = c * 1024 + np.int64(rng >> np.uint64(54))  # random tie-breaking
                if score > top:
                    top, out, into = score, i, r
        if out < 0:
            break
        inside[cur[out]] = False
        tabu_until[cur[out]] = it + 7 + np.int64(rng >> np.uint64(62))
        cur[out] = into
        inside[into] = True
    return best, ascending(best_set)
