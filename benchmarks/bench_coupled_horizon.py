"""The schedule problems on the realization beyond the stored slots (issue 15, "The cap").

Usage: python benchmarks/bench_coupled_horizon.py [--w-min 1 5 10] [--scenarios 2] [--time-limit 60]

On paper realizations (``m`` in {5, 10}, ``n_com`` in {5, 20}, the given ``w_min``, ``--scenarios``
scenarios, trial 0, 2,000 stored slots), in one process, per realization:

* ``iterations`` by ``chain`` and ``full`` by ``greedy`` through :func:`volsched.solvers.solve`,
  which read the realization as far as the answer needs (:mod:`volsched.solvers.coupled.horizon`):
  status, objective, bound, slots read, seconds;
* the same two on the stored 2,000 slots only (the old reading): the bound it gave;
* IE's makespan (the paper's reference heuristic, cap 10^6) and its ratio to the new bounds.

Then the greedy's tables (next DOWN, next slot not UP, next rise) on the longest prefix read,
built by the old Python loop over the slots and by :func:`volsched.solvers.coupled.full_greedy._next`,
same process, same arrays (asserted equal): seconds and ratio.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

import numpy as np

from volsched.families import FAMILIES
from volsched.instances.coupled import DOWN, UP, paper_realization
from volsched.solvers.coupled.full_greedy import _next
from volsched.solvers.coupled.horizon import cut

FAMILY = FAMILIES["coupled"]


def _old_tables(avail: np.ndarray):
    up = avail == UP
    p, horizon = avail.shape
    next_down = np.full((p, horizon + 1), horizon, dtype=np.int64)
    next_off = np.full((p, horizon + 1), horizon, dtype=np.int64)
    for t in range(horizon - 1, -1, -1):
        next_down[:, t] = np.where(avail[:, t] == DOWN, t, next_down[:, t + 1])
        next_off[:, t] = np.where(up[:, t], next_off[:, t + 1], t)
    return next_down, next_off


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--w-min", type=int, nargs="+", default=[1, 5, 10])
    ap.add_argument("--scenarios", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args()
    print(f"{'m':>3} {'ncom':>4} {'wmin':>4} {'sc':>3} | {'iter':>8} {'read':>8} {'s':>6} {'old LB':>7} | "
          f"{'full':>8} {'LB':>8} {'read':>8} {'s':>6} {'old LB':>7} | {'IE':>8} {'IE/LB':>7}")
    longest, ratios, rows = None, [], []
    for m, n_com, w_min, scenario in itertools.product((5, 10), (5, 20), args.w_min, range(args.scenarios)):
        inst = paper_realization(m, n_com, w_min, scenario, 0)
        stored = cut(inst, inst.horizon)
        t = time.perf_counter()
        it = FAMILY.solve(inst, problem="iterations", method="chain", time_limit=args.time_limit)
        t_it = time.perf_counter() - t
        t = time.perf_counter()
        full = FAMILY.solve(inst, problem="full", method="greedy", time_limit=args.time_limit)
        t_full = time.perf_counter() - t
        old_it = FAMILY.solve(stored, problem="iterations", method="chain").bound
        old_full = FAMILY.solve(stored, problem="full", method="greedy").bound
        ie = FAMILY.simulate(inst, "IE", 0)["objective"]
        lb = max(b for b in (it.bound, full.bound) if b is not None)
        ratio = None if ie is None else ie / lb
        if ratio is not None:
            ratios.append((m, ratio, ie / max(old_it, old_full)))
        read = max(it.info.get("slots_read", 0), full.info.get("slots_read", 0))
        if longest is None or read > longest[0]:
            longest = (read, inst)
        rows.append((m, it.status.value, full.status.value))
        print(f"{m:>3} {n_com:>4} {w_min:>4} {scenario:>3} | {it.objective or float('nan'):>8.0f} "
              f"{it.info.get('slots_read', 0):>8} {t_it:>6.2f} {old_it:>7.0f} | "
              f"{full.objective or float('nan'):>8.0f} {full.bound or float('nan'):>8.0f} "
              f"{full.info.get('slots_read', 0):>8} {t_full:>6.2f} {old_full:>7.0f} | "
              f"{ie or float('nan'):>8.0f} {ratio or float('nan'):>7.3f}", flush=True)
    for m in (5, 10):
        new = [r for mm, r, _ in ratios if mm == m]
        old = [o for mm, _, o in ratios if mm == m]
        total = sum(1 for r in rows if r[0] == m)
        optimal = sum(1 for mm, s, _ in rows if mm == m and s == "optimal")
        found = sum(1 for mm, _, s in rows if mm == m and s != "unknown")
        print(f"m = {m}: IE / lower bound, median {statistics.median(new):.3f} (old reading "
              f"{statistics.median(old):.3f}); iterations optimal in {optimal}/{total}, "
              f"full greedy found in {found}/{total}")
    read, inst = longest
    avail = inst.realization(read)
    t = time.perf_counter()
    old_down, old_off = _old_tables(avail)
    t_old = time.perf_counter() - t
    t = time.perf_counter()
    new_down, new_off = _next(avail == DOWN), _next(avail != UP)
    t_new = time.perf_counter() - t
    assert np.array_equal(old_down, new_down) and np.array_equal(old_off, new_off)
    print(f"greedy tables on {read:,} slots x {inst.p}: old loop {t_old:.2f} s, numpy {t_new:.3f} s, "
          f"ratio {t_old / t_new:.0f}")


if __name__ == "__main__":
    main()
