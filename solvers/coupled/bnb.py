"""Branch-and-bound for OFF-LINE-COUPLED (mu = 1): a fixed-size maximum biclique.

Choose ``m`` processors (rows of the UP matrix ``A``) maximising the number of
slots in which all of them are UP, ``|cap_{q in S} A_q|`` (Casanova et al. 2013,
Section IV). Depth-first over processors with, at every node (current common
slots ``I``, candidates ``C``, ``k`` processors still to choose):

* **filtering to a fixpoint**: a candidate with ``|I cap A_c| <= best`` cannot be
  in a better solution, and a slot UP on fewer than ``k`` remaining candidates
  cannot be in the final intersection;
* **bounds**: candidates are sorted by ``|I cap A_c|``; choosing the ``i``-th
  leaves at most the ``k``-th largest count (the *k-th-largest bound*), and at most
  the ``(k-1)``-th largest of ``|I cap A_c cap A_d|`` over the later ``d``
  (the *pairwise bound*), all pairs coming from one Gram matrix ``M M^T``
  of the node's 0/1 submatrix (BLAS, float32: exact for counts below 2^24);
* a greedy incumbent from every starting processor before the search.

The search is exact: when it finishes, the incumbent is proven optimal. With a
time limit it stops early and returns the incumbent with an upper bound (the
largest bound of the subtrees it did not explore).
"""

from __future__ import annotations

import time

import numpy as np


def _greedy(up: np.ndarray, m: int) -> tuple[int, list[int]]:
    """Best of ``p`` greedy completions (each start adds the row keeping most common slots)."""
    packed = np.packbits(up, axis=1)
    best, best_set = -1, []
    for start in range(up.shape[0]):
        common, chosen = packed[start].copy(), [start]
        free = np.ones(up.shape[0], dtype=bool)
        free[start] = False
        for _ in range(m - 1):
            counts = np.bitwise_count(packed & common).sum(axis=1, dtype=np.int64)
            counts[~free] = -1
            c = int(np.argmax(counts))
            chosen.append(c)
            free[c] = False
            common &= packed[c]
        value = int(np.bitwise_count(common).sum())
        if value > best:
            best, best_set = value, sorted(chosen)
    return best, best_set


def _color_classes(adj: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Greedy sequential colouring of the graph ``adj``, visiting vertices in ``order``.

    Returns the vertices grouped by colour class and each one's class number
    (1-based): the vertices up to any position hold no clique larger than its
    class number (Tomita and Seki's bound).
    """
    out_order, out_color = [], []
    left = list(order)
    number = 0
    while left:
        number += 1
        conflict = np.zeros(adj.shape[0], dtype=bool)
        rest = []
        for v in left:
            if conflict[v]:
                rest.append(v)
            else:
                out_order.append(v)
                out_color.append(number)
                conflict |= adj[v]
        left = rest
    return np.asarray(out_order), np.asarray(out_color)


class _Reached(Exception):
    """The decision target was met: the search can stop."""


class _Search:
    def __init__(self, up: np.ndarray, m: int, deadline: float | None, target: int | None = None):
        self.up, self.m, self.deadline, self.target = up, m, deadline, target
        self.best, self.best_set = _greedy(up, m)
        if target is not None and self.best < target:
            self.best, self.best_set = target - 1, []  # only solutions reaching the target count
        self.open_bound = -1  # largest bound of a subtree left unexplored at the deadline
        self.nodes = 0

    def run(self) -> None:
        p, horizon = self.up.shape
        self.node(np.arange(horizon), np.arange(p), [], self.m)

    def node(self, cols: np.ndarray, cands: np.ndarray, chosen: list[int], k: int) -> None:
        self.nodes += 1
        sub = self.up[np.ix_(cands, cols)]
        while True:
            counts = sub.sum(axis=1)
            rows = counts > self.best
            degree = sub[rows].sum(axis=0)
            keep = degree >= k
            if rows.all() and keep.all():
                break
            sub, cands, counts = sub[rows][:, keep], cands[rows], counts[rows]
            cols = cols[keep]
        if len(cands) < k:
            return
        if k == 1:
            i = int(np.argmax(counts))
            self._improve(int(counts[i]), chosen + [int(cands[i])])
            return
        dense = sub.astype(np.float32)
        gram = dense @ dense.T
        if k == 2:
            upper = np.triu(gram, 1)
            i, j = np.unravel_index(int(np.argmax(upper)), upper.shape)
            self._improve(int(upper[i, j]), chosen + [int(cands[i]), int(cands[j])])
            return
        adj = gram > self.best
        np.fill_diagonal(adj, False)
        order, color = _color_classes(adj, np.argsort(-counts, kind="stable"))
        color_of = np.empty(len(order), dtype=np.int64)
        color_of[order] = color
        for idx in range(len(order) - 1, -1, -1):
            if color[idx] < k:
                return
            if self.deadline is not None and time.perf_counter() > self.deadline:
                self.open_bound = max(self.open_bound, int(counts[order[: idx + 1]].max()))
                return
            v = order[idx]
            before = order[:idx]
            nxt = before[adj[v, before]]
            # The colouring restricted to nxt is proper: fewer than k - 1 colours, no (k-1)-clique.
            if len(nxt) >= k - 1 and np.count_nonzero(np.bincount(color_of[nxt])) >= k - 1:
                self.node(cols[sub[v]], cands[nxt], chosen + [int(cands[v])], k - 1)

    def _improve(self, value: int, chosen: list[int]) -> None:
        if value > self.best:
            self.best, self.best_set = value, sorted(chosen)
            if self.target is not None and value >= self.target:
                raise _Reached


def solve_bnb(up: np.ndarray, m: int, time_limit: float | None = None) -> tuple[list[int], int, int, int]:
    """``(processors, value, upper_bound, nodes)`` for the ``(p, H)`` boolean UP matrix."""
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    search = _Search(np.ascontiguousarray(up, dtype=bool), m, deadline)
    search.run()
    return search.best_set, search.best, max(search.best, search.open_bound), search.nodes


def decide_bnb(up: np.ndarray, m: int, target: int, deadline: float | None = None,
               ) -> tuple[list[int] | None, bool]:
    """Do some ``m`` rows share at least ``target`` UP slots? ``(rows or None, decided)``.

    The decision form (ENCD, Theorem 4.1): the same search with the incumbent
    set just below ``target``, stopped at the first set that reaches it.
    ``decided`` is ``False`` when the deadline passed before an answer.
    """
    if target <= 0:
        return list(range(m)), True
    search = _Search(np.ascontiguousarray(up, dtype=bool), m, deadline, target)
    if search.best >= target:
        return search.best_set, True
    try:
        search.run()
    except _Reached:
        return search.best_set, True
    return None, search.open_bound < target
