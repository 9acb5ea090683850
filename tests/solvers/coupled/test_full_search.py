"""Problem ``full``, method ``search``: the completion search against brute force and CP-SAT."""

import dataclasses
import functools

import numpy as np
import pytest
from oracles.coupled.full import brute_full, random_tiny

from volsched.instances.coupled import CoupledInstance
from volsched.solvers import SolveStatus
from volsched.solvers.coupled import PROBLEMS, solve
from volsched.solvers.coupled.full_bound import DataChain
from volsched.solvers.coupled.full_cpsat import solve_full_cpsat
from volsched.solvers.coupled.full_greedy import greedy_full
from volsched.solvers.coupled.full_search import iteration_outcomes, search_full
from volsched.solvers.coupled.replay import check_claim
from volsched.solvers.problem import STOPPED_BUDGET, Allowance


def scratch(instance, budget=None):
    """The search alone: no incumbent, no bound but its own."""
    allowance = Allowance(budget)
    found = search_full(instance, None, 0, None, allowance, DataChain(instance))
    return (*found, allowance.effort)


def paper_like(rng, w_min, p=3):
    """A tiny instance with the paper's proportions (w_q in w_min..3 w_min, T_data = w_min,
    T_prog = 2 w_min: the paper's 5 w_min needs more slots than brute force and CP-SAT reach)."""
    horizon = 12 + 8 * w_min
    avail = rng.choice(3, size=(p, horizon), p=[0.88, 0.08, 0.04]).astype(np.int8)
    return CoupledInstance(
        availability=avail,
        w=rng.integers(w_min, 3 * w_min + 1, p).tolist(),
        mu=[None] * p,
        m=int(rng.integers(2, 4)),
        n_com=int(rng.integers(1, 3)),
        T_prog=2 * w_min,
        T_data=w_min,
        K=2,
    )


def test_the_search_alone_finds_the_brute_force_optimum():
    rng = np.random.default_rng(2)
    feasible = 0
    for _ in range(100):
        instance = random_tiny(rng, max_p=3, max_h=9, max_k=3)
        optimum = brute_full(instance)
        schedule, makespan, bound, finished, _, _ = scratch(instance)
        assert finished and makespan == optimum
        if optimum is not None:
            feasible += 1
            assert bound == optimum and check_claim(instance, schedule) == optimum
    assert feasible >= 25


@pytest.mark.parametrize("w_min", [1, 2, 3])
def test_the_search_agrees_with_brute_force_and_cpsat_at_every_w_min(w_min):
    rng = np.random.default_rng(100 + w_min)
    feasible = 0
    for _ in range(5):
        instance = paper_like(rng, w_min)
        schedule, makespan, bound, finished, _, _ = scratch(instance)
        _found, cp_makespan, _cp_bound, proven = solve_full_cpsat(instance)
        assert finished and proven and makespan == cp_makespan
        if w_min == 1:
            assert makespan == brute_full(instance)
        if makespan is not None:
            feasible += 1
            assert bound == makespan and check_claim(instance, schedule) == makespan
    assert feasible >= 1


def test_the_earliest_completion_of_one_iteration_is_the_brute_force_optimum():
    rng = np.random.default_rng(11)
    for _ in range(80):
        instance = random_tiny(rng, max_p=3, max_h=9, max_k=1)
        front = iteration_outcomes(instance, 0, frozenset())
        optimum = brute_full(instance)
        assert (front[0][0] + 1 if front else None) == optimum
        assert [c for c, _ in front] == sorted(c for c, _ in front)


def test_two_iterations_chained_through_the_front_are_the_brute_force_optimum():
    """The holders each outcome reports are exactly what the next iteration can use."""
    rng = np.random.default_rng(12)
    checked = 0
    for _ in range(60):
        two = random_tiny(rng, max_p=3, max_h=9, max_k=2)
        if two.K != 2:
            continue
        one = dataclasses.replace(two, K=1)
        ends = [
            c2
            for c, held in iteration_outcomes(one, 0, frozenset())
            for c2, _ in iteration_outcomes(one, c + 1, held)[:1]
        ]
        assert (min(ends) + 1 if ends else None) == brute_full(two)
        checked += 1
    assert checked >= 20


def test_the_method_is_registered_with_a_budget_unit():
    assert PROBLEMS["full"].budgets["search"] == "states"


@functools.lru_cache
def _greedy_not_optimal(count):
    """Instances where the greedy's schedule misses the optimum and the method ``greedy`` (the
    search's incumbent and bounds, holder methods included) does not prove it: the search's work."""
    rng = np.random.default_rng(3)
    out = []
    while len(out) < count:
        instance = random_tiny(rng, max_p=3, max_h=9, max_k=3)
        # brute force last: it costs thirty times a solve, and most draws are proven or have no
        # greedy schedule
        if solve(instance, problem="full", method="greedy").status == SolveStatus.OPTIMAL:
            continue
        schedule = greedy_full(instance)
        if schedule is None:
            continue
        optimum = brute_full(instance)
        if optimum is not None and schedule["completions"][-1] + 1 > optimum:
            out.append((instance, optimum))
    return out


def test_the_method_improves_the_greedy_and_proves_the_optimum():
    for instance, optimum in _greedy_not_optimal(3):
        result = solve(instance, problem="full", method="search")
        assert result.status == SolveStatus.OPTIMAL and result.objective == optimum
        assert result.solution["schedule"]["completions"][-1] + 1 == optimum


@pytest.mark.parametrize("budget", [1, 20, 200, 2000])
def test_a_stopped_search_never_claims_optimal_nor_a_bound_above_the_optimum(budget):
    stopped = 0
    for instance, optimum in _greedy_not_optimal(3):
        result = solve(instance, problem="full", method="search", budget=budget)
        assert result.bound <= optimum <= result.objective
        if result.stopped == STOPPED_BUDGET:
            stopped += 1
            assert result.status != SolveStatus.OPTIMAL or result.objective == optimum
        else:
            assert result.status == SolveStatus.OPTIMAL and result.objective == optimum
    if budget == 1:
        assert stopped == 3


def test_a_search_stopped_alone_reports_a_bound_below_the_optimum():
    rng = np.random.default_rng(4)
    for _ in range(60):
        instance = random_tiny(rng, max_p=3, max_h=9, max_k=3)
        optimum = brute_full(instance)
        for budget in (5, 50):
            schedule, makespan, bound, finished, _, effort = scratch(instance, budget)
            if optimum is not None:
                assert bound <= optimum
            if not finished:
                assert effort.stopped == STOPPED_BUDGET
            if makespan is not None:
                assert check_claim(instance, schedule) == makespan >= (optimum or 0)


def test_the_same_budget_gives_the_same_result():
    instance, _ = _greedy_not_optimal(3)[0]
    runs = [solve(instance, problem="full", method="search", budget=30).to_dict() for _ in range(2)]
    for run in runs:
        run.pop("runtime_s")
    assert runs[0] == runs[1]
