"""Experiment engine overhead per task: ``run_sweep`` vs. the same tasks run in one loop.

Usage: python benchmarks/bench_sweep.py [--tasks 10000] [--workers 2] [--slices 1] [--serial] [--profile]

The tasks are trivial on purpose (checkpoint, ``slices = 1``, ``seeds = N / 5``,
the exact ``dp`` and all four heuristics: N tasks in all), so what is measured
is the engine: planning, the store's one transaction per row, the ratio
linking, joblib/loky dispatch and result transfer, the progress bookkeeping.
``--slices`` makes the tasks heavier, to see when the workers start to pay.

In one process, on the same tasks, it times

1. ``run_sweep(..., workers=W)`` into a fresh store (wall time, everything included:
   this first sweep also starts the loky workers, which import volsched);
2. the same into a second fresh store, the workers already running ("warm");
3. ``run_task`` on every task in one in-process loop (the tasks' own time);
4. with ``--serial``, ``run_sweep(..., workers=1)`` into another fresh store
   (the driver's cost without any parallelism: wall - own time is pure engine);
5. a ``run_sweep`` into the finished store (the resume pass: plan and skip).

and prints the per-task figures. ``--profile`` runs the W-worker sweep once
more under cProfile (driver process only) and prints the top functions.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import tempfile
import time
from pathlib import Path

from volsched.experiments.config import parse_sweep
from volsched.experiments.runner import run_sweep
from volsched.experiments.store import Store
from volsched.experiments.tasks import build_tasks, run_task


def sweep_of(n_tasks: int, slices: int):
    seeds = max(1, n_tasks // 5)
    return parse_sweep(
        {
            "name": "bench",
            "family": "checkpoint",
            "seeds": seeds,
            "grid": {"slices": [slices]},
            "exact": {"method": "dp"},
        }
    )


def timed_sweep(sweep, store: Path, workers: int) -> tuple[float, dict]:
    begin = time.perf_counter()
    summary = run_sweep([sweep], store, workers=workers, quiet=True)
    wall = time.perf_counter() - begin
    assert summary["done"] == summary["tasks"] and summary["failed"] == 0, summary
    return wall, summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=10_000, help="number of tasks N (default 10000)")
    ap.add_argument("--workers", type=int, default=2, help="joblib workers of the timed sweep (default 2)")
    ap.add_argument("--slices", type=int, default=1, help="slices per checkpoint job (default 1: trivial)")
    ap.add_argument("--serial", action="store_true", help="also time a workers=1 sweep")
    ap.add_argument("--profile", action="store_true", help="cProfile one more W-worker sweep (driver only)")
    ap.add_argument("--top", type=int, default=25, help="functions to print with --profile")
    args = ap.parse_args()

    sweep = sweep_of(args.tasks, args.slices)
    tasks = build_tasks(sweep)
    n = len(tasks)
    print(
        f"cores: {os.cpu_count()}, tasks: {n} (checkpoint slices={args.slices}, {len(sweep.seeds)} seeds, "
        f"dp + {len(sweep.heuristics)} heuristics), workers: {args.workers}"
    )

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        wall, _summary = timed_sweep(sweep, tmp / "sweep.db", args.workers)
        warm, _ = timed_sweep(sweep, tmp / "warm.db", args.workers)

        begin = time.perf_counter()
        for task in tasks:
            row = run_task(task)
            assert row["status"] in ("optimal", "ok"), row
        own = time.perf_counter() - begin

        serial = None
        if args.serial:
            serial, _ = timed_sweep(sweep, tmp / "serial.db", 1)

        begin = time.perf_counter()
        again = run_sweep([sweep], tmp / "sweep.db", workers=args.workers, quiet=True)
        resume = time.perf_counter() - begin
        assert again["new"] == 0 and again["skipped"] == n, again

        with Store(tmp / "sweep.db") as store:
            assert len(store.rows()) == n

        ms = 1e3 / n
        ideal = own / args.workers
        print(f"sweep wall time, {args.workers} workers: {wall:8.2f} s  ({wall * ms:.3f} ms/task)")
        print(f"tasks' own time, one loop:        {own:8.2f} s  ({own * ms:.3f} ms/task)")
        print(f"  own time / workers:             {ideal:8.2f} s")
        print(f"engine overhead per task, (wall - own / workers) / N: {(wall - ideal) * ms:.3f} ms")
        print(f"difference per task, (wall - own) / N:              {(wall - own) * ms:.3f} ms")
        print(f"speed-up of the sweep over the loop: {own / wall:.2f}x")
        print(
            f"warm sweep (workers running):     {warm:8.2f} s  ({warm * ms:.3f} ms/task); "
            f"overhead per task: {(warm - ideal) * ms:.3f} ms"
        )
        if serial is not None:
            print(
                f"sweep wall time, 1 worker:        {serial:8.2f} s  ({serial * ms:.3f} ms/task); "
                f"engine per task (serial - own) / N: {(serial - own) * ms:.3f} ms"
            )
        print(f"resume pass (all {n} skipped):    {resume:8.2f} s")
        verdict = "met" if (wall - ideal) * ms < 20 else "MISSED"
        verdict_n = "met" if wall < 120 or n < 10_000 else "MISSED"
        print(
            f"targets: overhead < 20 ms/task: {verdict}; {n} tasks < 120 s on 2 cores: "
            f"{verdict_n if n >= 10_000 else 'n/a (N < 10000)'}"
        )

        if args.profile:
            profiler = cProfile.Profile()
            begin = time.perf_counter()
            profiler.enable()
            run_sweep([sweep], tmp / "profiled.db", workers=args.workers, quiet=True)
            profiler.disable()
            elapsed = time.perf_counter() - begin
            print(f"\nprofiled sweep: {elapsed:.2f} s (driver process; workers not profiled)")
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.top)
            print(out.getvalue())


if __name__ == "__main__":
    main()
