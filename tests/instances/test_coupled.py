"""Coupled instances (Casanova et al. 2013, Section III): validation naming field and index,
exact JSON round trips, and the seeded generators (the paper's Markov chains, planted blocks)."""

import copy
import itertools
import json
import math

import numpy as np
import pytest

from volsched.instances.coupled import (
    DOWN,
    RECLAIMED,
    UP,
    CoupledInstance,
    generate_markov,
    generate_planted,
    markov_chains,
    markov_realization,
    parse_availability,
)
from volsched.instances.errors import InputError
from volsched.solvers.coupled.bnb import solve_bnb

ROWS = ["UURD", "URUU", "DUUU"]


def valid_obj(**data) -> dict:
    """A valid coupled instance file object; ``data`` overrides fields of ``data``."""
    base = {
        "availability": list(ROWS),
        "w": [2, 3, 1],
        "mu": [1, None, 2],
        "m": 2,
        "n_com": 2,
        "T_prog": 5,
        "T_data": 1,
        "K": 3,
    }
    base.update(data)
    return {
        "format": "volsched-instance",
        "version": 1,
        "family": "coupled",
        "name": "hand",
        "params": {"note": "hand-built"},
        "data": base,
    }


def make(**kw) -> CoupledInstance:
    args = {"availability": parse_availability(ROWS), "w": [1, 1, 1], "mu": [1, 1, 1], "m": 2}
    args.update(kw)
    return CoupledInstance(**args)


# ---------------------------------------------------------------------------
# parse_availability and the model


def test_parse_availability_codes_and_shape():
    states = parse_availability(["URD", "DDU"])
    assert states.shape == (2, 3) and states.dtype == np.int8
    assert states.tolist() == [[UP, RECLAIMED, DOWN], [DOWN, DOWN, UP]]
    assert (UP, RECLAIMED, DOWN) == (0, 1, 2)


def test_model_fields_and_up_matrix():
    inst = CoupledInstance.from_json(valid_obj())
    fields = (inst.p, inst.horizon, inst.m, inst.n_com, inst.T_prog, inst.T_data, inst.K)
    assert fields == (3, 4, 2, 2, 5, 1, 3)
    assert inst.w.tolist() == [2, 3, 1]
    assert inst.mu[0] == 1 and math.isinf(inst.mu[1]) and inst.mu[2] == 2
    # RECLAIMED and DOWN are both "not UP"
    assert inst.up.tolist() == [
        [True, True, False, False],
        [True, False, True, True],
        [False, True, True, True],
    ]
    assert inst.name == "hand" and inst.params == {"note": "hand-built"}


def test_arrays_are_read_only():
    inst = make()
    for arr in (inst.availability, inst.w, inst.mu):
        with pytest.raises(ValueError):
            arr[0] = 1


@pytest.mark.parametrize(
    "rows, fragment",
    [
        (["UUUU", "UURU", "UUDx"], "availability[2]: slot 3 is 'x', not U, R or D"),
        (["UUUU", "UUUU", "uUUU"], "availability[2]: slot 0 is 'u'"),
        (["UUU", "UU", "UUU"], "availability[1]: has 2 slots, processor 0 has 3"),
        (["UUU", "UUU", "UUUU"], "availability[2]: has 4 slots, processor 0 has 3"),
        ([], "availability: must be a non-empty list"),
        ("UUU", "availability: must be a non-empty list"),
        (None, "availability: must be a non-empty list"),
        (["UUU", 7, "UUU"], "availability[1]: must be a string"),
        (["", ""], "availability[0]: is empty"),
        (["UÜU"], "availability[0]: must be a string over U, R, D"),
    ],
)
def test_parse_availability_names_row_and_slot(rows, fragment):
    with pytest.raises(InputError) as exc:
        parse_availability(rows)
    assert fragment in str(exc.value)


