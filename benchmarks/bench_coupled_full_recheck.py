"""Problem ``full``: re-solve a seeded sample of a store's rows with today's code and compare.

Usage: python benchmarks/bench_coupled_full_recheck.py STORE [--status optimal] [--sample 150] [--seed 0]

Picks ``--sample`` of the store's ``full`` rows (the ``casanova2013`` preset's exact reference,
method ``greedy``) with the given status, re-solves each with the preset's own settings (the
``full`` work budget of 100,000 and the 600 s safety net) and prints, per row and in all, whether
the status and the makespan are the same. A store resumed after a change that only tightens a
bound keeps its proven rows; this is the check that they would come out the same.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3

from volsched.instances.coupled import paper_realization
from volsched.solvers.coupled import solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--status", default="optimal")
    parser.add_argument("--sample", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    db = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    query = (
        "SELECT key, params, objective FROM results WHERE kind = 'exact' AND problem = 'full' AND status = ? "
        "ORDER BY key"
    )
    rows = db.execute(query, (args.status,)).fetchall()
    chosen = random.Random(args.seed).sample(rows, min(args.sample, len(rows)))
    same = 0
    for _key, params, objective in chosen:
        p = json.loads(params)
        instance = paper_realization(p["tasks"], p["n_com"], p["w_min"], p["scenario"], p["trial"], p["seed"])
        result = solve(instance, problem="full", method="greedy", budget=100_000, time_limit=600)
        ok = result.status.value == args.status and result.objective == objective
        same += ok
        cell = (p["n_com"], p["w_min"], p["scenario"], p["trial"])
        flag = "" if ok else "DIFFERENT"
        print(cell, args.status, objective, "->", result.status.value, result.objective, flag)
    print(f"{same} of {len(chosen)} {args.status} rows re-solved with the same status and makespan")


if __name__ == "__main__":
    main()
