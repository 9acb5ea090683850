"""Slack heuristics at the paper's size: GAPS and 30 disturbed runs against straightforward references.

Usage: python benchmarks/bench_slack_heuristics.py [--machines 300] [--jobs 3000] [--seeds 3] [--repeat 5]

On ``paper`` instances (``volsched generate slack --preset paper``: Section 6
stand-in, 20 % free machines) it times, in this process and on the same
inputs:

* ``gaps`` (best of ``--repeat``) against ``scan``, Algorithm 1's double loop
  as written (every interval scans every unscheduled job; sums kept
  incrementally, integer tests), at beta 0, 0.5 and 1, and checks that both
  give the same schedule;
* 30 uniform disturbances: the compiled executor (best of ``--repeat``; the
  first call of the process, which loads or compiles the kernel, reported
  apart) against the Python rules (:func:`run_machine` per machine and draw)
  on the same ``delta``, and checks that both give the same makespans;
* for information, ``lpt`` and ``list``;
* with ``--sweep``: for information (not the Figure 4 experiment), the
  makespan ratio over the plain lower bound and the median stability of GAPS
  at beta = 0, 0.1, ..., 1 on ``--seeds`` instances, both executors;
* with ``--theorem2 N``: Theorem 2's bound against the exact worst case on
  ``N`` seeded random ``theorem2`` instances (a search for counterexamples);
* with ``--diagnose BETA``: which machines make one draw's disturbed
  makespan (seed 0) and how many later availabilities can hold their longest job;
* with ``--worst``: the exact worst case (``--disturbance worst``) of GAPS
  schedules on ``theorem2`` instances of growing size, its time and replays.

Targets, set when the family was built: GAPS under 0.5 s, 30 draws under 2 s.
"""

from __future__ import annotations

import argparse
import heapq
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from oracles.slack.disturbance import disturbed_makespan_reference

from volsched.heuristics.slack import (
    disturbed_makespans,
    gaps,
    lpt,
    plain_list,
    sampled_makespans,
)
from volsched.instances.slack import beta_ratio
from volsched.instances.slack import generators as gen


def scan(instance):
    """Algorithm 1 as written: O(intervals x jobs)."""
    num, den = beta_ratio(instance.beta)
    lam = instance.lam
    p = instance.p.tolist()
    t = instance.table
    intervals = sorted(
        zip(
            t["e"].tolist(),
            t["machine"].tolist(),
            t["k"].tolist(),
            t["a"].tolist(),
            t["start"].tolist(),
            strict=True,
        )
    )
    S = sorted(range(len(p)), key=lambda j: (-p[j], j))
    sum_s = sum(p)
    machine = [-1] * len(p)
    start = [0] * len(p)
    for e, i, _k, a, begin in intervals:
        used, first, keep, clock = 0, 0, [], begin
        for j in S:
            pj = p[j]
            if lam * e <= sum_s - pj and (a - used - pj) * den >= num * (first or pj):
                machine[j], start[j] = i, clock
                clock += pj
                used += pj
                sum_s -= pj
                first = first or pj
            else:
                keep.append(j)
        S = keep
    loads = [(0, i) for i in instance.free]
    heapq.heapify(loads)
    for j in S:
        load, i = loads[0]
        machine[j], start[j] = i, load
        heapq.heapreplace(loads, (load + p[j], i))
    return machine, start


