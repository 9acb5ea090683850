"""Periodic checkpoint policies (Section IV-A-2): Young, Daly and the slice mapping."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volsched.heuristics.checkpoint import POLICIES, daly_period, periodic_schedule, young_period
from volsched.instances.checkpoint import CheckpointInstance, generate
from volsched.instances.laws import Empirical, Exponential, LogNormal, Weibull

# ---------------------------------------------------------------------------
# Periods


@pytest.mark.parametrize(
    ("cost", "mttf", "expected"),
    [(2.0, 100.0, 20.0), (8.0, 1.0, 4.0), (0.5, 9.0, 3.0), (1.0, 50.0, 10.0), (3.0, 0.0, 0.0)],
)
def test_young_period(cost, mttf, expected):
    # sqrt(2 C M) by hand
    assert young_period(cost, mttf) == pytest.approx(expected, rel=1e-15, abs=1e-15)


@pytest.mark.parametrize(
    ("delta", "mttf", "expected"),
    [
        # sqrt(2 d M) [1 + sqrt(d / 2M) / 3 + d / 18M] - d, worked by hand:
        (2.0, 100.0, 18 + 31 / 45),  # 20 (1 + 1/30 + 1/900) - 2
        (8.0, 100.0, 32 + 128 / 45),  # 40 (1 + 1/15 + 1/225) - 8
        (18.0, 100.0, 48.6),  # 60 (1 + 1/10 + 1/100) - 18
        (1.0, 2.0, 25 / 18),  # 2 (1 + 1/6 + 1/36) - 1 = 86/36 - 1
    ],
)
def test_daly_period_below_2m(delta, mttf, expected):
    assert daly_period(delta, mttf) == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize(("delta", "mttf"), [(200.0, 100.0), (500.0, 100.0), (2.0, 1.0), (7.0, 0.5)])
def test_daly_period_returns_m_when_delta_at_least_2m(delta, mttf):
    assert daly_period(delta, mttf) == mttf


def test_daly_period_just_below_2m():
    # root -> 1: 2M (1 + 1/3 + 1/9) - 2M = 8M/9
    assert daly_period(200.0 * (1 - 1e-12), 100.0) == pytest.approx(800 / 9, rel=1e-9)


def test_daly_is_close_to_young_for_cheap_checkpoints():
    # first order in d / M: tau = sqrt(2 d M) - d (2/3) + O(d^1.5 / sqrt(M))
    d, m = 1e-4, 1e4
    assert daly_period(d, m) == pytest.approx(young_period(d, m) - 2 * d / 3, rel=1e-8)


# ---------------------------------------------------------------------------
# Mapping a period onto slice boundaries


@pytest.mark.parametrize(
    ("p", "rho", "expected"),
    [
        ([1, 1, 1, 1], 1.5, [1, 1, 1, 1]),  # |1 - 1.5| = |2 - 1.5|: first wins
        ([2, 2, 2], 3.0, [1, 1, 1]),  # tie 2 vs 4: first
        ([10, 1, 1, 10], 11.5, [0, 1, 0, 1]),  # tie 11 vs 12: first; then 11 from 2
        ([1, 2, 3, 4], 3.0, [0, 1, 1, 1]),  # 3 | 3 | 4
        ([1, 2, 3, 4], 100.0, [0, 0, 0, 1]),  # rho beyond the whole job
        ([1, 2, 3, 4], 1e-9, [1, 1, 1, 1]),  # rho tiny: every slice
        ([1, 2, 3, 4], 0.0, [1, 1, 1, 1]),
        ([5] * 8, 20.0, [0, 0, 0, 1, 0, 0, 0, 1]),
        ([3] * 12, 20.0, [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]),  # 21 then 15
        ([3] * 12, 18 + 31 / 45, [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]),  # 18 then 18
        ([7], 3.0, [1]),
        ([7], 1e6, [1]),
    ],
)
def test_periodic_schedule(p, rho, expected):
    a = periodic_schedule(np.asarray(p), rho)
    assert a.dtype == bool and a.shape == (len(p),)
    assert a.astype(int).tolist() == expected


def test_periodic_schedule_matches_its_definition_on_random_vectors():
    # Straight from Section IV-A-2 (with slice durations): after checkpoint j, the next
    # goes after the first i > j minimising |p_{j+1} + ... + p_i - rho|.
    rng = np.random.default_rng(8)
    for _ in range(200):
        n = int(rng.integers(1, 15))
        p = rng.integers(1, 20, n)
        rho = float(rng.uniform(0, 60))
        expected, j = [0] * n, 0
        while j < n:
            best_i, best = None, math.inf
            for i in range(j + 1, n + 1):
                gap = abs(sum(p[j:i]) - rho)
                if gap < best:
                    best_i, best = i, gap
            expected[best_i - 1] = 1
            j = best_i
        assert periodic_schedule(p, rho).astype(int).tolist() == expected


# ---------------------------------------------------------------------------
# Policies on instances


def _inst(law, c=None):
    return CheckpointInstance(p=[3] * 12, c=c or [1, 3] * 6, alpha=1.0, law=law)


def test_policy_names():
    assert set(POLICIES) == {"none", "every", "young", "daly", "daly-printed"}


def test_none_and_every():
    inst = _inst(Exponential(rate=0.01))
    assert POLICIES["none"](inst).astype(int).tolist() == [0] * 11 + [1]
    assert POLICIES["every"](inst).astype(int).tolist() == [1] * 12


@pytest.mark.parametrize(
    "law",
    [
        Exponential(rate=0.01),
        Weibull(shape=2.0, scale=200 / math.sqrt(math.pi)),
        LogNormal(mu=math.log(100) - 0.5, sigma=1.0),
        Empirical(samples=[50.0, 150.0]),
    ],
    ids=["exponential", "weibull", "lognormal", "empirical"],
)
def test_young_and_daly_use_the_law_mean_and_mean_cost(law):
    # M = 100 for every law here, C = mean(1, 3) = 2 (c_1 = 1 or max c = 3 would move it):
    # Young rho = 20 -> 21 | 15; Daly rho = 18.69 -> 18 | 18.
    inst = _inst(law)
    young = [0] * 6 + [1] + [0] * 4 + [1]
    daly = [0] * 5 + [1] + [0] * 5 + [1]
    assert POLICIES["young"](inst).astype(int).tolist() == young
    assert POLICIES["daly"](inst).astype(int).tolist() == daly


def test_the_two_readings_of_the_periodic_rule_by_hand():
    # M = 100, C = mean(1, 3) = 2: Daly rho = 18 + 31/45 = 18.69 for both readings.
    # Slice durations (3 each): sums 18 | 18 -> after slices 6 and 12.
    # Checkpoint costs as printed (1, 3, 1, 3, ...): sums 1, 4, ..., 17, 20 -> 20 is closest
    # (1.31 vs 1.69), after slice 10; then 1, 4 -> the last slice.
    inst = _inst(Exponential(rate=0.01))
    assert POLICIES["daly"](inst).astype(int).tolist() == [0] * 5 + [1] + [0] * 5 + [1]
    assert POLICIES["daly-printed"](inst).astype(int).tolist() == [0] * 9 + [1, 0, 1]


def test_only_the_slice_duration_reading_follows_the_slices():
    # Same costs and law (rho = 18.69), uneven slices 10, 2, 9, 1, 8, 20, then six of 3:
    # from 0: 12 vs 21 -> 21 (slice 3); from 3: 9 vs 29 -> 9 (slice 5); from 5: 20 (slice 6);
    # from 6: 18 (slice 12). The printed reading sums only costs, so it does not move.
    inst = CheckpointInstance(
        p=[10, 2, 9, 1, 8, 20] + [3] * 6, c=[1, 3] * 6, alpha=1.0, law=Exponential(rate=0.01)
    )
    assert POLICIES["daly"](inst).astype(int).tolist() == [0, 0, 1, 0, 1, 1] + [0] * 5 + [1]
    assert POLICIES["daly-printed"](inst).astype(int).tolist() == [0] * 9 + [1, 0, 1]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 400), st.integers(1, 30)), min_size=1, max_size=40),
    st.floats(1e-3, 1e6),
    st.sampled_from(["exponential", "weibull"]),
)
def test_both_readings_checkpoint_the_last_slice(slices, mean, law):
    p, c = zip(*slices, strict=True)
    law = Exponential(rate=1 / mean) if law == "exponential" else Weibull(shape=0.5, scale=mean / 2)
    inst = CheckpointInstance(p=list(p), c=list(c), alpha=1.0, law=law)
    for name in ("daly", "daly-printed"):
        a = POLICIES[name](inst)
        assert a.shape == (inst.n,) and a[-1], name


def test_daly_checkpoints_only_at_the_end_when_m_exceeds_the_job():
    # delta = 2 >= 2M with M = 0.5: rho = M = 0.5 -> every slice (closest boundary: p_1)
    inst = _inst(Exponential(rate=2.0), c=[2] * 12)
    assert POLICIES["daly"](inst).astype(int).tolist() == [1] * 12
    # M huge: rho beyond the job -> only the last slice
    inst = _inst(Exponential(rate=1e-9), c=[2] * 12)
    assert POLICIES["daly"](inst).astype(int).tolist() == [0] * 11 + [1]
    assert POLICIES["young"](inst).astype(int).tolist() == [0] * 11 + [1]


def test_every_policy_vector_passes_check_schedule():
    instances = [generate(n, seed) for n in (1, 2, 9, 50) for seed in range(4)]
    instances += [_inst(Exponential(rate=r)) for r in (1e-6, 0.01, 0.3, 5.0)]
    for inst in instances:
        for name, policy in POLICIES.items():
            a = policy(inst)
            assert a.shape == (inst.n,), name
            checked = inst.check_schedule(a.astype(int).tolist())
            np.testing.assert_array_equal(checked, a.astype(bool))
            inst.check_schedule(a)  # the bool array itself is a valid schedule


# ---------------------------------------------------------------------------
# A mean time to failure far above the job, or infinite: the nearest boundary must still be exact


@pytest.mark.parametrize("rho", [1e19, 1e20, 1e25, 1e300, math.inf])
def test_a_period_far_above_the_job_checkpoints_only_at_the_end(rho):
    # Was every slice from rho ~ 1e19 on: every |s_i - rho| rounded to the same double, and the
    # first boundary won the tie.
    p = generate(10, 0).p
    assert periodic_schedule(p, rho).astype(int).tolist() == [0] * 9 + [1]


def test_periodic_schedule_is_the_exact_nearest_boundary_over_every_scale():
    # The definition in exact arithmetic (Fractions), rho from below a slice to far above the job.
    from fractions import Fraction

    rng = np.random.default_rng(14)
    for _ in range(300):
        n = int(rng.integers(1, 12))
        p = rng.integers(1, 10 ** int(rng.integers(1, 7)), n)
        rho = float(p.sum()) * 10.0 ** rng.uniform(-3, 25)
        expected, j, exact = [0] * n, 0, Fraction(rho)
        while j < n:
            gaps = [abs(int(p[j:i].sum()) - exact) for i in range(j + 1, n + 1)]
            j += 1 + gaps.index(min(gaps))
            expected[j - 1] = 1
        assert periodic_schedule(p, rho).astype(int).tolist() == expected, (p.tolist(), rho)


@pytest.mark.parametrize("cost", [1.0, 5.0])
def test_young_and_daly_periods_are_infinite_for_an_infinite_mean(cost):
    assert young_period(cost, math.inf) == math.inf
    assert daly_period(cost, math.inf) == math.inf
    assert young_period(cost, 1e308) == math.inf  # 2 C M overflows: as good as infinite


@pytest.mark.parametrize("sigma", [20.0, 37.0, 38.0, 60.0])
def test_young_and_daly_checkpoint_only_at_the_end_when_the_mean_dwarfs_the_job(sigma):
    # Log-normal mean exp(mu + sigma^2 / 2): 6.5e88 at sigma = 20, inf from sigma = 38 on.
    law = LogNormal(mu=4.5, sigma=sigma)
    assert (law.mean == math.inf) == (sigma >= 38)
    job = generate(10, 0)
    inst = CheckpointInstance(p=job.p, c=job.c, alpha=1.0, law=law)
    for name in ("young", "daly"):
        assert POLICIES[name](inst).astype(int).tolist() == [0] * 9 + [1], name
