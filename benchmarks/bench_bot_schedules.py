"""Optimal checkpoint schedules for every job of a paper-sized bag of tasks.

Usage: python benchmarks/bench_bot_schedules.py [--jobs 10000] [--workers -1]

Draws the paper's BoT (slices per job U{1..50}), solves every job exactly with
``dp`` through ``solve`` (so each schedule is also verified), in parallel with
joblib, and reports the wall time; then times the same jobs on one core for the
parallel speed-up.
"""

from __future__ import annotations

import argparse
import os
import time

from volsched.families.checkpoint.bot import optimal_schedules
from volsched.instances.bot import generate_bot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=10000)
    ap.add_argument("--workers", type=int, default=-1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    bot = generate_bot(1, args.jobs, args.seed)
    print(
        f"cores: {os.cpu_count()}; jobs: {bot.n_jobs}; slices: {int(bot.n_slices.sum())} "
        f"(mean {bot.n_slices.mean():.1f} per job)"
    )
    t = time.perf_counter()
    parallel = optimal_schedules(bot, workers=args.workers)
    t_par = time.perf_counter() - t
    print(
        f"workers={args.workers}: {t_par:.1f} s for {len(parallel)} verified optimal schedules "
        f"({t_par / len(parallel) * 1e3:.2f} ms per job)"
    )
    t = time.perf_counter()
    serial = optimal_schedules(bot, workers=1)
    t_ser = time.perf_counter() - t
    assert all((a == b).all() for a, b in zip(parallel, serial, strict=True))
    print(f"workers=1: {t_ser:.1f} s; parallel speed-up {t_ser / t_par:.2f}x")


if __name__ == "__main__":
    main()
