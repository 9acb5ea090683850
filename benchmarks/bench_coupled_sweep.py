"""The closed-set sweep compiled against the Python sweep it replaced, on the same inputs.

Usage: python benchmarks/bench_coupled_sweep.py [--long]

Paper realizations read as far as the ``full`` problem reads them, in one process: seconds of
the ``iterations`` chain (:func:`volsched.solvers.coupled.iterations.solve_iterations`) and of
the data chain (:func:`volsched.solvers.coupled.full_bound.data_chain`), each against the
Python code kept as the tests' oracle (``tests/oracles/coupled/sweep.py``), and whether the
chains are the same. ``--long`` adds (10, 5, 10, 0, 0) read to 10^6 slots.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_coupled_greedy import CASES, LONG, timed
from oracles.coupled.sweep import DataChainOracle, SweepOracle, chain_oracle

from volsched.instances.coupled import paper_realization
from volsched.solvers.coupled.full_bound import data_chain
from volsched.solvers.coupled.horizon import cut
from volsched.solvers.coupled.iterations import solve_iterations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true")
    args = parser.parse_args()
    warm = cut(paper_realization(5, 5, 1, 0, 0), 100)
    solve_iterations(warm), data_chain(warm)  # numba: load the compiled kernels first
    print(
        "| realization (m, n_com, w_min, scenario, trial) | slots read | chain | Python | compiled | ratio "
        "| same chain | completions |"
    )
    print("|---|---:|---|---:|---:|---:|---|---:|")
    for *params, slots in CASES + (LONG if args.long else []):
        instance = cut(paper_realization(*params), slots)
        for name, new_fn, oracle in (
            ("iterations", solve_iterations, SweepOracle),
            ("data", data_chain, DataChainOracle),
        ):
            new, t_new = timed(new_fn, instance)
            old, t_old = timed(lambda inst, o=oracle: chain_oracle(inst, o(inst)), instance)
            print(
                f"| {tuple(params)} | {slots:,} | {name} | {t_old:.3f} s | {t_new:.3f} s "
                f"| {t_old / t_new:.0f}x | {new == old} | {len(new)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
