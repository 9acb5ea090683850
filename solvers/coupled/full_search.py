"""Problem ``full``: an exact search over iteration completions (Casanova et al., HCW 2013, Section III).

**States.** Between two iterations the whole execution state of Section III, as
replayed by :mod:`.replay`, is ``(k, s, H)``: ``k`` iterations done, the next one
may begin at slot ``s`` (the previous completed at ``s - 1``; ``s = 0`` at the
start) and ``H``, the processors that hold a complete program at the start of
``s`` (received since their last DOWN, III-B and III-C). Nothing else survives a
completion: data is per task and iteration (III-A, zeroed), the computation
restarts, every worker enrolled in the completed attempt holds its program, and a
worker outside the configuration holds no partial program (lost on leaving, III-C).
The configuration in force does not matter either: a new entry at ``s`` with the
same allocation does what continuing it does (a new attempt, no data to keep), so
every iteration here opens with an entry at ``s`` (possibly idle).

**Transitions.** :func:`iteration_outcomes` enumerates one iteration exactly, slot
by slot from ``s``: in each slot every decision of the replay (keep the
configuration, or enter any allocation, idle and an explicit restart included;
then every set of at most ``n_com`` useful transfers to UP enrolled workers), as
the brute force of the tests does, so that preloading programs to spare workers,
kept data across entries and attempts lost on DOWN are all covered. Each
completion at ``c`` gives a successor ``(k + 1, c + 1, G)``, ``G`` the program
holders after slot ``c``.

**Dominance.** Write ``S`` for a slot-level state ``(k, x, g, d, c)`` (iterations
done, allocation in force, program, data and compute progress). If ``k >= k'``,
the same ``x`` and, when ``k = k'``, ``g >= g'``, ``d >= d'``, ``c >= c'``
componentwise (``g >= g'`` always), then ``S`` finishes no later than ``S'``:
let ``S`` repeat the entries of any schedule from ``S'`` and its transfers
minus the useless ones. Each rule of the replay keeps the order (a DOWN or a
leaving worker zeroes both sides; a worker that computes under ``S'`` has its
program and data and receives nothing under ``S`` too, so ``S`` computes in
every slot ``S'`` does and completes each iteration first; when ``S'``
completes one, its data and progress are 0, below anything ``S`` has). Two
consequences are used:

* within an iteration, a state at slot ``t`` is dropped when another one at ``t``
  has the same ``x`` and at least its ``g``, ``d`` and ``c`` (:func:`_pareto`);
* between iterations, ``(k, s, H)`` dominates ``(k, s', H')`` when ``s <= s'``
  and ``adv(H, s, s') >= H'``, ``adv`` removing the processors DOWN in
  ``[s, s')``: the first can enter an idle configuration until ``s'`` and is
  then in the second's position with more programs.

**Bound.** From ``(k, s, H)`` the remaining ``K - k`` iterations complete no earlier
than the data chain of :mod:`.full_bound` restarted at ``s`` (its monotonicity in
the start slot; the prefix-and-chain bound of ``benchmarks/RESULTS.md``). A child's
bound is also at least its parent's (its value is one of the parent's options). A
slot-level state at ``t`` of iteration ``k + 1`` completes it at ``t`` or later, so
it is cut when ``t + 1`` plus the chain of the ``K - k - 1`` further iterations
from ``t + 1`` reaches the incumbent. The search is best-first on the bound; the
open states' least bound is a lower bound on the optimum at any time, so a search
stopped by its budget reports ``min(incumbent, least open bound)``.

**Incumbent and fallback.** The greedy schedule and the bounds of :func:`.full.solve_full`
(method ``greedy``) come first; the search only looks for strictly shorter
schedules, and its own schedules are replayed by :func:`volsched.solvers.finish`
like every other. Work is counted in slot-level states made (``states``): the same
budget gives the same answer on any machine.

The enumeration is exponential in ``p`` and ``m`` (every allocation may be entered in
every slot): it finishes on instances of the size the brute force and the
time-indexed model reach, and on larger ones stops on its budget with the greedy's
schedule and the better of the two lower bounds.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import time

from volsched.instances.coupled import DOWN, UP, CoupledInstance

from ..problem import STOPPED_BUDGET, Allowance, Effort, MethodOutcome
from .allocations import MAX_ALLOCATIONS, allocations, count_allocations
from .full import solve_full
from .full_bound import DataChain
from .replay import LETTERS

#: Slot-level states made between two charges to the work budget.
CHARGE = 1000


def _pareto(states: dict) -> dict:
    """The states of ``states`` (key ``(x, g, d, c)``) that no other one with the same ``x`` dominates."""
    groups: dict[tuple, list] = {}
    for key in states:
        groups.setdefault(key[0], []).append(key)
    kept = {}
    for keys in groups.values():
        keys.sort(key=lambda k: -(sum(k[1]) + sum(k[2]) + k[3]))
        front: list[tuple] = []
        for key in keys:
            _, g, d, c = key
            if any(
                c2 >= c
                and all(a >= b for a, b in zip(g2, g, strict=True))
                and all(a >= b for a, b in zip(d2, d, strict=True))
                for _, g2, d2, c2 in front
            ):
                continue
            front.append(key)
            kept[key] = states[key]
    return kept


class _Search:
    """Per-instance tables: the realization, the allocations and the chain bounds (memoised)."""

    def __init__(self, instance: CoupledInstance, chain: DataChain):
        self.instance = instance
        self.p, self.m, self.K = instance.p, instance.m, instance.K
        self.horizon = instance.horizon
        self.avail = [[int(v) for v in row] for row in instance.availability]
        self.w = [int(v) for v in instance.w]
        self.t_prog, self.t_data, self.n_com = instance.T_prog, instance.T_data, instance.n_com
        self.allocs = allocations(instance)
        self.chain = chain
        self._tail: dict[tuple[int, int], int] = {}
        # next_down[q][t]: the first DOWN slot of q at or after t (H if none).
        self.next_down = []
        for row in self.avail:
            nxt, col = [self.horizon] * (self.horizon + 1), self.horizon
            for t in range(self.horizon - 1, -1, -1):
                if row[t] == DOWN:
                    col = t
                nxt[t] = col
            self.next_down.append(nxt)

    def tail(self, start: int, iterations: int) -> int:
        """A lower bound on the slot after ``iterations`` more iterations that may begin at ``start``
        (the data chain restarted there; ``H + 1`` when it does not fit them)."""
        if iterations == 0:
            return start
        key = (start, iterations)
        if key not in self._tail:
            s, done = start, 0
            while done < iterations:
                t = self.chain.earliest(s) if s < self.horizon else None
                if t is None:
                    s = self.horizon + 1
                    break
                s, done = t + 1, done + 1
            self._tail[key] = s
        return self._tail[key]

    def survivors(self, held: int, start: int, end: int) -> int:
        """``adv``: the processors of bitmask ``held`` not DOWN in ``[start, end)``."""
        out = 0
        for q in range(self.p):
            if held >> q & 1 and self.next_down[q][start] >= end:
                out |= 1 << q
        return out

    def outcomes(self, k: int, s: int, held: int, upper: int, allowance: Allowance):
        """:func:`iteration_outcomes` for this instance: ``[(c, G, path)]``, or ``None`` if stopped."""
        p, t_prog, t_data, n_com = self.p, self.t_prog, self.t_data, self.n_com
        rest = self.K - k - 1
        g0 = tuple(t_prog if held >> q & 1 else 0 for q in range(p))
        zeros = (0,) * p
        # Slot-level states at the start of slot t: (x, g, d, c) -> path, a linked list of decisions.
        layer = {(zeros, g0, zeros, 0): None}
        found: list[tuple[int, int, tuple]] = []
        pending = 0  # states made since the last charge: charged by the thousand, a count not a clock
        for t in range(s, self.horizon):
            if self.tail(t + 1, rest) >= upper:  # completing at t or later cannot beat the incumbent
                break
            col = [self.avail[q][t] for q in range(p)]
            nxt: dict = {}
            for (x, g, d, c), path in layer.items():
                choices = [] if t == s else [(x, g, d, c, None)]
                for y in self.allocs:
                    gy = tuple(0 if x[q] and not y[q] and g[q] < t_prog else g[q] for q in range(p))
                    dy = tuple(min(d[q], y[q] * t_data) for q in range(p))
                    choices.append((y, gy, dy, 0, y))
                for xx, gg, dd, cc, entry in choices:
                    enrolled = [q for q in range(p) if xx[q]]
                    work = max((xx[q] * self.w[q] for q in enrolled), default=0)
                    options = []
                    for q in range(p):
                        opts = [0]
                        if xx[q] and col[q] == UP:
                            if gg[q] < t_prog:
                                opts.append(1)
                            if dd[q] < xx[q] * t_data:
                                opts.append(2)
                        options.append(opts)
                    for combo in itertools.product(*options):
                        if sum(1 for v in combo if v) > n_com:
                            continue
                        computes = work > 0 and all(
                            col[q] == UP and gg[q] >= t_prog and dd[q] >= xx[q] * t_data and not combo[q]
                            for q in enrolled
                        )
                        c2 = cc + 1 if computes else cc
                        g2 = tuple(0 if col[q] == DOWN else gg[q] + (combo[q] == 1) for q in range(p))
                        step = (path, t, entry, combo)
                        pending += 1
                        if pending == CHARGE and allowance.charge(pending):
                            return None
                        pending %= CHARGE
                        if computes and c2 == work:
                            holders = sum(1 << q for q in range(p) if g2[q] >= t_prog)
                            found.append((t, holders, step))
                            continue
                        d2 = tuple(0 if col[q] == DOWN else dd[q] + (combo[q] == 2) for q in range(p))
                        if any(col[q] == DOWN for q in enrolled):
                            c2 = 0
                        key = (xx, g2, d2, c2)
                        if key not in nxt:
                            nxt[key] = step
            if allowance.charge(pending):
                return None
            pending = 0
            layer = _pareto(nxt)
            if not layer:
                break
        return _front(found, self)


def _front(found, search: _Search) -> list:
    """The outcomes ``(c, G, path)`` that no other one dominates (earlier ``c``, more holders then)."""
    found.sort(key=lambda o: (o[0], -bin(o[1]).count("1")))
    front: list = []
    for c, held, path in found:
        if any(
            search.survivors(h2, c2 + 1, c + 1) | held == search.survivors(h2, c2 + 1, c + 1)
            for c2, h2, _ in front
        ):
            continue
        front.append((c, held, path))
    return front


def iteration_outcomes(
    instance: CoupledInstance, start: int, held: frozenset[int] | set[int], chain: DataChain | None = None
) -> list[tuple[int, frozenset[int]]]:
    """Every non-dominated way one iteration can end, from slot ``start`` with programs ``held``.

    Parameters
    ----------
    instance : CoupledInstance
    start : int
        The first slot the iteration may use (the previous one completed at ``start - 1``).
    held : set of int
        The processors holding a complete program at the start of ``start``.

    Returns
    -------
    list of (c, G)
        The completion slot and the program holders after it, for every outcome that no
        other one dominates (``c2 <= c`` and ``G2``, minus its processors DOWN in
        ``(c2, c]``, contains ``G``), by increasing ``c``; empty when none completes
        within the horizon. The first is the earliest completion.
    """
    search = _Search(instance, chain or DataChain(instance))
    mask = sum(1 << q for q in held)
    found = search.outcomes(instance.K - 1, start, mask, instance.horizon + 2, Allowance())
    return [(c, frozenset(q for q in range(instance.p) if g >> q & 1)) for c, g, _ in found]


def _schedule(search: _Search, paths: list[tuple], completions: list[int]) -> dict:
    """The replay's schedule from the decisions of each iteration (entries and transfers)."""
    p = search.p
    entries: list[dict] = []
    comm = [["."] * (completions[-1] + 1) for _ in range(p)]
    for path in paths:
        steps = []
        while path is not None:
            path, t, entry, combo = path
            steps.append((t, entry, combo))
        for t, entry, combo in reversed(steps):
            if entry is not None:
                entries.append({"start": t, "allocation": list(entry)})
            for q, v in enumerate(combo):
                if v:
                    comm[q][t] = LETTERS[v]
    return {
        "configurations": entries,
        "communication": ["".join(row).rstrip(".") for row in comm],
        "completions": list(completions),
    }


