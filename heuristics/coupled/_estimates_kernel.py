"""Compiled (numba) Section V evaluation of candidate sets: the heuristics' inner loop.

The passive construction (:func:`.passive.assign`) places the ``m`` tasks one by one; at each
step it values, for every candidate worker, the set with one more task on it (success
probability and expected time, :class:`.estimates.MarkovEstimates`), and a proactive policy
values its configuration in force at every slot (:func:`.proactive.components`). Here the whole
construction, or one valuation, runs in one compiled call, with the same arithmetic in the same
order as the numpy methods, on values numpy computed for it:

* per set ``S`` (a bitmask of processors): ``P_+`` and ``E_c``, from the estimates' own memo
  (``MarkovEstimates.gap_sets``, called on the same batches of sets as the numpy path, so that a
  set is first computed in the same company and gets the same bits);
* per set and workload ``W``: ``P_+ ** (W - 1)`` by numpy (numpy's float64 ``power`` does not
  give the bits of the C library's ``pow``, which compiled code would call: no power is taken
  here);
* per worker and ``n``: the span ``E^(q)(n)``, tabulated by numpy;
* the estimates' tables of ``M_q^t`` (``t < T``) and ``M_q^(2^j)`` (binary powering beyond).

Sums, products and quotients of IEEE doubles round the same way in numpy and in compiled code
(numba does not fuse a product and a sum unless asked to). When a set or a power is not known
yet, the call returns the batch it needs; Python computes it and calls again. The tests compare
every result with the numpy path.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MAX_SLOTS = 2**61
#: Criterion codes (``passive.CRITERIA`` order).
IP, IE, IY, IAY = 0, 1, 2, 3


@njit(cache=True, nogil=True, error_model="numpy")
def _p_nd(q, t, rows, pow2, big_t):
    """``P_ND^(q)(t) = (M_q^t)[u, u] + (M_q^t)[u, r]``: the table below ``T``, binary powering above."""
    if t < big_t:
        return rows[q, t, 0] + rows[q, t, 1]
    v0, v1 = 1.0, 0.0
    j = 0
    while (t >> j) > 0:
        if (t >> j) & 1:
            x0, x1 = v0, v1
            v0 = x0 * pow2[j, q, 0, 0] + x1 * pow2[j, q, 1, 0]
            v1 = x0 * pow2[j, q, 0, 1] + x1 * pow2[j, q, 1, 1]
        j += 1
    return v0 + v1


@njit(cache=True, nogil=True, error_model="numpy")
def _value(
    members,
    count,
    needs,
    n_com,
    span1,
    rows,
    pow2,
    big_t,
    p_plus,
    e_c,
    power,
    work,
    conditional,
    out,
    with_prob=True,
):
    """``out = (P, E)`` of one set: ``P^(S)(W) P_comm`` and ``E_comm + E^(S)(W)`` (Section V).

    The set is ``members[:count]``, in increasing processor order (the order of numpy's sums
    and products over a mask).

    ``E_comm = max(max_q E^(q)(n_q), sum_q n_q / n_com)`` (NaN if a span is NaN, as numpy's
    ``max``); ``P_comm = prod_{q in S} P_ND^(q)(ceil E_comm)`` in processor order, ``2^61``
    slots when ``E_comm`` is not finite (:meth:`.estimates.MarkovEstimates.communication`).
    ``with_prob=False`` leaves ``P`` out (NaN), for IE's scores.
    """
    top = 0.0
    nan = False
    total = 0
    for i in range(count):
        q = members[i]
        total += needs[q]
        v = span1[needs[q], q]
        if v != v:
            nan = True
        elif v > top:
            top = v
    time = total / n_com
    if nan:
        time = np.nan
    elif top > time:
        time = top
    success = np.nan
    if with_prob:
        if np.isfinite(time):
            slots = np.int64(np.ceil(min(time, float(_MAX_SLOTS))))
        else:
            slots = np.int64(_MAX_SLOTS)
        success = 1.0
        for i in range(count):
            success = success * _p_nd(members[i], slots, rows, pow2, big_t)
    steps = float(work) - 1.0
    if conditional:
        gap = e_c / p_plus if p_plus > 0 else np.inf
        expected = 1.0 if steps == 0 else 1.0 + steps * gap
    else:
        expected = (1.0 + steps * e_c) / power
    out[0] = power * success
    out[1] = time + expected


@njit(cache=True, nogil=True)
def _home(h, size):
    return np.int64((h * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & (size - 1)


@njit(cache=True, nogil=True)
def find_set(set_keys, key):
    """Row of set ``key`` in the open-addressing table ``set_keys`` (-1 marks an empty row), or -1."""
    size = set_keys.shape[0]
    i = _home(np.uint64(key), size)
    while True:
        found = set_keys[i]
        if found == key:
            return i
        if found == -1:
            return -1
        i = (i + 1) & (size - 1)


@njit(cache=True, nogil=True)
def find_power(power_keys, key, work):
    """Row of ``(key, W)`` in the table ``power_keys`` (int64 (size, 2)), or -1."""
    size = power_keys.shape[0]
    i = _home(np.uint64(key) ^ (np.uint64(work) * np.uint64(0xC2B2AE3D27D4EB4F)), size)
    while True:
        if power_keys[i, 0] == key and power_keys[i, 1] == work:
            return i
        if power_keys[i, 0] == -1:
            return -1
        i = (i + 1) & (size - 1)


@njit(cache=True, nogil=True)
def _key(alloc):
    key = 0
    for q in range(alloc.shape[0]):
        if alloc[q] > 0:
            key |= np.int64(1) << q
    return key


@njit(cache=True, nogil=True, error_model="numpy")
def assign_tasks(
    up,
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
):
    """Section VI-A's construction: ``m`` tasks one by one, each on the best candidate (lowest index on ties).

    ``up`` are the UP workers (ascending), ``mu`` float64 ``mu_q``, ``program`` bool and
    ``data`` int64 what each holds; the tables ``set_keys``/``set_values`` (set key ->
    ``(P_+, E_c)``) and ``power_keys``/``power_values`` ((set key, ``W``) -> ``P_+^(W-1)``)
    the values known (:func:`remember`). Returns ``-1`` with
    ``order`` filled, or ``k``: the first ``k`` rows of ``batch`` (int64 (p, p)) are the
    allocations of a step's candidate sets, in candidate order, and some value of theirs is
    not known (the caller computes the batch and calls again).

    Scores, larger is better: IP ``P``, IE ``-E``, IY ``P / (t + E)``, IAY ``P / E``
    (0 when not finite); the first maximum wins, and a NaN is a maximum (``numpy.argmax``).
    Every candidate's values are known before a step ends, so that the batches computed are
    those of the numpy path, which values all the candidates of a step at once.
    """
    p = w.shape[0]
    x = np.zeros(p, dtype=np.int64)
    cands = np.empty(p, dtype=np.int64)
    # The set so far, incrementally: its members in processor order, key, W and needs n_q; a
    # candidate's set differs in one worker only.
    members = np.empty(p, dtype=np.int64)
    grown = np.empty(p, dtype=np.int64)
    count = 0
    key_x = 0
    work_x = 0
    needs = np.zeros(p, dtype=np.int64)
    out = np.empty(2)
    # IE on the conditional E reads neither P nor the power P_+^(W-1): a (set, W) pair not met
    # before then costs no round trip (the set's own values are still learned in its step's batch).
    need_power = not (conditional and criterion == IE)
    for step in range(m):
        k = 0
        for j in range(up.shape[0]):
            if x[up[j]] < mu[up[j]]:
                cands[k] = up[j]
                k += 1
        best = 0
        best_score = 0.0
        nan = False
        for i in range(k):
            c = cands[i]
            xc = x[c] + 1
            work = max(work_x, xc * w[c])
            key = key_x | (np.int64(1) << c)
            row = find_set(set_keys, key)
            power_row = find_power(power_keys, key, work) if row >= 0 and need_power else -1
            if row < 0 or (need_power and power_row < 0):
                for r in range(k):
                    for q in range(p):
                        batch[r, q] = x[q] + (1 if q == cands[r] else 0)
                return k
            if x[c] > 0:
                size = count
                grown[:count] = members[:count]
            else:
                size = 0
                for j in range(count):
                    if members[j] > c and size == j:
                        grown[size] = c
                        size += 1
                    grown[size] = members[j]
                    size += 1
                if size == count:
                    grown[size] = c
                    size += 1
            kept = needs[c]
            needs[c] = max(xc * t_data - data[c], 0) + (0 if program[c] else t_prog)
            _value(
                grown,
                size,
                needs,
                n_com,
                span1,
                rows,
                pow2,
                big_t,
                set_values[row, 0],
                set_values[row, 1],
                power_values[power_row] if need_power else np.nan,
                work,
                conditional,
                out,
                criterion != IE,
            )
            needs[c] = kept
            prob, span = out[0], out[1]
            if criterion == IE:
                score = -span
            elif criterion == IP:
                score = prob
            else:
                score = prob / (elapsed + span) if criterion == IY else prob / span
                if not np.isfinite(score):
                    score = 0.0
            # Every candidate's values are checked (and learned) before the step ends, as the numpy
            # path computes the whole batch; a NaN is the maximum (numpy.argmax), the first one wins.
            if nan:
                continue
            if score != score:
                best, nan = i, True
            elif i == 0 or score > best_score:
                best, best_score = i, score
        q = cands[best]
        if x[q] == 0:
            j = count
            while j > 0 and members[j - 1] > q:
                members[j] = members[j - 1]
                j -= 1
            members[j] = q
            count += 1
        x[q] += 1
        key_x |= np.int64(1) << q
        work_x = max(work_x, x[q] * w[q])
        needs[q] = max(x[q] * t_data - data[q], 0) + (0 if program[q] else t_prog)
        order[step] = q
    return -1


@njit(cache=True, nogil=True, error_model="numpy")
def value_of(
    x,
    needs,
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
    out,
):
    """``out = (P, E)`` of allocation ``x`` with ``needs`` and ``work`` (>= 1) computation slots left.

    Returns False (``out`` untouched) when the set's values or its power are not known yet.
    """
    key = _key(x)
    row = find_set(set_keys, key)
    power_row = find_power(power_keys, key, work) if row >= 0 else -1
    if power_row < 0:
        return False
    members = np.empty(x.shape[0], dtype=np.int64)
    count = np.int64(0)  # not a literal: numba would compile _value once more for Literal[int](0)
    for q in range(x.shape[0]):
        if x[q] > 0:
            members[count] = q
            count += 1
    _value(
        members,
        count,
        needs,
        n_com,
        span1,
        rows,
        pow2,
        big_t,
        set_values[row, 0],
        set_values[row, 1],
        power_values[power_row],
        work,
        conditional,
        out,
        np.bool_(True),
    )  # assign_tasks' types
    return True


@njit(cache=True, nogil=True)
def remember(set_keys, set_values, power_keys, power_values, keys, works, p_plus, e_c, power):
    """Store a batch's values (``P_+``, ``E_c`` by set key, ``P_+^(W-1)`` by (key, ``W``)); returns how
    many rows of each table it filled."""
    new_sets = new_powers = 0
    for i in range(keys.shape[0]):
        size = set_keys.shape[0]
        j = _home(np.uint64(keys[i]), size)
        while set_keys[j] != -1 and set_keys[j] != keys[i]:
            j = (j + 1) & (size - 1)
        if set_keys[j] == -1:
            new_sets += 1
        set_keys[j] = keys[i]
        set_values[j, 0] = p_plus[i]
        set_values[j, 1] = e_c[i]
        size = power_keys.shape[0]
        j = _home(np.uint64(keys[i]) ^ (np.uint64(works[i]) * np.uint64(0xC2B2AE3D27D4EB4F)), size)
        while power_keys[j, 0] != -1 and not (power_keys[j, 0] == keys[i] and power_keys[j, 1] == works[i]):
            j = (j + 1) & (size - 1)
        if power_keys[j, 0] == -1:
            new_powers += 1
        power_keys[j, 0], power_keys[j, 1] = keys[i], works[i]
        power_values[j] = power[i]
    return new_sets, new_powers
