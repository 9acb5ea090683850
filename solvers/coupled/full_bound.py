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

**The quiet window** (session 26). For ``s > 0`` the iteration follows one that
completed at ``s' - 1`` for some ``s' >= s``. Write ``W*(v)`` for the least workload
of an allocation over the processors UP at ``v - 1`` (:func:`.iterations.min_workload`
of that set; none when they cannot hold ``m`` tasks), ``g_q(v)`` for the UP slots of
``q`` in ``[max(L_q(v), v - W*(v)), v)`` (infinite when there is no ``W*(v)``), and
``Q_q(s, u, j)`` for the least ``g_q(v)`` over ``v`` in ``[s, u - j T_data]``. For
``s > 0`` and a
processor not DOWN in ``[s, u)`` (``L_q(u) < s``), *ready for j tasks* also needs
``A_q(u) - Q_q(s, u, j) >= T_prog + j T_data`` (false when that range is empty).

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
  T_data``. The relaxation forgets *when* the program came (enrolled or not),
  which is why no state crosses iterations; the quiet window takes back a part.
* All ``m T_data`` data slots of the iteration are sent in ``[s, u)``, at most
  ``n_com`` per slot, so ``u >= b(s)``; in the first iteration the programs of
  the ``|S| >= k_min`` members are sent too (nobody holds one at slot 0).
