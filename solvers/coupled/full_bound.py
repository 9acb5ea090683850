"""A lower bound for problem ``full`` that keeps the data phase and the program: the data chain.

Casanova et al. (HCW 2013), Section III, as replayed by :mod:`.replay`. The
relaxation drops the master's bandwidth (``n_com``) except for one count per
iteration, and lets every processor receive the program in each of its UP
slots; it keeps, per worker, the data phase of the iteration, the kept-data
rules, the program lost on DOWN, and the computation.

**The relaxed iteration.** Write ``L_q(u)`` for one plus the last DOWN slot of
``q`` before ``u`` (0 if none), ``A_q(u)`` for the UP slots of ``q`` in
``[L_q(u), u)`` and, for an iteration allowed to start at slot ``s``,
``D_q(s, u)`` for the UP slots of ``q`` in ``[max(s, L_q(u)), u)``. Processor
``q`` is *ready for j tasks at u* when it is UP at ``u``, ``j <= min(mu_q, m)``,
``D_q(s, u) >= j T_data`` and ``A_q(u) >= T_prog + j T_data``; let
``J_q(s, u)`` be the largest such ``j`` (0 if none) and ``J_q(s, u) = 0`` for
``u < b(s)``, where ``b(s) = s + ceil(m T_data / n_com)`` (``b(0) = ceil((k_min
T_prog + m T_data) / n_com)``, ``k_min`` the fewest processors that can hold
``m`` tasks). An allocation ``x`` (support ``S``, ``W(x) = max x_q w_q``)
*completes at t from s* when, with ``a = max(s, max_{q in S} L_q(t + 1))`` (no
member DOWN in ``[a, t]``), at least ``W(x)`` slots ``u`` in ``[a, t]`` have
``J_q(s, u) >= x_q`` for every ``q`` in ``S``. ``F(s)`` is the earliest such
``t`` over all ``x``.

**Every iteration of a feasible schedule satisfies it.** Take a schedule
accepted by the replay whose ``i``-th iteration completes at ``c_i`` on the
allocation ``x`` of its last attempt, begun at ``a'``, and let ``s = c_{i-1} +
1`` (``s = 0`` for ``i = 1``). Within the last attempt no member is DOWN (a
DOWN restarts it), so ``a' >= a``, and no entry starts (an entry restarts it),
so ``g_q`` and ``d_q`` of the members only grow from ``a'`` on: the attempt
computes in exactly the slots of ``[a', c_i]`` where every member is UP and
ready (program complete, ``d_q >= x_q T_data``, III-C), ``W(x)`` of them.
Such a slot ``u`` has ``J_q(s, u) >= x_q`` for each member:

* ``d_q(u)`` counts data slots received in the current iteration (zeroed at
  ``c_{i-1}``), since the last DOWN of ``q`` (zeroed there), one per slot in
  which ``q`` was UP (III-B: a worker receives one stream, RECLAIMED
  suspends it). Data kept across a new entry or another worker's DOWN is
  still among these slots, so ``D_q(s, u) >= d_q(u) >= x_q T_data``.
* The program was received after the last DOWN of ``q`` (III-B: DOWN loses it),
  in UP slots of ``q`` other than its data slots, so ``A_q(u) >= T_prog + x_q
  T_data``. The relaxation forgets *when* the program came (enrolled or not,
  while others computed), which is why no state crosses iterations.
* All ``m T_data`` data slots of the iteration are sent in ``[s, u)``, at most
  ``n_com`` per slot, so ``u >= b(s)``; in the first iteration the programs of
  the ``|S| >= k_min`` members are sent too (nobody holds one at slot 0).

So ``x`` completes at ``c_i`` from ``s`` in the relaxation: ``F(c_{i-1} + 1)
<= c_i``.

**Chaining.** ``F`` depends on ``s`` alone and is non-decreasing: a larger
``s`` only shrinks ``D_q``, raises ``b`` and ``a``. Hence the chain ``f_1 =
F(0)``, ``f_i = F(f_{i-1} + 1)`` has ``f_i <= c_i`` for every feasible
schedule, by induction (``f_i = F(f_{i-1} + 1) <= F(c_{i-1} + 1) <= c_i``), as
in :mod:`.iterations`: ``f_K + 1`` is a lower bound on the makespan, and when
the chain does not reach ``K`` completions within the horizon, no schedule does.
The chain is at least the ``iterations`` optimum (``J_q >= 1`` needs ``q`` UP)
and at least :func:`.full.trivial_bound` (``T_prog + T_data`` UP slots before the
first computation, ``T_data`` before each later one, ``W_min`` computing slots).

**Computing F(s) exactly.** ``J_q(s, u) >= j`` is monotone in ``j``, so the
slot's state is the *thermometer* bitmask with bit ``(j - 1) p + q`` set iff
``J_q(s, u) >= j``; the bitwise AND of such masks is the per-processor minimum
of the ``J``'s, and a DOWN of ``q`` clears ``q``'s bits on every level. An
allocation fits a kept mask ``c`` iff ``x_q <= c_q``, so the best workload of
``c`` is ``W(c) = min {W : sum_q min(c_q, floor(W / w_q)) >= m}``. This is the
closed-set sweep of :mod:`.iterations` (:func:`.iterations.closed_sweep`) on
these masks, and with ``T_prog = T_data = 0`` it is exactly the ``iterations``
chain.
"""

from __future__ import annotations

import numpy as np

from volsched.instances.coupled import DOWN, UP, CoupledInstance

from .iterations import closed_sweep, min_workload, slot_masks

