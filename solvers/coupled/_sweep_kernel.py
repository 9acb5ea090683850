"""Compiled (numba) closed-set sweep of :mod:`.iterations`, on masks of any width.

The sweep is :mod:`.iterations`'s module docstring: per slot, the kept sets lose the members
DOWN there, then every kept set ``S`` yields ``S & up`` with ``count(S) + 1`` and ``up`` enters
with 1, merged by maximum. It runs here on masks of ``nw`` 64-bit words, kept in an
open-addressing table. The pure-Python sweep it replaced is kept as the tests' oracle
(``tests/oracles/coupled/sweep.py``): the same first slot and the same passing sets.

Two callers share it: :mod:`.iterations` (bit ``q``: processor ``q`` may count the slot) and
:mod:`.full_bound` (thermometer masks, bit ``j p + q``: ``q`` is ready for ``j + 1`` tasks).
One formula values both: processor ``q`` holds ``min(cap_q, step * levels_q)`` tasks, where
``levels_q`` counts the levels on which its bit is set (``step = m`` for plain sets, whose one
level means "up to ``cap_q``"; ``step = 1`` for thermometers). A set's workload ``W`` is computed
once, when its count first reaches ``least``, and stored with it.

:func:`run` plays slots of a block until a set passes, the block ends, or the table could
overflow in the next slot (then :func:`grown` doubles it and the caller goes on).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Returns of :func:`run`: a set passed (at ``state[AT]``); the block ended; the table is to grow.
PASSED, ENDED, FULL = 0, 1, 2
#: ``state`` slots: entries used, slots of the block done, the passing slot, passing sets found.
SIZE, NEXT, AT, HITS = 0, 1, 2, 3

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def _home(keys, i, size):
    h = np.uint64(0)
    for k in range(keys.shape[1]):
        h = (h ^ keys[i, k]) * _GOLDEN
    return np.int64(h >> np.uint64(32)) & (size - 1)


@njit(cache=True, nogil=True)
def _find(keys, index, i):
    """The indexed row holding row ``i``'s key, or ``-h - 1`` for the free index slot ``h``."""
    size = index.shape[0]
    words = keys.shape[1]
    h = _home(keys, i, size)
    while True:
        j = index[h]
        if j < 0:
            return -h - 1
        same = True
        for k in range(words):
            if keys[j, k] != keys[i, k]:
                same = False
                break
        if same:
            return j
        h = (h + 1) & (size - 1)


@njit(cache=True, nogil=True)
def _upsert(keys, counts, workloads, index, state, i, count, touched, stamp, tick):
    """Merge scratch row ``i``'s key with ``count`` (by maximum); marks its row touched this slot."""
    n = state[SIZE]
    found = _find(keys, index, i)
    if found < 0:
        keys[n] = keys[i]
        counts[n] = count
        workloads[n] = -1
        index[-found - 1] = n
        state[SIZE] = n + 1
        found = n
    elif counts[found] < count:
        counts[found] = count
    if stamp[found] != tick:
        stamp[found] = tick
        touched[touched[-1]] = found
        touched[-1] += 1


