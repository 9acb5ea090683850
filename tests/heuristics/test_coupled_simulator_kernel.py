"""The compiled simulator and the proactive shortcuts against the pure-Python code they replaced.

``tests/coupled_online_oracle.py`` keeps the simulator loop and the policies as they were; every
run here must give the same schedule, makespan, decisions and switches, bit for bit.
"""

import dataclasses

import numpy as np
import pytest
from coupled_online_oracle import policy_oracle, simulate_oracle

from volsched.heuristics.coupled import NAMES, policy, simulate
from volsched.heuristics.coupled.passive import Random
from volsched.heuristics.coupled.simulator import Configuration
from volsched.instances.coupled import CoupledInstance, paper_realization, parse_availability

FIGURE1 = ["DDDDDDDDDDDDDDDD", "UUUUUUUUUURRUUUU", "UUUUURUUUUUURUUU", "UUUUUUUUUUUUUUUU", "RRRRRRRRRRRRRRRR"]


class Fixed:
    """A given configuration from a given slot on (``test_coupled_simulator.py``)."""

    proactive = False

    def __init__(self, order, start=0, name="fixed"):
        self.order, self.start, self.name = tuple(order), start, name

    def decide(self, observation, rng):
        return Configuration(self.order) if observation.t >= self.start else None


def figure1(m=5, K=1):
    return CoupledInstance(availability=parse_availability(FIGURE1), w=[1, 2, 3, 4, 5], mu=[None] * 5, m=m,
                           n_com=2, T_prog=2, T_data=1, K=K)


PASSIVE = [n for n in NAMES if "-" not in n]
PROACTIVE = [n for n in NAMES if "-" in n]


def same_run(instance, name, seed, cap, formula="printed"):
    new = simulate(instance, policy(name, formula), np.random.default_rng(seed), cap=cap)
    old = simulate_oracle(instance, policy_oracle(name, formula), np.random.default_rng(seed), cap=cap)
    assert dataclasses.asdict(new) == dataclasses.asdict(old), (name, instance.params)
    return new


def sample(count, seed=0):
    """Seeded paper realizations over the whole (m, n_com, w_min) grid."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        m, n_com = int(rng.choice([5, 10])), int(rng.choice([5, 10, 20]))
        w_min, scenario, trial = (int(v) for v in rng.integers((1, 0, 0), (11, 10, 10)))
        yield paper_realization(m, n_com, w_min, scenario, trial, slots=int(rng.choice([200, 2000])))


def test_figure1_and_hand_cases_as_before():
    for order, start in (([1, 2, 3, 1, 2], 1), ([1, 1, 2, 2, 3], 1), ([3], 0)):
        instance = figure1() if len(order) == 5 else figure1(m=1, K=2)
        new = simulate(instance, Fixed(order, start), np.random.default_rng(0))
        old = simulate_oracle(instance, Fixed(order, start), np.random.default_rng(0))
        assert dataclasses.asdict(new) == dataclasses.asdict(old)
    waiting = CoupledInstance(availability=parse_availability(["DDUUUUUUUU", "UDDRUUDUUU"]), w=[2, 1],
                              mu=[None, 1], m=2, n_com=1, T_prog=1, T_data=1, K=2)
    for seed in range(5):
        new = simulate(waiting, Random(), np.random.default_rng(seed))
        old = simulate_oracle(waiting, Random(), np.random.default_rng(seed))
        assert dataclasses.asdict(new) == dataclasses.asdict(old)


@pytest.mark.parametrize("name", PASSIVE)
def test_passive_runs_are_bit_identical(name):
    for i, instance in enumerate(sample(24)):
        same_run(instance, name, i, cap=4000)


def test_runs_that_read_the_realization_in_several_prefixes():
    """Past the first 8,192 slots read, and up to the cap, the kernel resumes where it stopped."""
    instance = paper_realization(10, 5, 8, 3, 1, slots=300)
    for name in ("RANDOM", "IE"):
        run = same_run(instance, name, 0, cap=40_000)
        assert run.slots > 8192


@pytest.mark.parametrize("name", PROACTIVE)
def test_proactive_runs_are_bit_identical(name):
    for i, instance in enumerate(sample(6, seed=1)):
        same_run(instance, name, i, cap=1200)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_many_runs_are_bit_identical(name):
    for i, instance in enumerate(sample(30, seed=2)):
        same_run(instance, name, i, cap=6000)
        same_run(instance, name, i, cap=3000, formula="conditional")
