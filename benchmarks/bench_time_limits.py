"""How far past ``--time-limit`` each exact method runs: time limits are honoured.

For every problem and method of every family, on an instance too hard to
finish inside the limit where one exists, the method's own runtime (what
``solve`` reports) and the wall time of the whole ``solve`` (model build,
verification) are measured against the limit. Usage::

    python benchmarks/bench_time_limits.py [--limits 0.05 0.5 2]
"""

from __future__ import annotations

import argparse
import time

from volsched.families import FAMILIES
from volsched.instances.checkpoint import generate
from volsched.instances.coupled import generate_markov, paper_realization

CASES = {
    ("coupled", "offline-coupled"): lambda: generate_markov(200, 5000, 10, 1),
    ("coupled", "offline-coupled-inf"): lambda: generate_markov(100, 2000, 10, 1),
    ("coupled", "iterations"): lambda: paper_realization(10, 5, 1, 0, 0, slots=80),
    ("coupled", "full"): lambda: paper_realization(5, 5, 1, 0, 0, slots=100),
    ("checkpoint", "checkpoint"): lambda: generate(16, 0),
}
SMALL = {
    ("coupled", "offline-coupled", "brute"): lambda: generate_markov(16, 2000, 8, 1),
    ("coupled", "offline-coupled-inf", "brute"): lambda: generate_markov(16, 2000, 8, 1),
    ("coupled", "iterations", "brute"): lambda: paper_realization(5, 5, 1, 0, 0, slots=80),
    ("coupled", "iterations", "cpsat"): lambda: paper_realization(5, 5, 1, 0, 0, slots=80),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limits", type=float, nargs="+", default=[0.05, 0.5, 2.0])
    args = parser.parse_args()
    print(
        "| family | problem | method | limit (s) | method runtime (s) | solve wall (s) | over (s) | status |"
    )
    print("|---|---|---|---:|---:|---:|---:|---|")
    for (fam, problem), make in CASES.items():
        family = FAMILIES[fam]
        for method in family.problems[problem].methods:
            build = SMALL.get((fam, problem, method), make)
            instance = build()
            if (fam, problem, method) == ("coupled", "full", "cpsat"):
                instance = paper_realization(5, 5, 1, 0, 0, slots=100)
                instance = type(instance)(
                    availability=instance.availability[:20, :100],
                    w=instance.w,
                    mu=[None] * 20,
                    m=5,
                    n_com=5,
                    T_prog=5,
                    T_data=1,
                    K=2,
                )
            for limit in args.limits:
                begin = time.perf_counter()
                try:
                    result = family.solve(instance, problem=problem, method=method, time_limit=limit)
                except Exception as exc:
                    print(f"| {fam} | {problem} | {method} | {limit} | - | - | - | refused: {exc} |")
                    break
                wall = time.perf_counter() - begin
                print(
                    f"| {fam} | {problem} | {method} | {limit} | {result.runtime_s:.3f} | {wall:.3f} | "
                    f"{max(0.0, wall - limit):.3f} | {result.status.value} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
