"""Compiled (numba) search of :mod:`.bnb`: a bitset branch-and-bound for a fixed-size biclique.

The search is generic in the side it branches on. It chooses *items* (rows of the
bitset matrix ``A0``, each a set of *elements*) and keeps the elements common to
all chosen items; ``B`` is the transposed bitset matrix. A solution is ``a`` items
sharing at least ``b`` elements. Mode 0 fixes ``a`` and raises ``b`` after each
solution (items are processors, elements slots); mode 1 fixes ``b`` and raises
``a`` (items are slots: the largest slot set that ``b`` processors share). The
bounds and why they are valid are in :mod:`.bnb`.

Bitsets are ``uint64`` words; a node's elements are renumbered to consecutive
bits when they are sparse (``pext``), so deep nodes work on a few words. The bit operations
are in :mod:`._bits_kernel`; the incumbent's greedy and tabu search in
:mod:`._bnb_heuristics_kernel`.

One routine, :func:`_explore`, searches every node. A node's arrays are a row of a
:class:`Level`, named arrays with a leading row axis: a wide node (more than
``SMALL`` candidates, or the root) allocates a one-row Level; the nodes of a small
subtree share the preallocated rows of :attr:`Search.small`, one per depth, and are
searched with an explicit stack. The steps of a node are helpers that numba inlines
into :func:`_explore`; they take the arrays they use rather than the Level, because
numba counts references (atomically) to every array of a tuple passed to a call,
which costs more than a small node's own work, while an array passed to an inlined
helper costs nothing as long as the helper neither calls nor allocates.

A value passed to a compiled helper is an ``np.int64`` where it would be a literal (``1``, or a
counter's first ``0``): numba compiles a helper once per argument type it meets, and types a
literal as its own type (``Literal[int](0)``) even where it is a loop counter's first value, so
each literal cost one more compilation of the helper on a cold cache.
Arrays are copied with loops rather than slice assignments (``x[:] = y``): numba compiles the
shape-mismatch message of an array-to-array slice assignment, and with it its string formatting,
on a cold cache.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ._bits_kernel import ONE, lowest, now, pext, popc

# The int64 state vector of one search: targets a and b, counters, stop flags, the largest
# bound left unexplored, mode, incumbent value, the decision target, root branches passed, the
# node budget. STOP is CLOCK when the deadline stopped the search, BUDGET when the node budget did.
A_, B_, NODES, TICK, STOP, OPEN, MODE, BEST, TARGET, REACHED, BRANCH, LIMIT = range(12)
STATE_SIZE = 12
CLOCK, BUDGET = 1, 2
SMALL = 64  # most candidates of a small node: its candidate sets are one word
DEPTH = SMALL + 2  # rows of a small subtree: each row has fewer candidates than the one above
CARRY, MASK = 64, 65  # rows of the element filter's scratch after its (at most 64) bit planes


class Level(NamedTuple):
    """The arrays of the nodes on one path, one row per node (the leading axis, ``d``).

    The nodes of a small subtree (at most ``SMALL`` candidates) share :attr:`Search.small`,
    a row per depth below the subtree's first node; a wide node (more candidates, or the
    root) has a one-row :class:`Level` of its own. The node in row ``d`` has ``n[d]``
    candidates with rows of ``W[d]`` words and ``nw = ceil(n[d] / 64)`` words per candidate
    set. Its parent writes ``R``, ``ids``, ``Y``, ``n``, ``W`` and ``s``; the node the rest.
    """

    R: np.ndarray  # (d, n, W) uint64: each candidate's elements within Y, filtered in place
    ids: np.ndarray  # (d, n) int64: the candidates' item numbers
    cnt: np.ndarray  # (d, n) int64: their element counts
    Y: np.ndarray  # (d, W) uint64: the elements common to the chosen items
    order: np.ndarray  # (d, n) int64: candidate indices by decreasing count, ties in input order
    S: np.ndarray  # (d, n, W) uint64: the rows in that order (positions), sparse elements packed
    P: np.ndarray  # (d, n) int64: the item of each position
    scnt: np.ndarray  # (d, n) int64: the count of each position, decreasing
    adj: np.ndarray  # (d, n, nw) uint64: the pair graph over positions
    classes: np.ndarray  # (d, n + 1, nw) uint64: colour classes 1 .. ncol
    colour_of: np.ndarray  # (d, n) int64: the colour of each position
    out: np.ndarray  # (d, n) int64: positions in colouring order (branching runs backwards)
    colour: np.ndarray  # (d, n) int64: colour of out[d, k]
    remaining: np.ndarray  # (d, nw) uint64: the candidates not branched on yet
    nxt: np.ndarray  # (d, nw) uint64: the candidates of the child being built
    n: np.ndarray  # (d,) int64: number of candidates
    W: np.ndarray  # (d,) int64: words of the rows
    s: np.ndarray  # (d,) int64: number of items chosen
    ncol: np.ndarray  # (d,) int64: number of colours
    at: np.ndarray  # (d,) int64: the index into out of the next branch (downwards)


class Search(NamedTuple):
    """One search: the bitset matrices, its state, the current and best sets, a workspace."""

    A0: np.ndarray  # (items, element words) uint64
    B: np.ndarray  # (elements, item words) uint64
    st: np.ndarray  # the state vector (A_, B_, NODES, ...)
    chosen: np.ndarray  # chosen[:s]: the items of the current node
    best_set: np.ndarray  # the incumbent's set
    claim: np.ndarray  # claim[0]: the next root branch that no search took
    deadline: float  # a time.perf_counter() value
    small: Level  # the rows of a small subtree: DEPTH rows of SMALL candidates
    planes: np.ndarray  # (MASK + 1, words) uint64: scratch of the element filter on wide nodes


@njit(cache=True, nogil=True)
def _level(depth, n, W):
    """A :class:`Level` of ``depth`` rows of at most ``n`` candidates of ``W`` words."""
    nw = (n + 63) >> 6
    return Level(
        np.empty((depth, n, W), np.uint64),
        np.empty((depth, n), np.int64),
        np.empty((depth, n), np.int64),
        np.empty((depth, W), np.uint64),
        np.empty((depth, n), np.int64),
        np.empty((depth, n, W), np.uint64),
        np.empty((depth, n), np.int64),
        np.empty((depth, n), np.int64),
        np.empty((depth, n, nw), np.uint64),
        np.empty((depth, n + 1, nw), np.uint64),
        np.empty((depth, n), np.int64),
        np.empty((depth, n), np.int64),
        np.empty((depth, n), np.int64),
        np.empty((depth, nw), np.uint64),
        np.empty((depth, nw), np.uint64),
        np.zeros(depth, np.int64),
        np.zeros(depth, np.int64),
        np.zeros(depth, np.int64),
        np.zeros(depth, np.int64),
        np.zeros(depth, np.int64),
    )


@njit(cache=True, nogil=True)
def _close(sr, s):
    """Mode 1: the first ``b`` elements common to ``chosen[:s]`` as the processor set, and the
    number of items common to those elements (at least ``s``)."""
    A0, B, chosen, best_set = sr.A0, sr.B, sr.chosen, sr.best_set
    b = sr.st[B_]
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
            y = w * 64 + lowest(rest)
            rest &= rest - ONE
            best_set[k] = y
            for v in range(xwords):
                back[v] &= B[y, v]
            k += 1
    value = 0
    for v in range(xwords):
        value += popc(back[v])
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
    """Whether to stop: the node budget, checked at every branching (the same nodes on every
    machine), and the clock, read every ``period`` branchings (a power of two)."""
    st[TICK] += 1
    if not st[STOP] and st[NODES] >= st[LIMIT]:
        st[STOP] = BUDGET
    if not st[STOP] and (st[TICK] & (period - 1)) == 1 and now() > deadline:
        st[STOP] = CLOCK
    return st[STOP] != 0


@njit(cache=True, nogil=True, inline="always")
def _at_least_word(M, d, n, w, need):
    """The bits of word ``w`` set in at least ``need`` of the rows ``M[d, :n]`` (``n < 128``):
    the bit-sliced counters in registers."""
    p0 = p1 = p2 = p3 = p4 = p5 = p6 = np.uint64(0)
    for i in range(n):
        c = M[d, i, w]
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
        plane = (
            p6
            if j == 6
            else p5
            if j == 5
            else p4
            if j == 4
            else p3
            if j == 3
            else p2
            if j == 2
            else p1
            if j == 1
            else p0
        )
        if (need >> j) & 1:
            equal &= plane
        else:
            greater |= equal & plane
            equal &= ~plane
    return greater | equal


@njit(cache=True, nogil=True, inline="always")
def _filter(R, Y, ids, cnt, planes, d, n, W, need, b):
    """Filter the candidates of row ``d`` to a fixpoint: a candidate sharing fewer than ``b``
    elements of ``Y`` goes, and so does an element on fewer than ``need`` candidates.

    Returns ``(candidates, elements)`` left, ``(0, 0)`` when no improving solution is left.
    The element counts are bit-sliced (``plane j`` holds bit ``j`` of every element's
    count): in registers, a word at a time, below 128 candidates; else in ``planes``, each
    loop over the words so that it vectorises (``planes[MASK]``: the elements kept).
    """
    first = True
    going = True
    total = 0
    while going:
        k = 0
        for i in range(n):
            c = 0
            for w in range(W):
                c += popc(R[d, i, w])
            if c >= b:
                if k != i:
                    for w in range(W):
                        R[d, k, w] = R[d, i, w]
                    ids[d, k] = ids[d, i]
                cnt[d, k] = c
                k += 1
        removed = n - k
        n = k
        going = n >= need and (first or removed > 0)
        if going and n >= 128:
            depth = 1
            while (1 << depth) <= n:
                depth += 1
            for j in range(depth):
                for t in range(W):
                    planes[j, t] = 0
            for i in range(n):
                for t in range(W):
                    planes[CARRY, t] = R[d, i, t]
                for j in range(depth):
                    for t in range(W):
                        low = planes[j, t] & planes[CARRY, t]
                        planes[j, t] ^= planes[CARRY, t]
                        planes[CARRY, t] = low
            for t in range(W):
                planes[MASK, t] = 0
                planes[CARRY, t] = ~np.uint64(0)
            for j in range(depth - 1, -1, -1):
                if (need >> j) & 1:
                    for t in range(W):
                        planes[CARRY, t] &= planes[j, t]
                else:
                    for t in range(W):
                        planes[MASK, t] |= planes[CARRY, t] & planes[j, t]
                        planes[CARRY, t] &= ~planes[j, t]
            for t in range(W):
                planes[MASK, t] |= planes[CARRY, t]
        if going:
            first = False
            changed = False
            total = 0
            for w in range(W):
                y = Y[d, w]
                if y:
                    keep = y & (planes[MASK, w] if n >= 128 else _at_least_word(R, d, n, w, need))
                    if keep != y:
                        changed = True
                        Y[d, w] = keep
                        for i in range(n):
                            R[d, i, w] &= keep
                    total += popc(keep)
            going = changed and total >= b
    if n < need or total < b:
        n, total = 0, 0
    return n, total


@njit(cache=True, nogil=True, inline="always")
def _sort(ids, cnt, order, P, scnt, d, n):
    """Positions: the candidates by decreasing count, ties in input order (``order[d]`` is
    given when ``n > SMALL``)."""
    if n <= SMALL:
        for i in range(n):
            ci = cnt[d, i]
            j = i
            while j > 0 and cnt[d, order[d, j - 1]] < ci:
                order[d, j] = order[d, j - 1]
                j -= 1
            order[d, j] = i
    for a in range(n):
        P[d, a] = ids[d, order[d, a]]
        scnt[d, a] = cnt[d, order[d, a]]


@njit(cache=True, nogil=True, inline="always")
def _compact(R, Y, order, S, d, n, W, total):
    """``S[d]``: the rows by position on the used words of ``Y[d]`` only; returns their words.

    Sparse elements are renumbered to consecutive bits, so that the node and its children
    work on about ``|Y| / 64`` words.
    """
    used = 0
    for w in range(W):
        if Y[d, w]:
            used += 1
    dense = 2 * total >= used * 64
    pos = 0
    for w in range(W):
        y = Y[d, w]
        if y and dense:
            for a in range(n):
                S[d, a, pos] = R[d, order[d, a], w]
            pos += 1
        elif y:
            off = np.uint64(pos & 63)
            dst = pos >> 6
            width = popc(y)
            for a in range(n):
                chunk = pext(R[d, order[d, a], w], y)
                if off == 0:
                    S[d, a, dst] = chunk
                else:
                    S[d, a, dst] |= chunk << off
                    if off + width > 64:
                        S[d, a, dst + 1] = chunk >> (np.uint64(64) - off)
            pos += width
    return used if dense else (total + 63) >> 6


@njit(cache=True, nogil=True, inline="always")
def _best_pair(S, scnt, d, n, W):
    """``(common elements, position, position)`` of the best pair; counts are decreasing, so
    the scan stops where no later pair can beat the best so far."""
    top, bi, bj = np.int64(-1), 0, 0
    a = 0
    while a < n and scnt[d, a] > top:
        c2 = a + 1
        while c2 < n and scnt[d, c2] > top:
            c = 0
            for w in range(W):
                c += popc(S[d, a, w] & S[d, c2, w])
            if c > top:
                top, bi, bj = c, a, c2
            c2 += 1
        a += 1
    return top, bi, bj


@njit(cache=True, nogil=True, inline="always")
def _pair_graph(S, adj, d, n, W, b):
    """``adj[d]``: the positions sharing at least ``b`` elements. Each row's words are built
    in a register, then mirrored."""
    nw = (n + 63) >> 6
    for a in range(n):
        for u in range(nw):
            adj[d, a, u] = 0
    for u in range(nw):  # the word of the later position c
        hi = min(n, u * 64 + 64)
        for a in range(hi - 1):
            row = np.uint64(0)
            if W == 1:
                sa = S[d, a, 0]
                for c in range(max(a + 1, u * 64), hi):
                    if popc(sa & S[d, c, 0]) >= b:
                        row |= ONE << np.uint64(c & 63)
            else:
                for c in range(max(a + 1, u * 64), hi):
                    k = 0
                    for w in range(W):
                        k += popc(S[d, a, w] & S[d, c, w])
                    if k >= b:
                        row |= ONE << np.uint64(c & 63)
            adj[d, a, u] |= row
            bit = ONE << np.uint64(a & 63)
            while row:
                adj[d, u * 64 + lowest(row), a >> 6] |= bit
                row &= row - ONE


@njit(cache=True, nogil=True, inline="always")
def _fill(bits, d, n):
    """``bits[d]`` holds every position ``< n``."""
    nw = (n + 63) >> 6
    for u in range(nw):
        bits[d, u] = ~np.uint64(0)
    if n & 63:
        bits[d, nw - 1] = (ONE << np.uint64(n & 63)) - ONE


@njit(cache=True, nogil=True, inline="always")
def _colour(adj, classes, out, colour, colour_of, remaining, d, n):
    """Greedy sequential colouring of the pair graph in position order; returns the number of
    colours, and leaves every candidate in ``remaining[d]``.

    Positions are by decreasing count, so the branching, which runs from the last colour,
    tries the least shared items first (MCS order). Each class is built word by word: the
    positions it may still take in the current word are in a register (``queue``), its
    neighbours in later words in ``classes[d, ncol]`` meanwhile.
    """
    nw = (n + 63) >> 6
    _fill(remaining, d, n)  # meanwhile: the uncoloured positions
    k = 0
    ncol = 0
    while k < n:
        ncol += 1
        for u in range(1, nw):
            classes[d, ncol, u] = 0
        for w in range(nw):
            queue = remaining[d, w] & ~classes[d, ncol, w] if w else remaining[d, 0]
            members = np.uint64(0)
            while queue:
                i = lowest(queue)
                v = w * 64 + i
                bit = ONE << np.uint64(i)
                queue &= ~bit & ~adj[d, v, w]
                for u in range(w + 1, nw):
                    classes[d, ncol, u] |= adj[d, v, u]
                members |= bit
                out[d, k] = v
                colour[d, k] = ncol
                colour_of[d, v] = ncol
                k += 1
            classes[d, ncol, w] = members
            remaining[d, w] &= ~members
    _fill(remaining, d, n)
    return ncol


@njit(cache=True, nogil=True, inline="always")
def _colours_meeting(classes, bits, d, nw, ncol, enough):
    """How many of the colour classes ``1 .. ncol`` of row ``d`` meet ``bits[d]``, counting up
    to ``enough``."""
    distinct = 0
    c = 1
    while c <= ncol and distinct < enough:
        meets = False
        for w in range(nw):
            meets |= (classes[d, c, w] & bits[d, w]) != 0
        distinct += meets
        c += 1
    return distinct


@njit(cache=True, nogil=True)
def _open_bound(st, lv, d, need):
    """Record a valid bound for the candidates ``remaining[d]`` that a stopped node leaves."""
    nw = (lv.n[d] + 63) >> 6
    if st[MODE] == 0:
        k = 0
        for w in range(nw):
            rest = lv.remaining[d, w]
            while rest:
                a = w * 64 + lowest(rest)
                rest &= rest - ONE
                k += 1
                if k == need:  # positions are by decreasing count: the need-th largest
                    st[OPEN] = max(st[OPEN], lv.scnt[d, a])
    else:
        distinct = _colours_meeting(lv.classes, lv.remaining, d, nw, lv.ncol[d], lv.ncol[d])
        if distinct > 0:
            st[OPEN] = max(st[OPEN], lv.s[d] + distinct)


@njit(cache=True, nogil=True, inline="always")
def _class_filter(S, colour_of, nxt, Y, d, W, need):
    """Keep in ``Y[d + 1]`` (the child's elements) those on candidates ``nxt[d]`` of at least
    ``need`` colour classes: the child's ``need`` items lie in distinct classes. Returns the
    number kept. The child's row is the scratch: ``S[d + 1]`` holds the union of each class
    met, ``colour_of[d + 1]`` the row of each colour. Only for nodes of at most 64 candidates.
    """
    seen = np.uint64(0)
    ncls = 0
    rest = nxt[d, 0]
    while rest:
        j = lowest(rest)
        rest &= rest - ONE
        c = colour_of[d, j] - 1
        flag = ONE << np.uint64(c)
        if not seen & flag:
            seen |= flag
            colour_of[d + 1, c] = ncls
            for w in range(W):
                S[d + 1, ncls, w] = S[d, j, w]
            ncls += 1
        else:
            for w in range(W):
                S[d + 1, colour_of[d + 1, c], w] |= S[d, j, w]
    total = 0
    for w in range(W):
        y = Y[d + 1, w]
        if y:
            y &= _at_least_word(S, d + 1, ncls, w, need)
            Y[d + 1, w] = y
            total += popc(y)
    return total


@njit(cache=True, nogil=True, inline="always")
def _child_rows(S, P, nxt, d, nw, W, cR, cids, cY, cd):
    """Row ``cd`` of ``cR`` / ``cids``: the child's candidates ``nxt[d]`` within its elements
    ``cY[cd]``. Only the ``nw`` words of the node's candidates are read: a wide node's row is as
    wide as its first count, and filtering leaves stale bits in the words past its current one."""
    k = 0
    for u in range(nw):
        rest = nxt[d, u]
        while rest:
            j = u * 64 + lowest(rest)
            rest &= rest - ONE
            for w in range(W):
                cR[cd, k, w] = S[d, j, w] & cY[cd, w]
            cids[cd, k] = P[d, j]
            k += 1


@njit(cache=True, nogil=True)
def _explore(sr, lv, small):
    """Search the subtree of the node in row 0 of ``lv``.

    ``small``: ``lv`` is :attr:`Search.small` and the subtree goes on in its rows 1, 2, ...
    (an explicit stack); otherwise ``lv`` is a wide node's own and each child is searched by
    a call, in ``sr.small`` when it has at most ``SMALL`` candidates, in a :class:`Level` of
    its own otherwise. The steps of a node are in :mod:`.bnb`.

    At the root, searches running in parallel share ``claim[0]``, the next root branch
    nobody took: a search expands root branch ``o`` (its ``o``-th in the common order) only
    if ``claim[0] <= o``, then sets it to ``o + 1``. Without atomics two searches may both
    take a branch, but none skips one: ``claim[0] > o`` is first written by a search that
    took some branch ``>= o`` and read ``claim[0] <= o`` when it passed ``o``, so it took ``o``.
    """
    st, chosen, best_set, claim, deadline = sr.st, sr.chosen, sr.best_set, sr.claim, sr.deadline
    planes = sr.planes
    R, ids, cnt, Y, order, S, P, scnt = lv.R, lv.ids, lv.cnt, lv.Y, lv.order, lv.S, lv.P, lv.scnt
    adj, classes, colour_of, out, colour = lv.adj, lv.classes, lv.colour_of, lv.out, lv.colour
    remaining, nxt = lv.remaining, lv.nxt
    ns, Ws, ss, ncols, ats = lv.n, lv.W, lv.s, lv.ncol, lv.at  # per row
    period = 1024 if small else 128
    d = np.int64(0)
    entering = True
    while d >= 0:
        s = ss[d]
        if entering:
            entering = False
            st[NODES] += 1
            if st[MODE] == 1 and s > st[BEST]:
                _improve(st, _close(sr, s))
                if st[STOP]:
                    d -= 1
                    continue
            need = st[A_] - s
            b = st[B_]
            n = ns[d]
            if need <= 0 or n < need:
                d -= 1
                continue
            n, total = _filter(R, Y, ids, cnt, planes, d, n, Ws[d], need, b)
            ns[d] = n
            if n == 0:
                d -= 1
                continue
            if st[MODE] == 0 and need == 1:
                top, arg = np.int64(-1), 0
                for i in range(n):
                    if cnt[d, i] > top:
                        top, arg = cnt[d, i], i
                chosen[s] = ids[d, arg]
                for i in range(chosen.shape[0]):
                    best_set[i] = chosen[i]
                _improve(st, top)
                d -= 1
                continue
            if n > SMALL:
                ranked = np.argsort(-cnt[d, :n], kind="mergesort")
                for i in range(n):
                    order[d, i] = ranked[i]
            _sort(ids, cnt, order, P, scnt, d, n)
            Ws[d] = _compact(R, Y, order, S, d, n, Ws[d], total)
            if st[MODE] == 0 and need == 2:
                top, i, j = _best_pair(S, scnt, d, n, Ws[d])
                if top >= b:
                    chosen[s], chosen[s + 1] = P[d, i], P[d, j]
                    for k in range(chosen.shape[0]):
                        best_set[k] = chosen[k]
                    _improve(st, top)
                d -= 1
                continue
            _pair_graph(S, adj, d, n, Ws[d], b)
            ncols[d] = _colour(adj, classes, out, colour, colour_of, remaining, d, n)
            if ncols[d] < need:
                d -= 1
                continue
            ats[d] = n - 1
        # The next branch: backwards in colouring order, skipped when its candidates (the
        # remaining ones adjacent to it) carry fewer than need - 1 colours.
        idx = ats[d]
        need = st[A_] - s
        if idx < 0 or colour[d, idx] < need:
            d -= 1
            continue
        if _stopping(st, deadline, period):
            if not st[REACHED]:
                _open_bound(st, lv, d, need)
            d -= 1
            continue
        ats[d] = idx - 1
        v = out[d, idx]
        remaining[d, v >> 6] &= ~(ONE << np.uint64(v & 63))
        if s == 0:
            st[BRANCH] += 1
            if claim[0] >= st[BRANCH]:
                continue  # another search took this root branch
            claim[0] = st[BRANCH]
        nw = (ns[d] + 63) >> 6
        size = np.int64(0)
        for w in range(nw):
            nxt[d, w] = remaining[d, w] & adj[d, v, w]
            size += popc(nxt[d, w])
        if size < need - 1:
            continue
        if need >= 2 and _colours_meeting(classes, nxt, d, nw, ncols[d], need - 1) < need - 1:
            continue
        W = Ws[d]
        if small:
            for w in range(W):
                Y[d + 1, w] = S[d, v, w]
            if need >= 3 and _class_filter(S, colour_of, nxt, Y, d, W, need - 1) < st[B_]:
                continue
            _child_rows(S, P, nxt, d, nw, W, R, ids, Y, d + 1)
            ns[d + 1], Ws[d + 1], ss[d + 1] = size, W, s + 1
            chosen[s] = P[d, v]
            d += 1
            entering = True
        else:
            child = sr.small if size <= SMALL else _level(np.int64(1), size, W)
            for w in range(W):
                child.Y[0, w] = S[d, v, w]
            _child_rows(S, P, nxt, d, nw, W, child.R, child.ids, child.Y, 0)
            child.n[0], child.W[0], child.s[0] = size, W, s + 1
            chosen[s] = P[d, v]
            _explore(sr, child, size <= SMALL)


def search(A0, B, mode, a, b, best, best_set, target, deadline, claim, nodes=-1):
    """Run the search from the root; returns the state vector (``best_set`` is updated).

    ``A0`` (items x element words) and ``B`` (elements x item words) are the bitset
    matrices; ``best`` is the incumbent value with its set in ``best_set``, ``a``/``b``
    the targets of the first improving solution, ``target`` the value that stops the
    search (a decision), ``deadline`` a ``time.perf_counter()`` value, ``claim`` an
    int64 array of one zero, shared by the searches that split the root's branches, ``nodes``
    the node budget (negative: none).
    """
    st = np.zeros(STATE_SIZE, np.int64)
    st[A_], st[B_], st[MODE], st[BEST], st[TARGET], st[OPEN] = a, b, mode, best, target, -1
    st[LIMIT] = nodes if nodes >= 0 else np.iinfo(np.int64).max
    n_items, words = A0.shape
    chosen = np.zeros(a if mode == 0 else n_items + 1, np.int64)
    sr = Search(
        A0,
        B,
        st,
        chosen,
        best_set,
        claim,
        float(deadline),
        _level(DEPTH, SMALL, words),
        np.zeros((MASK + 1, words), np.uint64),
    )
    root = _level(1, n_items, words)
    root.R[0] = A0
    root.ids[0] = np.arange(n_items)
    n_elements = B.shape[0]
    root.Y[0] = 0
    root.Y[0, : n_elements // 64] = ~np.uint64(0)
    if n_elements % 64:
        root.Y[0, n_elements // 64] = (ONE << np.uint64(n_elements % 64)) - ONE
    root.n[0], root.W[0] = n_items, words
    _explore(sr, root, False)
    return st
