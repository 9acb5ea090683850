"""OFF-LINE-COUPLED (mu = 1): bnb against CP-SAT, and bnb at the issue's sizes.

Usage: python benchmarks/bench_coupled_offline.py [--cpsat-limit 60] [--big-limit 120]
       [--biclique-limit 120] [--seeds 1 2]

1. p = 60, H = 2000, m = 10 Markov instances: bnb to proof, then CP-SAT (2 workers) with a
   time limit on the same instance in the same process; the speed ratio is CP-SAT's time to
   proof over bnb's (a lower bound when CP-SAT does not prove within its limit).
2. p = 200, H = 5000, m = 10 Markov instances: bnb's time to proof (target: under 5 s).
3. The ../shared/data/biclique/ graph with m = 24 (published optimum 19).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from volsched.instances.coupled import generate_markov, read_edgelist
from volsched.solvers.coupled import solve

BICLIQUE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "biclique" / \
    "random.m_100_n_100_r_0.2_p_0.8.txt"


def timed(instance, method, limit):
    begin = time.perf_counter()
    result = solve(instance, method=method, time_limit=limit)
    return result, time.perf_counter() - begin


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpsat-limit", type=float, default=60.0)
    ap.add_argument("--big-limit", type=float, default=120.0)
    ap.add_argument("--biclique-limit", type=float, default=120.0)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}")
    for seed in args.seeds:
        inst = generate_markov(60, 2000, 10, seed)
        b, tb = timed(inst, "bnb", None)
        c, tc = timed(inst, "cpsat", args.cpsat_limit)
        proven = c.status.value == "optimal"
        print(f"p=60 H=2000 m=10 seed {seed}: bnb {b.status.value} {b.objective:.0f} in {tb:.2f} s; "
              f"cpsat {c.status.value} {c.objective} (bound {c.bound}) in {tc:.1f} s; "
              f"ratio {'' if proven else '>= '}{tc / tb:.0f}x")
    for seed in args.seeds:
        inst = generate_markov(200, 5000, 10, seed)
        b, tb = timed(inst, "bnb", args.big_limit)
        print(f"p=200 H=5000 m=10 seed {seed}: bnb {b.status.value} {b.objective:.0f} "
              f"(bound {b.bound:.0f}) in {tb:.1f} s")
    if BICLIQUE.exists():
        inst = read_edgelist(BICLIQUE, 24)
        b, tb = timed(inst, "bnb", args.biclique_limit)
        print(f"biclique 100x100 m=24: bnb {b.status.value} {b.objective:.0f} (bound {b.bound:.0f}) "
              f"in {tb:.1f} s; published optimum 19")


if __name__ == "__main__":
    main()
