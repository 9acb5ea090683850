"""Column-generation bound and primal heuristic of the slack problem against brute force.

The LP bound (:mod:`volsched.solvers.slack.colgen`) must never pass the brute-force optimum
(:mod:`oracles.slack.brute`) at any beta; every primal schedule must pass the independent verifier and
never beat the optimum; the whole method must prove the brute-force optimum.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.slack.brute import BETAS, brute_force, small_instance

from volsched.instances.slack import SlackInstance
from volsched.solvers import SolveStatus
from volsched.solvers.problem import Allowance
from volsched.solvers.slack import solve
from volsched.solvers.slack.bound import lower_bound
from volsched.solvers.slack.colgen import lp_bound
from volsched.solvers.slack.primal import best_fill, fill
from volsched.solvers.slack.problems import greedy, makespan_of, schedule_of
from volsched.solvers.slack.verify import verify_slack


def cut(inst: SlackInstance, beta: float) -> int:
    inst = inst.with_beta(beta)
    return lower_bound(inst, "slack", beta=inst.beta_ratio)


def _lp(inst):
    lo, hi = cut(inst, inst.beta), makespan_of(inst, greedy(inst, "slack"))
    return lo, lp_bound(inst, lo, hi).bound


@pytest.mark.parametrize("seed", range(80))
def test_lp_bound_is_below_the_optimum(seed):
    base = small_instance(np.random.default_rng(seed))
    for beta in BETAS:
        inst = base.with_beta(beta)
        lo, bound = _lp(inst)
        assert lo <= bound <= brute_force(inst, "slack", beta)[0], (beta, inst.to_json())


def test_lp_bound_lifts_the_cut_often():
    lifted = 0
    for seed in range(80):
        base = small_instance(np.random.default_rng(seed))
        for beta in (0.5, 1.0):
            lo, bound = _lp(base.with_beta(beta))
            lifted += bound > lo
    assert lifted >= 5


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), beta=st.sampled_from(BETAS))
def test_lp_bound_property(seed, beta):
    inst = small_instance(np.random.default_rng(seed)).with_beta(beta)
    assert _lp(inst)[1] <= brute_force(inst, "slack", beta)[0]


def test_lp_bound_under_an_allowance_is_deterministic_and_valid():
    inst = small_instance(np.random.default_rng(7)).with_beta(0.7)
    lo, hi = cut(inst, 0.7), makespan_of(inst, greedy(inst, "slack"))
    runs = [lp_bound(inst, lo, hi, Allowance(budget=1e-9)) for _ in range(2)]
    assert runs[0].bound == runs[1].bound and runs[0].ticks == runs[1].ticks
    assert runs[0].rounds == 0 and runs[0].bound == lo  # a pricing pass would pass the allowance


@pytest.mark.parametrize("seed", range(60))
def test_primal_schedules_are_verified(seed):
    base = small_instance(np.random.default_rng(seed))
    for beta in BETAS:
        inst = base.with_beta(beta)
        opt = brute_force(inst, "slack", beta)[0]
        for horizon in (opt, opt + 3, 2 * opt):
            contents, value, _ = fill(inst, horizon)
            assert (
                verify_slack(
                    inst, {"problem": "slack", "beta": beta, "schedule": schedule_of(inst, contents)}
                )
                == value
                >= opt
            )
        contents, value, _ = best_fill(inst, opt, 2 * opt)
        assert verify_slack(inst, {"problem": "slack", "schedule": schedule_of(inst, contents)}) == value


@pytest.mark.parametrize("seed", range(40))
def test_method_proves_the_brute_force_optimum(seed):
    base = small_instance(np.random.default_rng(seed))
    for beta in (0.25, 0.7):
        inst = base.with_beta(beta)
        result = solve(inst, method="cpsat")
        assert result.status == SolveStatus.OPTIMAL
        assert int(result.objective) == brute_force(inst, "slack", beta)[0]


def test_budgeted_method_is_deterministic():
    from volsched.instances.slack.generators import generate_paper

    inst = generate_paper(machines=20, jobs=120, seed=2, beta=0.7)
    a, b = (solve(inst, method="cpsat", budget=0.5) for _ in range(2))
    assert (a.objective, a.bound, a.work) == (b.objective, b.bound, b.work)
    assert a.bound <= a.objective
