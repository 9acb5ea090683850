"""Compiled (numba) loop of the ``full`` greedy (:mod:`.full_greedy`).

The algorithm is :mod:`.full_greedy`'s module docstring, step for step as its pure-Python
loop did (``tests/oracles/coupled/greedy.py`` keeps that loop as the oracle: same schedules,
bit for bit). A paper realization at m = 10 needs about 300,000 greedy steps over 10^6 slots,
which took the Python loop 166 s (45 us per candidate attempt).

:func:`tables` reads the realization once; :func:`steps` runs at most ``budget`` steps and
returns, so that the caller can check its deadline and grow the entry arrays between calls.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Returns of :func:`steps`: ``K`` completions; the budget spent; the entry arrays full; the
#: realization's end reached first; (with ``pause``) a step with candidates that complete.
DONE, MORE, FULL, OUT, CHOICE = 0, 1, 2, 3, 4

#: ``state`` slots of :func:`steps`: the current slot, entries and completions recorded, steps
#: taken, then from :data:`DONE_AT` on the steps taken when each iteration completed (``K`` slots).
T0, ENTRIES, COMPLETED, STEPS, DONE_AT = 0, 1, 2, 3, 4

_UP, _DOWN = 0, 2
_PROG, _DATA = 1, 2

#: How long :func:`steps` keeps a candidate in force through DOWN slots, in clean attempts, and
#: how many such candidates it tries at one step.
PERSIST_SPAN, LOST = 8, 1024


@njit(cache=True, nogil=True)
def tables(avail):
    """``(next_down, next_off, next_rise, count)`` of a realization ``avail`` (int8, ``(p, H)``).

    ``next_down[q, t]`` and ``next_off[q, t]``: the first slot ``>= t`` where ``q`` is DOWN,
    resp. not UP (``H`` if none), for ``t = 0..H``; ``next_rise[t]``: the first slot ``> t``
    where some processor becomes UP; ``count[q, t]``: the UP slots of ``q`` before ``t``.
    """
    p, horizon = avail.shape
    next_down = np.empty((p, horizon + 1), dtype=np.int32)
    next_off = np.empty((p, horizon + 1), dtype=np.int32)
    count = np.empty((p, horizon + 1), dtype=np.int32)
    for q in range(p):
        down = off = horizon
        next_down[q, horizon] = next_off[q, horizon] = horizon
        for t in range(horizon - 1, -1, -1):
            if avail[q, t] == _DOWN:
                down = t
            if avail[q, t] != _UP:
                off = t
            next_down[q, t], next_off[q, t] = down, off
        seen = 0
        count[q, 0] = 0
        for t in range(horizon):
            if avail[q, t] == _UP:
                seen += 1
            count[q, t + 1] = seen
    next_rise = np.empty(horizon + 1, dtype=np.int32)
    next_rise[horizon] = rise = horizon
    for t in range(horizon - 1, -1, -1):
        next_rise[t] = rise
        if t > 0:
            for q in range(p):
                if avail[q, t] == _UP and avail[q, t - 1] != _UP:
                    rise = t
                    break
    return next_down, next_off, next_rise, count


@njit(cache=True, nogil=True)
def _water_fill(chosen, k, w, cap, m, x):
    """Fill ``x`` with ``m`` tasks on ``chosen[:k]`` (one each, then the smallest ``(x + 1) w``).

    Ties go to the lower index, as the heap of ``((x + 1) w, q)`` pairs did. False when the
    caps cannot hold ``m`` tasks.
    """
    room = 0
    for i in range(k):
        room += cap[chosen[i]]
    if k > m or room < m:
        return False
    x[:] = 0
    for i in range(k):
        x[chosen[i]] = 1
    for _ in range(m - k):
        best, best_v = -1, 0
        for i in range(k):
            q = chosen[i]
            if x[q] < cap[q]:
                v = (x[q] + 1) * w[q]
                if best < 0 or v < best_v or (v == best_v and q < best):
                    best, best_v = q, v
        x[best] += 1
    return True


@njit(cache=True, nogil=True)
def _scratch(p, size):
    """The work arrays of :func:`_attempt`: per worker, then per transfer (``size`` at most)."""
    return (
        np.empty(p, dtype=np.int64),
        np.empty(p, dtype=np.int64),
        np.empty(p, dtype=np.int64),
        np.empty(p, dtype=np.int64),
        np.empty(size, dtype=np.int64),
        np.empty(size, dtype=np.int64),
        np.empty(size, dtype=np.int8),
    )


@njit(cache=True, nogil=True)
def _send(t, n, rows, need_p, need_d, waiting, avail, n_com, store, send_q, send_t, send_c, sent):
    """The transfers of slot ``t``: to the UP workers with the most left to receive (a stable
    order: the lower index first among equals), at most ``n_com``; written from ``send_*[sent]``
    on with ``store``. Returns the new count of transfers."""
    k = 0
    for i in range(n):
        if avail[rows[i], t] == _UP and need_p[i] + need_d[i]:
            # insertion into a stable descending order of what is left to receive
            j = k
            while j > 0 and need_p[waiting[j - 1]] + need_d[waiting[j - 1]] < need_p[i] + need_d[i]:
                waiting[j] = waiting[j - 1]
                j -= 1
            waiting[j] = i
            k += 1
    for j in range(min(k, n_com)):
        i = waiting[j]
        code = _DATA
        if need_p[i]:
            need_p[i] -= 1
            code = _PROG
        else:
            need_d[i] -= 1
        if store:
            send_q[sent], send_t[sent], send_c[sent] = rows[i], t, code
        sent += 1
    return sent


@njit(cache=True, nogil=True)
def _all_up(t, end, n, rows, next_off):
    """The first slot in ``[t, end]`` where one of the ``n`` workers of ``rows`` is not UP."""
    block = end
    for i in range(n):
        block = min(block, next_off[rows[i], t])
    return block


@njit(cache=True, nogil=True)
def _all_back(t, n, rows, count):
    """The first slot after ``t`` at which each of the ``n`` workers of ``rows`` has been UP since
    ``t`` at least once (from ``count``, the UP slots before each slot): no slot before it has
    every worker UP when one is not UP at ``t``."""
    back = t + 1
    for i in range(n):
        q = rows[i]
        back = max(back, np.searchsorted(count[q], count[q, t + 1] + 1) - 1)
    return back


@njit(cache=True, nogil=True)
def _attempt(
    x,
    t0,
    prog,
    limit,
    record,
    avail,
    next_down,
    next_off,
    count,
    w,
    n_com,
    t_prog,
    t_data,
    rows,
    need_p,
    need_d,
    waiting,
    send_q,
    send_t,
    send_c,
):
    """One attempt of ``x`` from ``t0``: ``(completion or -1, failure slot, transfers recorded)``.

    Transfers as :func:`_send`; with no more workers than ``n_com`` each receives in each of its
    UP slots, found from ``count`` unless ``record``.
    """
    p, horizon = avail.shape
    n = np.int64(0)  # not a literal: numba would compile _send and _all_up once more for Literal[int](0)
    fail = horizon
    for q in range(p):
        if x[q] > 0:
            rows[n] = q
            need_p[n] = t_prog - prog[q]
            need_d[n] = x[q] * t_data
            fail = min(fail, next_down[q, t0])
            n += 1
    end = min(fail, limit)
    sent = np.int64(0)  # not a literal (as n)
    t = t0
    if n <= n_com and not record:
        for i in range(n):
            need = need_p[i] + need_d[i]
            if need:
                q = rows[i]
                t = max(t, np.searchsorted(count[q], count[q, t0] + need))
    else:
        left = 0
        for i in range(n):
            left += need_p[i] + need_d[i]
        while left:
            if t >= end:
                return -1, fail, sent
            before = sent
            sent = _send(
                t, n, rows, need_p, need_d, waiting, avail, n_com, True, send_q, send_t, send_c, sent
            )
            left -= sent - before
            t += 1
    if t >= end:
        return -1, fail, sent
    workload = 0
    for i in range(n):
        workload = max(workload, x[rows[i]] * w[rows[i]])
    done = 0
    s = t
    while s < end:
        block = _all_up(s, end, n, rows, next_off)
        if block > s:  # slots s .. block - 1 have every worker UP
            if done + block - s >= workload:
                return s + workload - done - 1, fail, sent
            done += block - s
            s = block
        else:
            s = _all_back(s, n, rows, count)
    return -1, fail, sent


@njit(cache=True, nogil=True)
def _persist(
    x,
    t0,
    prog,
    limit,
    span,
    record,
    avail,
    next_down,
    next_off,
    w,
    n_com,
    t_prog,
    t_data,
    rows,
    need_p,
    need_d,
    waiting,
    send_q,
    send_t,
    send_c,
):
    """``x`` in force from ``t0`` through its workers' DOWN slots: ``(completion or -1, transfers)``.

    The replay's rules (:mod:`.replay`): a DOWN worker loses its program and data and the attempt
    restarts, the others keep theirs; transfers as :func:`_send`; the
    configuration computes in each slot where all its workers are UP and hold everything. Only
    slots before ``limit`` are played, and with ``span > 0`` only ``span`` times the slots one
    clean attempt needs; ``send_*`` are written with ``record``.
    """
    p = avail.shape[0]
    n = np.int64(0)  # not a literal (see _attempt)
    workload = 0
    for q in range(p):
        if x[q] > 0:
            rows[n] = q
            need_p[n] = t_prog - prog[q]
            need_d[n] = x[q] * t_data
            workload = max(workload, x[q] * w[q])
            n += 1
    end = min(limit, avail.shape[1])
    if span > 0:
        clean = workload
        for i in range(n):
            clean += need_p[i] + need_d[i]
        end = min(end, t0 + span * clean)
    sent = np.int64(0)  # not a literal (see _attempt)
    done = 0
    t = t0
    while t < end:
        left = 0
        lost = False
        for i in range(n):
            if avail[rows[i], t] == _DOWN:
                need_p[i] = t_prog
                need_d[i] = x[rows[i]] * t_data
                lost = True
            left += need_p[i] + need_d[i]
        if lost:
            done = 0
            t += 1
            continue
        if left == 0:
            block = _all_up(t, end, n, rows, next_off)
            if block > t:  # slots t .. block - 1 have every worker UP, and all hold everything
                if done + block - t >= workload:
                    return t + workload - done - 1, sent
                done += block - t
                t = block
            else:
                t += 1
            continue
        sent = _send(t, n, rows, need_p, need_d, waiting, avail, n_com, record, send_q, send_t, send_c, sent)
        t += 1
    return -1, sent


@njit(cache=True, nogil=True)
def kept_completion(x, t0, prog, avail, next_down, next_off, w, n_com, t_prog, t_data):
    """When ``x``, kept in force from ``t0`` (:func:`_persist`, at most :data:`PERSIST_SPAN` clean
    attempts), completes; -1 if it does not."""
    scratch = _scratch(avail.shape[0], 1)
    done, _ = _persist(
        x,
        t0,
        prog,
        avail.shape[1],
        PERSIST_SPAN,
        False,
        avail,
        next_down,
        next_off,
        w,
        n_com,
        t_prog,
        t_data,
        *scratch,
    )
    return done


@njit(cache=True, nogil=True)
def commit_persist(
    x,
    done,
    avail,
    next_down,
    next_off,
    w,
    n_com,
    t_prog,
    t_data,
    state,
    prog,
    current,
    starts,
    allocations,
    completions,
    comm,
    record,
):
    """Keep ``x`` in force from ``state[T0]`` through its workers' DOWN slots (:func:`_persist`)
    to its completion at ``done``: as :func:`commit` for a single attempt."""
    p = avail.shape[0]
    t0 = state[T0]
    size = (done - t0 + 1) * min(n_com, p) if record else 1
    rows, need_p, need_d, waiting, send_q, send_t, send_c = _scratch(p, size)
    _open(x, state, current, completions, starts, allocations, prog, t_prog, record)
    _, sent = _persist(
        x,
        t0,
        prog,
        done + 1,
        0,
        record,
        avail,
        next_down,
        next_off,
        w,
        n_com,
        t_prog,
        t_data,
        rows,
        need_p,
        need_d,
        waiting,
        send_q,
        send_t,
        send_c,
    )
    _close(
        x,
        done,
        sent,
        send_q,
        send_t,
        send_c,
        next_down,
        state,
        prog,
        t_prog,
        current,
        completions,
        comm,
        record,
    )


@njit(cache=True, nogil=True)
def _sort_by(order, k, key, w):
    """Sort ``order[:k]`` by ``(key[q], w[q], q)``."""
    for a in range(1, k):
        q = order[a]
        b = a
        while b > 0:
            r = order[b - 1]
            if key[r] < key[q] or (key[r] == key[q] and (w[r] < w[q] or (w[r] == w[q] and r < q))):
                break
            order[b] = r
            b -= 1
        order[b] = q


@njit(cache=True, nogil=True)
def _enter(starts, allocations, n_entries, t0, current, target, prog, t_prog, record):
    """Enter ``target`` at ``t0`` (recorded with ``record``) and return the entries' new count.

    A worker that leaves the configuration loses a partial program (Section III-C).
    """
    if record:
        starts[n_entries] = t0
        allocations[n_entries] = target
    for q in range(current.shape[0]):
        if current[q] > 0 and target[q] == 0 and prog[q] < t_prog:
            prog[q] = 0
    return n_entries + 1


@njit(cache=True, nogil=True)
def _open(x, state, current, completions, starts, allocations, prog, t_prog, record):
    """Enter ``x`` at ``state[T0]`` (:func:`_enter`), unless it continues the configuration in force
    into a new iteration; ``state[ENTRIES]`` counts the entries."""
    t0, n_done = state[T0], state[COMPLETED]
    continuing = n_done > 0 and completions[n_done - 1] == t0 - 1
    for q in range(x.shape[0]):
        continuing &= current[q] == x[q]
    if not continuing:
        state[ENTRIES] = _enter(starts, allocations, state[ENTRIES], t0, current, x, prog, t_prog, record)


@njit(cache=True, nogil=True)
def _close(
    x, done, sent, send_q, send_t, send_c, next_down, state, prog, t_prog, current, completions, comm, record
):
    """After ``x`` ran from ``state[T0]`` to its completion at ``done``: its ``sent`` transfers recorded,
    the programs it leaves (DOWN workers lose theirs, its workers hold one), the next iteration's start."""
    t0, n_done = state[T0], state[COMPLETED]
    if record:
        for j in range(sent):
            comm[send_q[j], send_t[j]] = send_c[j]
    for q in range(x.shape[0]):
        if next_down[q, t0] <= done:
            prog[q] = 0
        if x[q] > 0:
            prog[q] = t_prog
    current[:] = x
    completions[n_done] = done
    state[DONE_AT + n_done] = state[STEPS]
    state[T0], state[COMPLETED] = done + 1, n_done + 1


