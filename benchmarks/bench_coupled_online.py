"""Coupled on-line speed: the 17 heuristics, the replay verifier, the ``casanova2013`` preset.

Usage: python benchmarks/bench_coupled_online.py [--part heuristics|replay|preset|all]
       [--realizations 4] [--cap 1500] [--long 200000] [--replay-cap 300000] [--strata 12] [--per-stratum 1]
       [--workers 2] [--profile]

All ratios are measured in one run, on the same inputs, in the same process:

1. ``heuristics``: simulated slots per second of each of the 17 heuristics on a seeded sample
   of paper realizations (``--realizations``, each run up to ``--cap`` slots), the package's
   simulator and policies against a straightforward evaluation of the same heuristic: the
   pure-Python simulator of before (``tests/oracles/coupled/online.py``) and, per decision, a
   loop over the candidates that calls the Section V estimates on one set at a time, with no
   memo of its own (:class:`Naive`). Whether the two runs agree is printed too (they may part
   where two candidates' values tie to the last bits, since sets computed alone round
   differently from sets computed in a batch). Then the package alone on two long failing runs
   (``--long`` slots each), where the memos are warm, as in most of the preset's slots.
2. ``replay``: replayed slots per second, the compiled verifier against the Python loop of
   before (the oracle copy), on long failing runs (``--replay-cap`` slots).
3. ``preset``: an estimate of the whole ``casanova2013`` preset (17 heuristics x 6,000
   realizations, cap 10^6 slots, each run verified by the replay as ``Family.simulate``
   does) from a stratified sample: ``--strata`` cells of the (m, n_com, w_min) grid spread
   over it, ``--per-stratum`` realizations each (seeded scenario and trial), every heuristic
   on each, then the preset's exact tasks (``iterations`` chain; ``full`` bounds and greedy,
   60 s limit), in ``--workers`` processes. Each cell stands for its 100 realizations and the
   unsampled cells for the grid's 60 by their nearest sampled ``w_min`` (same m and n_com).
   ``--profile``: where the time of the costliest sampled realization goes (cProfile, top 25).
"""

from __future__ import annotations

import os

# One BLAS thread per process, as joblib's workers of `volsched sweep` have (loky limits them):
# two processes on two cores with two spinning BLAS threads each measured 15 % slower here.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import cProfile
import itertools
import pstats
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from oracles.coupled.online import (
    RandomOracle,
    replay_trace_oracle,
    simulate_oracle,
)

from volsched.families import FAMILIES
from volsched.heuristics.coupled import NAMES, policy, simulate
from volsched.heuristics.coupled.passive import candidates, estimates_for
from volsched.heuristics.coupled.simulator import Configuration, Observation, Platform
from volsched.instances.coupled import PAPER_NCOM, PAPER_TASKS, PAPER_WMIN, paper_realization
from volsched.solvers.coupled.replay import replay_trace

# ---------------------------------------------------------------- the straightforward reference


