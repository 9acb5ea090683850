"""The compiled branch-and-bound of OFF-LINE-COUPLED (mu = 1): both branching sides, the wide-node
and small-node (<= 64 candidates) code paths, decisions, time limits and the incumbent search.

Oracles: an enumeration of all m-subsets of rows (``solve_brute``, p <= 16), an enumeration of
all slot subsets written here (H <= 14, any p), and a recount of every returned set.
"""

import functools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volsched.instances.coupled import generate_markov, generate_planted
from volsched.solvers.coupled import _bits_kernel, bnb
from volsched.solvers.coupled import _bnb_heuristics_kernel as incumbent
from volsched.solvers.coupled.offline_brute import solve_brute

SIDES = [None, False, True]  # automatic, processors, slots


def common(up: np.ndarray, rows) -> int:
    return int(np.logical_and.reduce(up[list(rows)], axis=0).sum())


def slot_enumeration(up: np.ndarray, m: int) -> int:
    """Largest number of slots that at least m rows all hold, over every slot subset (H <= 14)."""
    _p, horizon = up.shape
    masks = (up.astype(np.int64) << np.arange(horizon)).sum(axis=1)
    subsets = np.arange(1 << horizon)
    holders = ((masks[None, :] & subsets[:, None]) == subsets[:, None]).sum(axis=1)
    sizes = np.array([bin(int(j)).count("1") for j in subsets])
    return int(sizes[holders >= m].max())


def random_matrix(rng, p_range, h_range):
    p = int(rng.integers(*p_range))
    horizon = int(rng.integers(*h_range))
    return rng.random((p, horizon)) < rng.uniform(0.15, 0.97)


def slot_side_is_small(optimum: int, m: int, horizon: int) -> bool:
    """The slot side with a slot target far above m explores exponentially many slot sets."""
    return optimum + 1 < m or horizon <= 40


def check_solve(up, m, side, optimum):
    """From the heuristics' incumbent and from an arbitrary one (the search must find it)."""
    check_solution(up, m, bnb._solve(up, m, None, side), optimum)
    check_solution(up, m, bnb._solve(up, m, None, side, heuristics=False), optimum)


def check_solution(up, m, result, optimum):
    rows, value, bound, nodes = result
    assert len(rows) == m and len(set(rows)) == m and rows == sorted(rows)
    assert all(0 <= q < up.shape[0] for q in rows)
    assert common(up, rows) == value == optimum
    assert bound == optimum and nodes >= 1


