"""Coupled realizations beyond the stored horizon (the Markov chains of Section VII-A, continued).

A file stores ``H`` slots; :meth:`CoupledInstance.realization` continues the chains from slot
``H - 1`` with uniforms from fixed blocks of the continuation seed. Checked here against two
pure-numpy oracles (the Python loop ``markov_realization`` was before its compiled kernel, and
a step-by-step continuation drawing whole blocks): bit-identical stored realizations, prefix
stability whatever the order of the calls, determinism across fresh instances and processes,
the chains' law, the new field in files, and the limits.
"""

import hashlib
import json
import math
import pickle
import threading

import numpy as np
import pytest

from volsched.instances import coupled
from volsched.instances.coupled import (
    DOWN,
    MAX_CELLS,
    MAX_CONTINUATION_SEED,
    MAX_REALIZATION_SLOTS,
    PAPER_CAP,
    REALIZATION_BLOCK,
    RECLAIMED,
    UP,
    CoupledInstance,
    generate_markov,
    generate_planted,
    markov_chains,
    markov_realization,
    paper_realization,
    parse_availability,
)
from volsched.instances.errors import InputError
from volsched.instances.io import read_json, write_json


def reference_markov_realization(rng, trans, horizon):
    """The pure-numpy loop of ``markov_realization`` before the compiled kernel (the oracle)."""
    p = trans.shape[0]
    cum = np.cumsum(trans, axis=2)
    states = np.empty((p, horizon), dtype=np.int8)
    s = np.zeros(p, dtype=np.int64)
    draws = rng.random((horizon, p))
    rows = np.arange(p)
    for t in range(horizon):
        states[:, t] = s
        s = np.minimum((draws[t][:, None] >= cum[rows, s]).sum(axis=1), 2)
    return states


def reference_realization(inst, length, block=REALIZATION_BLOCK):
    """Slots ``0 .. length - 1`` as the README describes them, one numpy step per slot.

    Block ``b`` draws all its ``block x p`` uniforms at once from
    ``SeedSequence(continuation_seed, spawn_key=(b,))``; the instance draws only what it needs.
    """
    p, horizon = inst.p, inst.horizon
    cum = np.cumsum(inst.transitions, axis=2)
    rows = np.arange(p)
    s = inst.availability[:, -1].astype(np.int64)
    out = np.empty((p, length - horizon), dtype=np.int8)
    for b in range(math.ceil((length - horizon) / block)):
        seq = np.random.SeedSequence(inst.continuation_seed, spawn_key=(b,))
        draws = np.random.default_rng(seq).random((block, p))
        for i in range(min(block, length - horizon - b * block)):
            s = np.minimum((draws[i][:, None] >= cum[rows, s]).sum(axis=1), 2)
            out[:, b * block + i] = s
    return np.concatenate([inst.availability, out], axis=1)


def digest(states: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(states).tobytes()).hexdigest()


STICKY = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]]


def hand(rows, transitions=None, seed=None, **kw) -> CoupledInstance:
    p = len(rows)
    return CoupledInstance(
        availability=parse_availability(rows),
        w=[1] * p,
        mu=[1] * p,
        m=1,
        transitions=transitions,
        continuation_seed=seed,
        **kw,
    )


# ---------------------------------------------------------------------------
# The stored realizations do not change (compiled kernel vs. the Python loop)


@pytest.mark.parametrize("p, horizon, seed", [(1, 1, 0), (1, 2, 1), (3, 97, 2), (20, 500, 3), (7, 333, 12)])
def test_markov_realization_is_the_python_loop_bit_for_bit(p, horizon, seed):
    trans = markov_chains(np.random.default_rng(seed + 100), p)
    rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
    assert np.array_equal(
        markov_realization(rng_a, trans, horizon), reference_markov_realization(rng_b, trans, horizon)
    )
    assert rng_a.random() == rng_b.random()  # the same uniforms consumed


