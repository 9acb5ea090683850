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
from volsched.solvers.slack.bound import best_patterns, fill_bound, lower_bound, short_lp_bound


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


def most_held(rooms, sizes, pmin):
    """Brute force: the most that rooms hold, one job each below 2 pmin, at most two otherwise."""
    best = 0

    def walk(r, left, total):
        nonlocal best
        if r == len(rooms):
            best = max(best, total)
            return
        walk(r + 1, left, total)
        for i, j in enumerate(left):
            if sizes[j] <= rooms[r]:
                walk(r + 1, left[:i] + left[i + 1 :], total + sizes[j])
            if rooms[r] >= 2 * pmin:
                for i2 in range(i + 1, len(left)):
                    k = left[i2]
                    if sizes[j] + sizes[k] <= rooms[r]:
                        rest = [x for x in left if x not in (j, k)]
                        walk(r + 1, rest, total + sizes[j] + sizes[k])

    walk(0, list(range(len(sizes))), 0)
    return best


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(4, 11), min_size=1, max_size=6),
    rooms=st.lists(st.integers(4, 14), min_size=1, max_size=3),
)
def test_short_lp_bound_is_above_what_the_short_intervals_hold(sizes, rooms):
    sizes = sorted(sizes)
    pmin = sizes[0]
    rooms = [a for a in rooms if a < 3 * pmin]
    bound, _ = short_lp_bound(rooms, np.array([v for v in sizes if v < 3 * pmin]), pmin)
    assert bound >= most_held(rooms, sizes, pmin)
    assert bound <= sum(rooms)


def test_short_lp_bound_sees_intervals_compete_for_short_jobs():
    # Rooms of 9, 9 and 10 and jobs of 4, 5, 5, 6: each room alone holds 9 or 10 (4 + 5, 5 + 5,
    # 4 + 6), together at most 20 (two pairs use all four jobs).
    bound, _ = short_lp_bound([9, 9, 10], np.array([4, 5, 5, 6]), 4)
    assert most_held([9, 9, 10], [4, 5, 5, 6], 4) == 20
    assert 20 <= bound < 28


@settings(max_examples=200, deadline=None)
@given(
    profits=st.lists(st.integers(-5, 20), min_size=1, max_size=7),
    room=st.integers(1, 30),
    pairs=st.booleans(),
)
def test_best_patterns_is_the_best_job_and_pair(profits, room, pairs):
    rng = np.random.default_rng(len(profits) * 31 + room)
    p = np.sort(rng.integers(1, 15, size=len(profits)))
    q = np.array(profits)
    single, pair = best_patterns(q, p, room, pairs)
    fits = [j for j in range(len(p)) if p[j] <= room]
    assert (single is None) == (not fits)
    if fits:
        assert single[0] == max(q[j] for j in fits) and p[single[1]] <= room
    couples = [(j, k) for j in fits for k in fits if j < k and p[j] + p[k] <= room]
    if not pairs or not couples:
        assert pair is None
    else:
        assert pair[0] == max(q[j] + q[k] for j, k in couples)
        j, k = pair[1], pair[2]
        assert j != k and p[j] + p[k] <= room and q[j] + q[k] == pair[0]
