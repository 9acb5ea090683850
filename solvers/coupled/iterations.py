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


def packed_words(bits: np.ndarray) -> np.ndarray:
    """Masks of boolean rows, one per column: bit ``b`` of column ``t`` is ``bits[b, t]``.

    Returns uint64 ``(columns, ceil(rows / 64))``, word ``b // 64`` holding bit ``b % 64``.
    """
    rows, columns = bits.shape
    packed = np.packbits(bits, axis=0, bitorder="little")
    out = np.zeros((columns, 8 * max(1, -(-rows // 64))), dtype=np.uint8)
    out[:, : packed.shape[0]] = packed.T
    return out.view(np.uint64)


def as_int(words: np.ndarray) -> int:
    """One mask of :func:`packed_words` as a Python integer."""
    return int.from_bytes(words.astype("<u8").tobytes(), "little")


CAPACITY = 1024
"""Kept sets a sweep's table starts with (it doubles as needed)."""


class ClosedSweep:
    """The sweep of the module docstring, compiled (:mod:`._sweep_kernel`), on masks of any width.

    The kept sets are masks of ``levels`` levels of ``p`` bits (bit ``j p + q``); processor
    ``q`` holds ``min(cap_q, step * levels_q)`` tasks, ``levels_q`` the levels where its bit is
    set: ``levels = 1, step = m`` for sets of processors, ``step = 1`` for the thermometer masks
    of :mod:`.full_bound`. ``least`` is a value no set's workload is below (a cheap filter).
    """

    def __init__(self, instance: CoupledInstance, levels: int, step: int, least: int | None):
        self.p, self.levels, self.step, self.m = instance.p, levels, step, instance.m
        self.cap = np.array([int(min(mu, instance.m)) for mu in instance.mu], dtype=np.int64)
        self.w = np.asarray(instance.w, dtype=np.int64)
        self.no_fit = instance.horizon + 1
        self.least = self.no_fit if least is None else least
        self.words = max(1, -(-levels * instance.p // 64))

    def first(self, blocks) -> tuple[int, list[int]] | None:
        """The first slot at which a kept set's count reaches its workload, and every set passing then.

        ``blocks`` yields ``(t, up, down)`` for consecutive slots from the attempt's earliest
        start: ``up`` and ``down`` uint64 ``(B, words)`` (:func:`packed_words`) for slots ``t ..
        t + B - 1``, ``up`` the members that may count a slot, ``down`` those whose window ends
        before it. Returns ``None`` when the blocks end first.
        """
        from . import _sweep_kernel as kernel  # numba only on first use

        capacity = CAPACITY
        keys = np.zeros((capacity, self.words), dtype=np.uint64)
        counts = np.zeros(capacity, dtype=np.int64)
        workloads = np.full(capacity, -1, dtype=np.int64)
        index = np.full(4 * capacity, -1, dtype=np.int64)
        union = np.zeros(self.words, dtype=np.uint64)
        state = np.zeros(4, dtype=np.int64)
        scratch = _scratch(capacity)
        for t, up, down in blocks:
            state[kernel.NEXT] = 0
            while True:
                code = kernel.run(
                    up,
                    down,
                    keys,
                    counts,
                    workloads,
                    index,
                    union,
                    state,
                    *scratch,
                    self.p,
                    self.levels,
                    self.step,
                    self.cap,
                    self.w,
                    self.m,
                    self.no_fit,
                    self.least,
                )
                if code == kernel.PASSED:
                    rows = scratch[-1][: state[kernel.HITS]]
                    return t + int(state[kernel.AT]), [as_int(keys[r]) for r in rows]
                if code == kernel.ENDED:
                    break
                keys, counts, workloads, index = kernel.grown(keys, counts, workloads, state[kernel.SIZE])
                scratch = _scratch(keys.shape[0])
        return None


def _scratch(capacity: int) -> tuple[np.ndarray, ...]:
    """:func:`._sweep_kernel.run`'s work arrays for a table of ``capacity`` rows: old counts,
    rows touched (their number last), stamps (the slot counter last), passing rows."""
    return (
        np.zeros(capacity, dtype=np.int64),
        np.zeros(capacity + 1, dtype=np.int64),
        np.zeros(capacity + 1, dtype=np.int64),
        np.zeros(capacity, dtype=np.int64),
    )


class _Sweep:
    """What every earliest-completion search of one instance shares: masks, per-processor limits, ``W(S)``."""

    def __init__(self, instance: CoupledInstance):
        self.instance = instance
        self.up = packed_words(instance.availability == UP)
        self.down = packed_words(instance.availability == DOWN)
        self.workloads: dict[int, int] = {}
        # no set needs less than all processors
        self.sweep = ClosedSweep(instance, 1, instance.m, min_workload(instance, range(instance.p)))

    def workload(self, members: int) -> int:
        """``W(S)`` of a bitmask, cached (``H + 1`` when the set cannot hold ``m`` tasks)."""
        found = self.workloads.get(members)
        if found is None:
            found = min_workload(self.instance, [q for q in range(self.instance.p) if members >> q & 1])
            found = self.instance.horizon + 1 if found is None else found
            self.workloads[members] = found
        return found

    def earliest(self, start: int) -> Iteration | None:
        found = self.sweep.first([(start, self.up[start:], self.down[start:])])
        return None if found is None else self._pick(found[1], start, found[0])

    def _pick(self, done: list[int], start: int, t: int) -> Iteration:
        instance = self.instance
        workload, members = min((self.workload(s), s.bit_count(), s) for s in done)[::2]
        x = allocation_for(instance, [q for q in range(instance.p) if members >> q & 1], workload)
        enrolled = [q for q in range(instance.p) if x[q]]
        downs = np.flatnonzero((instance.availability[enrolled, start : t + 1] == DOWN).any(axis=0))
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
    return {
        "configurations": configurations,
        "communication": [],
        "completions": [it["completion"] for it in iterations],
    }