def test_markov_realization_is_the_loop_across_draw_chunks(monkeypatch):
    monkeypatch.setattr(coupled, "_DRAW_CELLS", 7)  # 2 rows of 3 processors per draw
    trans = np.array([STICKY, STICKY[::-1], [[1 / 3] * 3] * 3])
    for horizon in (1, 2, 3, 4, 5, 50):
        rng_a, rng_b = np.random.default_rng(horizon), np.random.default_rng(horizon)
        assert np.array_equal(
            markov_realization(rng_a, trans, horizon), reference_markov_realization(rng_b, trans, horizon)
        )
        assert rng_a.random() == rng_b.random()


def test_rows_summing_below_one_end_in_down_like_the_loop():
    trans = np.array([[[0.3, 0.3, 0.4 - 1e-10]] * 3])  # a uniform above the row's sum: DOWN
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    draws = np.random.default_rng(5).random((20_000, 1))
    assert (draws > 1 - 1e-10).sum() == 0  # the cap itself is reached through the comparisons
    assert np.array_equal(
        markov_realization(rng_a, trans, 20_000), reference_markov_realization(rng_b, trans, 20_000)
    )


# Digests of the stored availability computed with the Python loop (before the kernel).
STORED = [
    (
        lambda: paper_realization(5, 5, 1, 0, 0),
        "3e9f4cd98a41f401f3b84ce51abfa9e5063058817ecb8dc3737526c4b1a6bb70",
    ),
    (
        lambda: paper_realization(10, 20, 7, 3, 9, seed=4, slots=3000),
        "586375e846eb1f3fa4181c9f7961324ebd9560794fc31e8315464a64ceeb4b25",
    ),
    (
        lambda: generate_markov(60, 2000, 10, 1),
        "85dd29aff3873315015ff90a6a25310fd5bfca49207521a322cd8e3857b6c87f",
    ),
    (
        lambda: generate_markov(7, 333, 2, 12),
        "493f157012b6fc26d01000864eff6a45d90b34e1d3aa3630bf512c901640ba50",
    ),
]


@pytest.mark.parametrize("make, expected", STORED)
def test_generated_instances_keep_their_stored_availability(make, expected):
    assert digest(make().availability) == expected


# ---------------------------------------------------------------------------
# The continuation


@pytest.fixture
def paper():
    return paper_realization(5, 5, 1, 0, 0, slots=300)


def test_realization_within_the_horizon_is_the_stored_availability(paper):
    assert paper.extendable and paper.horizon == 300
    for length in (1, 17, 300):
        r = paper.realization(length)
        assert r.shape == (20, length) and r.dtype == np.int8
        assert np.array_equal(r, paper.availability[:, :length])
    assert paper._continuation is None  # nothing generated for the stored slots


def test_continuation_matches_the_numpy_oracle_across_blocks(monkeypatch, paper):
    monkeypatch.setattr(coupled, "REALIZATION_BLOCK", 7)
    monkeypatch.setattr(coupled, "_DRAW_CELLS", 3 * 20)  # 3 slots per draw inside a block
    expected = reference_realization(paper, 300 + 7 * 9 + 4, block=7)
    for length in (301, 302, 307, 308, 320, 300 + 7 * 9 + 4):
        assert np.array_equal(paper.realization(length), expected[:, :length])


def test_continuation_matches_the_oracle_over_a_real_block_boundary():
    inst = paper_realization(10, 5, 2, 1, 1, slots=50)
    length = 50 + REALIZATION_BLOCK + 1_000
    assert np.array_equal(inst.realization(length), reference_realization(inst, length))


def lengths_in_orders(horizon):
    b = REALIZATION_BLOCK
    lengths = [horizon + 1, horizon + b - 1, horizon + b, horizon + b + 1, horizon + 2 * b + 3, 5, horizon]
    return [lengths, lengths[::-1], sorted(lengths), [lengths[4], *lengths]]


