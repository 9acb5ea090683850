"""Exact slack solver's speed on the 80 Falkenauer-T-derived 3-PARTITION instances (Theorem 1).

Usage: python benchmarks/bench_slack_exact.py [--data ../shared/data/falkenauer_t] [--only t60,t501]
       [--time-limit 60] [--reference 3] [--reference-limit 30] [--profile FILE]

Each BPPLIB file is read as 3-PARTITION with every weight + 1 and ``B = 1003``
(the data README) and reduced as in Theorem 1, completed (slack.md 4.3:
``three_partition_from_file``): the optimum at ``beta = 1`` is the target
``3B + 2 + u`` exactly on YES instances, and every Falkenauer T file is one.
The target is every instance proven optimal, each in under 60 s (``optimal``
and the objective equal to the target). The runtime is ``finish``'s, the
verifier included.

``--reference N`` also runs, on the first ``N`` t60 files, the same CP-SAT
search with the pattern enumeration switched off (every class falls back to
the per-bin count model, the item-by-bin style model of DESIGN.md's pitfall),
time-limited by ``--reference-limit``, and prints the ratio reference / pattern
on those files in this run (a lower bound when the reference hits its limit).
``--profile FILE`` runs the slowest instance again under cProfile.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
from pathlib import Path

from volsched.instances.slack.generators import three_partition_from_file
from volsched.solvers.slack import cpsat_patterns, solve

TARGET_SECONDS = 60.0


def run(path: Path, time_limit: float) -> tuple[str, float, float, bool]:
    inst = three_partition_from_file(path, shift=1)
    result = solve(inst, method="cpsat", problem="slack", time_limit=time_limit)
    hit = result.objective is not None and int(result.objective) == int(inst.target)
    return result.status.value, result.runtime_s, result.objective, hit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared/data/falkenauer_t"))
    ap.add_argument("--only", default="t60,t120,t249,t501")
    ap.add_argument("--time-limit", type=float, default=TARGET_SECONDS)
    ap.add_argument("--reference", type=int, default=0)
    ap.add_argument("--reference-limit", type=float, default=30.0)
    ap.add_argument("--profile", default=None)
    args = ap.parse_args()
    files = sorted(
        p for p in Path(args.data).glob("Falkenauer_*.txt") if p.stem.split("_")[1] in args.only.split(",")
    )
    print(f"cores: {os.cpu_count()}; files: {len(files)}; time limit {args.time_limit:g} s; CP-SAT workers 2")
    rows = []
    for path in files:
        status, runtime, objective, hit = run(path, args.time_limit)
        rows.append((path.stem, status, runtime, hit))
        print(
            f"{path.stem:24s} {status:9s} {runtime:7.2f} s  objective {objective:g}  at target: {hit}",
            flush=True,
        )
    by_class: dict[str, list] = {}
    for stem, status, runtime, hit in rows:
        by_class.setdefault(stem.split("_")[1], []).append((status, runtime, hit))
    print("\nclass  proven-at-target  median s  max s")
    for cls, vals in sorted(by_class.items(), key=lambda kv: int(kv[0][1:])):
        ok = sum(1 for s, r, h in vals if s == "optimal" and h and r < TARGET_SECONDS)
        times = [r for _, r, _ in vals]
        print(
            f"{cls:6s} {ok:3d} / {len(vals):<3d}         {statistics.median(times):7.2f}  {max(times):6.2f}"
        )
    ok = sum(1 for _, s, r, h in rows if s == "optimal" and h and r < TARGET_SECONDS)
    print(
        f"all: {ok} / {len(rows)} proven optimal at the target in under {TARGET_SECONDS:g} s; "
        f"total {sum(r for _, _, r, _ in rows):.1f} s"
    )
    if args.reference:
        t60 = [p for p in files if "_t60_" in p.name][: args.reference]
        print(
            f"\nreference (count model, no patterns, limit {args.reference_limit:g} s) "
            f"on {len(t60)} t60 files"
        )
        mine = {stem: r for stem, _, r, _ in rows}
        saved = cpsat_patterns.MAX_NODES
        cpsat_patterns.MAX_NODES = 0
        try:
            total_ref = total_new = 0.0
            for path in t60:
                status, runtime, objective, hit = run(path, args.reference_limit)
                new = mine.get(path.stem) or run(path, args.time_limit)[1]
                total_ref += runtime
                total_new += new
                print(
                    f"{path.stem:24s} reference {status:9s} {runtime:7.2f} s  patterns {new:6.2f} s  "
                    f"ratio {runtime / new:8.1f}{'+' if status != 'optimal' else ''}"
                )
            print(f"ratio reference / patterns over these files: {total_ref / total_new:.1f}")
        finally:
            cpsat_patterns.MAX_NODES = saved
    if args.profile:
        slowest = max(rows, key=lambda r: r[2])[0]
        path = next(p for p in files if p.stem == slowest)
        prof = cProfile.Profile()
        prof.enable()
        run(path, args.time_limit)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(25)
        Path(args.profile).write_text(out.getvalue())
        print(f"profile of {slowest} written to {args.profile}")
    sys.exit(0 if ok == len(rows) else 1)


if __name__ == "__main__":
    main()