BLOCK = 512
"""Slots whose thermometer masks are built at once (a sweep usually stops long before ``H``)."""


class _DataChain:
    """Per-instance tables: UP counts, last DOWN, program levels, DOWN masks on every level."""

    def __init__(self, instance: CoupledInstance):
        self.instance = instance
        p, horizon, m = instance.p, instance.horizon, instance.m
        avail = instance.availability
        up, down = avail == UP, avail == DOWN
        self.up = up
        self.cap = np.array([int(min(mu, m)) for mu in instance.mu], dtype=np.int64)
        self.levels = int(self.cap.max())
        t_prog, t_data = instance.T_prog, instance.T_data
        # count[q, u]: UP slots of q in [0, u); since[q, u]: L_q(u), one past the last DOWN before u.
        self.count = np.zeros((p, horizon + 1), dtype=np.int64)
        np.cumsum(up, axis=1, out=self.count[:, 1:])
        self.since = np.zeros((p, horizon + 1), dtype=np.int64)
        marks = np.where(down, np.arange(1, horizon + 1), 0)
        np.maximum.accumulate(marks, axis=1, out=self.since[:, 1:])
        alive = self.count - np.take_along_axis(self.count, self.since, axis=1)  # A_q(u)
        if t_data:
            self.prog_level = np.clip((alive - t_prog) // t_data, -1, None)
        else:
            self.prog_level = np.where(alive >= t_prog, m, -1)
        np.minimum(self.prog_level, self.cap[:, None], out=self.prog_level)
        replicate = sum(1 << (j * p) for j in range(self.levels))
        self.down = [mask * replicate for mask in slot_masks(instance, DOWN)]
        self.least = min_workload(instance, range(p))
        self.first_level = (1 << p) - 1
        self.workloads: dict[int, int] = {}
        caps = self.cap.tolist()
        k_min = next(k for k in range(1, p + 1) if sum(sorted(caps, reverse=True)[:k]) >= m)
        self.lag0 = -(-(k_min * t_prog + m * t_data) // instance.n_com)
        self.lag = -(-(m * t_data) // instance.n_com)

    def workload(self, mask: int) -> int:
        """``W(c)`` of a thermometer mask, cached (``H + 1`` when it cannot hold ``m`` tasks)."""
        found = self.workloads.get(mask)
        if found is None:
            instance, p = self.instance, self.instance.p
            held = [0] * p
            for j in range(self.levels):
                level = (mask >> (j * p)) & self.first_level
                while level:
                    low = level & -level
                    held[low.bit_length() - 1] += 1
                    level ^= low
            members = [q for q in range(p) if held[q]]
            w = [int(v) for v in instance.w]
            found = instance.horizon + 1
            if sum(held) >= instance.m:
                lo, hi = 1, max(w[q] * held[q] for q in members)
                while lo < hi:
                    mid = (lo + hi) // 2
                    if sum(min(held[q], mid // w[q]) for q in members) >= instance.m:
                        hi = mid
                    else:
                        lo = mid + 1
                found = lo
            self.workloads[mask] = found
        return found

    def levels_at(self, start: int, lo: int, hi: int) -> np.ndarray:
        """``J_q(start, u)`` for ``u`` in ``[lo, hi)``, shape ``(p, hi - lo)``."""
        count = self.count[:, lo:hi]
        since = np.maximum(self.since[:, lo:hi], start)
        got = count - np.take_along_axis(self.count, since, axis=1)  # D_q(start, u)
        t_data = self.instance.T_data
        data_level = got // t_data if t_data else self.cap[:, None]
        level = np.minimum(self.prog_level[:, lo:hi], data_level)
        return np.where(self.up[:, lo:hi], level, 0)

    def slots(self, start: int):
        """``(u, thermometer mask, DOWN mask)`` for ``u = start, start + 1, ...`` up to the horizon."""
        horizon, p = self.instance.horizon, self.instance.p
        first = start + (self.lag0 if start == 0 else self.lag)
        steps = np.arange(1, self.levels + 1)[:, None, None]
        u = start
        while u < horizon:
            hi = min(horizon, u + BLOCK)
            level = self.levels_at(start, u, hi)
            level[:, : max(0, min(first, hi) - u)] = 0
            bits = (level[None, :, :] >= steps).reshape(self.levels * p, hi - u)
            packed = np.packbits(bits, axis=0, bitorder="little")
            for i in range(hi - u):
                yield u + i, int.from_bytes(packed[:, i].tobytes(), "little"), self.down[u + i]
            u = hi

    def earliest(self, start: int) -> int | None:
        """``F(start)`` of the module docstring, or ``None`` when no iteration completes in the horizon."""
        found = closed_sweep(self.slots(start), self.workload, self.least)
        return None if found is None else found[0]


def data_chain(instance: CoupledInstance) -> list[int]:
    """The relaxed chain ``f_1, ..., f_K`` (fewer when the horizon is too short): ``f_K + 1 <= OPT``."""
    chain = _DataChain(instance)
    done: list[int] = []
    start = 0
    while len(done) < instance.K:
        t = chain.earliest(start)
        if t is None:
            break
        done.append(t)
        start = t + 1
    return done


def data_chain_bound(instance: CoupledInstance) -> int:
    """``f_K + 1``, or ``H + 1`` when the relaxed chain does not complete ``K`` iterations in the horizon."""
    done = data_chain(instance)
    return done[-1] + 1 if len(done) == instance.K else instance.horizon + 1


__all__ = ["data_chain", "data_chain_bound"]
