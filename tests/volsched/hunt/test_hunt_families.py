"""Each family's hunt beats the worst of 100 random instances of its size, and its archive re-checks.

The random instances are drawn here, from another seed than the hunt's, and scored by
:func:`volsched.evaluate.evaluate` with the heuristic's default simulator (not the hunt's scorer).
The archived worst instance is re-checked through the command line from its files alone:
``volsched verify`` on its optimum and its run, ``volsched evaluate`` for the same ratio.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from oracles.cli import one_json, run

from volsched.evaluate import evaluate
from volsched.families import FAMILIES
from volsched.hunt import space_for
from volsched.hunt.driver import HUNT_METHOD

#: (family, heuristic, bounds, hunt budget, seed): small spaces, so that 100 random instances and
#: the hunt stay within seconds.
CASES = [
    ("slack", "list", {"machines": 3, "jobs": 7, "p_max": 20}, 500, 0),
    ("slack", "lpt", {"machines": 3, "jobs": 7, "p_max": 20}, 400, 0),
    ("checkpoint", "daly", {}, 300, 0),
    ("checkpoint", "young", {}, 300, 0),
    ("coupled", "IE", {"processors": 5, "slots": 40}, 600, 0),
    ("prescient", "FCFS", {"hosts": 5, "tasks": 8}, 400, 0),
]


def random_worst(family: str, heuristic: str, bounds: dict, n: int = 100, seed: int = 12345) -> float:
    space = space_for(family, bounds, heuristic)
    fam = FAMILIES[family]
    problem = fam.heuristics[heuristic].problem
    worst = 0.0
    for i in range(n):
        instance = space.build(space.random(np.random.default_rng([seed, i])), f"random-{i}")
        report = evaluate(fam, instance, [heuristic], method=HUNT_METHOD.get(family, {}).get(problem))
        # An unproven optimum counts with its ratio's upper end: the baseline is not understated.
        worst = max(worst, report["policies"][heuristic]["ratio_hi"])
    return worst


@pytest.mark.parametrize(
    ("family", "heuristic", "bounds", "budget", "seed"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_hunt_beats_random_and_rechecks(tmp_path, capsys, family, heuristic, bounds, budget, seed):
    out = tmp_path / "archive"
    argv = [
        "hunt",
        family,
        "--heuristic",
        heuristic,
        "--budget",
        budget,
        "--seed",
        seed,
        "--out",
        out,
        "--json",
    ]
    for k, v in bounds.items():
        argv += ["--bound", f"{k}={v}"]
    code, stdout, _ = run(capsys, *argv)
    assert code == 0
    summary = one_json(stdout)
    assert summary["best_ratio"] > random_worst(family, heuristic, bounds)
    assert summary["random_worst_ratio"] <= summary["best_ratio"]

    instance = summary["instance"]
    row = summary["archive"][0]
    assert row["instance"] == instance
    for certificate in (row["certificate"], row["run"]):
        code, stdout, err = run(capsys, "verify", instance, certificate, "--json")
        assert code == 0, err
        assert one_json(stdout)["feasible"]
    budget_args = [] if summary["solve_budget"] is None else ["--budget", summary["solve_budget"]]
    budget_args += [] if summary["method"] is None else ["--method", summary["method"]]
    code, stdout, err = run(capsys, "evaluate", instance, "--heuristics", heuristic, "--json", *budget_args)
    assert code == 0, err
    policy = one_json(stdout)["policies"][heuristic]
    # The same computation on the same file: equal to the last bit.
    assert policy["ratio_lo"] == summary["best_ratio"]
    if row["status"] == "optimal":
        assert policy["ratio"] == summary["best_ratio"]
    else:  # a proven lower bound on the ratio, below its upper end
        assert policy["ratio"] is None and policy["ratio_hi"] >= policy["ratio_lo"]

    saved = json.loads((out / "hunt.json").read_text())
    assert saved["best_ratio"] == summary["best_ratio"]
    assert saved["bounds"] == {**space_for(family, {}).describe(), **bounds}
