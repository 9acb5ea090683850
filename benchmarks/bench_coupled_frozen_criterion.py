"""Proactive C-H without the progress update, on the paper's m = 5 realizations (Section VI-B, Table I).

Table I's P-H and Y-H for H in IP, IY, IAY rank last in the paper (+100 % to +177 % against
IE, stdv 5.5-6.6) and lie near IE in volsched (-9 % to +8 %, stdv at most 0.45). Section VI-B
says the current configuration's value "should be updated to account for the progress between
t' and t"; volsched does so (:mod:`volsched.heuristics.coupled.proactive`, "Progress"). This
benchmark measures the other possibility, that the paper's code did not: ``c`` stays the value
the configuration had at its first slot, while the fresh configuration is valued as usual. Same
realizations, same simulator (decisions in Python), each run checked by the replay verifier.

    python benchmarks/bench_coupled_frozen_criterion.py --store c13.db --scenarios 12

``--store`` is a store of the ``casanova2013`` preset's m = 5 half (``benchmarks/casanova2013-m5.toml``):
it gives IE's makespans and the stored (progress-updated) runs, which the variant is set beside.
Whole scenarios (all 10 trials) are drawn, so that %diff is the paper's per-scenario one.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from coupled_m5_store import diff, stored, verified_run
from tqdm import tqdm

from volsched.heuristics.coupled.proactive import Proactive
from volsched.heuristics.coupled.simulator import Hold

NAMES = ("P-IP", "Y-IP", "P-IAY", "P-IE", "Y-IE")


class Frozen(Proactive):
    """C-H whose current value ``c`` is frozen at the configuration's first slot.

    Only for H in IP, IE, IAY (IY reads ``t``). With ``c`` frozen, ``c_2`` the same for the same
    UP workers and holders of the program (P, E), or only worse as ``t`` grows (Y), a "keep" stays
    a "keep" while those are the same: the promise is that of every C.
    """

    def __init__(self, measure_name: str, criterion: str):
        if criterion == "IY":
            raise ValueError("the frozen variant is for H in IP, IE, IAY")
        super().__init__(measure_name, criterion)
        self.name += "-frozen"
        self._frozen: float | None = None

    def begin(self, platform) -> None:
        super().begin(platform)
        self._rule = None
        self._frozen = None

    def decide(self, observation, rng):
        if observation.reason != "slot":
            self._frozen = None
        elif self._frozen is None and observation.allocation.any():
            self._frozen = super()._current(observation, observation.t - observation.iteration_start)
        choice = super().decide(observation, rng)
        if choice is not None:
            self._frozen = None
        return choice

    def _current(self, observation, elapsed: int) -> float:
        return self._frozen

    def _promise(self, observation, up, current, fresh_value) -> Hold:
        return Hold(up, observation.program)


def run(case: tuple, name: str) -> int | None:
    return verified_run(case, Frozen(*name.split("-")))


def scenario_diffs(rows: dict, made: dict, scenarios: list, name: str, frozen: bool) -> list[float]:
    """Per scenario: (mean H - mean IE) / min over the trials where both finished (as in Table I)."""
    out = []
    for s in scenarios:
        pairs = []
        for trial in range(10):
            case = (*s, trial)
            h = made[case, name] if frozen else rows[case].get(name)
            ie = rows[case].get("IE")
            if h is not None and ie is not None:
                pairs.append((h, ie))
        if pairs:
            out.append(diff(np.mean([p[0] for p in pairs]), np.mean([p[1] for p in pairs])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument(
        "--scenarios", type=int, default=12, help="scenarios drawn (seed 2013), 10 trials each"
    )
    parser.add_argument("--names", default=",".join(NAMES))
    args = parser.parse_args()
    names = args.names.split(",")
    rows = stored(args.store)
    everything = sorted({case[:3] for case in rows})
    rng = np.random.default_rng(2013)
    scenarios = [everything[i] for i in sorted(rng.choice(len(everything), args.scenarios, replace=False))]
    cases = [(*s, trial) for s in scenarios for trial in range(10)]
    begin = time.perf_counter()
    made = {}
    for name in names:
        for case in tqdm(cases, desc=f"{name}-frozen", unit="run"):
            made[case, name] = run(case, name)
    print(
        f"{len(made)} runs in {time.perf_counter() - begin:.0f} s on {len(scenarios)} scenarios: "
        f"{', '.join(map(str, scenarios))}\n"
    )
    print(
        "| heuristic | fails, stored | fails, frozen | %diff vs IE, stored | frozen "
        "| stdv, stored | frozen | largest scenario %diff, stored | frozen |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        a = np.asarray(scenario_diffs(rows, made, scenarios, name, False))
        b = np.asarray(scenario_diffs(rows, made, scenarios, name, True))
        print(
            f"| {name} | {sum(rows[c].get(name) is None for c in cases)} "
            f"| {sum(made[c, name] is None for c in cases)} | {100 * a.mean():.1f} | {100 * b.mean():.1f} "
            f"| {a.std():.2f} | {b.std():.2f} | {100 * a.max():.0f} | {100 * b.max():.0f} |"
        )


if __name__ == "__main__":
    main()
