"""The prescient optimum at scale: N = 10,000 hosts, T = 100,000 tasks, one-week traces (the speed target).

Usage: python benchmarks/bench_prescient_exact.py [--platform sdsc] [--hosts 10000] [--tasks 100000]
       [--minutes 15] [--seed 1] [--repeat 5] [--dense-days 0] [--cpsat]

Loads the traces (the project's SDSC-like generator, one week at 10-s CPU
samples; its time is reported as the load time) and then, in this process on
the same instance:

* **new**: :func:`identical_optimum`, the compiled walk that reads the traces
  only as far as the answer needs (best of ``--repeat`` after one warm-up
  call, which loads numba's cache), with its peak memory (``tracemalloc``);
* **reference**: the same greedy over the whole week, by the numpy reading
  (:class:`Pieces` of every interval, one ``cumsum``, ``searchsorted``): the
  dense pass the issue describes; the two makespans must agree;
* the verifier on the optimum's 100,000-attempt schedule, and the whole
  ``solve`` (method, schedule JSON, verification), for information.

``--cpsat`` adds the CP-SAT model on the paper's platform size (200 hosts, one
week): T in 10, 20, 40, identical 15-minute tasks (against the greedy's proven
optimum) and 5/15/35-minute mixes (against the greedy heuristic), seeds 1-3.

``--dense-days D`` (D >= 2) adds a stress case: the same hosts and up
intervals over D days, but a new CPU share on every host at every 10-s sample
(``10 %`` zeros, the rest uniform in [0.2, 1]): ``N x D x 8,640`` runs.
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np

from volsched.instances.prescient import PrescientInstance
from volsched.instances.prescient.platforms import generate_platform
from volsched.solvers.prescient import solve
from volsched.solvers.prescient.greedy import Pieces, back_to_back, identical_optimum
from volsched.solvers.prescient.verify import verify_solution


def best_of(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def reference(instance) -> float:
    """The greedy's makespan over the whole trace, by the numpy pieces (no early stop)."""
    t0 = float(instance.start)
    work = float(instance.task_minutes[0]) * 60.0
    _, _, times = back_to_back(Pieces(instance, t0, float(instance.horizon)), work)
    return float(np.partition(times, instance.n_tasks - 1)[instance.n_tasks - 1]) - t0


def peak_gb(fn) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e9


def dense(base: PrescientInstance, days: int, seed: int) -> PrescientInstance:
    n, samples = base.n_hosts, days * 8640
    rng = np.random.default_rng(seed)
    share = rng.uniform(0.2, 1.0, (n, samples))
    share[rng.random((n, samples)) < 0.1] = 0.0
    return PrescientInstance(
        clock_mhz=base.clock_mhz,
        up_start=base.up_start,
        up_end=base.up_end,
        up_ptr=base.up_ptr,
        cpu_index=np.tile(np.arange(samples, dtype=np.int64), n),
        cpu_share=share.ravel(),
        cpu_ptr=np.arange(n + 1, dtype=np.int64) * samples,
        task_minutes=base.task_minutes,
        period=base.period,
        start=base.start,
        history=base.history,
        horizon=base.horizon,
    )


def report(label: str, inst: PrescientInstance, load_s: float, repeat: int, with_reference: bool) -> None:
    identical_optimum(inst)  # warm-up: numba's cache
    new_s, best = best_of(lambda: identical_optimum(inst), repeat)
    mem = peak_gb(lambda: identical_optimum(inst))
    print(
        f"\n{label}: N = {inst.n_hosts:,}, T = {inst.n_tasks:,}, {inst.task_minutes[0]:g}-min tasks, "
        f"{inst.cpu_index.size:,} CPU runs, {inst.up_start.size:,} up intervals, "
        f"trace {inst.horizon / 86400:g} days at {inst.period:g} s"
    )
    print(f"  load (generate) {load_s:.1f} s")
    print(
        f"  optimum {best['makespan']:.3f} s from submission ({best['makespan'] / 3600:.2f} h); "
        f"traces read to {(best['horizon'] - inst.start) / 3600:.2f} h after it"
    )
    print(f"  new: {new_s:.3f} s (best of {repeat}), peak memory {mem:.3f} GB")
    if with_reference:
        ref_s, ref = best_of(lambda: reference(inst), 1)
        assert abs(ref - best["makespan"]) <= 1e-6 * max(1.0, ref), (ref, best["makespan"])
        print(
            f"  reference (whole trace, numpy pieces): {ref_s:.3f} s, same makespan; "
            f"ratio {ref_s / new_s:.1f}x"
        )
    t = time.perf_counter()
    result = solve(inst, "greedy")
    solve_s = time.perf_counter() - t
    t = time.perf_counter()
    value = verify_solution(inst, result.solution)
    verify_s = time.perf_counter() - t
    assert result.status.value == "optimal" and value == result.objective
    print(
        f"  solve (method + {inst.n_tasks:,}-attempt schedule + verifier): {solve_s:.2f} s; "
        f"verifier alone {verify_s:.2f} s"
    )


def cpsat_table(platform: str, seeds=(1, 2, 3), sizes=(10, 20, 40)) -> None:
    print(f"\nCP-SAT on {platform}, 200 hosts, one week (time limit 120 s, 2 workers):")
    print("| T | tasks | CP-SAT status | CP-SAT s | bins | candidates | greedy s | greedy / CP-SAT |")
    print("|---|---|---|---|---|---|---|---|")
    for T in sizes:
        for mixed in (False, True):
            for seed in seeds:
                inst = generate_platform(platform, 200, T, 15.0, seed)
                if mixed:
                    inst = inst.replace(task_minutes=np.resize([5.0, 15.0, 35.0], T))
                t = time.perf_counter()
                g = solve(inst, "greedy")
                g_s = time.perf_counter() - t
                t = time.perf_counter()
                c = solve(inst, "cpsat", time_limit=120.0)
                c_s = time.perf_counter() - t
                if not mixed:
                    assert abs(g.objective - c.objective) <= 1e-6 * g.objective
                print(
                    f"| {T} | {'5/15/35 min' if mixed else '15 min'} (seed {seed}) | {c.status.value} | "
                    f"{c_s:.2f} | {c.info.get('bins')} | {c.info.get('candidates')} | {g_s:.3f} | "
                    f"{g.objective / c.objective:.3f} |"
                )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--platform", default="sdsc")
    ap.add_argument("--hosts", type=int, default=10_000)
    ap.add_argument("--tasks", type=int, default=100_000)
    ap.add_argument("--minutes", type=float, default=15.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dense-days", type=int, default=0)
    ap.add_argument("--cpsat", action="store_true")
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}")
    if args.cpsat:
        cpsat_table(args.platform)
        return
    t = time.perf_counter()
    inst = generate_platform(args.platform, args.hosts, args.tasks, args.minutes, args.seed)
    report(f"{args.platform} week", inst, time.perf_counter() - t, args.repeat, True)
    if args.dense_days:
        t = time.perf_counter()
        base = generate_platform(
            args.platform, args.hosts, args.tasks, args.minutes, args.seed, days=args.dense_days
        )
        stress = dense(base, args.dense_days, args.seed)
        del base
        report(f"dense shares, {args.dense_days} days", stress, time.perf_counter() - t, args.repeat, False)


if __name__ == "__main__":
    main()
