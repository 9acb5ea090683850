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
the replay accepts. With fewer channels it serves, in each slot, the ``n_com`` workers with the
most left to receive, and each allocation's iteration is replayed slot by slot
(:func:`._holders_kernel.served`): a rule, not a choice the search explores.

**Preloading spare workers.** A program reaches only an enrolled worker (III-C), and one that holds
it keeps it until it is DOWN, so an iteration may also enrol a few *spares* to receive the program
for later iterations. The iteration then first runs the configuration ``y``: one task per spare, the
members' others at most ``x_q`` each (``sum y = m``, III-C); with more spares than free tasks,
members that hold a program lend theirs and are not enrolled until they get one back (a member that
keeps its program needs its task only for its data, the task lanes of :mod:`.full_holders_bound`). A
spare leaves as soon as it holds a complete program (a complete program survives leaving), and its
task goes back to a member below its ``x_q``, which keeps the data it holds (the replay's "kept
data") and receives the rest of the new task's at once: a new configuration; when the last spare has
left, the configuration is ``x``. The spares get no data, so no configuration with a spare computes.
For the :data:`PRELOAD_ALLOCATIONS` allocations with a free task or a member holding a program that
complete first, the search tries, among the processors that will not hold a program through that
completion and have ``T_prog`` UP slots after their last DOWN before it, each alone (the
:data:`SINGLE_SPARES` fastest: the fastest is often soon DOWN, and a slower one UP for long serves
more iterations), each pair of the :data:`PAIR_SPARES` fastest, and for every ``k`` from 2 up to the
free and lent tasks the ``k`` fastest and the ``k`` that stay UP longest after the completion (their
UP slots before their next DOWN, over as many slots as the iteration took); the successor's ``G``
adds the spares not DOWN since they left. A spare DOWN after ``s`` would lose a program preloaded at
once, so the search also lets the spares *join late*, at the last return of one of them: the
iteration runs ``x`` until then, ``y`` (a new entry: the computation restarts, and each member keeps
the data of its ``y_q`` tasks) until the spares have left, then ``x`` again. One kernel
(:func:`._holders_kernel.preloaded`) replays such an iteration slot by slot and writes its
transfers; without spares it completes exactly where the scan says (tested).

The search is a beam over iterations: per layer, states with the same ``s`` whose holder sets
are subsets of another's are dropped, and at most :data:`WIDTH` states are kept, by the data
chain's bound from ``(s, H)`` (:class:`.full_bound.DataChain` restarted at ``s``), then by ``s``.
A state is expanded only if some completion can beat the incumbent: its iteration must complete
by the last ``c`` with ``c + 1`` plus the chain of the remaining iterations below it. Its
allocations are those :func:`.allocations.completable` lists: the ones whose members have ``W``
ready slots by that ``c``, found without listing the others (20 processors and m = 10 tasks have
20 million allocations); a state with more than :data:`.allocations.MAX_COMPLETABLE` (a million) is skipped.

This is a primal method: it looks for schedules shorter than the incumbent, it does not prove
anything. Its preloads are a few of the possible ones, and it gives up the other ways of
switching allocations within an iteration, so its optimum can be above the true one. Its
schedules go through the replay like every other (:func:`volsched.solvers.finish`). Work is
counted in states expanded, charged to the caller's :class:`~volsched.solvers.problem.Allowance`:
the same budget gives the same answer on any machine.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from ..problem import Allowance
from .allocations import MAX_PROCESSORS, Allocations, completable, trackable
from .replay import LETTERS

if TYPE_CHECKING:
    from volsched.instances.coupled import CoupledInstance

    from .full_bound import DataChain

#: States kept per iteration of the beam.
WIDTH = 200

#: Allocations per state (those that complete first) on which the search tries preloading spares.
PRELOAD_ALLOCATIONS = 40

#: Eligible spares, the fastest first, each tried alone as the one preloaded spare.
SINGLE_SPARES = 20

#: Eligible spares, the fastest first, of which every pair is tried as the two preloaded spares.
PAIR_SPARES = 10


def applies(instance: CoupledInstance) -> bool:
    """The search runs when its holder sets fit a bit mask (:func:`.allocations.trackable`)."""
    return trackable(instance)


def holder_search(
    instance: CoupledInstance,
    upper: int,
    chain: DataChain,
    allowance: Allowance | None = None,
    layers: list | None = None,
) -> dict | None:
    """A schedule of makespan below ``upper`` in the format of :mod:`.replay`, or ``None``.

    Parameters
    ----------
    instance : CoupledInstance
        With too many processors (:func:`applies`), ``None``.
    upper : int
        The incumbent's makespan (``H + 1`` without one).
    chain : DataChain
        The instance's data chain: the beam's order and its cut.
    allowance : Allowance, optional
        Charged one unit per state expanded; a search it stops returns ``None``.
    layers : list, optional
        Receives, per iteration, the states the beam kept after it: ``(s, H, prefix)``, ``H`` a
        bit mask of the processors holding a program at ``s`` and ``prefix()`` the schedule of the
        path to it (where :mod:`.full_windows` starts).

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
    order = sorted(range(p), key=lambda q: (int(instance.w[q]), q))  # spares: the fastest first
    # a node: (start, holders, parent node, allocation x, completion, preload: () or (join, spares))
    nodes: list[tuple[int, int, int, tuple, int, tuple]] = [(0, 0, -1, (), -1, ())]
    layer = [0]
    for k in range(big_k):
        left = big_k - k - 1
        found: dict[tuple[int, int], tuple[int, tuple, tuple]] = {}
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
            rows = completable(instance, ready)
            if rows is None:  # too many allocations to list from this state
                continue
            out = iteration_ends(instance, avail, ready, start, holder, rows, last)
            done = np.nonzero(out >= 0)[0]
            if not len(done):
                continue
            ends = out[done]
            kept = _alive(holders, since, start, ends)
            successors = (ends << p) | (kept | rows.masks[done])
            keys, first = np.unique(successors, return_index=True)
            for key, i in zip(keys.tolist(), first.tolist(), strict=True):
                state = (key >> p, key & ((1 << p) - 1))
                if state not in found:
                    found[state] = (node, rows.allocation(int(done[i]), p), ())
            tried, spares = _preloads(instance, chain, start, holder, rows, out, last, order)
            ends, picks = tried[:, 0], tried[:, 1]
            held = tried[:, 3] | _alive(holders, since, start, ends) | rows.masks[picks]
            for i, state in enumerate(zip(ends.tolist(), held.tolist(), strict=True)):
                if state not in found:
                    preload = (int(tried[i, 2]), tuple(q for q in spares[i].tolist() if q >= 0))
                    found[state] = (node, rows.allocation(int(picks[i]), p), preload)
        layer = []
        for state in _frontier(found):
            nodes.append((state[0] + 1, state[1], *found[state][:2], state[0], found[state][2]))
            layer.append(len(nodes) - 1)
        layer.sort(key=lambda n: (chain.rest(nodes[n][0], left), nodes[n][0], -nodes[n][1].bit_count(), n))
        layer = layer[:WIDTH]
        if layers is not None:
            prefixes = [partial(_schedule, instance, avail, nodes, n) for n in layer]
            layers.append([(nodes[n][0], nodes[n][1], f) for n, f in zip(layer, prefixes, strict=True)])
        if not layer:
            return None
    best = min(layer, key=lambda n: (nodes[n][0], n))
    return _schedule(instance, avail, nodes, best)


def iteration_ends(instance: CoupledInstance, avail, ready, start: int, holder, rows: Allocations, last: int):
    """Per allocation of ``rows``, the slot at which its iteration entered at ``start`` without
    spares completes (``-1`` if not by ``last``), as :func:`._holders_kernel.preloaded` replays it.

    ``ready`` is :func:`._holders_kernel.readiness` from ``(start, holder)`` up to ``last``. An
    allocation with at most ``n_com`` members never has more workers waiting for a transfer than
    the master has channels (III-B), so each receives one per UP slot and completes where the scan
    of ``ready`` says (:func:`._holders_kernel.completions`); only the others are replayed slot by
    slot (:func:`._holders_kernel.served`).

    Examples
    --------
    >>> import numpy as np
    >>> from volsched.instances.coupled import paper_realization
    >>> from volsched.solvers.coupled import _holders_kernel
    >>> from volsched.solvers.coupled.allocations import completable
    >>> from volsched.solvers.coupled.full_bound import DataChain
    >>> instance = paper_realization(10, 5, 1, 3, 5, slots=200)  # m = 10 tasks, n_com = 5
    >>> chain, nobody = DataChain(instance), np.zeros(instance.p, dtype=np.bool_)
    >>> tables = (chain.avail, chain.count, chain.since, 0, nobody, instance.T_prog, instance.T_data)
    >>> ready = _holders_kernel.readiness(*tables, instance.m, 60)
    >>> rows = completable(instance, ready)
    >>> ends = iteration_ends(instance, chain.avail, ready, 0, nobody, rows, 60)
    >>> len(ends), int((ends >= 0).sum()), int(ends[ends >= 0].min())  # the first iteration ends at 11
    (27693, 23241, 11)
    """
    from . import _holders_kernel

    out = np.empty(len(rows.work), dtype=np.int64)
    _holders_kernel.completions(ready, *rows[:3], start, out)
    if instance.n_com < instance.m:
        crowded = np.flatnonzero(rows.members[:, instance.n_com] >= 0)  # more members than channels
        if len(crowded):
            ends = np.empty(len(crowded), dtype=np.int64)
            table = (rows.members[crowded], rows.tasks[crowded], rows.work[crowded])
            _holders_kernel.served(avail, start, holder, *table, _settings(instance, last), ends)
            out[crowded] = ends
    return out


def _frontier(found: dict[tuple[int, int], tuple]) -> list[tuple[int, int]]:
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


def _alive(holders: int, since: np.ndarray, start: int, ends: np.ndarray) -> np.ndarray:
    """Per completion ``c`` of ``ends``, the processors of ``holders`` not DOWN in ``[start, c]`` (they
    still hold the program at ``c + 1``), as bit masks."""
    weights = np.array([(1 << q) & holders for q in range(since.shape[0])], dtype=np.int64)
    return weights @ (since[:, ends + 1] <= start)


def replay_iteration(
    instance: CoupledInstance, avail, start: int, holder, x, spares, last: int, letters=None, join=None
) -> tuple[int, int, list[tuple[int, np.ndarray]], np.ndarray]:
    """``(c, sigma, configurations, left)`` of :func:`._holders_kernel.preloaded` for the
    allocation ``x`` (one task count per processor) with the processors ``spares`` joining at
    ``join`` (default ``start``): ``configurations`` lists ``(first slot, y)`` for each
    configuration with spares, ``left[j]`` the slot at which spare ``j`` left; ``avail`` is the
    realization as ``int8`` (:class:`.full_bound.DataChain`'s), ``letters`` (``p`` rows from
    ``start`` on), if given, receives the transfers."""
    enrolled = [q for q in range(instance.p) if x[q]]
    members = np.full(instance.m, -1, dtype=np.int64)
    tasks = np.zeros(instance.m, dtype=np.int64)
    members[: len(enrolled)] = enrolled
    tasks[: len(enrolled)] = [x[q] for q in enrolled]
    work = max(int(x[q]) * int(instance.w[q]) for q in enrolled)
    return _replay(instance, avail, start, holder, members, tasks, work, spares, last, letters, join)


def _settings(instance: CoupledInstance, last: int) -> np.ndarray:
    """The ``settings`` of :func:`._holders_kernel.preloaded`: ``(T_prog, T_data, m, n_com, last)``."""
    return np.array([instance.T_prog, instance.T_data, instance.m, instance.n_com, last], dtype=np.int64)


def _replay(instance, avail, start, holder, members, tasks, work, spares, last, letters, join):
    """:func:`replay_iteration` on an allocation's rows (:class:`.allocations.Allocations`)."""
    from . import _holders_kernel

    spares = np.asarray(spares, dtype=np.int64)
    ys = np.zeros((len(spares) + 1, instance.p), dtype=np.int64)
    starts = np.zeros(len(spares) + 1, dtype=np.int64)
    left = np.zeros(len(spares), dtype=np.int64)
    letters = np.zeros((instance.p, 0), dtype=np.int8) if letters is None else letters
    join = start if join is None else join
    row = (members, tasks, work, spares, _settings(instance, last))
    everything = np.zeros((2, 0), dtype=np.int64)  # no early stop: the replay runs to the end
    c, sigma, count = _holders_kernel.preloaded(
        avail, start, join, holder, *row, ys, starts, left, letters, everything
    )
    return c, sigma, [(int(starts[k]), ys[k]) for k in range(count)], left


def _preloads(
    instance: CoupledInstance, chain: DataChain, start: int, holder, rows: Allocations, out, last: int, order
):
    """Iterations that preload the program on spare workers (:func:`._holders_kernel.preloads`):
    ``(tried, spares)``, a row ``(c, a, join, gained)`` of ``tried`` per iteration, its spares
    (padded with ``-1``) in the same row of ``spares``.

    Of the :data:`PRELOAD_ALLOCATIONS` allocations of ``rows`` with fewer than ``m`` members or a
    member holding a program that complete first (``out``, their row indices in ``a``), each
    preloads, of the processors that are not members, do not keep a program through its completion
    without preload, and have ``T_prog`` UP slots after their last DOWN before it, each of the
    :data:`SINGLE_SPARES` fastest alone, each pair of the :data:`PAIR_SPARES` fastest, and the ``k``
    fastest and the ``k`` with the most UP slots before their next DOWN (over as many slots as
    the iteration took, from its completion on) for every ``k`` from 2 up to its ``m
    - |members|`` free tasks and the tasks its members holding a program may lend
    (:func:`._holders_kernel.preloaded`): from ``start`` when none of them holds a program, and from
    the last return of a spare DOWN since ``start`` (a spare preloaded at once would lose its
    program). ``gained`` are the spares still holding the program at ``c + 1``.
    """
    from . import _holders_kernel

    if instance.T_prog == 0 or instance.T_data == 0:  # nothing to preload, or y would compute
        return np.zeros((0, 4), dtype=np.int64), np.zeros((0, instance.m), dtype=np.int64)
    holding = int(sum(1 << q for q in np.flatnonzero(holder).tolist()))
    free = (rows.members[:, instance.m - 1] < 0) | (rows.masks & holding != 0)  # or one to lend
    done = np.nonzero((out >= 0) & free)[0]
    done = done[np.argsort(out[done], kind="stable")[:PRELOAD_ALLOCATIONS]]
    most = 2 * (SINGLE_SPARES + PAIR_SPARES**2 + 2 * instance.p) * len(done)
    found = np.empty((most, 4), dtype=np.int64)
    spares = np.empty((most, instance.m), dtype=np.int64)
    limits = np.array([SINGLE_SPARES, PAIR_SPARES], dtype=np.int64)
    tables = (chain.avail, chain.count, chain.since, start, holder, *rows[:3], done, out)
    order = np.asarray(order, dtype=np.int64)
    n = _holders_kernel.preloads(*tables, order, limits, _settings(instance, last), found, spares)
    return found[:n], spares[:n]


def _schedule(instance: CoupledInstance, avail, nodes, best: int) -> dict:
    """The schedule of the path to node ``best``: per iteration its configurations (the preload
    one, if any, then the allocation) and the transfers of :func:`._holders_kernel.preloaded`."""
    path = []
    while nodes[best][2] >= 0:
        path.append(best)
        best = nodes[best][2]
    path.reverse()
    p = instance.p
    end = nodes[path[-1]][4] + 1
    codes = np.zeros((p, end), dtype=np.int8)
    configurations, completions = [], []
    for n in path:
        parent, x, c, preload = nodes[n][2], nodes[n][3], nodes[n][4], nodes[n][5]
        start, holders = nodes[parent][0], nodes[parent][1]
        join, spares = preload if preload else (start, ())
        holder = np.array([(holders >> q) & 1 for q in range(p)], dtype=np.bool_)
        letters = np.zeros((p, c + 1 - start), dtype=np.int8)
        args = (instance, avail, start, holder, x, spares, c, letters, join)
        done, sigma, preloads, _ = replay_iteration(*args)
        if done != c:  # the kernel that found the completion replays it
            raise RuntimeError(f"iteration replayed to {done}, found at {c}")
        if join > start:
            configurations.append({"start": start, "allocation": list(x)})
        configurations += [{"start": first, "allocation": y.tolist()} for first, y in preloads]
        configurations.append({"start": sigma, "allocation": list(x)})
        completions.append(c)
        codes[:, start : c + 1] = letters
    return {
        "configurations": configurations,
        "communication": ["".join(LETTERS[v] for v in row) for row in codes.tolist()],
        "completions": completions,
    }


__all__ = [
    "MAX_PROCESSORS",
    "PAIR_SPARES",
    "PRELOAD_ALLOCATIONS",
    "SINGLE_SPARES",
    "WIDTH",
    "applies",
    "holder_search",
    "iteration_ends",
    "replay_iteration",
]
