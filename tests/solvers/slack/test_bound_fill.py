"""The exact-fill bound of :mod:`volsched.solvers.slack.bound`: never above the brute-force optimum.

The oracle is :func:`oracles.slack.brute.brute_force` (every job-to-period assignment). The
instances have jobs of similar lengths and short intervals, where an interval holds one job or a
few and rarely exactly its length: the case the bound is for. It must hold at every beta and lift
the other bounds on a fair share of them (else the test would not exercise it).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.slack.brute import BETAS, brute_force, small_instance, tight_instance

from volsched.instances.slack import SlackInstance
from volsched.solvers.slack.bound import fill_bound, lower_bound


def bounds(inst: SlackInstance) -> tuple[int, int]:
    """The beta-aware cut and the exact-fill bound above it (``hi``: all jobs on a free machine)."""
    cut = lower_bound(inst, "slack", beta=inst.beta_ratio)
    return cut, fill_bound(inst, cut, int(inst.p.sum())).bound


@pytest.mark.parametrize("seed", range(80))
def test_fill_bound_is_below_the_optimum_at_every_beta(seed):
    rng = np.random.default_rng(seed)
    for base in (tight_instance(rng), small_instance(rng)):
        for beta in BETAS:
            inst = base.with_beta(beta)
            best = brute_force(inst, "slack", beta)
            cut, bound = bounds(inst)
            assert cut <= bound <= best[0], (beta, inst.to_json())


def test_fill_bound_lifts_the_cut_often():
    lifted = 0
    for seed in range(80):
        cut, bound = bounds(tight_instance(np.random.default_rng(seed)).with_beta(0.0))
        lifted += bound > cut
    assert lifted >= 10, lifted


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), beta=st.sampled_from(BETAS))
def test_fill_bound_property(seed, beta):
    inst = tight_instance(np.random.default_rng(seed)).with_beta(beta)
    assert bounds(inst)[1] <= brute_force(inst, "slack", beta)[0]


def test_hand_case():
    # Intervals a = 7 (e = 9) and a = 9 (e = 20), one free machine, jobs 5, 6 and 8 (19 in all).
    # Below T = 20 only the 7 can be used. The cut lets it hold 7: 19 <= T + 7, T >= 12. It is
    # single (7 < 2 x 5), and its best job is the 6: 19 <= T + 6, T >= 13, the optimum (the 6 in
    # the interval, 5 + 8 on the free machine, C = 13 >= e = 9).
    inst = SlackInstance(machines=[[], [[7, 9]], [[9, 20]]], p=[5, 6, 8], beta=0.0)
    assert brute_force(inst, "slack", 0.0)[0] == 13
    assert bounds(inst) == (12, 13)
