"""dp vs. graph on the paper's jobs: the speed ratio in one run, and dp's time per job.

Usage: python benchmarks/bench_checkpoint_dp.py [--slices 50] [--instances 5] [--repeat 20]

For each seeded instance (the paper's slices and failure law for one client,
checkpoint costs drawn uniformly in [1, c_max] quanta, c_max = 9 by default) it
times ``graph`` (networkx DAG + Dijkstra) once and ``dp`` as the best of
``--repeat`` runs, checks that both return the same optimum, and prints the
ratio. Both run in this process on the same instances.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import time

import numpy as np

from volsched.instances.checkpoint import generate
from volsched.solvers.checkpoint.dp import solve_dp
from volsched.solvers.checkpoint.graph import solve_graph


def best_of(fn, arg, repeat: int) -> tuple[float, tuple]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(arg)
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slices", type=int, default=50)
    ap.add_argument("--instances", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--c-max", type=int, default=9, help="c_j drawn uniformly in [1, c_max]")
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}; n = {args.slices}")
    ratios, dps = [], []
    for seed in range(args.instances):
        inst = generate(args.slices, seed)
        c = np.random.default_rng(seed).integers(1, args.c_max + 1, args.slices)
        inst = dataclasses.replace(inst, c=c)
        t_graph, (_a_g, v_g) = best_of(solve_graph, inst, 1)
        t_dp, (_a_d, v_d) = best_of(solve_dp, inst, args.repeat)
        assert abs(v_g - v_d) <= 1e-9 * v_g, (v_g, v_d)
        ratios.append(t_graph / t_dp)
        dps.append(t_dp)
        print(
            f"seed {seed}: c in [{inst.c.min()}, {inst.c.max()}], graph {t_graph * 1e3:8.1f} ms, "
            f"dp {t_dp * 1e3:6.2f} ms, ratio {t_graph / t_dp:6.1f}x, optimum {v_d:.6f}"
        )
    print(
        f"median: dp {statistics.median(dps) * 1e3:.2f} ms per job, "
        f"graph/dp {statistics.median(ratios):.0f}x (min {min(ratios):.0f}x)"
    )


if __name__ == "__main__":
    main()
