"""``volsched verify`` recomputes or rejects every claim a result file makes: the numbers are the verifier's.

Each case starts from a result that ``volsched solve --out`` wrote, tampers with one claim, and
expects exit 2 naming that claim; the untampered result, of every status, is accepted.
"""

from __future__ import annotations

import copy
import json

import pytest
from oracles.cli import assert_input_error, run
from oracles.json_edit import set_item

from volsched.instances.checkpoint import generate
from volsched.instances.coupled import CoupledInstance, generate_markov, paper_realization
from volsched.instances.io import write_json
from volsched.instances.slack import SlackInstance


def solved(capsys, tmp_path, instance, *argv) -> tuple:
    path = tmp_path / "i.json"
    write_json(path, instance.to_json())
    out = tmp_path / "r.json"
    code, _, err = run(capsys, "solve", path, *argv, "--out", out, "--json")
    assert code == 0, err
    return path, json.loads(out.read_text())


def verify(capsys, tmp_path, instance_path, result) -> tuple:
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(result))
    return run(capsys, "verify", instance_path, path, "--json")


def tampered(result, keys, value):
    out = copy.deepcopy(result)
    set_item(out, keys, value)
    return out


CHECKPOINT = [
    (("instance",), "someone-else", "instance: names 'someone-else'"),
    (("family",), "coupled", "family: names 'coupled'"),
    (("status",), "infeasible", "objective: an infeasible result has no objective"),
    (("status",), "solved", "status: must be one of"),
    (("verified",), "yes", "verified: must be true or false"),
    (("objective",), True, "objective: must be a finite number or null, got True"),
    (("bound",), 1e9, "bound: 1000000000.0 is above the verified value"),
    (("solution", "checkpoints"), 99, "solution.checkpoints: claims 99"),
    (("solution", "a"), [True, False, False, False, False, True], "solution.a[0]: must be 0 or 1, got True"),
]


@pytest.mark.parametrize("keys, value, fragment", CHECKPOINT, ids=[c[2].split(":")[0] for c in CHECKPOINT])
def test_a_checkpoint_claim_that_does_not_hold_is_rejected(capsys, tmp_path, keys, value, fragment):
    path, result = solved(capsys, tmp_path, generate(6, 0))
    assert verify(capsys, tmp_path, path, result)[0] == 0
    code, out, err = verify(capsys, tmp_path, path, tampered(result, keys, value))
    assert_input_error(code, err, fragment, prefix="volsched: error: ")
    assert out == ""


def test_infeasible_or_unknown_with_a_feasible_solution_is_rejected(capsys, tmp_path):
    path, result = solved(capsys, tmp_path, generate(6, 0))
    for status in ("infeasible", "unknown"):
        lie = {**result, "status": status, "objective": None}
        code, _, err = verify(capsys, tmp_path, path, lie)
        assert_input_error(code, err, f"status: claims {status}, but the solution is feasible")


def test_optimal_with_a_bound_off_the_objective_is_rejected(capsys, tmp_path):
    path, result = solved(capsys, tmp_path, generate_markov(6, 40, 2, 1))
    assert result["status"] == "optimal"
    worse = tampered(result, ("bound",), result["objective"] + 3)  # a max problem: a bound above is valid
    code, _, err = verify(capsys, tmp_path, path, worse)
    assert_input_error(code, err, "status: optimal needs a bound equal to the objective")
    code, _, err = verify(capsys, tmp_path, path, tampered(worse, ("status",), "feasible"))
    assert_input_error(code, err, "gap: claims 0.0")  # the gap is recomputed from the bound
    feasible = tampered(tampered(worse, ("status",), "feasible"), ("gap",), 3 / (result["objective"] + 3))
    code, _, err = verify(capsys, tmp_path, path, feasible)
    assert code == 0, err