@njit(cache=True, nogil=True)
def commit(
    best,
    best_t,
    avail,
    next_down,
    next_off,
    count,
    w,
    n_com,
    t_prog,
    t_data,
    state,
    prog,
    current,
    starts,
    allocations,
    completions,
    comm,
    record,
):
    """Run ``best`` from ``state[T0]`` to its completion at ``best_t``: its entry (unless it continues
    the configuration in force into a new iteration), its transfers and the programs it leaves."""
    p = avail.shape[0]
    size = p * t_prog + best.sum() * t_data
    rows, need_p, need_d, waiting, send_q, send_t, send_c = _scratch(p, size)
    _open(best, state, current, completions, starts, allocations, prog, t_prog, record)
    _, _, sent = _attempt(
        best,
        state[T0],
        prog,
        avail.shape[1],
        True,
        avail,
        next_down,
        next_off,
        count,
        w,
        n_com,
        t_prog,
        t_data,
        rows,
        need_p,
        need_d,
        waiting,
        send_q,
        send_t,
        send_c,
    )
    _close(
        best,
        best_t,
        sent,
        send_q,
        send_t,
        send_c,
        next_down,
        state,
        prog,
        t_prog,
        current,
        completions,
        comm,
        record,
    )


@njit(cache=True, nogil=True)
def preload(
    y,
    until,
    avail,
    next_down,
    next_off,
    count,
    w,
    n_com,
    t_prog,
    t_data,
    state,
    prog,
    current,
    starts,
    allocations,
    comm,
    record,
):
    """Put ``y`` in force at ``state[T0]`` until its workers all hold the program, sending only programs.

    False (nothing changed) when nobody in ``y`` lacks the program or a worker of ``y`` goes DOWN
    before its program is complete. Otherwise the entry, the program transfers, and ``state[T0]``
    moved to the slot after the last of them: the workers that then leave keep their complete
    programs (Section III-C), so a later configuration can use them without ``T_prog``.

    With ``until > state[T0]``, a *wait* instead: ``y`` is in force, sending only programs, in the
    slots before ``until`` (a partial program continues if the next entry keeps its worker, and
    is lost otherwise), and ``state[T0]`` moves to ``until``. False when ``until <= state[T0]``.
    """
    p = avail.shape[0]
    t0, n_entries = state[T0], state[ENTRIES]
    size = p * t_prog + y.sum() * t_data
    rows, need_p, need_d, waiting, send_q, send_t, send_c = _scratch(p, size)
    _, fail, sent = _attempt(
        y,
        t0,
        prog,
        avail.shape[1],
        True,
        avail,
        next_down,
        next_off,
        count,
        w,
        n_com,
        t_prog,
        t_data,
        rows,
        need_p,
        need_d,
        waiting,
        send_q,
        send_t,
        send_c,
    )
    got = np.zeros(p, dtype=np.int64)
    nxt = -1
    for j in range(sent):
        if send_c[j] == _PROG and send_t[j] < fail:
            got[send_q[j]] += 1
            nxt = max(nxt, send_t[j] + 1)
    if until >= 0:
        if until <= t0:
            return False
        nxt = until
    elif nxt < 0:
        return False
    for q in range(p):
        if until < 0 and y[q] > 0 and prog[q] + got[q] < t_prog:
            return False
    state[ENTRIES] = _enter(starts, allocations, n_entries, t0, current, y, prog, t_prog, record)
    current[:] = y
    for j in range(sent):
        if send_c[j] == _PROG and send_t[j] < min(nxt, fail):
            if record:
                comm[send_q[j], send_t[j]] = _PROG
            prog[send_q[j]] += 1
    for q in range(p):
        if next_down[q, t0] < nxt:
            prog[q] = 0
    state[T0] = nxt
    return True


