"""Prescient heuristics' speed: one run on 200 hosts x 400 tasks, against a per-second loop.

Usage: python benchmarks/bench_prescient_heuristics.py [--hosts 200] [--tasks 400] [--minutes 15]
       [--platform sdsc] [--seeds 3] [--heuristics FCFS,PRI-CR,...] [--profile NAME]

Target, set when the family was built: one heuristic run on 200 hosts x 400 tasks under 1 s.

For each seed, a synthetic platform (``generate_platform``, 7 days of traces) and each
heuristic, in the same process on the same instance:

* ``event``: :func:`volsched.heuristics.prescient.simulate`, the event-driven server whose
  completion instants come from the instance's cumulative available work (``WorkProfile``)
  by ``searchsorted``; the time includes building the policy's platform (the previous
  weekday's statistics) and the trace profile, as a single run pays them;
* ``per-second``: the straightforward reference, ``tests/oracles/prescient/simulator.py``: the same
  server, the same policy objects, advanced one second at a time with numpy over all hosts (the host
  states and CPU shares sampled at each whole second into dense arrays, work accumulated
  second by second, every instant rounded up to the second), so its makespans differ from
  the event simulator's by the rounding, and by the decisions that rounding changes. Its
  dense arrays cover 1.5 x the event run's makespan + 10 minutes (doubled until it ends;
  only the last try is timed).

Printed per heuristic: the median seconds of each and their ratio, and the mean relative
difference of the makespans. ``--profile NAME``: cProfile of the event run of heuristic NAME.
"""

from __future__ import annotations

import argparse
import cProfile
import math
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from typing import TYPE_CHECKING

from oracles.prescient.simulator import per_second

from volsched.heuristics.prescient import HEURISTICS, NAMES, simulate

if TYPE_CHECKING:
    from volsched.instances.prescient import PrescientInstance


def make_instance(platform: str, hosts: int, tasks: int, minutes: float, seed: int) -> PrescientInstance:
    from volsched.instances.prescient.platforms import generate_platform

    return generate_platform(platform, hosts, tasks, minutes, seed)


def timed(fn, *args):
    start = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", default="sdsc")
    parser.add_argument("--hosts", type=int, default=200)
    parser.add_argument("--tasks", type=int, default=400)
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--heuristics", default=",".join(NAMES))
    parser.add_argument("--profile", default=None)
    args = parser.parse_args()
    names = args.heuristics.split(",")
    print(
        f"prescient heuristics, {args.platform}, N = {args.hosts}, T = {args.tasks}, "
        f"{args.minutes:g}-minute tasks, {args.seeds} seeds ({os.cpu_count()} cores)"
    )
    rows = {name: ([], [], []) for name in names}
    for seed in range(args.seeds):
        inst = make_instance(args.platform, args.hosts, args.tasks, args.minutes, seed)
        for name in names:
            policy = HEURISTICS[name]
            t_event, run = timed(simulate, inst, policy, np.random.default_rng(seed))
            span = int(math.ceil((run.makespan or 3 * 3600.0) * 1.5)) + 600
            t_ref, ref = timed(per_second, inst, policy, np.random.default_rng(seed), span)
            while ref is None and span < 7 * 86_400:
                span *= 2  # only the run that reached the end is timed: in the reference's favour
                t_ref, ref = timed(per_second, inst, policy, np.random.default_rng(seed), span)
            rows[name][0].append(t_event)
            rows[name][1].append(t_ref)
            if run.makespan and ref:
                rows[name][2].append(abs(ref - run.makespan) / run.makespan)
    print(f"{'heuristic':<15}{'event s':>9}{'per-second s':>14}{'ratio':>8}{'makespan diff':>15}")
    for name, (ev, ref, diff) in rows.items():
        e, r = statistics.median(ev), statistics.median(ref)
        d = f"{100 * statistics.mean(diff):.2f} %" if diff else "-"
        print(f"{name:<15}{e:>9.3f}{r:>14.3f}{r / e:>8.1f}{d:>15}")
    print(f"slowest event run: {max(max(v[0]) for v in rows.values()):.3f} s (target 1 s)")
    if args.profile:
        inst = make_instance(args.platform, args.hosts, args.tasks, args.minutes, 0)
        prof = cProfile.Profile()
        prof.enable()
        simulate(inst, HEURISTICS[args.profile], np.random.default_rng(0))
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(20)


if __name__ == "__main__":
    main()
