"""Problem ``iterations`` on the Section VII-A space through the sweep engine (issue target: 30 min).

Usage: python benchmarks/bench_coupled_iterations.py [--workers 2] [--store PATH] [--slots 2000]
       [--scenarios 10] [--trials 10] [--profile N]

1. Runs the ``casanova2013`` preset (6,000 realizations, ``chain`` with the
   replay verifier) with ``--workers`` into a fresh store and prints the wall
   time and the status counts; ``--slots/--scenarios/--trials`` shrink or grow it.
2. ``--profile N``: the time split of one realization (generation, chain,
   replay) over the first ``N`` realizations, in one process.
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
    space = list(itertools.product(PAPER_TASKS, PAPER_NCOM, PAPER_WMIN, range(10), range(10)))
    gen = chain = replay = 0.0
    for m, n_com, w_min, scenario, trial in space[:: max(1, len(space) // n)][:n]:
        t = time.perf_counter()
        inst = paper_realization(m, n_com, w_min, scenario, trial, 0, slots)
        t0 = time.perf_counter()
        gen += t0 - t
        done = solve_iterations(inst)
        t1 = time.perf_counter()
        rows = [{"start": it.start, "completion": it.completion, "allocation": it.allocation} for it in done]
        if len(done) == inst.K:
            check_claim(inst, schedule_of(inst, rows), communication=False)
        t2 = time.perf_counter()
        chain, replay = chain + t1 - t0, replay + t2 - t1
    k = min(n, len(space))
    print(f"per realization over {k}: generation {gen / k * 1000:.1f} ms, chain {chain / k * 1000:.1f} ms, "
          f"replay {replay / k * 1000:.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--store", type=Path)
    ap.add_argument("--slots", type=int, default=2000)
    ap.add_argument("--scenarios", type=int, default=10)
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--profile", type=int, default=0)
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}, workers: {args.workers}")
    if args.profile:
        profile(args.profile, args.slots)
        return
    table = preset("casanova2013")[0]
    grid = {**table["grid"], "slots": args.slots, "scenario": list(range(args.scenarios)),
            "trial": list(range(args.trials))}
    sweeps = parse_config({**table, "grid": grid})
    store = args.store or Path(tempfile.mkdtemp()) / "casanova2013.db"
    begin = time.perf_counter()
    summary = run_sweep(sweeps, store, workers=args.workers, quiet=False)
    wall = time.perf_counter() - begin
    with sqlite3.connect(store) as db:
        statuses = Counter(s for (s,) in db.execute("SELECT status FROM results"))
    print(f"{summary['done']} realizations in {wall:.1f} s ({wall / max(1, summary['done']) * 1000:.1f} ms "
          f"each, wall); statuses {dict(statuses)}; store {store}")


if __name__ == "__main__":
    main()