@pytest.mark.parametrize(
    "data, fragment",
    [
        ({"availability": ["UURD", "URUU", "DUZU"]}, "availability[2]: slot 2 is 'Z'"),
        ({"availability": ["UURD", "URUU", "DUU"]}, "availability[2]: has 3 slots, processor 0 has 4"),
        ({"availability": []}, "availability: must be a non-empty list"),
        ({"w": [2, 0, 1]}, "w[1]: must be an integer >= 1, got 0"),
        ({"w": [2, 3]}, "w: must list one integer per processor (3)"),
        ({"w": [2, True, 1]}, "w[1]: must be an integer >= 1, got True"),
        ({"w": [2, 3, 1.0]}, "w[2]: must be an integer >= 1, got 1.0"),
        ({"w": 2}, "w: must list one integer per processor"),
        ({"mu": [0, 1, 1]}, "mu[0]: must be an integer >= 1, got 0"),
        ({"mu": [1, 1.5, 1]}, "mu[1]: must be an integer >= 1, got 1.5"),
        ({"mu": [1, 1]}, "mu: must list one bound per processor (3)"),
        ({"mu": [1, 1, 1], "m": 4}, "mu: the processors hold at most 3 tasks, m = 4"),
        ({"mu": [1, 2, 1], "m": 5}, "mu: the processors hold at most 4 tasks, m = 5"),
        ({"m": 0}, "m: must be an integer >= 1, got 0"),
        ({"m": True}, "m: must be an integer >= 1, got True"),
        ({"n_com": 0}, "n_com: must be an integer >= 1, got 0"),
        ({"T_prog": -1}, "T_prog: must be an integer >= 0, got -1"),
        ({"T_data": -2}, "T_data: must be an integer >= 0, got -2"),
        ({"T_prog": "5"}, "T_prog: must be an integer >= 0, got '5'"),
        ({"K": 0}, "K: must be an integer >= 1, got 0"),
    ],
)
def test_from_json_validation_names_field_and_index(data, fragment):
    with pytest.raises(InputError) as exc:
        CoupledInstance.from_json(valid_obj(**data))
    assert fragment in str(exc.value), str(exc.value)


@pytest.mark.parametrize(
    "mutate, fragment",
    [
        (lambda o: o["data"].pop("K"), "data.K: missing"),
        (lambda o: o["data"].pop("availability"), "data.availability: missing"),
        (lambda o: o["data"].__setitem__("beta", 1), "data.beta: unknown field"),
        (lambda o: o.__setitem__("family", "checkpoint"), "family: must be 'coupled'"),
        (lambda o: o.__setitem__("version", 3), "version: must be one of [1, 2], got 3"),
        (lambda o: o.__setitem__("data", []), "data: must be an object"),
    ],
)
def test_from_json_envelope_errors(mutate, fragment):
    obj = valid_obj()
    mutate(obj)
    with pytest.raises(InputError) as exc:
        CoupledInstance.from_json(obj)
    assert fragment in str(exc.value), str(exc.value)


@pytest.mark.parametrize(
    "kw, fragment",
    [
        ({"w": [1, 0, 1]}, "w[1]"),
        ({"mu": [0, 1, 1]}, "mu[0]"),
        ({"m": 0}, "m: "),
        ({"mu": [1, 1, 1], "m": 4}, "mu: the processors hold at most 3 tasks"),
        ({"n_com": 0}, "n_com"),
        ({"T_prog": -1}, "T_prog"),
        ({"T_data": -1}, "T_data"),
        ({"K": 0}, "K: "),
        ({"availability": np.array([[0, 1, 3]])}, "availability: codes must be"),
        ({"availability": np.array([[0.0, 1.0]])}, "availability: codes must be"),
        ({"availability": np.zeros((2, 0), dtype=np.int8)}, "availability: must be a (processors x slots)"),
        ({"availability": np.zeros(3, dtype=np.int8)}, "availability: must be a (processors x slots)"),
    ],
)
def test_constructor_validation(kw, fragment):
    with pytest.raises(InputError) as exc:
        make(**kw)
    assert fragment in str(exc.value), str(exc.value)


def test_constructor_rejects_ragged_availability_as_input_error():
    with pytest.raises(InputError, match="availability"):
        make(availability=[[0, 0, 0], [0, 0], [0, 0, 0]])


