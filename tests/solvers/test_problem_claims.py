"""How :func:`volsched.solvers.problem.finish` compares a method's claims with the verifier's value.

Float problems (checkpoint): relatively, however small the value. ``finish`` once compared
them with an absolute tolerance of 1e-12 as well: a checkpoint waste of 1e-13 then agreed with any
claim below 1e-12 (twice the value, half of it, zero), so a wrong claim and a wrong bound passed as
a proof of optimality.

Integer problems (slack, coupled: their verifiers compute in Python integers): exactly. With the
1e-9 relative tolerance a makespan of 1,500,000,001 agreed with a claim of 1,500,000,000 and with
a lower bound of 1,500,000,002, and the result was ``optimal``.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from volsched.instances.checkpoint import CheckpointInstance
from volsched.instances.laws import Exponential
from volsched.solvers import SolveStatus, VerificationError
from volsched.solvers.checkpoint import PROBLEMS, solve
from volsched.solvers.problem import CLAIM_RTOL, MethodOutcome, agrees

A = [1, 1]


@pytest.fixture
def tiny():
    """A valid job whose optimal waste is about 1.5e-13 (failures almost never happen)."""
    inst = CheckpointInstance(p=[10, 10], c=[1, 1], alpha=1.0, law=Exponential(rate=1e-15))
    value = solve(inst, "brute").objective
    assert 1e-14 < value < 1e-12 and solve(inst, "brute").solution["a"] == A
    return inst, value


def _claiming(monkeypatch, objective, bound, proven=True):
    monkeypatch.setitem(
        PROBLEMS["checkpoint"].methods,
        "claim",
        lambda i, t, s: MethodOutcome({"a": A}, objective, bound, proven),
    )


@pytest.mark.parametrize("method", ["dp", "graph", "brute"])
def test_the_exact_methods_agree_with_the_verifier_on_a_tiny_waste(tiny, method):
    inst, value = tiny
    res = solve(inst, method)
    assert res.status is SolveStatus.OPTIMAL and "claimed_objective" not in res.info
    assert math.isclose(res.objective, value, rel_tol=1e-12)


def test_twice_the_verified_waste_proven_optimal_is_a_bound_beaten_by_its_own_solution(monkeypatch, tiny):
    inst, value = tiny
    _claiming(monkeypatch, 2 * value, 2 * value)  # passed as optimal with abs_tol = 1e-12
    with pytest.raises(VerificationError, match="claims the bound"):
        solve(inst, "claim")


@pytest.mark.parametrize("claim", [0.5, 0.0])
def test_a_claim_below_the_verified_waste_is_kept_aside_and_proves_nothing(monkeypatch, tiny, claim):
    inst, value = tiny
    _claiming(monkeypatch, claim * value, claim * value)
    res = solve(inst, "claim")
    assert res.status is SolveStatus.FEASIBLE and res.objective == value
    assert res.info["claimed_objective"] == claim * value and res.bound == claim * value


def test_a_claim_within_the_relative_tolerance_still_agrees(monkeypatch, tiny):
    inst, value = tiny
    near = value * (1 + CLAIM_RTOL / 10)
    _claiming(monkeypatch, near, near)
    res = solve(inst, "claim")
    assert res.status is SolveStatus.OPTIMAL and res.objective == value == res.bound
    assert "claimed_objective" not in res.info


@pytest.mark.parametrize("factor", [2.0, 0.5])
def test_verify_rejects_a_result_file_claiming_another_tiny_waste(capsys, tmp_path, tiny, factor):
    """``volsched verify`` compares claims as ``solve`` does: 2e-13 is not 1e-13 (it was, to 1e-12)."""
    import json

    from oracles.cli import assert_input_error, run

    inst, value = tiny
    (tmp_path / "job.json").write_text(json.dumps(inst.to_json()))
    result = solve(inst, "dp").to_dict()
    (tmp_path / "ok.json").write_text(json.dumps(result))
    assert run(capsys, "verify", tmp_path / "job.json", tmp_path / "ok.json")[0] == 0
    result["objective"] = factor * value
    result["bound"] = factor * value
    (tmp_path / "bad.json").write_text(json.dumps(result))
    assert_input_error(*run(capsys, "verify", tmp_path / "job.json", tmp_path / "bad.json")[::2], "objective")


# --- integer problems --------------------------------------------------------------------------------

BIG = [10**9, 500_000_001]  # one free machine: the makespan is the sum, 1,500,000,001


def _slack_claiming(instance, objective, bound, proven=True):
    """``solve`` (slack problem) by a method that claims ``objective`` and ``bound`` for the schedule
    running every job back to back on machine 0 from time 0, longest first (makespan: the sum of ``p``)."""
    from volsched.solvers.problem import solve as solve_problem
    from volsched.solvers.slack import PROBLEMS as SLACK

    schedule, clock = [None] * instance.n, 0
    for j in sorted(range(instance.n), key=lambda j: (-int(instance.p[j]), j)):
        schedule[j] = [0, clock]
        clock += int(instance.p[j])
    claim = {
        "claim": lambda i, t, s: MethodOutcome(
            {"schedule": schedule, "beta": i.beta}, objective, bound, proven
        )
    }
    problems = {"slack": dataclasses.replace(SLACK["slack"], methods=claim, budgets={})}
    return solve_problem("slack", problems, instance, "slack", "claim")


def _one_free_machine(p):
    from volsched.instances.slack import SlackInstance

    return SlackInstance(machines=[[]], p=list(p), name="free")


def test_a_slack_claim_off_by_one_is_kept_aside_and_proves_nothing():
    inst = _one_free_machine(BIG)
    res = _slack_claiming(inst, 1_500_000_000, 1_500_000_000)
    assert res.objective == 1_500_000_001  # hand-derived: the two jobs back to back
    assert res.info["claimed_objective"] == 1_500_000_000
    assert res.status is SolveStatus.FEASIBLE and res.bound == 1_500_000_000


def test_a_slack_bound_one_past_the_makespan_is_rejected_by_name():
    inst = _one_free_machine(BIG)
    with pytest.raises(VerificationError, match=r"bound 1500000002.* is above the verified value 1500000001"):
        _slack_claiming(inst, 1_500_000_001, 1_500_000_002)


def test_a_slack_claim_that_is_not_an_integer_is_wrong():
    inst = _one_free_machine([3, 4])
    res = _slack_claiming(inst, 7 + 1e-12, 7)
    assert res.info["claimed_objective"] == 7 + 1e-12 and res.objective == 7
    assert res.status is SolveStatus.OPTIMAL  # the bound still meets the verified value: that proves it


@settings(max_examples=200, deadline=None)
@given(p=st.lists(st.integers(1, 10**9), min_size=1, max_size=4), off=st.sampled_from([-1, 1]))
@example(p=BIG, off=-1)
def test_integer_claims_off_by_one_are_rejected(p, off):
    """Property: on an integer problem, any claim off by one disagrees and any bound one past a
    feasible value is rejected, whatever the magnitude (the sum of ``p`` is hand-derived)."""
    value = sum(p)
    assert not agrees(value + off, value) and not agrees(float(value + off), value)
    assert agrees(value, value) and agrees(float(value), value)
    inst = _one_free_machine(p)
    res = _slack_claiming(inst, value + off, value + off if off < 0 else value)
    assert res.objective == value and res.info["claimed_objective"] == value + off
    assert res.status is (SolveStatus.FEASIBLE if off < 0 else SolveStatus.OPTIMAL)
    with pytest.raises(VerificationError, match="is above the verified value"):
        _slack_claiming(inst, value, value + 1)


_TINY: dict = {}


def _tiny_waste() -> tuple:
    if not _TINY:
        inst = CheckpointInstance(p=[10, 10], c=[1, 1], alpha=1.0, law=Exponential(rate=1e-15))
        _TINY["v"] = (inst, solve(inst, "brute").objective)
    return _TINY["v"]


@settings(max_examples=60, deadline=None)
@given(r=st.floats(-CLAIM_RTOL / 2, CLAIM_RTOL / 2), scale=st.sampled_from([1e-13, 1.0, 1e9]))
def test_float_claims_within_the_stated_tolerance_still_agree(r, scale):
    """Property: a float problem (checkpoint) accepts a claim within :data:`CLAIM_RTOL` of the verified
    value, as objective and as bound, on either side."""
    value = 0.123456789 * scale
    assert agrees(value * (1 + r), value) and not agrees(value * (1 + 4 * CLAIM_RTOL), value)
    inst, waste = _tiny_waste()
    near = waste * (1 + r)
    PROBLEMS["checkpoint"].methods["claim-near"] = lambda i, t, s: MethodOutcome({"a": A}, near, near, True)
    try:
        res = solve(inst, "claim-near")
    finally:
        del PROBLEMS["checkpoint"].methods["claim-near"]
    assert res.status is SolveStatus.OPTIMAL and res.objective == waste == res.bound
    assert "claimed_objective" not in res.info