class Naive:
    """A heuristic evaluated the straightforward way: each candidate set alone, nothing memoised.

    Passive H: for each of the ``m`` tasks, for each UP candidate, the set with one more task on it
    is valued by ``communication``, ``success_probability`` and ``expected_span`` on that one set;
    the best score wins (the first on ties). Proactive C-H: at every slot the fresh configuration
    is built that way and both configurations are valued by C, one set each.
    """

    def __init__(self, name: str):
        self.name = name
        self.measure, _, self.h = name.rpartition("-")
        self.proactive = bool(self.measure)

    def begin(self, platform: Platform) -> None:
        self.est = estimates_for(platform, self.name)

    def _parts(self, pf: Platform, x, needs, work):
        mask = x > 0
        comm = self.est.communication(mask[None, :], needs[None, :].astype(np.int64), pf.n_com)
        prob = float(comm.success[0] * self.est.success_probability(mask, work))
        return prob, float(comm.time[0] + self.est.expected_span(mask, work))

    def _score(self, pf: Platform, grown, program, data, elapsed):
        needs = np.where(grown > 0, pf.T_prog * ~program + np.maximum(grown * pf.T_data - data, 0), 0)
        prob, span = self._parts(pf, grown, needs, int((grown * pf.w).max()))
        if self.h == "IE":
            return -span
        if self.h == "IP":
            return prob
        score = prob / (elapsed + span) if self.h == "IY" else prob / span
        return score if np.isfinite(score) else 0.0

    def _assign(self, obs: Observation, fresh: bool):
        up = candidates(obs)
        if up is None:
            return None
        pf = obs.platform
        x = np.zeros(pf.p, dtype=np.int64)
        data = np.zeros(pf.p, dtype=np.int64) if fresh else obs.data
        order = []
        for _ in range(pf.m):
            best = best_score = None
            for q in up:
                if x[q] >= pf.mu[q]:
                    continue
                grown = x.copy()
                grown[q] += 1
                score = self._score(pf, grown, obs.program, data, obs.t - obs.iteration_start)
                if best is None or score > best_score:
                    best, best_score = int(q), score
            x[best] += 1
            order.append(best)
        return Configuration(tuple(order))

    def _value(self, pf, x, needs, remaining, elapsed):
        prob, span = self._parts(pf, x, needs, max(int(remaining), 1))
        if self.measure == "P":
            return prob
        if self.measure == "E":
            return span
        value = prob / (elapsed + span)
        return value if np.isfinite(value) else 0.0

    def decide(self, obs: Observation, rng):
        if obs.reason != "slot":
            return self._assign(obs, fresh=False)
        fresh = self._assign(obs, fresh=True)
        pf = obs.platform
        if fresh is None:
            return None
        x2 = fresh.allocation(pf.p)
        if np.array_equal(x2, obs.allocation):
            return None
        elapsed = obs.t - obs.iteration_start
        needs2 = np.where(x2 > 0, pf.T_prog * ~obs.program + x2 * pf.T_data, 0)
        c2 = self._value(pf, x2, needs2, int((x2 * pf.w).max()), elapsed)
        c = self._value(pf, obs.allocation, obs.needs, obs.workload - obs.progress, elapsed)
        return fresh if (c2 < c if self.measure == "E" else c2 > c) else None


def reference(name: str):
    return RandomOracle() if name == "RANDOM" else Naive(name)


# ---------------------------------------------------------------- 1. heuristics


def bench_heuristics(realizations: int, cap: int) -> None:
    rng = np.random.default_rng(15)
    sample = []
    for _ in range(realizations):
        m, n_com = int(rng.choice(PAPER_TASKS)), int(rng.choice(PAPER_NCOM))
        w_min, scenario, trial = (int(v) for v in rng.integers((1, 0, 0), (11, 10, 10)))
        sample.append(paper_realization(m, n_com, w_min, scenario, trial))
    print(
        f"## 1. slots per second, {realizations} paper realizations, up to {cap} slots each "
        f"({os.cpu_count()} cores)\n"
    )
    print("| heuristic | new slots/s | reference slots/s | ratio | runs equal |")
    print("|---|---:|---:|---:|---:|")
    warm = paper_realization(5, 5, 1, 0, 0, slots=200)
    for name in NAMES:  # numba loads (or compiles) its kernels once per process: not timed
        simulate(warm, policy(name), np.random.default_rng(0), cap=300)
    for name in NAMES:
        new_t = ref_t = 0.0
        new_s = ref_s = equal = 0
        for i, inst in enumerate(sample):
            t0 = time.perf_counter()
            a = simulate(inst, policy(name), np.random.default_rng(i), cap=cap)
            t1 = time.perf_counter()
            b = simulate_oracle(inst, reference(name), np.random.default_rng(i), cap=cap)
            t2 = time.perf_counter()
            new_t, ref_t = new_t + t1 - t0, ref_t + t2 - t1
            new_s, ref_s = new_s + a.slots, ref_s + b.slots
            equal += a.schedule == b.schedule
        new_rate, ref_rate = new_s / new_t, ref_s / ref_t
        print(
            f"| {name} | {new_rate:,.0f} | {ref_rate:,.0f} | {new_rate / ref_rate:.0f} "
            f"| {equal}/{len(sample)} |",
            flush=True,
        )


