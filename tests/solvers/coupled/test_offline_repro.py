"""The shared repro where MILP under a short limit once claimed fewer common UP slots than its
processors have (``../shared/data/repro/coupled-milp-undercount.json``): every method, stopped early
or not, reports the verified value of its processors, and none claims more than the optimum, 79."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from volsched.instances.coupled import CoupledInstance
from volsched.solvers import SolveStatus
from volsched.solvers.coupled import solve

REPRO = (
    Path(__file__).resolve().parents[3].parent / "shared" / "data" / "repro" / "coupled-milp-undercount.json"
)
OPTIMUM = 79


@pytest.fixture(scope="module")
def instance():
    if not REPRO.exists():
        pytest.skip(f"{REPRO} is absent")
    return CoupledInstance.from_json(json.loads(REPRO.read_text()))


def common_up(instance, processors) -> int:
    """The slots where every chosen processor is UP, counted from the matrix."""
    return int(instance.up[list(processors)].all(axis=0).sum())


def test_the_optimum_is_proven_without_a_limit(instance):
    result = solve(instance, method="bnb")
    assert (result.status, result.objective, result.bound) == (SolveStatus.OPTIMAL, OPTIMUM, OPTIMUM)


@pytest.mark.parametrize(
    ("method", "limit"), [("milp", 1.0), ("milp", 0.05), ("cpsat", 0.05), ("cpsat", 0.01)]
)
def test_a_short_limit_gives_the_verified_value_never_an_undercount(instance, method, limit):
    result = solve(instance, method=method, time_limit=limit)
    assert result.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE, SolveStatus.UNKNOWN)
    if result.status is SolveStatus.UNKNOWN:
        return
    processors = result.solution["processors"]
    assert len(processors) == instance.m
    assert result.objective == common_up(instance, processors) <= OPTIMUM
    assert result.bound is None or result.bound >= OPTIMUM
    if result.status is SolveStatus.OPTIMAL:
        assert result.objective == OPTIMUM
