"""The CLI contract (DESIGN.md): exit codes, one JSON object with --json, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.instances.checkpoint import CheckpointInstance
from volsched.instances.io import read_json
from volsched.solvers.checkpoint.brute import solve_brute

DATA = Path(__file__).resolve().parents[1] / "data"
BROKEN = DATA / "broken" / "checkpoint"
EXPECTED = json.loads((BROKEN / "EXPECTED.json").read_text())
VALID = DATA / "valid_checkpoint.json"


def test_every_broken_file_has_an_expected_error():
    files = {p.name for p in BROKEN.glob("*.json")} - {"EXPECTED.json"}
    assert files == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("command", ["solve", "evaluate", "simulate", "verify"])
def test_broken_instance_is_rejected_naming_the_field(capsys, tmp_path, name, command):
    argv = [command, BROKEN / name, "--json"]
    if command == "simulate":
        argv += ["--heuristic", "daly"]
    if command == "verify":
        argv.insert(2, VALID)  # any file: the instance is read first
    if command == "solve":
        argv += ["--out", tmp_path / "result.json"]
    code, out, err = run(capsys, *argv)
    assert_input_error(code, err, EXPECTED[name])
    assert out == ""
    assert list(tmp_path.iterdir()) == []


def test_generate_solve_verify_round_trip(capsys, tmp_path):
    inst = tmp_path / "job.json"
    code, out, _ = run(capsys, "generate", "checkpoint", "--slices", 9, "--seed", 4, "--out", inst, "--json")
    assert code == 0 and one_json(out)["out"] == str(inst)
    instance = CheckpointInstance.from_json(read_json(inst))
    assert instance.n == 9

    for method in ("dp", "graph", "brute"):
        code, out, _ = run(
            capsys, "solve", inst, "--method", method, "--json", "--out", tmp_path / f"{method}.json"
        )
        assert code == 0
        result = one_json(out)
        assert set(result) >= {
            "family",
            "instance",
            "method",
            "status",
            "objective",
            "bound",
            "gap",
            "runtime_s",
            "solution",
            "verified",
        }
        assert result["status"] == "optimal" and result["verified"] is True
        _a, value = solve_brute(instance)
        assert result["objective"] == pytest.approx(value, rel=1e-9)
        assert instance.expected_waste(result["solution"]["a"]) == pytest.approx(value, rel=1e-9)
        assert read_json(tmp_path / f"{method}.json") == result

        code, out, _ = run(capsys, "verify", inst, tmp_path / f"{method}.json", "--json")
        assert code == 0 and one_json(out)["objective"] == pytest.approx(value, rel=1e-9)


def test_verify_rejects_a_wrong_claim_and_an_infeasible_vector(capsys, tmp_path):
    solution = tmp_path / "s.json"
    solution.write_text(json.dumps({"objective": 1.0, "solution": {"a": [1, 1, 1, 1]}}))
    code, _, err = run(capsys, "verify", VALID, solution)
    assert_input_error(code, err, "objective: claimed 1.0")
    solution.write_text(json.dumps({"solution": {"a": [1, 1, 1, 0]}}))
    code, _, err = run(capsys, "verify", VALID, solution)
    assert_input_error(code, err, "a[3]: the last slice must be checkpointed")
    solution.write_text(json.dumps({"solution": {"a": [1, 2, 1, 1]}}))
    code, _, err = run(capsys, "verify", VALID, solution)
    assert_input_error(code, err, "a[1]: must be 0 or 1")


def test_evaluate_json_shape_and_ratios(capsys):
    code, out, _ = run(capsys, "evaluate", VALID, "--json")
    assert code == 0
    report = one_json(out)
    instance = CheckpointInstance.from_json(read_json(VALID))
    _, optimum = solve_brute(instance)
    assert report["optimum"] == pytest.approx(optimum, rel=1e-9)
    assert set(report["policies"]) == {"none", "every", "young", "daly", "daly-printed"}
    for policy in report["policies"].values():
        assert policy["value"] == pytest.approx(instance.expected_waste(policy["solution"]["a"]))
        assert policy["ratio"] >= 1.0
        assert policy["ratio"] == pytest.approx(max(1.0, policy["value"] / optimum), rel=1e-12)
        assert policy["metrics"] and all(policy[k] == v for k, v in policy["metrics"].items())


def test_simulate_monte_carlo_brackets_the_expected_waste(capsys):
    code, out, _ = run(capsys, "simulate", VALID, "--heuristic", "none", "--seed", 3, "--json")
    assert code == 0
    res = one_json(out)
    metrics = res["metrics"]
    assert res["objective"] == metrics["expected_waste"] and res["problem"] == "checkpoint"
    assert abs(metrics["monte_carlo_waste"] - metrics["expected_waste"]) <= 5 * metrics["monte_carlo_stderr"]


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["generate", "checkpoint", "--slices", "0"], "--slices: must be an integer >= 1"),
        (["generate", "checkpoint", "--slices", "x"], "argument --slices: invalid int value"),
        (["generate", "checkpoint", "--slices", "5", "--alpha", "1.5"], "alpha: must be in (0, 1]"),
        (["generate", "checkpoint", "--slices", "5", "--law", "gamma"], "--law: must be one of"),
        (["generate", "checkpoint", "--slices", "5", "--slice-hours", "2", "1"], "slice_hours"),
        (["generate", "bogus"], "argument FAMILY"),
        (["solve", str(VALID), "--method", "cpsat"], "--method: checkpoint has methods"),
        (["simulate", str(VALID), "--heuristic", "lazy"], "--heuristic: choose from"),
        (["evaluate", str(VALID), "--heuristics", "none,lazy"], "heuristics: choose from"),
        (["solve", "/nonexistent/file.json"], "no such file"),
        (["solve"], "the following arguments are required: instance"),
    ],
)
def test_bad_arguments_exit_2_and_write_nothing(capsys, tmp_path, argv, fragment):
    out_file = tmp_path / "out.json"
    if argv[0] == "generate" and argv[1] == "checkpoint":
        argv = [*argv, "--out", str(out_file)]
    code, _out, err = run(capsys, *argv)
    assert_input_error(code, err, fragment)
    assert not out_file.exists()


def test_brute_refuses_large_jobs(capsys, tmp_path):
    inst = tmp_path / "big.json"
    assert run(capsys, "generate", "checkpoint", "--slices", 17, "--out", inst)[0] == 0
    code, _, err = run(capsys, "solve", inst, "--method", "brute")
    assert_input_error(code, err, "method: brute enumerates")


def test_generate_is_deterministic(capsys, tmp_path):
    for k in (1, 2):
        run(
            capsys,
            "generate",
            "checkpoint",
            "--slices",
            12,
            "--seed",
            7,
            "--law",
            "empirical",
            "--out",
            tmp_path / f"{k}.json",
        )
    assert (tmp_path / "1.json").read_bytes() == (tmp_path / "2.json").read_bytes()
    run(capsys, "generate", "checkpoint", "--slices", 12, "--seed", 8, "--out", tmp_path / "3.json")
    assert (tmp_path / "1.json").read_bytes() != (tmp_path / "3.json").read_bytes()


def test_internal_error_exits_1(capsys, monkeypatch):
    from volsched.solvers import checkpoint

    def broken(instance, time_limit, seed):
        raise RuntimeError("boom")

    monkeypatch.setitem(checkpoint.METHODS, "dp", broken)
    code, out, err = run(capsys, "solve", VALID)
    assert code == 1 and out == ""
    assert err.startswith("volsched: internal error: RuntimeError: boom")


def test_console_entry_point_prints_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "volsched", "solve", str(BROKEN / "c_negative.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"volsched: error: {BROKEN / 'c_negative.json'}: c[1]: must be a positive integer "
        "(time quanta), got -3"
    ]


def test_report_checks_plot_arguments_before_writing_anything(capsys, tmp_path):
    store, config = tmp_path / "s.db", tmp_path / "small.toml"
    config.write_text(
        'family = "checkpoint"\nseeds = 2\nheuristics = ["young", "daly"]\n[grid]\nslices = [4, 6]\n'
    )
    assert run(capsys, "sweep", config, "--store", store, "--workers", 1, "--quiet")[0] == 0
    csv_dir, plot_dir = tmp_path / "csv", tmp_path / "plots"
    code, out, err = run(capsys, "report", store, "--csv", csv_dir, "--plot", plot_dir, "--param", "nope")
    assert_input_error(code, err, "--param")
    assert not csv_dir.exists() and not plot_dir.exists()
    code, _, err = run(capsys, "report", store, "--param", "slices")
    assert_input_error(code, err, "--param: needs --plot")
    code, out, _ = run(
        capsys, "report", store, "--json", "--csv", csv_dir, "--plot", plot_dir, "--param", "slices"
    )
    summary = one_json(out)
    assert summary["tasks"] == summary["done"] > 0 and summary["pending"] == 0
    assert all(Path(p).exists() for p in summary["written"])
    code, _, err = run(capsys, "report", tmp_path / "missing.db")
    assert_input_error(code, err, "no such store")
    assert not (tmp_path / "missing.db").exists()


def test_a_store_in_a_missing_folder_is_bad_input(capsys, tmp_path):
    code, _, err = run(capsys, "sweep", "--preset", "smoke", "--store", tmp_path / "no" / "s.db", "--quiet")
    assert_input_error(code, err, "does not exist")
    assert not (tmp_path / "no").exists()
