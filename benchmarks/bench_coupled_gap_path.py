"""Problem ``full``: where an unproven realization's gap sits, iteration by iteration.

Usage: python benchmarks/bench_coupled_gap_path.py N_COM,W_MIN,SCENARIO,TRIAL ... [--m 10]

Solves each paper realization as the ``casanova2013`` preset does (method ``greedy``, the
100,000-unit budget), then traces the holder bound's relaxed path at the incumbent's makespan
(:func:`volsched.solvers.coupled.full_holders_bound.holders_bound` with ``path``) and prints, per
iteration: the incumbent's completion, the relaxed path's, the processors that may hold a program
after it, and the earliest completion of one exact iteration (one allocation, the master serving
the workers with the most left to receive, no preload; :mod:`.full_holders`' rule) from the
relaxed state before it. Where the last column equals the relaxed completion, the relaxation is
tight on that step, and a loose bound would have to come from reaching that state too early.
"""

from __future__ import annotations

import argparse

import numpy as np

from volsched.instances.coupled import paper_realization
from volsched.solvers.coupled import _holders_kernel, solve
from volsched.solvers.coupled.allocations import completable
from volsched.solvers.coupled.full_bound import DataChain
from volsched.solvers.coupled.full_holders import iteration_ends
from volsched.solvers.coupled.full_holders_bound import holders_bound


def exact_step(instance, chain: DataChain, start: int, holders: int, last: int) -> int | None:
    """The earliest completion by ``last`` of one iteration begun at ``start`` by one allocation."""
    p, m = instance.p, instance.m
    holder = np.array([(holders >> q) & 1 for q in range(p)], dtype=np.bool_)
    ready = _holders_kernel.readiness(
        chain.avail, chain.count, chain.since, start, holder, instance.T_prog, instance.T_data, m, last
    )
    rows = completable(instance, ready)
    if rows is None:
        return None
    out = iteration_ends(instance, chain.avail, ready, start, holder, rows, last)
    done = out[out >= 0]
    return int(done.min()) if len(done) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keys", nargs="+", help="realizations N_COM,W_MIN,SCENARIO,TRIAL")
    parser.add_argument("--m", type=int, default=10)
    args = parser.parse_args()
    for key in args.keys:
        n_com, w_min, scenario, trial = map(int, key.split(","))
        instance = paper_realization(args.m, n_com, w_min, scenario, trial)
        result = solve(instance, problem="full", method="greedy", budget=100_000, time_limit=600)
        print(
            f"({key}) m = {args.m}: {result.status.value}, makespan {result.objective}, bound {result.bound}"
        )
        if result.objective is None or result.objective <= result.bound:
            continue
        upper = int(result.objective)
        chain = DataChain(instance)
        path: list[tuple[int, int]] = []
        bound = holders_bound(instance, upper, chain, path=path)
        print(f"  holder bound at {upper}: {bound}")
        incumbent = result.solution["schedule"]["completions"]
        print(
            "  iteration | incumbent | relaxed | exact step from the relaxed state | may hold a program after"
        )
        before = (0, 0)
        for k, (after, held) in enumerate(path):
            step = exact_step(instance, chain, before[0], before[1], upper - 1)
            holders = [q for q in range(instance.p) if (held >> q) & 1]
            print(f"  {k + 1} | {incumbent[k]} | {after - 1} | {step} | {holders}")
            before = (after, held)


if __name__ == "__main__":
    main()
