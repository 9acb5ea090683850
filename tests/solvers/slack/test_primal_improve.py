"""The primal heuristic's leader spread and local search (:mod:`volsched.solvers.slack.primal`).

Every schedule goes through the independent verifier (:mod:`volsched.solvers.slack.verify`) and
is compared with the brute-force optimum (:func:`oracles.slack.brute.brute_force`) at five betas;
on larger instances, where brute force cannot go, the verifier alone judges it.
"""

import itertools

import numpy as np
import pytest
from oracles.slack.brute import brute_force, medium_instance, small_instance

from volsched.instances.slack import SlackInstance
from volsched.instances.slack.generators import generate_paper
from volsched.solvers.slack.bound import lower_bound
from volsched.solvers.slack.primal import CANDIDATES, _candidates, best_fill, fill, improve
from volsched.solvers.slack.problems import greedy, makespan_of, schedule_of
from volsched.solvers.slack.verify import verify_slack

BETAS = (0.0, 0.3, 0.5, 0.7, 1.0)


def verified(inst: SlackInstance, contents: dict) -> int:
    solution = {"problem": "slack", "beta": inst.beta, "schedule": schedule_of(inst, contents)}
    return verify_slack(inst, solution)


def instances():
    for seed in range(40):
        yield f"small{seed}", small_instance(np.random.default_rng(seed))
    for seed in range(25):
        yield f"medium{seed}", medium_instance(np.random.default_rng(1000 + seed))


@pytest.mark.parametrize(("name", "base"), list(instances()))
def test_improved_schedules_are_verified_and_never_beat_the_optimum(name, base):
    for beta in BETAS:
        inst = base.with_beta(beta)
        opt = brute_force(inst, "slack", beta)[0]
        for horizon in (opt, opt + 3, 2 * opt):
            contents, value, _ = fill(inst, horizon)
            better, makespan, _ = improve(inst, contents, max(horizon, value))
            assert verified(inst, better) == makespan, (name, beta, horizon)
            assert opt <= makespan <= value, (name, beta, horizon)
        hi = makespan_of(inst, greedy(inst, "slack"))
        contents, value, _ = best_fill(inst, lower_bound(inst, "slack", beta=inst.beta_ratio), hi)
        assert opt <= verified(inst, contents) == value


def test_best_fill_finds_the_optimum_mostly():
    hits = total = 0
    for _, base in instances():
        for beta in BETAS:
            inst = base.with_beta(beta)
            opt = brute_force(inst, "slack", beta)[0]
            hi = makespan_of(inst, greedy(inst, "slack"))
            total += 1
            hits += best_fill(inst, lower_bound(inst, "slack", beta=inst.beta_ratio), hi)[1] == opt
    assert hits >= 0.9 * total


@pytest.mark.parametrize("beta", BETAS)
def test_local_search_on_larger_instances(beta):
    """30 x 300 `paper` instances: verified, never worse than the fill, and better on most."""
    gains = 0
    for seed in range(3):
        inst = generate_paper(machines=30, jobs=300, seed=seed, beta=beta)
        cut = lower_bound(inst, "slack", beta=inst.beta_ratio)
        contents, value, _ = fill(inst, cut)
        better, makespan, steps = improve(inst, contents, max(cut, value))
        assert verified(inst, better) == makespan <= value
        assert makespan >= cut and steps > 0
        gains += makespan < value
    assert gains >= 2


def test_step_budget_is_deterministic_and_stops():
    inst = generate_paper(machines=30, jobs=300, seed=4, beta=0.7)
    contents, value, _ = fill(inst, lower_bound(inst, "slack", beta=inst.beta_ratio))
    assert improve(inst, contents, value, max_steps=0)[1:] == (value, 0)
    runs = [improve(inst, contents, value, max_steps=400) for _ in range(2)]
    assert runs[0][1:] == runs[1][1:]
    assert verified(inst, runs[0][0]) == runs[0][1] <= value
    free = improve(inst, contents, value)
    assert free[2] > 400 and free[1] <= runs[0][1]


def test_the_last_period_rule_on_a_hand_instance():
    """Two free machines, one interval of ``a = 10`` ending at ``e = 12``, jobs 10, 10, 4, 4, 2, beta 0.

    By hand: without the interval the free machines take 30 and no subset weighs 15, so 16. With
    it, the makespan is at least ``e = 12``: 4 + 4 in the interval and 10 + 2 | 10 gives 12; 4 + 4 + 2
    in it would leave 10 | 10 = 10 < e, which the last-period rule forbids. The optimum is 12.
    """
    inst = SlackInstance(machines=[[], [], [[10, 12]]], p=[10, 10, 4, 4, 2], beta=0.0)
    assert brute_force(inst, "slack", 0.0)[0] == 12
    for horizon in (12, 16, 20):
        contents, value, _ = fill(inst, horizon)
        better, makespan, _ = improve(inst, contents, max(horizon, value))
        assert verified(inst, better) == makespan == 12, horizon


def test_candidate_leaders_spread_over_the_sizes():
    sizes = list(range(100, 20_001, 7))
    out = _candidates(sizes, len(sizes) - 1)
    picked = [sizes[k] for k in out]
    assert picked[0] == sizes[-1] and picked[-1] == sizes[0]
    assert all(a > b for a, b in itertools.pairwise(picked))
    ratios = [a / b for a, b in itertools.pairwise(picked)]
    assert len(out) == CANDIDATES and max(ratios) < 1.05 * 200 ** (1 / (CANDIDATES - 1))  # geometric
    assert _candidates([5, 5, 5], 2) == [2]