@pytest.mark.parametrize(
    "problem, key, value",
    [
        ("offline-coupled", ("solution", "decision"), {"w": 1, "iteration_fits": False}),
        ("offline-coupled-inf", ("solution", "k"), 7),
        ("offline-coupled-inf", ("solution", "tasks_per_processor"), 99),
        ("offline-coupled-inf", ("solution", "completion_slots"), 3),
        ("iterations", ("solution", "makespan"), 5),
        ("iterations", ("solution", "completed_iterations"), 99),
    ],
)
def test_a_derived_field_that_lies_is_rejected(capsys, tmp_path, problem, key, value):
    instance = generate_markov(6, 60, 2, 3) if problem != "iterations" else paper_realization(5, 5, 1, 0, 0)
    path, result = solved(capsys, tmp_path, instance, "--problem", problem)
    assert result["status"] == "optimal"
    assert verify(capsys, tmp_path, path, result)[0] == 0
    code, _, err = verify(capsys, tmp_path, path, tampered(result, key, value))
    assert_input_error(code, err, f"solution.{key[-1]}: claims {value!r}")


def test_every_status_solve_writes_is_accepted_and_says_what_it_checked(capsys, tmp_path):
    tight = CoupledInstance(availability=[[0, 2, 0], [0, 0, 2]], w=[2, 2], mu=[None, None], m=2, K=1)
    path, result = solved(capsys, tmp_path, tight, "--problem", "iterations")
    assert result["status"] == "infeasible" and result["objective"] is None
    code, out, err = verify(capsys, tmp_path, path, result)
    assert code == 0, err
    report = json.loads(out)
    assert report["feasible"] is False and report["checked"] == ["family", "instance", "witness", "gap"]
    assert report["unchecked"] == ["that no solution exists"]
    lie = tampered(result, ("solution", "completed_iterations"), 1)
    code, _, err = verify(capsys, tmp_path, path, lie)
    assert_input_error(code, err, "solution.completed_iterations: claims 1")
    code, _, err = verify(capsys, tmp_path, path, tampered(result, ("objective",), 3))
    assert_input_error(code, err, "objective: an infeasible result has no objective")


def test_a_start_beyond_any_float_is_bad_input(capsys, tmp_path):
    """Verifiers compute in Python integers: a feasible schedule whose makespan no float holds is
    the file's fault (exit 2), not an OverflowError (found by tests/fuzz, session 25)."""
    from volsched.instances.slack.generators import generate_theorem2

    path, result = solved(
        capsys,
        tmp_path,
        generate_theorem2(machines=3, jobs=6, seed=0),
        "--problem",
        "plain",
        "--method",
        "cpsat",
    )
    late = len(result["solution"]["schedule"]) - 1
    code, _, err = verify(
        capsys, tmp_path, path, tampered(result, ("solution", "schedule", late, 1), 10**400)
    )
    assert_input_error(code, err, "the solution's value is about 2^1329, beyond any float")


# --- integer problems: claims compared exactly --------------------------------------------------------


def test_a_slack_makespan_one_past_the_claim_is_not_the_claim(capsys, tmp_path):
    """One free machine, jobs of 10^9 and 500,000,001: the makespan is their sum, 1,500,000,001. A
    result claiming 1,500,000,000 with a bound of 1,500,000,002, ``optimal`` and no ``gap``, agreed
    to 1e-9 relative and verified."""
    big = SlackInstance(machines=[[]], p=[10**9, 500_000_001], name="big")
    path, result = solved(capsys, tmp_path, big)
    assert (result["status"], result["objective"]) == ("optimal", 1_500_000_001)
    assert verify(capsys, tmp_path, path, result)[0] == 0
    lie = {k: v for k, v in result.items() if k != "gap"}
    code, out, err = verify(
        capsys, tmp_path, path, {**lie, "objective": 1_500_000_000, "bound": 1_500_000_002}
    )
    assert_input_error(code, err, "objective: claimed 1500000000 but the solution's is 1500000001")
    assert out == ""
    code, _, err = verify(capsys, tmp_path, path, {**lie, "status": "feasible", "bound": 1_500_000_002})
    assert_input_error(code, err, "bound: 1500000002 is above the verified value 1500000001")
    code, _, err = verify(capsys, tmp_path, path, {**lie, "objective": 1_500_000_001.25})
    assert_input_error(code, err, "objective: claimed 1500000001.25 but the solution's is 1500000001")
    code, _, err = verify(capsys, tmp_path, path, {**lie, "status": "feasible", "bound": 1_500_000_000.5})
    assert_input_error(code, err, "bound: 1500000000.5 is not an integer")