def test_numpy_scalars_are_accepted_as_integers():
    inst = make(w=np.array([1, 2, 3]), mu=np.array([1, 1, 1]), m=np.int64(2), K=np.int32(2))
    assert inst.m == 2 and type(inst.m) is int and inst.w.tolist() == [1, 2, 3] and inst.K == 2


# ---------------------------------------------------------------------------
# mu = null (unbounded)


def test_mu_null_means_unbounded_and_round_trips_as_null():
    obj = valid_obj(mu=[None, None, None], m=7)  # 7 tasks on 3 processors: allowed when mu = inf
    inst = CoupledInstance.from_json(obj)
    assert all(math.isinf(v) for v in inst.mu)
    assert inst.m == 7
    assert inst.to_json()["data"]["mu"] == [None, None, None]
    again = CoupledInstance.from_json(json.loads(json.dumps(inst.to_json())))
    assert all(math.isinf(v) for v in again.mu)


def test_mu_inf_in_constructor_is_null_in_json():
    inst = make(mu=[math.inf, 1, np.inf])
    assert inst.to_json()["data"]["mu"] == [None, 1, None]


def test_one_unbounded_processor_suffices_for_any_m():
    inst = CoupledInstance.from_json(valid_obj(mu=[1, None, 1], m=50))
    assert inst.m == 50


# ---------------------------------------------------------------------------
# JSON round trips


def _round_trip(inst: CoupledInstance) -> None:
    first = inst.to_json()
    text = json.dumps(first)
    again = CoupledInstance.from_json(json.loads(text))
    assert again.to_json() == first
    assert json.dumps(again.to_json()) == text
    assert np.array_equal(again.availability, inst.availability)
    assert np.array_equal(again.w, inst.w) and np.array_equal(again.mu, inst.mu)
    assert (again.m, again.n_com, again.T_prog, again.T_data, again.K, again.name) == (
        inst.m,
        inst.n_com,
        inst.T_prog,
        inst.T_data,
        inst.K,
        inst.name,
    )


def test_round_trip_hand_built():
    inst = CoupledInstance.from_json(valid_obj())
    _round_trip(inst)
    assert inst.to_json()["data"]["availability"] == ROWS
    assert inst.to_json()["data"] == valid_obj()["data"]


@pytest.mark.parametrize("seed", [0, 1, 17])
def test_round_trip_generated(seed):
    _round_trip(generate_markov(7, 33, 3, seed))
    _round_trip(generate_planted(6, 20, 2, 5, 0.3, seed))


def test_from_json_does_not_mutate_its_input():
    obj = valid_obj()
    snapshot = copy.deepcopy(obj)
    CoupledInstance.from_json(obj)
    assert obj == snapshot


# ---------------------------------------------------------------------------
# The paper's Markov chains (Section VII-A)


def test_markov_chains_follow_the_paper():
    trans = markov_chains(np.random.default_rng(5), 200)
    assert trans.shape == (200, 3, 3)
    diag = trans[:, [0, 1, 2], [0, 1, 2]]
    assert np.all((diag >= 0.90) & (diag <= 0.99))
    assert diag.min() < 0.905 and diag.max() > 0.985  # really spread over [0.90, 0.99]
    for x, y in itertools.permutations(range(3), 2):
        np.testing.assert_allclose(trans[:, x, y], 0.5 * (1.0 - trans[:, x, x]), rtol=0, atol=1e-15)
    np.testing.assert_allclose(trans.sum(axis=2), 1.0, rtol=0, atol=1e-12)
    # three independent draws per processor, not one shared value
    assert np.all(np.ptp(diag, axis=1) > 0)


