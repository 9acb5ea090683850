"""The checkpoint model (Bouguerra et al. 2011, Section III) and its instance files.

``expected_waste`` is checked against the definition of Expression 1 by Monte
Carlo, by numeric integration and, for empirical laws, by exact averaging;
validation, JSON round trips and the generator against hand-made cases.
"""

import copy
import json
import math

import numpy as np
import pytest
from oracles.checkpoint.waste import intervals, monte_carlo, survival, waste_at, waste_mpmath
from scipy import integrate

from volsched.instances.checkpoint import MIN_FAILURE_PROBABILITY, CheckpointInstance, generate
from volsched.instances.errors import InputError
from volsched.instances.laws import (
    LOGNORMAL_SIGMA_MAX,
    WASTE_RTOL,
    WEIBULL_SHAPE_RANGE,
    Empirical,
    Exponential,
    HyperExponential,
    LogNormal,
    Weibull,
)


def waste_by_integration(inst, a):
    """Expression 1 summed over the intervals, by quadrature.

    Integrating by parts, ``int_s^e [K + alpha (t - s)] f(t) dt
    = K (S(s) - S(e)) + alpha int_s^e (S(t) - S(e)) dt``. For an empirical law
    the expectation is the plain average over its observations.
    """
    p, c, alpha = inst.p.tolist(), inst.c.tolist(), inst.alpha
    if isinstance(inst.law, Empirical):
        return float(np.mean(waste_at(inst.law.samples, p, c, a, alpha)))
    sf = survival(inst.law)
    total = 0.0
    for start, end, sigma in intervals(p, c, a):
        s_end = sf(end)
        lost, _ = integrate.quad(
            lambda t, s_end=s_end: sf(t) - s_end, start, end, epsabs=0.0, epsrel=1e-12, limit=200
        )
        total += sigma * (sf(start) - s_end) + alpha * lost
    return total


P5, C5 = [20, 35, 10, 50, 25], [3, 1, 5, 2, 4]
SCHEDULES5 = [[0, 0, 0, 0, 1], [1, 1, 1, 1, 1], [0, 1, 0, 1, 1], [1, 0, 0, 0, 1]]
LAWS = [
    Exponential(rate=0.02),
    Weibull(shape=0.431, scale=100.92),
    Weibull(shape=2.0, scale=80.0),
    HyperExponential(probs=[0.6, 0.4], rates=[0.05, 0.005]),
    LogNormal(mu=3.5, sigma=1.0),
    # integer observations fall exactly on interval ends: (start, end] matters
    Empirical(samples=np.random.default_rng(3).integers(1, 180, 500).astype(float)),
]
LAW_IDS = [law.kind + str(i) for i, law in enumerate(LAWS)]


# ---------------------------------------------------------------------------
# expected_waste against the definition


@pytest.mark.parametrize("alpha", [0.7, 1.0])
@pytest.mark.parametrize("law", LAWS, ids=LAW_IDS)
def test_expected_waste_monte_carlo(law, alpha):
    inst = CheckpointInstance(p=P5, c=C5, alpha=alpha, law=law)
    t = law.sample(np.random.default_rng(20110523), 100_000)
    for a in SCHEDULES5:
        w = waste_at(t, P5, C5, a, alpha)
        se = w.std(ddof=1) / math.sqrt(len(w))
        assert abs(w.mean() - inst.expected_waste(a)) <= 4 * se + 1e-9, a


@pytest.mark.parametrize("alpha", [0.3, 1.0])
@pytest.mark.parametrize("law", LAWS, ids=LAW_IDS)
def test_expected_waste_numeric_integration(law, alpha):
    inst = CheckpointInstance(p=P5, c=C5, alpha=alpha, law=law)
    for a in SCHEDULES5:
        assert inst.expected_waste(a) == pytest.approx(waste_by_integration(inst, a), rel=1e-9, abs=1e-12), a


