"""A method's claimed objective is compared with the verifier's relatively, however small (issue 14).

:func:`volsched.solvers.problem.finish` compared them with an absolute
tolerance of 1e-12 as well: a checkpoint waste of 1e-13 then agreed with any
claim below 1e-12 (twice the value, half of it, zero), so a wrong claim and a
wrong bound passed as a proof of optimality.
"""

from __future__ import annotations

import math

import pytest

from volsched.instances.checkpoint import CheckpointInstance
from volsched.instances.laws import Exponential
from volsched.solvers import SolveStatus, VerificationError
from volsched.solvers.checkpoint import PROBLEMS, solve
from volsched.solvers.problem import CLAIM_RTOL, MethodOutcome

A = [1, 1]


@pytest.fixture
def tiny():
    """A valid job whose optimal waste is about 1.5e-13 (failures almost never happen)."""
    inst = CheckpointInstance(p=[10, 10], c=[1, 1], alpha=1.0, law=Exponential(rate=1e-15))
    value = solve(inst, "brute").objective
    assert 1e-14 < value < 1e-12 and solve(inst, "brute").solution["a"] == A
    return inst, value


def _claiming(monkeypatch, objective, bound, proven=True):
    monkeypatch.setitem(PROBLEMS["checkpoint"].methods, "claim",
                        lambda i, t, s: MethodOutcome({"a": A}, objective, bound, proven))


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

    from cli_helpers import assert_input_error, run

    inst, value = tiny
    (tmp_path / "job.json").write_text(json.dumps(inst.to_json()))
    result = solve(inst, "dp").to_dict()
    (tmp_path / "ok.json").write_text(json.dumps(result))
    assert run(capsys, "verify", tmp_path / "job.json", tmp_path / "ok.json")[0] == 0
    result["objective"] = factor * value
    result["bound"] = factor * value
    (tmp_path / "bad.json").write_text(json.dumps(result))
    assert_input_error(*run(capsys, "verify", tmp_path / "job.json", tmp_path / "bad.json")[::2], "objective")