@njit(cache=True, nogil=True)
def steps(
    avail,
    next_down,
    next_off,
    next_rise,
    count,
    w,
    cap,
    m,
    big_k,
    n_com,
    t_prog,
    t_data,
    all_subsets,
    spans,
    state,
    prog,
    current,
    starts,
    allocations,
    completions,
    comm,
    budget,
    record,
    pause,
    top_x,
    top_t,
    top_px,
    top_pt,
):
    """Run at most ``budget`` greedy steps from ``state``; return :data:`DONE` .. :data:`CHOICE`.

    ``state`` (:data:`T0`, :data:`ENTRIES`, :data:`COMPLETED`, :data:`STEPS`, :data:`DONE_AT`;
    a step is one value of ``t0`` tried, counted also in the step that returns
    :data:`CHOICE`), ``prog`` (program progress at
    ``t0``), ``current`` (the allocation in force), ``starts``/``allocations`` (the entries),
    ``completions`` and ``comm`` (int8 ``(p, H)`` transfer codes) are updated in place, so that
    a call resumes where the last one stopped. ``spans``: with the orders by span UP
    (:mod:`.full_greedy`, step 1). Without ``record`` the entries and transfers are not
    written (a look-ahead's trial run: the same decisions). With ``pause``, a step where some
    candidate completes is not committed: the ``len(top_t)`` earliest-completing candidates
    (the first found among equal completions first; ``-1`` completions pad the rest) are left in
    ``top_x``/``top_t`` and :data:`CHOICE` is returned; :func:`commit` then runs the chosen one.
    With ``pause``, the candidates whose one attempt fails are also kept in force through
    their DOWN slots (:func:`_persist`); the earliest to complete so, if before the earliest
    attempt, is left in ``top_px``/``top_pt[0]`` (-1: none) for :func:`commit_persist`.
    """
    p, horizon = avail.shape
    t0, n_entries, n_done = state[T0], state[ENTRIES], state[COMPLETED]
    size = p * t_prog + m * t_data
    rows, need_p, need_d, waiting, send_q, send_t, send_c = _scratch(p, size)
    ready = np.empty(p, dtype=np.int64)
    orders = np.empty((4 + 62, p), dtype=np.int64)
    key = np.zeros(p, dtype=np.int64)
    chosen = np.empty(p, dtype=np.int64)
    stamp = np.zeros(p, dtype=np.int64)
    x = np.zeros(p, dtype=np.int64)
    best = np.zeros(p, dtype=np.int64)
    longest = np.zeros(p, dtype=np.int64)
    lost = np.zeros((LOST if pause else 0, p), dtype=np.int64)
    n_lost = 0
    code = DONE
    taken = 0
    mark = 0
    n_top = top_t.shape[0]
    while n_done < big_k:
        if t0 >= horizon:
            code = OUT
            break
        if taken == budget:
            code = MORE
            break
        if record and n_entries == starts.shape[0]:
            code = FULL
            break
        taken += 1
        state[STEPS] += 1
        if pause:
            top_t[:] = -1
            top_pt[0] = -1
            n_lost = 0
        nr = np.int64(0)  # not a literal (see _attempt)
        for q in range(p):
            if avail[q, t0] == _UP:
                ready[nr] = q
                nr += 1
        best_t, first_fail, last_fail = horizon, horizon, -1
        found = has_longest = False
        n_sets = 1 if nr <= all_subsets else 4
        if spans and nr > all_subsets:
            reach = 0
            for i in range(nr):
                reach = max(reach, next_off[ready[i], t0] - t0)
            while 1 << (n_sets - 3) <= reach:  # one order per span 2, 4, 8, ... that someone stays UP
                n_sets += 1
        # candidates: each single processor that holds m tasks, then sets of k >= 2 (a set of one
        # is such a single or holds too few), in the Python loop's order
        for c in range(-1, n_sets):
            top = min(m, nr)
            if c == -1:
                top = nr
            elif nr > all_subsets:
                for i in range(nr):
                    orders[c, i] = ready[i]
                    q = ready[i]
                    key[q] = (
                        0
                        if c == 0
                        else -next_down[q, t0]
                        if c == 1
                        else -next_off[q, t0]
                        if c == 2
                        else -prog[q]
                        if c == 3
                        else 0
                        if next_off[q, t0] - t0 >= 1 << (c - 3)
                        else 1
                    )
                _sort_by(orders[c], nr, key, w)
            k = 2 if c >= 0 else 1
            combo = np.arange(k)
            while True:
                if c == -1:
                    if k > top:
                        break
                    q = ready[k - 1]
                    k += 1
                    if cap[q] < m:
                        continue
                    x[:] = 0
                    x[q] = m
                elif nr <= all_subsets:
                    if k > top:
                        break
                    for i in range(k):
                        chosen[i] = ready[combo[i]]
                    # the next combination of k among nr, in lexicographic order (then k + 1)
                    i = k - 1
                    while i >= 0 and combo[i] == nr - k + i:
                        i -= 1
                    size_k = k
                    if i < 0:
                        k += 1
                        combo = np.arange(k)
                    else:
                        combo[i] += 1
                        for j in range(i + 1, k):
                            combo[j] = combo[j - 1] + 1
                    if not _water_fill(chosen, size_k, w, cap, m, x):
                        continue
                else:
                    if k > top:
                        break
                    size_k = k
                    k += 1
                    mark += 1
                    for i in range(size_k):
                        chosen[i] = orders[c, i]
                        stamp[chosen[i]] = mark
                    repeated = False
                    for e in range(c):
                        same = 0
                        for i in range(size_k):
                            same += stamp[orders[e, i]] == mark
                        if same == size_k:
                            repeated = True
                            break
                    if repeated or not _water_fill(chosen, size_k, w, cap, m, x):
                        continue
                limit = best_t
                if pause:  # the r earliest, not only the running best
                    limit = horizon if top_t[n_top - 1] < 0 else max(best_t, top_t[n_top - 1])
                done, fail, _ = _attempt(
                    x,
                    t0,
                    prog,
                    limit,
                    False,
                    avail,
                    next_down,
                    next_off,
                    count,
                    w,
                    n_com,
                    t_prog,
                    t_data,
                    rows,
                    need_p,
                    need_d,
                    waiting,
                    send_q,
                    send_t,
                    send_c,
                )
                first_fail = min(first_fail, fail)
                if fail > last_fail:
                    last_fail = fail
                    longest[:] = x
                    has_longest = True
                if done >= 0 and done < best_t:
                    best[:] = x
                    best_t = done
                    found = True
                if pause and done < 0 and fail < limit and n_lost < lost.shape[0]:
                    lost[n_lost] = x  # lost a worker: kept in force, might it complete first?
                    n_lost += 1
                if pause and done >= 0 and (top_t[n_top - 1] < 0 or done < top_t[n_top - 1]):
                    j = n_top - 1
                    while j > 0 and (top_t[j - 1] < 0 or done < top_t[j - 1]):
                        top_t[j] = top_t[j - 1]
                        top_x[j] = top_x[j - 1]
                        j -= 1
                    top_t[j] = done
                    top_x[j] = x
        if not found:
            nxt = min(first_fail + 1, next_rise[t0])
            sent = 0
            if has_longest:
                _, _, sent = _attempt(
                    longest,
                    t0,
                    prog,
                    nxt,
                    True,
                    avail,
                    next_down,
                    next_off,
                    count,
                    w,
                    n_com,
                    t_prog,
                    t_data,
                    rows,
                    need_p,
                    need_d,
                    waiting,
                    send_q,
                    send_t,
                    send_c,
                )
            programs = 0
            for j in range(sent):
                if send_c[j] == _PROG and send_t[j] < nxt:
                    programs += 1
            busy = False
            for q in range(p):
                busy |= current[q] > 0
            if programs or busy:
                target = longest if programs else np.zeros(p, dtype=np.int64)
                n_entries = _enter(starts, allocations, n_entries, t0, current, target, prog, t_prog, record)
                current[:] = target
                for j in range(sent):
                    if send_c[j] == _PROG and send_t[j] < nxt:
                        if record:
                            comm[send_q[j], send_t[j]] = _PROG
                        prog[send_q[j]] += 1
            for q in range(p):
                if next_down[q, t0] < nxt:
                    prog[q] = 0
            t0 = nxt
            continue
        state[T0], state[ENTRIES], state[COMPLETED] = t0, n_entries, n_done
        if pause:
            for i in range(n_lost):
                until = best_t if top_pt[0] < 0 else min(best_t, top_pt[0])
                kept, _ = _persist(
                    lost[i],
                    t0,
                    prog,
                    until,
                    PERSIST_SPAN,
                    False,
                    avail,
                    next_down,
                    next_off,
                    w,
                    n_com,
                    t_prog,
                    t_data,
                    rows,
                    need_p,
                    need_d,
                    waiting,
                    send_q,
                    send_t,
                    send_c,
                )
                if kept >= 0:
                    top_pt[0] = kept
                    top_px[:] = lost[i]
            return CHOICE
        commit(
            best,
            best_t,
            avail,
            next_down,
            next_off,
            count,
            w,
            n_com,
            t_prog,
            t_data,
            state,
            prog,
            current,
            starts,
            allocations,
            completions,
            comm,
            record,
        )
        t0, n_entries, n_done = state[T0], state[ENTRIES], state[COMPLETED]
    state[T0], state[ENTRIES], state[COMPLETED] = t0, n_entries, n_done
    return code
