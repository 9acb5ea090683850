"""``volsched demo`` end to end: one JSON object, every artefact written, ratios sound."""

import json
import math

import pytest
from oracles.figures import fits_a_page

from volsched.instances.checkpoint import CheckpointInstance
from volsched.instances.io import read_json


@pytest.fixture
def demo(demo_run):
    """The demo run the tests share (tests/conftest.py): its folder and the JSON object it printed."""
    return demo_run


def test_demo_writes_instances_results_and_plots(demo):
    out, printed = demo
    summary = json.loads(printed)
    files = set(summary["files"])
    assert {"results.json", "checkpoint-ratios.png", "bot/table.md", "bot/rows.json"} <= files
    assert any(f.startswith("bot/figure-") and f.endswith(".png") for f in files)
    for name in files:
        assert (out / name).stat().st_size > 0
    assert (out / "checkpoint-ratios.png").read_bytes()[:4] == b"\x89PNG"

    results = read_json(out / "results.json")["checkpoint"]
    for report in results["reports"]:
        instance = CheckpointInstance.from_json(read_json(out / "instances" / f"{report['instance']}.json"))
        # The optimum printed is the independent verifier's value; the model agrees to rounding.
        assert math.isclose(
            instance.expected_waste(report["optimal_solution"]["a"]), report["optimum"], rel_tol=1e-9
        )
        for policy in report["policies"].values():
            assert policy["ratio"] >= 1.0
            assert instance.expected_waste(policy["solution"]["a"]) >= report["optimum"] * (1 - 1e-9)
    spread = max(results["agreement"].values()) - min(results["agreement"].values())
    assert spread <= 1e-9 * max(results["agreement"].values())
    assert {row["policy"] for row in results["bot"]} == {"optimal", "periodic", "periodic-printed", "none"}
    assert all(row["stop"] == "complete" for row in results["bot"])


def test_demo_scores_the_slack_and_prescient_heuristics_against_proven_optima(demo):
    out, _ = demo
    results = read_json(out / "results.json")
    slack = results["slack"]["rows"]
    assert {r["beta"] for r in slack} == {0.0, 0.5, 1.0}
    for row in slack:
        for name, policy in row["policies"].items():
            assert row["optima"][policy["problem"]]["proven"], (row["instance"], name)
            assert policy["ratio"] >= 1.0 and policy["stability"] >= 1.0
        if row["beta"] == 1.0:  # Proposition 1: a GAPS schedule at beta = 1 absorbs every disturbance
            assert row["policies"]["gaps"]["stability"] == 1.0
    prescient = results["prescient"]["reports"]
    assert len(prescient) == 2
    for report in prescient:
        assert report["optima"]["makespan"]["proven"]
        for name, policy in report["policies"].items():
            assert policy["ratio"] >= 1.0 and policy["waste"] >= 0.0, name
            assert math.isclose(policy["ratio"], policy["value"] / report["optimum"], rel_tol=1e-9)


def test_the_demo_draws_a_figure_per_family_a_page_wide(demo):
    """Here rather than in test_plots.py, so that pytest-xdist's file groups run the demo once."""
    out, _ = demo
    families = json.loads((out / "results.json").read_text())
    pngs = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.png"))
    top = [p for p in pngs if "/" not in p]
    assert sorted({p.split("-")[0] for p in top}) == sorted(families)
    assert len(top) == len(families)
    for p in pngs:
        fits_a_page(out / p)