def test_markov_realization_frequencies_match_the_chain():
    rng = np.random.default_rng(2024)
    trans = np.array(
        [
            [[0.90, 0.05, 0.05], [0.04, 0.92, 0.04], [0.03, 0.03, 0.94]],
            [[0.97, 0.015, 0.015], [0.05, 0.90, 0.05], [0.01, 0.01, 0.98]],
            # a deliberately asymmetric chain: catches a transposed matrix or a wrong row
            [[0.80, 0.15, 0.05], [0.30, 0.60, 0.10], [0.02, 0.18, 0.80]],
        ]
    )
    states = markov_realization(rng, trans, 60_000)
    assert states.shape == (3, 60_000) and states.dtype == np.int8
    assert np.all(states[:, 0] == UP)
    assert set(np.unique(states).tolist()) == {0, 1, 2}
    for q in range(3):
        counts = np.zeros((3, 3))
        np.add.at(counts, (states[q, :-1], states[q, 1:]), 1)
        for x in range(3):
            n = counts[x].sum()
            assert n > 1000
            for y in range(3):
                p_hat, p = counts[x, y] / n, trans[q, x, y]
                se = math.sqrt(p * (1 - p) / n)
                assert abs(p_hat - p) <= 5 * se, (q, x, y, p_hat, p, se)


def test_markov_realization_is_deterministic_per_generator():
    trans = markov_chains(np.random.default_rng(0), 4)
    a = markov_realization(np.random.default_rng(9), trans, 300)
    b = markov_realization(np.random.default_rng(9), trans, 300)
    c = markov_realization(np.random.default_rng(10), trans, 300)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_generate_markov_shape_fields_and_determinism():
    inst = generate_markov(9, 120, 4, seed=3)
    assert (inst.p, inst.horizon, inst.m) == (9, 120, 4)
    assert inst.w.tolist() == [1] * 9 and inst.mu.tolist() == [1.0] * 9
    assert (inst.n_com, inst.T_prog, inst.T_data, inst.K) == (1, 0, 0, 1)
    assert np.all(inst.availability[:, 0] == UP)
    assert inst.params["seed"] == 3 and inst.params["preset"] == "markov"
    again = generate_markov(9, 120, 4, seed=3)
    assert json.dumps(again.to_json()) == json.dumps(inst.to_json())
    other = generate_markov(9, 120, 4, seed=4)
    assert not np.array_equal(other.availability, inst.availability)
    assert other.name != inst.name


def test_generate_markov_realization_is_the_seeded_chain():
    """The instance is one realization of ``markov_chains`` drawn from the same generator."""
    inst = generate_markov(5, 80, 2, seed=11)
    rng = np.random.default_rng(11)
    expected = markov_realization(rng, markov_chains(rng, 5), 80)
    assert np.array_equal(inst.availability, expected)


def test_generate_markov_states_are_sticky():
    # P_xx >= 0.9: far fewer changes than an i.i.d. matrix would have
    inst = generate_markov(20, 2000, 3, seed=1)
    changes = np.mean(inst.availability[:, 1:] != inst.availability[:, :-1])
    assert 0.01 <= changes <= 0.10


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"processors": 0, "slots": 10, "tasks": 1, "seed": 0}, "processors: must be an integer >= 1"),
        ({"processors": 3, "slots": 0, "tasks": 1, "seed": 0}, "slots: must be an integer >= 1"),
        ({"processors": 3, "slots": 10, "tasks": 0, "seed": 0}, "tasks: must be an integer >= 1"),
        ({"processors": 3, "slots": 10, "tasks": 4, "seed": 0}, "tasks: m = 4 exceeds the 3 processors"),
        ({"processors": 3, "slots": 10, "tasks": 1, "seed": -1}, "seed: must be a non-negative integer"),
        ({"processors": 3.0, "slots": 10, "tasks": 1, "seed": 0}, "processors"),
    ],
)
def test_generate_markov_rejects_bad_parameters(kwargs, fragment):
    with pytest.raises(InputError) as exc:
        generate_markov(**kwargs)
    assert fragment in str(exc.value), str(exc.value)


# ---------------------------------------------------------------------------
# Planted instances


def _has_all_up_block(inst: CoupledInstance, m: int, block: int) -> bool:
    up = inst.up
    return any(
        np.logical_and.reduce(up[list(s)], axis=0).sum() >= block
        for s in itertools.combinations(range(inst.p), m)
    )