@pytest.mark.parametrize(
    "law",
    [Exponential(rate=1e-6), Weibull(shape=2.0, scale=1e5), Weibull(shape=0.5, scale=1e6)],
    ids=["exponential", "weibull2", "weibull0.5"],
)
def test_expected_waste_is_accurate_when_the_mean_dwarfs_the_job(law):
    # Failures are rare during this 47-quantum job (mean ~1e5-2e6 quanta): the waste is
    # tiny and must keep its relative accuracy (the quadrature oracle keeps ~1e-9).
    inst = CheckpointInstance(p=[10, 10, 10, 10], c=[1, 2, 1, 3], alpha=0.5, law=law)
    for a in ([0, 0, 0, 1], [1, 1, 1, 1], [0, 1, 0, 1]):
        assert inst.expected_waste(a) == pytest.approx(waste_by_integration(inst, a), rel=1e-7)


def test_expected_waste_all_schedules_of_a_small_job_against_integration():
    p, c = [7, 3, 12, 5], [2, 6, 1, 3]
    inst = CheckpointInstance(p=p, c=c, alpha=0.45, law=Weibull(shape=1.3, scale=25.0))
    for code in range(8):
        a = [(code >> k) & 1 for k in range(3)] + [1]
        assert inst.expected_waste(a) == pytest.approx(waste_by_integration(inst, a), rel=1e-9)


def test_expected_waste_single_slice_by_hand():
    # n = 1, one interval (0, p + c] with overhead c:
    # c F(b) + alpha int_0^b t r e^{-rt} dt = c (1 - e^{-rb}) + alpha (1/r - (b + 1/r) e^{-rb})
    inst = CheckpointInstance(p=[5], c=[2], alpha=0.5, law=Exponential(rate=0.1))
    e = math.exp(-0.7)
    assert inst.expected_waste([1]) == pytest.approx(2 * (1 - e) + 0.5 * (10 - 17 * e), rel=1e-13)


def test_expected_waste_two_intervals_by_hand():
    # p = (4, 6), c = (1, 2), a = (1, 1): intervals (0, 5] sigma 1 and (5, 13] sigma 3.
    r, alpha = 0.05, 0.8
    inst = CheckpointInstance(p=[4, 6], c=[1, 2], alpha=alpha, law=Exponential(rate=r))

    def pe(x, y):
        return (x + 1 / r) * math.exp(-r * x) - (y + 1 / r) * math.exp(-r * y)

    def prob(x, y):
        return math.exp(-r * x) - math.exp(-r * y)

    hand = 1 * prob(0, 5) + alpha * pe(0, 5) + (3 - alpha * 5) * prob(5, 13) + alpha * pe(5, 13)
    assert inst.expected_waste([1, 1]) == pytest.approx(hand, rel=1e-13)
    one = 2 * prob(0, 12) + alpha * pe(0, 12)
    assert inst.expected_waste([0, 1]) == pytest.approx(one, rel=1e-13)


def test_expected_waste_empirical_atoms_by_hand():
    # p = (3, 3), c = (1, 1), a = (1, 1): intervals (0, 4] sigma 1, (4, 8] sigma 2.
    # Atoms: 4 -> 1 + 4 alpha (end of the first interval), 5 -> 2 + alpha, 8 -> 2 + 4 alpha,
    # 9 -> 0 (after the job).
    alpha = 0.5
    inst = CheckpointInstance(p=[3, 3], c=[1, 1], alpha=alpha, law=Empirical(samples=[4.0, 5.0, 8.0, 9.0]))
    hand = ((1 + 4 * alpha) + (2 + alpha) + (2 + 4 * alpha) + 0.0) / 4
    assert inst.expected_waste([1, 1]) == pytest.approx(hand, rel=1e-14)
    # a = (0, 1): one interval (0, 7] with sigma 1: atoms 4, 5 only.
    assert inst.expected_waste([0, 1]) == pytest.approx(((1 + 4 * alpha) + (1 + 5 * alpha)) / 4, rel=1e-14)


def test_expected_waste_is_zero_when_failures_come_after_the_job():
    # the job ends at 3 + 2 + 4 + 2 = 11
    inst = CheckpointInstance(p=[3, 4], c=[2, 2], alpha=1.0, law=Empirical(samples=[11.5, 12.0, 50.0]))
    assert inst.expected_waste([1, 1]) == 0.0
    assert inst.expected_waste([0, 1]) == 0.0
    # a failure exactly at the end still hits the last interval (5, 11]: 4 + (11 - 5)
    inst = CheckpointInstance(p=[3, 4], c=[2, 2], alpha=1.0, law=Empirical(samples=[11.0, 12.0, 50.0]))
    assert inst.expected_waste([1, 1]) == pytest.approx(10 / 3, rel=1e-14)


