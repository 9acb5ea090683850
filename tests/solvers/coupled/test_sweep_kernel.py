"""The compiled closed-set sweep against the Python sweep it replaced (``tests/oracles/coupled/sweep.py``).

Both callers: the ``iterations`` chain (processor masks, one word and several) and the data
chain of ``full_bound`` (thermometer masks, tables built in numba). Every attempt start of
random instances must give the same first slot and the same passing sets; the chains of paper
realizations must be the same; a table that starts tiny must grow without changing anything.
"""

import numpy as np
import pytest
from oracles.coupled.sweep import DataChainOracle, SweepOracle, chain_oracle

from volsched.instances.coupled import CoupledInstance, paper_realization
from volsched.solvers.coupled import iterations
from volsched.solvers.coupled.full_bound import DataChain, data_chain
from volsched.solvers.coupled.horizon import cut
from volsched.solvers.coupled.iterations import _Sweep, packed_words, solve_iterations


def random_instance(rng: np.random.Generator, p_range=(1, 13)) -> CoupledInstance:
    """Mostly UP processors with ties in ``w`` and caps, communication costs, and ``K`` up to 3."""
    while True:
        p = int(rng.integers(*p_range))
        horizon = int(rng.integers(10, 80))
        avail = rng.choice(3, size=(p, horizon), p=rng.dirichlet([12.0, 1.5, 1.0])).astype(np.int8)
        m = int(rng.integers(1, 8))
        mu = [None if v == 0 else int(v) for v in rng.integers(0, 4, p)]
        if sum(min(m, v if v is not None else m) for v in mu) >= m:
            return CoupledInstance(
                availability=avail,
                w=rng.integers(1, 4, p).tolist(),
                mu=mu,
                m=m,
                n_com=int(rng.integers(1, 4)),
                T_prog=int(rng.integers(0, 3)),
                T_data=int(rng.integers(0, 3)),
                K=int(rng.integers(1, 4)),
            )


def found_iterations(instance, start):
    sweep = _Sweep(instance)
    found = sweep.sweep.first([(start, sweep.up[start:], sweep.down[start:])])
    return None if found is None else (found[0], sorted(found[1]))


def found_data_chain(instance, start):
    chain = DataChain(instance)
    found = chain.sweep.first(chain.blocks(start))
    return None if found is None else (found[0], sorted(found[1]))


def oracle_found(oracle, start):
    found = oracle.earliest_found(start)
    return None if found is None else (found[0], sorted(found[1]))


def test_packed_words_put_bit_b_in_word_b_over_64():
    bits = np.zeros((130, 3), dtype=bool)
    bits[[0, 63, 64, 129], 0] = True
    bits[5, 2] = True
    words = packed_words(bits)
    assert words.shape == (3, 3) and words.dtype == np.uint64
    assert words[0].tolist() == [1 | 1 << 63, 1, 2] and words[1].tolist() == [0, 0, 0]
    assert words[2].tolist() == [32, 0, 0]


@pytest.mark.parametrize("seed", range(120))
def test_same_sets_as_the_python_sweep_at_every_start(seed):
    instance = random_instance(np.random.default_rng([41, seed]))
    sweep, chain = SweepOracle(instance), DataChainOracle(instance)
    for start in range(0, instance.horizon, 3):
        assert found_iterations(instance, start) == oracle_found(sweep, start)
        assert found_data_chain(instance, start) == oracle_found(chain, start)


@pytest.mark.parametrize("seed", range(12))
def test_same_sets_on_masks_of_several_words(seed):
    """65-90 processors: the ``iterations`` masks take two words, the thermometers up to ten."""
    instance = random_instance(np.random.default_rng([43, seed]), p_range=(65, 91))
    assert iterations.ClosedSweep(instance, 1, instance.m, 1).words == 2
    sweep, chain = SweepOracle(instance), DataChainOracle(instance)
    for start in range(0, instance.horizon, 7):
        assert found_iterations(instance, start) == oracle_found(sweep, start)
        assert found_data_chain(instance, start) == oracle_found(chain, start)


@pytest.mark.parametrize("seed", range(20))
def test_a_table_that_starts_tiny_grows_to_the_same_answers(seed, monkeypatch):
    instance = random_instance(np.random.default_rng([47, seed]), p_range=(8, 16))
    expected = (solve_iterations(instance), data_chain(instance))
    monkeypatch.setattr(iterations, "CAPACITY", 2)
    assert (solve_iterations(instance), data_chain(instance)) == expected
    assert expected[0] == chain_oracle(instance, SweepOracle(instance))
    assert expected[1] == chain_oracle(instance, DataChainOracle(instance))


@pytest.mark.parametrize(
    ("m", "n_com", "w_min", "slots"),
    [(5, 5, 1, 2000), (10, 1, 2, 8000), (10, 10, 3, 16000), (5, 20, 6, 32000), (10, 5, 10, 32000)],
)
def test_same_chains_on_paper_realizations(m, n_com, w_min, slots):
    instance = cut(paper_realization(m, n_com, w_min, scenario=1, trial=2), slots)
    assert solve_iterations(instance) == chain_oracle(instance, SweepOracle(instance))
    assert data_chain(instance) == chain_oracle(instance, DataChainOracle(instance))


def test_the_random_instances_are_not_vacuous():
    """Most random instances complete an iteration from slot 0 in both problems, some do not."""
    found = [
        (found_iterations(inst, 0) is not None, found_data_chain(inst, 0) is not None)
        for inst in (random_instance(np.random.default_rng([41, seed])) for seed in range(120))
    ]
    assert 60 < sum(a for a, _ in found) < 120
    assert 30 < sum(b for _, b in found) < 120