def best_of(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machines", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=3000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--draws", type=int, default=30)
    ap.add_argument("--worst", action="store_true", help="only the exact worst case on theorem2 instances")
    ap.add_argument("--sweep", action="store_true", help="only the beta sweep (ratio and median stability)")
    ap.add_argument(
        "--theorem2",
        type=int,
        metavar="N",
        help="only: Theorem 2's bound against the exact worst case on N seeded random instances",
    )
    ap.add_argument(
        "--diagnose",
        type=float,
        metavar="BETA",
        help="only: which machine makes one draw's disturbed makespan on seed 0, and why",
    )
    args = ap.parse_args()
    if args.diagnose is not None:
        diagnose(args)
        return
    if args.theorem2 is not None:
        theorem2_search(args.theorem2)
        return
    if args.worst:
        worst_sizes()
        return
    if args.sweep:
        sweep(args)
        return
    print(f"cores: {os.cpu_count()}; paper instances m = {args.machines}, n = {args.jobs}")
    inst0 = gen.generate_paper(3, 3, 0, 0.34, 10.0, 0.5)
    t0 = time.perf_counter()
    disturbed_makespans(inst0, gaps(inst0), np.zeros((1, inst0.n_intervals)))
    print(f"first compiled call of the process (kernel load/compile): {time.perf_counter() - t0:.2f} s")
    for seed in range(args.seeds):
        base = gen.generate_paper(args.machines, args.jobs, seed, 0.2, 10.0, 1.0)
        print(
            f"seed {seed}: {base.n_intervals:,} intervals, lambda = {base.lam}, "
            f"2 p_max <= a_min: {base.theorem2_assumption}"
        )
        for beta in (0.0, 0.5, 1.0):
            inst = base.with_beta(beta)
            t_new, sched = best_of(lambda inst=inst: gaps(inst), args.repeat)
            t_ref, (mach, st) = best_of(lambda inst=inst: scan(inst), 1)
            assert sched.machine.tolist() == mach and sched.start.tolist() == st
            ref = sched.makespan(inst.p)
            rng = np.random.default_rng(seed)
            a = inst.table["a"]
            deltas = -a * rng.random((args.draws, len(a)))
            t_run, runs = best_of(
                lambda inst=inst, sched=sched, d=deltas: disturbed_makespans(inst, sched, d), args.repeat
            )
            t_py, py = best_of(
                lambda inst=inst, sched=sched, d=deltas: [
                    disturbed_makespan_reference(inst, sched, x) for x in d
                ],
                1,
            )
            np.testing.assert_allclose(runs, py, rtol=1e-12)
            print(
                f"  beta {beta:3.1f}: gaps {t_new * 1e3:7.1f} ms, scan {t_ref:6.2f} s "
                f"({t_ref / t_new:5.0f}x); {args.draws} draws {t_run * 1e3:6.1f} ms, python "
                f"{t_py:5.2f} s ({t_py / t_run:4.0f}x); C_max {ref}, median stability "
                f"{np.median(runs) / ref:.3f}"
            )
        t_lpt, s_lpt = best_of(lambda base=base: lpt(base), 1)
        t_list, s_list = best_of(lambda base=base: plain_list(base), 1)
        print(
            f"  lpt {t_lpt:.2f} s (C_max {s_lpt.makespan(base.p)}), list {t_list:.2f} s "
            f"(C_max {s_list.makespan(base.p)})"
        )


def sweep(args) -> None:
    from volsched.solvers.slack.bound import lower_bound

    print(
        f"paper instances m = {args.machines}, n = {args.jobs}; makespan / plain lower bound, "
        f"median stability of {args.draws} draws (planned | compact executor)"
    )
    for seed in range(args.seeds):
        base = gen.generate_paper(args.machines, args.jobs, seed, 0.2, 10.0, 1.0)
        lb = lower_bound(base, "plain")
        print(f"seed {seed}: lower bound {lb}")
        for beta in [b / 10 for b in range(11)]:
            inst = base.with_beta(beta)
            sched = gaps(inst)
            ref = sched.makespan(inst.p)
            st = [
                np.median(sampled_makespans(inst, sched, np.random.default_rng(seed), args.draws, ex)) / ref
                for ex in ("planned", "compact")
            ]
            print(f"  beta {beta:3.1f}: ratio {ref / lb:.3f}, stability {st[0]:6.2f} | {st[1]:6.2f}")