@pytest.mark.parametrize("seed", range(12))
def test_matches_brute_force_on_both_sides(seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        up = random_matrix(rng, (1, 16), (0, 120))
        m = int(rng.integers(1, up.shape[0] + 1))
        optimum = solve_brute(up, m)[1]
        for side in SIDES:
            if side is True and not slot_side_is_small(optimum, m, up.shape[1]):
                continue
            check_solve(up, m, side, optimum)


@pytest.mark.parametrize("seed", range(8))
def test_planted_blocks_in_sparse_noise(seed):
    """The block's slots lie on its own rows only: every bound is tight on it, none may cut it."""
    rng = np.random.default_rng(400 + seed)
    for _ in range(10):
        p = int(rng.integers(6, 16))
        m = int(rng.integers(2, p + 1))
        block = int(rng.integers(1, 12))
        inst = generate_planted(
            p,
            block + int(rng.integers(0, 40)),
            m,
            block,
            float(rng.uniform(0.05, 0.4)),
            int(rng.integers(0, 10**6)),
        )
        optimum = solve_brute(inst.up, m)[1]
        assert optimum >= block
        for side in SIDES:
            if side is True and not slot_side_is_small(optimum, m, inst.up.shape[1]):
                continue
            check_solve(inst.up, m, side, optimum)


@pytest.mark.parametrize("seed", range(4))
def test_wide_nodes_on_the_processor_side(seed):
    """More than 64 processors: the root and its children take the wide-node path."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(6):
        up = random_matrix(rng, (65, 140), (4, 15))
        m = int(rng.integers(2, 12))
        optimum = slot_enumeration(up, m)
        for side in (None, False):
            check_solve(up, m, side, optimum)


@pytest.mark.parametrize("seed", range(4))
def test_wide_nodes_on_the_slot_side(seed):
    """More than 64 slots as items, few rows needed in common by many: slot side, wide nodes."""
    rng = np.random.default_rng(200 + seed)
    for _ in range(6):
        p = int(rng.integers(6, 15))
        up = rng.random((p, int(rng.integers(65, 200)))) < rng.uniform(0.3, 0.8)
        m = int(rng.integers(max(1, p - 4), p + 1))
        optimum = solve_brute(up, m)[1]
        check_solve(up, m, True, optimum)
        check_solve(up, m, False, optimum)


@pytest.mark.parametrize("seed", range(6))
def test_decide_both_ways_on_both_sides(seed):
    rng = np.random.default_rng(300 + seed)
    for _ in range(15):
        up = random_matrix(rng, (1, 15), (1, 90))
        m = int(rng.integers(1, up.shape[0] + 1))
        optimum = solve_brute(up, m)[1]
        for target in {max(optimum - 1, 1), optimum, optimum + 1}:
            for side in SIDES:
                if side is True and not slot_side_is_small(target - 1, m, up.shape[1]):
                    continue
                rows, decided = bnb._decide(up, m, target, None, side)
                assert decided
                if optimum >= target:
                    assert rows is not None and len(set(rows)) == m and common(up, rows) >= target
                else:
                    assert rows is None


def test_decide_public_entry_and_trivial_cases():
    up = np.array([[1, 1, 0, 1], [1, 1, 1, 0], [0, 1, 1, 1]], dtype=bool)
    assert bnb.decide_bnb(up, 2, 2) == ([0, 1], True)
    assert bnb.decide_bnb(up, 2, 3) == (None, True)
    assert bnb.decide_bnb(up, 3, 1) == ([0, 1, 2], True)
    assert bnb.decide_bnb(up, 3, 2) == (None, True)
    assert bnb.decide_bnb(up, 2, 0) == ([0, 1], True)
    assert bnb.decide_bnb(up, 4, 1) == (None, True)
    assert bnb.solve_bnb(up, 3) == ([0, 1, 2], 1, 1, bnb.solve_bnb(up, 3)[3])
    with pytest.raises(ValueError, match="m = 4"):
        bnb.solve_bnb(up, 4)


@functools.cache
def planted_with_optimum():
    inst = generate_planted(90, 70, 14, 9, 0.8, 3)
    rows, value, bound, _ = bnb.solve_bnb(inst.up, inst.m)
    assert value == bound == common(inst.up, rows) >= 9
    return inst.up, inst.m, value


@pytest.mark.parametrize("time_limit", [0.0, 1e-3, 2e-2, 0.3])
@pytest.mark.parametrize("side", SIDES)
def test_time_limited_calls_return_valid_bounds(time_limit, side):
    """Stopped early, the bound still covers the optimum (a hidden planted block)."""
    up, m, optimum = planted_with_optimum()
    rows, value, bound, _nodes = bnb._solve(up, m, time_limit, side)
    assert len(set(rows)) == m and common(up, rows) == value
    assert value <= optimum <= bound
    if bound == value:
        assert value == optimum


def test_past_deadline_decision_is_undecided_or_right():
    inst = generate_markov(40, 600, 8, 5)
    up, m = inst.up, inst.m
    optimum = bnb.solve_bnb(up, m)[1]
    for target in (optimum, optimum + 1, optimum + 40):
        for side in SIDES:
            rows, decided = bnb._decide(up, m, target, time.perf_counter() - 1.0, side)
            if rows is not None:
                assert common(up, rows) >= target
            elif decided:
                assert optimum < target


def test_markov_instances_agree_across_sides_and_with_slot_enumeration():
    for seed in range(3):
        inst = generate_markov(70, 12, 5, seed)
        optimum = slot_enumeration(inst.up, 5)
        for side in SIDES:
            check_solve(inst.up, 5, side, optimum)


def test_tabu_search_improves_on_the_greedy_start():
    """A hidden block 6 x 12 in noise: the swap search reaches it from a poor start."""
    inst = generate_planted(40, 60, 6, 12, 0.55, 1)
    rows_bits = bnb._pack(inst.up)
    start = np.arange(6, dtype=np.int64)
    value, found = incumbent.tabu(rows_bits, start, 500, np.inf)
    assert value == common(inst.up, found) >= 12 > common(inst.up, start)
    assert len(set(found.tolist())) == 6


def test_software_pext_matches_a_bit_loop():
    rng = np.random.default_rng(7)
    for _ in range(300):
        x, m = (np.uint64(v) for v in rng.integers(0, 2**63, 2, dtype=np.uint64))
        m &= np.uint64(rng.integers(0, 2**63, dtype=np.uint64))
        expected, k = 0, 0
        for bit in range(64):
            if int(m) >> bit & 1:
                expected |= (int(x) >> bit & 1) << k
                k += 1
        assert int(_bits_kernel.pext_software(x, m)) == expected


def test_pack_layout():
    up = np.zeros((2, 130), dtype=bool)
    up[0, [0, 63, 64, 129]] = True
    packed = bnb._pack(up)
    assert packed.shape == (2, 3) and packed.dtype == np.uint64
    assert packed[0].tolist() == [1 | 1 << 63, 1, 2] and packed[1].tolist() == [0, 0, 0]
    assert bnb._pack(np.zeros((3, 0), dtype=bool)).shape == (3, 1)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 9), st.integers(0, 40), st.integers(1, 9), st.floats(0.1, 0.95), st.integers(0, 2**32 - 1)
)
def test_property_optimum_and_decisions(p, horizon, m, density, seed):
    m = min(m, p)
    up = np.random.default_rng(seed).random((p, horizon)) < density
    optimum = solve_brute(up, m)[1]
    rows, value, bound, _ = bnb.solve_bnb(up, m)
    assert value == bound == optimum == common(up, rows)
    assert bnb.decide_bnb(up, m, optimum)[0] is not None
    assert bnb.decide_bnb(up, m, optimum + 1) == (None, True)


def test_child_rows_read_only_the_words_of_the_node_candidates():
    """A wide node's candidate sets have the words of its first count (its Level's width); after
    filtering, the words past its current count hold stale bits, which must not become candidates
    (they wrote past the child's rows: a heap corruption on p > 64, or on the slot side)."""
    from volsched.solvers.coupled import _bnb_kernel as search

    n, words, width = 3, 1, 2  # 3 candidates now: one word of candidate bits; the Level has two
    S = np.arange(1, 1 + 128 * words, dtype=np.uint64).reshape(1, 128, words)
    P = np.arange(100, 228, dtype=np.int64).reshape(1, 128)
    nxt = np.zeros((1, width), np.uint64)
    nxt[0, 0] = np.uint64(0b101)  # candidates 0 and 2
    nxt[0, 1] = ~np.uint64(0)  # stale: 64 candidates of an earlier, larger node
    cR = np.full((1, 70, words), 7, np.uint64)
    cids = np.full((1, 70), -1, np.int64)
    cY = np.full((1, words), ~np.uint64(0), np.uint64)
    search._child_rows(S, P, nxt, 0, (n + 63) >> 6, words, cR, cids, cY, 0)
    assert cids[0, :2].tolist() == [100, 102]
    assert cR[0, :2, 0].tolist() == [1, 3]
    assert (cids[0, 2:] == -1).all() and (cR[0, 2:] == 7).all()


@pytest.mark.parametrize("args", [(20, 500, 5, 1), (70, 150, 4, 7)])
def test_sides_agree_on_wide_nodes_with_several_words_of_candidates(args):
    """Over 64 candidates at the root (slots, or p = 70 processors): every side, with and without
    the incumbent heuristics, finds the same optimum (these runs read stale candidate words, the
    default solve of p = 70 among them)."""
    inst = generate_markov(*args)
    values = {
        (side, h): bnb._solve(inst.up, inst.m, None, side, heuristics=h)
        for side in SIDES
        for h in (True, False)
    }
    for rows, value, bound, _ in values.values():
        assert value == bound == common(inst.up, rows) and len(set(rows)) == inst.m
    assert len({v[1] for v in values.values()}) == 1
