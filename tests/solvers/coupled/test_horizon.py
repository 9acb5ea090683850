"""The schedule problems read an extendable instance's realization as far as the answer needs."""

from __future__ import annotations

import dataclasses
import time

import pytest
from oracles.registry import limits

from volsched.families import FAMILIES
from volsched.instances.coupled import generate_markov
from volsched.solvers.coupled import full as full_module
from volsched.solvers.coupled import horizon
from volsched.solvers.coupled.full_greedy import greedy_full
from volsched.solvers.coupled.horizon import cut

FAMILY = FAMILIES["coupled"]
SCHEDULE_METHODS = [(p, m) for p in ("iterations", "full") for m in FAMILY.problems[p].methods]
#: The time-indexed models read the stored slots only (their size is the file's).
STORED_ONLY = [(p, m) for p, m in SCHEDULE_METHODS if m == "cpsat"]
READERS = [pm for pm in SCHEDULE_METHODS if pm not in STORED_ONLY]


def _short(seed: int):
    """Ten stored slots, while four iterations of workload 3 (plus communication) need more."""
    return dataclasses.replace(generate_markov(5, 10, 3, seed, 3), K=4, T_prog=2, T_data=1, n_com=2)


@pytest.mark.parametrize(("problem", "method"), READERS)
@pytest.mark.parametrize("seed", range(3))
def test_the_answer_reads_beyond_the_stored_slots_and_verifies_on_the_original(problem, method, seed):
    instance = _short(seed)
    result = FAMILY.solve(instance, problem=problem, method=method, **limits("coupled", problem, method))
    assert result.verified
    assert result.objective > instance.horizon
    assert result.info["slots_read"] >= result.objective
    _, value = FAMILY.verify(instance, result.solution)  # the replay reads the realization
    assert value == result.objective


@pytest.mark.parametrize(("problem", "method"), [pm for pm in READERS if pm != ("full", "greedy")])
@pytest.mark.parametrize("seed", range(3))
def test_reading_further_does_not_change_the_optimum(problem, method, seed):
    instance = _short(seed)
    result = FAMILY.solve(instance, problem=problem, method=method, **limits("coupled", problem, method))
    assert result.status.value == "optimal"
    further = cut(instance, 2 * result.info["slots_read"])  # stored slots only, twice as many
    again = FAMILY.solve(further, problem=problem, method=method, **limits("coupled", problem, method))
    assert again.status.value == "optimal"
    assert again.objective == result.objective


@pytest.mark.parametrize(("problem", "method"), STORED_ONLY)
@pytest.mark.parametrize("seed", range(3))
def test_time_indexed_models_read_the_stored_slots_and_claim_no_infeasibility(problem, method, seed):
    instance = _short(seed)
    result = FAMILY.solve(instance, problem=problem, method=method, **limits("coupled", problem, method))
    assert result.status.value == "unknown"  # not infeasible: the realization goes on
    assert result.bound == instance.horizon + 1
    assert result.info["slots_read"] == instance.horizon and "horizon" in result.info
    if problem == "iterations":  # on the prefix the chain read, stored, the model proves its optimum
        chain = FAMILY.solve(instance, problem=problem, method="chain")
        exact = FAMILY.solve(
            cut(instance, chain.info["slots_read"]),
            problem=problem,
            method=method,
            **limits("coupled", problem, method),
        )
        assert exact.status.value == "optimal" and exact.objective == chain.objective


@pytest.mark.parametrize("seed", range(3))
def test_full_greedy_is_bracketed_by_the_exact_optimum(seed):
    instance = _short(seed)
    greedy = FAMILY.solve(instance, problem="full", method="greedy", **limits("coupled", "full", "greedy"))
    exact = FAMILY.solve(
        cut(instance, greedy.info["slots_read"]),
        problem="full",
        method="cpsat",
        **limits("coupled", "full", "cpsat"),
    )
    assert exact.status.value == "optimal"
    assert greedy.bound <= exact.objective <= greedy.objective


def test_a_stored_matrix_alone_is_still_read_only_to_its_horizon():
    instance = cut(_short(0), 10)
    assert not instance.extendable
    result = FAMILY.solve(instance, problem="iterations", method="chain")
    assert result.status.value == "infeasible"
    assert result.bound == instance.horizon + 1
    assert "slots_read" not in result.info


def test_infeasible_only_at_the_cap(monkeypatch):
    monkeypatch.setattr(horizon, "PAPER_CAP", 11)
    result = FAMILY.solve(_short(0), problem="iterations", method="chain")
    assert result.status.value == "infeasible"
    assert result.info["slots_read"] == 11
    assert "the paper's cap" in result.info["reason"]


def test_an_attempt_that_would_overrun_the_time_limit_is_not_started(monkeypatch):
    monkeypatch.setattr(horizon, "GROWTH", 1e12)
    instance = _short(0)
    result = FAMILY.solve(instance, problem="iterations", method="chain", time_limit=5)
    assert result.status.value == "unknown"
    assert result.bound == instance.horizon + 1  # proven of the stored slots, true of the realization
    assert result.info["slots_read"] == instance.horizon
    assert "overrun the time limit" in result.info["stopped"]


def test_the_greedy_gives_up_at_its_deadline():
    instance = cut(_short(1), 160)
    assert greedy_full(instance) is not None
    assert greedy_full(instance, deadline=time.perf_counter() - 1) is None


def test_full_greedy_past_its_time_limit_keeps_its_bounds(monkeypatch):
    def slow_greedy(instance, deadline, target):
        time.sleep(0.02)
        return None, False

    monkeypatch.setattr(full_module, "plain_passes", slow_greedy)
    out = full_module.solve_full(cut(_short(1), 160), 0.01, 0, model=False)
    assert out.objective is None and not out.proven
    assert out.bound > 10  # the lower bounds computed before the greedy
    assert "stopped by the time limit" in out.info["stopped"]


def test_compilation_in_the_first_attempt_does_not_stop_the_reading():
    """A cold numba cache makes the first attempt slow once; the projection extrapolates the method's
    own cost, so the reading still goes on to the prefix that holds a schedule."""
    from numba.core.event import trigger_event

    from volsched.solvers.problem import MethodOutcome

    instance = _short(0)
    reads = []

    def method(prefix, time_limit, seed):
        if not reads:
            with trigger_event("numba:compiler_lock"):
                time.sleep(1.0)
        reads.append(prefix.horizon)
        found = prefix.horizon >= 4 * instance.horizon
        return MethodOutcome({"made": True} if found else None, 1.0 if found else None, 0.0, False, {})

    outcome = horizon.reading(method)(instance, 4.0, 0)
    assert reads == [instance.horizon, 2 * instance.horizon, 4 * instance.horizon]
    assert outcome.objective == 1.0 and "stopped" not in outcome.info
