"""Slack instances: the paper generator's calibration and speed, the lower bound against a plain loop.

Calibration (Theorem 2 assumes 2 p_max <= a_min; does it hold on Section 6's instances?): over
``--seeds`` paper-like instances of ``--machines`` x ``--jobs``, the share where Theorem 2's
assumption holds, the share of availability periods shorter than 30 minutes, lambda, gamma, p_max,
the interval count.

Speed: ``generate_paper`` per instance; ``lower_bound`` (numpy, binary search over T with all job
sizes at once) against a reference written as a plain Python loop over the same inequality (every
T from p_max upward would be too slow: the reference also bisects, but evaluates each size
threshold and each period in Python); both must agree. Run::

    python benchmarks/bench_slack_instances.py --seeds 20 --machines 300 --jobs 3000
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from volsched.instances.slack.generators import generate_paper
from volsched.solvers.slack.bound import lower_bound


def reference_bound(instance, problem: str) -> int:
    """The same bound, one period and one size threshold at a time in Python."""
    p = sorted(int(x) for x in instance.p)
    sizes = sorted(set(p))
    work = {q: sum(x for x in p if x >= q) for q in sizes}
    periods = []  # (start, end, e) ; end None: a tail, e None: never closed
    for row in instance.machines:
        prev = 0
        for s, e in row.tolist():
            periods.append((prev, s, e))
            prev = e
        if len(row):
            periods.append((prev, None, None))
    lam = instance.lam

    def ok(T: int) -> bool:
        for q in sizes:
            room = lam * T
            for start, end, e in periods:
                if problem == "slack":
                    length = end - start if e is not None and e <= T else 0
                else:
                    length = max(0, (T if end is None else min(end, T)) - start)
                if length >= q:
                    room += length
            if work[q] > room:
                return False
        return True

    lo, hi = p[-1], sum(p) + (0 if lam else int(instance.machines[0][-1, 1]))
    if ok(lo):
        return lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--machines", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=3000)
    ap.add_argument("--reference-seeds", type=int, default=2, help="instances timed against the reference")
    ap.add_argument(
        "--reference-size",
        type=int,
        nargs=2,
        default=[30, 200],
        metavar=("M", "N"),
        help="machines and jobs of those instances (the reference is slow)",
    )
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}")
    holds, short, gammas, pmax, intervals, gen_s, bound_s = 0, [], [], [], [], [], []
    for seed in range(args.seeds):
        t0 = time.perf_counter()
        inst = generate_paper(args.machines, args.jobs, seed)
        gen_s.append(time.perf_counter() - t0)
        holds += inst.theorem2_assumption
        short.append(float(np.mean(inst.table["a"] < 1800)))
        gammas.append(inst.gamma)
        pmax.append(inst.p_max / 3600)
        intervals.append(inst.n_intervals)
        t0 = time.perf_counter()
        for problem in ("plain", "slack"):
            lower_bound(inst, problem)
        bound_s.append((time.perf_counter() - t0) / 2)
    print(
        f"paper {args.machines} x {args.jobs}, {args.seeds} seeds: lambda = {inst.lam}; "
        f"2 p_max <= a_min holds in {holds} of {args.seeds}; availability periods < 30 min: "
        f"median share {statistics.median(short):.3f} (min {min(short):.3f}, max {max(short):.3f}); "
        f"gamma median {statistics.median(gammas):.3g}; p_max median {statistics.median(pmax):.1f} h; "
        f"intervals median {statistics.median(intervals):,.0f}"
    )
    print(
        f"generate_paper: median {statistics.median(gen_s) * 1e3:.1f} ms; lower_bound (per problem): "
        f"median {statistics.median(bound_s) * 1e3:.1f} ms"
    )
    for seed in range(args.reference_seeds):
        inst = generate_paper(*args.reference_size, seed)
        for problem in ("plain", "slack"):
            t0 = time.perf_counter()
            fast = lower_bound(inst, problem)
            t_fast = time.perf_counter() - t0
            t0 = time.perf_counter()
            slow = reference_bound(inst, problem)
            t_slow = time.perf_counter() - t0
            assert fast == slow, (seed, problem, fast, slow)
            size = f"{args.reference_size[0]} x {args.reference_size[1]}"
            print(
                f"{size} seed {seed} {problem}: bound {fast} s ({fast / 3600:.1f} h); "
                f"numpy {t_fast * 1e3:.1f} ms, "
                f"reference {t_slow:.2f} s, ratio {t_slow / t_fast:.0f}x"
            )


if __name__ == "__main__":
    main()