def theorem2_search(count: int) -> None:
    """Theorem 2 (stability <= 5/2 - beta + gamma, 1 at beta = 1) against the exact worst case."""
    from volsched.heuristics.slack import worst_case
    from volsched.instances.errors import InputError

    rng = np.random.default_rng(20110501)
    done = refused = above_one = 0
    best = (0.0, None)
    t0 = time.perf_counter()
    for _ in range(count):
        m = int(rng.integers(2, 8))
        lam = int(min(m - 1, rng.integers(1, max(2, m // 2) + 1)))
        n = int(rng.integers(3, 40))
        p_max = int(rng.integers(1, 8))
        a_min = 2 * p_max + int(rng.integers(0, 3))
        a_max = a_min + int(rng.integers(0, 10))
        u_max = int(rng.integers(1, 3 * a_min + 1))
        beta = int(rng.integers(0, 11)) / 10
        seed = int(rng.integers(0, 10**6))
        inst = gen.generate_theorem2(m, n, seed, lam, p_max, a_min, a_max, u_max, 3.0, beta)
        sched = gaps(inst)
        try:
            worst = worst_case(inst, sched, budget=20_000).makespan
        except InputError:
            refused += 1
            continue
        done += 1
        stability = worst / sched.makespan(inst.p)
        bound = 1.0 if beta == 1 else 2.5 - beta + inst.gamma
        above_one += stability > 1
        if beta == 1:
            assert stability == 1, (m, n, seed, lam, p_max, a_min, a_max, u_max)
        elif stability / bound > best[0]:
            best = (stability / bound, (stability, bound, m, n, seed, lam, p_max, a_min, a_max, u_max, beta))
    print(
        f"{done} instances evaluated exactly ({refused} refused by the budget) in "
        f"{time.perf_counter() - t0:.0f} s; {above_one} with worst-case stability > 1; beta = 1: all "
        f"exactly 1; beta < 1: largest stability / bound {best[0]:.3f}, at (stability, bound, m, n, "
        f"seed, lambda, p_max, a_min, a_max, u_max, beta) = {best[1]}"
    )


def diagnose(args) -> None:
    from volsched.heuristics.slack import execute, machine_plans

    inst = gen.generate_paper(args.machines, args.jobs, 0, 0.2, 10.0, args.diagnose)
    sched = gaps(inst)
    ref = sched.makespan(inst.p)
    plans, _ = machine_plans(inst, sched)
    a = inst.table["a"]
    delta = -a * np.random.default_rng(0).random(len(a))
    ends = [(execute(pl, delta[pl.rows]), pl) for pl in plans]
    print(
        f"seed 0, beta {args.diagnose}: C_max {ref}; median job {np.median(inst.p):.0f} s, median "
        f"availability {np.median(a):.0f} s; the three machines that end last in one draw:"
    )
    for end, pl in sorted(ends, key=lambda x: -x[0])[:3]:
        after = pl.a[pl.e > ref]
        long_enough = np.flatnonzero(after >= pl.p.max())
        print(
            f"  machine {pl.machine}: ends at {end / ref:.2f} C_max; jobs {pl.p.tolist()}; of its "
            f"{len(after)} availabilities after C_max, {len(long_enough)} hold its longest job, the first "
            f"is number {long_enough[0] + 1 if len(long_enough) else None}"
        )


def worst_sizes() -> None:
    from volsched.heuristics.slack import worst_case
    from volsched.instances.errors import InputError

    print(
        f"cores: {os.cpu_count()}; exact worst case of GAPS on theorem2 instances (p <= 5, a in [10, 30], "
        "u <= 10, horizon 3)"
    )
    for m, n, lam, beta in (
        (4, 12, 1, 0.5),
        (20, 100, 4, 0.0),
        (20, 200, 4, 0.0),
        (40, 400, 8, 0.3),
        (10, 200, 2, 0.0),
    ):
        inst = gen.generate_theorem2(m, n, 0, lam, 5, 10, 30, 10, 3.0, beta)
        sched = gaps(inst)
        per = np.bincount(sched.machine, minlength=m)[[i for i in range(m) if i not in inst.free]]
        t0 = time.perf_counter()
        try:
            w = worst_case(inst, sched)
            what = (
                f"stability {w.makespan / sched.makespan(inst.p):.3f} "
                f"(bound {2.5 - beta + inst.gamma:.2f}), "
                f"most replays of a machine {max(x.replays for x in w.machines):,}"
            )
        except InputError as exc:
            what = f"refused: {exc}"
        print(
            f"  m {m:3d}, n {n:4d}, lambda {lam}, beta {beta}: at most {per.max()} jobs on a non-free "
            f"machine, {time.perf_counter() - t0:6.2f} s, {what}"
        )


if __name__ == "__main__":
    main()
