"""The coupled on-line simulator: Figure 1, the kept-data rules, and agreement with the replay verifier."""

import numpy as np
import pytest

from volsched.heuristics.coupled.passive import Random
from volsched.heuristics.coupled.simulator import Configuration, PolicyDefaults, check_cap, simulate
from volsched.instances.coupled import CoupledInstance, paper_realization, parse_availability
from volsched.instances.errors import InputError
from volsched.solvers.coupled.replay import check_claim, replay


class Fixed(PolicyDefaults):
    """A given configuration from a given slot on (re-issued after a DOWN or a new iteration)."""

    proactive = False

    def __init__(self, order, start=0, name="fixed"):
        self.order, self.start, self.name = tuple(order), start, name

    def decide(self, observation, rng):
        return Configuration(self.order) if observation.t >= self.start else None


# Figure 1 (Section III-C), slots numbered as in the paper, slot 0 before the selection. P_1 and
# P_5 are not UP at slot 1; P_3 RECLAIMED at 5 ("after it has downloaded the application program")
# and at 12; P_2 RECLAIMED at 10-11. ../shared/readings/coupled-online.md 5.4 gives this matrix.
FIGURE1 = [
    "DDDDDDDDDDDDDDDD",  # P_1
    "UUUUUUUUUURRUUUU",  # P_2
    "UUUUURUUUUUURUUU",  # P_3
    "UUUUUUUUUUUUUUUU",  # P_4
    "RRRRRRRRRRRRRRRR",  # P_5
]


def figure1(rows=FIGURE1, K=1):
    return CoupledInstance(
        availability=parse_availability(rows),
        w=[1, 2, 3, 4, 5],
        mu=[None] * 5,
        m=5,
        n_com=2,
        T_prog=2,
        T_data=1,
        K=K,
    )


def test_figure1_fifo_in_task_order_reproduces_the_figure():
    instance = figure1()
    # Two tasks on P_2 and P_3, one on P_4, assigned P_2, P_3, P_4, P_2, P_3 and selected at slot 1.
    run = simulate(instance, Fixed([1, 2, 3, 1, 2], start=1), np.random.default_rng(0))
    assert run.schedule["configurations"] == [{"start": 1, "allocation": [0, 2, 2, 1, 0]}]
    assert run.schedule["communication"] == ["", ".PPDD", ".PPD..D", "....PPD", ""]
    # "At time 7 ... They all begin computing"; P_2 reclaimed at 10, P_3 at 12, "At time 16, the
    # processors synchronize and a new iteration can start": computation in 7-9 and 13-15.
    assert run.schedule["completions"] == [15] and run.makespan == 16
    assert check_claim(instance, run.schedule) == 16


def test_figure1_other_assignment_order_does_not():
    run = simulate(figure1(), Fixed([1, 1, 2, 2, 3], start=1), np.random.default_rng(0))
    # P_3 receives its second data message at slot 4 and P_4 waits until 5: not the figure.
    assert run.schedule["communication"][2][4] == "D"
    assert run.schedule["communication"][3][:5] == "....."
    assert run.failed and run.makespan is None  # 16 slots of realization are not enough now


def test_a_down_worker_restarts_the_iteration_and_the_others_keep_their_data():
    # P_0, P_1 enrolled (one task each, T_data = 2, n_com = 1): P_0 gets its data at 0-1, P_1 at 2,
    # P_1 is DOWN at 3. P_0 keeps its two slots; P_1 needs both again at 4, 5; compute at 6.
    instance = CoupledInstance(
        availability=parse_availability(["UUUUUUUUUU", "UUUDUUUUUU"]),
        w=[1, 1],
        mu=[1, 1],
        m=2,
        n_com=1,
        T_data=2,
    )
    run = simulate(instance, Fixed([0, 1]), np.random.default_rng(0))
    assert run.schedule["communication"] == ["DD", "..D.DD"]
    assert run.schedule["configurations"] == [
        {"start": 0, "allocation": [1, 1]},
        {"start": 4, "allocation": [1, 1]},
        {"start": 7, "allocation": [0, 0]},
    ]  # the run's end
    assert run.makespan == 7 and check_claim(instance, run.schedule) == 7


def test_waiting_when_nobody_is_up_and_the_program_survives_iterations():
    instance = CoupledInstance(
        availability=parse_availability(["DDUUUUUUUU"]),
        w=[2],
        mu=[None],
        m=1,
        n_com=1,
        T_prog=1,
        T_data=1,
        K=2,
    )
    run = simulate(instance, Random(), np.random.default_rng(0))
    # Nobody UP at 0, 1: wait. Program at 2, data at 3, compute 4, 5; data again at 6, compute 7, 8.
    assert run.schedule["communication"] == ["..PD..D"]
    assert run.schedule["completions"] == [5, 8] and run.makespan == 9
    assert check_claim(instance, run.schedule) == 9


def test_random_runs_replay_to_the_same_makespan():
    for trial in range(4):
        instance = paper_realization(5, 5, 1, 0, trial, slots=3000)
        for seed in range(2):
            run = simulate(instance, Random(), np.random.default_rng(seed))
            if run.failed:
                assert replay(instance, run.schedule) == run.schedule["completions"]
            else:
                assert check_claim(instance, run.schedule) == run.makespan


def test_same_seed_same_run():
    instance = paper_realization(5, 10, 2, 1, 0, slots=1000)
    a = simulate(instance, Random(), np.random.default_rng(7))
    b = simulate(instance, Random(), np.random.default_rng(7))
    assert a.schedule == b.schedule


def test_cap():
    instance = figure1()
    assert check_cap(instance, None) == 16
    with pytest.raises(InputError, match=r"^--cap: the realization ends at slot 16 and the instance has no"):
        check_cap(instance, 17)
    with pytest.raises(InputError, match=r"^--cap: "):
        check_cap(instance, 0)
    paper = paper_realization(5, 5, 1, 0, 0, slots=100)
    assert check_cap(paper, None) == 10**6 and check_cap(paper, 5000) == 5000


def test_an_m_beyond_what_a_decision_can_place_is_refused():
    """Found by the fuzz campaign: a sweep with m = 5,000,000 ran for minutes in one decision."""
    from volsched.heuristics.coupled.simulator import MAX_TASKS

    big = paper_realization(MAX_TASKS + 1, 5, 1, 0, 0, slots=50)
    with pytest.raises(InputError, match=r"^m: the on-line heuristics place the m tasks one by one"):
        simulate(big, Random(), np.random.default_rng(0))


def test_waiting_drops_the_configuration_and_a_partial_program_with_it():
    """Found by the sample experiment: when nobody is UP at a decision the master waits with an
    idle entry, and its workers leave the configuration, so a partial program is lost (III-C).
    The simulator kept it and claimed a completion the replay did not see."""
    instance = CoupledInstance(
        availability=parse_availability(["UURRUUUUUU", "UUDDUUUUUU"]),
        w=[1, 1],
        mu=[1, 1],
        m=2,
        n_com=2,
        T_prog=3,
    )
    run = simulate(instance, Random(), np.random.default_rng(0))
    # P at 0, 1 (2 of 3); P_1 DOWN at 2; at 3 nobody is UP: idle entry; at 4 both again, 3 slots each.
    assert {"start": 3, "allocation": [0, 0]} in run.schedule["configurations"]
    assert run.schedule["communication"] == ["PP..PPP", "PP..PPP"]
    assert run.makespan == 8 and check_claim(instance, run.schedule) == 8
