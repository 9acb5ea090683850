"""Problem ``full``: where one solve's seconds go, stage by stage (CPU time of this process).

Usage: python benchmarks/bench_coupled_full_stages.py N_COM,W_MIN,SCENARIO,TRIAL ... [--m 10]

Solves each paper realization as the ``casanova2013`` preset does (method ``greedy``, the
100,000-unit budget, the 600 s safety net) with timers around its stages: the ``iterations``
relaxation, the data chain, each greedy pass (by its span orders, look-ahead and reach), the
holder search and the holder bound. A stage run several times (one per prefix that
:func:`volsched.solvers.coupled.horizon.reading` reads) is summed.
"""

from __future__ import annotations

import argparse
import collections
import functools
import inspect
import time

import volsched.solvers.coupled.full as full
import volsched.solvers.coupled.full_greedy as full_greedy
from volsched.instances.coupled import paper_realization
from volsched.solvers.coupled import solve

spent: collections.Counter = collections.Counter()
PASS = full_greedy.greedy_pass


def _timed(module, name: str, label) -> None:
    wrapped = getattr(module, name)

    @functools.wraps(wrapped)
    def timed(*args, **kwargs):
        begin = time.process_time()
        try:
            return wrapped(*args, **kwargs)
        finally:
            spent[label(args, kwargs)] += time.process_time() - begin

    setattr(module, name, timed)


def _pass(args, kwargs) -> str:
    chosen = inspect.signature(PASS).bind(*args, **kwargs)
    chosen.apply_defaults()
    spans, lookahead, reach = (chosen.arguments[name] for name in ("spans", "lookahead", "reach"))
    return f"greedy pass: spans {spans}, look-ahead {lookahead}, reach {reach}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keys", nargs="+", help="realizations N_COM,W_MIN,SCENARIO,TRIAL")
    parser.add_argument("--m", type=int, default=10)
    args = parser.parse_args()
    for name in ("solve_iterations", "DataChain", "holder_search", "holders_bound"):
        _timed(full, name, lambda a, k, name=name: name)
    _timed(full_greedy, "greedy_pass", _pass)
    for key in args.keys:
        n_com, w_min, scenario, trial = map(int, key.split(","))
        instance = paper_realization(args.m, n_com, w_min, scenario, trial)
        spent.clear()
        begin = time.process_time()
        result = solve(instance, problem="full", method="greedy", budget=100_000, time_limit=600)
        total = time.process_time() - begin
        print(f"{(n_com, w_min, scenario, trial)}: {result.status.value} {result.objective} {result.bound}")
        print(f"  {total:8.1f} s  in all")
        for label, seconds in spent.most_common():
            print(f"  {seconds:8.1f} s  {label}", flush=True)


if __name__ == "__main__":
    main()
