"""Small random prescient instances for the heuristics' tests (independent of the family's generators)."""

from __future__ import annotations

import numpy as np

from volsched.instances.prescient import PrescientInstance

DAY = 86_400.0


def random_instance(
    seed: int,
    hosts: int = 6,
    tasks: int = 8,
    minutes: float = 2.0,
    period: float = 10.0,
    hours: float = 6.0,
    suspension: bool = True,
    history: bool = True,
    zero_share: float = 0.15,
) -> PrescientInstance:
    """Hosts with random clocks, up intervals and CPU runs (some of share 0) over a previous day and the run.

    The history window is the first day; the application is submitted at the
    start of the second.
    """
    rng = np.random.default_rng(seed)
    start = DAY if history else 0.0
    horizon = start + hours * 3600.0
    clock = rng.choice([300.0, 600.0, 800.0, 1500.0, 2000.0, 3000.0], size=hosts)
    ups, cpus = [], []
    for _ in range(hosts):
        t = float(rng.uniform(0, 600)) if rng.random() < 0.3 else 0.0
        iv = []
        while t < horizon:
            length = float(rng.exponential(3600.0)) + 30.0
            end = min(t + length, horizon)
            iv.append((round(t, 3), round(end, 3)))
            t = end + float(rng.exponential(600.0)) + 1.0
        ups.append(iv)
        n_samples = int(horizon // period) + 1
        runs, k = [], 0
        while k < n_samples:
            share = 0.0 if rng.random() < zero_share else float(rng.choice([1.0, 1.0, 0.5, 0.25]))
            runs.append((k, share))
            k += int(rng.integers(1, 60))
        cpus.append(runs)
    return PrescientInstance.build(
        clock,
        ups,
        tasks=tasks,
        task_minutes=minutes,
        cpu=cpus,
        period=period,
        start=start,
        history=(0.0, DAY) if history else None,
        horizon=horizon,
        suspension=suspension,
    )
