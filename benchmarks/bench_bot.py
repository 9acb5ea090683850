"""Speed of the bag-of-tasks simulator at the paper's scale (Section IV, up to 20000 clients).

Usage: python benchmarks/bench_bot.py [--clients 20000] [--jobs 10000] [--policy daly]
       [--seed 0] [--repeat 1] [--progress] [--profile]

Draws the paper's platform and workload (``generate_bot``), computes one
checkpoint vector per job on the nominal client (``optimal``: the exact DP via
``solve``; ``daly``/``young``/``every``/``none``: the heuristics), then times
``simulate_bot`` (best of ``--repeat``) and prints the metrics, the number of
simulated minutes with events and the time per simulated minute. The target is
one simulation of 20000 clients x 10000 jobs in under 600 s on a 2-core machine;
the ratio to it is printed. ``--profile`` runs the simulation once more under
cProfile and prints where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import time

import numpy as np

from volsched.heuristics.checkpoint.bot import policy_schedules, simulate_bot
from volsched.heuristics.checkpoint.policies import POLICIES
from volsched.instances.bot import generate_bot
from volsched.solvers.checkpoint import solve

TARGET_SECONDS = 600.0


def optimal(job) -> np.ndarray:
    return np.asarray(solve(job, method="dp").solution["a"], dtype=bool)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=20000)
    ap.add_argument("--jobs", type=int, default=10000)
    ap.add_argument("--policy", choices=["optimal", *POLICIES], default="daly")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    print(
        f"cores: {os.cpu_count()}; clients: {args.clients}; jobs: {args.jobs}; "
        f"policy: {args.policy}; seed: {args.seed}"
    )
    t = time.perf_counter()
    bot = generate_bot(args.clients, args.jobs, args.seed)
    print(f"generate: {time.perf_counter() - t:.2f} s ({int(bot.n_slices.sum())} slices)")
    t = time.perf_counter()
    rule = optimal if args.policy == "optimal" else POLICIES[args.policy]
    schedules = policy_schedules(bot, rule)
    print(
        f"schedules: {time.perf_counter() - t:.2f} s "
        f"({sum(int(a.sum()) for a in schedules)} checkpoints planned)"
    )

    times, result = [], None
    for _ in range(args.repeat):
        t = time.perf_counter()
        result = simulate_bot(bot, schedules, seed=args.seed, progress=args.progress)
        times.append(time.perf_counter() - t)
    best = min(times)
    r = result.to_dict()
    r.pop("completion_times")
    print("result:", r)
    days = result.end_time / 1440
    print(
        f"simulate: {best:.2f} s (best of {args.repeat}); {result.steps} event minutes "
        f"({days:.1f} simulated days), {best / max(result.steps, 1) * 1e6:.0f} us per event minute; "
        f"{best / TARGET_SECONDS:.3f} of the {TARGET_SECONDS:.0f} s target"
    )

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        simulate_bot(bot, schedules, seed=args.seed)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())


if __name__ == "__main__":
    main()