@pytest.mark.parametrize("problem", ["offline-coupled", "iterations"])
def test_a_coupled_claim_a_hair_off_the_integer_value_is_rejected(capsys, tmp_path, problem):
    """Coupled values are integers (slot counts): 1e-10 off is off, though within 1e-9 relative."""
    instance = (
        generate_markov(6, 40, 2, 1) if problem == "offline-coupled" else paper_realization(5, 5, 1, 0, 0)
    )
    path, result = solved(capsys, tmp_path, instance, "--problem", problem)
    value = result["objective"]
    assert result["status"] == "optimal" and value == int(value) > 0
    hair = value * 1e-10
    code, _, err = verify(capsys, tmp_path, path, {**result, "objective": value + hair})
    assert_input_error(code, err, f"objective: claimed {value + hair!r}")
    inside = value - hair if problem == "offline-coupled" else value + hair  # max: below; min: above
    side = "below" if problem == "offline-coupled" else "above"
    feasible = {k: v for k, v in result.items() if k != "gap"} | {"status": "feasible", "bound": inside}
    code, _, err = verify(capsys, tmp_path, path, feasible)
    assert_input_error(code, err, f"bound: {inside!r} is {side} the verified value {int(value)}")


# --- slack: the beta a result is checked at -----------------------------------------------------------


def test_a_slack_result_is_checked_at_the_instances_beta_or_at_verify_beta(capsys, tmp_path):
    """a = 10, e = 11, jobs 8 and 30: the optimum is 30 at beta 0.25 (the 8 fits in [0, 10) with
    slack 2 = 0.25 * 8), 38 at beta 1 (slack.md 6, line 8). A result computed at beta 0.25 verified
    as makespan 30 against the instance at beta 1."""
    inst = SlackInstance(machines=[[[10, 11]], []], p=[8, 30], beta=1.0, name="line8")
    path, at_one = solved(capsys, tmp_path, inst)
    assert at_one["objective"] == 38
    out = tmp_path / "r025.json"
    assert run(capsys, "solve", path, "--beta", "0.25", "--out", out, "--json")[0] == 0
    at_quarter = json.loads(out.read_text())
    assert at_quarter["objective"] == 30 and at_quarter["solution"]["beta"] == 0.25

    code, stdout, err = verify(capsys, tmp_path, path, at_quarter)
    assert_input_error(code, err, "beta: the result states 0.25, it is checked at 1.0")
    assert stdout == ""
    unstated = copy.deepcopy(at_quarter)
    del unstated["solution"]["beta"]
    code, _, err = verify(capsys, tmp_path, path, unstated)  # at the instance's beta: the slack rule fails
    assert_input_error(code, err, "slack d = 2 < beta * max p = 1 * 8")

    code, stdout, err = verify(capsys, tmp_path, path, at_one)
    assert code == 0, err
    assert json.loads(stdout)["beta"] == 1.0
    (tmp_path / "r1.json").write_text(json.dumps(at_one))
    code, stdout, err = run(capsys, "verify", path, tmp_path / "r1.json")
    assert code == 0 and "at beta 1.0" in stdout, (stdout, err)

    code, stdout, err = run(capsys, "verify", path, out, "--beta", "0.25", "--json")
    assert code == 0, err
    report = json.loads(stdout)
    assert (report["beta"], report["objective"]) == (0.25, 30)
    code, stdout, err = run(capsys, "verify", path, out, "--beta", "0.25")
    assert code == 0 and "at beta 0.25" in stdout, (stdout, err)
    code, _, err = run(capsys, "verify", path, tmp_path / "r1.json", "--beta", "0.25", "--json")
    assert_input_error(code, err, "beta: the result states 1.0, it is checked at 0.25")
    code, _, err = run(capsys, "verify", path, out, "--beta", "1.5", "--json")
    assert_input_error(code, err, "--beta: must be a number in [0, 1]")


def test_verify_beta_is_the_slack_familys_option_only(capsys, tmp_path):
    path, result = solved(capsys, tmp_path, generate(6, 0))
    (tmp_path / "r.json").write_text(json.dumps(result))
    code, _, err = run(capsys, "verify", path, tmp_path / "r.json", "--beta", "0.5")
    assert_input_error(code, err, "--beta: the checkpoint family's verify takes no such option")