def bench_long(slots: int) -> None:
    """The package's simulator alone on long runs (the reference would take hours): memos warm."""
    cases = ((10, 10, 10, 1, 1), (10, 5, 10, 0, 0))
    print(
        f"\n### long runs: {slots:,} slots on the m = 10, w_min = 10 realizations {cases}, the package "
        "alone\n"
    )
    print("| heuristic | slots/s | us per slot | decisions | switches |")
    print("|---|---:|---:|---:|---:|")
    for name in NAMES:
        seconds = total = decided = switched = 0
        for case in cases:
            inst = paper_realization(*case)
            t0 = time.perf_counter()
            run = simulate(inst, policy(name), np.random.default_rng(0), cap=slots)
            seconds += time.perf_counter() - t0
            total, decided, switched = total + run.slots, decided + run.decisions, switched + run.switches
        print(
            f"| {name} | {total / seconds:,.0f} | {seconds / total * 1e6:.1f} | {decided:,} | {switched:,} |",
            flush=True,
        )


# ---------------------------------------------------------------- 2. replay


def bench_replay(cap: int) -> None:
    print(f"\n## 2. replay, failing runs of {cap} slots\n")
    print("| run | slots | new s | old s | ratio | new slots/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, case in (
        ("RANDOM", (10, 5, 10, 0, 0)),
        ("IE", (10, 20, 10, 3, 1)),
        ("P-IE", (10, 10, 9, 1, 2)),
    ):
        inst = paper_realization(*case)
        run = simulate(inst, policy(name), np.random.default_rng(0), cap=cap)
        replay_trace(inst, run.schedule)  # compile and read the realization once
        t0 = time.perf_counter()
        new = replay_trace(inst, run.schedule)
        t1 = time.perf_counter()
        old = replay_trace_oracle(inst, run.schedule)
        t2 = time.perf_counter()
        assert new.completions == old.completions
        new_s, old_s = t1 - t0, t2 - t1
        print(
            f"| {name} on {case} | {run.slots:,} | {new_s:.3f} | {old_s:.1f} | {old_s / new_s:.0f} "
            f"| {run.slots / new_s:,.0f} |",
            flush=True,
        )


# ---------------------------------------------------------------- 3. the preset


