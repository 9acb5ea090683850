"""Compiled (numba) kernels of :mod:`.bnb`: a bitset branch-and-bound for a fixed-size biclique.

The search is generic in the side it branches on. It chooses *items* (rows of the
bitset matrix ``A0``, each a set of *elements*) and keeps the elements common to
all chosen items; ``B`` is the transposed bitset matrix. A solution is ``a`` items
sharing at least ``b`` elements. Mode 0 fixes ``a`` and raises ``b`` after each
solution (items are processors, elements slots); mode 1 fixes ``b`` and raises
``a`` (items are slots: the largest slot set that ``b`` processors share). The
bounds and why they are valid are in :mod:`.bnb`.

Bitsets are ``uint64`` words; a node's elements are renumbered to consecutive
bits when they are sparse (``pext``), so deep nodes work on a few words. Nodes
with at most 64 candidates (:func:`_small`) keep candidate sets, the pair graph
and colour classes in single words and reuse a preallocated workspace per depth.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

# The int64 state vector of one search: targets a and b, counters, stop flags, the largest
# bound left unexplored, mode, incumbent value, the decision target, root branches passed.
A_, B_, NODES, TICK, STOP, OPEN, MODE, BEST, TARGET, REACHED, BRANCH = range(11)
STATE_SIZE = 11
SMALL = 64  # candidates handled by _small (one word)
DEPTH = SMALL + 2  # its workspace depth: it chooses at most 64 items
ONE = np.uint64(1)


@intrinsic
def _popc(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.int64(types.uint64), codegen


@intrinsic
def _idx(typingctx, x):
    """Index of the lowest set bit."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.int64(types.uint64), codegen


def _pext_software(x, m):
    out = np.uint64(0)
    k = np.uint64(0)
    while m:
        if x & m & (~m + ONE):
            out |= ONE << k
        k += ONE
        m &= m - ONE
    return out


def _has_bmi2() -> bool:
    from numba.core import config
    if config.CPU_NAME not in (None, "host"):
        return False
    import llvmlite.binding as llvm
    return bool(llvm.get_host_cpu_features().get("bmi2", False))


_BMI2 = _has_bmi2()


