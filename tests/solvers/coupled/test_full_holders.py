"""Problem ``full``: the search that tracks the program holders, against the replay and brute force."""

import dataclasses

import numpy as np
import pytest
from oracles.coupled.full import brute_full, random_tiny

from volsched.instances.coupled import paper_realization
from volsched.solvers import SolveStatus
from volsched.solvers.coupled import solve
from volsched.solvers.coupled.full_bound import DataChain
from volsched.solvers.coupled.full_holders import applies, holder_search
from volsched.solvers.coupled.replay import check_claim
from volsched.solvers.problem import STOPPED_BUDGET, Allowance


def tiny_with_channels(rng, count):
    """Random tiny instances where the master can serve every enrolled worker at once."""
    out = []
    while len(out) < count:
        instance = random_tiny(rng, max_p=3, max_h=10, max_k=3)
        out.append(dataclasses.replace(instance, n_com=max(instance.n_com, instance.m)))
    return out


def test_every_schedule_is_accepted_by_the_replay_and_is_never_below_the_optimum():
    rng = np.random.default_rng(5)
    found = optimal = feasible = 0
    for instance in tiny_with_channels(rng, 150):
        optimum = brute_full(instance)
        schedule = holder_search(instance, instance.horizon + 1, DataChain(instance))
        if optimum is None:
            assert schedule is None
            continue
        feasible += 1
        if schedule is not None:
            found += 1
            makespan = schedule["completions"][-1] + 1
            assert check_claim(instance, schedule) == makespan >= optimum
            optimal += makespan == optimum
    # measured: 57 feasible, a schedule and the optimum on all 57
    assert feasible >= 40 and found >= 0.9 * feasible and optimal >= 0.9 * feasible


def test_it_only_returns_schedules_below_the_incumbent():
    rng = np.random.default_rng(6)
    for instance in tiny_with_channels(rng, 60):
        optimum = brute_full(instance)
        if optimum is None:
            continue
        assert holder_search(instance, optimum, DataChain(instance)) is None
        schedule = holder_search(instance, optimum + 1, DataChain(instance))
        if schedule is not None:
            assert check_claim(instance, schedule) == optimum


def test_on_a_paper_realization_it_meets_the_lower_bound_the_greedy_misses():
    # Section VII-A, m = 5, n_com = 10, w_min = 1, scenario 4, trial 5: the greedy's schedule
    # ends at 130, the data chain at 126; the holder search's at 126, which proves it optimal.
    instance = paper_realization(5, 10, 1, 4, 5)
    result = solve(instance, problem="full", method="greedy")
    assert result.status == SolveStatus.OPTIMAL and result.objective == result.bound == 126
    assert result.info["source"] == "holders"


def test_fewer_channels_than_tasks_are_not_searched():
    instance = paper_realization(5, 5, 1, 0, 0, slots=300)
    assert applies(instance)
    narrow = dataclasses.replace(instance, n_com=4)
    assert not applies(narrow) and holder_search(narrow, 301, DataChain(narrow)) is None


@pytest.mark.parametrize("budget", [1, 3])
def test_a_search_stopped_by_its_budget_returns_nothing(budget):
    instance = paper_realization(5, 20, 1, 0, 5, slots=200)
    allowance = Allowance(budget)
    assert holder_search(instance, 201, DataChain(instance), allowance) is None
    assert allowance.effort.stopped == STOPPED_BUDGET and allowance.effort.work == budget
