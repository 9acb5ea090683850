"""Brute-force oracle for the prescient optimum, in exact rational arithmetic, and random tiny instances.

The oracle shares nothing with the solvers: it reads the instance's per-host
intervals and CPU runs itself and computes with :class:`fractions.Fraction`
(every float of the instance is read exactly). It enumerates every assignment
of tasks to hosts and every order of the tasks (``N^T T!`` schedules); on each
host the tasks run in that order, each as early as it can complete inside one
availability interval (starting later, or where it cannot complete, never
helps: the work a host delivers over ``[s, t]`` grows with ``t`` and shrinks
with ``s``). The optimum is the best makespan over all of them.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from volsched.instances.prescient import PrescientInstance

OPS = Fraction(110_700_000)


class ExactHost:
    """One host's traces as exact rationals."""

    def __init__(self, instance: PrescientInstance, h: int):
        self.intervals = [(Fraction(float(a)), Fraction(float(b))) for a, b in instance.intervals(h).tolist()]
        idx, share = instance.cpu_runs(h)
        period = Fraction(float(instance.period))
        self.run_time = [Fraction(int(i)) * period for i in idx.tolist()]
        self.run_share = [Fraction(float(s)) for s in share.tolist()]
        self.speed = Fraction(float(instance.clock_mhz[h])) * OPS / 1500
        self.suspension = bool(instance.suspension)

    def _runs_from(self, t: Fraction):
        """``(begin, end, share)`` of the CPU runs from ``t`` on (the last one unbounded)."""
        for j, rt in enumerate(self.run_time):
            end = self.run_time[j + 1] if j + 1 < len(self.run_time) else None
            if end is not None and end <= t:
                continue
            yield max(rt, t), end, self.run_share[j]

    def finish_in(self, s: Fraction, stop: Fraction, work: Fraction) -> Fraction | None:
        """Completion of ``work`` started at ``s`` if it comes by ``stop`` without a kill, else ``None``."""
        done = Fraction(0)
        for begin, end, share in self._runs_from(s):
            if begin >= stop:
                return None
            if share == 0 and not self.suspension:
                return None
            upto = stop if end is None else min(end, stop)
            rate = self.speed * share
            if rate > 0 and done + rate * (upto - begin) >= work:
                return begin + (work - done) / rate
            done += rate * (upto - begin)
        return None

    def earliest(self, ready: Fraction, work: Fraction) -> tuple[Fraction, Fraction] | None:
        """``(start, completion)`` of the earliest completion of ``work`` on this host from ``ready``."""
        for a, b in self.intervals:
            if b <= ready:
                continue
            s = max(a, ready)
            # Without suspension, each zero-share run splits the interval: try every piece.
            starts = [s]
            if not self.suspension:
                starts += [
                    rt
                    for j, rt in enumerate(self.run_time)
                    if s < rt < b and self.run_share[j] > 0 and j > 0 and self.run_share[j - 1] == 0
                ]
            for s0 in starts:
                if not self.suspension and self._share_at(s0) == 0:
                    continue
                done = self.finish_in(s0, b, work)
                if done is not None:
                    return s0, done
        return None

    def available_until(self, t: Fraction) -> Fraction | None:
        """When the availability containing ``t`` ends (its interval's end or a zero run), or ``None``."""
        for a, b in reversed(self.intervals):
            if a <= t < b:
                if not self.suspension:
                    if self._share_at(t) == 0:
                        return None
                    later = [
                        rt for j, rt in enumerate(self.run_time) if t < rt < b and self.run_share[j] == 0
                    ]
                    return min(later, default=b)
                return b
        return None

    def next_available(self, t: Fraction) -> Fraction | None:
        """The first instant ``>= t`` at which a task may start here."""
        points = [t] + [a for a, _ in self.intervals if a > t] + [rt for rt in self.run_time if rt > t]
        for p in sorted(points):
            if self.available_until(p) is not None:
                return p
        return None

    def attempt(self, s: Fraction, work: Fraction) -> tuple[Fraction, str]:
        """``(end, outcome)`` of an attempt started at ``s``: its completion, or the kill."""
        stop = self.available_until(s)
        done = self.finish_in(s, stop, work)
        return (done, "completed") if done is not None else (stop, "failed")

    def _share_at(self, t: Fraction) -> Fraction:
        j = max(i for i, rt in enumerate(self.run_time) if rt <= t)
        return self.run_share[j]


def brute_force(instance: PrescientInstance) -> tuple[Fraction, list] | None:
    """The exact optimum (seconds from submission) and one optimal ``[(task, host, start, end)]``."""
    hosts = [ExactHost(instance, h) for h in range(instance.n_hosts)]
    t0 = Fraction(float(instance.start))
    work = [Fraction(float(m)) * 60 * OPS for m in instance.task_minutes.tolist()]
    n_tasks = len(work)
    identical = len(set(work)) == 1
    best = None
    orders = [tuple(range(n_tasks))] if identical else itertools.permutations(range(n_tasks))
    for order in orders:
        for assign in itertools.product(range(len(hosts)), repeat=n_tasks):
            if identical and list(assign) != sorted(assign):
                continue  # identical tasks: which task goes where is immaterial
            ready = [t0] * len(hosts)
            rows = []
            span = Fraction(0)
            for task in order:
                h = assign[task]
                got = hosts[h].earliest(ready[h], work[task])
                if got is None:
                    break
                ready[h] = got[1]
                rows.append((task, h, got[0], got[1]))
                span = max(span, got[1] - t0)
                if best is not None and span >= best[0]:
                    break
            else:
                if best is None or span < best[0]:
                    best = (span, rows)
    return best


