"""The prescient family through ``solve``, ``verify``, ``evaluate`` and ``export simgrid``."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.instances.io import read_json
from volsched.instances.prescient import PrescientInstance
from volsched.solvers.prescient.verify import verify_solution


@pytest.fixture(scope="module")
def instance_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("prescient") / "p.json"
    from volsched.cli import main

    assert (
        main(
            [
                "generate",
                "prescient",
                "--platform",
                "sdsc",
                "--hosts",
                "12",
                "--tasks",
                "30",
                "--task-minutes",
                "15",
                "--seed",
                "3",
                "--out",
                str(path),
            ]
        )
        == 0
    )
    return path


@pytest.mark.parametrize("method", ["greedy", "cpsat"])
def test_solve_then_verify_gives_the_same_makespan(capsys, tmp_path, instance_file, method):
    capsys.readouterr()
    code, out, _ = run(
        capsys, "solve", instance_file, "--method", method, "--json", "--out", tmp_path / "r.json"
    )
    assert code == 0
    result = one_json(out)
    assert result["status"] == "optimal" and result["verified"]
    instance = PrescientInstance.from_json(read_json(instance_file))
    assert verify_solution(instance, result["solution"]) == pytest.approx(result["objective"], abs=1e-6)
    code, out, _ = run(capsys, "verify", instance_file, tmp_path / "r.json", "--json")
    assert code == 0 and one_json(out)["objective"] == pytest.approx(result["objective"], abs=1e-6)


def test_verify_rejects_a_moved_completion_naming_the_attempt(capsys, tmp_path, instance_file):
    capsys.readouterr()
    _, out, _ = run(capsys, "solve", instance_file, "--json")
    bad = copy.deepcopy(one_json(out))
    bad["solution"]["attempts"][0]["end"] += 30.0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    code, out, err = run(capsys, "verify", instance_file, path, "--json")
    assert_input_error(code, err, "attempts[0].end")
    assert out == ""


def test_evaluate_prints_the_optimum_and_each_policys_value_ratio_and_waste(capsys, instance_file):
    capsys.readouterr()
    code, out, _ = run(capsys, "evaluate", instance_file, "--json")
    assert code == 0
    report = one_json(out)
    optimum = report["optimum"]
    assert optimum is not None and optimum > 0
    assert len(report["policies"]) == 12
    for name, policy in report["policies"].items():
        assert policy["ratio"] >= 1.0, name
        assert policy["ratio"] == pytest.approx(policy["value"] / optimum, rel=1e-9), name
        assert policy["waste"] >= 0.0, name
    dup = report["policies"]["EXCL-PRED-DUP"]
    replicas = sum(1 for a in dup["solution"]["attempts"] if a.get("replica"))
    assert dup["waste"] == pytest.approx(100.0 * replicas / 30)


def test_evaluate_classifies_each_policys_laggers_against_the_optimums_slowest_host(capsys, instance_file):
    capsys.readouterr()
    code, out, _ = run(capsys, "evaluate", instance_file, "--json")
    assert code == 0
    report = one_json(out)
    instance = PrescientInstance.from_json(read_json(instance_file))
    used = {a["host"] for a in report["optimal_solution"]["attempts"] if a["outcome"] == "completed"}
    slowest = min(float(instance.clock_mhz[h]) for h in used)
    seen = 0
    for name, policy in report["policies"].items():
        first = {}
        for a in sorted(policy["solution"]["attempts"], key=lambda a: a["end"]):
            if a["outcome"] == "completed":
                first.setdefault(a["task"], a)
        ends = sorted(a["end"] - instance.start for a in first.values())
        q1, q3 = (float(q) for q in np.percentile(ends, [25, 75]))
        lag = [a for a in first.values() if a["end"] - instance.start > q3 + (q3 - q1)]
        assert policy["laggers"] == len(lag), name
        slow = sum(1 for a in lag if instance.clock_mhz[a["host"]] < slowest)
        assert policy["laggers_slow_host"] == slow, name
        assert policy["laggers_failure"] <= policy["laggers_explained"] <= policy["laggers"], name
        seen += slow
    assert seen > 0  # the instance has slow-host laggers to classify


def test_export_simgrid_writes_the_platform_and_refuses_a_file(capsys, tmp_path, instance_file):
    capsys.readouterr()
    code, out, _ = run(capsys, "export", "simgrid", instance_file, "--out", tmp_path / "sg", "--json")
    assert code == 0
    files = {p.split("/")[-1] for p in one_json(out)["files"]}
    assert "platform.xml" in files and {f"h{h}.state" for h in range(12)} <= files
    target = tmp_path / "taken"
    target.write_text("keep")
    code, out, err = run(capsys, "export", "simgrid", instance_file, "--out", target)
    assert_input_error(code, err, "is a file")
    assert target.read_text() == "keep"


FTA = Path(__file__).resolve().parents[3] / "data" / "prescient" / "fta_header_tabs.tab"
HISTORY = {"PRI-HISTORY", "EXCL-PRED", "EXCL-PRED-DUP", "EXCL-PRED-TO", "REP-PROB"}


def test_evaluate_leaves_out_what_an_instance_cannot_feed_unless_named(capsys, tmp_path):
    path = tmp_path / "f.json"
    assert (
        run(capsys, "generate", "prescient", "--fta", FTA, "--tasks", 5, "--task-minutes", 5, "--out", path)[
            0
        ]
        == 0
    )
    capsys.readouterr()
    code, out, _ = run(capsys, "evaluate", path, "--json")
    assert code == 0
    report = one_json(out)
    assert set(report["skipped"]) == HISTORY
    assert all("data.history" in why for why in report["skipped"].values())
    assert set(report["policies"]) == {
        "FCFS",
        "PRI-CR",
        "PRI-CR-WAIT",
        "EXCL-S1.5",
        "EXCL-S1",
        "EXCL-S.5",
        "EXCL-S.25",
    }
    code, out, err = run(capsys, "evaluate", path, "--heuristics", "FCFS,EXCL-PRED", "--json")
    assert_input_error(code, err, "data.history: heuristic EXCL-PRED")
    assert out == ""
