"""Minimum makespan of ``K`` iterations without communication (problem ``iterations``).

Casanova et al. 2013, Sections III-C and IV with ``T_prog = T_data = 0`` but
heterogeneous ``w_q``, ``mu_q`` and all three states. An iteration runs on a
configuration ``x`` (``x_q <= mu_q`` tasks on processor ``q``, ``sum_q x_q = m``)
whose workload is ``W = max_q x_q w_q``: it completes at the end of the slot in
which its enrolled workers have been UP together for ``W`` slots, none of them
DOWN since the attempt started (RECLAIMED suspends; DOWN loses the iteration).

**Chaining is optimal.** Let ``E(s)`` be the earliest slot at whose end an
iteration can complete when its attempt starts no earlier than slot ``s``.
Without communication no state survives an iteration (there is no program or
data to keep), so what the iteration after a completion at ``c`` can do depends
on ``c`` alone, and an attempt allowed to start at ``s' >= s`` is also allowed
from ``s``: ``E`` is non-decreasing. Hence if any schedule completes its
``i``-th iteration at ``c_i``, the chain ``g_1 = E(0)``, ``g_i = E(g_{i-1} + 1)``
satisfies ``g_i <= c_i`` by induction (``g_i = E(g_{i-1} + 1) <=
E(c_{i-1} + 1) <= c_i``), so the chain's makespan ``g_K + 1`` is optimal; the
chain also completes the most iterations within any horizon.

**One earliest completion, exactly.** For a set ``S`` of enrolled workers the
smallest workload is ``W(S) = min {W : sum_{q in S} min(mu_q, m, floor(W / w_q))
>= m}``; a larger set never has a larger ``W`` but shares fewer UP slots. An
attempt of ``S`` that ends at ``t`` best starts right after the last DOWN of a
member (``s'_S(t) = max(s, last DOWN + 1)``), so ``S`` completes at ``t`` iff
its *support*, the number of slots in ``[s'_S(t), t]`` where all of ``S`` is UP,
reaches ``W(S)``. The search sweeps ``t`` forward from ``s`` keeping a family
of processor sets with counts such that the support of any set ``Y`` equals the
largest count of a kept superset of ``Y`` (the closed sets of the UP masks,
as in incremental closed-itemset mining):

* at slot ``t`` with UP mask ``u``, every kept ``S`` yields ``S & u`` with count
  ``count(S) + 1`` (merged by maximum), and ``u`` itself enters with count 1;
* when processor ``q`` is DOWN, every kept ``S`` containing it becomes
  ``S \\ {q}`` with its count (the members left keep their window).

``S`` completes at ``t`` as soon as ``count(S) >= W(S)``; a subset ``Y`` that
could complete has ``count(S) >= support(Y) >= W(Y) >= W(S)`` for its
maximising superset, so testing the kept sets is exact, and the first slot at
which one passes is ``E(s)``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from volsched.instances.coupled import DOWN, UP, CoupledInstance


@dataclass(frozen=True)
class Iteration:
    """One completed iteration: attempt start, completion slot, allocation and workload."""

    start: int
    completion: int
    allocation: tuple[int, ...]
    workload: int


def allocation_for(instance: CoupledInstance, members: list[int], workload: int) -> tuple[int, ...]:
    """An allocation of ``m`` tasks on ``members`` with ``max x_q w_q <= workload``.

    Fills the members in order of speed (smallest ``w_q`` first) up to their
    capacity; raises ``ValueError`` if they cannot hold ``m`` tasks.
    """
    x = [0] * instance.p
    left = instance.m
    for q in sorted(members, key=lambda q: (int(instance.w[q]), q)):
        take = min(left, int(min(instance.mu[q], instance.m)), workload // int(instance.w[q]))
        x[q] = take
        left -= take
    if left:
        raise ValueError(f"processors {members} cannot hold {instance.m} tasks within workload {workload}")
    return tuple(x)


def min_workload(instance: CoupledInstance, members) -> int | None:
    """``W(S) = min {W : sum_{q in S} min(mu_q, m, floor(W / w_q)) >= m}``; ``None`` if ``S`` is too small.

    Binary search: the tasks a set can hold never decrease with the workload.
    """
    limit = {q: int(min(instance.mu[q], instance.m)) for q in members}
    if sum(limit.values()) < instance.m:
        return None
    lo, hi = 1, max(int(instance.w[q]) * c for q, c in limit.items())
    while lo < hi:
        mid = (lo + hi) // 2
        if sum(min(c, mid // int(instance.w[q])) for q, c in limit.items()) >= instance.m:
            hi = mid
        else:
            lo = mid + 1
    return lo


def slot_masks(instance: CoupledInstance, code: int) -> list[int]:
    """Per slot, the set of processors in state ``code`` as an integer bitmask (bit ``q``)."""
    packed = np.packbits(instance.availability == code, axis=0, bitorder="little")
    return [int.from_bytes(packed[:, t].tobytes(), "little") for t in range(instance.horizon)]


def closed_sweep(slots, workload, least: int) -> tuple[int, list[int]] | None:
    """The sweep of the module docstring: first slot at which a kept set's count reaches its workload.

    ``slots`` yields ``(t, up, down)`` for consecutive slots from the attempt's
    earliest start: ``up`` the bitmask of the members that may count slot ``t``,
    ``down`` the members whose window ends before ``t`` (bits set in both are
    not expected). ``workload(members)`` is ``W`` of a bitmask; ``least`` a
    value no set's workload is below (a cheap filter). Returns ``(t, sets)``
    with every kept set that passes at ``t``, or ``None`` when ``slots`` ends.
    The members may be any bit encoding whose ``&`` is the intersection of what
    they allow (:mod:`.full_bound` encodes task counts per processor this way).
    """
    family: dict[int, int] = {}
    for t, up, down in slots:
        if down and family:
            kept: dict[int, int] = {}
            for members, count in family.items():
                members &= ~down
                if members and kept.get(members, 0) < count:
                    kept[members] = count
            family = kept
        if not up:
            continue
        grown = dict(family)
        fresh = {up: 1}
        for members, count in family.items():
            inter = members & up
            if inter and fresh.get(inter, 0) <= count:
                fresh[inter] = count + 1
        grown.update(fresh)
        family = grown
        done = [members for members, count in fresh.items() if count >= least and count >= workload(members)]
        if done:
            return t, done
    return None


class _Sweep:
    """What every earliest-completion search of one instance shares: masks, per-processor limits, ``W(S)``."""

    def __init__(self, instance: CoupledInstance):
        self.instance = instance
        self.up, self.down = slot_masks(instance, UP), slot_masks(instance, DOWN)
        self.workloads: dict[int, int] = {}
        self.least = min_workload(instance, range(instance.p))  # no set needs less than all processors

    def workload(self, members: int) -> int:
        """``W(S)`` of a bitmask, cached (``H + 1`` when the set cannot hold ``m`` tasks)."""
        found = self.workloads.get(members)
        if found is None:
            found = min_workload(self.instance, [q for q in range(self.instance.p) if members >> q & 1])
            found = self.instance.horizon + 1 if found is None else found
            self.workloads[members] = found
        return found

    def earliest(self, start: int) -> Iteration | None:
        horizon = self.instance.horizon
        slots = zip(range(start, horizon), itertools.islice(self.up, start, None),
                    itertools.islice(self.down, start, None), strict=False)
        found = closed_sweep(slots, self.workload, self.least)
        return None if found is None else self._pick(found[1], start, found[0])

    def _pick(self, done: list[int], start: int, t: int) -> Iteration:
        instance = self.instance
        workload, members = min((self.workload(s), s.bit_count(), s) for s in done)[::2]
        x = allocation_for(instance, [q for q in range(instance.p) if members >> q & 1], workload)
        enrolled = [q for q in range(instance.p) if x[q]]
        downs = np.flatnonzero((instance.availability[enrolled, start:t + 1] == DOWN).any(axis=0))
        begin = start + (int(downs[-1]) + 1 if downs.size else 0)
        return Iteration(start=begin, completion=t, allocation=x, workload=workload)


def earliest_completion(instance: CoupledInstance, start: int) -> Iteration | None:
    """``E(start)``: the earliest-completing iteration whose attempt starts at or after ``start``.

    ``None`` when no iteration completes within the horizon. Among the sets
    completing first, the one with the smallest workload, then the fewest
    processors, is returned.
    """
    return _Sweep(instance).earliest(start)


def solve_iterations(instance: CoupledInstance) -> list[Iteration]:
    """The chained earliest completions, at most ``K`` (fewer when the horizon is too short)."""
    sweep = _Sweep(instance)
    done: list[Iteration] = []
    start = 0
    while len(done) < instance.K:
        it = sweep.earliest(start)
        if it is None:
            break
        done.append(it)
        start = it.completion + 1
    return done


def schedule_of(instance: CoupledInstance, iterations: list[dict]) -> dict:
    """Iterations (``start``, ``completion``, ``allocation``) as a schedule :mod:`.replay` checks.

    Each allocation is in force from its attempt's start; an idle
    configuration fills the gap up to the next start.
    """
    configurations = []
    for i, it in enumerate(iterations):
        configurations.append({"start": it["start"], "allocation": list(it["allocation"])})
        after = it["completion"] + 1
        if i + 1 < len(iterations) and iterations[i + 1]["start"] > after:
            configurations.append({"start": after, "allocation": [0] * instance.p})
    return {"configurations": configurations, "communication": [],
            "completions": [it["completion"] for it in iterations]}
