"""Coupled realizations: the compiled Markov kernel against the Python loop it replaced.

Usage: python benchmarks/bench_coupled_realization.py [--repeat 5] [--cap 1000000] [--instances 20]

In one process, on the same inputs:

1. Stored realizations (``markov_realization``, the generators' H slots): the Python loop of
   before (copied here as ``python_loop``) against the compiled kernel, for 20 processors
   and H = 2,000 (one paper realization) and H = 100,000; the outputs must be identical.
2. The continuation to the paper's cap: ``CoupledInstance.realization(cap)`` of fresh
   ``paper_realization`` instances (20 processors, H = 2,000), median of ``--instances``
   instances, against the Python loop over the same number of slots (run once), and the
   share spent drawing the uniforms. A second call (cached) is timed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from volsched.instances.coupled import REALIZATION_BLOCK, markov_chains, markov_realization, paper_realization


def python_loop(rng: np.random.Generator, trans: np.ndarray, horizon: int) -> np.ndarray:
    """``markov_realization`` before the compiled kernel: one numpy step per slot."""
    p = trans.shape[0]
    cum = np.cumsum(trans, axis=2)
    states = np.empty((p, horizon), dtype=np.int8)
    s = np.zeros(p, dtype=np.int64)
    draws = rng.random((horizon, p))
    rows = np.arange(p)
    for t in range(horizon):
        states[:, t] = s
        s = np.minimum((draws[t][:, None] >= cum[rows, s]).sum(axis=1), 2)
    return states


def timed(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def stored(repeat: int) -> None:
    trans = markov_chains(np.random.default_rng(1), 20)
    print("| stored slots (p = 20) | Python loop (s) | kernel (s) | ratio | identical |")
    print("|---|---|---|---|---|")
    for horizon in (2_000, 100_000):
        old_s, old = timed(lambda h=horizon: python_loop(np.random.default_rng(7), trans, h), 1)
        new_s, new = timed(lambda h=horizon: markov_realization(np.random.default_rng(7), trans, h), repeat)
        same = np.array_equal(old, new)
        print(f"| {horizon:,} | {old_s:.4f} | {new_s:.5f} | {old_s / new_s:,.0f}x | {same} |")


def continuation(cap: int, instances: int) -> None:
    first, again = [], []
    for k in range(instances):
        inst = paper_realization(5, 10, 3, k % 10, k // 10)
        t = time.perf_counter()
        inst.realization(cap)
        first.append(time.perf_counter() - t)
        t = time.perf_counter()
        inst.realization(cap)
        again.append(time.perf_counter() - t)
    inst = paper_realization(5, 10, 3, 0, 0)
    t = time.perf_counter()
    for start in range(0, cap - inst.horizon, REALIZATION_BLOCK):  # in the continuation's blocks
        np.random.default_rng([0, start]).random((min(REALIZATION_BLOCK, cap - inst.horizon - start), inst.p))
    draw = time.perf_counter() - t
    t = time.perf_counter()
    python_loop(np.random.default_rng(0), inst.transitions, cap)
    old = time.perf_counter() - t
    new = statistics.median(first)
    print(f"\n| realization({cap:,}), p = 20, H = 2,000 | seconds |")
    print("|---|---|")
    print(f"| Python loop over {cap:,} slots (once) | {old:.3f} |")
    print(
        f"| kernel continuation, median of {instances} fresh instances (min {min(first):.4f}, "
        f"max {max(first):.4f}) | {new:.4f} |"
    )
    print(
        f"| of which drawing the {cap - inst.horizon:,} x 20 uniforms (blocks of {REALIZATION_BLOCK:,} "
        f"slots) | {draw:.4f} |"
    )
    print(f"| second call (cached), median | {statistics.median(again):.6f} |")
    print(f"| ratio Python loop / kernel | {old / new:.0f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cap", type=int, default=10**6)
    parser.add_argument("--instances", type=int, default=20)
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, numpy {np.__version__}")
    t = time.perf_counter()
    markov_realization(np.random.default_rng(0), markov_chains(np.random.default_rng(0), 2), 3)
    print(f"first kernel call (numba import, cached compile): {time.perf_counter() - t:.2f} s\n")
    stored(args.repeat)
    continuation(args.cap, args.instances)


if __name__ == "__main__":
    main()
