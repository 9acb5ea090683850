"""Problem ``full``: the holder search and bound after the greedy, against a "before", one run.

Usage: python benchmarks/bench_coupled_holders.py [--per-cell 6] [--m 5] [--budget 100000] [--seed 0]
       [--before greedy|no-preload|REV] [--w-min 1 2 ...] [--keys N_COM,W_MIN,SCENARIO,TRIAL ...]

``--per-cell`` realizations of the ``casanova2013`` preset's ``full`` tasks per ``w_min`` (1 to 10)
at the given ``m``: realization ``i`` of a cell has ``n_com`` in (5, 10, 20) by ``i % 3``, scenario
``i % 10`` and trial ``(3 i + w_min) % 10``. Each is solved twice in the same process by the
registry's ``full`` method ``greedy`` with the preset's budget (100,000 compiled calls): before,
with the holder search (``full_holders``) and the holder bound (``full_holders_bound``) switched
off (the greedy's schedule and the data chain's bounds); after, the method as it is. Every result
is verified by ``finish``. With ``--before no-preload`` the "before" is the method with the
holder search's preloads switched off (``PRELOAD_ALLOCATIONS = 0``); with a git revision, the
``solvers/coupled`` package as it was there (extracted with ``git archive``). Prints one row per
realization, then per ``w_min`` and in all: proven before and after, the median and maximum gap
``(UB - LB) / UB``, the median and maximum seconds of both runs and the median of their ratio per
realization, and how many realizations have the same status and bounds in both, and the same work
too. ``--keys`` solves the given realizations instead (their ``w_min`` makes the rows). Seconds
are the process's CPU time, so that other jobs on the machine do not count. Both packages
first solve :data:`WARM` (untimed), so that no compilation falls in a timed run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from unittest import mock

from revision import package_at

from volsched.instances.coupled import paper_realization
from volsched.solvers.coupled import solve


def package_at_rev(rev: str):
    """The ``solvers/coupled`` package at git revision ``rev``."""
    return package_at(rev, "solvers/coupled", "volsched.solvers.coupled_before")


#: Realizations solved once by both packages before any timed run: between them they take every
#: compiled path (``n_com < m`` and not, preloads, the holder bound).
WARM = ((10, 5, 1, 3, 5), (10, 20, 1, 6, 5), (5, 10, 3, 2, 1))


def gap(result) -> float | None:
    if result.objective is None or result.bound is None:
        return None
    return (result.objective - result.bound) / result.objective


def _worse(before, after) -> bool:
    """A schedule lost or a higher upper bound, or a lower lower bound, after (``None``: none)."""
    if before.objective is None or after.objective is None:
        lost = before.objective is not None
    else:
        lost = after.objective > before.objective
    if before.bound is not None and after.bound is not None:
        lost |= after.bound < before.bound
    return lost


def run(instance, budget: float, holders: bool, before="greedy"):
    begin = time.process_time()
    if holders:
        result = solve(instance, problem="full", method="greedy", budget=budget)
    elif not isinstance(before, str):  # the package at a revision
        result = before.solve(instance, problem="full", method="greedy", budget=budget)
    elif before == "no-preload":
        with mock.patch("volsched.solvers.coupled.full_holders.PRELOAD_ALLOCATIONS", 0):
            result = solve(instance, problem="full", method="greedy", budget=budget)
    else:
        with (
            mock.patch("volsched.solvers.coupled.full.holder_search", return_value=None),
            mock.patch("volsched.solvers.coupled.full.holders_bound", return_value=None),
        ):
            result = solve(instance, problem="full", method="greedy", budget=budget)
    return result, time.process_time() - begin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-cell", type=int, default=6)
    parser.add_argument("--m", type=int, default=5)
    parser.add_argument("--budget", type=float, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--before", default="greedy", help="greedy, no-preload or a git revision")
    parser.add_argument("--w-min", type=int, nargs="+", default=list(range(1, 11)))
    parser.add_argument("--keys", nargs="+", default=None, help="realizations N_COM,W_MIN,SCENARIO,TRIAL")
    args = parser.parse_args()
    if args.keys:
        keys = [(args.m, *map(int, key.split(","))) for key in args.keys]
    else:
        keys = [
            (args.m, (5, 10, 20)[i % 3], w_min, i % 10, (3 * i + w_min) % 10)
            for w_min in args.w_min
            for i in range(args.per_cell)
        ]
    before = args.before if args.before in ("greedy", "no-preload") else package_at_rev(args.before)
    for key in WARM:
        run(paper_realization(*key, seed=args.seed), args.budget, False, before)
        run(paper_realization(*key, seed=args.seed), args.budget, True)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    print("(m, n_com, w_min, scenario, trial) | before: UB LB | after: UB LB source | work before after | s")
    cells: dict[int, list] = {}
    for key in keys:
        instance = paper_realization(*key, seed=args.seed)
        earlier, old = run(instance, args.budget, False, before)
        after, seconds = run(instance, args.budget, True)
        worse = _worse(earlier, after)
        cells.setdefault(key[2], []).append((earlier, after, seconds, old))
        print(
            f"{key} | {earlier.objective} {earlier.bound} | {after.objective} {after.bound} "
            f"{after.info.get('source')} | {earlier.work:.0f} {after.work:.0f} | {old:.1f} -> {seconds:.1f}"
            f"{'  WORSE' if worse else ''}",
            flush=True,
        )
    print()
    columns = ["w_min", "n", "proven before", "proven after", "median gap before", "median gap after"]
    columns += ["max gap before", "max gap after", "same", "same work", "median s before", "median s after"]
    columns += ["max s before", "max s after", "median speed-up"]
    print("| " + " | ".join(columns) + " |")
    print("|---" + "|---:" * (len(columns) - 1) + "|")
    everything = [row for w in sorted(cells) for row in cells[w]]
    for label, rows in [*((str(w), cells[w]) for w in sorted(cells)), ("all", everything)]:
        gb = [gap(b) for b, *_ in rows if gap(b) is not None] or [float("nan")]
        ga = [gap(a) for _, a, *_ in rows if gap(a) is not None] or [float("nan")]
        proven_b = sum(b.status.value == "optimal" for b, *_ in rows)
        proven_a = sum(a.status.value == "optimal" for _, a, *_ in rows)
        same = sum((b.status, b.objective, b.bound) == (a.status, a.objective, a.bound) for b, a, *_ in rows)
        same_work = sum(b.work == a.work for b, a, *_ in rows)
        secs, olds = [s for *_, s, _ in rows], [o for *_, o in rows]
        speed = statistics.median(o / max(s, 1e-3) for *_, s, o in rows)
        print(
            f"| {label} | {len(rows)} | {proven_b} | {proven_a} | {statistics.median(gb):.4f} | "
            f"{statistics.median(ga):.4f} | {max(gb):.4f} | {max(ga):.4f} | {same} | {same_work} | "
            f"{statistics.median(olds):.1f} | {statistics.median(secs):.1f} | {max(olds):.1f} | "
            f"{max(secs):.1f} | {speed:.1f}x |"
        )


if __name__ == "__main__":
    main()
