"""Problem ``full``: the windows that follow the holder bound's path, against brute force and the replay."""

import dataclasses
import itertools

import numpy as np
import pytest
from oracles.coupled.full import brute_full, program_holders, random_tiny

from volsched.instances.coupled import paper_realization
from volsched.solvers import SolveStatus
from volsched.solvers.coupled import solve
from volsched.solvers.coupled.full import Windows
from volsched.solvers.coupled.full_bound import DataChain
from volsched.solvers.coupled.full_cpsat import solve_full_cpsat
from volsched.solvers.coupled.full_holders import holder_search
from volsched.solvers.coupled.full_holders_bound import holders_bound
from volsched.solvers.coupled.full_windows import FOLLOW_BUDGET, dominating, follow_path
from volsched.solvers.coupled.replay import replay


@pytest.mark.parametrize("seed", range(4))
def test_the_model_from_program_holders_is_the_brute_force(seed):
    rng = np.random.default_rng(seed)
    for _ in range(10):
        instance = random_tiny(rng, max_p=3, max_h=8, max_k=2)
        holders = {q for q in range(instance.p) if rng.random() < 0.5}
        _, makespan, bound, proven = solve_full_cpsat(instance, holders=holders, workers=1)
        expected = brute_full(instance, holders)
        assert proven
        assert makespan == expected
        if expected is None:
            assert bound == instance.horizon + 1


def _one_iteration(rng):
    """Tiny one-iteration instances, each with whether an iteration fits (brute force)."""
    while True:
        instance = random_tiny(rng, max_p=3, max_h=9, max_k=1)
        yield instance, brute_full(instance) is not None


@pytest.mark.parametrize("seed", range(4))
def test_a_gathering_window_completes_in_it_sends_nothing_after_and_names_its_holders(seed):
    rng = np.random.default_rng(100 + seed)
    checked = 0
    for instance, fits in _one_iteration(rng):
        if checked == 8:
            break
        gather = [q for q in range(instance.p) if rng.random() < 0.6]
        schedule, makespan, bound, proven = solve_full_cpsat(instance, workers=1, gather=gather)
        if not fits:
            assert schedule is None and proven and bound == instance.horizon + 1
            continue
        assert schedule is not None and not proven and bound is None
        completion = replay(instance, schedule)[0]
        assert completion == schedule["completions"][0] == makespan - 1
        assert all(len(row) <= completion + 1 for row in schedule["communication"])
        assert all(c["start"] <= completion for c in schedule["configurations"])
        assert schedule["holders"] == program_holders(instance, schedule, completion + 1)
        assert schedule["kept"] == program_holders(instance, schedule, instance.horizon)
        checked += 1


@pytest.mark.parametrize("seed", range(3))
def test_a_window_solved_again_keeps_a_program_outside_every_excluded_set_until_none_can(seed):
    rng = np.random.default_rng(200 + seed)
    fitting = (instance for instance, fits in _one_iteration(rng) if fits)
    for instance in itertools.islice(fitting, 4):
        gather = list(range(instance.p))
        excluded, counts = [], []
        while True:
            schedule, _, _, _ = solve_full_cpsat(instance, workers=1, gather=gather, exclude=excluded)
            if schedule is None:
                break
            kept = program_holders(instance, schedule, instance.horizon)
            assert schedule["kept"] == kept
            assert not any(set(kept) <= set(other) for other in excluded)
            excluded.append(kept)
            counts.append(len(set(kept) & set(gather)))
        assert counts == sorted(counts, reverse=True)  # each solve is optimal among the sets left
        assert len(excluded) <= 2**instance.p


def test_following_the_bound_path_proves_a_realization_the_holder_search_misses():
    # m = 10: the search's iterations reach slot 173; the holder bound's path, 141, needs seven
    # slow processors that stay UP to hold programs by slot 46, preloaded over several iterations.
    instance = paper_realization(10, 5, 1, 0, 6, slots=200)
    chain = DataChain(instance)
    assert holder_search(instance, 173, chain) is None
    path = []
    bound = holders_bound(instance, 173, chain, path=path)
    schedule = follow_path(instance, path, 173)
    assert replay(instance, schedule)[-1] + 1 == bound == 141
    assert follow_path(instance, path, 141) is None  # only schedules below the incumbent


