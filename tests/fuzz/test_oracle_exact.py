"""The fuzz oracle's own comparisons: integer claims exactly, slack results at the beta checked.

The oracle compared every claim to 1e-9 relative, the verifier's own tolerance, so it could not
see the verifier accept a slack makespan of 1,500,000,001 claimed as 1,500,000,000; and it
checked a slack solution at the beta the file stated, as the verifier did.
"""

from __future__ import annotations

import json

import pytest
from fuzz.oracle import beta_of_argv, check_accepted, judge
from hypothesis import example, given, settings
from hypothesis import strategies as st

from volsched.instances.checkpoint import CheckpointInstance
from volsched.instances.laws import Exponential
from volsched.instances.slack import SlackInstance
from volsched.solvers.checkpoint import solve as solve_checkpoint


def _slack_result(p: list[int], objective, bound, status="optimal", beta=1.0, **extra) -> tuple[dict, dict]:
    """One free machine running the jobs back to back, longest first: the makespan is ``sum(p)``."""
    inst = SlackInstance(machines=[[]], p=p, name="free")
    schedule, clock = [None] * len(p), 0
    for j in sorted(range(len(p)), key=lambda j: (-p[j], j)):
        schedule[j] = [0, clock]
        clock += p[j]
    result = {
        "family": "slack",
        "instance": "free",
        "status": status,
        "objective": objective,
        "bound": bound,
        "solution": {"problem": "slack", "beta": beta, "schedule": schedule},
        "verified": True,
        **extra,
    }
    return inst.to_json(), result


def _accepted_as(result: dict, **report) -> dict:
    """The report an accepting ``verify --json`` gave: the file's objective, at beta 1."""
    return {"problem": "slack", "objective": result["objective"], "beta": 1.0, **report}


def test_the_slack_makespan_one_past_the_claim_is_a_false_accept():
    instance, result = _slack_result([10**9, 500_000_001], 1_500_000_000, 1_500_000_002)
    defects = judge(instance, result, _accepted_as(result))
    assert any("claimed objective 1500000000" in d for d in defects), defects
    assert any("report objective 1500000000" in d for d in defects), defects
    assert any("bound 1500000002 beaten" in d for d in defects), defects
    assert any("optimal with bound 1500000002" in d for d in defects), defects


@settings(max_examples=100, deadline=None)
@given(p=st.lists(st.integers(1, 10**9), min_size=1, max_size=5), off=st.sampled_from([-1, 1]))
@example(p=[10**9, 500_000_001], off=-1)
def test_integer_claims_off_by_one_are_false_accepts(p, off):
    """Property: the oracle refutes any slack claim off by one and any lower bound one past the
    makespan, whatever its magnitude, and accepts the exact ones (in JSON int or float form)."""
    value = sum(p)
    instance, result = _slack_result(p, value, value)
    assert judge(instance, result, _accepted_as(result)) == []
    assert judge(instance, result, _accepted_as(result, objective=float(value))) == []
    instance, wrong = _slack_result(p, value + off, value + off if off < 0 else value, status="feasible")
    assert any("claimed objective" in d for d in judge(instance, wrong, _accepted_as(wrong, objective=value)))
    instance, past = _slack_result(p, value, value + 1, status="feasible")
    assert any("beaten" in d for d in judge(instance, past, _accepted_as(past)))
    instance, fraction = _slack_result(p, value, value - 0.5, status="feasible")
    assert any("not an integer" in d for d in judge(instance, fraction, _accepted_as(fraction)))


def test_a_coupled_claim_a_hair_off_its_integer_value_is_a_false_accept(tmp_path):
    from volsched.families import FAMILIES
    from volsched.instances.coupled import generate_markov

    inst = generate_markov(6, 40, 2, 1)
    result = FAMILIES["coupled"].solve(inst, problem="offline-coupled").to_dict()
    value = result["objective"]
    assert result["status"] == "optimal" and value == int(value)
    hair = {**result, "objective": value * (1 + 1e-10)}
    report = {"problem": "offline-coupled", "objective": hair["objective"]}
    assert any("claimed objective" in d for d in judge(inst.to_json(), hair, report))
    assert judge(inst.to_json(), result, {"problem": "offline-coupled", "objective": int(value)}) == []


def test_a_float_claim_within_the_tolerance_is_no_false_accept():
    """Checkpoint values are floats: the oracle's own tolerance (its quadrature) still applies."""
    inst = CheckpointInstance(p=[10, 10], c=[1, 1], alpha=1.0, law=Exponential(rate=1e-3))
    result = solve_checkpoint(inst, "dp").to_dict()
    near = {**result, "objective": result["objective"] * (1 + 1e-9)}
    assert judge(inst.to_json(), near, {"problem": "checkpoint", "objective": result["objective"]}) == []


def test_a_slack_result_is_judged_at_the_beta_checked(tmp_path):
    """a = 10, e = 11, jobs 8 and 30: at beta 0.25 the 8 fits in [0, 10) (slack 2 = 0.25 * 8),
    makespan 30; at beta 1 it does not (slack.md 6, line 8)."""
    inst = SlackInstance(machines=[[[10, 11]], []], p=[8, 30], beta=1.0, name="line8")
    result = {
        "family": "slack",
        "instance": "line8",
        "status": "feasible",
        "objective": 30,
        "bound": None,
        "solution": {"problem": "slack", "beta": 0.25, "schedule": [[0, 0], [1, 0]]},
    }
    (tmp_path / "i.json").write_text(json.dumps(inst.to_json()))
    (tmp_path / "r.json").write_text(json.dumps(result))
    report = {"problem": "slack", "objective": 30, "beta": 1.0}
    assert any("beta" in d for d in check_accepted(tmp_path / "i.json", tmp_path / "r.json", report))
    assert check_accepted(tmp_path / "i.json", tmp_path / "r.json", {**report, "beta": 0.25}, beta=0.25) == []
    assert any(
        "report says beta" in d
        for d in check_accepted(tmp_path / "i.json", tmp_path / "r.json", report, beta=0.25)
    )
    unstated = {**result, "solution": {k: v for k, v in result["solution"].items() if k != "beta"}}
    assert any("slack" in d or "period" in d for d in judge(inst.to_json(), unstated, report))


@pytest.mark.parametrize(
    "argv, beta",
    [
        (["verify", "i.json", "r.json", "--json"], None),
        (["verify", "i.json", "r.json", "--beta", "0.5", "--beta", "0.25"], 0.25),
        (["verify", "i.json", "r.json", "--beta=0.3"], 0.3),
        (["verify", "i.json", "r.json", "--beta", "nan?"], None),
    ],
)
def test_the_beta_of_a_verify_command_line(argv, beta):
    assert beta_of_argv(argv) == beta
