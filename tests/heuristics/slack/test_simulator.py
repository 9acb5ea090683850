"""The slack simulator: the verifier's format, the slack problem's metrics, the three evaluations."""

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import given, settings
from oracles.slack.heuristics import instances, random_instance

from volsched.heuristics.base import OfflinePolicy, Simulator
from volsched.heuristics.slack import POLICIES, SlackSimulator, sampled_makespans, worst_case
from volsched.instances.errors import InputError
from volsched.instances.slack import SlackInstance
from volsched.solvers.slack import PROBLEMS
from volsched.solvers.slack.verify import verify_plain, verify_slack

VERIFY = {"slack": verify_slack, "plain": verify_plain}


def test_protocols_and_fields():
    sim = SlackSimulator()
    assert isinstance(sim, Simulator)
    assert all(isinstance(p, OfflinePolicy) for p in POLICIES.values())
    assert (sim.disturbance, sim.draws, sim.executor) == ("sampled", 30, "planned")
    assert dataclasses.replace(sim, disturbance="worst").disturbance == "worst"
    with pytest.raises(dataclasses.FrozenInstanceError):
        sim.draws = 3
    assert {p.problem for p in POLICIES.values()} <= set(PROBLEMS)
    assert POLICIES["gaps"].problem == "slack"


def test_metrics_are_the_slack_problems_declared_ones():
    inst = random_instance(np.random.default_rng(0), busy=4, free=2, n=20, k=5)
    _, metrics = SlackSimulator().run(inst, POLICIES["gaps"], np.random.default_rng(0))
    assert set(metrics) == {m.name for m in PROBLEMS["slack"].metrics}


@settings(max_examples=60, deadline=None)
@given(instances(max_busy=2, max_k=3, a_max=8, max_n=6))
def test_every_policy_and_evaluation(inst):
    for name, policy in POLICIES.items():
        for disturbance in ("none", "sampled", "worst"):
            sim = SlackSimulator(disturbance, draws=7)
            solution, metrics = sim.run(inst, policy, np.random.default_rng(5))
            value = VERIFY[policy.problem](inst, {"problem": policy.problem, **solution})
            assert metrics["makespan"] == value
            assert metrics["stability"] == metrics["disturbed_makespan"] / value
            if disturbance == "none":
                assert metrics["disturbed_makespan"] == value
            if disturbance == "sampled":
                sched = policy.plan(inst, np.random.default_rng(5))
                runs = sampled_makespans(inst, sched, np.random.default_rng(5), 7)
                assert metrics["disturbed_makespan"] == float(np.median(runs))
            if disturbance == "worst":
                sched = policy.plan(inst, np.random.default_rng(5))
                assert metrics["disturbed_makespan"] == worst_case(inst, sched).makespan
            if name == "gaps":
                assert solution["beta"] == inst.beta


def test_same_seed_same_bytes():
    inst = random_instance(np.random.default_rng(1), busy=8, free=2, n=60, k=8, beta=0.3)
    runs = [
        json.dumps(SlackSimulator().run(inst, POLICIES["gaps"], np.random.default_rng(11))) for _ in range(2)
    ]
    assert runs[0] == runs[1]
    other = json.dumps(SlackSimulator().run(inst, POLICIES["gaps"], np.random.default_rng(12)))
    assert other != runs[0]


def test_bad_settings_are_input_errors():
    inst = SlackInstance(machines=[[[10, 12]], []], p=[3, 4])
    with pytest.raises(InputError, match="--disturbance"):
        SlackSimulator("always").run(inst, POLICIES["gaps"], np.random.default_rng(0))
    with pytest.raises(InputError, match="--executor"):
        SlackSimulator(executor="lazy").run(inst, POLICIES["gaps"], np.random.default_rng(0))
    with pytest.raises(InputError, match="--draws"):
        SlackSimulator(draws=0).run(inst, POLICIES["gaps"], np.random.default_rng(0))
    no_free = SlackInstance(machines=[[[10, 12]]], p=[3, 4])
    with pytest.raises(InputError, match="free machine"):
        SlackSimulator().run(no_free, POLICIES["gaps"], np.random.default_rng(0))
    _, metrics = SlackSimulator().run(no_free, POLICIES["lpt"], np.random.default_rng(0))
    assert metrics["makespan"] == 7


def test_executor_field_reaches_the_evaluations():
    inst = SlackInstance(machines=[[[10, 12], [20, 25]], []], p=[6, 3, 4, 25], beta=0.1)
    # GAPS at 0.1 puts 6 and 3 in interval 0 (slack 1 >= 0.6), 4 in interval 1, 25 on the free machine:
    # the worked example of the disturbance module, whose suprema are 31 (planned) and 32 (compact)
    for executor, value in (("planned", 31), ("compact", 32)):
        sol, metrics = SlackSimulator("worst", executor=executor).run(
            inst, POLICIES["gaps"], np.random.default_rng(0)
        )
        assert sol["schedule"] == [[0, 0], [0, 6], [0, 12], [1, 0]]
        assert metrics["disturbed_makespan"] == value