@njit(cache=True, nogil=True)
def _workload(keys, j, p, levels, step, cap, w, m, no_fit):
    """``W`` of row ``j``: the least ``max_q x_q w_q`` with ``x_q`` up to what ``q`` holds."""
    held = np.zeros(p, dtype=np.int64)
    for b in range(levels * p):
        if keys[j, b >> 6] >> np.uint64(b & 63) & np.uint64(1):
            held[b % p] += step
    total = 0
    hi = 1
    for q in range(p):
        held[q] = min(held[q], cap[q])
        total += held[q]
        hi = max(hi, held[q] * w[q])
    if total < m:
        return no_fit
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        got = 0
        for q in range(p):
            got += min(held[q], mid // w[q])
        if got >= m:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def _reindex(keys, index, n):
    index[:] = -1
    for j in range(n):
        h = _home(keys, j, index.shape[0])
        while index[h] >= 0:
            h = (h + 1) & (index.shape[0] - 1)
        index[h] = j


@njit(cache=True, nogil=True)
def _lose(keys, counts, workloads, index, union, state, down):
    """Every kept set loses the members in ``down``; empty sets go, equal ones merge by maximum."""
    words = keys.shape[1]
    hit = False
    for k in range(words):
        if union[k] & down[k]:
            hit = True
    if not hit:
        return
    n = state[SIZE]
    index[:] = -1
    union[:] = 0
    kept = np.int64(0)  # not a literal: numba would compile _find once more for Literal[int](0)
    for j in range(n):
        changed = False
        empty = True
        for k in range(words):
            v = keys[j, k] & ~down[k]
            if v != keys[j, k]:
                changed = True
            keys[kept, k] = v
            if v:
                empty = False
        if empty:
            continue
        count, workload = counts[j], -1 if changed else workloads[j]
        found = _find(keys, index, kept)
        if found >= 0:
            counts[found] = max(counts[found], count)
            if workloads[found] < 0:
                workloads[found] = workload
            continue
        index[-found - 1] = kept
        counts[kept], workloads[kept] = count, workload
        for k in range(words):
            union[k] |= keys[kept, k]
        kept += 1
    state[SIZE] = kept


@njit(cache=True, nogil=True)
def run(
    up,
    down,
    keys,
    counts,
    workloads,
    index,
    union,
    state,
    old,
    touched,
    stamp,
    hits,
    p,
    levels,
    step,
    cap,
    w,
    m,
    no_fit,
    least,
):
    """Play the slots ``state[NEXT]..`` of a block (``up``, ``down``: uint64 ``(B, nw)``).

    Returns :data:`PASSED` with the slot's position in ``state[AT]`` and the passing rows in
    ``hits[:state[HITS]]``; :data:`ENDED`; or :data:`FULL` before a slot that could overflow
    the table (its capacity: ``keys``' rows minus one scratch row).
    """
    words = keys.shape[1]
    scratch = keys.shape[0] - 1
    for b in range(state[NEXT], up.shape[0]):
        n = state[SIZE]
        if 2 * n + 2 > scratch:
            state[NEXT] = b
            return FULL
        _lose(keys, counts, workloads, index, union, state, down[b])
        n = state[SIZE]
        any_up = False
        for k in range(words):
            if up[b, k]:
                any_up = True
        if not any_up:
            continue
        old[:n] = counts[:n]
        touched[-1] = 0
        tick = stamp[-1] + 1
        stamp[-1] = tick
        keys[scratch] = up[b]
        _upsert(keys, counts, workloads, index, state, scratch, np.int64(1), touched, stamp, tick)
        for j in range(n):
            nonzero = False
            for k in range(words):
                v = keys[j, k] & up[b, k]
                keys[scratch, k] = v
                if v:
                    nonzero = True
            if nonzero:
                _upsert(keys, counts, workloads, index, state, scratch, old[j] + 1, touched, stamp, tick)
        for k in range(words):
            union[k] |= up[b, k]
        found = 0
        for i in range(touched[-1]):
            j = touched[i]
            if counts[j] < least:
                continue
            if workloads[j] < 0:
                workloads[j] = _workload(keys, j, p, levels, step, cap, w, m, no_fit)
            if counts[j] >= workloads[j]:
                hits[found] = j
                found += 1
        if found:
            state[NEXT], state[AT], state[HITS] = b + 1, b, found
            return PASSED
    state[NEXT] = up.shape[0]
    return ENDED


@njit(cache=True, nogil=True)
def grown(keys, counts, workloads, n):
    """The first ``n`` entries in a table of twice the capacity: ``(keys, counts, workloads, index)``."""
    capacity = 2 * keys.shape[0]
    new_keys = np.zeros((capacity, keys.shape[1]), dtype=np.uint64)
    new_counts = np.zeros(capacity, dtype=np.int64)
    new_workloads = np.full(capacity, -1, dtype=np.int64)
    new_keys[:n] = keys[:n]
    new_counts[:n] = counts[:n]
    new_workloads[:n] = workloads[:n]
    index = np.full(4 * capacity, -1, dtype=np.int64)
    _reindex(new_keys, index, n)
    return new_keys, new_counts, new_workloads, index
