"""Problem ``full``: the data-chain lower bound against the old bounds, with the greedy as upper bound.

Usage: python benchmarks/bench_coupled_full_bound.py [--slots 20000] [--scenarios 1] [--trials 1]
       [--seed 0] [--cuts-only] [--cuts] [--cpsat-limit 120]

On the Section VII-A space (``m`` in {5, 10}, ``n_com`` in {5, 10, 20}, ``w_min`` in 1..10,
``--scenarios`` x ``--trials`` realizations each, ``--slots`` slots), in one process:

* old bound: the max of the ``iterations`` optimum, ``trivial_bound`` and ``transfer_bound``
  (what :func:`volsched.solvers.coupled.full.solve_full` used before);
* new bound: :func:`volsched.solvers.coupled.full_bound.data_chain_bound` combined with the old
  one by max (as ``solve_full`` does);
* upper bound: the makespan of :func:`volsched.solvers.coupled.full_greedy.greedy_full`'s
  schedule, replayed by the verifier.

Prints one row per realization (bounds, relative gaps ``(UB - LB) / UB``, seconds per bound), then
per ``m`` and overall the median gaps over the realizations the greedy completes. A bound of
``H + 1`` means that not even the relaxation fits ``K`` iterations in the horizon: no schedule
does (such rows have no gap).

``--cuts``: against the exact optimum where CP-SAT proves it, on 16 cuts of realizations small
enough for the model (the 6 processors with the most UP slots among the first 120 slots, ``K =
4``, ``m`` in {3, 5}, ``n_com`` in {2, 5}, ``w_min`` in {1, 2}, scenarios 4 and 5, trial 0):
old and new bounds, greedy, CP-SAT (``--cpsat-limit`` seconds, hinted with the greedy) and
``(OPT - LB) / OPT``, ``(greedy - OPT) / OPT``. ``--cuts-only`` skips the realizations.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import time

import numpy as np

from volsched.instances.coupled import PAPER_NCOM, PAPER_TASKS, PAPER_WMIN, CoupledInstance, paper_realization
from volsched.solvers.coupled.full import transfer_bound, trivial_bound
from volsched.solvers.coupled.full_bound import data_chain_bound
from volsched.solvers.coupled.full_greedy import greedy_full
from volsched.solvers.coupled.iterations import solve_iterations
from volsched.solvers.coupled.replay import check_claim


def old_bound(instance) -> int:
    done = solve_iterations(instance)
    relaxed = done[-1].completion + 1 if len(done) == instance.K else instance.horizon + 1
    return max(relaxed, trivial_bound(instance), transfer_bound(instance))


def timed(fn, *args):
    begin = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - begin


def cuts(limit: float, seed: int) -> None:
    from volsched.solvers.coupled.full_cpsat import solve_full_cpsat

    print("m | n_com | w_min | sc | old LB | new LB | greedy | CP-SAT | proven | (OPT-LB)/OPT | "
          "(greedy-OPT)/OPT | CP-SAT s")
    lows, highs = [], []
    for m, n_com, w_min, sc in itertools.product((3, 5), (2, 5), (1, 2), (4, 5)):
        p, horizon, big_k = 6, 120, 4
        base = paper_realization(m, n_com, w_min, sc, 0, seed, horizon)
        rows = np.sort(np.argsort(-(base.availability == 0).sum(axis=1), kind="stable")[:p])
        inst = CoupledInstance(availability=base.availability[rows], w=base.w[rows].tolist(), mu=[None] * p,
                               m=m, n_com=n_com, T_prog=base.T_prog, T_data=base.T_data, K=big_k)
        old, new = old_bound(inst), max(old_bound(inst), data_chain_bound(inst))
        schedule = greedy_full(inst)
        upper = None if schedule is None else check_claim(inst, schedule)
        (found, makespan, bound, proven), seconds = timed(
            lambda i=inst, h=schedule: solve_full_cpsat(i, time_limit=limit, seed=seed, hint=h))
        if found is not None:
            check_claim(inst, found)
        opt = makespan if proven else None
        if opt is not None and new > opt:
            raise SystemExit(f"bound {new} above the proven optimum {opt}: a bug")
        low = high = "-"
        if opt is not None:
            lows.append((opt - new) / opt)
            low = f"{lows[-1]:.3f}"
            if upper is not None:
                highs.append((upper - opt) / opt)
                high = f"{highs[-1]:.3f}"
        shown = makespan if makespan is not None else ("none" if proven else "-")
        print(" | ".join(str(v) for v in (m, n_com, w_min, sc, old, new, upper if upper else "-", shown,
                                          proven, low, high, f"{seconds:.0f}")), flush=True)
    if lows:
        print(f"proven optima with a schedule: {len(lows)}; (OPT - LB) / OPT median "
              f"{statistics.median(lows):.3f}, max {max(lows):.3f}")
    if highs:
        print(f"greedy above the optimum: median {statistics.median(highs):.3f}, max {max(highs):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=20000)
    parser.add_argument("--scenarios", type=int, default=1)
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cuts", action="store_true")
    parser.add_argument("--cuts-only", action="store_true")
    parser.add_argument("--cpsat-limit", type=float, default=120.0)
    args = parser.parse_args()
    if not args.cuts_only:
        realizations(args)
    if args.cuts or args.cuts_only:
        print()
        cuts(args.cpsat_limit, args.seed)


def realizations(args) -> None:
    print(f"{os.cpu_count()} cores; slots {args.slots}; scenarios {args.scenarios}; trials {args.trials}")
    header = ("m", "n_com", "w_min", "sc", "tr", "old LB", "new LB", "greedy UB", "gap old", "gap new",
              "old s", "new s", "greedy s")
    print(" | ".join(header))
    gaps: dict[int, list[tuple[float, float]]] = {m: [] for m in PAPER_TASKS}
    times_old, times_new = [], []
    no_ub = infeasible = tight = 0
    space = itertools.product(PAPER_TASKS, PAPER_NCOM, PAPER_WMIN, range(args.scenarios), range(args.trials))
    for m, n_com, w_min, sc, tr in space:
        inst = paper_realization(m, n_com, w_min, sc, tr, args.seed, args.slots)
        old, t_old = timed(old_bound, inst)
        chain, t_new = timed(data_chain_bound, inst)
        new = max(old, chain)
        schedule, t_greedy = timed(greedy_full, inst)
        upper = None if schedule is None else check_claim(inst, schedule)
        times_old.append(t_old)
        times_new.append(t_new)
        horizon = inst.horizon
        if upper is not None and new > upper:
            raise SystemExit(f"bound {new} above the greedy's replayed makespan {upper}: a bug")
        row = [m, n_com, w_min, sc, tr, old, new, upper if upper is not None else "-"]
        if new > horizon:
            infeasible += 1
            row += ["infeasible", "infeasible"]
        elif upper is None:
            no_ub += 1
            row += ["-", "-"]
        else:
            g_old, g_new = (upper - old) / upper, (upper - new) / upper
            gaps[m].append((g_old, g_new))
            tight += upper == new
            row += [f"{g_old:.3f}", f"{g_new:.3f}"]
        row += [f"{t_old:.3f}", f"{t_new:.3f}", f"{t_greedy:.2f}"]
        print(" | ".join(str(v) for v in row), flush=True)
    print()
    every = [g for m in PAPER_TASKS for g in gaps[m]]
    for label, rows in [*((f"m = {m}", gaps[m]) for m in PAPER_TASKS), ("all", every)]:
        if rows:
            olds, news = [g for g, _ in rows], [g for _, g in rows]
            print(f"{label}: {len(rows)} with an upper bound; median gap old {statistics.median(olds):.3f}, "
                  f"new {statistics.median(news):.3f}; mean old {statistics.mean(olds):.3f}, "
                  f"new {statistics.mean(news):.3f}")
    print(f"greedy meets the new bound (proven optimal): {tight}; no greedy schedule in the horizon: "
          f"{no_ub}; relaxation does not fit (proven infeasible): {infeasible}")
    print(f"seconds per bound: old median {statistics.median(times_old):.3f} max {max(times_old):.3f}; "
          f"new median {statistics.median(times_new):.3f} max {max(times_new):.3f}")


if __name__ == "__main__":
    main()
