"""The slack family on the command line: the issue's exact generate commands, bad input, --beta / --plain."""

import json
from pathlib import Path

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.instances.io import read_json
from volsched.instances.slack import SlackInstance

DATA = Path(__file__).resolve().parents[3] / "data" / "broken" / "slack"
EXPECTED = json.loads((DATA / "EXPECTED.json").read_text())
BPPLIB = DATA / "bpplib"
BPPLIB_EXPECTED = json.loads((BPPLIB / "EXPECTED.json").read_text())
FALKENAUER = Path("/work/shared/data/falkenauer_t")


def test_generate_three_partition_exactly_as_the_issue_says(capsys, tmp_path):
    out = tmp_path / "tp.json"
    code, _, err = run(
        capsys,
        "generate",
        "slack",
        "--preset",
        "three-partition",
        "--file",
        BPPLIB / "valid.txt",
        "--out",
        out,
    )
    assert code == 0, err
    inst = SlackInstance.from_json(read_json(out))
    assert inst.target == 3 * 100 + 2 + 1 and inst.lam == 1 and inst.beta == 1.0
    assert inst.params["preset"] == "three-partition" and inst.params["shift"] == 0


@pytest.mark.skipif(not FALKENAUER.exists(), reason="shared data not mounted")
def test_generate_three_partition_from_falkenauer_with_the_shift(capsys, tmp_path):
    out = tmp_path / "t60.json"
    path = FALKENAUER / "Falkenauer_t60_00.txt"
    code, _, err = run(
        capsys,
        "generate",
        "slack",
        "--preset",
        "three-partition",
        "--file",
        path,
        "--shift",
        1,
        "--out",
        out,
        "--json",
    )
    assert code == 0, err
    inst = SlackInstance.from_json(read_json(out))
    assert (inst.m, inst.n, inst.target) == (21, 81, 3 * 1003 + 3)


def test_generate_paper_exactly_as_the_issue_says(capsys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path in (a, b):
        code, _, err = run(
            capsys,
            "generate",
            "slack",
            "--preset",
            "paper",
            "--machines",
            20,
            "--jobs",
            100,
            "--seed",
            4,
            "--out",
            path,
        )
        assert code == 0, err
    assert a.read_bytes() == b.read_bytes()  # same seed, same bytes
    inst = SlackInstance.from_json(read_json(a))
    assert (inst.m, inst.n, inst.lam) == (20, 100, 4)


@pytest.mark.parametrize("name", sorted(BPPLIB_EXPECTED))
def test_bad_bpplib_files_exit_2_naming_file_and_line(capsys, tmp_path, name):
    out = tmp_path / "o.json"
    code, _, err = run(
        capsys, "generate", "slack", "--preset", "three-partition", "--file", BPPLIB / name, "--out", out
    )
    assert_input_error(code, err, f"{BPPLIB / name}")
    assert BPPLIB_EXPECTED[name] in err
    assert not out.exists()


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("command", ["solve", "simulate", "evaluate", "verify"])
def test_broken_instance_files_exit_2(capsys, tmp_path, name, command):
    argv = [command, DATA / name]
    if command == "simulate":
        argv += ["--heuristic", "gaps"]
    if command == "verify":
        solution = tmp_path / "s.json"
        solution.write_text(json.dumps({"problem": "plain", "schedule": [[0, 0]]}))
        argv += [solution]
    code, _, err = run(capsys, *argv, "--json")
    assert_input_error(code, err, EXPECTED[name])


@pytest.fixture
def small(tmp_path) -> Path:
    path = tmp_path / "small.json"
    inst = SlackInstance(machines=[[[10, 12], [20, 25]], []], p=[5, 3, 9, 8, 8], name="small")
    path.write_text(json.dumps(inst.to_json()))
    return path


def test_verify_rejects_a_schedule_breaking_each_rule(capsys, tmp_path, small):
    cases = {
        "slack rule": [[0, 0], [0, 5], [1, 0], [1, 9], [1, 17]],
        "last-period rule": [[0, 0], [0, 12], [1, 0], [1, 9], [1, 16]],
        "compact execution": [[0, 0], [0, 13], [1, 0], [1, 9], [1, 17]],
        "across unavailability 0": [[0, 8], [0, 12], [1, 0], [1, 9], [1, 17]],
    }
    for fragment, schedule in cases.items():
        path = tmp_path / "bad.json"
        path.write_text(json.dumps({"problem": "slack", "schedule": schedule}))
        code, _, err = run(capsys, "verify", small, path, "--json")
        if fragment == "last-period rule":  # the overlap on the free machine is found first
            assert_input_error(code, err, "overlap")
        else:
            assert_input_error(code, err, fragment)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"problem": "slack", "schedule": [[0, 0], [0, 12], [1, 0], [1, 9], [1, 17]]}))
    code, out, err = run(capsys, "verify", small, good, "--json")
    assert code == 0, err
    assert one_json(out)["objective"] == 25


