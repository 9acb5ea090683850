"""How CBC runs are read (``solvers/cbc.py``): a verdict only from a search that finished.

Real CBC runs give each verdict of a finished search and each stop (node limit, time limit);
a stand-in CBC replays what CBC 2.10.3 wrote when its time limit stopped the pre-processing of
the shared slack repro (``Pre-processing says infeasible or unbounded`` after 0.62 s of a
0.2 s limit, solution file ``Integer infeasible``), which PuLP reads as ``Infeasible``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pulp
import pytest
from oracles.cbc import PREPROCESSING_STOPPED_LOG, fake_cbc

from volsched.solvers.cbc import INFEASIBLE, OPTIMAL, STOPPED, read_log, run_cbc
from volsched.solvers.problem import STOPPED_BUDGET, STOPPED_CLOCK, Effort


@pytest.fixture
def preprocessing_stopped(tmp_path, monkeypatch):
    """CBC replaced by the replay of its pre-processing stopped by the time limit."""
    fake_cbc(
        monkeypatch, tmp_path, PREPROCESSING_STOPPED_LOG, "Integer infeasible - objective value 3012.00000000"
    )


def _data(n: int, seed: int):
    rng = np.random.default_rng(seed)
    value = rng.integers(20, 60, n)
    weights = [rng.integers(20, 60, n) for _ in range(4)]
    return [int(v) for v in value], [[int(v) for v in w] for w in weights]


def _knapsack(n: int, seed: int = 0, at_least: int | None = None) -> pulp.LpProblem:
    """Four knapsack constraints, each at half the items' weight; ``at_least``: a floor on the value."""
    value, weights = _data(n, seed)
    prob = pulp.LpProblem("knapsack", pulp.LpMaximize)
    x = [prob.add_variable(f"x{i}", cat="Binary") for i in range(n)]
    prob += pulp.lpSum(v * xi for v, xi in zip(value, x, strict=True))
    for w in weights:
        prob += pulp.lpSum(wi * xi for wi, xi in zip(w, x, strict=True)) <= sum(w) // 2
    if at_least is not None:
        prob += pulp.lpSum(v * xi for v, xi in zip(value, x, strict=True)) >= at_least
    return prob


def _enumerated(n: int, seed: int = 0) -> int:
    value, weights = _data(n, seed)
    best = 0
    for chosen in itertools.product((0, 1), repeat=n):
        if all(sum(wi * c for wi, c in zip(w, chosen, strict=True)) <= sum(w) // 2 for w in weights):
            best = max(best, sum(v * c for v, c in zip(value, chosen, strict=True)))
    return best


def test_a_finished_search_is_optimal_and_matches_enumeration():
    prob = _knapsack(10)
    run = run_cbc(prob)
    assert run.verdict == OPTIMAL and run.finished and run.solution and run.stopped is None
    assert round(pulp.value(prob.objective)) == _enumerated(10)


def test_a_proven_infeasible_model_is_infeasible():
    run = run_cbc(_knapsack(10, at_least=10**6))
    assert run.verdict == INFEASIBLE and run.finished and not run.solution


def test_a_node_limit_is_a_stop_on_the_budget():
    effort = Effort()
    run = run_cbc(_knapsack(60), max_nodes=1, effort=effort)
    assert run.verdict == STOPPED and not run.finished and run.stopped == STOPPED_BUDGET
    assert effort.stopped == STOPPED_BUDGET and effort.work == run.nodes <= 1


def test_the_node_limit_gives_the_same_run_twice():
    first, second = _knapsack(60), _knapsack(60)
    runs = [run_cbc(first, max_nodes=5), run_cbc(second, max_nodes=5)]
    assert runs[0] == runs[1]
    assert pulp.value(first.objective) == pulp.value(second.objective)


def test_preprocessing_cut_by_the_time_limit_proves_nothing(preprocessing_stopped):
    prob = _knapsack(5)
    effort = Effort()
    run = run_cbc(prob, time_limit=0.2, effort=effort)
    assert pulp.LpStatus[prob.status] == "Infeasible"  # what PuLP reads, and the bug took as a proof
    assert run.verdict == STOPPED and not run.solution and run.stopped == STOPPED_CLOCK
    assert effort.stopped == STOPPED_CLOCK


@pytest.mark.parametrize("time_limit", [None, 5.0])
def test_preprocessing_infeasible_within_the_limit_is_a_proof(preprocessing_stopped, time_limit):
    assert run_cbc(_knapsack(5), time_limit=time_limit).verdict == INFEASIBLE


def test_preprocessing_infeasible_with_an_unbounded_variable_is_no_proof(preprocessing_stopped):
    prob = _knapsack(5)
    free = prob.add_variable("free", cat="Integer")
    prob += free <= 3  # a constraint, not a bound: the variable stays unbounded below
    assert run_cbc(prob).verdict == STOPPED


def test_an_optimal_result_line_needs_an_optimal_solution_file():
    prob = _knapsack(10)
    run_cbc(prob)
    prob.sol_status = pulp.LpSolutionIntegerFeasible  # what "Stopped on time - objective value" gives
    log = "Result - Optimal solution found\nEnumerated nodes: 0\n"
    assert read_log(log, prob, None, None).verdict == STOPPED


def test_cbc_runs_its_serial_search(monkeypatch):
    """No ``-threads``: with one thread CBC 2.10.3 sometimes waits 10 s for its worker to start."""
    import volsched.solvers.cbc as cbc

    logs = []

    def reading(log, *args):
        logs.append(log)
        return read_log(log, *args)

    monkeypatch.setattr(cbc, "read_log", reading)
    prob = pulp.LpProblem("k", pulp.LpMaximize)
    x = [pulp.LpVariable(f"x{i}", cat="Binary") for i in range(10)]
    prob += pulp.lpSum((i + 1) * x[i] for i in range(10))
    prob += pulp.lpSum((i + 2) * x[i] for i in range(10)) <= 20
    assert run_cbc(prob, max_nodes=100).verdict == OPTIMAL
    (log,) = logs
    command = next(line for line in log.splitlines() if line.startswith("command line"))
    assert "-threads" not in command and "maxN" in command
    assert "Thread 0" not in log
