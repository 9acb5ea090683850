"""OFF-LINE-COUPLED (mu = 1): bnb against CP-SAT, and bnb at its two speed targets.

Usage: python benchmarks/bench_coupled_offline.py [--cpsat-limit 60] [--seeds 1 2]
       [--big-seeds 1 2 3] [--big-limit 120] [--biclique-limit 600] [--skip-cpsat]
       [--cold-jit] [--numpy-floor]

0. JIT: the first bnb call of the process (numba loads its cache, or compiles the kernel
   when there is none: ``--cold-jit`` points numba at an empty cache to time the compile).
1. p = 60, H = 2000, m = 10 Markov instances: bnb to proof, then CP-SAT (2 workers) with a
   time limit on the same instance in the same process; the speed ratio is CP-SAT's time to
   proof over bnb's (a lower bound when CP-SAT does not prove within its limit).
2. p = 200, H = 5000, m = 10 Markov instances: bnb's time to proof (target: under 5 s each).
3. The ../shared/data/biclique/ graph with m = 24 (published optimum 19): bnb's time to proof
   (target: under 10 minutes), or its incumbent and bound at the limit.
4. ``--numpy-floor``: the cost of the few numpy calls any vectorised node needs (counts, the
   filter, a float32 Gram matrix of the pair counts, a sort) on node-sized arrays, times the
   compiled search's node counts: what a numpy search with the same tree cannot go below.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BICLIQUE = ROOT.parent / "shared" / "data" / "biclique" / "random.m_100_n_100_r_0.2_p_0.8.txt"


def timed(solve, instance, method, limit):
    begin = time.perf_counter()
    result = solve(instance, method=method, time_limit=limit)
    return result, time.perf_counter() - begin


def bnb_run(solve_bnb, up, m, limit):
    """``(rows, value, bound, nodes, seconds)``, the value recounted on the matrix."""
    begin = time.perf_counter()
    rows, value, bound, nodes = solve_bnb(up, m, limit)
    seconds = time.perf_counter() - begin
    assert int(np.logical_and.reduce(up[rows], axis=0).sum()) == value and len(set(rows)) == m
    return rows, value, bound, nodes, seconds


def numpy_node_seconds(items: int, elements: int, repeat: int = 20000) -> float:
    """Seconds per node of the numpy calls a vectorised node cannot avoid, on a node's sizes."""
    rng = np.random.default_rng(0)
    sub = rng.random((items, elements)) < 0.8
    begin = time.perf_counter()
    for _ in range(repeat):
        counts = sub.sum(axis=1)
        keep = counts >= elements // 2
        degree = sub[keep].sum(axis=0)
        dense = sub[:, degree >= 2].astype(np.float32)
        gram = dense @ dense.T
        np.argsort(-counts, kind="stable")
        (gram >= elements // 3).any()
    return (time.perf_counter() - begin) / repeat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpsat-limit", type=float, default=60.0)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--big-seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--big-limit", type=float, default=120.0)
    ap.add_argument("--biclique-limit", type=float, default=600.0)
    ap.add_argument("--skip-cpsat", action="store_true", help="skip part 1")
    ap.add_argument("--cold-jit", action="store_true", help="time the kernel's compile (empty numba cache)")
    ap.add_argument("--numpy-floor", action="store_true", help="part 4")
    args = ap.parse_args()
    if args.cold_jit:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-cold-")
    begin = time.perf_counter()
    from volsched.instances.coupled import generate_markov, read_edgelist
    from volsched.solvers.coupled import solve
    from volsched.solvers.coupled.bnb import solve_bnb

    imported = time.perf_counter() - begin
    print(f"cores: {os.cpu_count()}")
    begin = time.perf_counter()
    solve_bnb(np.eye(3, dtype=bool), 1)
    print(
        f"JIT: import {imported:.2f} s, first bnb call {time.perf_counter() - begin:.2f} s "
        f"({'compiled, empty cache' if args.cold_jit else 'numba cache'})"
    )
    if not args.skip_cpsat:
        for seed in args.seeds:
            inst = generate_markov(60, 2000, 10, seed)
            b, tb = timed(solve, inst, "bnb", None)
            c, tc = timed(solve, inst, "cpsat", args.cpsat_limit)
            proven = c.status.value == "optimal"
            print(
                f"p=60 H=2000 m=10 seed {seed}: bnb {b.status.value} {b.objective:.0f} in {tb:.2f} s; "
                f"cpsat {c.status.value} {c.objective} (bound {c.bound}) in {tc:.1f} s; "
                f"ratio {'' if proven else '>= '}{tc / tb:.0f}x"
            )
    nodes_seen = {}
    for seed in args.big_seeds:
        up = generate_markov(200, 5000, 10, seed).up
        _, value, bound, nodes, seconds = bnb_run(solve_bnb, up, 10, args.big_limit)
        nodes_seen[f"markov seed {seed}"] = nodes
        status = "optimal" if value == bound else "stopped"
        print(
            f"p=200 H=5000 m=10 seed {seed}: bnb {status} {value} (bound {bound}) in {seconds:.2f} s, "
            f"{nodes} nodes; target < 5 s: {'met' if status == 'optimal' and seconds < 5 else 'missed'}"
        )
    if BICLIQUE.exists():
        up = read_edgelist(BICLIQUE, 24).up
        rows, value, bound, nodes, seconds = bnb_run(solve_bnb, up, 24, args.biclique_limit)
        nodes_seen["biclique"] = nodes
        status = "optimal" if value == bound else "stopped"
        print(
            f"biclique 100x100 m=24: bnb {status} {value} (bound {bound}) in {seconds:.1f} s, "
            f"{nodes} nodes; published optimum 19; target proof < 600 s: "
            f"{'met' if status == 'optimal' and seconds < 600 else 'missed'}; rows {rows}"
        )
    else:
        print(f"biclique: {BICLIQUE} not found")
    if args.numpy_floor:
        for name, items, elements in (("markov", 15, 600), ("biclique", 25, 30)):
            per_node = numpy_node_seconds(items, elements)
            line = f"numpy floor, {name}-sized node ({items} x {elements}): {per_node * 1e6:.1f} us/node"
            for key, nodes in nodes_seen.items():
                if key.startswith(name):
                    line += f"; x {nodes} nodes ({key}) = {per_node * nodes:.1f} s"
            print(line)


if __name__ == "__main__":
    main()
