"""Oracle of the compiled closed-set sweep: the pure-Python sweep it replaced.

``closed_sweep``, ``slot_masks`` and the two callers' mask construction and workloads are
copied verbatim from commit ba58717 (``solvers/coupled/iterations.py`` and ``full_bound.py``)
before the sweep moved to :mod:`volsched.solvers.coupled._sweep_kernel`. ``SweepOracle``
subclasses the package's ``_Sweep`` only to reuse ``_pick``, which did not change. The compiled sweep must
give the same first slots and the same passing sets.
"""

from __future__ import annotations

import itertools

import numpy as np

from volsched.instances.coupled import DOWN, UP, CoupledInstance
from volsched.solvers.coupled.iterations import Iteration, _Sweep, min_workload


def slot_masks(instance: CoupledInstance, code: int) -> list[int]:
    """Per slot, the set of processors in state ``code`` as an integer bitmask (bit ``q``)."""
    packed = np.packbits(instance.availability == code, axis=0, bitorder="little")
    return [int.from_bytes(packed[:, t].tobytes(), "little") for t in range(instance.horizon)]


def closed_sweep(slots, workload, least: int) -> tuple[int, list[int]] | None:
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


class SweepOracle(_Sweep):
    """:class:`volsched.solvers.coupled.iterations._Sweep` on the Python sweep."""

    def __init__(self, instance: CoupledInstance):
        super().__init__(instance)
        self.up_ints, self.down_ints = slot_masks(instance, UP), slot_masks(instance, DOWN)
        self.least = min_workload(instance, range(instance.p))

    def earliest_found(self, start: int) -> tuple[int, list[int]] | None:
        horizon = self.instance.horizon
        slots = zip(
            range(start, horizon),
            itertools.islice(self.up_ints, start, None),
            itertools.islice(self.down_ints, start, None),
            strict=False,
        )
        return closed_sweep(slots, self.workload, self.least)

    def earliest(self, start: int) -> Iteration | None:
        found = self.earliest_found(start)
        return None if found is None else self._pick(found[1], start, found[0])


BLOCK = 512


class DataChainOracle:
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
        self.alive = alive
        if t_data:
            self.prog_level = np.clip((alive - t_prog) // t_data, -1, None)
        else:
            self.prog_level = np.where(alive >= t_prog, m, -1)
        np.minimum(self.prog_level, self.cap[:, None], out=self.prog_level)
        replicate = sum(1 << (j * p) for j in range(self.levels))
        self.down = [mask * replicate for mask in slot_masks(instance, DOWN)]
        self.least = min_workload(instance, range(p))
        # W*(v): the least workload over the processors UP at v - 1 (-1: none holds m tasks).
        fits = [-1] + [
            min_workload(instance, np.flatnonzero(up[:, v - 1]).tolist()) for v in range(1, horizon + 1)
        ]
        self.quiet = np.array([-1 if f is None else f for f in fits], dtype=np.int64)
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
        if start > 0:
            # The quiet window: min over v in [start, u - j T_data] of g_q(v), the UP slots of q in
            # [max(L_q(v), v - W*(v)), v), is kept out of A_q(u) for processors not DOWN since start.
            v = np.arange(start, hi)
            length = self.quiet[start:hi]
            back = np.maximum(self.since[:, start:hi], v - np.maximum(length, 0))
            quiet_slots = self.count[:, start:hi] - np.take_along_axis(self.count, back, axis=1)
            quiet_slots[:, length < 0] = 1 << 40
            low = np.minimum.accumulate(quiet_slots, axis=1)
            u = np.arange(lo, hi)
            allowed = np.zeros_like(level)
            for j in range(1, self.levels + 1):
                at = u - j * t_data
                inside = at >= start
                quiet = low[:, np.clip(at - start, 0, None)]
                allowed += inside & (self.alive[:, lo:hi] - quiet >= self.instance.T_prog + j * t_data)
            level = np.where(self.since[:, lo:hi] < start, np.minimum(level, allowed), level)
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

    def earliest_found(self, start: int) -> tuple[int, list[int]] | None:
        return closed_sweep(self.slots(start), self.workload, self.least)

    def earliest(self, start: int) -> int | None:
        """``F(start)`` of the module docstring, or ``None`` when no iteration completes in the horizon."""
        found = closed_sweep(self.slots(start), self.workload, self.least)
        return None if found is None else found[0]


def chain_oracle(instance: CoupledInstance, sweep) -> list:
    """The chained earliest completions of ``sweep`` (an oracle class above), at most ``K``."""
    done: list = []
    start = 0
    while len(done) < instance.K:
        found = sweep.earliest(start)
        if found is None:
            break
        done.append(found)
        start = (found.completion if isinstance(found, Iteration) else found) + 1
    return done