def search_full(
    instance: CoupledInstance,
    upper: int | None,
    lower: int,
    incumbent: dict | None,
    allowance: Allowance,
    chain: DataChain,
) -> tuple[dict | None, int | None, int, bool, dict]:
    """Best-first search over ``(k, s, H)`` (module docstring).

    Returns ``(schedule, makespan, bound, finished, info)``: the best schedule (the
    ``incumbent`` unless the search found a shorter one), its makespan, a lower bound on
    the optimum and whether the search finished (then ``bound == makespan`` or, with no
    schedule, none exists within the horizon).
    """
    search = _Search(instance, chain)
    best = instance.horizon + 1 if upper is None else upper
    schedule = incumbent
    tie = itertools.count()
    root = (0, 0, 0, None, None)  # k, s, H, parent node, the iteration's path
    heap = [(max(lower, search.tail(0, instance.K)), 0, 0, next(tie), root)]
    seen: dict[int, list[tuple[int, int]]] = {}
    expanded = 0
    while heap:
        bound, _, _, _, node = heap[0]
        if bound >= best:
            heap.clear()
            break
        k, s, held, _, _ = node
        found = search.outcomes(k, s, held, best, allowance)
        if found is None:
            return (
                schedule,
                None if schedule is None else best,
                min(bound, best),
                False,
                {"expanded": expanded, "open": len(heap)},
            )
        heapq.heappop(heap)
        expanded += 1
        for c, held2, path in found:
            child = (k + 1, c + 1, held2, node, path)
            if k + 1 == instance.K:
                if c + 1 < best:
                    best = c + 1
                    paths, completions, at = [], [], child
                    while at[3] is not None:
                        paths.append(at[4])
                        completions.append(at[1] - 1)
                        at = at[3]
                    schedule = _schedule(search, paths[::-1], completions[::-1])
                continue
            known = seen.setdefault(k + 1, [])
            if any(
                s2 <= c + 1 and search.survivors(h2, s2, c + 1) | held2 == search.survivors(h2, s2, c + 1)
                for s2, h2 in known
            ):
                continue
            known.append((c + 1, held2))
            child_bound = max(bound, search.tail(c + 1, instance.K - k - 1))
            if child_bound < best:
                heapq.heappush(heap, (child_bound, -(k + 1), c + 1, next(tie), child))
    return schedule, None if schedule is None else best, best, True, {"expanded": expanded, "open": 0}


