"""Problem ``full``: schedules from a search over iteration completions that tracks the program holders.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Section III, as replayed by :mod:`.replay`.

**What survives an iteration.** After an iteration completes at slot ``c``, the next may begin
at ``s = c + 1`` and nothing but the set ``H`` of processors holding a complete program carries
over (data is per task and iteration, III-A; a program is lost only on DOWN, III-B and III-C).
The data chain of :mod:`.full_bound` forgets ``H``: it lets any processor that was UP long enough
since its last DOWN hold a program. On the paper's realizations that is where its bound loses
most (a processor that never was enrolled has no program, and receiving one takes ``T_prog``
slots during which the iteration does not compute).

**The restricted search.** A state is ``(k, s, H)``. Each iteration enters one allocation ``x``
at ``s`` and keeps it; every enrolled worker receives what it lacks as early as it can: the
program first unless it holds one (in ``H`` and not DOWN since ``s``), then its ``x_q T_data``
data slots, one per UP slot (III-B: one stream per worker, RECLAIMED suspends it). A DOWN
member loses its program and data and restarts the computation (III-B, III-C); the others keep
theirs. The iteration computes in the slots where every member is UP and has all it needs, and
completes after ``W(x) = max_q x_q w_q`` such slots since the last DOWN of a member
(:func:`._holders_kernel.completions`). Its successor is ``(k + 1, c + 1, G)``, ``G`` the members
and the holders of ``H`` not DOWN in ``[s, c]``. With ``n_com >= m`` the master never has to
choose whom to serve (at most ``m`` workers are enrolled), so every such iteration is a schedule
the replay accepts; with fewer channels the search is not run.

The search is a beam over iterations: per layer, states with the same ``s`` whose holder sets
are subsets of another's are dropped, and at most :data:`WIDTH` states are kept, by the data
chain's bound from ``(s, H)`` (:class:`.full_bound.DataChain` restarted at ``s``), then by ``s``.
A state is expanded only if some completion can beat the incumbent: its iteration must complete
by the last ``c`` with ``c + 1`` plus the chain of the remaining iterations below it.

This is a primal method: it looks for schedules shorter than the incumbent, it does not prove
anything. It gives up preloading programs on spare workers and switching allocations within an
iteration, so its optimum can be above the true one. Its schedules go through the replay like
every other (:func:`volsched.solvers.finish`). Work is counted in states expanded, charged to the
caller's :class:`~volsched.solvers.problem.Allowance`: the same budget gives the same answer on
any machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from volsched.instances.coupled import DOWN, UP, CoupledInstance

from ..problem import Allowance
from .allocations import MAX_PROCESSORS, allocation_arrays, listable
from .replay import LETTERS

if TYPE_CHECKING:
    from .full_bound import DataChain

#: States kept per iteration of the beam.
WIDTH = 200


def applies(instance: CoupledInstance) -> bool:
    """The search runs when the master serves every enrolled worker at once (``n_com >= m``) and
    the allocations can be listed (:func:`.allocations.listable`)."""
    return instance.n_com >= instance.m and listable(instance)


def holder_search(
    instance: CoupledInstance, upper: int, chain: DataChain, allowance: Allowance | None = None
) -> dict | None:
    """A schedule of makespan below ``upper`` in the format of :mod:`.replay`, or ``None``.

    Parameters
    ----------
    instance : CoupledInstance
        With ``n_com >= m`` (:func:`applies`); otherwise ``None``.
    upper : int
        The incumbent's makespan (``H + 1`` without one).
    chain : DataChain
        The instance's data chain: the beam's order and its cut.
    allowance : Allowance, optional
        Charged one unit per state expanded; a search it stops returns ``None``.

    Examples
    --------
    >>> from volsched.instances.coupled import paper_realization
    >>> from volsched.solvers.coupled.full_bound import DataChain
    >>> instance = paper_realization(5, 20, 1, 0, 5, slots=200)
    >>> schedule = holder_search(instance, 60, DataChain(instance))
    >>> schedule["completions"][-1] + 1
    47
    >>> holder_search(instance, 47, DataChain(instance)) is None  # CP-SAT proves 47 optimal
    True
    """
    if not applies(instance):
        return None
    from . import _holders_kernel  # numba only on first use

    allowance = Allowance.of(allowance)
    p, big_k = instance.p, instance.K
    avail, count, since = chain.avail, chain.count, chain.since  # the realization's tables
    table, members, tasks, work, masks = allocation_arrays(instance)

    out = np.empty(len(table), dtype=np.int64)
    # a node: (start, holders, parent node, allocation, completion)
    nodes: list[tuple[int, int, int, int, int]] = [(0, 0, -1, -1, -1)]
    layer = [0]
    for k in range(big_k):
        left = big_k - k - 1
        found: dict[tuple[int, int], tuple[int, int]] = {}
        for node in layer:
            start, holders = nodes[node][0], nodes[node][1]
            last = chain.latest(start, left, upper)
            if last < start:
                continue
            if allowance.charge(1):
                return None
            holder = np.array([(holders >> q) & 1 for q in range(p)], dtype=np.bool_)
            ready = _holders_kernel.readiness(
                avail, count, since, start, holder, instance.T_prog, instance.T_data, instance.m, last
            )
            _holders_kernel.completions(ready, members, tasks, work, start, out)
            done = np.nonzero(out >= 0)[0]
            if not len(done):
                continue
            ends = out[done]
            kept = np.zeros(len(done), dtype=np.int64)
            for c in np.unique(ends):
                alive = sum(1 << q for q in range(p) if (holders >> q) & 1 and since[q, c + 1] <= start)
                kept[ends == c] = alive
            successors = (ends << p) | (kept | masks[done])
            keys, first = np.unique(successors, return_index=True)
            for key, i in zip(keys.tolist(), first.tolist(), strict=True):
                state = (key >> p, key & ((1 << p) - 1))
                found.setdefault(state, (node, int(done[i])))
        layer = []
        for state in _frontier(found):
            nodes.append((state[0] + 1, state[1], *found[state], state[0]))
            layer.append(len(nodes) - 1)
        layer.sort(key=lambda n: (chain.rest(nodes[n][0], left), nodes[n][0], -nodes[n][1].bit_count(), n))
        layer = layer[:WIDTH]
        if not layer:
            return None
    best = min(layer, key=lambda n: (nodes[n][0], n))
    return _schedule(instance, nodes, best, table)


def _frontier(found: dict[tuple[int, int], tuple[int, int]]) -> list[tuple[int, int]]:
    """The states ``(c, G)`` of ``found`` whose ``G`` is no subset of another's with the same ``c``."""
    by_end: dict[int, list[int]] = {}
    for c, held in found:
        by_end.setdefault(c, []).append(held)
    out = []
    for c in sorted(by_end):
        front: list[int] = []
        for held in sorted(by_end[c], key=lambda h: (-h.bit_count(), h)):
            if not any(held & ~other == 0 for other in front):
                front.append(held)
        out += [(c, held) for held in front]
    return out