def random_run(instance: PrescientInstance, rng: np.random.Generator, replicas: float = 0.3) -> dict | None:
    """A random heuristic-like run in the verifier's format, computed exactly.

    Tasks go, in random order, to random hosts as soon as those are available;
    a failed attempt's task goes to another random host; with probability
    ``replicas`` a task also gets a replica, and whichever instance ends second
    is cancelled at the first one's completion if it is still running.
    Returns ``None`` if the traces run out.
    """
    hosts = [ExactHost(instance, h) for h in range(instance.n_hosts)]
    t0 = Fraction(float(instance.start))
    ready = [t0] * len(hosts)
    attempts = []
    for task in rng.permutation(instance.n_tasks).tolist():
        work = Fraction(float(instance.task_minutes[task])) * 60 * OPS
        runs = []
        for _ in range(2 if rng.random() < replicas else 1):
            for _ in range(50):
                h = int(rng.integers(len(hosts)))
                s = hosts[h].next_available(ready[h])
                if s is None:
                    continue
                end, outcome = hosts[h].attempt(s, work)
                ready[h] = end
                runs.append([task, h, s, end, outcome])
                if outcome == "completed":
                    break
            else:
                return None
        done = min(r[3] for r in runs if r[4] == "completed")
        runs = [r for r in runs if r[2] < done]
        for r in runs:
            if r[3] > done:
                r[3], r[4] = done, "cancelled"
                ready[r[1]] = done
        attempts += runs
    return {
        "attempts": [
            {"task": t, "host": h, "start": float(s), "end": float(e), "outcome": o}
            for t, h, s, e, o in attempts
        ]
    }


def random_instance(
    rng: np.random.Generator,
    hosts: int = 3,
    tasks: int = 3,
    identical: bool = True,
    suspension: bool = True,
    nice: bool = False,
    history: bool = False,
    touching: bool = False,
) -> PrescientInstance:
    """A tiny random instance: 1-3 up intervals a host in an hour, CPU runs with shares 0 among them.

    ``nice``: clocks, shares, times and sizes from small round sets, so that
    exact fits (a task ending exactly at a host-down) happen. ``history``: the
    traces before the submission (at 300 s or later) are the history window
    that some heuristics read. ``touching``: consecutive up intervals touch.
    """
    period = 10.0
    clock, up, cpu = [], [], []
    for _ in range(hosts):
        clock.append(float(rng.choice([750.0, 1500.0, 3000.0])) if nice else float(rng.uniform(300, 3000)))
        n_cuts = 2 * int(rng.integers(1, 4))
        cuts = np.sort(rng.choice(np.arange(1, 360), size=n_cuts, replace=False)) * period
        if not nice:
            cuts = cuts + rng.uniform(-period / 2, period / 2, size=len(cuts)).round(3)
            cuts = np.sort(cuts)
        if touching:  # every down gap closed: a host-down and an instant restart (it still kills a task)
            cuts[2:-1:2] = cuts[1:-2:2]
        up.append([(float(cuts[i]), float(cuts[i + 1])) for i in range(0, len(cuts), 2)])
        n_runs = int(rng.integers(1, 8))
        starts = np.concatenate([[0], np.sort(rng.choice(np.arange(1, 360), size=n_runs - 1, replace=False))])
        shares = (
            rng.choice([0.0, 0.25, 0.5, 1.0], size=n_runs)
            if nice
            else np.where(rng.random(n_runs) < 0.25, 0.0, rng.uniform(0.05, 1.0, size=n_runs))
        )
        cpu.append([(int(s), float(v)) for s, v in zip(starts, shares, strict=True)])
    if identical:
        minutes = float(rng.choice([1.0, 2.0, 5.0])) if nice else float(rng.uniform(0.5, 6.0))
        sizes = [minutes] * tasks
    else:
        sizes = [
            float(v)
            for v in (
                rng.choice([1.0, 2.0, 3.0, 5.0], size=tasks) if nice else rng.uniform(0.5, 6.0, size=tasks)
            )
        ]
    start = float(rng.choice([0.0, 300.0])) if nice else float(rng.uniform(0, 600))
    if history:
        start = max(start, 300.0)
    return PrescientInstance.build(
        clock,
        up,
        cpu=cpu,
        task_minutes=sizes,
        period=period,
        start=start,
        horizon=3700.0,
        suspension=suspension,
        history=(0.0, start) if history else None,
    )


def as_float(value: Fraction) -> float:
    return float(value) if value is not None else math.nan
