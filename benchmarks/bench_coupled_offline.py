"""OFF-LINE-COUPLED (mu = 1): bnb against CP-SAT, and bnb at the issue's two speed targets.

Usage: python benchmarks/bench_coupled_offline.py [--cpsat-limit 60] [--seeds 1 2]
       [--big-seeds 1 2 3] [--big-limit 120] [--biclique-limit 600] [--skip-cpsat]
       [--cold-jit] [--numpy-floor] [--before [REV]] [--compare-only] [--reps 3]
       [--biclique-rows 70 80]

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
5. ``--before [REV]``: the bnb of commit REV (default: the last one before the generic kernel
   of issue 8), taken from git into a temporary package, against the current one on the same
   instances in this process: the big Markov instances and the biclique graph's first
   ``--biclique-rows`` rows (m = 24, proven in seconds). Each search runs ``--reps`` times,
   alternating before and after; one thread gives the same tree (nodes and optimum must be
   equal; thread CPU time), ``solve_bnb`` its two threads (optimum equal; wall time). The
   figure is the ratio after / before of the best times. ``--compare-only`` skips parts 1-4.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BICLIQUE = ROOT.parent / "shared" / "data" / "biclique" / "random.m_100_n_100_r_0.2_p_0.8.txt"
BEFORE = "ad89d7ab8a49aaba61feda0fba70c3b77d69f2bd"  # the last commit with two node kernels (issue 8)


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


def load_before(rev: str):
    """The ``bnb`` module (driver and kernel) of commit ``rev``, imported from a temporary package.

    The package lives in a directory named by the files' hash and is written only when absent,
    so that numba's cache for it survives from one run to the next.
    """
    files = {name: subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:solvers/coupled/{name}"],
                                  check=True, capture_output=True, text=True).stdout
             for name in ("bnb.py", "_bnb_kernel.py")}
    digest = hashlib.sha256("".join(files.values()).encode()).hexdigest()[:12]
    package = Path(tempfile.gettempdir()) / f"volsched-bnb-{digest}" / "bnb_before"
    package.mkdir(parents=True, exist_ok=True)
    for name, text in {"__init__.py": "", **files}.items():
        path = package / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    sys.path.insert(0, str(package.parent))
    return importlib.import_module("bnb_before.bnb")


def one_thread(bnb, up, m):
    """``(optimum, nodes, thread CPU seconds)`` of one single-threaded search from the heuristics'
    incumbent: the same tree for any kernel that implements the same algorithm."""
    up = np.ascontiguousarray(up, dtype=bool)
    best, chosen = bnb._incumbent(bnb._pack(up), m, np.inf)
    begin = time.thread_time()
    rows, _, nodes, stopped, _ = bnb._search(up, m, best, chosen, bnb._NO_TARGET, best + 1 < m, np.inf, 1)
    seconds = time.thread_time() - begin
    assert not stopped
    return (bnb._value(up, rows), nodes), seconds, seconds


def two_threads(bnb, up, m):
    """``((optimum, bound), wall seconds, process CPU seconds)`` of ``solve_bnb`` (two threads
    sharing out the root's branches: the tree depends on timing)."""
    cpu = time.process_time()
    rows, value, bound, _, seconds = bnb_run(bnb.solve_bnb, up, m, None)
    return (value, bound), seconds, time.process_time() - cpu


def compare(before, after, cases, reps: int) -> list[float]:
    """Part 5: before and after, alternating, on each ``(name, up, m)``; returns the ratios of
    the best times (thread CPU on one thread, wall on two)."""
    ratios = []
    for name, up, m in cases:
        for label, run in (("1 thread", one_thread), ("solve_bnb, 2 threads", two_threads)):
            wall = {"before": [], "after": []}
            cpu = {"before": [], "after": []}
            results = {}
            for rep in range(reps):
                order = (("before", before), ("after", after))
                for key, bnb in order if rep % 2 == 0 else order[::-1]:
                    results[key], seconds, cpu_seconds = run(bnb, up, m)
                    wall[key].append(seconds)
                    cpu[key].append(cpu_seconds)
            assert results["before"] == results["after"], (name, label, results)
            old, new = min(wall["before"]), min(wall["after"])
            ratios.append(new / old)
            value, other = results["after"]
            times = f"before {old:.3f} s, after {new:.3f} s"
            if label == "1 thread":
                line = (f"{times} (thread CPU, best of {reps}); ratio after/before {new / old:.3f}; "
                        f"optimum {value}, {other} nodes in both")
            else:
                assert value == other
                cpu_ratio = min(cpu["after"]) / min(cpu["before"])
                line = (f"{times} (wall, best of {reps}); ratio after/before {new / old:.3f} "
                        f"(process CPU: {cpu_ratio:.3f}); optimum {value} = bound in both")
            print(f"before/after {name}, {label}: {line}", flush=True)
    return ratios


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
    ap.add_argument("--before", nargs="?", const=BEFORE, default=None, metavar="REV",
                    help=f"part 5: compare with the bnb of commit REV (default {BEFORE[:7]})")
    ap.add_argument("--compare-only", action="store_true", help="skip parts 1-4")
    ap.add_argument("--reps", type=int, default=3, help="part 5: runs of each kernel per instance")
    ap.add_argument("--biclique-rows", type=int, nargs="+", default=[70, 80],
                    help="part 5: the biclique graph's first rows, m = 24")
    args = ap.parse_args()
    if args.compare_only and args.before is None:
        args.before = BEFORE
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
    print(f"JIT: import {imported:.2f} s, first bnb call {time.perf_counter() - begin:.2f} s "
          f"({'compiled, empty cache' if args.cold_jit else 'numba cache'})")
    if args.before is not None:
        begin = time.perf_counter()
        before = load_before(args.before)
        before.solve_bnb(np.eye(3, dtype=bool), 1)
        print(f"before = {args.before[:7]}: import and first bnb call {time.perf_counter() - begin:.2f} s "
              f"(compiled on a first run, then numba's cache)")
        from volsched.solvers.coupled import bnb as after
        cases = [(f"markov seed {seed} (p=200 H=5000 m=10)", generate_markov(200, 5000, 10, seed).up, 10)
                 for seed in args.big_seeds]
        if BICLIQUE.exists():
            graph = read_edgelist(BICLIQUE, 24).up
            cases += [(f"biclique first {rows} rows (m=24)", graph[:rows], 24) for rows in args.biclique_rows]
        ratios = compare(before, after, cases, args.reps)
        print(f"before/after: ratio after/before from {min(ratios):.3f} to {max(ratios):.3f}, "
              f"geometric mean {float(np.exp(np.mean(np.log(ratios)))):.3f}")
        if args.compare_only:
            return
    if not args.skip_cpsat:
        for seed in args.seeds:
            inst = generate_markov(60, 2000, 10, seed)
            b, tb = timed(solve, inst, "bnb", None)
            c, tc = timed(solve, inst, "cpsat", args.cpsat_limit)
            proven = c.status.value == "optimal"
            print(f"p=60 H=2000 m=10 seed {seed}: bnb {b.status.value} {b.objective:.0f} in {tb:.2f} s; "
                  f"cpsat {c.status.value} {c.objective} (bound {c.bound}) in {tc:.1f} s; "
                  f"ratio {'' if proven else '>= '}{tc / tb:.0f}x")
    nodes_seen = {}
    for seed in args.big_seeds:
        up = generate_markov(200, 5000, 10, seed).up
        _, value, bound, nodes, seconds = bnb_run(solve_bnb, up, 10, args.big_limit)
        nodes_seen[f"markov seed {seed}"] = nodes
        status = "optimal" if value == bound else "stopped"
        print(f"p=200 H=5000 m=10 seed {seed}: bnb {status} {value} (bound {bound}) in {seconds:.2f} s, "
              f"{nodes} nodes; target < 5 s: {'met' if status == 'optimal' and seconds < 5 else 'missed'}")
    if BICLIQUE.exists():
        up = read_edgelist(BICLIQUE, 24).up
        rows, value, bound, nodes, seconds = bnb_run(solve_bnb, up, 24, args.biclique_limit)
        nodes_seen["biclique"] = nodes
        status = "optimal" if value == bound else "stopped"
        print(f"biclique 100x100 m=24: bnb {status} {value} (bound {bound}) in {seconds:.1f} s, "
              f"{nodes} nodes; published optimum 19; target proof < 600 s: "
              f"{'met' if status == 'optimal' and seconds < 600 else 'missed'}; rows {rows}")
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
