"""Branch-and-bound for OFF-LINE-COUPLED (mu = 1): a fixed-size maximum biclique.

Choose ``m`` processors (rows of the UP matrix ``A``) maximising the number of
slots in which all of them are UP, ``|cap_{q in S} A_q|`` (Casanova et al. 2013,
Section IV; its decision form is ENCD, Theorem 4.1). A set of ``m`` rows sharing
``v`` slots and a set of ``v`` slots shared by ``m`` rows are the same biclique,
so the optimum is also the largest number of slots that some ``m`` rows share.

The search is generic in the side it branches on: it chooses *items* and keeps
the *elements* common to all of them; an *improving* solution is ``a`` items
sharing at least ``b`` elements. With processors as items, ``a = m`` and ``b`` is
the incumbent plus one; with slots as items, ``b = m`` and ``a`` is the incumbent
plus one (the largest slot set that ``m`` processors share). The slot side is
searched when its target is the smaller, incumbent plus one below ``m``: the
search is as deep as the set it builds.

Depth-first, each node has chosen items ``S`` with common elements ``I``,
candidates ``C`` (later items of the branching order) and ``k`` items to go:

* **filtering to a fixpoint**: a candidate sharing fewer than ``b`` elements of
  ``I`` cannot join an improving solution, and an element on fewer than ``k``
  candidates cannot be common to one (its ``k`` new items all hold it);
* **colouring bound**: the ``k`` items of an improving solution pairwise share
  ``>= b`` elements, so they form a ``k``-clique of the *pair graph* (candidates
  joined when they share ``>= b`` elements of ``I``); a greedy sequential
  colouring in decreasing count order with fewer than ``k`` colours proves there
  is none (Tomita and Seki's bound). Branching follows the colouring from the
  last vertex (MCS order): the subtree of vertex ``v`` holds the candidates
  before ``v`` adjacent to it, and is skipped when they carry fewer than ``k - 1``
  colours (the colouring restricted to them stays proper). An incumbent found
  meanwhile raises the target, which only removes edges: the colouring remains
  a valid, weaker bound;
* **colour-class filter** (children of nodes with at most 64 candidates): the
  ``k - 1`` items completing a solution in the child of ``v`` lie in distinct
  colour classes, so an element of the child must lie on candidates of at least
  ``k - 1`` classes;
* processor side, ``k = 1`` (``k = 2``): the best row (pair) is read off.

Incumbent: the best greedy completion from every processor, improved by a tabu
swap search (swap one chosen row for another; recently removed rows are tabu).
:func:`solve_bnb` runs two threads (two cores) from the same incumbent; each takes
the next root branch that neither has taken (a duplicate is possible, a gap not:
see :func:`._bnb_kernel._explore`) and searches it exactly.

The search is exact: when it finishes, the incumbent is optimal. With a time
limit it stops and reports the incumbent with an upper bound, the largest bound
of the subtrees it left: the ``k``-th largest candidate count (processor side:
a solution there takes ``k`` of those candidates and shares at most what each
one shares) or the chosen slots plus the colours among the candidates (slot
side: a clique has at most one vertex per colour).

Bitsets are ``uint64`` words; the search runs compiled (numba: :mod:`._bnb_kernel`, the greedy
and the tabu search in :mod:`._bnb_heuristics_kernel`): a numpy node costs more than the whole
compiled node (see ``benchmarks/bench_coupled_offline.py --numpy-floor``).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..problem import STOPPED_BUDGET, STOPPED_CLOCK, Effort
from . import _bnb_heuristics_kernel as incumbent
from . import _bnb_kernel as kernel

_NO_TARGET = np.iinfo(np.int64).max
_TABU_WORK = 2e7  # word operations allowed to the tabu search (tens of milliseconds)
_THREADS = min(2, os.cpu_count() or 1)  # solve_bnb's searches, sharing out the root's branches


def _pack(M: np.ndarray) -> np.ndarray:
    """Boolean (n, L) -> uint64 (n, ceil(L / 64)): bit ``j % 64`` of word ``j // 64`` is column ``j``."""
    n, length = M.shape
    words = max(1, -(-length // 64))
    padded = np.zeros((n, words * 64), dtype=bool)
    padded[:, :length] = M
    return np.ascontiguousarray(np.packbits(padded, axis=1, bitorder="little").view("<u8").astype(np.uint64))


def _value(up: np.ndarray, rows) -> int:
    return int(np.logical_and.reduce(up[list(rows)], axis=0).sum())


def _deadline(deadline: float | None) -> float:
    return np.inf if deadline is None else float(deadline)


def _incumbent(rows_bits: np.ndarray, m: int, deadline: float) -> tuple[int, np.ndarray]:
    best, chosen = incumbent.greedy(rows_bits, m)
    p, words = rows_bits.shape
    if m < p and time.perf_counter() < deadline:
        iterations = int(min(2000, max(20, _TABU_WORK / (m * (p - m) * words))))
        value, found = incumbent.tabu(rows_bits, chosen, iterations, deadline)
        if value > best:
            best, chosen = value, found
    return int(best), chosen


def _search(
    up: np.ndarray,
    m: int,
    best: int,
    chosen: np.ndarray,
    target: int,
    slots_side: bool,
    deadline: float,
    parts: int = 1,
    effort: Effort | None = None,
    budget: float | None = None,
) -> tuple[list[int], int, int, bool, bool]:
    """Run the kernel from incumbent ``best`` (rows ``chosen``) on the processor or slot side,
    ``parts`` threads taking the root's branches in turn as they finish. With a node
    ``budget`` one thread searches: which branches two threads take depends on their speed.

    Returns ``(rows, open bound, nodes, stopped early, target reached)``; ``effort`` receives
    the nodes and why the search stopped.
    """
    left = -1 if budget is None else max(0, int(budget - (0 if effort is None else effort.work)))
    if budget is not None:
        parts = 1
    rows_bits, slot_bits = _pack(up), _pack(up.T)
    if slots_side:
        matrices = (slot_bits, rows_bits, 1, best + 1, m)
    else:
        matrices = (rows_bits, slot_bits, 0, m, best + 1)
    sets = [np.array(chosen, dtype=np.int64) for _ in range(parts)]
    claim = np.zeros(1, np.int64)

    def share(part: int) -> np.ndarray:
        return kernel.search(*matrices, best, sets[part], target, deadline, claim, left)

    if parts == 1:
        states = [share(0)]
    else:
        with ThreadPoolExecutor(parts) as pool:
            states = list(pool.map(share, range(parts)))
    top = max(range(parts), key=lambda i: (states[i][kernel.REACHED], states[i][kernel.BEST], -i))
    reached = bool(states[top][kernel.REACHED])
    stopped = any(st[kernel.STOP] for st in states) and not reached
    nodes = sum(int(st[kernel.NODES]) for st in states)
    if effort is not None:
        cause = None
        if stopped:
            budget_out = any(st[kernel.STOP] == kernel.BUDGET for st in states)
            cause = STOPPED_BUDGET if budget_out else STOPPED_CLOCK
        effort.add(nodes, cause)
    return (
        sorted(int(q) for q in sets[top]),
        max(int(st[kernel.OPEN]) for st in states),
        nodes,
        stopped,
        reached,
    )


def _solve(
    up: np.ndarray,
    m: int,
    time_limit: float | None,
    slots_side: bool | None,
    heuristics: bool = True,
    budget: float | None = None,
    effort: Effort | None = None,
) -> tuple[list[int], int, int, int]:
    """:func:`solve_bnb` on a given side (``None``: the smaller target); without
    ``heuristics`` the search starts from rows ``0 .. m - 1`` (the tests' way to make it
    find the optimum itself)."""
    deadline = _deadline(None if time_limit is None else time.perf_counter() + time_limit)
    up = np.ascontiguousarray(up, dtype=bool)
    p = up.shape[0]
    if not 1 <= m <= p:
        raise ValueError(f"m = {m} must be in [1, p = {p}]")
    if heuristics:
        best, chosen = _incumbent(_pack(up), m, deadline)
    else:
        chosen = np.arange(m, dtype=np.int64)
        best = _value(up, chosen)
    if slots_side is None:
        slots_side = best + 1 < m
    rows, bound, nodes, stopped, _ = _search(
        up, m, best, chosen, _NO_TARGET, slots_side, deadline, _THREADS, effort, budget
    )
    value = _value(up, rows)
    return rows, value, max(value, bound) if stopped else value, nodes


def solve_bnb(
    up: np.ndarray,
    m: int,
    time_limit: float | None = None,
    budget: float | None = None,
    effort: Effort | None = None,
) -> tuple[list[int], int, int, int]:
    """``(processors, value, upper_bound, nodes)`` for the ``(p, H)`` boolean UP matrix.

    ``value == upper_bound`` proves optimality; with ``time_limit`` (seconds) or a ``budget``
    of nodes the search may stop early with ``upper_bound > value`` (``effort`` says which).
    The incumbent's tabu search has a fixed number of iterations, so a budget alone gives the
    same answer on every machine.
    """
    return _solve(up, m, time_limit, None, budget=budget, effort=effort)


def _decide(
    up: np.ndarray,
    m: int,
    target: int,
    deadline: float | None,
    slots_side: bool | None,
    budget: float | None = None,
    effort: Effort | None = None,
) -> tuple[list[int] | None, bool]:
    up = np.ascontiguousarray(up, dtype=bool)
    if target <= 0:
        return list(range(m)), True
    if m > up.shape[0]:
        return None, True
    best, chosen = incumbent.greedy(_pack(up), m)
    if best >= target:
        return sorted(int(q) for q in chosen), True
    if slots_side is None:
        slots_side = target < m
    rows, bound, _, stopped, reached = _search(
        up, m, target - 1, np.zeros(m, np.int64), target, slots_side, _deadline(deadline), 1, effort, budget
    )
    if reached:
        return rows, True
    return None, not stopped or bound < target


def decide_bnb(
    up: np.ndarray,
    m: int,
    target: int,
    deadline: float | None = None,
    budget: float | None = None,
    effort: Effort | None = None,
) -> tuple[list[int] | None, bool]:
    """Do some ``m`` rows share at least ``target`` UP slots? ``(rows or None, decided)``.

    The decision form (ENCD, Theorem 4.1): the same search with the incumbent set just
    below ``target``, stopped at the first set that reaches it. ``deadline`` is a
    ``time.perf_counter()`` value; ``decided`` is ``False`` when it passed, or the node
    ``budget`` (shared through ``effort`` by successive decisions) ran out, before an answer.
    """
    return _decide(up, m, target, deadline, None, budget, effort)
