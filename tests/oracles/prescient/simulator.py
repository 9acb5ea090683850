"""A straightforward reference for the prescient simulator: the same server, one second at a time.

:func:`per_second` runs a policy of :mod:`volsched.heuristics.prescient` under
the Section 2.1 server rules of :mod:`volsched.heuristics.prescient.simulator`
(ready queue by arrival with seeded ties, next-heartbeat-tick detection,
failed originals re-queued, failed replicas dropped, cancellation at a
completion), but written independently as a time-stepped loop: host states and
CPU shares sampled at each whole second into dense arrays, work accumulated
second by second, every instant rounded up to the second. Where every instant
of the traces and of the run is a whole second (integer interval bounds,
shares constant over each second, task times in whole seconds) it is exact, and
the event-driven simulator must then make the same decisions.
``benchmarks/bench_prescient_heuristics.py`` times it against the simulator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from volsched.heuristics.prescient import Observation, Platform
from volsched.heuristics.prescient.simulator import _check, detection_time

if TYPE_CHECKING:
    from volsched.instances.prescient import PrescientInstance


def dense(instance: PrescientInstance, t0: float, seconds: int) -> tuple[np.ndarray, np.ndarray]:
    """Host up (bool) and CPU share at each whole second ``t0 + k``, ``k < seconds`` (N x seconds)."""
    n = instance.n_hosts
    grid = t0 + np.arange(seconds, dtype=float)
    up = np.zeros((n, seconds), dtype=bool)
    share = np.zeros((n, seconds))
    for h in range(n):
        iv = instance.intervals(h)
        k = np.searchsorted(iv[:, 0], grid, side="right") - 1
        up[h] = (k >= 0) & (grid < iv[np.maximum(k, 0), 1])
        idx, sh = instance.cpu_runs(h)
        j = np.searchsorted(idx * instance.period, grid, side="right") - 1
        share[h] = sh[np.maximum(j, 0)]
    if not instance.suspension:
        up &= share > 0
    return up, share


def per_second(
    instance: PrescientInstance,
    policy,
    rng: np.random.Generator,
    seconds: int,
    dispatches: list | None = None,
) -> float | None:
    """The makespan of ``policy`` under the same server rules, advanced one second at a time.

    ``None`` when ``seconds`` are not enough. ``dispatches``, if given, receives
    ``(task, host, start, replica)`` for every instance sent.
    """
    platform = Platform.of(instance)
    n, n_tasks, t0 = platform.N, platform.T, platform.submission
    up, share = dense(instance, t0, seconds)
    rate = platform.speed[:, None] * share * up
    work = instance.task_ops
    idle = up[:, 0].copy()
    arrival = np.where(idle, t0, np.inf)
    tie = np.where(idle, rng.random(n), 0.0)
    on = np.full(n, -1)  # instance running on each host
    need = np.full(n, np.inf)  # its task's operations
    done_work = np.zeros(n)
    done = np.zeros(n_tasks, dtype=bool)
    original = np.full(n_tasks, -1)
    original_start = np.full(n_tasks, np.nan)
    replicas = np.zeros(n_tasks, dtype=np.int64)
    sent = np.zeros(n_tasks, dtype=np.int64)
    primary = dict.fromkeys(range(n_tasks))
    completions: list[float] = []
    inst_task, inst_host, inst_start, inst_rep = [], [], [], []
    live: dict[int, None] = {}
    detect: dict[int, float] = {}
    memory: dict = {}
    wake = t0
    for k in range(seconds):
        t = t0 + k
        if k:
            came = up[:, k] & ~up[:, k - 1]
            for h in np.flatnonzero(came):
                idle[h], arrival[h], tie[h] = True, t, rng.random()
            busy = on >= 0
            finished = busy & (done_work >= need)  # a completion at the host-down instant counts
            died = busy & ~finished & ~up[:, k]
            for h in np.flatnonzero(died):
                i = int(on[h])
                detect[i] = detection_time(inst_start[i], t)
                on[h] = -1
            for h in np.flatnonzero(finished):
                i = int(on[h])
                if i not in live:
                    continue
                task = inst_task[i]
                done[task] = True
                completions.append(t)
                primary.pop(task, None)
                for j in [j for j in live if inst_task[j] == task]:
                    del live[j]
                    hj = inst_host[j]
                    if on[hj] == j:
                        on[hj] = -1
                        idle[hj], arrival[hj], tie[hj] = up[hj, k], t, rng.random()
                detect = {j: d for j, d in detect.items() if inst_task[j] != task}
                original[task], original_start[task], replicas[task] = -1, np.nan, 0
            for i in [i for i, d in detect.items() if d <= t]:
                del detect[i]
                if i in live:
                    del live[i]
                    task = inst_task[i]
                    if inst_rep[i]:
                        replicas[task] -= 1
                    else:
                        original[task], original_start[task] = -1, np.nan
                        primary[task] = None
        if len(completions) == n_tasks:
            return completions[-1] - t0
        ready_mask = idle & up[:, k] & (on < 0)
        woke = wake is not None and wake <= t
        if woke or ((primary or policy.replicates) and ready_mask.any()):
            ready = np.flatnonzero(ready_mask)
            ready = ready[np.lexsort((tie[ready], arrival[ready]))]
            ids = np.fromiter(live, dtype=np.int64, count=len(live))
            obs = Observation(
                t=t,
                platform=platform,
                ready=ready,
                primary=np.fromiter(primary, dtype=np.int64),
                done=done,
                original=original,
                original_start=original_start,
                replicas=replicas,
                replicas_sent=sent,
                completions=np.asarray(completions, dtype=float),
                live_task=np.asarray(inst_task, dtype=np.int64)[ids] if len(ids) else ids,
                live_host=np.asarray(inst_host, dtype=np.int64)[ids] if len(ids) else ids,
                live_start=np.asarray(inst_start, dtype=float)[ids] if len(ids) else np.zeros(0),
                memory=memory,
            )
            assignments, next_wake = policy.decide(obs, rng)
            wake = next_wake if woke or next_wake is not None else wake
            _check(assignments, ready_mask, done, primary, policy.name, t)
            for a in assignments:
                i = len(inst_task)
                inst_task.append(a.task)
                inst_host.append(a.host)
                inst_start.append(t)
                inst_rep.append(a.replica)
                live[i] = None
                if dispatches is not None:
                    dispatches.append((a.task, a.host, t, a.replica))
                on[a.host], done_work[a.host], idle[a.host] = i, 0.0, False
                need[a.host] = work[a.task]
                if a.replica:
                    replicas[a.task] += 1
                    sent[a.task] += 1
                else:
                    primary.pop(a.task)
                    original[a.task], original_start[a.task] = a.host, t
        done_work += rate[:, k]
    return None
