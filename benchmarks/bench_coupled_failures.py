"""Where the heuristics fail, against what the off-line reference proves (Section VII-B).

The paper (Section VII-B) reports IE failing 1 and 81 times out of 3,000 at m = 5 and m = 10, and
"whenever heuristic IE fails, all the other heuristics also fail". A run fails when its makespan
reaches the cap (10^6 slots). For each realization where IE fails, this asks the realization's
off-line reference (the ``iterations`` and ``full`` rows of the same store): is no schedule
within the cap possible at all (the best proven lower bound exceeds the cap), does some
schedule exist (the ``full`` greedy's or another heuristic's), or is it open? It reads the rows
of a ``casanova2013`` store and simulates nothing.

    python benchmarks/bench_coupled_failures.py c13m10.db --tasks 10
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict

from volsched.experiments.store import Store
from volsched.families.coupled.tables import PRESET, REFERENCE, offline_reference

CAP = 1_000_000.0
SCENARIO = ("n_com", "w_min", "scenario")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--tasks", type=int, default=10, help="m (default 10)")
    args = parser.parse_args()
    rows = [
        r
        for r in Store(args.store, create=False).rows()
        if r["params"].get("preset") == PRESET and r["params"]["tasks"] == args.tasks
    ]
    refs = offline_reference(rows)
    runs: dict[str, dict[str, float | None]] = defaultdict(dict)
    cell = {}
    for r in rows:
        if r["kind"] == "heuristic":
            runs[r["instance_key"]][r["method"]] = r["objective"]
            cell[r["instance_key"]] = tuple(r["params"][k] for k in SCENARIO)
    names = sorted({n for by in runs.values() for n in by})
    complete = {k: by for k, by in runs.items() if len(by) == len(names)}
    failed = [k for k, by in complete.items() if by[REFERENCE] is None]
    print(
        f"m = {args.tasks}: {len(complete)} realizations with all {len(names)} heuristics stored; "
        f"{REFERENCE} fails on {len(failed)}\n"
    )
    kinds = Counter()
    rescued = Counter()
    for k in failed:
        others = [n for n, v in complete[k].items() if v is not None]
        rescued.update(others)
        lower = refs[k]["lower"]
        if lower is not None and lower > CAP:
            kinds["no schedule fits in the cap (lower bound > 10^6)"] += 1
        elif others:
            kinds["another heuristic finishes"] += 1
        elif refs[k]["best"] is not None:
            kinds["only the full greedy finds a schedule"] += 1
        else:
            kinds["open (no schedule found, lower bound <= 10^6)"] += 1
    print("| where IE fails | realizations |\n|---|---:|")
    for kind, n in kinds.most_common():
        print(f"| {kind} | {n} |")
    print("\n| heuristic | finishes where IE fails | fails where IE finishes |\n|---|---:|---:|")
    for name in names:
        worse = sum(1 for by in complete.values() if by[REFERENCE] is not None and by[name] is None)
        print(f"| {name} | {rescued[name]} | {worse} |")
    bare = [k for k in complete if refs[k]["best"] is None]
    print(
        f"\nWithout an upper bound: {len(bare)} realizations; with a finished run among them: "
        f"{sum(1 for k in bare if any(v is not None for v in complete[k].values()))}; with a lower "
        f"bound above the cap: {sum(1 for k in bare if (refs[k]['lower'] or 0) > CAP)}"
    )
    scenarios = Counter(cell[k] for k in failed)
    print(
        f"\n{REFERENCE}'s failures fall in {len(scenarios)} scenarios (n_com, w_min, scenario); "
        f"{sum(n for n in scenarios.values() if n >= 5)} of them in the "
        f"{sum(1 for n in scenarios.values() if n >= 5)} scenarios where it fails on 5 or more of "
        "the 10 trials. Per w_min:",
        dict(sorted(Counter(w for _, w, _ in (cell[k] for k in failed)).items())),
    )


if __name__ == "__main__":
    main()
