"""The 17 coupled heuristics of Section VI: every run replays, the criteria choose as the paper says."""

import json

import numpy as np
import pytest
from oracles.cli import assert_input_error, run

from volsched.heuristics.coupled import NAMES, policy, simulate
from volsched.heuristics.coupled.passive import Criterion, assign, estimates_for
from volsched.heuristics.coupled.simulator import Observation, Platform
from volsched.instances.coupled import CoupledInstance, markov_chains, paper_realization, parse_availability
from volsched.solvers.coupled.replay import check_claim, replay


def test_seventeen_names():
    assert len(NAMES) == 17 and len(set(NAMES)) == 17
    assert {"RANDOM", "IP", "IE", "IY", "IAY", "P-IE", "Y-IE", "E-IAY"} <= set(NAMES)
    with pytest.raises(ValueError, match="unknown coupled heuristic"):
        policy("AY-IE")


@pytest.mark.parametrize("name", NAMES)
def test_every_heuristic_run_replays_to_its_makespan(name):
    """The simulator and the replay verifier are two readings of Section III: they must agree."""
    for m, n_com, w_min, trial in ((5, 5, 1, 0), (10, 5, 1, 1), (5, 20, 2, 2)):
        instance = paper_realization(m, n_com, w_min, 0, trial, slots=300)
        done = simulate(instance, policy(name), np.random.default_rng(trial), cap=20_000)
        if done.failed:
            assert replay(instance, done.schedule) == done.schedule["completions"]
        else:
            assert check_claim(instance, done.schedule) == done.makespan
            assert done.iterations == 10


def _all_up(p, slots, w, m, chains_seed=0, **kw):
    chains = markov_chains(np.random.default_rng(chains_seed), p)
    return CoupledInstance(
        availability=np.zeros((p, slots), dtype=np.int8), w=w, mu=[None] * p, m=m, transitions=chains, **kw
    )


@pytest.mark.parametrize("name", [n for n in NAMES if "-" in n])
def test_no_ping_pong_on_an_all_up_realization(name):
    """Nothing fails, so a fresh configuration can only be worth switching to once per iteration."""
    instance = _all_up(6, 3000, [1, 2, 3, 4, 5, 6], 5, n_com=2, T_prog=3, T_data=2, K=5)
    done = simulate(instance, policy(name), np.random.default_rng(0))
    assert not done.failed
    assert max(done.switches_per_iteration) <= 1


def _observation(instance, t=0):
    platform = Platform.of(instance)
    p = instance.p
    return Observation(
        t=t,
        reason="iteration",
        platform=platform,
        states=instance.availability[:, : t + 1],
        iteration=0,
        iteration_start=0,
        allocation=np.zeros(p, dtype=np.int64),
        program=np.zeros(p, dtype=bool),
        data=np.zeros(p, dtype=np.int64),
        needs=np.zeros(p, dtype=np.int64),
        progress=0,
        workload=0,
    )


def test_ie_puts_the_tasks_where_the_expected_time_is_least():
    # Identical chains: with w = (1, 4), two tasks on P_0 (W = 2) beat one on each (W = 4).
    chains = np.repeat(markov_chains(np.random.default_rng(1), 1), 2, axis=0)
    instance = CoupledInstance(
        availability=np.zeros((2, 10), dtype=np.int8), w=[1, 4], mu=[None, None], m=2, transitions=chains
    )
    crit = Criterion("IE")
    crit.estimates = estimates_for(Platform.of(instance), "IE")
    assert assign(_observation(instance), crit).order == (0, 0)
    # Identical in every way: ties go to the lowest index, and mu caps P_0 at one task.
    twin = CoupledInstance(
        availability=np.zeros((2, 10), dtype=np.int8), w=[2, 2], mu=[1, 1], m=2, transitions=chains
    )
    crit.estimates = estimates_for(Platform.of(twin), "IE")
    assert assign(_observation(twin), crit).order == (0, 1)


def test_ip_prefers_the_reliable_processor():
    # P_0 rarely goes DOWN, P_1 often; same speed: IP and IE both pick P_0 for a single task.
    reliable = [[0.98, 0.01, 0.01], [0.5, 0.49, 0.01], [0.5, 0.0, 0.5]]
    flaky = [[0.80, 0.01, 0.19], [0.5, 0.3, 0.2], [0.5, 0.0, 0.5]]
    chains = np.asarray([flaky, reliable])
    instance = CoupledInstance(
        availability=np.zeros((2, 10), dtype=np.int8), w=[5, 5], mu=[1, 1], m=1, transitions=chains
    )
    for name in ("IP", "IE", "IY", "IAY"):
        crit = Criterion(name)
        crit.estimates = estimates_for(Platform.of(instance), name)
        assert assign(_observation(instance), crit).order == (1,), name


def test_passive_heuristics_decide_only_at_iteration_starts_and_after_a_down():
    instance = paper_realization(5, 5, 1, 0, 0, slots=300)
    done = simulate(instance, policy("IE"), np.random.default_rng(0), cap=20_000)
    entries = len(done.schedule["configurations"]) - 1  # the last one closes the run
    assert done.schedule["configurations"][-1] == {"start": done.makespan, "allocation": [0] * 20}
    assert done.decisions >= entries and done.switches == 0
    assert done.decisions < done.slots / 2


def test_same_seed_same_run_for_random():
    instance = paper_realization(10, 5, 1, 0, 0, slots=300)
    a = simulate(instance, policy("RANDOM"), np.random.default_rng(5), cap=20_000)
    b = simulate(instance, policy("RANDOM"), np.random.default_rng(5), cap=20_000)
    c = simulate(instance, policy("RANDOM"), np.random.default_rng(6), cap=20_000)
    assert a.schedule == b.schedule and a.schedule != c.schedule


def test_a_heuristic_that_needs_the_chains_says_so(capsys, tmp_path):
    instance = CoupledInstance(
        availability=parse_availability(["UUUUUU", "UUUUUU"]), w=[1, 1], mu=[1, 1], m=1
    )
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(instance.to_json()))
    assert_input_error(
        *run(capsys, "simulate", path, "--heuristic", "IE")[::2], "data.transitions: heuristic IE"
    )
    assert_input_error(*run(capsys, "simulate", path, "--heuristic", "Y-IP")[::2], "data.transitions")
    code, _, _ = run(capsys, "simulate", path, "--heuristic", "RANDOM")
    assert code == 0


def test_conditional_variants_use_the_conditional_expected_span():
    assert policy("IE[conditional]").criterion.formula == "conditional"
    assert policy("Y-IP[conditional]").formula == "conditional" and policy("Y-IP").formula == "printed"
    for bad in ("RANDOM[conditional]", "IE[printed2]", "IE[conditional"):
        with pytest.raises(ValueError, match="unknown coupled heuristic"):
            policy(bad)
    instance = paper_realization(5, 5, 1, 0, 0, slots=300)
    done = simulate(instance, policy("IE[conditional]"), np.random.default_rng(0), cap=20_000)
    assert done.failed or check_claim(instance, done.schedule) == done.makespan