# ---------------------------------------------------------------------------
# Heavy tails and extreme laws: Expression 1 against 50-digit quadrature, to the last digits

REPRO = {"p": [100, 3, 50, 7], "c": [2, 9, 1, 4], "alpha": 1.0, "law": LogNormal(mu=4.5, sigma=15.0)}
#: Expression 1 for each schedule of the repro, by waste_mpmath at 50 digits (and by a second
#: mpmath quadrature without the splits: the same 17 digits).
REPRO_WASTES = {
    (0, 0, 0, 1): 6.414462740818875241,
    (0, 0, 1, 1): 4.6183074757393064075,
    (0, 1, 0, 1): 7.9978245263925013944,
    (0, 1, 1, 1): 7.8925373824536910477,
    (1, 0, 0, 1): 4.1674277882713844231,
    (1, 0, 1, 1): 4.0488146974060455393,
    (1, 1, 0, 1): 4.2525023590370089901,
    (1, 1, 1, 1): 4.1488487565369296337,
}


def test_expected_waste_of_the_lognormal_sigma15_repro_by_schedule():
    # ../shared/data/repro/checkpoint-lognormal-sigma15-n4.json: the old split at the median
    # differenced tail expectations of 6e50 and gave -0.52 for (1, 1, 1, 1).
    inst = CheckpointInstance(**REPRO)
    for a, exact in REPRO_WASTES.items():
        assert inst.expected_waste(a) == pytest.approx(exact, rel=1e-13), a


HEAVY = [
    LogNormal(mu=4.5, sigma=6.0),
    LogNormal(mu=4.5, sigma=15.0),
    LogNormal(mu=0.0, sigma=40.0),
    LogNormal(mu=-3.0, sigma=LOGNORMAL_SIGMA_MAX),
    LogNormal(mu=4.0, sigma=1e-4),
    Weibull(shape=WEIBULL_SHAPE_RANGE[0], scale=100.0),
    Weibull(shape=0.05, scale=1e6),
    Weibull(shape=0.1, scale=30.0),
    Weibull(shape=30.0, scale=120.0),
    Weibull(shape=WEIBULL_SHAPE_RANGE[1], scale=75.0),
    Exponential(rate=1e-200),
    HyperExponential(probs=[0.999, 0.001], rates=[1e-250, 0.5]),
]
#: mpmath takes up to a second a law: these run by default, every law with --runslow.
QUICK = {
    "lognormal(mu=4.5, sigma=15.0)",
    f"weibull(shape={WEIBULL_SHAPE_RANGE[0]}, scale=100.0)",
    "exponential(rate=1e-200)",
}
HEAVY_PARAMS = [
    pytest.param(law, id=law.describe(), marks=() if law.describe() in QUICK else pytest.mark.slow)
    for law in HEAVY
]


@pytest.mark.parametrize("law", HEAVY_PARAMS)
def test_expected_waste_over_the_accepted_range_against_mpmath(law):
    pytest.importorskip("mpmath")
    inst = CheckpointInstance(p=P5, c=C5, alpha=0.6, law=law)
    for a in SCHEDULES5[1:3]:  # five intervals, then three (mpmath is slow)
        exact = float(waste_mpmath(inst, a, digits=30))
        value = inst.expected_waste(a)
        assert value >= 0.0
        assert value == pytest.approx(exact, rel=WASTE_RTOL, abs=0), a


HEAVY_SAMPLED = [law for law in HEAVY if law.cdf(sum(P5) + sum(C5)) > 1e-3]


@pytest.mark.parametrize("law", HEAVY_SAMPLED, ids=[law.describe() for law in HEAVY_SAMPLED])
def test_expected_waste_over_the_accepted_range_monte_carlo(law):
    inst = CheckpointInstance(p=P5, c=C5, alpha=0.6, law=law)
    for seed, a in enumerate(SCHEDULES5):
        mean, se, _ = monte_carlo(inst, a, 200_000, seed)
        assert abs(mean - inst.expected_waste(a)) <= 4 * se, a


