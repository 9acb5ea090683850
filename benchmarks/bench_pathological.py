"""The named pathological generators against the family's ordinary random instances of the same size.

Usage: python benchmarks/bench_pathological.py [--seeds K]

For each preset (``volsched generate FAMILY --preset NAME``, instances/pathological.py) it prints
the heuristic's proven ratio lower end (``volsched evaluate``'s ``ratio_lo``) on the construction
and the worst over 20 random instances of the same size from the family's ordinary generator:

* slack ``graham-lpt`` (m = 3), ``graham-list`` (m = 3): ``paper`` with every machine free;
  ``gaps-intervals`` (q = 3, h = 4, beta = 1): ``paper`` with 2q + 1 machines, one free, 3q + 1 jobs;
* checkpoint ``heavy-tail``: the paper's jobs of 10 slices;
* coupled ``fastest-unreliable``: ``paper_realization(5, 5, 2, seed, 0, 0, 500)``, greedy exact
  method under a budget of 100,000 rollouts;
* prescient ``volatile-fast`` (40 hosts, 20 tasks of 15 min, ucb-lri-n06): ``platform``.

With ``--seeds K``, the seeded constructions (coupled, prescient) are also drawn at seeds
``0..K-1``, each against its own 20 random instances (seeds ``20 s .. 20 s + 19``), and the
table gives the range over seeds and in how many the construction is the worse.
"""

from __future__ import annotations

import argparse
import statistics

from volsched.evaluate import evaluate
from volsched.families import FAMILIES
from volsched.instances import pathological as P
from volsched.instances.checkpoint import generate as checkpoint_paper
from volsched.instances.coupled import paper_realization
from volsched.instances.prescient.platforms import generate_platform
from volsched.instances.slack.generators import generate_paper

RANDOM = 20
COUPLED = {"method": "greedy", "budget": 100_000}


def ratio(family: str, instance, heuristic: str, **kw) -> float:
    fam = FAMILIES[family]
    h = fam.heuristic(heuristic)
    return evaluate(fam, instance, [h], seed=0, **kw)["policies"][h.name]["ratio_lo"]


def rows():
    """(family, preset, heuristic, construction at seed s, random at seed s, evaluate's options, seeded)."""
    q, g = 3, lambda s: generate_paper(7, 10, s, 1 / 7, 10.0, 1.0)  # 2q + 1 machines, 3q + 1 jobs
    yield (
        "slack",
        "graham-lpt",
        "lpt",
        lambda s: P.graham_lpt(3),
        lambda s: generate_paper(3, 7, s, 1.0, 10.0, 0.0),
        {},
        False,
    )
    yield (
        "slack",
        "graham-list",
        "list",
        lambda s: P.graham_list(3),
        lambda s: generate_paper(3, 7, s, 1.0, 10.0, 0.0),
        {},
        False,
    )
    yield ("slack", "gaps-intervals", "gaps", lambda s: P.gaps_intervals(q, 4, 1.0), g, {}, False)
    yield (
        "checkpoint",
        "heavy-tail",
        "daly",
        lambda s: P.heavy_tail(),
        lambda s: checkpoint_paper(10, s),
        {},
        False,
    )
    yield (
        "coupled",
        "fastest-unreliable",
        "IE",
        lambda s: P.fastest_unreliable(seed=s),
        lambda s: paper_realization(5, 5, 2, s, 0, 0, 500),
        COUPLED,
        True,
    )
    yield (
        "prescient",
        "volatile-fast",
        "EXCL-PRED-TO",
        lambda s: P.volatile_fast(seed=s),
        lambda s: generate_platform("ucb-lri-n06", 40, 20, 15.0, s),
        {},
        True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1, help="seeds of the seeded constructions")
    args = ap.parse_args()
    print("| family | preset | heuristic | construction | worst of 20 random | seeds: construction worse |")
    print("|---|---|---|---|---|---|")
    for family, preset, heuristic, make, rand, kw, seeded in rows():
        made, worst = [], []
        for s in range(args.seeds if seeded else 1):
            made.append(ratio(family, make(s), heuristic, **kw))
            seeds = range(RANDOM * s, RANDOM * (s + 1))
            worst.append(max(ratio(family, rand(r), heuristic, **kw) for r in seeds))
        wins = sum(m > w for m, w in zip(made, worst, strict=True))
        if len(made) == 1:
            cells = f"{made[0]:.3f} | {worst[0]:.3f} | {wins}/1"
        else:
            cells = (
                f"{made[0]:.3f} (seeds: {min(made):.2f}-{max(made):.2f}, "
                f"median {statistics.median(made):.2f}) | "
                f"{worst[0]:.3f} ({min(worst):.2f}-{max(worst):.2f}) | {wins}/{len(made)}"
            )
        print(f"| {family} | `{preset}` | {heuristic} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
