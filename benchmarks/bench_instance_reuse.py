"""A worker building an instance once for its consecutive tasks, against a build per task.

Usage: python benchmarks/bench_instance_reuse.py [--preset kondo2007] [--instances 20]

Takes the first ``--instances`` instances of the preset in the order a sweep runs them
(:func:`volsched.experiments.runner.run_order`) and, in one process, runs every task of each
instance twice with :func:`volsched.experiments.tasks.run_task`: once as a worker does (the
instance built by the first task and reused by the next ones), once with a fresh build for each
task (the reuse cleared before every task). The two runs alternate instance by instance, so a
change of load hits both. It prints the tasks' mean time each way and their ratio, and checks
that the rows are the same but for the clock.
"""

from __future__ import annotations

import argparse
import time

import volsched.experiments.tasks as tasks_mod
from volsched.experiments.config import parse_config
from volsched.experiments.presets import preset
from volsched.experiments.runner import run_order
from volsched.experiments.tasks import build_tasks, run_task

CLOCK = ("runtime_s", "timestamp", "host")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="kondo2007")
    ap.add_argument("--instances", type=int, default=20)
    a = ap.parse_args()
    todo = run_order([t for s in parse_config({"sweep": preset(a.preset)}) for t in build_tasks(s)])
    groups: dict[str, list[dict]] = {}
    for t in todo:
        groups.setdefault(t["instance_key"], []).append(t)
    keys = list(groups)[: a.instances]
    run_task(todo[0])  # imports and compiled kernels outside the timing
    seconds = {"reused": 0.0, "built per task": 0.0}
    count = 0
    for key in keys:
        group = groups[key]
        count += len(group)
        tasks_mod._last_built = None
        begin = time.perf_counter()
        reused = [run_task(t) for t in group]
        seconds["reused"] += time.perf_counter() - begin
        begin = time.perf_counter()
        fresh = []
        for t in group:
            tasks_mod._last_built = None
            fresh.append(run_task(t))
        seconds["built per task"] += time.perf_counter() - begin
        same = [{k: v for k, v in r.items() if k not in CLOCK} for r in reused] == [
            {k: v for k, v in r.items() if k not in CLOCK} for r in fresh
        ]
        assert same, f"rows differ on instance {key}"
    for way, s in seconds.items():
        print(f"{a.preset}, {len(keys)} instances, {count} tasks: {way}: {1000 * s / count:.1f} ms a task")
    ratio = seconds["built per task"] / seconds["reused"]
    print(f"ratio (built per task / reused): {ratio:.2f}; rows identical")


if __name__ == "__main__":
    main()
