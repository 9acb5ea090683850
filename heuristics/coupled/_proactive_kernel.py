"""Compiled (numba) slot decisions of the proactive heuristics C-H (:mod:`.proactive`).

A proactive policy is asked at every slot; most of its answers are "keep". :func:`_decide`
takes a slot decision by :meth:`.proactive.Proactive.decide`'s rule transliterated, on the
values that the compiled evaluation of :class:`.passive.SetEstimates` knows (the same bits);
:func:`._decision_kernel.play` calls it at every slot, and asks the policy in Python when a
value is missing (``decide`` computes and stores it: the same decision).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._constants_kernel import MONOTONE_T, TINY
from ._estimates_kernel import assign_tasks, value_of
from ._simulator_kernel import (
    HOLD,
    HOLD_KEY,
    HOLD_KEY_NEEDS,
    HOLD_NEEDS,
    HOLD_PROGRAM,
    HOLD_UP,
    HOLD_UP_SET,
    ITER_START,
    T_DATA,
    T_PROG,
    WORKLOAD,
    C,
    T,
)

#: :func:`_decide`'s verdict when the rule switches (``order`` holds the fresh configuration).
SWITCH = 10
#: Measure codes (``proactive.MEASURES`` order).
P, E, Y = 0, 1, 2
_KEEP, _ASK = 0, 1
_UP = 0


@njit(cache=True, nogil=True)
def _promise(states, t, g, needs, t_prog, hold, st, mode):
    """Leave :meth:`.proactive.Proactive.decide`'s promise (:class:`.simulator.Hold`) after a "keep".

    Callers pass ``mode`` as an ``np.int64``: a module constant is a literal to numba, which would
    compile this function once per mode.
    """
    for q in range(g.shape[0]):
        hold[HOLD_UP, q] = states[q, t] == _UP
        hold[HOLD_PROGRAM, q] = g[q] >= t_prog
        hold[HOLD_NEEDS, q] = needs[q]
    st[HOLD] = mode


@njit(cache=True, nogil=True, error_model="numpy")
def _value(measure, prob, span, elapsed):
    if measure == P:
        return prob
    if measure == E:
        return span
    out = prob / (elapsed + span)
    return out if np.isfinite(out) else 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def _fresh(states, t, g, elapsed, mu, m, w, t_prog, t_data, n_com, tables, criterion, order, x2, parts):
    """H's configuration "from scratch" at slot ``t``: 0 none, 1 found (``order``, ``x2``, ``parts``
    ``(P, E)``), -1 a value is not known yet."""
    p = w.shape[0]
    up = np.empty(p, dtype=np.int64)
    n_up = 0
    room = 0.0
    for q in range(p):
        if states[q, t] == _UP:
            up[n_up] = q
            n_up += 1
            room += min(mu[q], float(m))
    if room < m:
        return 0
    program = np.empty(p, dtype=np.bool_)
    for q in range(p):
        program[q] = g[q] >= t_prog
    data = np.zeros(p, dtype=np.int64)
    batch = np.empty((p, p), dtype=np.int64)
    span1, rows, pow2, big_t, conditional, set_keys, set_values, power_keys, power_values = tables
    if (
        assign_tasks(
            up[:n_up],
            mu,
            m,
            w,
            program,
            data,
            t_prog,
            t_data,
            n_com,
            span1,
            rows,
            pow2,
            big_t,
            conditional,
            criterion,
            elapsed,
            set_keys,
            set_values,
            power_keys,
            power_values,
            order,
            batch,
        )
        >= 0
    ):
        return -1
    x2[:] = 0
    for i in range(m):
        x2[order[i]] += 1
    needs2 = np.zeros(p, dtype=np.int64)
    work = np.int64(0)  # not a literal: numba would compile value_of once more for Literal[int](0)
    for q in range(p):
        if x2[q] > 0:
            needs2[q] = x2[q] * t_data + (0 if program[q] else t_prog)
        if x2[q] * w[q] > work:
            work = x2[q] * w[q]
    if not value_of(
        x2,
        needs2,
        work,
        w,
        n_com,
        span1,
        rows,
        pow2,
        big_t,
        conditional,
        set_keys,
        set_values,
        power_keys,
        power_values,
        parts,
    ):
        return -1
    return 1


@njit(cache=True, nogil=True, error_model="numpy")
def _decide(
    states,
    x,
    g,
    needs,
    st,
    hold,
    mu,
    m,
    w,
    n_com,
    tables,
    criterion,
    measure,
    timed,
    memo,
    fresh_order,
    fresh_x,
    fresh_parts,
    fresh_found,
    count,
    x2,
    parts,
    order,
):
    """:meth:`.proactive.Proactive.decide` at slot ``st[T]``: keep, switch (``order``), or ask Python.

    After a "keep" it leaves the promise ``decide`` would leave (``hold``, ``st[HOLD]``), by the
    same proofs.

    ``tables``: the compiled evaluation's (span table, ``M_q^t`` rows, ``M_q^(2^j)``, ``T``,
    conditional, and the tables of set values and powers); ``memo`` (key (UP set, programs) ->
    row of the ``fresh_*`` arrays, ``count[0]`` rows used) the fresh configurations; ``x2``,
    ``parts`` scratch arrays.
    """
    p = w.shape[0]
    t = st[T]
    t_prog, t_data = st[T_PROG], st[T_DATA]
    elapsed = t - st[ITER_START]
    if timed:
        found = _fresh(
            states, t, g, elapsed, mu, m, w, t_prog, t_data, n_com, tables, criterion, order, x2, parts
        )
        if found < 0:
            return _ASK
    else:
        up_bits = 0
        program_bits = 0
        for q in range(p):
            if states[q, t] == _UP:
                up_bits |= np.int64(1) << q
            if g[q] >= t_prog:
                program_bits |= np.int64(1) << q
        key = (up_bits, program_bits)
        if key in memo:
            i = memo[key]
        else:
            found = _fresh(
                states, t, g, elapsed, mu, m, w, t_prog, t_data, n_com, tables, criterion, order, x2, parts
            )
            if found < 0:
                return _ASK
            if count[0] == fresh_found.shape[0]:
                memo.clear()
                count[0] = 0
            i = count[0]
            count[0] += 1
            memo[key] = i
            fresh_found[i] = found
            if found:
                fresh_order[i] = order
                fresh_x[i] = x2
                fresh_parts[i] = parts
        found = fresh_found[i]
        if found:
            order[:] = fresh_order[i]
            x2[:] = fresh_x[i]
            parts[:] = fresh_parts[i]
    if found == 0:
        _promise(states, t, g, needs, t_prog, hold, st, np.int64(HOLD_UP_SET))
        return _KEEP
    same = True
    for q in range(p):
        if x2[q] != x[q]:
            same = False
            break
    if same:
        if not timed:
            _promise(states, t, g, needs, t_prog, hold, st, np.int64(HOLD_KEY))
        return _KEEP
    fresh_value = _value(measure, parts[0], parts[1], elapsed)
    remaining = st[WORKLOAD] - st[C]
    if remaining <= 0:
        return _ASK
    span1, rows, pow2, big_t, conditional, set_keys, set_values, power_keys, power_values = tables
    if not value_of(
        x,
        needs,
        remaining,
        w,
        n_com,
        span1,
        rows,
        pow2,
        big_t,
        conditional,
        set_keys,
        set_values,
        power_keys,
        power_values,
        parts,
    ):
        return _ASK
    current = _value(measure, parts[0], parts[1], elapsed)
    better = fresh_value < current if measure == E else fresh_value > current
    if better:
        return SWITCH
    if not timed and big_t < MONOTONE_T:
        if measure == E and (current == current or fresh_value != fresh_value):
            _promise(states, t, g, needs, t_prog, hold, st, np.int64(HOLD_KEY))
        elif measure == P and (current >= TINY or fresh_value != fresh_value):
            _promise(states, t, g, needs, t_prog, hold, st, np.int64(HOLD_KEY_NEEDS))
    return _KEEP