@pytest.mark.parametrize("order", range(4))
def test_prefix_stable_whatever_the_order_of_the_calls(order):
    reference = paper_realization(5, 10, 3, 2, 1, slots=120)
    longest = reference.realization(120 + 2 * REALIZATION_BLOCK + 3)
    inst = paper_realization(5, 10, 3, 2, 1, slots=120)
    for length in lengths_in_orders(120)[order]:
        r = inst.realization(length)
        assert r.shape == (20, length)
        assert np.array_equal(r, longest[:, :length]), length


def test_prefix_stable_across_draw_chunk_sizes(monkeypatch):
    expected = paper_realization(5, 5, 1, 4, 4, slots=40).realization(40 + REALIZATION_BLOCK + 50)
    monkeypatch.setattr(coupled, "_DRAW_CELLS", 20 * 1000 + 7)  # chunks of 1,000 slots
    inst = paper_realization(5, 5, 1, 4, 4, slots=40)
    assert np.array_equal(inst.realization(40 + REALIZATION_BLOCK + 50), expected)


def test_returned_realizations_are_read_only_and_stay_valid_after_growth(paper):
    short = paper.realization(400)
    copy = short.copy()
    long = paper.realization(300 + 3 * REALIZATION_BLOCK)  # reallocates the cache
    assert np.array_equal(short, copy) and np.array_equal(long[:, :400], copy)
    for r in (short, long, paper.realization(10)):
        with pytest.raises(ValueError):
            r[0, 0] = DOWN


