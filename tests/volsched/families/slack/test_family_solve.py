"""``volsched solve`` on slack instances: the problem ``plain``, the instance's ``beta``, infeasibility."""

import json

import pytest
from oracles.cli import assert_input_error, one_json, run
from oracles.registry import budget_argv

from volsched.families import FAMILIES
from volsched.instances.slack import SlackInstance

pytestmark = pytest.mark.skipif(
    "slack" not in FAMILIES, reason="the slack family is not registered in volsched.families"
)


def _write(tmp_path, instance: SlackInstance):
    path = tmp_path / f"{instance.name}.json"
    path.write_text(json.dumps(instance.to_json()))
    return path


def test_problem_plain_and_the_instances_beta(tmp_path, capsys):
    # a = 10, e = 11, jobs 8 and 30 (slack.md 6, line 8): 30 at beta 1 or 0.3 (the 8 joins the 30
    # on the free machine: 38), 30 at beta 0.25; plain: 30.
    inst = SlackInstance(machines=[[[10, 11]], []], p=[8, 30], beta=0.25, name="line8")
    path = _write(tmp_path, inst)
    code, out, _ = run(capsys, "solve", path, "--json")
    assert code == 0
    res = one_json(out)
    assert (res["status"], res["objective"], res["verified"]) == ("optimal", 30, True)
    assert res["solution"]["problem"] == "slack" and res["solution"]["beta"] == 0.25
    assert "combinatorial_bound" in res["info"]
    code, out, _ = run(capsys, "solve", path, "--problem", "plain", "--method", "milp", "--json")
    res = one_json(out)
    assert (res["status"], res["objective"], res["solution"]["problem"]) == ("optimal", 30, "plain")
    inst38 = SlackInstance(machines=[[[10, 11]], []], p=[8, 30], beta=0.3, name="line8b")
    default = FAMILIES["slack"].problems["slack"].default_method
    code, out, _ = run(
        capsys, "solve", _write(tmp_path, inst38), *budget_argv("slack", "slack", default), "--json"
    )
    res = one_json(out)
    assert (res["status"], res["objective"], res["stopped"]) == ("optimal", 38, None)


def test_no_free_machine_is_infeasible_with_its_reason(tmp_path, capsys):
    inst = SlackInstance(machines=[[[5, 6]], [[4, 9]]], p=[3, 7], name="nofree")
    path = _write(tmp_path, inst)
    code, out, _ = run(capsys, "solve", path, "--json")
    res = one_json(out)
    assert code == 0 and res["status"] == "infeasible" and res["objective"] is None
    assert "lambda = 0" in res["info"]["reason"]
    assert "longer than every availability period" in res["info"]["reason"]
    code, out, _ = run(capsys, "solve", path, "--problem", "plain", "--json")
    res = one_json(out)
    assert (res["status"], res["objective"]) == ("optimal", 13)  # 3 in [0, 5), 7 after machine 0's 6


def test_unknown_problem_is_bad_input(tmp_path, capsys):
    path = _write(tmp_path, SlackInstance(machines=[[]], p=[1], name="one"))
    code, _, err = run(capsys, "solve", path, "--problem", "stable", "--json")
    assert_input_error(code, err, "--problem")
