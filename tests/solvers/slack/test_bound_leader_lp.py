"""The leader-class LP bound of :mod:`volsched.solvers.slack.bound` against brute force.

The oracle is :func:`oracles.slack.brute.brute_force` (every job-to-period assignment, the rules
restated from slack.md 2). The bound must never pass the optimum at any beta, for the LP's own
prices and for any other prices (the certificate is exact whatever the prices), and it must lift
the beta-aware cut on a fair share of the instances (else the tests would not exercise it).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.slack.brute import brute_force, medium_instance, small_instance

from volsched.instances.slack import SlackInstance
from volsched.solvers.slack.bound import _LeaderLP, leader_edges, leader_lp_bound, lower_bound
from volsched.solvers.slack.problems import greedy, makespan_of

BETAS = (0.0, 0.3, 0.5, 0.7, 1.0)


def bounds(inst: SlackInstance, most: int) -> tuple[int, int, int]:
    """``(cut, leader LP bound, greedy makespan)`` at the instance's beta."""
    cut = lower_bound(inst, "slack", beta=inst.beta_ratio)
    hi = makespan_of(inst, greedy(inst, "slack"))
    return cut, leader_lp_bound(inst, cut, hi, most=most).bound, hi


def instances():
    for seed in range(40):
        yield f"small{seed}", small_instance(np.random.default_rng(seed))
    for seed in range(25):
        yield f"medium{seed}", medium_instance(np.random.default_rng(1000 + seed))


@pytest.mark.parametrize(("name", "base"), list(instances()))
def test_leader_lp_is_below_the_optimum_at_every_beta(name, base):
    for beta in BETAS:
        inst = base.with_beta(beta)
        opt = brute_force(inst, "slack", beta)[0]
        for most in (1, 2, 3, 64):
            cut, bound, hi = bounds(inst, most)
            assert cut <= bound <= opt <= hi, (name, beta, most, inst.to_json())


def test_leader_lp_lifts_the_cut_often():
    lifted = 0
    for _, base in instances():
        for beta in (0.5, 0.7, 1.0):
            cut, bound, _ = bounds(base.with_beta(beta), 64)
            lifted += bound > cut
    assert lifted >= 10


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), beta=st.sampled_from(BETAS), most=st.integers(1, 8))
def test_leader_lp_property(seed, beta, most):
    inst = medium_instance(np.random.default_rng(seed)).with_beta(beta)
    assert bounds(inst, most)[1] <= brute_force(inst, "slack", beta)[0]


@pytest.mark.parametrize(("name", "base"), list(instances()))
def test_any_prices_certify_a_valid_bound(name, base):
    """Weak duality holds for every non-negative price vector, not only the LP's optimal duals.

    The LP's duals at the cut, scaled entry by entry by random factors in [0, 2), some zeroed, some
    raised by a random amount (so that every constraint of the dual can bind): the
    certified target never passes the optimum, and ``U(T)`` is at least the LP's own value at
    every ``T`` tried (float LP, relative tolerance 1e-7).
    """
    rng = np.random.default_rng(sum(map(ord, name)))
    for beta in BETAS:
        inst = base.with_beta(beta)
        opt = brute_force(inst, "slack", beta)[0]
        cut = lower_bound(inst, "slack", beta=inst.beta_ratio)
        hi = makespan_of(inst, greedy(inst, "slack"))
        for most in (2, 64):
            data = _LeaderLP(inst, hi + 1, most)
            _, duals, _ = data.solve(cut)
            values = {T: data.solve(T)[0] for T in {cut, opt, hi}}
            for _ in range(5):
                noisy = duals * rng.uniform(0, 2, size=len(duals)) * (rng.random(len(duals)) > 0.2)
                noisy += rng.exponential(0.5, size=len(duals)) * (rng.random(len(duals)) < 0.3)
                K = len(data.L)
                if rng.random() < 0.5:  # prices rising with the size: the leaders' rows bind
                    noisy[:K] = np.sort(rng.uniform(0, 1, size=K))
                assert data.certify(noisy, cut) <= opt, (name, beta, most, inst.to_json())
                for T, value in values.items():
                    assert data.upper(noisy, T) >= value * (1 - 1e-7), (name, beta, most, T)


def test_the_lp_value_at_the_optimum_covers_the_work_needed():
    """Claim of the docstring: at T = OPT the LP packs at least W - lambda T (float LP, 1e-6)."""
    for _, base in instances():
        for beta in (0.3, 1.0):
            inst = base.with_beta(beta)
            opt = brute_force(inst, "slack", beta)[0]
            data = _LeaderLP(inst, opt + 1, 64)
            value, _, _ = data.solve(opt)
            assert value >= data.total - data.lam * opt - 1e-6 * data.total


def test_leader_edges():
    p = np.array([5, 3, 3, 40, 17, 9, 100, 6])
    assert leader_edges(p, 10).tolist() == [3, 5, 6, 9, 17, 40, 100]
    for most in range(1, 7):
        edges = leader_edges(p, most)
        assert 1 <= len(edges) <= most
        assert edges[0] == 3 and np.all(np.diff(edges) > 0) and set(edges) <= set(p.tolist())
    rng = np.random.default_rng(0)
    big = rng.integers(1000, 200_000, size=3000)
    edges = leader_edges(big, 64)
    assert 32 <= len(edges) <= 64 and edges[0] == big.min()


def test_leader_lp_on_a_hand_instance():
    """Two intervals of a = 10, e = 12, one free machine, jobs 6, 6, 6, 6 at beta = 1.

    At beta = 1 a 6 leaves a slack of 4 < 6: no interval holds a job, all 24 units run on the free
    machine, OPT = 24. At beta = 0 each interval holds one 6 (two would need 12 > 10) and e = 12 <=
    C_max: OPT = 12. The bound must reach both.
    """
    inst = SlackInstance(machines=[[], [[10, 12]], [[10, 12]]], p=[6, 6, 6, 6])
    for beta, opt in ((1.0, 24), (0.0, 12)):
        case = inst.with_beta(beta)
        assert brute_force(case, "slack", beta)[0] == opt
        cut, bound, hi = bounds(case, 64)
        assert bound == opt, (beta, cut, bound, hi)


def test_leader_lp_respects_its_tick_budget():
    from volsched.instances.slack.generators import generate_paper

    inst = generate_paper(machines=30, jobs=300, seed=1, beta=0.7)
    cut = lower_bound(inst, "slack", beta=inst.beta_ratio)
    hi = makespan_of(inst, greedy(inst, "slack"))
    none = leader_lp_bound(inst, cut, hi, max_ticks=0)
    assert none.lps == 0 and none.bound == cut
    full = leader_lp_bound(inst, cut, hi)
    again = leader_lp_bound(inst, cut, hi)
    assert (full.bound, full.ticks, full.lps) == (again.bound, again.ticks, again.lps)
    assert cut <= full.bound <= hi
