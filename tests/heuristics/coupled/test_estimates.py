"""Section V estimates (Casanova et al. 2013): hand cases, an eigen-expansion oracle, Monte Carlo.

The Monte-Carlo oracles (``tests/oracles/coupled/markov_mc.py``) simulate the 3-state
chains slot by slot and measure Definition 1 and 2 directly; the closed-form
oracle below expands ``prod_q (M_q^t)[0, 0]`` over the eigenvalues of each
block (``numpy.linalg.eig``) and sums the geometric series exactly, with no
truncation. Neither shares code with the module.
"""

import itertools
import math
import statistics

import numpy as np
import pytest
from oracles.coupled import markov_mc as mc

from volsched.heuristics.coupled import estimates as estimates_module
from volsched.heuristics.coupled.estimates import FORMULAS, MarkovEstimates, _truncation
from volsched.instances.coupled import markov_chains
from volsched.instances.errors import InputError


def chain(uu, ur, ud, ru, rr, rd, down=(0.5, 0.25, 0.25)):
    return np.array([[uu, ur, ud], [ru, rr, rd], list(down)], dtype=float)


def mask(p, members):
    m = np.zeros(p, dtype=bool)
    m[list(members)] = True
    return m


def random_chains(rng, p):
    """Dirichlet rows with some exact zeros: reducible blocks, instant DOWN, no RECLAIMED."""
    trans = rng.dirichlet(np.ones(3), size=(p, 3))
    trans[0, 0] = (0.7, 0.0, 0.3)  # P_ur = 0
    trans[1, 1] = (0.0, 0.6, 0.4)  # P_ru = 0
    return trans


def eigen_sums(blocks):
    """``E_u`` and ``A`` of ``prod_q (M_q^t)[0, 0]`` in closed form (2^|S| geometric series)."""
    terms = []
    for M in blocks:
        lam, V = np.linalg.eig(M)
        coef = V[0, :] * np.linalg.inv(V)[:, 0]
        terms.append(list(zip(lam, coef, strict=True)))
    e_u = a = 0.0
    for combo in itertools.product(*terms):
        lam = np.prod([x[0] for x in combo])
        c = np.prod([x[1] for x in combo])
        e_u += c * lam / (1 - lam)
        a += c * lam / (1 - lam) ** 2
    return float(np.real(e_u)), float(np.real(a))


# ---------------------------------------------------------------------------
# P_uu, P_ND: the powers of the blocks


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_p_uu_and_p_nd_match_matrix_power(seed):
    rng = np.random.default_rng(seed)
    trans = np.concatenate([markov_chains(rng, 4), random_chains(rng, 4)])
    est = MarkovEstimates(trans)
    ts = np.array([0, 1, 2, 3, 7, 64, 500, est.T - 1, est.T, est.T + 1, 12_345, 100_000])
    puu, pnd = est.p_uu(ts), est.p_nd(ts)
    assert puu.shape == pnd.shape == (8, len(ts))
    for q in range(8):
        for j, t in enumerate(ts):
            ref = np.linalg.matrix_power(trans[q, :2, :2], int(t))
            assert puu[q, j] == pytest.approx(ref[0, 0], rel=1e-9, abs=1e-300)
            assert pnd[q, j] == pytest.approx(ref[0].sum(), rel=1e-9, abs=1e-300)


def test_far_horizons_are_remembered_without_changing_a_bit(monkeypatch):
    """Beyond the table the rows come by binary powering, remembered per (q, t) (a huge T_data)."""
    rng = np.random.default_rng(5)
    est = MarkovEstimates(markov_chains(rng, 3))
    ts = np.array([est.T + 3, 10**6, 2**40 + 7])
    first = est.p_nd(ts), est.p_uu(ts)
    assert len(est._far) == 3 * len(ts)
    fresh = MarkovEstimates(est.transitions)
    again = fresh.p_uu(ts[::-1])[:, ::-1], fresh.p_nd(ts)  # other order, other batches
    assert np.array_equal(first[1], again[0]) and np.array_equal(first[0], again[1])
    monkeypatch.setattr(estimates_module, "_FAR_MEMO", 4)  # a full memo is emptied, not grown
    small = MarkovEstimates(est.transitions)
    assert np.array_equal(small.p_nd(ts), first[0])
    assert len(small._far) <= 3 * len(ts)