def _schedule(instance: CoupledInstance, nodes, best: int, table) -> dict:
    """The schedule of the path to node ``best``: one entry per iteration, transfers as early as
    each worker can take them (the program first, unless held)."""
    path = []
    while nodes[best][2] >= 0:
        path.append(best)
        best = nodes[best][2]
    path.reverse()
    p, avail = instance.p, instance.availability
    end = nodes[path[-1]][4] + 1
    letters = [[LETTERS[0]] * end for _ in range(p)]
    configurations, completions = [], []
    for n in path:
        parent, a, c = nodes[n][2], nodes[n][3], nodes[n][4]
        start, holders = nodes[parent][0], nodes[parent][1]
        x = table[a]
        configurations.append({"start": start, "allocation": list(x)})
        completions.append(c)
        for q in (q for q in range(p) if x[q]):
            program = instance.T_prog if (holders >> q) & 1 else 0
            data = 0
            for t in range(start, c + 1):
                if avail[q, t] == DOWN:
                    program = data = 0
                elif avail[q, t] == UP:
                    if program < instance.T_prog:
                        letters[q][t], program = LETTERS[1], program + 1
                    elif data < x[q] * instance.T_data:
                        letters[q][t], data = LETTERS[2], data + 1
    return {
        "configurations": configurations,
        "communication": ["".join(row) for row in letters],
        "completions": completions,
    }


__all__ = ["MAX_PROCESSORS", "WIDTH", "applies", "holder_search"]
