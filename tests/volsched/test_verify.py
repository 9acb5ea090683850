"""``volsched verify`` recomputes or rejects every claim a result file makes (issue 14, section 2).

Each case starts from a result that ``volsched solve --out`` wrote, tampers with one claim, and
expects exit 2 naming that claim; the untampered result, of every status, is accepted.
"""

from __future__ import annotations

import copy
import json

import pytest
from cli_helpers import assert_input_error, run
from json_helpers import set_item

from volsched.instances.checkpoint import generate
from volsched.instances.coupled import CoupledInstance, generate_markov, paper_realization
from volsched.instances.io import write_json


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
    (("bound",), 1e9, "bound: 1000000000.0 is beaten"),
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
    worse = tampered(result, ("bound",), result["objective"] + 3)   # a max problem: a bound above is valid
    code, _, err = verify(capsys, tmp_path, path, worse)
    assert_input_error(code, err, "status: optimal needs a bound equal to the objective")
    code, _, err = verify(capsys, tmp_path, path, tampered(worse, ("status",), "feasible"))
    assert_input_error(code, err, "gap: claims 0.0")  # the gap follows the bound (issue 14, section 5)
    feasible = tampered(tampered(worse, ("status",), "feasible"), ("gap",), 3 / (result["objective"] + 3))
    code, _, err = verify(capsys, tmp_path, path, feasible)
    assert code == 0, err


@pytest.mark.parametrize("problem, key, value", [
    ("offline-coupled", ("solution", "decision"), {"w": 1, "iteration_fits": False}),
    ("offline-coupled-inf", ("solution", "k"), 7),
    ("offline-coupled-inf", ("solution", "tasks_per_processor"), 99),
    ("offline-coupled-inf", ("solution", "completion_slots"), 3),
    ("iterations", ("solution", "makespan"), 5),
    ("iterations", ("solution", "completed_iterations"), 99),
])
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

    path, result = solved(capsys, tmp_path, generate_theorem2(machines=3, jobs=6, seed=0),
                          "--problem", "plain", "--method", "cpsat")
    late = len(result["solution"]["schedule"]) - 1
    code, _, err = verify(capsys, tmp_path, path,
                          tampered(result, ("solution", "schedule", late, 1), 10**400))
    assert_input_error(code, err, "the solution's value is about 2^1329, beyond any float")
