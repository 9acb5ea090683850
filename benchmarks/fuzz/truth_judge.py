"""The truth-judged campaign: every ``optimal`` and bound of every registered method, on a loaded machine.

``python benchmarks/fuzz/truth_judge.py [--cases 10] [--repro-runs 100]``

Seeded tiny instances of every (family, problem), each with its optimum from an independent oracle
(``tests/fuzz/truth.py``), are solved by every registered method under time limits of 0.01, 0.05
and 0.2 s beside two CPU-bound processes; so are ``--theorem2`` slack instances of 16 to 24 jobs
whose greedy schedule is not optimal (optimum by an unlimited ``cpsat``), ``--theorem2-repeat``
times per limit; then the shared slack input on which ``milp`` claimed a false optimum
(``../shared/data/repro/slack-t60_00-milp-false-optimal.json``) is solved by ``milp``
``--repro-runs`` times under each limit. Prints the counts per (family, problem, method),
the totals (runs, wrong ``optimal``, bounds on the wrong side of the optimum, wrong
``infeasible``, errors) and the repro's outcomes; exits 1 when anything is wrong. The figures go
to ``benchmarks/RESULTS.md`` ("Fuzz campaign and truth judge").
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from fuzz.truth import (
    LIMITS,
    Tally,
    cases,
    judge,
    loaded,
    run,
    slack_repro,
    table,
    theorem2_cases,
    total,
    warm,
)


def repro_runs(runs: int, limits=LIMITS) -> tuple[Tally, dict]:
    """``milp`` on the shared slack repro, ``runs`` times under each limit: the tally and the outcomes."""
    case = slack_repro()
    tally, outcomes = Tally(), {}
    for limit in limits:
        outcomes[limit] = Counter(judge(case, "milp", limit, tally) for _ in range(runs))
    return tally, {"truth": case.truth, "outcomes": outcomes}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10, help="instances per (family, problem)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--theorem2", type=int, default=10, help="theorem2 slack instances (beaten greedy)")
    parser.add_argument("--theorem2-repeat", type=int, default=5, help="runs of each per method and limit")
    parser.add_argument("--repro-runs", type=int, default=100, help="milp runs of the repro per limit")
    parser.add_argument("--load", type=int, default=2, help="CPU-bound background processes")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", DeprecationWarning)
    begin = time.perf_counter()
    chosen = cases(args.cases, args.seed)
    stressed = theorem2_cases(args.theorem2, args.seed, greedy_beaten=True)
    warm(chosen + stressed)
    with loaded(args.load):
        tallies = run(chosen)
        for (f, p, m), t in run(stressed, repeat=args.theorem2_repeat).items():
            tallies[(f, f"{p} (theorem2)", m)] = t
        repro, summary = repro_runs(args.repro_runs)
    wall = time.perf_counter() - begin
    everything = total(tallies)
    print(
        f"{len(chosen)} tiny instances ({args.cases} per problem, seed {args.seed}) and {len(stressed)} "
        f"theorem2 ones (each {args.theorem2_repeat} times), limits {list(LIMITS)} s, {args.load} CPU-bound "
        f"processes beside, {os.cpu_count()} cores, {wall:.0f} s wall\n"
    )
    print(table(tallies))
    print(
        f"\nall methods: {everything.runs} runs, {everything.bounds} bounds judged, "
        f"{everything.wrong_optimal} wrong optimal, {everything.wrong_bound} bounds on the wrong side, "
        f"{everything.wrong_infeasible} wrong infeasible, {everything.errors} errors, "
        f"{everything.oracle_disagreements} oracle disagreements"
    )
    print(
        f"\nrepro {summary['truth']:g} (optimum by unlimited cpsat), milp {args.repro_runs} runs per limit:"
    )
    for limit, seen in summary["outcomes"].items():
        print(f"  {limit} s: " + ", ".join(f"{k} {v}" for k, v in sorted(seen.items())))
    print(
        f"  {repro.runs} runs, {repro.wrong_optimal} wrong optimal, {repro.wrong_bound} bounds on the wrong "
        f"side, {repro.errors} errors"
    )
    for line in everything.findings + repro.findings:
        print(line)
    return 1 if everything.wrong or repro.wrong else 0


if __name__ == "__main__":
    sys.exit(main())
