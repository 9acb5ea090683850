"""Compiled (numba) tables and thermometer masks of the data chain (:mod:`.full_bound`).

The definitions are :mod:`.full_bound`'s module docstring: ``A_q(u)``, ``D_q(s, u)``, ``L_q(u)``
and ``J_q(s, u)``. The numpy construction it replaced is kept in the tests' oracle
(``tests/oracles/coupled/sweep.py``): the same masks, hence the same chain.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_UP, _DOWN = 0, 2


@njit(cache=True, nogil=True)
def tables(avail, t_prog, t_data, cap):
    """``(count, since, program)`` of a realization ``avail`` (int8 ``(p, H)``), int32 ``(p, H + 1)``.

    ``count[q, u]``: UP slots of ``q`` in ``[0, u)``; ``since[q, u]``: ``L_q(u)``, one past the
    last DOWN of ``q`` before ``u`` (0 if none); ``program[q, u]``: the most tasks the UP slots
    of ``q`` since then allow besides the program, ``floor((A_q(u) - T_prog) / T_data)`` (all of
    ``cap_q`` when ``T_data = 0``), at most ``cap_q``, and -1 when ``A_q(u) < T_prog``.
    """
    p, horizon = avail.shape
    count = np.empty((p, horizon + 1), dtype=np.int32)
    since = np.empty((p, horizon + 1), dtype=np.int32)
    program = np.empty((p, horizon + 1), dtype=np.int32)
    for q in range(p):
        seen = 0
        after = 0
        for u in range(horizon + 1):
            count[q, u] = seen
            since[q, u] = after
            alive = seen - count[q, after]
            if alive < t_prog:
                level = -1
            elif t_data:
                level = min((alive - t_prog) // t_data, cap[q])
            else:
                level = cap[q]
            program[q, u] = level
            if u < horizon:
                if avail[q, u] == _UP:
                    seen += 1
                elif avail[q, u] == _DOWN:
                    after = u + 1
    return count, since, program


@njit(cache=True, nogil=True)
def quiet_lengths(avail, w, cap, m):
    """``W*(v)`` for ``v = 0..H``: the least workload of an allocation of ``m`` tasks over the
    processors UP at ``v - 1`` (-1 when they cannot hold ``m`` tasks, and at ``v = 0``)."""
    p, horizon = avail.shape
    out = np.full(horizon + 1, -1, dtype=np.int64)
    top = 1
    for q in range(p):
        top = max(top, w[q] * cap[q])
    for v in range(1, horizon + 1):
        same = v > 1
        for q in range(p):
            if same and (avail[q, v - 1] == _UP) != (avail[q, v - 2] == _UP):
                same = False
        if same:
            out[v] = out[v - 1]
            continue
        held = 0
        for q in range(p):
            if avail[q, v - 1] == _UP:
                held += cap[q]
        if held < m:
            continue
        lo, hi = 1, top
        while lo < hi:
            mid = (lo + hi) // 2
            held = 0
            for q in range(p):
                if avail[q, v - 1] == _UP:
                    held += min(cap[q], mid // w[q])
            if held >= m:
                hi = mid
            else:
                lo = mid + 1
        out[v] = lo
    return out


@njit(cache=True, nogil=True)
def thermometers(
    avail, count, since, program, cap, start, lo, hi, first, t_prog, t_data, quiet, carry, levels, up, down
):
    """Masks of slots ``lo .. hi - 1`` for an iteration allowed to start at ``start``.

    ``up[i]`` gets bit ``j p + q`` for ``j < J_q(start, lo + i)`` (none before slot ``first``),
    ``down[i]`` every level of the processors DOWN at ``lo + i``; both uint64 ``(>= hi - lo, nw)``.
    With ``start > 0``, ``J`` also meets the quiet-window condition (:mod:`.full_bound`): ``g_q(v)``
    is the UP slots of ``q`` in ``[max(L_q(v), v - quiet[v]), v)`` (:func:`quiet_lengths`; none
    when ``quiet[v] < 0``) and ``carry[q]`` the least ``g_q`` over ``[start, max(start, lo - levels
    T_data))``, large at a start's first block; it is updated for the next block.
    """
    p = avail.shape[0]
    base = max(start, lo - levels * t_data)
    following = max(start, hi - levels * t_data)
    low = np.empty((p, max(hi - base, 1)), dtype=np.int64)  # low[q, v - base]: least g_q over [start, v]
    if start > 0:
        for q in range(p):
            run = carry[q]
            for v in range(base, hi):
                if v == following:
                    carry[q] = run
                if quiet[v] >= 0:
                    run = min(run, count[q, v] - count[q, max(since[q, v], v - quiet[v])])
                low[q, v - base] = run
            if following == hi:
                carry[q] = run
    for i in range(hi - lo):
        u = lo + i
        up[i] = 0
        down[i] = 0
        for q in range(p):
            state = avail[q, u]
            if state == _DOWN:
                for j in range(levels):
                    b = j * p + q
                    down[i, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
            if state != _UP or u < first:
                continue
            got = count[q, u] - count[q, max(since[q, u], start)]
            level = min(program[q, u], got // t_data if t_data else cap[q])
            if start > 0 and since[q, u] < start:
                alive = count[q, u] - count[q, since[q, u]]
                while level > 0:
                    v = u - level * t_data
                    if v >= start and alive - low[q, v - base] >= t_prog + level * t_data:
                        break
                    level -= 1
            for j in range(level):
                b = j * p + q
                up[i, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