@pytest.mark.parametrize("seed", range(6))
def test_generate_planted_contains_the_block(seed):
    p, h, m, block = 8, 30, 3, 9
    inst = generate_planted(p, h, m, block, 0.2, seed)
    assert (inst.p, inst.horizon, inst.m) == (p, h, m)
    assert inst.w.tolist() == [block] * p and inst.mu.tolist() == [1.0] * p
    assert set(np.unique(inst.availability).tolist()) <= {UP, DOWN}
    assert _has_all_up_block(inst, m, block)
    _, value, bound, _ = solve_bnb(inst.up, m)
    assert value == bound >= block
    again = generate_planted(p, h, m, block, 0.2, seed)
    assert np.array_equal(again.availability, inst.availability)


def test_generate_planted_density_extremes_and_hiding():
    full = generate_planted(5, 12, 2, 3, 1.0, 0)
    assert np.all(full.up)
    empty = generate_planted(6, 40, 3, 7, 0.0, 0)
    assert empty.up.sum() == 3 * 7  # only the block
    rows, cols = np.nonzero(empty.up)
    assert len(set(rows.tolist())) == 3 and len(set(cols.tolist())) == 7
    _, value, _, _ = solve_bnb(empty.up, 3)
    assert value == 7
    # the block is shuffled, not left in the top-left corner, for at least one seed
    corners = [np.all(generate_planted(6, 40, 3, 7, 0.0, s).up[:3, :7]) for s in range(5)]
    assert not all(corners)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"processors": 0}, "processors: must be an integer >= 1"),
        ({"tasks": 6}, "tasks: m = 6 exceeds the 5 processors"),
        ({"density": 1.5}, "density: must be in [0, 1], got 1.5"),
        ({"density": -0.1}, "density: must be in [0, 1]"),
        ({"density": True}, "density"),
        ({"block": 21}, "block: 21 exceeds the 20 slots"),
        ({"block": 0}, "block: must be an integer >= 1"),
        ({"seed": -3}, "seed: must be a non-negative integer"),
    ],
)
def test_generate_planted_rejects_bad_parameters(kwargs, fragment):
    args = {"processors": 5, "slots": 20, "tasks": 2, "block": 4, "density": 0.5, "seed": 0}
    args.update(kwargs)
    with pytest.raises(InputError) as exc:
        generate_planted(**args)
    assert fragment in str(exc.value), str(exc.value)


# ---------------------------------------------------------------------------
# The generating chains (instance format version 2)


def test_markov_instance_keeps_its_chains_and_they_generated_it():
    """Empirical transition frequencies of a long realization match the stored matrices."""
    inst = generate_markov(3, 60_000, 1, 11)
    trans = inst.transitions
    assert trans.shape == (3, 3, 3) and np.allclose(trans.sum(axis=2), 1.0)
    stay = np.diagonal(trans, axis1=1, axis2=2)
    assert np.all((stay >= 0.90) & (stay <= 0.99))
    states = inst.availability
    for q in range(3):
        counts = np.zeros((3, 3))
        np.add.at(counts, (states[q, :-1], states[q, 1:]), 1)
        freq = counts / counts.sum(axis=1, keepdims=True)
        assert np.allclose(freq, trans[q], atol=0.02), (q, freq, trans[q])


def test_chains_round_trip_and_version_1_files_still_read():
    inst = generate_markov(4, 50, 2, 5)
    obj = inst.to_json()
    assert obj["version"] == 2 and len(obj["data"]["transitions"]) == 4
    back = CoupledInstance.from_json(json.loads(json.dumps(obj)))
    assert np.array_equal(back.transitions, inst.transitions)
    assert back.to_json() == obj
    old = {
        **obj,
        "version": 1,
        "data": {k: v for k, v in obj["data"].items() if k not in ("transitions", "continuation_seed")},
    }
    assert CoupledInstance.from_json(old).transitions is None
    planted = generate_planted(6, 40, 2, 5, 0.5, 0)
    assert planted.transitions is None and "transitions" not in planted.to_json()["data"]