* The quiet window (``i >= 2``, ``s' = c_{i-1} + 1``): the last attempt of
  iteration ``i - 1`` computes ``W(x_{i-1})`` slots ending at ``c_{i-1}``, in each of
  which all its members are UP (III-C), so ``x_{i-1}`` is an allocation over the
  processors UP at ``s' - 1`` and ``W(x_{i-1}) >= W*(s')`` (which exists). From the
  attempt's first computing slot on nobody receives anything: its members
  hold the program and all their data (a further ``P`` or ``D`` would be useless,
  which the replay rejects, and within the attempt no member loses any), and the
  others are not enrolled (III-C). So no transfer falls in ``[s' - W*(s'), s')``.
  A member ``q`` not DOWN in ``[s', u)`` has ``L_q(s') = L_q(u)``, and received its
  program and its ``x_q T_data`` data slots in distinct UP slots of ``[L_q(u), u)``
  outside that window: ``T_prog + x_q T_data <= A_q(u) - g_q(s')``. Its data came in
  ``[s', u)``, so ``s' <= u - x_q T_data`` and ``g_q(s') >= Q_q(s, u, x_q)`` for any
  ``s <= s'``. (This is the slack that let the data chain reload, for free, the
  program of a worker that came back UP while others computed.)

So ``x`` completes at ``c_i`` from ``s`` in the relaxation: ``F(c_{i-1} + 1)
<= c_i``.

**Chaining.** ``F`` depends on ``s`` alone and is non-decreasing: a larger
``s`` only shrinks ``D_q``, raises ``b`` and ``a``, and shrinks the range of
``Q_q`` and widens the processors it applies to (``F(0)``, without the window,
serves only the first iteration). Hence the chain ``f_1 =
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
closed-set sweep of :mod:`.iterations` (:class:`.iterations.ClosedSweep`) on
these masks, and with ``T_prog = T_data = 0`` it is exactly the ``iterations``
chain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .iterations import ClosedSweep, min_workload

if TYPE_CHECKING:
    from volsched.instances.coupled import CoupledInstance

#: Slots whose masks are built at once: the first block, then twice as many each time, up to
#: the last (an iteration's sweep usually stops long before ``H``).
FIRST_BLOCK, LAST_BLOCK = 256, 65_536


class DataChain:
    """Per-instance tables (:func:`._chain_kernel.tables`) and the sweep of thermometer masks."""

    def __init__(self, instance: CoupledInstance, quiet: bool = True):
        from . import _chain_kernel as kernel  # numba only on first use

        self.kernel = kernel
        self.instance = instance
        p, m = instance.p, instance.m
        self.avail = np.ascontiguousarray(instance.availability, dtype=np.int8)
        self.cap = np.array([int(min(mu, m)) for mu in instance.mu], dtype=np.int64)
        self.levels = int(self.cap.max())
        self.count, self.since, self.program = kernel.tables(
            self.avail, instance.T_prog, instance.T_data, self.cap
        )
        self.sweep = ClosedSweep(instance, self.levels, 1, min_workload(instance, range(p)))
        self.quiet = (
            kernel.quiet_lengths(self.avail, np.asarray(instance.w, dtype=np.int64), self.cap, m)
            if quiet
            else np.zeros(instance.horizon + 1, dtype=np.int64)
        )
        caps = self.cap.tolist()
        k_min = next(k for k in range(1, p + 1) if sum(sorted(caps, reverse=True)[:k]) >= m)
        self.lag0 = -(-(k_min * instance.T_prog + m * instance.T_data) // instance.n_com)
        self.lag = -(-(m * instance.T_data) // instance.n_com)
        self._earliest: dict[int, int | None] = {}
        self._latest: dict[tuple[int, int], int] = {}

    def blocks(self, start: int):
        """Blocks of thermometer and DOWN masks (:meth:`.iterations.ClosedSweep.first`) from ``start``."""
        horizon = self.instance.horizon
        first = start + (self.lag0 if start == 0 else self.lag)
        size = FIRST_BLOCK
        up = np.zeros((size, self.sweep.words), dtype=np.uint64)
        down = np.zeros_like(up)
        carry = np.full(self.instance.p, horizon + 1, dtype=np.int64)
        u = start
        while u < horizon:
            hi = min(horizon, u + size)
            if up.shape[0] < size:
                up = np.zeros((size, self.sweep.words), dtype=np.uint64)
                down = np.zeros_like(up)
            self.kernel.thermometers(
                self.avail,
                self.count,
                self.since,
                self.program,
                self.cap,
                start,
                u,
                hi,
                first,
                self.instance.T_prog,
                self.instance.T_data,
                self.quiet,
                carry,
                self.levels,
                up,
                down,
            )
            yield u, up[: hi - u], down[: hi - u]
            u = hi
            size = min(2 * size, LAST_BLOCK)

    def allocation(self, start: int) -> np.ndarray | None:
        """An allocation that completes at ``F(start)`` in the relaxation (the first passing set,
        water-filled), or ``None``: what the greedy's *guide* option tries (:mod:`.full_greedy`)."""
        found = self.sweep.first(self.blocks(start))
        if found is None:
            return None
        p, m, w = self.instance.p, self.instance.m, self.instance.w
        mask = found[1][0]
        held = [sum(mask >> (j * p + q) & 1 for j in range(self.levels)) for q in range(p)]
        members = [q for q in range(p) if held[q]]
        lo, hi = 1, max(int(w[q]) * held[q] for q in members)
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if sum(min(held[q], mid // int(w[q])) for q in members) >= m else (mid + 1, hi)
        x = np.zeros(p, dtype=np.int64)
        left = m
        for q in sorted(members, key=lambda q: (int(w[q]), q)):
            x[q] = min(held[q], lo // int(w[q]), left)
            left -= int(x[q])
        return x

    def completions(self, start: int = 0, count: int | None = None) -> list[int]:
        """The chain from ``start``, as :func:`data_chain` (``count`` iterations, ``K`` by default)."""
        done: list[int] = []
        while len(done) < (self.instance.K if count is None else count):
            t = self.earliest(start)
            if t is None:
                break
            done.append(t)
            start = t + 1
        return done

    def earliest(self, start: int) -> int | None:
        """``F(start)`` of the module docstring, or ``None`` when no iteration completes in the horizon.

        Kept per ``start``: chains restarted at nearby slots soon run into each other's."""
        if start not in self._earliest:
            found = self.sweep.first(self.blocks(start))
            self._earliest[start] = None if found is None else found[0]
        return self._earliest[start]

    def rest(self, start: int, left: int) -> int:
        """The least makespan of ``left`` more iterations from ``start`` (``start`` when none is
        left, ``H + 1`` when they do not fit): a lower bound whatever happened before ``start``,
        by the monotonicity of ``F``."""
        if left == 0:
            return start
        done = self.completions(start, left)
        return done[-1] + 1 if len(done) == left else self.instance.horizon + 1

    def latest(self, start: int, left: int, target: int) -> int:
        """The last completion ``c >= start - 1`` of an iteration after which ``left`` more can still
        end below ``target`` (``start - 1`` when none can).

        ``rest(c + 1, left)`` does not decrease with ``c`` (``F`` is monotone), so the last ``c >= 0``
        with ``rest(c + 1, left) < target`` is found once per ``(left, target)`` and shared by every
        ``start``."""
        key = (left, target)
        if key not in self._latest:
            lo, hi = -1, self.instance.horizon - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if self.rest(mid + 1, left) < target:
                    lo = mid
                else:
                    hi = mid - 1
            self._latest[key] = lo
        return max(start - 1, self._latest[key])


def data_chain(instance: CoupledInstance, start: int = 0, quiet: bool = True) -> list[int]:
    """The relaxed chain ``f_1, ..., f_K`` (fewer when the horizon is too short): ``f_K + 1 <= OPT``.

    With ``start > 0`` the chain is that of ``K`` iterations *after* one that ends at
    ``start - 1`` at the earliest: by the monotonicity of ``F``, if every schedule
    completes its first ``k`` iterations at ``start - 1`` or later (``start`` a lower
    bound on the makespan of ``k`` iterations), ``f_K + 1`` is a lower bound on the
    makespan of ``k + K`` iterations. ``quiet=False`` drops the quiet-window condition
    (the chain of session 25, weaker; kept for comparison).
    """
    return DataChain(instance, quiet).completions(start)


def data_chain_bound(instance: CoupledInstance) -> int:
    """``f_K + 1``, or ``H + 1`` when the relaxed chain does not complete ``K`` iterations in the horizon."""
    done = data_chain(instance)
    return done[-1] + 1 if len(done) == instance.K else instance.horizon + 1


__all__ = ["DataChain", "data_chain", "data_chain_bound"]
