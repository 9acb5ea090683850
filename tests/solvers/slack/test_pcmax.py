"""``P||C_max`` on instances without intervals (:mod:`volsched.solvers.slack.pcmax`) against brute force.

The oracle enumerates every job-to-machine assignment (``m^n``, small cases). The search is also
checked through the family's ``cpsat`` method (both problems: without intervals, both are
``P||C_max``), and with too few nodes: then it proves only a lower bound, never an optimum.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volsched.instances.slack import SlackInstance
from volsched.solvers import SolveStatus
from volsched.solvers.slack import solve
from volsched.solvers.slack.pcmax import lower_bound, solve_pcmax


def brute(p: list[int], m: int) -> int:
    best = sum(p)
    for machine in itertools.product(range(m), repeat=len(p)):
        loads = [0] * m
        for j, i in enumerate(machine):
            loads[i] += p[j]
        best = min(best, max(loads))
    return best


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 4), st.lists(st.integers(1, 15), min_size=1, max_size=7))
def test_optimum_and_schedule_match_brute_force(m, p):
    opt = brute(p, m)
    assert lower_bound(p, m) <= opt
    found = solve_pcmax(p, m, sum(p) + 1)
    assert found.finished and found.value == found.lower == opt
    loads = [0] * m
    for j, i in enumerate(found.machine):
        loads[i] += p[j]
    assert max(loads) == opt


def test_grahams_lpt_instance():
    """m = 5: sizes 9, 9, 8, 8, ..., 5, 5, 5; LPT gives 19, the optimum is 15 (by hand: 9+6, 9+6,
    8+7, 8+7, 5+5+5)."""
    found = solve_pcmax([9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 5], 5, 19)
    assert (found.value, found.finished) == (15, True)


@pytest.mark.parametrize("seed", range(6))
def test_too_few_nodes_prove_only_a_bound(seed):
    rng = np.random.default_rng(seed)
    p = [int(v) for v in rng.integers(5, 40, size=7)]
    opt = brute(p, 3)
    found = solve_pcmax(p, 3, sum(p) + 1, max_nodes=1)
    assert found.lower <= opt
    if not found.finished:
        assert found.machine is None and found.value == sum(p) + 1


@pytest.mark.parametrize("problem", ["plain", "slack"])
def test_the_families_method_on_instances_without_intervals(problem):
    """The ``cpsat`` method proves the brute-force optimum without calling CP-SAT, on instances
    where LPT (its greedy) is not optimal too."""
    beaten = 0
    for seed in range(30):
        rng = np.random.default_rng([seed, 7])
        m, n = int(rng.integers(2, 4)), int(rng.integers(5, 8))
        p = [int(v) for v in rng.integers(3, 12, size=n)]
        inst = SlackInstance(machines=tuple(np.zeros((0, 2), np.int64) for _ in range(m)), p=np.array(p))
        result = solve(inst, problem=problem, budget=2.0)
        assert result.status is SolveStatus.OPTIMAL
        assert result.objective == brute(p, m)
        assert result.info["phases"] == []  # no CP-SAT model was solved
        beaten += result.info["greedy_makespan"] > result.objective
    assert beaten >= 5
