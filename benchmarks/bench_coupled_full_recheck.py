"""Problem ``full``: re-solve a seeded sample of a store's rows with today's code and compare.

Usage: python benchmarks/bench_coupled_full_recheck.py STORE [--status optimal|all] [--sample 150] [--seed 0]
       [--w-min-at-most W] [--slower-than S]

Picks ``--sample`` of the store's ``full`` rows (the ``casanova2013`` preset's exact reference,
method ``greedy``) with the given status (``all``: any), re-solves each with the preset's own
settings (the ``full`` work budget of 100,000 and the 600 s safety net) and prints, per row and in
all, whether the status, the makespan and the bound are the same, and the work where the store
records it (layout 5), the bounds before and after, and the seconds of the re-solve: wall-clock and
the process's CPU time (what other jobs on the machine do not inflate). ``--w-min-at-most`` keeps
the rows with that ``w_min`` or less; ``--slower-than`` the rows whose stored CPU seconds (or,
where the store has none, wall-clock seconds, inflated by whatever ran beside the sweep) exceed
``S``, each re-solved, slowest first, without sampling. A store resumed after a
change that only tightens a bound keeps its proven rows; this is the check that they would come
out the same.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import time

from volsched.instances.coupled import paper_realization
from volsched.solvers.coupled import solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--status", default="optimal")
    parser.add_argument("--sample", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--w-min-at-most", type=int, default=None)
    parser.add_argument("--slower-than", type=float, default=None)
    args = parser.parse_args()
    db = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    query = (
        "SELECT key, params, status, objective, bound, COALESCE(cpu_s, runtime_s), work FROM results "
        "WHERE kind = 'exact' AND problem = 'full' AND (status = ? OR ? = 'all') ORDER BY key"
    )
    rows = db.execute(query, (args.status, args.status)).fetchall()
    if args.w_min_at_most is not None:
        rows = [row for row in rows if json.loads(row[1])["w_min"] <= args.w_min_at_most]
    if args.slower_than is not None:
        chosen = sorted((row for row in rows if row[5] > args.slower_than), key=lambda row: -row[5])
    else:
        chosen = random.Random(args.seed).sample(rows, min(args.sample, len(rows)))
    same, seconds, cpu = 0, [], []
    for _key, params, status, objective, bound, stored, work in chosen:
        p = json.loads(params)
        instance = paper_realization(p["tasks"], p["n_com"], p["w_min"], p["scenario"], p["trial"], p["seed"])
        begin, begin_cpu = time.perf_counter(), time.process_time()
        result = solve(instance, problem="full", method="greedy", budget=100_000, time_limit=600)
        seconds.append(time.perf_counter() - begin)
        cpu.append(time.process_time() - begin_cpu)
        ok = (result.status.value, result.objective, result.bound) == (status, objective, bound)
        ok = ok and work in (None, result.work)
        same += ok
        cell = (p["n_com"], p["w_min"], p["scenario"], p["trial"])
        flag = "" if ok else "DIFFERENT"
        print(
            cell,
            status,
            objective,
            bound,
            work,
            "->",
            result.status.value,
            result.objective,
            result.bound,
            result.work,
            f"{seconds[-1]:.1f} s (CPU {cpu[-1]:.1f} s; stored {stored:.1f} s)",
            flag,
            flush=True,
        )
    print(f"{same} of {len(chosen)} rows ({args.status}) re-solved with the same status, bounds and work")
    if seconds:
        print(f"seconds: median {statistics.median(seconds):.1f}, max {max(seconds):.1f}")
        over = sum(c > 60 for c in cpu)
        print(f"CPU seconds: median {statistics.median(cpu):.1f}, max {max(cpu):.1f}, {over} above 60")


if __name__ == "__main__":
    main()
