"""Compiled (numba) scans over every allocation from a state ``(s, H)``: one iteration's completions.

:func:`completions`, :func:`preloaded` (one iteration replayed slot by slot), :func:`served` and
:func:`preloads` (its trials with spares) serve the holder search of :mod:`.full_holders` (its
definitions), :func:`successors` the holder bound of :mod:`.full_holders_bound` (its definitions); ``count``
and ``since`` are the tables of :func:`._chain_kernel.tables` (UP slots of ``q`` in ``[0, u)``,
and ``L_q(u)``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._bits_kernel import ONE, lowest, popc

_UP, _DOWN = 0, 2


@njit(cache=True, nogil=True)
def readiness(avail, count, since, start, holder, t_prog, t_data, m, last):
    """``ready[q, u - start]``: the most tasks ``q`` could compute at ``u`` in an iteration entered at
    ``start`` (its UP slots since ``max(start, L_q(u))`` hold the program unless it keeps one, then
    ``T_data`` per task), at most ``m``; ``-1`` when it cannot compute, ``-2`` when it is DOWN."""
    p = avail.shape[0]
    horizon = min(avail.shape[1], last + 1)
    ready = np.full((p, max(horizon - start, 0)), -1, dtype=np.int64)
    for q in range(p):
        for u in range(start, horizon):
            state = avail[q, u]
            if state == _DOWN:
                ready[q, u - start] = -2
                continue
            if state != _UP:
                continue
            after = since[q, u]
            first = start if start > after else after
            have = count[q, u] - count[q, first]
            if not (holder[q] and after <= start):
                have -= t_prog
            if have < 0:
                continue
            ready[q, u - start] = m if t_data == 0 else min(have // t_data, m)
    return ready


@njit(cache=True, nogil=True)
def slot_bits(ready, levels):
    """``(bits, down)``: ``bits[q, j]`` the slots (64 per ``uint64`` word) at which ``q`` is ready for
    ``j + 1`` tasks (:func:`readiness`), ``down[q]`` those at which it is DOWN."""
    p, span = ready.shape
    words = (span + 63) // 64
    bits = np.zeros((p, levels, words), dtype=np.uint64)
    down = np.zeros((p, words), dtype=np.uint64)
    for q in range(p):
        for i in range(span):
            at = ONE << np.uint64(i & 63)
            level = ready[q, i]
            if level == -2:
                down[q, i >> 6] |= at
            for j in range(min(level, levels)):
                bits[q, j, i >> 6] |= at
    return bits, down


@njit(cache=True, nogil=True)
def _smear(x):
    """Every bit of ``x`` at or below its highest set bit."""
    for k in (1, 2, 4, 8, 16, 32):
        x |= x >> np.uint64(k)
    return x


@njit(cache=True, nogil=True)
def _has_run(y, length):
    """Whether ``y`` has ``length`` consecutive set bits (shift-and, doubling the run each step)."""
    k = 1
    while k < length and y:
        step = min(k, length - k)
        y &= y >> np.uint64(step)
        k += step
    return y != 0


@njit(cache=True, nogil=True)
def _split(ok, cut, need):
    """For one word with DOWN slots ``cut`` (not 0): ``(head, run, tail)``, the slots of ``ok`` before
    the first slot of ``cut``, those of the first run between two of its slots that holds ``need``
    of them (0 if none), and those after its last slot. A run inside the word is looked for only
    when ``cut`` leaves ``need`` slots in a row (a DOWN slot every few slots is the rule when a
    dozen processors' DOWN slots add up), so a word costs ``O(1)`` unless one does."""
    rest = ok & ~cut
    low = cut & (~cut + ONE)
    upto = _smear(cut)
    inner = rest & upto & ~((low << ONE) - ONE)
    run = np.uint64(0)
    if popc(inner) >= need and _has_run(~cut, need):
        later = cut ^ low
        while later:
            at = later & (~later + ONE)
            if popc(inner & (at - ONE)) >= need:
                run = inner & (at - ONE)
                break
            inner &= ~((at << ONE) - ONE)
            later ^= at
    return rest & (low - ONE), run, rest & ~upto


@njit(cache=True, nogil=True)
def _reached(ok, cut, done, need):
    """``(i, done)`` for one word: ``i`` the bit at which the count of ``ok`` bits since the last bit
    of ``cut`` (which zeroes it) reaches ``need >= 1`` from ``done``, ``-1`` if none; ``done`` the
    count after the word (:func:`_split`)."""
    if cut == 0:
        count = popc(ok)
        if done + count < need:
            return -1, done + count
        return _nth(ok, need - done), need
    head, run, tail = _split(ok, cut, need)
    if done + popc(head) >= need:
        return _nth(head, need - done), need
    if run:
        return _nth(run, need), need
    count = popc(tail)
    if count < need:
        return -1, count
    return _nth(tail, need), need


@njit(cache=True, nogil=True)
def _nth(word, k):
    """Index of the ``k``-th lowest set bit of ``word`` (``k >= 1``, at most ``popc(word)``)."""
    for _ in range(k - 1):
        word &= word - ONE
    return lowest(word)


@njit(cache=True, nogil=True)
def first_completion(bits, down, members, tasks, a, need, span):
    """The first slot index at which ``need`` slots, since the last one with a member of allocation
    ``a`` DOWN, have every member ready for its tasks; ``-1`` if none within ``span`` slots."""
    done = 0
    for word in range(bits.shape[2]):
        if need - done > span - 64 * word:  # one computing slot at most per slot
            return -1
        ok = ~np.uint64(0)
        gone = np.uint64(0)
        for k in range(members.shape[1]):
            q = members[a, k]
            if q < 0:
                break
            ok &= bits[q, tasks[a, k] - 1, word]
            gone |= down[q, word]
        i, done = _reached(ok, gone, done, need)
        if i >= 0:
            return 64 * word + i
    return -1


@njit(cache=True, nogil=True)
def _runs(
    parent_ok,
    parent_gone,
    child_ok,
    child_gone,
    bits,
    down,
    first,
    last,
    count,
    need,
    found_first,
    found_last,
):
    """A partial allocation and one member more: ``child_ok``/``child_gone`` become the parent's
    words ANDed with the member's ``bits`` and ORed with its ``down``, on the parent's word ranges
    ``first[:count]``..``last[:count]`` only; the word ranges of the child's runs (the slots between
    two of its ``gone`` slots) that hold ``need`` slots of its ``ok`` go to ``found_first`` and
    ``found_last``, merged. Returns how many. A run of the child lies within one of the parent
    (``gone`` only grows, ``ok`` only shrinks), so no other word can hold one."""
    found = 0
    for r in range(count):
        done = 0
        since = first[r]  # the word in which the current run began
        for i in range(first[r], last[r] + 1):
            okw = parent_ok[i] & bits[i]
            cut = parent_gone[i] | down[i]
            child_ok[i] = okw
            child_gone[i] = cut
            if cut == 0:
                done += popc(okw)
                continue
            head, run, tail = _split(okw, cut, need)
            if done + popc(head) >= need:
                found = _merge(found_first, found_last, found, since, i)
            if run:
                found = _merge(found_first, found_last, found, i, i)
            done = popc(tail)
            since = i
        if done >= need:
            found = _merge(found_first, found_last, found, since, last[r])
    return found


@njit(cache=True, nogil=True)
def _merge(first, last, count, lo, hi):
    """Appends the word range ``lo..hi`` (not before the last one's start), merged with the last
    one when they share a word; returns the new count."""
    if count > 0 and lo <= last[count - 1]:
        last[count - 1] = max(last[count - 1], hi)
        return count
    first[count] = lo
    last[count] = hi
    return count + 1


@njit(cache=True, nogil=True)
def completable(bits, down, caps, w, m, max_nodes, members, tasks, work, masks):
    """Writes the allocations (``0 <= x_q <= caps[q]``, ``sum x = m``) for which
    :func:`first_completion` finds a completion within the slots of ``bits``, in the order of
    :func:`.allocations.allocations` (the largest ``x_0`` first), into the rows of ``members``,
    ``tasks``, ``work`` and ``masks`` (those of :class:`.allocations.Allocations`); returns how many
    (past the rows' length only counted), or ``-1`` after ``max_nodes`` partial allocations.

    A depth-first walk over the processors that drops a partial allocation as soon as its members
    have no ``W`` ready slots since their last DOWN, ``W`` its workload so far: adding members only
    removes ready slots, adds DOWN ones and raises ``W``, so no completion of it can complete. For
    the same reason a partial allocation reads only the words of the runs in which its parent has
    ``W`` ready slots (:func:`_runs`).
    """
    p, words = bits.shape[0], bits.shape[2]
    room = np.zeros(p + 1, dtype=np.int64)  # the most tasks processors q.. can take
    for q in range(p - 1, -1, -1):
        room[q] = room[q + 1] + caps[q]
    ok = np.empty((p + 1, words), dtype=np.uint64)
    ok[0, :] = ~np.uint64(0)
    gone = np.zeros((p + 1, words), dtype=np.uint64)
    row = np.zeros(p + 1, dtype=np.int64)  # the row of ok and gone that holds depth q's words
    first = np.zeros((p + 1, max(words, 1)), dtype=np.int64)
    last = np.zeros((p + 1, max(words, 1)), dtype=np.int64)
    ranges = np.zeros(p + 1, dtype=np.int64)
    last[0, 0] = words - 1
    ranges[0] = 1 if words > 0 else 0
    need = np.zeros(p + 1, dtype=np.int64)
    left = np.zeros(p + 1, dtype=np.int64)
    left[0] = m
    x = np.zeros(p, dtype=np.int64)
    following = np.full(p + 1, -1, dtype=np.int64)  # the next value to try at each depth
    following[0] = min(caps[0], m) if p > 0 else -1
    n, nodes, q = 0, 0, 0
    while q >= 0:
        if left[q] == 0:
            if n < members.shape[0]:
                k, mask = 0, 0
                for r in range(q):
                    if x[r] > 0:
                        members[n, k] = r
                        tasks[n, k] = x[r]
                        mask |= 1 << r
                        k += 1
                members[n, k:] = -1
                tasks[n, k:] = 0
                work[n] = need[q]
                masks[n] = mask
            n += 1
            q -= 1
            continue
        v = following[q] if q < p else -1
        if v < 0 or left[q] - v > room[q + 1]:  # a smaller x_q leaves even more to the rest
            q -= 1
            continue
        following[q] = v - 1
        nodes += 1
        if nodes > max_nodes:
            return -1
        x[q] = v
        if v == 0:
            row[q + 1] = row[q]
            ranges[q + 1] = ranges[q]
            first[q + 1, : ranges[q]] = first[q, : ranges[q]]
            last[q + 1, : ranges[q]] = last[q, : ranges[q]]
            need[q + 1] = need[q]
        else:
            need[q + 1] = max(need[q], v * w[q])
            parent = row[q]  # at most q: depth q + 1's own row is free
            count = _runs(
                ok[parent],
                gone[parent],
                ok[q + 1],
                gone[q + 1],
                bits[q, v - 1],
                down[q],
                first[q],
                last[q],
                ranges[q],
                need[q + 1],
                first[q + 1],
                last[q + 1],
            )
            if count == 0:
                continue
            row[q + 1] = q + 1
            ranges[q + 1] = count
        left[q + 1] = left[q] - v
        q += 1
        if q < p:
            following[q] = min(caps[q], left[q])
    return n


@njit(cache=True, nogil=True)
def completions(ready, members, tasks, work, start, out):
    """``out[a]``: the slot at whose end an iteration on allocation ``a``, entered at ``start``,
    completes (``-1`` if not within ``ready``'s slots, :func:`readiness`): the first slot at which
    ``work[a]`` slots, since the last one with a member DOWN, have every member ready for its tasks.

    ``members[a]`` lists the enrolled processors (``-1`` pads), ``tasks[a]`` their task counts,
    ``work[a]`` the workload ``W(x)``.
    """
    bits, down = slot_bits(ready, members.shape[1])
    for a in range(members.shape[0]):
        i = first_completion(bits, down, members, tasks, a, work[a], ready.shape[1])
        out[a] = -1 if i < 0 else start + i


@njit(cache=True, nogil=True)
def free_programs(count, members, tasks, a, start, quiet, t_prog, t_data):
    """``(room, reach)``: the most whole programs the task lanes of allocation ``a`` leave room for
    in ``[start, quiet)``, and the end of the latest free lane segment.

    Each of the ``m`` tasks is held by one worker at a time; a member's ``j``-th of its ``x_q``
    tasks is held from before its last ``(x_q - j + 1) T_data`` data transfers to the completion,
    so its lane is free only before the latest ``b`` with that many UP slots of ``q`` in
    ``[b, quiet)``; a program takes ``T_prog`` slots of one lane (:mod:`.full_holders_bound`).
    """
    room = 0
    reach = start
    for k in range(members.shape[1]):
        q = members[a, k]
        if q < 0:
            break
        for j in range(tasks[a, k]):
            limit = count[q, quiet] - (tasks[a, k] - j) * t_data  # count[q, b] at most this
            if count[q, start] > limit:
                continue
            lo, hi = start, quiet  # the largest b in [start, quiet] with count[q, b] <= limit
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if count[q, mid] <= limit:
                    lo = mid
                else:
                    hi = mid - 1
            room += (lo - start) // t_prog
            reach = max(reach, lo)
    return room, reach


@njit(cache=True, nogil=True)
def _subsets(eligible, size, base, high, out, n):
    """Writes ``high | base | S`` for every ``S`` of ``size`` (at least 1) bits of ``eligible`` from
    ``out[n]`` on; returns the new count (past ``out``'s length only counted)."""
    bits = np.empty(64, dtype=np.int64)
    e = 0
    rest = eligible
    while rest:
        bit = rest & -rest
        bits[e] = bit
        e += 1
        rest ^= bit
    pick = np.arange(size)
    while True:
        chosen = base
        for i in range(size):
            chosen |= bits[pick[i]]
        if n < out.shape[0]:
            out[n] = high | chosen
        n += 1
        i = size - 1
        while i >= 0 and pick[i] == e - size + i:
            i -= 1
        if i < 0:
            return n
        pick[i] += 1
        for j in range(i + 1, size):
            pick[j] = pick[j - 1] + 1


@njit(cache=True, nogil=True)
def _more_subsets(n, k, limit):
    """Whether ``n`` choose ``k`` exceeds ``limit``."""
    ways = 1
    for i in range(min(k, n - k)):  # the partial products grow up to n choose n/2
        ways = ways * (n - i) // (i + 1)  # exact: a product of i + 1 consecutive integers
        if ways > limit:
            return True
    return ways > limit


@njit(cache=True, nogil=True)
def successors(
    ready, count, since, members, tasks, work, masks, start, holders, lanes, m, t_prog, t_data, limit, out
):
    """The relaxed successors ``(t, H')`` of state ``(start, holders)`` (:mod:`.full_holders_bound`),
    packed as ``t << p | H'`` into ``out``; returns how many there are (``out`` may be too short:
    then only its length is written).

    ``ready`` is :func:`readiness` with ``holders`` as the holder set, up to the last slot a
    completion may take; ``lanes`` is ``min(n_com, m)``, the transfers of one slot at most. Of an
    allocation's successors, one that its previous one dominates (:mod:`.full_holders_bound`) is
    left out. It branches on which spares gain a program while there are at most ``limit`` ways.
    """
    p = ready.shape[0]
    span = ready.shape[1]
    bits, down = slot_bits(ready, members.shape[1])
    at = np.empty(span, dtype=np.int64)  # the slots since the last DOWN with every member ready
    n = 0
    for a in range(members.shape[0]):
        need = work[a]
        if first_completion(bits, down, members, tasks, a, need, span) < 0:
            continue
        done = 0
        previous, held = -1, 0
        for i in range(span):
            ok = True
            gone = False
            for k in range(members.shape[1]):
                q = members[a, k]
                if q < 0:
                    break
                level = ready[q, i]
                if level == -2:
                    gone = True
                    break
                if level < tasks[a, k]:
                    ok = False
            if gone:
                done = 0
                continue
            if ok:
                at[done] = i
                done += 1
            if done < need:
                continue
            t = start + i
            kept = masks[a]
            for q in range(p):
                if (holders >> q) & 1 and since[q, t + 1] <= start:
                    kept |= 1 << q
            receive = 0  # members that receive the program in this iteration
            for k in range(members.shape[1]):
                q = members[a, k]
                if q < 0:
                    break
                if not ((holders >> q) & 1 and since[q, t + 1] <= start):
                    receive += 1
            quiet = start + at[done - need]  # the final attempt's first computing slot is at most this
            spare = lanes * (quiet - start) - m * t_data - t_prog * receive  # room for other programs
            if spare < 0:
                continue
            gain = p if t_prog == 0 else spare // t_prog  # programs beyond the members' by volume
            reach = quiet  # a gained program is received before this slot
            if t_prog > 0:
                room, reach = free_programs(count, members, tasks, a, start, quiet, t_prog, t_data)
                gain = min(gain, room - receive)
            if gain < 0:
                continue
            eligible = 0
            for q in range(p if gain > 0 else 0):
                if not (kept >> q) & 1:
                    lo = max(start, since[q, t + 1])
                    if reach > lo and count[q, reach] - count[q, lo] >= t_prog:
                        eligible |= 1 << q
            choices = popc(np.uint64(eligible))
            if gain >= choices or _more_subsets(choices, gain, limit):
                gain = 0
                kept |= eligible
            if gain == 0:
                if previous >= 0:
                    alive = 0
                    for q in range(p):
                        if (held >> q) & 1 and since[q, t + 1] <= previous + 1:
                            alive |= 1 << q
                    if kept & ~alive == 0:
                        continue
                previous, held = t, kept
                if n < out.shape[0]:
                    out[n] = (t << p) | kept
                n += 1
                continue
            previous = -1  # several successors: the caller's frontier compares them
            n = _subsets(eligible, gain, kept, t << p, out, n)
    return n


@njit(cache=True, nogil=True)
def hope(avail, start, last, members):
    """What an iteration of ``members`` entered at ``start`` can still compute by ``last``.

    ``hope[0, v - start]`` counts the slots of ``[v, d)`` at which every member is UP, ``d`` the
    first slot at or after ``v`` at which a member is DOWN (or ``last + 1``), and ``hope[1, v -
    start]`` the most such slots between two DOWN slots of members after ``d``. An iteration
    computes only where every member is UP and restarts at each DOWN of a member (III-B, III-C), so
    one with ``done`` computing slots before ``v`` completes by ``last`` only if ``done + hope[0]``
    or ``hope[1]`` reaches its ``W(x)``: :func:`preloaded` stops where neither does.
    """
    end = min(last + 1, avail.shape[1])
    span = max(end - start, 0)
    reach = np.zeros((2, span + 1), dtype=np.int64)
    for i in range(span - 1, -1, -1):
        up, down = True, False
        for k in range(members.shape[0]):
            q = members[k]
            if q < 0:
                break
            state = avail[q, start + i]
            if state == _DOWN:
                down = True
                break
            if state != _UP:
                up = False
        if down:
            reach[0, i] = 0
            reach[1, i] = max(reach[0, i + 1], reach[1, i + 1])
        else:
            reach[0, i] = reach[0, i + 1] + (1 if up else 0)
            reach[1, i] = reach[1, i + 1]
    return reach


@njit(cache=True, nogil=True)
def preloaded(
    avail, start, join, holder, members, tasks, need, spares, settings, ys, starts, left, letters, reach
):
    """One iteration entered at ``start`` on allocation ``x`` (``members``, ``tasks``, ``W(x) = need``)
    that preloads the program on ``spares`` from ``join`` on, replayed slot by slot (:mod:`.full_holders`).

    Before ``join`` the configuration is ``x``. From ``join`` (with spares) it is ``y``: one task
    per spare, the members' ``m - |spares|`` tasks at most ``x_q`` each (with more spares than free
    tasks, members that hold a program at ``start`` lend theirs, the first first, and are not
    enrolled until they get one back; one whose program was lost by ``join`` leaves without one,
    for a partial program is lost on leaving, III-C), each member keeping the
    data of its ``y_q`` tasks at most. A spare leaves as soon as it holds a complete program, and
    its task goes back to the member furthest below its ``x_q`` (the first such), which keeps its
    data: a new configuration. When the last spare has left, at ``sigma``, the configuration is
    ``x`` again. Every enrolled worker takes one transfer per UP slot, the program first unless
    ``holder``, then data up to its tasks; a DOWN loses both and restarts the computation, and so
    does each new configuration. When more than ``n_com`` enrolled workers could take a transfer in
    a slot, the master serves the ``n_com`` with the most left to receive (the first such on a tie;
    III-B: at most ``n_com`` messages per slot). Writes the configurations with spares into the rows
    of ``ys`` (one entry per processor, at least ``len(spares) + 1`` rows) and their first slots
    into ``starts``, and the slot at which spare ``j`` left into ``left[j]``. Returns ``(c, sigma,
    count)``: the completion slot (``-1`` if not by ``last``) and how many configurations with
    spares there were; ``letters`` (``p`` rows, or 0 columns for none) receives the transfers from
    ``start`` on (1 program, 2 data). An iteration that completes before the spares join is not this
    one: ``(-1, -1, 0)``.
    ``settings`` is ``(T_prog, T_data, m, n_com, last)``. ``reach`` is :func:`hope` for the members,
    or 0 columns: with it, a replay that can no longer complete by ``last`` stops there and returns
    ``c = -1`` (its ``sigma`` and ``count`` are then those of the slot it stopped at).
    """
    t_prog, t_data, m, n_com, last = settings
    p = avail.shape[0]
    record = letters.shape[1] > 0
    prog = np.zeros(p, dtype=np.int64)
    data = np.zeros(p, dtype=np.int64)
    y = np.zeros(p, dtype=np.int64)
    size = 0
    for k in range(members.shape[0]):
        q = members[k]
        if q < 0:
            break
        y[q] = 1
        size += 1
    extra = m - size - spares.shape[0]
    for k in range(size):
        q = members[k]
        more = min(tasks[k] - 1, max(extra, 0))
        y[q] += more
        extra -= more
    for k in range(size):  # more spares than free tasks: members holding a program lend theirs
        if extra < 0 and holder[members[k]]:
            y[members[k]] = 0
            extra += 1
    if extra < 0:
        return -1, -1, 0
    wanting = np.zeros(size + spares.shape[0], dtype=np.int64)
    lacking = np.zeros(size + spares.shape[0], dtype=np.int64)
    active = np.zeros(spares.shape[0], dtype=np.bool_)
    for j in range(spares.shape[0]):
        y[spares[j]] = 1
        active[j] = True
        left[j] = -1
    for q in range(p):
        if holder[q]:
            prog[q] = t_prog
    preload = spares.shape[0] > 0
    phase = 0 if preload and join <= start else 1
    sigma = start if phase == 1 else -1
    count = 0
    entered = phase == 0  # a configuration with spares begins at this slot
    done = 0
    prune = reach.shape[1] > 0
    for u in range(start, min(last + 1, avail.shape[1])):
        if prune and done + reach[0, u - start] < need and reach[1, u - start] < need:
            return -1, sigma, count
        if preload and u == join and u > start:  # the spares join: configuration y, a new entry
            phase, sigma, done, entered = 0, -1, 0, True
            for k in range(size):
                q = members[k]
                data[q] = min(data[q], y[q] * t_data)
                if y[q] == 0 and prog[q] < t_prog:  # a lender leaves: a partial program is lost (III-C)
                    prog[q] = 0
            for j in range(spares.shape[0]):  # a holder not enrolled loses its program on DOWN too
                for v in range(start, join):
                    if avail[spares[j], v] == _DOWN:
                        prog[spares[j]] = 0
        if phase == 0:
            waiting = 0
            for j in range(spares.shape[0]):
                if active[j] and prog[spares[j]] >= t_prog:  # it leaves; a member takes its task
                    active[j] = False
                    left[j] = u
                    y[spares[j]] = 0
                    best, gap = -1, 0
                    for k in range(size):
                        if tasks[k] - y[members[k]] > gap:
                            best, gap = k, tasks[k] - y[members[k]]
                    y[members[best]] += 1
                    entered = True
                elif active[j]:
                    waiting += 1
            if waiting == 0:
                phase, sigma, done, entered = 1, u, 0, False
            elif entered:
                ys[count, :] = y
                starts[count] = u
                count += 1
                entered = False
                done = 0
        computing = phase == 1
        if computing:
            for k in range(size):
                q = members[k]
                if avail[q, u] != _UP or prog[q] < t_prog or data[q] < tasks[k] * t_data:
                    computing = False
                    break
        if computing:
            done += 1
            if done == need:
                if preload and u < join:  # done before the spares join: no preload
                    return -1, -1, 0
                return u, sigma, count
            continue
        waiting = 0  # the enrolled workers UP that lack something, and how much
        for k in range(size + (spares.shape[0] if phase == 0 else 0)):
            q = members[k] if k < size else spares[k - size]
            if k >= size and not active[k - size]:
                continue
            cap = 0
            if k < size:
                cap = (tasks[k] if phase == 1 else y[q]) * t_data
            state = avail[q, u]
            if k < size and phase == 0 and y[q] == 0:  # lending its tasks: not enrolled
                if state == _DOWN:
                    prog[q] = 0
                    data[q] = 0
                continue
            if state == _DOWN:
                prog[q] = 0
                data[q] = 0
                if k < size:
                    done = 0
            elif state == _UP and (prog[q] < t_prog or data[q] < cap):
                wanting[waiting] = q
                lacking[waiting] = t_prog - prog[q] + cap - data[q]
                waiting += 1
        for _ in range(min(waiting, n_com)):
            best = 0
            for i in range(1, waiting):
                if lacking[i] > lacking[best]:
                    best = i
            q = wanting[best]
            lacking[best] = -1
            if prog[q] < t_prog:
                prog[q] += 1
                if record:
                    letters[q, u - start] = 1
            else:
                data[q] += 1
                if record:
                    letters[q, u - start] = 2
    return -1, sigma, count


@njit(cache=True, nogil=True)
def served(avail, start, holder, members, tasks, work, settings, out):
    """``out[a]``: the completion slot of allocation ``a`` entered at ``start`` without spares as
    :func:`preloaded` replays it (``-1`` if not by ``last``): :func:`completions` where the master
    may have to choose whom to serve (``n_com < m``); ``settings`` as :func:`preloaded`'s."""
    p = avail.shape[0]
    spares = np.zeros(0, dtype=np.int64)
    ys = np.zeros((1, p), dtype=np.int64)
    starts = np.zeros(1, dtype=np.int64)
    left = np.zeros(0, dtype=np.int64)
    letters = np.zeros((p, 0), dtype=np.int8)
    everything = np.zeros((2, 0), dtype=np.int64)  # most complete: a bound per allocation costs more
    for a in range(members.shape[0]):
        row = (members[a], tasks[a], work[a], spares, settings, ys, starts, left, letters, everything)
        c, _, _ = preloaded(avail, start, start, holder, *row)
        out[a] = c


@njit(cache=True, nogil=True)
def preloads(
    avail,
    count,
    since,
    start,
    holder,
    members,
    tasks,
    work,
    chosen,
    out,
    order,
    limits,
    settings,
    found,
    spares,
):
    """The preloading iterations of :func:`.full_holders._preloads` from state ``(start, holder)``.

    For each allocation ``a`` of ``chosen`` (rows of ``members``, ``tasks``, ``work``; ``out[a]``
    its completion without spares) and each choice of spares it tries, in its order (``limits`` is
    ``(SINGLE_SPARES, PAIR_SPARES)``, ``order`` the processors the fastest first), each trial
    (a join slot) that completes adds a row: ``found[n] = (c, a, join, gained)`` and ``spares[n]``
    the spares, padded with ``-1``; ``gained`` the spares not DOWN since they left, as a bit mask.
    Returns ``n``. ``found`` needs ``2 * (SINGLE_SPARES + PAIR_SPARES ** 2 + 2 p)`` rows per
    allocation of ``chosen``; ``settings`` as :func:`preloaded`'s.
    """
    t_prog, m, last = settings[0], settings[2], settings[4]
    p, horizon = avail.shape
    width = members.shape[1]
    ys = np.zeros((m + 1, p), dtype=np.int64)
    starts = np.zeros(m + 1, dtype=np.int64)
    left = np.zeros(m, dtype=np.int64)
    letters = np.zeros((p, 0), dtype=np.int8)
    idle = np.empty(p, dtype=np.int64)
    lived = np.empty(p, dtype=np.int64)
    life = np.empty(p, dtype=np.int64)
    most = limits[0] + limits[1] * limits[1] + 2 * p
    choices = np.full((most, m), -1, dtype=np.int64)
    sizes = np.zeros(most, dtype=np.int64)
    n = 0
    for a in chosen:
        end = out[a] + 1
        enrolled, size, lenders = 0, 0, 0
        for k in range(width):
            q = members[a, k]
            if q < 0:
                break
            enrolled |= 1 << q
            size += 1
            if holder[q]:
                lenders += 1
        idled = 0  # not enrolled, not keeping a program through end, T_prog UP slots since its return
        for q in order:
            after = since[q, end]
            if (enrolled >> q) & 1 or (holder[q] and after <= start):
                continue
            if count[q, end] - count[q, max(start, after)] >= t_prog:
                idle[idled] = q
                idled += 1
        if idled == 0:
            continue
        stop = min(end + (end - start), horizon)  # UP slots before the first DOWN in [end, stop)
        for i in range(idled):
            q = idle[i]
            first = stop
            for u in range(end, stop):
                if avail[q, u] == _DOWN:
                    first = u
                    break
            life[i] = count[q, max(first, end)] - count[q, end]
        for i in range(idled):  # by life, longest first, then in idle's order (a stable sort)
            j = i
            while j > 0 and life[lived[j - 1]] < life[i]:
                lived[j] = lived[j - 1]
                j -= 1
            lived[j] = i
        for i in range(idled):
            lived[i] = idle[lived[i]]
        total = 0
        for i in range(min(limits[0], idled)):
            choices[total, 0] = idle[i]
            sizes[total] = 1
            total += 1
        if m - size >= 2:
            for i in range(min(limits[1], idled)):
                for j in range(i + 1, min(limits[1], idled)):
                    choices[total, 0], choices[total, 1] = idle[i], idle[j]
                    sizes[total] = 2
                    total += 1
        for ranked in (idle, lived):
            for length in range(2, min(m - size + lenders, idled) + 1):
                seen = False  # the same spares in the same order as an earlier choice
                for other in range(total):
                    if sizes[other] == length:
                        same = True
                        for j in range(length):
                            if choices[other, j] != ranked[j]:
                                same = False
                                break
                        if same:
                            seen = True
                            break
                if not seen:
                    choices[total, :length] = ranked[:length]
                    choices[total, length:] = -1
                    sizes[total] = length
                    total += 1
        reach = hope(avail, start, last, members[a])
        for i in range(total):
            length = sizes[i]
            back, held = since[choices[i, 0], end], False  # the last return of a spare
            for j in range(length):
                back = max(back, since[choices[i, j], end])
                held = held or holder[choices[i, j]]
            for late in range(2):  # at once unless a spare holds a program, and after its last return
                join = back if late else start
                if (late and back <= start) or (not late and held):
                    continue
                picked = choices[i, :length]
                row = (
                    members[a],
                    tasks[a],
                    work[a],
                    picked,
                    settings,
                    ys,
                    starts,
                    left[:length],
                    letters,
                    reach,
                )
                c, _, _ = preloaded(avail, start, join, holder, *row)
                if c < 0:
                    continue
                mask = 0
                for j in range(length):
                    if since[picked[j], c + 1] <= left[j]:
                        mask |= 1 << picked[j]
                found[n, 0], found[n, 1], found[n, 2], found[n, 3] = c, a, join, mask
                spares[n, :] = -1
                spares[n, :length] = picked
                n += 1
    return n