@intrinsic
def _pext(typingctx, x, m):
    """The bits of ``x`` under ``m``, packed to the low end (BMI2 ``pext`` when the CPU has it)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        if _BMI2:
            fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pext.64")
            return builder.call(fn, args)
        return context.compile_internal(builder, _pext_software, signature, args)
    return sig, codegen


@njit(cache=True)
def _now():
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True, nogil=True)
def _count(x, y):
    c = 0
    for w in range(x.shape[0]):
        c += _popc(x[w] & y[w])
    return c


@njit(cache=True, nogil=True)
def greedy(A, m):
    """Best of one greedy completion per starting item: ``(common count, sorted items)``."""
    n, words = A.shape
    best, best_set = -1, np.zeros(m, np.int64)
    chosen = np.zeros(m, np.int64)
    common = np.empty(words, np.uint64)
    free = np.ones(n, np.bool_)
    for start in range(n):
        common[:] = A[start]
        free[:] = True
        free[start] = False
        chosen[0] = start
        for step in range(1, m):
            top, arg = -1, -1
            for r in range(n):
                if free[r]:
                    c = _count(common, A[r])
                    if c > top:
                        top, arg = c, r
            chosen[step] = arg
            free[arg] = False
            for w in range(words):
                common[w] &= A[arg, w]
        value = 0
        for w in range(words):
            value += _popc(common[w])
        if value > best:
            best = value
            best_set[:] = chosen
    return best, np.sort(best_set)


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
        if (it & 15) == 15 and _now() > deadline:
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
            value += _popc(pre[m, w])
        if value > best:
            best = value
            best_set[:] = cur
        top, out, into = -1, -1, -1
        for i in range(m):
            for r in range(n):
                if inside[r]:
                    continue
                c = 0
                for w in range(words):
                    c += _popc(pre[i, w] & suf[i + 1, w] & A[r, w])
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
    return best, np.sort(best_set)


@njit(cache=True, nogil=True)
def _close(A0, B, chosen, s, st, best_set):
    """Mode 1: the first ``b`` elements common to ``chosen[:s]`` as the processor set, and the
    number of items common to those elements (at least ``s``)."""
    b = st[B_]
    words = A0.shape[1]
    common = A0[chosen[0]].copy()
    for i in range(1, s):
        for w in range(words):
            common[w] &= A0[chosen[i], w]
    xwords = B.shape[1]
    back = np.empty(xwords, np.uint64)
    back[:] = ~np.uint64(0)
    k = 0
    for w in range(words):
        rest = common[w]
        while rest and k < b:
            y = w * 64 + _idx(rest)
            rest &= rest - ONE
            best_set[k] = y
            for v in range(xwords):
                back[v] &= B[y, v]
            k += 1
    value = 0
    for v in range(xwords):
        value += _popc(back[v])
    return value


@njit(cache=True, nogil=True)
def _improve(st, value):
    st[BEST] = value
    if st[MODE] == 0:
        st[B_] = value + 1
    else:
        st[A_] = value + 1
    if value >= st[TARGET]:
        st[REACHED] = 1
        st[STOP] = 1


@njit(cache=True, nogil=True)
def _stopping(st, deadline, period):
    """Whether to stop; the clock is read every ``period`` branchings (a power of two)."""
    st[TICK] += 1
    if not st[STOP] and (st[TICK] & (period - 1)) == 1 and _now() > deadline:
        st[STOP] = 1
    return st[STOP] != 0


@njit(cache=True, nogil=True)
def _at_least(M, n, need, planes, carry, out):
    """``out[t]``: the bits of word ``t`` set in at least ``need`` of the rows ``M[:n]``.

    Bit-sliced counters (``planes[j]`` holds bit ``j`` of every position's count), each loop
    running over the words so that it vectorises.
    """
    depth = planes.shape[0]
    nz = M.shape[1]
    for j in range(depth):
        for t in range(nz):
            planes[j, t] = 0
    for i in range(n):
        for t in range(nz):
            carry[t] = M[i, t]
        for j in range(depth):
            for t in range(nz):
                low = planes[j, t] & carry[t]
                planes[j, t] ^= carry[t]
                carry[t] = low
    for t in range(nz):
        out[t] = 0
        carry[t] = ~np.uint64(0)
    for j in range(depth - 1, -1, -1):
        if (need >> j) & 1:
            for t in range(nz):
                carry[t] &= planes[j, t]
        else:
            for t in range(nz):
                out[t] |= carry[t] & planes[j, t]
                carry[t] &= ~planes[j, t]
    for t in range(nz):
        out[t] |= carry[t]


@njit(cache=True, nogil=True)
def _at_least_word(M, n, w, need):
    """The bits of word ``w`` set in at least ``need`` of the rows ``M[:n]`` (``n < 128``)."""
    p0 = p1 = p2 = p3 = p4 = p5 = p6 = np.uint64(0)
    for i in range(n):
        c = M[i, w]
        low = p0 & c
        p0 ^= c
        if low:
            c = low
            low = p1 & c
            p1 ^= c
            if low:
                c = low
                low = p2 & c
                p2 ^= c
                if low:
                    c = low
                    low = p3 & c
                    p3 ^= c
                    if low:
                        c = low
                        low = p4 & c
                        p4 ^= c
                        if low:
                            c = low
                            low = p5 & c
                            p5 ^= c
                            p6 ^= low
    greater = np.uint64(0)
    equal = ~np.uint64(0)
    for j in range(6, -1, -1):
        plane = p6 if j == 6 else p5 if j == 5 else p4 if j == 4 else p3 if j == 3 \
            else p2 if j == 2 else p1 if j == 1 else p0
        if (need >> j) & 1:
            equal &= plane
        else:
            greater |= equal & plane
            equal &= ~plane
    return greater | equal


@njit(cache=True, nogil=True)
def _open_bound(st, s, need, remaining, counts, colour_of):
    """Record a valid bound for the unexplored candidates ``remaining`` of a node."""
    if st[MODE] == 0:
        k = 0
        for w in range(remaining.shape[0]):
            rest = remaining[w]
            while rest:
                i = w * 64 + _idx(rest)
                rest &= rest - ONE
                k += 1
                if k == need:  # counts are sorted decreasing: the need-th largest
                    st[OPEN] = max(st[OPEN], counts[i])
                    return
    else:
        seen = np.zeros(counts.shape[0] + 1, np.bool_)
        distinct = 0
        for w in range(remaining.shape[0]):
            rest = remaining[w]
            while rest:
                i = w * 64 + _idx(rest)
                rest &= rest - ONE
                if not seen[colour_of[i]]:
                    seen[colour_of[i]] = True
                    distinct += 1
        if distinct > 0:
            st[OPEN] = max(st[OPEN], s + distinct)


@njit(cache=True, nogil=True)
def _small_enter(d, s, chosen, st, best_set, A0, B, rows_in, rows, ys, wi, wu, sc):
    """Filter, sort, compact and colour the node at depth ``d`` of a small subtree.

    Input: ``sc[d, 0]`` rows ``rows_in[d]`` of ``sc[d, 1]`` words, ids ``wi[d, 0]``, common
    elements ``ys[d]``. Output: ``rows[d]`` by decreasing count (ids ``wi[d, 1]``, counts
    ``wi[d, 3]``), pair graph ``wu[d, 0]``, colour classes ``wu[d, 1]``, branching order
    ``wi[d, 4]`` with colours ``wi[d, 5]``, colour by position ``wi[d, 6]``. Returns the number
    of candidates, 0 when the node is done.
    """
    st[NODES] += 1
    if st[MODE] == 1 and s > st[BEST]:
        _improve(st, _close(A0, B, chosen, s, st, best_set))
        if st[STOP]:
            return 0
    need = st[A_] - s
    b = st[B_]
    n = sc[d, 0]
    W = sc[d, 1]
    if need <= 0 or n < need:
        return 0
    R = rows_in[d]
    Y = ys[d]
    ids = wi[d, 0]
    cnt = wi[d, 2]
    for i in range(n):
        c = 0
        for w in range(W):
            c += _popc(R[i, w])
        cnt[i] = c
    first = True
    total = 0
    # Filtering to a fixpoint, as in _node; the counts are bit-sliced in registers.
    while True:
        k = 0
        for i in range(n):
            if cnt[i] >= b:
                if k != i:
                    for w in range(W):
                        R[k, w] = R[i, w]
                    ids[k] = ids[i]
                    cnt[k] = cnt[i]
                k += 1
        removed = n - k
        n = k
        if n < need:
            return 0
        if not first and removed == 0:
            break
        first = False
        changed = False
        total = 0
        for w in range(W):
            y = Y[w]
            if y == 0:
                continue
            keep = y & _at_least_word(R, n, w, need)
            if keep != y:
                changed = True
                Y[w] = keep
                for i in range(n):
                    R[i, w] &= keep
            total += _popc(keep)
        if total < b:
            return 0
        if not changed:
            break
        for i in range(n):
            c = 0
            for w in range(W):
                c += _popc(R[i, w])
            cnt[i] = c
    if st[MODE] == 0 and need == 1:
        top, arg = -1, 0
        for i in range(n):
            if cnt[i] > top:
                top, arg = cnt[i], i
        chosen[s] = ids[arg]
        best_set[:] = chosen
        _improve(st, top)
        return 0
    # Colour in decreasing count order (ties by input position) so the branching, which runs
    # from the last colour, tries the least shared items first (MCS order).
    order = wi[d, 4]
    for i in range(n):
        j = i
        while j > 0 and cnt[order[j - 1]] < cnt[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    sids = wi[d, 1]
    scnt = wi[d, 3]
    for a in range(n):
        sids[a] = ids[order[a]]
        scnt[a] = cnt[order[a]]
    S = rows[d]
    used = 0
    for w in range(W):
        if Y[w]:
            used += 1
    if 2 * total < used * 64:
        pos = 0
        for w in range(W):
            y = Y[w]
            if y == 0:
                continue
            off = np.uint64(pos & 63)
            dst = pos >> 6
            width = _popc(y)
            for a in range(n):
                chunk = _pext(R[order[a], w], y)
                if off == 0:
                    S[a, dst] = chunk
                else:
                    S[a, dst] |= chunk << off
                    if off + width > 64:
                        S[a, dst + 1] = chunk >> (np.uint64(64) - off)
            pos += width
        W = (total + 63) >> 6
        for w in range(W):
            Y[w] = ~np.uint64(0)
        if total & 63:
            Y[W - 1] = (ONE << np.uint64(total & 63)) - ONE
    else:
        k = 0
        for w in range(W):
            if Y[w]:
                for a in range(n):
                    S[a, k] = R[order[a], w]
                Y[k] = Y[w]
                k += 1
        W = k
    sc[d, 1] = W
    if st[MODE] == 0 and need == 2:
        top, bi, bj = -1, 0, 0
        for a in range(n):
            if scnt[a] <= top:
                break  # counts are decreasing: no later pair can beat top
            for c2 in range(a + 1, n):
                if scnt[c2] <= top:
                    break
                c = 0
                for w in range(W):
                    c += _popc(S[a, w] & S[c2, w])
                if c > top:
                    top, bi, bj = c, a, c2
        if top >= b:
            chosen[s] = sids[bi]
            chosen[s + 1] = sids[bj]
            best_set[:] = chosen
            _improve(st, top)
        return 0
    # Two items of an improving solution share >= b elements: only such pairs are edges.
    adj = wu[d, 0]
    for a in range(n):
        adj[a] = 0
    if W == 1:
        for a in range(n):
            sa = S[a, 0]
            row = np.uint64(0)
            for c2 in range(a + 1, n):
                if _popc(sa & S[c2, 0]) >= b:
                    row |= ONE << np.uint64(c2)
            adj[a] |= row
            while row:
                c2 = _idx(row)
                row &= row - ONE
                adj[c2] |= ONE << np.uint64(a)
    else:
        for a in range(n):
            for c2 in range(a + 1, n):
                c = 0
                for w in range(W):
                    c += _popc(S[a, w] & S[c2, w])
                if c >= b:
                    adj[a] |= ONE << np.uint64(c2)
                    adj[c2] |= ONE << np.uint64(a)
    # Positions are in count order, so scanning set bits upwards colours in that order.
    classes = wu[d, 1]
    out = wi[d, 4]
    colour = wi[d, 5]
    left = (ONE << np.uint64(n)) - ONE if n < 64 else ~np.uint64(0)
    k = 0
    ncol = 0
    while left:
        ncol += 1
        queue = left
        members = np.uint64(0)
        while queue:
            v = _idx(queue)
            bit = ONE << np.uint64(v)
            queue &= ~bit
            queue &= ~adj[v]
            members |= bit
            out[k] = v
            colour[k] = ncol
            wi[d, 6, v] = ncol
            k += 1
        classes[ncol] = members
        left &= ~members
    if ncol < need:
        return 0
    sc[d, 2] = n
    sc[d, 3] = ncol
    sc[d, 4] = n - 1
    sc[d, 5] = s
    wu[d, 2, 0] = (ONE << np.uint64(n)) - ONE if n < 64 else ~np.uint64(0)
    return n


@njit(cache=True, nogil=True)
def _small_open_bound(st, s, need, remaining, scnt, n, classes, ncol):
    if st[MODE] == 0:
        k = 0
        for a in range(n):
            if remaining & (ONE << np.uint64(a)):
                k += 1
                if k == need:  # positions are by decreasing count: the need-th largest
                    st[OPEN] = max(st[OPEN], scnt[a])
                    return
    else:
        distinct = 0
        for c in range(1, ncol + 1):
            if classes[c] & remaining:
                distinct += 1
        if distinct > 0:
            st[OPEN] = max(st[OPEN], s + distinct)


@njit(cache=True, nogil=True)
def _small(s0, chosen, st, best_set, deadline, A0, B, rows_in, rows, ys, wi, wu, sc):
    """The subtree of a node with at most 64 candidates, given at depth 0 of the workspace:
    depth-first with an explicit stack (``sc[d]``: size, words, colours, next position and
    chosen count of depth ``d``; ``wu[d, 2, 0]``: its candidates left)."""
    if _small_enter(0, s0, chosen, st, best_set, A0, B, rows_in, rows, ys, wi, wu, sc) == 0:
        return
    d = 0
    while d >= 0:
        s = sc[d, 5]
        idx = sc[d, 4]
        need = st[A_] - s
        if idx < 0 or wi[d, 5, idx] < need:
            d -= 1
            continue
        if _stopping(st, deadline, 1024):
            if not st[REACHED]:
                _small_open_bound(st, s, need, wu[d, 2, 0], wi[d, 3], sc[d, 2], wu[d, 1], sc[d, 3])
            d -= 1
            continue
        sc[d, 4] = idx - 1
        v = wi[d, 4, idx]
        rem = wu[d, 2, 0] & ~(ONE << np.uint64(v))
        wu[d, 2, 0] = rem
        nxt = rem & wu[d, 0, v]
        size = _popc(nxt)
        if size < need - 1:
            continue
        if need >= 2:
            # The colouring restricted to nxt is proper: it needs need - 1 colours.
            classes = wu[d, 1]
            distinct = 0
            for c in range(1, sc[d, 3] + 1):
                if classes[c] & nxt:
                    distinct += 1
                    if distinct >= need - 1:
                        break
            if distinct < need - 1:
                continue
        W = sc[d, 1]
        S = rows[d]
        cy = ys[d + 1]
        for w in range(W):
            cy[w] = S[v, w]
        if need >= 3:
            # The child's need - 1 items lie in distinct colour classes, so its common elements
            # lie on items of at least need - 1 of the classes that nxt meets.
            unions = rows[d + 1]
            slot = wi[d + 1, 6]
            seen = np.uint64(0)
            ncls = 0
            rest = nxt
            while rest:
                j = _idx(rest)
                rest &= rest - ONE
                c = wi[d, 6, j]
                if not (seen >> np.uint64(c)) & ONE:
                    seen |= ONE << np.uint64(c)
                    slot[c] = ncls
                    for w in range(W):
                        unions[ncls, w] = S[j, w]
                    ncls += 1
                else:
                    for w in range(W):
                        unions[slot[c], w] |= S[j, w]
            total = 0
            for w in range(W):
                y = cy[w]
                if y:
                    y &= _at_least_word(unions, ncls, w, need - 1)
                    cy[w] = y
                    total += _popc(y)
            if total < st[B_]:
                continue
        child = rows_in[d + 1]
        cids = wi[d + 1, 0]
        sids = wi[d, 1]
        k = 0
        while nxt:
            j = _idx(nxt)
            nxt &= nxt - ONE
            for w in range(W):
                child[k, w] = S[j, w] & cy[w]
            cids[k] = sids[j]
            k += 1
        sc[d + 1, 0] = size
        sc[d + 1, 1] = W
        chosen[s] = sids[v]
        if _small_enter(d + 1, s + 1, chosen, st, best_set, A0, B, rows_in, rows, ys, wi, wu, sc):
            d += 1


@njit(cache=True, nogil=True)
def _node(R, items, Y, s, chosen, st, best_set, deadline, A0, B, rows_in, rows, ys, wi, wu, sc, claim):
    """A node with more than 64 candidates: chosen items ``chosen[:s]``, their common elements
    ``Y``, candidates ``items`` with rows ``R`` (their elements within ``Y``).

    Searches running in parallel share ``claim[0]``, the next root branch nobody took: a
    search expands root branch ``o`` (its ``o``-th in the common order) only if
    ``claim[0] <= o``, then sets it to ``o + 1``. Without atomics two searches may both take
    a branch, but none skips one: ``claim[0] > o`` is first written by a search that took
    some branch ``>= o`` and read ``claim[0] <= o`` when it passed ``o``, so it took ``o``.
    """
    st[NODES] += 1
    if st[MODE] == 1 and s > st[BEST]:
        _improve(st, _close(A0, B, chosen, s, st, best_set))
        if st[STOP]:
            return
    need = st[A_] - s
    b = st[B_]
    n = items.shape[0]
    if need <= 0 or n < need:
        return
    depth = 1
    while (1 << depth) <= n:
        depth += 1
    nz = Y.shape[0]
    planes = np.empty((depth, nz), np.uint64)
    carry = np.empty(nz, np.uint64)
    mask = np.empty(nz, np.uint64)
    counts = np.empty(n, np.int64)
    for i in range(n):
        c = 0
        for t in range(nz):
            c += _popc(R[i, t])
        counts[i] = c
    first = True
    total = 0
    # Filtering to a fixpoint: items sharing < b elements, elements on < need items.
    while True:
        k = 0
        for i in range(n):
            if counts[i] >= b:
                if k != i:
                    R[k] = R[i]
                    items[k] = items[i]
                    counts[k] = counts[i]
                k += 1
        removed = n - k
        n = k
        if n < need:
            return
        if not first and removed == 0:
            break
        first = False
        _at_least(R, n, need, planes, carry, mask)
        changed = False
        total = 0
        for t in range(nz):
            keep = Y[t] & mask[t]
            if keep != Y[t]:
                changed = True
                Y[t] = keep
                for i in range(n):
                    R[i, t] &= keep
            total += _popc(keep)
        if total < b:
            return
        if not changed:
            break
        for i in range(n):
            c = 0
            for t in range(nz):
                c += _popc(R[i, t])
            counts[i] = c
    if st[MODE] == 0 and need == 1:
        i = np.argmax(counts[:n])
        chosen[s] = items[i]
        best_set[:] = chosen
        _improve(st, counts[i])
        return
    order = np.argsort(-counts[:n], kind="mergesort")
    P = np.empty(n, np.int64)
    cnt = np.empty(n, np.int64)
    for i in range(n):
        P[i] = items[order[i]]
        cnt[i] = counts[order[i]]
    used = 0
    for t in range(nz):
        if Y[t]:
            used += 1
    if 2 * total < used * 64:
        # Sparse elements: renumber them to consecutive bits so that this node and its
        # children work on about |Y| / 64 words.
        live = (total + 63) >> 6
        S = np.zeros((n, live), np.uint64)
        pos = 0
        for t in range(nz):
            y = Y[t]
            if y == 0:
                continue
            off = np.uint64(pos & 63)
            dst = pos >> 6
            width = _popc(y)
            for i in range(n):
                chunk = _pext(R[order[i], t], y)
                S[i, dst] |= chunk << off
                if off and off + width > 64:
                    S[i, dst + 1] |= chunk >> (np.uint64(64) - off)
            pos += width
    else:
        live = used
        S = np.empty((n, live), np.uint64)
        k = 0
        for t in range(nz):
            if Y[t]:
                for i in range(n):
                    S[i, k] = R[order[i], t]
                k += 1
    if st[MODE] == 0 and need == 2:
        top, bi, bj = -1, 0, 0
        for i in range(n):
            if cnt[i] <= top:
                break  # counts are decreasing: no later pair can beat top
            for j in range(i + 1, n):
                if cnt[j] <= top:
                    break
                c = 0
                for t in range(live):
                    c += _popc(S[i, t] & S[j, t])
                if c > top:
                    top, bi, bj = c, i, j
        if top >= b:
            chosen[s] = P[bi]
            chosen[s + 1] = P[bj]
            best_set[:] = chosen
            _improve(st, top)
        return
    # Two items of an improving solution share >= b elements: only such pairs are edges.
    nw = (n + 63) >> 6
    adj = np.zeros((n, nw), np.uint64)
    for i in range(n):
        for j in range(i + 1, n):
            c = 0
            for t in range(live):
                c += _popc(S[i, t] & S[j, t])
            if c >= b:
                adj[i, j >> 6] |= ONE << np.uint64(j & 63)
                adj[j, i >> 6] |= ONE << np.uint64(i & 63)
    # Items are in decreasing count order (see _small_enter): colour them in that order.
    uncoloured = np.zeros(nw, np.uint64)
    for i in range(n):
        uncoloured[i >> 6] |= ONE << np.uint64(i & 63)
    queue = np.empty(nw, np.uint64)
    colour_of = np.empty(n, np.int64)
    classes = np.zeros((n + 1, nw), np.uint64)
    out = np.empty(n, np.int64)
    colour = np.empty(n, np.int64)
    k = 0
    ncol = 0
    while k < n:
        ncol += 1
        queue[:] = uncoloured
        for w in range(nw):
            while queue[w]:
                bit = _idx(queue[w])
                v = w * 64 + bit
                mask_v = ~(ONE << np.uint64(bit))
                queue[w] &= mask_v
                uncoloured[w] &= mask_v
                for u in range(w, nw):
                    queue[u] &= ~adj[v, u]
                colour_of[v] = ncol
                classes[ncol, w] |= ONE << np.uint64(bit)
                out[k] = v
                colour[k] = ncol
                k += 1
    if ncol < need:
        return
    remaining = np.zeros(nw, np.uint64)
    for i in range(n):
        remaining[i >> 6] |= ONE << np.uint64(i & 63)
    nxt = np.empty(nw, np.uint64)
    for idx in range(n - 1, -1, -1):
        need = st[A_] - s
        if colour[idx] < need:
            return
        if _stopping(st, deadline, 128):
            if not st[REACHED]:
                _open_bound(st, s, need, remaining, cnt, colour_of)
            return
        v = out[idx]
        remaining[v >> 6] &= ~(ONE << np.uint64(v & 63))
        if s == 0:
            st[BRANCH] += 1
            if claim[0] >= st[BRANCH]:
                continue  # another search took this root branch
            claim[0] = st[BRANCH]
        size = 0
        for w in range(nw):
            nxt[w] = remaining[w] & adj[v, w]
            size += _popc(nxt[w])
        if size < need - 1:
            continue
        if need >= 2:
            # The colouring restricted to nxt is proper: it needs need - 1 colours.
            distinct = 0
            for c in range(1, ncol + 1):
                for w in range(nw):
                    if classes[c, w] & nxt[w]:
                        distinct += 1
                        break
                if distinct >= need - 1:
                    break
            if distinct < need - 1:
                continue
        chosen[s] = P[v]
        if size <= SMALL:
            k = 0
            for w in range(nw):
                rest = nxt[w]
                while rest:
                    j = w * 64 + _idx(rest)
                    rest &= rest - ONE
                    for t in range(live):
                        rows_in[0, k, t] = S[j, t] & S[v, t]
                    wi[0, 0, k] = P[j]
                    k += 1
            for t in range(live):
                ys[0, t] = S[v, t]
            sc[0, 0] = size
            sc[0, 1] = live
            _small(s + 1, chosen, st, best_set, deadline, A0, B, rows_in, rows, ys, wi, wu, sc)
        else:
            child = np.empty(size, np.int64)
            child_rows = np.empty((size, live), np.uint64)
            k = 0
            for w in range(nw):
                rest = nxt[w]
                while rest:
                    j = w * 64 + _idx(rest)
                    rest &= rest - ONE
                    child[k] = P[j]
                    for t in range(live):
                        child_rows[k, t] = S[j, t] & S[v, t]
                    k += 1
            _node(child_rows, child, S[v].copy(), s + 1, chosen, st, best_set, deadline, A0, B,
                  rows_in, rows, ys, wi, wu, sc, claim)


def search(A0, B, mode, a, b, best, best_set, target, deadline, claim):
    """Run the search from the root; returns the state vector (``best_set`` is updated).

    ``A0`` (items x element words) and ``B`` (elements x item words) are the bitset
    matrices; ``best`` is the incumbent value with its set in ``best_set``, ``a``/``b``
    the targets of the first improving solution, ``target`` the value that stops the
    search (a decision), ``deadline`` a ``time.perf_counter()`` value, ``claim`` an
    int64 array of one zero, shared by the searches that split the root's branches.
    """
    st = np.zeros(STATE_SIZE, np.int64)
    st[A_], st[B_], st[MODE], st[BEST], st[TARGET], st[OPEN] = a, b, mode, best, target, -1
    n_items, words = A0.shape
    chosen = np.zeros(a if mode == 0 else n_items + 1, np.int64)
    rows_in = np.zeros((DEPTH, SMALL, words), np.uint64)
    rows = np.zeros((DEPTH, SMALL, words), np.uint64)
    ys = np.zeros((DEPTH, words), np.uint64)
    wi = np.zeros((DEPTH, 7, SMALL), np.int64)
    wu = np.zeros((DEPTH, 3, SMALL + 1), np.uint64)
    sc = np.zeros((DEPTH, 6), np.int64)
    Y = np.zeros(words, np.uint64)
    n_elements = B.shape[0]
    Y[: n_elements // 64] = ~np.uint64(0)
    if n_elements % 64:
        Y[n_elements // 64] = (ONE << np.uint64(n_elements % 64)) - ONE
    _node(A0.copy(), np.arange(n_items, dtype=np.int64), Y, 0, chosen, st, best_set, deadline, A0, B,
          rows_in, rows, ys, wi, wu, sc, claim)
    return st