def test_a_job_whose_failure_probability_underflows_is_rejected():
    # F(job's end) = 1.6e-306: the waste underflows; scale 1e308 gave NaN, then a
    # VerificationError (exit 1).
    for law in (
        Weibull(shape=1.0, scale=1e308),
        LogNormal(mu=800.0, sigma=1.0),
        Weibull(shape=30.0, scale=1e10),
    ):
        with pytest.raises(InputError) as info:
            CheckpointInstance(p=[10, 20], c=[1, 1], alpha=1.0, law=law)
        message = str(info.value)
        assert message.startswith("law: ") and "underflows" in message
        assert f"< {MIN_FAILURE_PROBABILITY:g}" in message
    # just above the threshold: accepted, and the waste is tiny but computed
    scale = 32.0 / (2 * MIN_FAILURE_PROBABILITY)
    inst = CheckpointInstance(p=[10, 20], c=[1, 1], alpha=1.0, law=Exponential(rate=1.0 / scale))
    assert 0 < inst.expected_waste([1, 1]) < 1e-240
    # an empirical law's probabilities are exact: a job that ends before every failure is fine
    inst = CheckpointInstance(p=[10, 20], c=[1, 1], alpha=1.0, law=Empirical(samples=[100.0, 200.0]))
    assert inst.expected_waste([1, 1]) == 0.0


def test_expected_waste_rejects_a_bad_schedule():
    inst = CheckpointInstance(p=[3, 4], c=[2, 2], alpha=1.0, law=Exponential(rate=0.1))
    with pytest.raises(InputError):
        inst.expected_waste([1, 0])


def test_tau_is_the_prefix_sum_of_p():
    inst = CheckpointInstance(p=[3, 4, 9], c=[1, 1, 1], alpha=1.0, law=Exponential(rate=0.1))
    assert inst.n == 3
    assert inst.tau.tolist() == [0, 3, 7, 16]


# ---------------------------------------------------------------------------
# Validation


def _raises_named(field, fn, *args, **kwargs):
    with pytest.raises(InputError) as info:
        fn(*args, **kwargs)
    message = str(info.value)
    assert message.startswith(f"{field}:"), message


LAW = Exponential(rate=0.1)

BAD_INSTANCES = [
    ({"p": [], "c": []}, "p"),
    ({"p": [1, 2, 3], "c": [1, 2, 2.5]}, "c[2]"),
    ({"p": [1, 2.5], "c": [1, 1]}, "p[1]"),
    ({"p": [1, 2.0], "c": [1, 1]}, "p[1]"),
    ({"p": [1, -2], "c": [1, 1]}, "p[1]"),
    ({"p": [0, 1], "c": [1, 1]}, "p[0]"),
    ({"p": [1, 1], "c": [1, 0]}, "c[1]"),
    ({"p": [1, 1], "c": [-3, 1]}, "c[0]"),
    ({"p": [True, 1], "c": [1, 1]}, "p[0]"),
    ({"p": [1, 1], "c": [1, False]}, "c[1]"),
    ({"p": [1, None], "c": [1, 1]}, "p[1]"),
    ({"p": [1, "2"], "c": [1, 1]}, "p[1]"),
    ({"p": [1, 1], "c": [1, float("nan")]}, "c[1]"),
    ({"p": np.array([1, -2]), "c": [1, 1]}, "p[1]"),
    ({"p": np.array([1, 1]), "c": np.array([0, 1], np.int32)}, "c[0]"),
    ({"p": np.array([1, 10**9 + 1]), "c": [1, 1]}, "p[1]"),
    ({"p": np.array([1, 2], np.uint64), "c": np.array([1.0, 1.0])}, "c[0]"),
    ({"p": np.array([[1, 2]]), "c": [1, 1]}, "p[0]"),
    ({"p": [1, 1], "c": [1]}, "c"),
    ({"p": [1], "c": [1, 1]}, "c"),
    ({"p": "12", "c": [1, 1]}, "p"),
    ({"p": 3, "c": [1]}, "p"),
    ({"p": [1], "c": None}, "c"),
    ({"alpha": 0}, "alpha"),
    ({"alpha": 0.0}, "alpha"),
    ({"alpha": -0.5}, "alpha"),
    ({"alpha": 1.5}, "alpha"),
    ({"alpha": float("nan")}, "alpha"),
    ({"alpha": float("inf")}, "alpha"),
    ({"alpha": True}, "alpha"),
    ({"alpha": "1"}, "alpha"),
    ({"alpha": None}, "alpha"),
    ({"law": "weibull"}, "law"),
    ({"law": {"kind": "exponential", "rate": 1.0}}, "law"),
]


