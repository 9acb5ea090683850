"""A heuristic run whose traces end before every task completes: the partial verifier (Section 2.1)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from oracles.prescient.heuristics import random_instance

from volsched.heuristics.prescient import HEURISTICS
from volsched.heuristics.prescient.simulator import PrescientSimulator
from volsched.solvers import Infeasible
from volsched.solvers.prescient import PROBLEMS

PROBLEM = PROBLEMS["makespan"]


def _failed_run(seed: int):
    instance = random_instance(seed, hosts=3, tasks=60, minutes=30.0, hours=2.0)
    solution, metrics = PrescientSimulator().run(instance, HEURISTICS["FCFS"], np.random.default_rng(seed))
    return instance, solution, metrics


@pytest.mark.parametrize("seed", range(4))
def test_a_failed_run_replays_and_counts_its_completed_tasks(seed):
    instance, solution, metrics = _failed_run(seed)
    assert metrics["failed"] and metrics["makespan"] is None
    out = PROBLEM.verify_partial(instance, solution)
    done = {a["task"] for a in solution["attempts"] if a["outcome"] == "completed"}
    assert out == {"makespan": None, "completed_tasks": len(done)}
    with pytest.raises(Infeasible, match="has no completed attempt"):
        PROBLEM.verify(instance, solution)


def test_a_failed_run_with_a_wrong_attempt_or_a_makespan_is_rejected():
    instance, solution, _ = _failed_run(0)
    completed = next(i for i, a in enumerate(solution["attempts"]) if a["outcome"] == "completed")
    bad = copy.deepcopy(solution)
    bad["attempts"][completed]["end"] += 5.0
    with pytest.raises(Infeasible, match=rf"attempts\[{completed}\]\.end"):
        PROBLEM.verify_partial(instance, bad)
    with pytest.raises(Infeasible, match=r"solution.makespan"):
        PROBLEM.verify_partial(instance, {**solution, "makespan": 1.0})


def test_every_metric_a_run_reports_is_declared():
    instance = random_instance(1)
    declared = {m.name for m in PROBLEM.metrics}
    for name, policy in HEURISTICS.items():
        _, metrics = PrescientSimulator().run(instance, policy, np.random.default_rng(0))
        assert set(metrics) <= declared, name
