"""Problem ``iterations`` on the Section VII-A space through the sweep engine (issue target: 30 min).

Usage: python benchmarks/bench_coupled_iterations.py [--workers 2] [--store PATH] [--slots 2000]
       [--scenarios 10] [--trials 10] [--profile N]

1. Runs the ``casanova2013`` preset (6,000 realizations, ``chain`` with the
   replay verifier) with ``--workers`` into a fresh store and prints the wall
   time and the status counts; ``--slots/--scenarios/--trials`` shrink or grow it.
2. ``--profile N``: the time split of one realization (generation, chain,
   replay) over ``N`` realizations spread over the space, in one process.
3. ``--full N``: problem ``full`` on ``N`` realizations spread over the space
   (too large for its exact model: greedy upper bound against the lower
   bounds), then on ``N`` tiny instances cut from them (4 processors, 30 slots,
   K = 2, where the CP-SAT model runs): status counts, gaps and runtimes.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sqlite3
import tempfile
import time
from collections import Counter
from pathlib import Path

from volsched.experiments.config import parse_config
from volsched.experiments.presets import preset
from volsched.experiments.runner import run_sweep
from volsched.instances.coupled import PAPER_NCOM, PAPER_TASKS, PAPER_WMIN, paper_realization
from volsched.solvers.coupled.iterations import schedule_of, solve_iterations
from volsched.solvers.coupled.replay import check_claim


def profile(n: int, slots: int) -> None:
    gen = chain = replay = 0.0
    realizations = sample(n, slots)
    for _ in range(n):
        t = time.perf_counter()
        inst = next(realizations)
        t0 = time.perf_counter()
        gen += t0 - t
        done = solve_iterations(inst)
        t1 = time.perf_counter()
        rows = [{"start": it.start, "completion": it.completion, "allocation": it.allocation} for it in done]
        if len(done) == inst.K:
            check_claim(inst, schedule_of(inst, rows), communication=False)
        t2 = time.perf_counter()
        chain, replay = chain + t1 - t0, replay + t2 - t1
    k = n
    print(
        f"per realization over {k}: generation {gen / k * 1000:.1f} ms, chain {chain / k * 1000:.1f} ms, "
        f"replay {replay / k * 1000:.1f} ms"
    )


def sample(n: int, slots: int):
    space = list(itertools.product(PAPER_TASKS, PAPER_NCOM, PAPER_WMIN, range(10), range(10)))
    for m, n_com, w_min, scenario, trial in space[:: max(1, len(space) // n)][:n]:
        yield paper_realization(m, n_com, w_min, scenario, trial, 0, slots)


def full(n: int, slots: int) -> None:
    from volsched.instances.coupled import CoupledInstance
    from volsched.solvers.coupled import solve

    def summary(label, results):
        gaps = [r.gap for r in results if r.gap is not None]
        times = [r.runtime_s for r in results]
        print(
            f"{label}: {dict(Counter(r.status.value for r in results))}; gap mean "
            f"{sum(gaps) / max(1, len(gaps)):.3f} max {max(gaps, default=0):.3f}; runtime mean "
            f"{sum(times) / len(times):.2f} s max {max(times):.2f} s"
        )

    big = [solve(inst, problem="full") for inst in sample(n, slots)]
    summary(f"full, {n} paper realizations (H = {slots})", big)
    tiny = []
    for inst in sample(n, slots):
        w = [max(1, int(v) // 10) for v in inst.w[:4]]
        cut = CoupledInstance(
            availability=inst.availability[:4, :30],
            w=w,
            mu=[None] * 4,
            m=min(inst.m, 3),
            n_com=2,
            T_prog=2,
            T_data=1,
            K=2,
        )
        tiny.append(solve(cut, problem="full", time_limit=60))
    summary(f"full, {n} tiny cuts (p = 4, H = 30, K = 2, T_prog = 2, T_data = 1, n_com = 2)", tiny)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--store", type=Path)
    ap.add_argument("--slots", type=int, default=2000)
    ap.add_argument("--scenarios", type=int, default=10)
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--full", type=int, default=0)
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}, workers: {args.workers}")
    if args.profile:
        profile(args.profile, args.slots)
    if args.full:
        full(args.full, args.slots)
    if args.profile or args.full:
        return
    table = preset("casanova2013")[0]
    grid = {
        **table["grid"],
        "slots": args.slots,
        "scenario": list(range(args.scenarios)),
        "trial": list(range(args.trials)),
    }
    sweeps = parse_config({**table, "grid": grid})
    store = args.store or Path(tempfile.mkdtemp()) / "casanova2013.db"
    begin = time.perf_counter()
    summary = run_sweep(sweeps, store, workers=args.workers, quiet=False)
    wall = time.perf_counter() - begin
    with sqlite3.connect(store) as db:
        statuses = Counter(s for (s,) in db.execute("SELECT status FROM results"))
    print(
        f"{summary['done']} realizations in {wall:.1f} s ({wall / max(1, summary['done']) * 1000:.1f} ms "
        f"each, wall); statuses {dict(statuses)}; store {store}"
    )


if __name__ == "__main__":
    main()