def strata(count: int) -> list[tuple[int, int, int]]:
    """``count`` cells of the (m, n_com, w_min) grid, spread over it (every m and n_com, w_min apart)."""
    grid = list(itertools.product(PAPER_TASKS, PAPER_NCOM))
    per = max(1, count // len(grid))
    picks = np.unique(np.round(np.linspace(1, 10, per)).astype(int)).tolist()
    return [(m, n_com, w) for m, n_com in grid for w in picks]


#: The preset's exact tasks per realization, as a sweep runs them (``family.solve``, its limit).
EXACT = (("iterations", "chain"), ("full", "greedy"))
EXACT_LIMIT = 60


def one_realization(job) -> list[tuple]:
    """Every heuristic on one realization, as a sweep task does (simulate, then verify by the
    replay), then the preset's exact tasks (the ``iterations`` chain, the ``full`` bounds and greedy)."""
    (m, n_com, w_min), scenario, trial = job
    family = FAMILIES["coupled"]
    inst = paper_realization(m, n_com, w_min, scenario, trial)
    out = []
    for problem, method in EXACT:
        t0 = time.perf_counter()
        result = family.solve(inst, problem=problem, method=method, time_limit=EXACT_LIMIT, seed=0)
        t1 = time.perf_counter()
        out.append((m, n_com, w_min, problem, t1 - t0, result.status.value, 0))
    for name in NAMES:
        t0 = time.perf_counter()
        result = family.simulate(inst, name, 0)
        t1 = time.perf_counter()
        slots = int(result["objective"]) if result["status"] == "feasible" else 10**6
        out.append((m, n_com, w_min, name, t1 - t0, result["status"], slots))
    return out


def bench_preset(count: int, per: int, workers: int, profile: bool) -> None:
    cells = strata(count)
    rng = np.random.default_rng(2013)
    jobs = [(cell, int(rng.integers(10)), int(rng.integers(10))) for cell in cells for _ in range(per)]
    print(
        f"\n## 3. casanova2013 estimate: {len(cells)} strata x {per} realization(s), 17 heuristics, "
        f"cap 10^6, {workers} workers\n",
        flush=True,
    )
    t0 = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        rows = [row for part in pool.map(one_realization, jobs) for row in part]
    wall = time.perf_counter() - t0
    exact = tuple(problem for problem, _ in EXACT)
    per_cell = defaultdict(float)
    per_cell_exact = defaultdict(float)
    per_name = defaultdict(float)
    outcomes = defaultdict(lambda: defaultdict(int))
    for m, n_com, w_min, name, seconds, status, _ in rows:
        (per_cell_exact if name in exact else per_cell)[(m, n_com, w_min)] += seconds / per
        per_name[name] += seconds
        outcomes[name][status] += 1
    sampled_w = sorted({w for _, _, w in per_cell})
    total = total_exact = 0.0
    for m, n_com, w in itertools.product(PAPER_TASKS, PAPER_NCOM, PAPER_WMIN):
        nearest = (m, n_com, min(sampled_w, key=lambda v: (abs(v - w), v)))
        total += 100 * per_cell[nearest]
        total_exact += 100 * per_cell_exact[nearest]
    runs = [row for row in rows if row[3] not in exact]
    seconds = sum(row[4] for row in runs)
    slots = sum(row[6] for row in runs)
    print(
        f"sample: {len(runs)} runs, {slots:,} slots, {seconds:.0f} s of runs "
        f"({slots / seconds:,.0f} slots/s with the replay), "
        f"{sum(per_name[e] for e in exact):.0f} s of exact tasks, wall {wall:.0f} s\n"
    )
    print("| task | s in the sample | outcomes |")
    print("|---|---:|---|")
    for name in (*NAMES, *exact):
        told = ", ".join(f"{k} {v}" for k, v in sorted(outcomes[name].items()))
        print(f"| {name} | {per_name[name]:.1f} | {told} |")
    print("\n| stratum (m, n_com, w_min) | s per realization (17 runs) | s of exact tasks |")
    print("|---|---:|---:|")
    for cell in sorted(per_cell):
        print(f"| {cell} | {per_cell[cell]:.1f} | {per_cell_exact[cell]:.1f} |")
    print(
        f"\nestimate for the preset's heuristics: {total / 3600:.1f} h of runs, "
        f"{total / workers / 3600:.2f} h on {workers} workers (target 0.5 h)"
    )
    print(
        f"estimate for its exact tasks ({', '.join(exact)}; limit {EXACT_LIMIT} s): "
        f"{total_exact / 3600:.1f} h, {total_exact / workers / 3600:.2f} h on {workers} workers; "
        f"the whole preset {(total + total_exact) / workers / 3600:.2f} h on {workers} workers"
    )
    if profile:
        # The costliest realization of the sample again, in this process, under cProfile (which
        # slows the Python parts, not the compiled ones).
        costliest = max(jobs, key=lambda job: per_cell[job[0]])
        print(f"\nprofile of the 17 runs on {costliest} (cProfile, top 25 by own time):\n")
        prof = cProfile.Profile()
        prof.enable()
        one_realization(costliest)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="all", choices=["heuristics", "replay", "preset", "all"])
    parser.add_argument("--realizations", type=int, default=4)
    parser.add_argument("--cap", type=int, default=1500)
    parser.add_argument("--long", type=int, default=200_000)
    parser.add_argument("--replay-cap", type=int, default=300_000)
    parser.add_argument("--strata", type=int, default=12)
    parser.add_argument("--per-stratum", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.part in ("heuristics", "all"):
        bench_heuristics(args.realizations, args.cap)
        bench_long(args.long)
    if args.part in ("replay", "all"):
        bench_replay(args.replay_cap)
    if args.part in ("preset", "all"):
        bench_preset(args.strata, args.per_stratum, args.workers, args.profile)


if __name__ == "__main__":
    main()