@pytest.mark.parametrize(
    ("change", "field"), BAD_INSTANCES, ids=[f"{i}-{f}" for i, (_, f) in enumerate(BAD_INSTANCES)]
)
def test_bad_instance_raises_input_error_naming_field_and_index(change, field):
    kwargs = {"p": [2, 3], "c": [1, 1], "alpha": 1.0, "law": LAW, **change}
    _raises_named(field, CheckpointInstance, **kwargs)


def test_valid_instance_normalises_types():
    inst = CheckpointInstance(p=np.array([2, 3]), c=(np.int32(1), 4), alpha=1, law=LAW)
    assert inst.p.dtype.kind == "i" and inst.c.dtype.kind == "i"
    assert inst.p.tolist() == [2, 3] and inst.c.tolist() == [1, 4]
    assert isinstance(inst.alpha, float) and inst.alpha == 1.0
    tiny = CheckpointInstance(p=[1], c=[1], alpha=1e-9, law=LAW)
    assert tiny.alpha == 1e-9


@pytest.mark.parametrize(
    ("a", "field"),
    [
        ([1, 1], "a"),
        ([0, 0, 1, 1], "a"),
        ([], "a"),
        ([0, 2, 1], "a[1]"),
        ([0, -1, 1], "a[1]"),
        ([0.5, 0, 1], "a[0]"),
        ([1.0, 0, 1], "a[0]"),
        (["1", 0, 1], "a[0]"),
        ([None, 0, 1], "a[0]"),
        ([1, 1, 0], "a[2]"),
        ([0, 0, 0], "a[2]"),
        (np.array([1, 0, 0]), "a[2]"),
        (np.array([0, 2, 1]), "a[1]"),
        (np.array([1, 0, 1, 1]), "a"),
        (np.array([0.0, 0.0, 1.0]), "a[0]"),
        ("101", "a"),
        (5, "a"),
        (None, "a"),
    ],
)
def test_check_schedule_rejects(a, field):
    inst = CheckpointInstance(p=[1, 2, 3], c=[1, 1, 1], alpha=1.0, law=LAW)
    _raises_named(field, inst.check_schedule, a)


@pytest.mark.parametrize(
    "a",
    [
        [0, 0, 1],
        (1, 0, 1),
        np.array([1, 1, 1]),
        np.array([0, 1, 1], np.uint8),
        np.array([False, True, True]),
        [True, 0, 1],
    ],
)
def test_check_schedule_accepts(a):
    inst = CheckpointInstance(p=[1, 2, 3], c=[1, 1, 1], alpha=1.0, law=LAW)
    out = inst.check_schedule(a)
    assert out.dtype == bool
    assert out.tolist() == [bool(v) for v in a]


# ---------------------------------------------------------------------------
# JSON


ROUND_TRIP = [
    CheckpointInstance(
        p=P5, c=C5, alpha=a, law=law, name=f"rt-{law.kind}", params={"seed": 7, "note": "hand"}
    )
    for a, law in zip([0.7, 1.0, 0.25, 1.0, 0.5, 0.9], LAWS, strict=True)
]