def test_solve_beta_and_plain_reach_the_instance(capsys, tmp_path):
    # the reduction's NO instance (B = 13): above the target at beta = 1, at the target at beta = 0.9
    path = tmp_path / "no.json"
    code, _, err = run(
        capsys,
        "generate",
        "slack",
        "--preset",
        "planted",
        "--groups",
        2,
        "--B",
        13,
        "--answer",
        "no",
        "--seed",
        3,
        "--out",
        path,
    )
    assert code == 0, err
    target = read_json(path)["data"]["target"]
    results = {}
    for extra in ([], ["--beta", "0.9"], ["--plain"]):
        code, out, err = run(capsys, "solve", path, *extra, "--json")
        assert code == 0, err
        result = one_json(out)
        assert result["status"] == "optimal"
        results[" ".join(extra)] = result
    assert results[""]["objective"] > target
    assert results[""]["solution"]["beta"] == 1.0
    assert results["--beta 0.9"]["objective"] == target and results["--beta 0.9"]["solution"]["beta"] == 0.9
    assert results["--plain"]["solution"]["problem"] == "plain"
    assert results["--plain"]["objective"] <= target
    code, _, err = run(capsys, "solve", path, "--beta", "1.5", "--json")
    assert_input_error(code, err, "--beta: must be a number in [0, 1]")


def test_simulate_prints_the_issue_fields(capsys, small):
    for heuristic in ("gaps", "lpt", "list"):
        code, out, err = run(
            capsys,
            "simulate",
            small,
            "--heuristic",
            heuristic,
            "--beta",
            "0.5",
            "--disturbance",
            "sampled",
            "--seed",
            1,
            "--json",
        )
        assert code == 0, err
        result = one_json(out)
        metrics = result.get("metrics", result)
        assert {"makespan", "disturbed_makespan", "stability"} <= set(metrics), result


def test_verify_checks_a_result_at_the_beta_it_was_solved_for(capsys, tmp_path):
    path, result = tmp_path / "no.json", tmp_path / "r.json"
    code, _, err = run(
        capsys,
        "generate",
        "slack",
        "--preset",
        "planted",
        "--groups",
        2,
        "--B",
        13,
        "--answer",
        "no",
        "--seed",
        3,
        "--out",
        path,
    )
    assert code == 0, err
    code, _, err = run(capsys, "solve", path, "--beta", "0.9", "--out", result)
    assert code == 0, err
    code, out, err = run(capsys, "verify", path, result, "--json")  # at the instance's beta, 1
    assert_input_error(code, err, "solution.beta")
    code, out, err = run(capsys, "verify", path, result, "--beta", "0.9", "--json")
    assert code == 0, err
    assert one_json(out)["objective"] == 42  # the target: two jobs of B + 1 share an interval at 0.9
    obj = json.loads(result.read_text())
    obj["solution"]["beta"] = 1.0  # the same schedule claimed at beta = 1 breaks the slack rule
    result.write_text(json.dumps(obj))
    code, _, err = run(capsys, "verify", path, result, "--json")
    assert_input_error(code, err, "slack rule")