def test_p_nd_against_monte_carlo():
    rng = np.random.default_rng(11)
    trans = markov_chains(rng, 3)
    est = MarkovEstimates(trans)
    samples = 40_000
    for t in (1, 10, 60):
        alive = mc.not_down(trans, t, samples, rng).mean(axis=0)
        p = est.p_nd(np.array(t))
        se = np.sqrt(p * (1 - p) / samples)
        assert np.all(np.abs(alive - p) <= 3 * se), (t, alive, p)


# ---------------------------------------------------------------------------
# Truncation (Theorem 5.1, corrected bounds)


@pytest.mark.parametrize("eps", [1e-15, 1e-6, 1e-3, 0.5])
def test_truncation_is_the_smallest_T_meeting_both_bounds(eps):
    lams = np.array([1e-300, 0.1, 0.3, 0.5, 0.9, 0.97, 0.99, 0.995, 0.9999])
    T = _truncation(np.log(lams), eps)
    for lam, t in zip(lams, T, strict=True):

        def a_tail(n, lam=lam):
            return lam**n * (n / (1 - lam) + lam / (1 - lam) ** 2)

        assert a_tail(t) <= eps and lam**t / (1 - lam) <= eps
        assert t == 1 or a_tail(t - 1) > eps


def test_truncation_per_set_uses_the_product_of_rates():
    rng = np.random.default_rng(5)
    trans = markov_chains(rng, 6)
    est = MarkovEstimates(trans)
    masks = np.array([mask(6, s) for s in [(0,), (0, 1), (0, 1, 2), (3, 4, 5)]])
    lam1 = np.array([np.max(np.linalg.eigvals(trans[q, :2, :2]).real) for q in range(6)])
    expect = _truncation(np.log([np.prod(lam1[m]) for m in masks]), 1e-6)
    assert np.array_equal(est.truncation(masks), expect)
    assert est.truncation(masks[0]) <= est.T


# ---------------------------------------------------------------------------
# Hand cases


@pytest.mark.parametrize("a", [0.3, 0.9, 0.99])
def test_memoryless_processor_closed_forms(a):
    # M = [[a, 0], [0, 0]]: P_uu(t) = a^t, E_u = a/(1-a), A = a/(1-a)^2, P_+ = a, E_c = a.
    trans = np.array([chain(a, 0, 1 - a, 0, 0, 1)])
    e_u, A = MarkovEstimates(trans).sums(mask(1, [0]))
    assert abs(e_u - a / (1 - a)) <= 1e-6  # the default eps
    assert abs(A - a / (1 - a) ** 2) <= 1e-6
    est = MarkovEstimates(trans, eps=1e-13)  # the derived quantities, to rounding
    assert est.p_plus(mask(1, [0])) == pytest.approx(a, rel=1e-9)
    assert est.e_c(mask(1, [0])) == pytest.approx(a, rel=1e-9)
    for W in (1, 2, 7, 30):
        # every gap is one slot: the conditional span is exactly W
        assert est.expected_span(mask(1, [0]), W, "conditional") == pytest.approx(W, rel=1e-9)
        printed = (1 + (W - 1) * a) / a ** (W - 1)
        assert est.expected_span(mask(1, [0]), W, "printed") == pytest.approx(printed, rel=1e-8)
        assert est.success_probability(mask(1, [0]), W) == pytest.approx(a ** (W - 1), rel=1e-8)


