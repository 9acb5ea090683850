"""Tables I and II with failed runs counted at the cap, beside volsched's both-finished rule (Section VII-B).

volsched's %diff compares a heuristic with IE only on the trials where both finished (the
paper: "assuming that heuristic H succeeds"). The other reading counts a failed run at the cap,
10^6 slots. A stdv of 5.5-6.6, as the paper's P-H and Y-H (H in IP, IY, IAY) have in Table I,
needs scenarios many times slower than IE; this measures whether counting failures at the cap
makes them. A third reading pairs nothing: per scenario, H's mean over the trials H finished
against IE's mean over the trials IE finished. No run is simulated: the rows of a
``casanova2013`` store are read.

    python benchmarks/bench_coupled_failure_treatment.py c13.db
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

from volsched.experiments.report import relative_difference, scenario_differences, scenario_of
from volsched.experiments.store import Store
from volsched.families.coupled.tables import REFERENCE, tables

CAP = 1_000_000.0


def unpaired(rows: list[dict], m: int, name: str) -> tuple[float, float]:
    """%diff and stdv of ``name`` against IE from each one's mean over its own finished trials."""
    means: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if (
            r["kind"] == "heuristic"
            and r["params"].get("tasks") == m
            and r["objective"] is not None
            and r["method"] in (name, REFERENCE)
        ):
            means[scenario_of(r["params"])][r["method"]].append(r["objective"])
    d = np.array(
        [
            relative_difference(float(np.mean(by[name])), float(np.mean(by[REFERENCE])), "min")
            for by in means.values()
            if by[name] and by[REFERENCE]
        ]
    )
    return 100 * d.mean(), d.std()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    args = parser.parse_args()
    rows = Store(args.store, create=False).rows()
    base = tables(rows)
    capped = tables(
        [{**r, "objective": CAP} if r["kind"] == "heuristic" and r["objective"] is None else r for r in rows]
    )
    for m, table in capped.items():
        stored = {t["heuristic"]: t for t in base[m]}
        print(f"\nm = {m}\n")
        print(
            "| heuristic | #fails | %diff, both finished | stdv | largest scenario | %diff, fails at the "
            "cap | stdv | %wins, fails at the cap | %diff, unpaired means | stdv |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        of_m = [r for r in rows if r["params"].get("tasks") == m]
        for t in table:
            s = stored[t["heuristic"]]
            diff, stdv = unpaired(rows, m, t["heuristic"])
            worst = max(d for _, d in scenario_differences(of_m, "coupled", t["heuristic"], REFERENCE)[0])
            print(
                f"| {t['heuristic']} | {s['fails']} | {s['pct_diff']:.2f} | {s['stdv']:.2f} "
                f"| {100 * worst:.0f} | {t['pct_diff']:.2f} | {t['stdv']:.2f} | {t['pct_wins']:.2f} "
                f"| {diff:.2f} | {stdv:.2f} |"
            )


if __name__ == "__main__":
    main()
