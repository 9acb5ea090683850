"""The coupled on-line commands: simulate, verify a run, evaluate against off-line bounds (Section VII)."""

import json

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.families import FAMILIES
from volsched.instances.coupled import paper_realization


@pytest.fixture
def paper(tmp_path):
    path = tmp_path / "paper.json"
    path.write_text(json.dumps(paper_realization(5, 5, 2, 0, 0, slots=500).to_json()))
    return path


def test_simulate_prints_the_run_and_verify_accepts_it(capsys, tmp_path, paper):
    out = tmp_path / "run.json"
    code, stdout, _ = run(
        capsys, "simulate", paper, "--heuristic", "RANDOM", "--seed", 3, "--json", "--out", out
    )
    assert code == 0
    printed = one_json(stdout)
    assert {"heuristic", "makespan", "failed", "iterations", "schedule"} <= printed.keys()
    assert printed == json.loads(out.read_text())
    assert printed["failed"] is False and printed["iterations"] == 10
    assert printed["makespan"] == printed["schedule"]["completions"][-1] + 1
    assert printed["makespan"] > 500  # beyond the stored slots: the realization's continuation
    code, stdout, _ = run(capsys, "verify", paper, out, "--json")
    report = one_json(stdout)
    assert code == 0 and report["feasible"] and report["objective"] == printed["makespan"]


@pytest.mark.parametrize(
    "key, value, fragment",
    [
        ("makespan", 5, "makespan: claims 5"),
        ("failed", True, "failed: claims True"),
        ("iterations", 9, "iterations: claims 9"),
        ("objective", 5, "objective: claimed 5"),
    ],
)
def test_verify_rejects_a_tampered_run(capsys, tmp_path, paper, key, value, fragment):
    out = tmp_path / "run.json"
    assert run(capsys, "simulate", paper, "--heuristic", "RANDOM", "--out", out)[0] == 0
    obj = json.loads(out.read_text())
    obj[key] = value
    out.write_text(json.dumps(obj))
    assert_input_error(*run(capsys, "verify", paper, out)[::2], fragment)


def test_a_run_that_reaches_the_cap_fails_and_its_witness_verifies(capsys, tmp_path, paper):
    out = tmp_path / "run.json"
    code, stdout, _ = run(
        capsys, "simulate", paper, "--heuristic", "RANDOM", "--cap", 150, "--json", "--out", out
    )
    printed = one_json(stdout)
    assert code == 0 and printed["failed"] is True and printed["makespan"] is None
    assert printed["status"] == "unknown" and printed["iterations"] < 10
    code, stdout, _ = run(capsys, "verify", paper, out, "--json")
    assert code == 0 and one_json(stdout)["status"] == "unknown"


def test_bad_simulate_input(capsys, tmp_path, paper):
    assert_input_error(*run(capsys, "simulate", paper, "--heuristic", "NOPE")[::2], "--heuristic")
    assert_input_error(*run(capsys, "simulate", paper, "--heuristic", "RANDOM", "--seed", -1)[::2], "--seed")
    assert_input_error(*run(capsys, "simulate", paper, "--heuristic", "RANDOM", "--cap", 0)[::2], "--cap")
    assert_input_error(
        *run(capsys, "simulate", paper, "--heuristic", "RANDOM", "--cap", 10**8)[::2],
        "--cap: the realization ends at slot",
    )
    obj = json.loads(paper.read_text())
    del obj["data"]["continuation_seed"]
    short = tmp_path / "short.json"
    short.write_text(json.dumps(obj))
    assert_input_error(
        *run(capsys, "simulate", short, "--heuristic", "RANDOM", "--cap", 501)[::2],
        "--cap: the realization ends at slot 500 and the instance has no chains",
    )
    out = tmp_path / "nothing.json"
    assert run(capsys, "simulate", short, "--heuristic", "RANDOM", "--cap", 501, "--out", out)[0] == 2
    assert not out.exists()


def test_evaluate_reports_the_offline_interval(capsys, paper):
    code, stdout, _ = run(capsys, "evaluate", paper, "--json")
    report = one_json(stdout)
    assert code == 0 and report["problem"] == "full" and report["method"] == "greedy"
    policy = report["policies"]["RANDOM"]
    if report["optimum"] is None:
        lo, hi = policy["ratio_lo"], policy["ratio_hi"]
        assert report["lower_bound"] <= report["best_known"] <= policy["value"]
        assert lo == pytest.approx(policy["value"] / report["best_known"])
        assert hi == pytest.approx(policy["value"] / report["lower_bound"])
        assert 1 <= lo <= hi


def test_evaluate_without_chains_runs_random_and_says_why_the_others_are_left_out(capsys, tmp_path):
    path = tmp_path / "planted.json"
    assert (
        run(
            capsys,
            "generate",
            "coupled",
            "--preset",
            "planted",
            "--processors",
            6,
            "--slots",
            60,
            "--tasks",
            2,
            "--block",
            3,
            "--density",
            0.7,
            "--seed",
            1,
            "--out",
            path,
        )[0]
        == 0
    )
    capsys.readouterr()
    code, out, _ = run(capsys, "evaluate", path, "--json")
    assert code == 0
    report = one_json(out)
    assert set(report["policies"]) == {"RANDOM"}
    assert len(report["skipped"]) == len(FAMILIES["coupled"].heuristics) - 1
    assert all(why.startswith("data.transitions") for why in report["skipped"].values())
    code, out, err = run(capsys, "evaluate", path, "--heuristics", "IE", "--json")
    assert_input_error(code, err, "data.transitions: heuristic IE")
    assert out == ""