def test_a_solve_solves_each_window_once_and_its_windows_share_one_budget():
    instance = paper_realization(10, 5, 1, 0, 6, slots=200)
    path = []
    holders_bound(instance, 173, DataChain(instance), path=path)
    windows = Windows()
    first = follow_path(instance, path, 173, windows=windows)
    solved, spent = dict(windows.solved), windows.spent.work
    assert first is not None and 0 < spent <= FOLLOW_BUDGET
    again = follow_path(instance, path, 173, windows=windows)  # a second pass after a new incumbent
    assert again == first
    assert windows.solved == solved and windows.spent.work == spent
    windows.spent.add(FOLLOW_BUDGET - spent)  # nothing left: only windows already solved are reused
    assert follow_path(instance, path, 173, windows=windows) == first
    assert follow_path(instance, path, 173, windows=Windows()) == first


def test_a_dead_end_sends_the_walk_back_one_window_without_the_set_that_led_there(monkeypatch):
    # Iteration 1's window from holders {0} fits nothing; from {1} it fits. The walk solves
    # iteration 0 again with a program kept outside {0}, and goes on from {1}.
    import volsched.solvers.coupled.full_cpsat as full_cpsat

    calls = []

    def window(instance, *, holders, exclude, **_):
        calls.append((instance.horizon, sorted(holders), [sorted(e) for e in exclude]))
        if not holders:  # iteration 0: keeps {0} first, {1} once {0} is excluded
            kept = [1] if [0] in exclude else [0]
        elif holders == {0}:
            return None, None, instance.horizon + 1, True
        else:
            kept = [1]
        p = instance.p
        found = {"configurations": [{"start": 0, "allocation": [1] * p}], "communication": [""] * p}
        return {**found, "completions": [4], "holders": kept, "kept": kept}, 5, None, False

    monkeypatch.setattr(full_cpsat, "solve_full_cpsat", window)
    instance = paper_realization(5, 5, 1, 0, 0, slots=200)
    instance = dataclasses.replace(instance, K=2)
    schedule = follow_path(instance, [(5, 0b11), (10, 0b11)], 100)
    assert calls == [(5, [], []), (5, [0], []), (5, [], [[0]]), (5, [1], [])]
    assert schedule["completions"] == [4, 9]


def test_a_window_without_an_iteration_after_its_first_share_runs_again_with_the_lp(monkeypatch):
    import volsched.solvers.coupled.full_cpsat as full_cpsat
    import volsched.solvers.coupled.full_windows as full_windows

    calls = []

    def window(instance, *, budget, effort, **parameters):
        lp = "linearization_level" not in parameters
        calls.append((round(budget, 6), lp))
        effort.add(budget if not lp else 1.0, None)
        if not lp:  # the model without the LP finds nothing in its share
            return None, None, None, False
        found = {"configurations": [], "communication": [""] * instance.p, "completions": [3]}
        return {**found, "holders": [], "kept": []}, 4, None, False

    monkeypatch.setattr(full_cpsat, "solve_full_cpsat", window)
    instance = dataclasses.replace(paper_realization(5, 5, 1, 0, 0, slots=200), K=1)
    windows = Windows()
    assert follow_path(instance, [(5, 0)], 100, windows=windows)["completions"] == [3]
    first = full_windows.FIRST_BUDGET
    rest = min(full_windows.WINDOW_BUDGET, full_windows.FOLLOW_BUDGET) - first
    assert calls == [(first, False), (rest, True)]
    assert windows.spent.work == first + 1.0


def test_it_starts_from_the_search_states_at_least_as_far_along_the_path_latest_first():
    path = [(10, 0b011), (20, 0b110), (30, 0b100)]
    layers = [
        [(9, 0b111, "a"), (10, 0b001, "b")],
        [(21, 0b111, "c"), (19, 0b110, "d"), (18, 0b1110, "e")],
    ]
    starts = dominating(path, layers)
    assert [(k, s, h, prefix) for k, s, h, prefix in starts] == [(2, 18, 0b1110, "e"), (1, 9, 0b111, "a")]


def test_solve_proves_the_optimum_by_following_the_path_where_the_other_methods_leave_a_gap():
    instance = paper_realization(10, 5, 1, 0, 6, slots=200)
    result = solve(instance, problem="full", method="greedy", budget=100_000)
    assert result.status == SolveStatus.OPTIMAL
    assert (result.objective, result.bound) == (141, 141)
    assert result.info["source"] == "windows"