def solve_full_search(
    instance: CoupledInstance,
    time_limit: float | None,
    seed: int,
    budget: float | None = None,
    longer: bool = False,
) -> MethodOutcome:
    """Method ``search`` of problem ``full``: greedy and bounds (:func:`.full.solve_full`), then the search.

    ``budget`` counts slot-level states (unit ``states``); the greedy and the bounds run
    whole, as under method ``greedy`` without a budget (their work is deterministic).
    ``longer``: ``instance`` is a prefix of a longer realization; where the greedy finds no
    schedule in it, the search is not run, so that the next prefix is read.
    """
    begin = time.perf_counter()
    first = solve_full(instance, time_limit, seed, model=False)
    if first.objective is None and first.proven:  # proven infeasible by the relaxations
        return first
    witness = dict(first.solution or {})
    incumbent = witness.pop("schedule", None)
    upper = None if first.objective is None else int(first.objective)
    lower = int(first.bound) if first.bound is not None else 0
    effort = Effort()
    info = {**first.info, "greedy": upper, "greedy_bound": lower}
    if upper is None and longer:
        # No greedy schedule in these slots: the reading (:func:`.horizon.reading`) tries longer
        # prefixes, which a search stopped here on its budget would end.
        info["search"] = "not run: no greedy schedule within the slots read"
        return dataclasses.replace(first, info=info, work=0.0)
    if upper is not None and lower >= upper:
        info["search"] = "not needed: the greedy schedule meets the lower bound"
        return MethodOutcome({**witness, "schedule": incumbent}, upper, upper, True, info, work=0.0)
    many = count_allocations(instance)
    if many > MAX_ALLOCATIONS:
        info["search"] = f"not run: {many:,} allocations per slot (at most {MAX_ALLOCATIONS:,})"
        return dataclasses.replace(first, info=info, work=0.0, stopped=None)
    deadline = None if time_limit is None else begin + time_limit
    allowance = Allowance(budget, deadline, effort)
    schedule, makespan, bound, finished, counts = search_full(
        instance, upper, lower, incumbent, allowance, DataChain(instance)
    )
    info.update(counts)
    info["search"] = "finished" if finished else f"stopped by the {effort.stopped}"
    if schedule is not incumbent:
        info["source"] = "search"
    bound = max(bound, lower)
    done = {"stopped": None if finished else effort.stopped or STOPPED_BUDGET, "work": effort.work}
    if schedule is None:
        if finished:  # no schedule completes K iterations within the horizon
            return MethodOutcome(witness, None, instance.horizon + 1, True, info, **done)
        return MethodOutcome(witness, None, bound, False, info, **done)
    return MethodOutcome(
        {**witness, "schedule": schedule}, makespan, min(bound, makespan), finished, info, **done
    )


__all__ = [
    "MAX_ALLOCATIONS",
    "allocations",
    "count_allocations",
    "iteration_outcomes",
    "search_full",
    "solve_full_search",
]