def test_memoryless_pair_is_a_product():
    a1, a2 = 0.8, 0.95
    trans = np.array([chain(a1, 0, 1 - a1, 0, 0, 1), chain(a2, 0, 1 - a2, 0, 0, 1)])
    g = a1 * a2
    e_u, A = MarkovEstimates(trans).sums(mask(2, [0, 1]))
    assert abs(e_u - g / (1 - g)) <= 1e-6 and abs(A - g / (1 - g) ** 2) <= 1e-6
    assert MarkovEstimates(trans, eps=1e-13).p_plus(mask(2, [0, 1])) == pytest.approx(g, rel=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_sums_against_the_eigen_expansion(seed):
    rng = np.random.default_rng(seed)
    trans = np.concatenate([markov_chains(rng, 5), random_chains(rng, 3)])
    est, fine = MarkovEstimates(trans), MarkovEstimates(trans, eps=1e-13)
    sets = [(0,), (1,), (5,), (6,), (7,), (0, 1), (2, 6), (0, 5, 7), (1, 2, 3, 4), (0, 1, 2, 3, 4)]
    for members in sets:
        ref_eu, ref_a = eigen_sums([trans[q, :2, :2] for q in members])
        e_u, A = est.sums(mask(8, members))
        # truncation error <= eps = 1e-6 (Theorem 5.1), plus rounding of the oracle
        assert 0 <= ref_eu - e_u <= 1e-6 + 1e-12 * ref_eu, members
        assert 0 <= ref_a - A <= 1e-6 + 1e-12 * ref_a, members
        m = mask(8, members)
        assert fine.p_plus(m) == pytest.approx(ref_eu / (1 + ref_eu), rel=1e-10)
        assert fine.e_c(m) == pytest.approx(ref_a / (1 + ref_eu) ** 2, rel=1e-10)


def test_always_up_processor_changes_nothing_in_a_set():
    rng = np.random.default_rng(3)
    trans = np.concatenate([[chain(1, 0, 0, 0.3, 0.5, 0.2)], markov_chains(rng, 2)])
    est = MarkovEstimates(trans)
    alone = mask(3, [0])
    assert est.p_plus(alone) == 1.0 and est.e_c(alone) == 1.0
    assert est.sums(alone) == (math.inf, math.inf)
    for formula in FORMULAS:
        assert est.expected_span(alone, 17, formula) == pytest.approx(17.0)
    for other in ([1], [1, 2]):
        with_up = est.sums(mask(3, [0, *other]))
        without = MarkovEstimates(trans).sums(mask(3, other))
        assert with_up == pytest.approx(without, rel=1e-14)
        for formula in FORMULAS:
            assert est.expected_span(mask(3, [0, *other]), 9, formula) == pytest.approx(
                est.expected_span(mask(3, other), 9, formula), rel=1e-13
            )


def test_w_one_and_per_set_w():
    rng = np.random.default_rng(4)
    est = MarkovEstimates(markov_chains(rng, 5))
    masks = np.array([mask(5, [0]), mask(5, [1, 2]), mask(5, [0, 3, 4])])
    for formula in FORMULAS:
        assert np.array_equal(est.expected_span(masks, 1, formula), np.ones(3))
        each = [est.expected_span(m, w, formula) for m, w in zip(masks, [3, 10, 25], strict=True)]
        assert np.allclose(est.expected_span(masks, np.array([3, 10, 25]), formula), each, rtol=1e-14)
    assert np.array_equal(est.success_probability(masks, 1), np.ones(3))
    with pytest.raises(ValueError, match="W"):
        est.expected_span(masks, 0)
    with pytest.raises(ValueError, match="formula"):
        est.expected_span(masks, 3, "paper")


def test_impossible_success_has_infinite_span():
    # P_uu = 0 and the processor never comes back UP: P_+ = 0
    est = MarkovEstimates(np.array([chain(0, 0.5, 0.5, 0, 0.5, 0.5)]))
    assert est.p_plus(mask(1, [0])) == 0.0
    assert est.success_probability(mask(1, [0]), 3) == 0.0
    for formula in FORMULAS:
        assert est.expected_span(mask(1, [0]), 3, formula) == math.inf
        assert est.expected_span(mask(1, [0]), 1, formula) == 1.0


# ---------------------------------------------------------------------------
# The P_+ = 1 route: sets whose all-UP state is recurrent


def no_down(b, c):
    return chain(1 - b, b, 0, c, 1 - c, 0)


def test_recurrent_route_closed_forms():
    trans = np.array([no_down(0.2, 0.3), no_down(0.1, 0.6), chain(0, 1, 0, 1, 0, 0), chain(0, 1, 0, 1, 0, 0)])
    est = MarkovEstimates(trans)
    ret0, ret1 = (0.2 + 0.3) / 0.3, (0.1 + 0.6) / 0.6  # 1 / pi(u)
    cases = {(0,): ret0, (0, 1): ret0 * ret1, (2,): 2.0, (2, 3): 2.0, (0, 2): 2 * ret0, (): 1.0}
    for members, ret in cases.items():
        m = mask(4, members)
        assert est.p_plus(m) == 1.0 and est.sums(m) == (math.inf, math.inf)
        assert est.truncation(m) == 0
        assert est.e_c(m) == pytest.approx(ret, rel=1e-12)
        for formula in FORMULAS:
            assert est.expected_span(m, 12, formula) == pytest.approx(1 + 11 * ret, rel=1e-12)
        assert est.success_probability(m, 12) == 1.0


def test_recurrent_route_against_monte_carlo():
    trans = np.array([no_down(0.2, 0.3), no_down(0.1, 0.6), chain(0, 1, 0, 1, 0, 0)])
    est = MarkovEstimates(trans)
    rng = np.random.default_rng(21)
    for members, W in [((0,), 10), ((0, 1), 6), ((0, 2), 8)]:
        ok, span = mc.computation(trans[list(members)], W, 20_000, rng)
        assert ok.all()
        se = span.std(ddof=1) / np.sqrt(len(span))
        assert abs(est.expected_span(mask(3, members), W) - span.mean()) <= 3 * se


def test_stuck_reclaimed_is_not_p_plus_one():
    # never DOWN, but RECLAIMED is absorbing: it comes back UP with probability a only
    a = 0.85
    trans = np.array([chain(a, 1 - a, 0, 0, 1, 0)])
    est = MarkovEstimates(trans)
    assert not est.recurrent[0]
    assert est.p_plus(mask(1, [0])) == pytest.approx(a, rel=1e-9)
    assert est.expected_span(mask(1, [0]), 5, "conditional") == pytest.approx(5, rel=1e-6)
    ok, _ = mc.computation(trans, 5, 20_000, np.random.default_rng(2), max_slots=200)
    se = math.sqrt(a**4 * (1 - a**4) / 20_000)
    assert abs(ok.mean() - est.success_probability(mask(1, [0]), 5)) <= 3 * se


# ---------------------------------------------------------------------------
# Monte Carlo: P_+, P^(S)(W) = P_+^(W-1) and the conditional E^(S)(W) (Definitions 1 and 2)


MC_CASES = [(1, 5), (1, 20), (1, 30), (2, 5), (2, 20), (2, 30), (3, 5), (3, 20), (5, 5), (5, 20)]


def check_against_monte_carlo(seed, cases, samples, z=3.0):
    """Every estimate within ``z`` standard errors of its Monte-Carlo figure; returns the means checked."""
    rng = np.random.default_rng(seed)
    p = 12
    trans = markov_chains(rng, p)
    est = MarkovEstimates(trans)
    checked = 0
    for size, W in cases:
        members = rng.choice(p, size, replace=False)
        m = mask(p, members)
        ok2, _ = mc.computation(trans[members], 2, samples, rng)
        p_plus = est.p_plus(m)
        assert abs(ok2.mean() - p_plus) <= z * math.sqrt(p_plus * (1 - p_plus) / samples), (size, W)
        ok, span = mc.computation(trans[members], W, samples, rng)
        p_w = est.success_probability(m, W)
        assert p_w == pytest.approx(p_plus ** (W - 1), rel=1e-12)
        assert abs(ok.mean() - p_w) <= z * math.sqrt(p_w * (1 - p_w) / samples), (size, W)
        if ok.sum() >= 100:  # enough successes for a mean
            d = span[ok]
            se = d.std(ddof=1) / math.sqrt(len(d))
            assert abs(est.expected_span(m, W, "conditional") - d.mean()) <= z * se, (size, W)
            checked += 1
    return checked


@pytest.mark.parametrize("seed", [2013, 15])
def test_estimates_against_monte_carlo(seed):
    assert check_against_monte_carlo(seed, MC_CASES, 30_000) >= 7


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_estimates_against_monte_carlo_large(seed):
    # 4 x 12 x 3 = 144 comparisons: at 3 standard errors each, about one run in four would fail
    # by chance alone (seed 3 gave 3.26 SE on P^(S)(20) of one processor; five independent
    # 10^6-run replicates of that case gave -0.6 to +1.0 SE). Bonferroni: 1 % for the family.
    z = statistics.NormalDist().inv_cdf(1 - 0.01 / (2 * 144))
    cases = [(s, W) for s in (1, 2, 3, 5) for W in (5, 20, 30)]
    assert check_against_monte_carlo(seed, cases, 400_000, z) >= 9


def test_printed_formula_is_not_the_conditional_expectation():
    # the reading's "2 processors, W = 20" case: the printed form is off by a large factor
    rng = np.random.default_rng(20)
    trans = markov_chains(rng, 2)
    est = MarkovEstimates(trans)
    ok, span = mc.computation(trans, 20, 60_000, rng)
    d = span[ok]
    se = d.std(ddof=1) / math.sqrt(len(d))
    printed = est.expected_span(mask(2, [0, 1]), 20, "printed")
    assert abs(est.expected_span(mask(2, [0, 1]), 20, "conditional") - d.mean()) <= 3 * se
    assert abs(printed - d.mean()) > 100 * se
    assert printed > 3 * d.mean()


# ---------------------------------------------------------------------------
# Communication (Section V-B)


def test_communication_formula():
    rng = np.random.default_rng(8)
    trans = markov_chains(rng, 6)
    est = MarkovEstimates(trans)
    masks = np.array([mask(6, [0, 1, 2]), mask(6, [0, 1, 2]), mask(6, [3, 4, 5]), mask(6, [1])])
    n = np.array([[10, 0, 35, 0, 0, 0], [12, 12, 12, 0, 0, 0], [0] * 6, [0, 7, 0, 0, 0, 0]])
    for formula in FORMULAS:
        for n_com in (1, 2, 5):
            got = est.communication(masks, n, n_com, formula)
            for i in range(len(masks)):
                each = [est.expected_span(mask(6, [q]), n[i, q], formula) for q in range(6) if n[i, q] > 0]
                time = max(max(each, default=0.0), n[i].sum() / n_com)
                assert got.time[i] == pytest.approx(time, rel=1e-12)
                slots = np.array(math.ceil(time))
                success = np.prod(est.p_nd(slots)[masks[i]])
                assert got.success[i] == pytest.approx(success, rel=1e-12)
            if n_com >= 3:  # |S| <= n_com: the max of the single-worker estimates alone
                assert got.time[1] == pytest.approx(est.expected_span(mask(6, [0]), 12, formula), rel=1e-12)
    nothing = est.communication(masks[2], n[2], 2)
    assert nothing.time == 0 and nothing.success == 1
    with pytest.raises(ValueError, match="outside"):
        est.communication(masks[:1], n[1:2] + 1, 2)


def test_communication_printed_with_long_transfers_stays_finite():
    est = MarkovEstimates(markov_chains(np.random.default_rng(9), 4))
    got = est.communication(mask(4, [0, 1, 2, 3]), np.array([150, 150, 150, 150]), 2, "printed")
    assert got.time > 300 and 0 <= got.success < 1e-3


@pytest.mark.parametrize("n_q", [1, 8, 40])
def test_single_worker_communication_against_monte_carlo(n_q):
    # one worker: it receives in each of its UP slots, exactly the computation of W = n_q slots
    rng = np.random.default_rng(30 + n_q)
    trans = markov_chains(rng, 1)
    est = MarkovEstimates(trans)
    ok, span = mc.communication(trans, np.array([n_q]), 1, 30_000, rng)
    d = span[ok]
    got = est.communication(mask(1, [0]), np.array([n_q]), 1, "conditional")
    se = d.std(ddof=1) / math.sqrt(len(d)) if n_q > 1 else 0.0
    assert abs(got.time - d.mean()) <= 3 * se
    p_w = est.success_probability(mask(1, [0]), n_q)
    assert abs(ok.mean() - p_w) <= 3 * math.sqrt(p_w * (1 - p_w) / 30_000 + 1e-300)


# ---------------------------------------------------------------------------
# Vectorisation, memo, input


def test_k_sets_at_once_equal_k_single_calls():
    rng = np.random.default_rng(12)
    trans = markov_chains(rng, 10)
    masks = rng.random((25, 10)) < 0.3
    masks[0] = False
    masks[1, :] = False
    masks[1, 4] = True
    W = rng.integers(1, 200, 25)
    n = np.where(masks, rng.integers(0, 60, (25, 10)), 0)
    batch = MarkovEstimates(trans)
    for formula in FORMULAS:
        E = batch.expected_span(masks, W, formula)
        C = batch.communication(masks, n, 3, formula)
        for i in range(len(masks)):
            one = MarkovEstimates(trans)  # a fresh memo: nothing computed in the batch is reused
            assert one.expected_span(masks[i], W[i], formula) == pytest.approx(E[i], rel=1e-12)
            c = MarkovEstimates(trans).communication(masks[i], n[i], 3, formula)
            assert c.time == pytest.approx(C.time[i], rel=1e-12)
            assert c.success == pytest.approx(C.success[i], rel=1e-12)
    single = [MarkovEstimates(trans).success_probability(m, w) for m, w in zip(masks, W, strict=True)]
    assert np.allclose(batch.success_probability(masks, W), single, rtol=1e-12)


def test_memo_returns_the_same_values():
    rng = np.random.default_rng(13)
    trans = markov_chains(rng, 8)
    est = MarkovEstimates(trans, cache_size=5)
    masks = rng.random((12, 8)) < 0.4
    first = est.expected_span(masks, 20, "conditional")
    again = est.expected_span(masks[::-1], 20, "conditional")[::-1]
    assert np.allclose(first, again, rtol=1e-13, atol=0)
    assert len(est.memo) <= 12


def test_bad_input():
    good = markov_chains(np.random.default_rng(0), 3)
    with pytest.raises(InputError, match=r"shape"):
        MarkovEstimates(good[:, :2])
    bad = good.copy()
    bad[1, 2, 0] += 0.1
    with pytest.raises(InputError, match=r"transitions\[1\]\[2\]"):
        MarkovEstimates(bad)
    with pytest.raises(InputError, match=r"transitions\[2\].*max_T"):
        MarkovEstimates(np.concatenate([good[:2], [chain(0.999, 0.0005, 0.0005, 0.5, 0.5, 0)]]), max_T=10_000)
    with pytest.raises(InputError, match=r"transitions\[1\].*rounds to 1"):
        MarkovEstimates(np.array([good[0], chain(0.5, 0.5, 1e-20, 0.5, 0.5, 0)]))
    est = MarkovEstimates(good)
    with pytest.raises(ValueError, match="masks"):
        est.expected_span(np.ones((2, 4), dtype=bool), 3)
