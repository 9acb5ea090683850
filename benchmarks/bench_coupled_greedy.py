"""Problem ``full``: the compiled greedy against the pure-Python greedy it replaced, on the same inputs.

Usage: python benchmarks/bench_coupled_greedy.py [--long]

Paper realizations read as far as the ``full`` problem reads them (:mod:`volsched.solvers.coupled.horizon`
doubles the slots read, up to the 10^6-slot cap), in one process: seconds of
:func:`volsched.solvers.coupled.full_greedy.greedy_full` and of the Python loop kept as the
tests' oracle (``tests/oracles/coupled/greedy.py``), whether the schedules are the same, the
makespan and the entries. ``--long`` adds the (10, 5, 10, 0, 0) realization read to 10^6 slots,
whose makespan (802,041) needs them (the Python loop takes minutes there). Then, for the same
cases, where the time of ``solve(problem="full", method="greedy")`` goes now: the bounds
(``iterations`` chain, data chain) against the greedy.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from oracles.coupled.greedy import greedy_full_oracle

from volsched.instances.coupled import paper_realization
from volsched.solvers.coupled.full_bound import data_chain
from volsched.solvers.coupled.full_greedy import greedy_full
from volsched.solvers.coupled.horizon import cut
from volsched.solvers.coupled.iterations import solve_iterations

#: (m, n_com, w_min, scenario, trial, slots read)
CASES = [
    (5, 5, 1, 0, 0, 2000),
    (5, 10, 5, 2, 0, 64_000),
    (10, 10, 3, 4, 0, 64_000),
    (10, 5, 10, 0, 0, 64_000),
    (10, 5, 10, 0, 0, 256_000),
]
LONG = [(10, 5, 10, 0, 0, 1_000_000)]


def timed(fn, *args):
    begin = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - begin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true")
    args = parser.parse_args()
    cases = CASES + (LONG if args.long else [])
    greedy_full(cut(paper_realization(5, 5, 1, 0, 0), 100))  # numba: load the compiled kernel first
    print(
        "| realization (m, n_com, w_min, scenario, trial) | slots read | Python loop | compiled | ratio "
        "| same schedule | makespan | entries |"
    )
    print("|---|---:|---:|---:|---:|---|---:|---:|")
    for *params, slots in cases:
        instance = cut(paper_realization(*params), slots)
        new, t_new = timed(greedy_full, instance)
        old, t_old = timed(greedy_full_oracle, instance)
        makespan = "none found" if new is None else f"{new['completions'][-1] + 1:,}"
        entries = 0 if new is None else len(new["configurations"])
        print(
            f"| {tuple(params)} | {slots:,} | {t_old:.3f} s | {t_new:.3f} s | {t_old / t_new:.0f}x "
            f"| {new == old} | {makespan} | {entries:,} |",
            flush=True,
        )
    print("\n| realization | slots read | iterations chain | data chain | greedy |")
    print("|---|---:|---:|---:|---:|")
    for *params, slots in cases:
        instance = cut(paper_realization(*params), slots)
        _, t_iter = timed(solve_iterations, instance)
        _, t_chain = timed(data_chain, instance)
        _, t_greedy = timed(greedy_full, instance)
        print(
            f"| {tuple(params)} | {slots:,} | {t_iter:.2f} s | {t_chain:.2f} s | {t_greedy:.2f} s |",
            flush=True,
        )


if __name__ == "__main__":
    main()
