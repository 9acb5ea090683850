"""Problem ``full``: which side of the off-line gap is loose, the lower bound or the greedy schedule?

Usage: python benchmarks/bench_coupled_gap_sources.py [--sample N] [--time-limit S] [--seed S]

On the ``casanova2013`` m = 5 realizations the median relative gap (UB - LB) / UB of the
``greedy`` method was 0.171 in session 24 (0.159 with the rollout pass), and 0.19-0.29 at w_min
1-5 (benchmarks/RESULTS.md). CP-SAT cannot
prove the 10-iteration problem at that size, but it proves its prefixes: the same realization
with ``K`` = 3, 5 or 7 iterations, cut at the greedy makespan (``p H <= 2000``). On each proven
prefix this prints the lower bound of ``method="greedy"`` (data chain and the others), the
greedy makespan and the optimum, so each side's distance to the optimum.

Then the *prefix-and-chain* bound on the whole problem: every schedule completes its first
``k`` iterations no earlier than the prefix optimum allows, so the data chain restarted there
(:func:`volsched.solvers.coupled.full_bound.data_chain` with ``start``) bounds the remaining
``K - k`` iterations; it is printed beside the plain bound and the greedy makespan of ``K = 10``.

The sample: ``--sample`` w_min = 1 realizations (n_com, scenario, trial) drawn with ``--seed``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics

import numpy as np

from volsched.families import FAMILIES
from volsched.instances.coupled import paper_realization
from volsched.solvers.coupled.full import MAX_CELLS
from volsched.solvers.coupled.full_bound import data_chain
from volsched.solvers.coupled.horizon import cut

FAMILY = FAMILIES["coupled"]
PREFIXES = (3, 5, 7)


def sample(n: int, seed: int) -> list[tuple[int, int, int]]:
    rng = np.random.default_rng(seed)
    space = [
        (n_com, scenario, trial) for n_com in (5, 10, 20) for scenario in range(10) for trial in range(10)
    ]
    return [space[i] for i in rng.choice(len(space), size=n, replace=False)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=6)
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        "| (n_com, scenario, trial) | K | lower bound | greedy | optimum (CP-SAT) | CP-SAT s "
        "| (OPT - LB) / OPT | (UB - OPT) / OPT |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    low_gaps, high_gaps, whole = [], [], []
    for n_com, scenario, trial in sample(args.sample, args.seed):
        base = paper_realization(5, n_com, 1, scenario, trial)
        best_prefix = None
        for k in PREFIXES:
            instance = dataclasses.replace(base, K=k)
            greedy = FAMILY.solve(instance, problem="full", method="greedy")
            if greedy.objective is None or base.p * greedy.objective > MAX_CELLS:
                print(
                    f"| {(n_com, scenario, trial)} | {k} | {greedy.bound:.0f} | {greedy.objective} "
                    f"| too large for CP-SAT | | | |"
                )
                continue
            exact = FAMILY.solve(
                cut(instance, int(greedy.objective)),
                problem="full",
                method="cpsat",
                time_limit=args.time_limit,
            )
            if exact.status != "optimal":
                print(
                    f"| {(n_com, scenario, trial)} | {k} | {greedy.bound:.0f} | {greedy.objective:.0f} "
                    f"| not proven ({exact.bound:.0f} .. {exact.objective}) | {exact.runtime_s:.0f} | | |"
                )
                continue
            opt = exact.objective
            low, high = (opt - greedy.bound) / opt, (greedy.objective - opt) / opt
            low_gaps.append(low)
            high_gaps.append(high)
            best_prefix = (k, int(opt))
            print(
                f"| {(n_com, scenario, trial)} | {k} | {greedy.bound:.0f} | {greedy.objective:.0f} "
                f"| {opt:.0f} | {exact.runtime_s:.0f} | {low:.3f} | {high:.3f} |",
                flush=True,
            )
        full = FAMILY.solve(base, problem="full", method="greedy")
        if best_prefix is not None and full.objective is not None:
            k, opt = best_prefix
            rest = data_chain(dataclasses.replace(base, K=base.K - k), start=opt)
            hybrid = rest[-1] + 1 if len(rest) == base.K - k else None
            whole.append((n_com, scenario, trial, full.bound, hybrid, full.objective, k))
    if low_gaps:
        print(
            f"\nproven prefixes: {len(low_gaps)}; mean (OPT - LB) / OPT = {statistics.mean(low_gaps):.3f} "
            f"(max {max(low_gaps):.3f}); mean (UB - OPT) / OPT = {statistics.mean(high_gaps):.3f} "
            f"(max {max(high_gaps):.3f})"
        )
    print(
        "\n| (n_com, scenario, trial) | K | lower bound | prefix-and-chain bound (prefix K) | greedy "
        "| gap | gap with prefix-and-chain |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for n_com, scenario, trial, bound, hybrid, upper, k in whole:
        better = bound if hybrid is None else max(bound, hybrid)
        print(
            f"| {(n_com, scenario, trial)} | 10 | {bound:.0f} | {hybrid} ({k}) | {upper:.0f} "
            f"| {(upper - bound) / upper:.3f} | {(upper - better) / upper:.3f} |"
        )


if __name__ == "__main__":
    main()
