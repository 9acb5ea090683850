"""The beta-aware cut of :mod:`volsched.solvers.slack.bound`: never above the brute-force optimum.

The oracle is :func:`oracles.slack.brute.brute_force` (every job-to-period assignment, rules restated from
slack.md 2). The cut must hold at every beta, stay at or above the beta-blind bound, and lift it on
a fair share of the instances (else the test would not exercise it).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.slack.brute import BETAS, brute_force, small_instance

from volsched.instances.slack import SlackInstance
from volsched.solvers.slack.bound import lower_bound


def cut(inst: SlackInstance, beta: float) -> int:
    inst = inst.with_beta(beta)
    return lower_bound(inst, "slack", beta=inst.beta_ratio)


@pytest.mark.parametrize("seed", range(60))
def test_cut_is_below_the_optimum_at_every_beta(seed):
    inst = small_instance(np.random.default_rng(seed))
    blind = lower_bound(inst, "slack")
    for beta in BETAS:
        best = brute_force(inst, "slack", beta)
        assert best is not None  # everything on a free machine obeys both rules
        assert blind <= cut(inst, beta) <= best[0], (beta, inst.to_json())


def test_cut_lifts_the_blind_bound_often():
    lifted = 0
    for seed in range(60):
        inst = small_instance(np.random.default_rng(seed))
        lifted += cut(inst, 1.0) > lower_bound(inst, "slack")
    assert lifted >= 10


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), beta=st.sampled_from(BETAS))
def test_cut_property(seed, beta):
    inst = small_instance(np.random.default_rng(seed))
    assert cut(inst, beta) <= brute_force(inst, "slack", beta)[0]


def test_cut_grows_with_beta():
    for seed in range(30):
        inst = small_instance(np.random.default_rng(seed))
        values = [cut(inst, b) for b in BETAS]
        assert values == sorted(values)


def test_hand_case():
    # one interval a = 10 closed at 11 and a free machine, two jobs of 6. beta-blind: 12 <= T + 10
    # once e = 11 <= T, so 11. At beta = 0.7 a job of 6 needs 6 + 4.2 > 10: both on the free
    # machine, 12 (the optimum). At beta = 0.5 it fits (6 + 3 <= 10), so the cut stays at 11;
    # the optimum is still 12 (with a job in the interval, C = 6 < e = 11: the last-period rule).
    inst = SlackInstance(machines=[[[10, 11]], []], p=[6, 6])
    assert lower_bound(inst, "slack") == 11
    assert cut(inst, 0.7) == 12 == brute_force(inst, "slack", 0.7)[0]
    assert cut(inst, 0.5) == 11 < brute_force(inst, "slack", 0.5)[0] == 12