def test_concurrent_calls_give_the_same_realization():
    lengths = [201, 5_000, 200 + REALIZATION_BLOCK + 10, 70_000, 12_345, 200 + REALIZATION_BLOCK]
    expected = paper_realization(10, 10, 5, 0, 3, slots=200).realization(max(lengths))
    inst = paper_realization(10, 10, 5, 0, 3, slots=200)
    got = {}

    def work(length):
        got[length] = inst.realization(length)

    threads = [threading.Thread(target=work, args=(n,)) for n in lengths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for n in lengths:
        assert np.array_equal(got[n], expected[:, :n]), n


def test_two_fresh_instances_read_from_one_file_agree(tmp_path):
    path = tmp_path / "inst.json"
    write_json(path, generate_markov(6, 80, 2, 9).to_json())
    a = CoupledInstance.from_json(read_json(path))
    b = CoupledInstance.from_json(read_json(path))
    length = 80 + REALIZATION_BLOCK + 77
    ra = a.realization(length)
    b.realization(81)
    b.realization(80 + REALIZATION_BLOCK)
    assert np.array_equal(ra, b.realization(length))
    assert np.array_equal(ra, generate_markov(6, 80, 2, 9).realization(length))


# The continuation of paper_realization(5, 5, 1, 0, 0) beyond its H = 2,000 stored slots, as
# computed when it was designed: a change of numpy's streams or of the derivation fails here.
GOLDEN_SEED = 2956407290513451
GOLDEN_CONTINUATION = "2d9af139b914d30261cff0a3c7bc689105da43dbfa4fccf1a2c794b1f98707f9"


def test_the_continuation_is_the_same_in_every_run():
    inst = paper_realization(5, 5, 1, 0, 0)
    assert inst.continuation_seed == GOLDEN_SEED
    r = inst.realization(inst.horizon + 70_000)
    assert digest(r[:, inst.horizon :]) == GOLDEN_CONTINUATION
    assert r[:4, 2000:2012].tolist() == [
        [1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2],
        [2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0],
        [0] * 12,
        [1] * 12,
    ]


def test_pickled_instances_drop_the_cache_and_give_the_same_realization(paper):
    length = 300 + REALIZATION_BLOCK + 5
    r = paper.realization(length)
    blob = pickle.dumps(paper)
    assert len(blob) < 20 * 300 + 20_000  # the stored slots, not the 1.3 MB generated
    back = pickle.loads(blob)
    assert back._continuation is None
    assert np.array_equal(back.realization(length), r)


# ---------------------------------------------------------------------------
# The chains' law


def test_continuation_starts_from_the_state_of_the_last_stored_slot():
    cycle = [[0, 1, 0], [0, 0, 1], [1, 0, 0]]  # UP -> RECLAIMED -> DOWN -> UP, no randomness
    absorbing = [[0.5, 0.25, 0.25], [0.5, 0.25, 0.25], [0, 0, 1]]
    inst = hand(["UR", "UD", "DU", "UD"], [cycle, cycle, cycle, absorbing], seed=3)
    r = inst.realization(2 + 9)
    period = [UP, RECLAIMED, DOWN]
    assert r[0, 2:].tolist() == [period[(2 + k) % 3] for k in range(9)]  # from R: D, U, R, ...
    assert r[1, 2:].tolist() == [period[(3 + k) % 3] for k in range(9)]  # from D: U, R, D, ...
    assert r[2, 2:].tolist() == [period[(1 + k) % 3] for k in range(9)]  # from U: R, D, U, ...
    assert r[3, 2:].tolist() == [DOWN] * 9


def test_an_absorbing_down_state_stays_down_over_long_continuations():
    absorbing = [[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0, 0, 1]]
    inst = hand(["UUD", "UUU"], [absorbing, absorbing], seed=11)
    r = inst.realization(3 + 2 * REALIZATION_BLOCK)
    assert (r[0, 2:] == DOWN).all()
    down_at = np.flatnonzero(r[1] == DOWN)
    assert down_at.size and (r[1, down_at[0] :] == DOWN).all()


def test_continuation_transition_frequencies_match_the_chains():
    chains = np.array([STICKY, np.array(STICKY)[[2, 0, 1]][:, [2, 0, 1]], [[0.8, 0.15, 0.05]] * 3])
    inst = hand(["UR", "RD", "DU"], chains, seed=2024)
    length = 300_000
    r = inst.realization(length).astype(np.int64)
    for q in range(3):
        path = r[q, 1:]  # from slot H - 1 onwards: every transition of the continuation
        counts = np.zeros((3, 3))
        np.add.at(counts, (path[:-1], path[1:]), 1)
        for i in range(3):
            n = counts[i].sum()
            assert n > 10_000
            for j in range(3):
                prob = chains[q, i, j]
                se = math.sqrt(prob * (1 - prob) / n)
                assert abs(counts[i, j] / n - prob) <= 4 * se + 1e-12, (q, i, j, counts[i, j] / n, prob)


# ---------------------------------------------------------------------------
# The field in files and in the model


def test_generators_set_distinct_deterministic_seeds():
    seeds = {paper_realization(5, 5, 1, 0, trial).continuation_seed for trial in range(10)}
    seeds |= {paper_realization(5, 5, 1, 0, 0, slots=slots).continuation_seed for slots in (100, 101)}
    seeds |= {generate_markov(20, 2000, 5, seed).continuation_seed for seed in range(5)}
    assert len(seeds) == 17
    assert all(type(s) is int and 0 <= s <= MAX_CONTINUATION_SEED for s in seeds)
    # The realization is the platform's: the markov seed ignores the application (tasks, w).
    assert (
        generate_markov(20, 2000, 5, 3).continuation_seed
        == generate_markov(20, 2000, 1, 3, w=4).continuation_seed
    )
    assert (
        paper_realization(5, 5, 1, 0, 7).continuation_seed
        == paper_realization(5, 5, 1, 0, 7).continuation_seed
    )


def test_json_round_trip_keeps_the_continuation_seed():
    inst = paper_realization(10, 5, 3, 1, 2, slots=64)
    obj = json.loads(json.dumps(inst.to_json()))
    assert obj["version"] == 2 and obj["data"]["continuation_seed"] == inst.continuation_seed
    back = CoupledInstance.from_json(obj)
    assert back.continuation_seed == inst.continuation_seed and back.to_json() == inst.to_json()
    assert np.array_equal(back.realization(64 + 500), inst.realization(64 + 500))
    planted = generate_planted(6, 40, 2, 5, 0.5, 0)
    assert planted.continuation_seed is None and "continuation_seed" not in planted.to_json()["data"]
    assert not planted.extendable


def test_files_without_the_seed_still_read_and_end_at_their_horizon():
    obj = generate_markov(4, 50, 2, 5).to_json()
    del obj["data"]["continuation_seed"]
    inst = CoupledInstance.from_json(obj)
    assert inst.transitions is not None and inst.continuation_seed is None and not inst.extendable
    assert inst.max_realization() == 50
    with pytest.raises(InputError) as err:
        inst.realization(51)
    assert str(err.value) == (
        "length: 51 slots asked, but the realization ends at slot H = 50 and the instance has no chains to "
        "continue it (data.continuation_seed missing); ask for at most 50"
    )


@pytest.mark.parametrize(
    "value, fragment",
    [
        (-1, "continuation_seed: must be an integer >= 0, got -1"),
        ("7", "continuation_seed: must be an integer >= 0, got '7'"),
        (True, "continuation_seed: must be an integer >= 0, got True"),
        (3.0, "continuation_seed: must be an integer >= 0, got 3.0"),
        (2**70, f"continuation_seed: must be at most {2**53 - 1}, got {2**70}"),
    ],
)
def test_bad_continuation_seeds_name_the_field(value, fragment):
    with pytest.raises(InputError, match="^" + fragment.replace("(", r"\(").replace(")", r"\)")):
        hand(["UU"], [STICKY], seed=value)


def test_a_seed_without_chains_is_refused():
    with pytest.raises(InputError, match=r"^continuation_seed: needs the chains .*data\.transitions"):
        hand(["UU"], None, seed=4)
    assert hand(["UU"], [STICKY], seed=MAX_CONTINUATION_SEED).continuation_seed == 2**53 - 1
    assert hand(["UU"], [STICKY], seed=np.uint64(4)).continuation_seed == 4


# ---------------------------------------------------------------------------
# Limits


def test_a_non_extendable_instance_refuses_slots_beyond_its_horizon():
    inst = generate_planted(6, 300, 2, 5, 0.5, 0)
    assert inst.max_realization() == 300
    assert inst.realization(300).shape == (6, 300)
    with pytest.raises(InputError) as err:
        inst.realization(301, name="--cap")
    assert str(err.value) == (
        "--cap: 301 slots asked, but the realization ends at slot H = 300 and the instance has no chains to "
        "continue it (data.transitions and data.continuation_seed missing); ask for at most 300"
    )


@pytest.mark.parametrize("length", [0, -5, True, 2.0, "10", None])
def test_lengths_that_are_not_positive_integers_are_refused(paper, length):
    with pytest.raises(InputError, match=r"^length: must be an integer >= 1"):
        paper.realization(length)


def test_the_paper_cap_fits_and_the_limits_are_refused(paper):
    assert PAPER_CAP == 10**6 and MAX_REALIZATION_SLOTS == 10 * PAPER_CAP
    assert paper.max_realization() == MAX_CELLS // 20 == 5_000_000
    with pytest.raises(InputError, match=r"^--cap: at most 5,000,000 slots .* got 5,000,001$"):
        paper.realization(5_000_001, name="--cap")
    assert paper._continuation is None  # refused before anything is generated
    r = paper.realization(PAPER_CAP)
    assert r.shape == (20, PAPER_CAP) and np.array_equal(r[:, :300], paper.availability)
    one = hand(["U"], [STICKY], seed=1)
    assert one.max_realization() == MAX_REALIZATION_SLOTS
    with pytest.raises(InputError, match=r"^length: at most 10,000,000 slots"):
        one.realization(MAX_REALIZATION_SLOTS + 1)


def test_a_stored_horizon_beyond_the_slot_limit_is_still_given_whole():
    horizon = MAX_REALIZATION_SLOTS + 3
    inst = CoupledInstance(
        availability=np.zeros((1, horizon), dtype=np.int8),
        w=[1],
        mu=[1],
        m=1,
        transitions=[STICKY],
        continuation_seed=0,
    )
    assert inst.max_realization() == horizon
    assert inst.realization(horizon).shape == (1, horizon)
    with pytest.raises(InputError, match=r"^length: at most 10,000,003 slots"):
        inst.realization(horizon + 1)