@pytest.mark.parametrize("inst", [*ROUND_TRIP, generate(12, 5)], ids=[*LAW_IDS, "generated"])
def test_json_round_trip(inst):
    obj = inst.to_json()
    text = json.dumps(obj, allow_nan=False)
    back = CheckpointInstance.from_json(json.loads(text))
    assert back.to_json() == obj
    assert json.dumps(back.to_json(), allow_nan=False) == text
    np.testing.assert_array_equal(back.p, inst.p)
    np.testing.assert_array_equal(back.c, inst.c)
    assert back.alpha == inst.alpha and back.name == inst.name and back.params == inst.params
    assert type(back.law) is type(inst.law)
    a = [1] * inst.n
    assert back.expected_waste(a) == inst.expected_waste(a)


def test_json_envelope_fields():
    obj = ROUND_TRIP[0].to_json()
    assert obj["format"] == "volsched-instance"
    assert obj["version"] == 2
    assert obj["family"] == "checkpoint"
    assert set(obj["data"]) == {"p", "c", "alpha", "law"}
    assert obj["data"]["p"] == P5 and obj["data"]["c"] == C5


def _mutate(path, value):
    def edit(obj):
        target = obj
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value
        return obj

    return edit


_DELETE = object()

BAD_FILES = [
    (_mutate(["format"], "volsched-result"), "format"),
    (_mutate(["format"], _DELETE), "format"),
    (_mutate(["version"], 3), "version"),
    (_mutate(["version"], "1"), "version"),
    (_mutate(["family"], "coupled"), "family"),
    (_mutate(["family"], 3), "family"),
    (_mutate(["data", "p"], _DELETE), "data.p"),
    (_mutate(["data", "c"], _DELETE), "data.c"),
    (_mutate(["data", "alpha"], _DELETE), "data.alpha"),
    (_mutate(["data", "law"], _DELETE), "data.law"),
    (_mutate(["data", "extra"], 1), "data.extra"),
    (_mutate(["data"], [1, 2]), "data"),
    (_mutate(["data", "c", 1], 2.5), "c[1]"),
    (_mutate(["data", "p", 4], 0), "p[4]"),
    (_mutate(["data", "alpha"], 0), "alpha"),
    (_mutate(["data", "law", "rate"], -1.0), "law.rate"),
    (_mutate(["data", "law", "kind"], "pareto"), "law.kind"),
    (lambda obj: [obj], "instance"),
]


@pytest.mark.parametrize(("edit", "field"), BAD_FILES, ids=[f"{i}-{f}" for i, (_, f) in enumerate(BAD_FILES)])
def test_from_json_rejects_broken_files(edit, field):
    obj = edit(copy.deepcopy(ROUND_TRIP[0].to_json()))
    _raises_named(field, CheckpointInstance.from_json, obj)


# ---------------------------------------------------------------------------
# Generator


def test_generate_is_deterministic_per_seed():
    assert generate(8, 3).to_json() == generate(8, 3).to_json()
    assert generate(8, 3).to_json() != generate(8, 4).to_json()


@pytest.mark.parametrize("n", [1, 7, 50])
def test_generate_ranges(n):
    for seed in range(15):
        inst = generate(n, seed)
        assert inst.n == n
        assert inst.p.dtype.kind == "i" and inst.c.dtype.kind == "i"
        assert np.all(inst.p >= 1)
        assert np.all((inst.c >= 1) & (inst.c <= 9))
        assert inst.alpha == 1.0
        # the paper's availability law: Weibull(0.431, 1.682 h) in minutes
        assert inst.law.kind == "weibull"
        assert inst.law.shape == pytest.approx(0.431)
        assert inst.law.scale == pytest.approx(1.682 * 60)


def test_generate_slice_durations_follow_the_paper():
    # 1-5 hours on a mean-speed client, i.e. K..5K minutes on this client for some K,
    # rounded to whole minutes: min >= K - 1/2 and max <= 5K + 1/2.
    for seed in range(10):
        p = generate(50, seed).p
        assert p.max() <= 5 * (p.min() + 0.5) + 0.5


@pytest.mark.parametrize("slices", [0, -1, 2.0, True, None])
def test_generate_rejects_bad_slice_counts(slices):
    _raises_named("slices", generate, slices, 1)


@pytest.mark.parametrize("seed", [-1, 1.5, None])
def test_generate_rejects_bad_seeds(seed):
    _raises_named("seed", generate, 3, seed)
