"""Problem ``full``: method ``search`` (the search over iteration completions) against ``greedy``, one run.

Usage: python benchmarks/bench_coupled_full_search.py [--count 30] [--budget 200000]
       [--greedy-budget 100000] [--time-limit 60] [--seed 0]

``--count`` realizations of the ``casanova2013`` preset's ``full`` tasks (Section VII-A, 2,000
stored slots, read further as the preset does), spread over the cells: realization ``i`` has
``m`` = 5 or 10 (alternating), ``w_min = 1 + (i // 2) % 10``, ``n_com`` in (5, 10, 20) by
``i % 3``, scenario ``i % 10``, trial ``3 i % 10``. Each is solved by ``greedy`` (the preset's
method and budget: the before) and by ``search`` with ``--budget`` states (the after), through
the registry (verified results), in the same process. Prints one row per realization, then per
``m``: proven count, median and maximum gap ``(objective - bound) / objective``, median and
maximum work and seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics

from volsched.families import FAMILIES
from volsched.instances.coupled import paper_realization


def sample(count: int, seed: int) -> list:
    out = []
    for i in range(count):
        m, w_min, n_com = (5, 10)[i % 2], 1 + (i // 2) % 10, (5, 10, 20)[i % 3]
        out.append(
            (
                (m, n_com, w_min, i % 10, 3 * i % 10),
                paper_realization(m, n_com, w_min, i % 10, 3 * i % 10, seed),
            )
        )
    return out


def gap(result) -> float | None:
    if result.objective is None or result.bound is None:
        return None
    return (result.objective - result.bound) / result.objective


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--budget", type=float, default=200_000)
    parser.add_argument("--greedy-budget", type=float, default=100_000)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    family = FAMILIES["coupled"]
    rows = {"greedy": [], "search": []}
    print(f"cores: {os.cpu_count()}")
    print(
        "(m, n_com, w_min, scenario, trial) | method | status | objective | bound | gap | work | s | search"
    )
    for key, instance in sample(args.count, args.seed):
        for method, budget in (("greedy", args.greedy_budget), ("search", args.budget)):
            result = family.solve(
                instance, problem="full", method=method, budget=budget, time_limit=args.time_limit
            )
            rows[method].append((key, result))
            g = gap(result)
            print(
                f"{key} | {method} | {result.status.value} | {result.objective} | {result.bound} | "
                f"{'-' if g is None else f'{g:.4f}'} | {result.work} | {result.runtime_s:.2f} | "
                f"{result.info.get('search', '')}",
                flush=True,
            )
    print(
        "\nmethod | m | realizations | proven | median gap | max gap | median work | max work | "
        "median s | max s"
    )
    for method, results in rows.items():
        for m in (5, 10):
            part = [r for (key, r) in results if key[0] == m]
            gaps = [g for g in map(gap, part) if g is not None]
            works = [r.work or 0.0 for r in part]
            secs = [r.runtime_s for r in part]
            proven = sum(r.status.value == "optimal" for r in part)
            print(
                f"{method} | {m} | {len(part)} | {proven} | "
                f"{statistics.median(gaps) if gaps else float('nan'):.4f} | "
                f"{max(gaps, default=float('nan')):.4f} | "
                f"{statistics.median(works):.0f} | {max(works):.0f} | {statistics.median(secs):.2f} | "
                f"{max(secs):.2f}"
            )


if __name__ == "__main__":
    main()
