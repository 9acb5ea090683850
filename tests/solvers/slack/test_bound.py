"""The beta-independent lower bound: below brute-force optima, tight on hand cases, same at every beta."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.slack.brute import brute_force

from volsched.instances.slack import SlackInstance
from volsched.instances.slack.generators import generate_paper, generate_planted, generate_theorem2
from volsched.solvers.slack.bound import lower_bound
from volsched.solvers.slack.verify import verify_plain, verify_slack

BETAS = (0.0, 0.5, 1.0)


def _random_instance(rng: np.random.Generator) -> SlackInstance:
    m = int(rng.integers(1, 4))
    machines = []
    for _ in range(m):
        rows, end = [], 0
        for _ in range(int(rng.integers(0, 3))):
            s = end + int(rng.integers(0, 9))
            end = s + int(rng.integers(1, 5))
            rows.append([s, end])
        machines.append(rows)
    p = [int(x) for x in rng.integers(1, 7, size=int(rng.integers(1, 5)))]
    return SlackInstance(machines=machines, p=p)


@pytest.mark.parametrize("seed", range(120))
def test_bound_is_below_the_brute_force_optima(seed):
    inst = _random_instance(np.random.default_rng(seed))
    plain = brute_force(inst, "plain")
    assert plain is not None  # a machine's tail or a free machine always takes the jobs
    assert verify_plain(inst, {"problem": "plain", "schedule": plain[1]}) == plain[0]
    assert lower_bound(inst) <= plain[0]
    previous = plain[0]
    for beta in BETAS:
        best = brute_force(inst, "slack", beta)
        if inst.lam == 0:
            assert best is None and lower_bound(inst, "slack") is None
            continue
        assert best is not None  # everything on a free machine obeys both rules
        assert verify_slack(inst, {"problem": "slack", "beta": beta, "schedule": best[1]}) == best[0]
        assert lower_bound(inst) <= lower_bound(inst, "slack") <= best[0]
        assert previous <= best[0]  # plain <= slack(0) <= slack(0.5) <= slack(1)
        previous = best[0]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), beta=st.sampled_from(BETAS))
def test_bound_does_not_depend_on_beta(seed, beta):
    inst = _random_instance(np.random.default_rng(seed))
    for problem in ("plain", "slack"):
        assert lower_bound(inst.with_beta(beta), problem) == lower_bound(inst, problem)


def test_free_machines_only():
    inst = SlackInstance(machines=[[], []], p=[3, 3, 3])
    assert lower_bound(inst) == lower_bound(inst, "slack") == 5  # ceil(9 / 2); the optimum is 6
    assert lower_bound(SlackInstance(machines=[[]], p=[4, 4])) == 8


def test_long_jobs_stay_out_of_short_periods():
    # availability [0, 2), unavailable [2, 3), then for ever; a free machine; two jobs of 5.
    # work alone: 10 <= T + 2 + (T - 3) gives 6; jobs of 5 cannot use [0, 2): T = 8, the optimum
    inst = SlackInstance(machines=[[[2, 3]], []], p=[5, 5])
    assert lower_bound(inst) == 8 == brute_force(inst, "plain")[0]
    assert lower_bound(inst, "slack") == 10 == brute_force(inst, "slack")[0]


def test_last_period_rule_in_the_slack_bound():
    # one interval [0, 10) closed at 30; jobs 10 and 6 on one free machine:
    # plain puts 10 in the interval (C = 10); slack needs C >= 30 to use it, so 16
    inst = SlackInstance(machines=[[[10, 30]], []], p=[10, 6], beta=0.0)
    assert lower_bound(inst) == 10 == brute_force(inst, "plain")[0]
    assert lower_bound(inst, "slack") == 16 == brute_force(inst, "slack")[0]


def test_no_free_machine():
    inst = SlackInstance(machines=[[[4, 6]], [[5, 9]]], p=[3, 4])
    assert lower_bound(inst, "slack") is None and brute_force(inst, "slack") is None
    assert lower_bound(inst) == 4 == brute_force(inst, "plain")[0]


def test_three_partition_target_is_above_the_bound():
    for answer in ("yes", "no"):
        inst = generate_planted(2, 13, 3, answer)
        assert lower_bound(inst) <= lower_bound(inst, "slack") <= inst.target


def test_bound_on_theorem2_instances_below_brute_force():
    for seed in range(5):
        inst = generate_theorem2(
            machines=2, jobs=4, seed=seed, lam=1, p_max=3, a_min=6, a_max=9, u_max=3, horizon=1.0
        )
        for beta in (0.0, 1.0):
            best = brute_force(inst, "slack", beta)
            assert lower_bound(inst, "slack") <= best[0]


def test_paper_instance_bound_below_a_feasible_schedule():
    inst = generate_paper(machines=30, jobs=200, seed=1)
    bound = lower_bound(inst, "slack")
    # LPT on the free machines only: a slack schedule at every beta
    loads = {i: 0 for i in inst.free}
    schedule = [None] * inst.n
    for j in np.argsort(-inst.p, kind="stable"):
        i = min(loads, key=lambda k: (loads[k], k))
        schedule[j] = [i, loads[i]]
        loads[i] += int(inst.p[j])
    value = verify_slack(inst, {"problem": "slack", "schedule": schedule})
    assert lower_bound(inst) <= bound <= value
    assert bound >= int(inst.p.sum()) // inst.m  # at least the work spread over every machine
