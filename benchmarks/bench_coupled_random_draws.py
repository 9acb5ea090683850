"""RANDOM's draws, with or without replacement, on the paper's m = 5 realizations (Section VII-B, Table I).

Table I's RANDOM fails 440 times in volsched and 0 times in the paper. volsched draws each task's
worker with replacement (reading 3.2), so one slow worker can take several tasks and the
configuration's workload ``W = max_q x_q w_q`` grows; the paper says only "allocates tasks to UP
processors randomly using a uniform distribution". This benchmark measures the other reading:
each task to a worker drawn uniformly among the UP workers that hold no task yet (with
replacement only once every UP worker holds one), on the same realizations and the same
seed, through the same simulator (its decisions taken in Python), each run checked by the replay
verifier.

    python benchmarks/bench_coupled_random_draws.py --store c13.db --sample 300

``--store`` is a store of the ``casanova2013`` preset's m = 5 half (``benchmarks/casanova2013-m5.toml``):
it gives the realizations where RANDOM failed, and IE's makespans, which the %diff compares with.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from coupled_m5_store import diff, stored, verified_run
from tqdm import tqdm

from volsched.heuristics.coupled.passive import Random


class DistinctRandom(Random):
    """RANDOM drawing distinct workers: each task to a uniformly drawn UP worker without a task yet.

    Its draws are taken in Python (``decide``): the simulator's compiled RANDOM draws with replacement.
    """

    name = "RANDOM-distinct"
    compiled = None

    @staticmethod
    def _open(up: np.ndarray, held: np.ndarray, mu: np.ndarray) -> np.ndarray:
        free = up[held[up] == 0]
        return free if free.size else Random._open(up, held, mu)


def run(case: tuple) -> int | None:
    return verified_run(case, DistinctRandom())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--sample", type=int, default=300, help="realizations drawn (seed 2013) for %%diff")
    parser.add_argument(
        "--failing",
        type=int,
        default=100,
        help="realizations drawn (seed 2013) among those where RANDOM fails",
    )
    args = parser.parse_args()
    rows = stored(args.store)
    rng = np.random.default_rng(2013)
    failing = sorted(case for case, r in rows.items() if r.get("RANDOM") is None)
    total_failing = len(failing)
    failing = [
        failing[i] for i in sorted(rng.choice(len(failing), min(args.failing, len(failing)), replace=False))
    ]
    everything = sorted(rows)
    sample = [everything[i] for i in sorted(rng.choice(len(everything), args.sample, replace=False))]
    cases = sorted(set(failing) | set(sample))
    begin = time.perf_counter()
    made = {case: run(case) for case in tqdm(cases, desc="RANDOM-distinct", unit="run")}
    seconds = time.perf_counter() - begin
    print(f"{len(cases)} runs in {seconds:.0f} s\n")
    fails_distinct = sum(made[c] is None for c in failing)
    print(
        f"realizations where RANDOM (with replacement) fails: {total_failing}; on {len(failing)} of them "
        f"drawn, RANDOM-distinct fails on {fails_distinct}\n"
    )
    both = [c for c in sample if rows[c].get("IE") is not None]
    ok_with = [c for c in both if rows[c]["RANDOM"] is not None]
    ok_distinct = [c for c in both if made[c] is not None]
    ratio = [made[c] / rows[c]["RANDOM"] for c in ok_with if made[c] is not None]
    diff_with = 100 * np.mean([diff(rows[c]["RANDOM"], rows[c]["IE"]) for c in ok_with])
    diff_distinct = 100 * np.mean([diff(made[c], rows[c]["IE"]) for c in ok_distinct])
    print(
        "| sample (seed 2013) | realizations | fails with replacement | fails distinct "
        "| mean per-realization %diff vs IE, with replacement | distinct "
        "| median makespan ratio distinct / with |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {len(sample)} drawn | {len(both)} with IE finished "
        f"| {sum(rows[c]['RANDOM'] is None for c in sample)} | {sum(made[c] is None for c in sample)} "
        f"| {diff_with:.1f} ({len(ok_with)}) | {diff_distinct:.1f} ({len(ok_distinct)}) "
        f"| {np.median(ratio):.3f} ({len(ratio)}) |"
    )
    per_w = {}
    for c in failing:
        per_w.setdefault(c[1], [0, 0])
        per_w[c[1]][0] += 1
        per_w[c[1]][1] += made[c] is None
    print("\n| w_min | drawn among RANDOM's failures (with replacement) | of them, RANDOM-distinct fails |")
    print("|---:|---:|---:|")
    for w in sorted(per_w):
        print(f"| {w} | {per_w[w][0]} | {per_w[w][1]} |")


if __name__ == "__main__":
    main()
