"""Problem ``full``: the data-chain lower bound against the old bounds, with the greedy as upper bound.

Usage: python benchmarks/bench_coupled_full_bound.py [--slots 20000] [--scenarios 1] [--trials 1]
       [--seed 0]

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
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import time

from volsched.instances.coupled import PAPER_NCOM, PAPER_TASKS, PAPER_WMIN, paper_realization
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=20000)
    parser.add_argument("--scenarios", type=int, default=1)
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
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
