"""Problem ``iterations``: the chain against enumeration, a monolithic CP-SAT model and hand cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.registry import limits

from volsched.instances.coupled import CoupledInstance, generate_markov, parse_availability
from volsched.instances.errors import InputError
from volsched.solvers import SolveStatus
from volsched.solvers.coupled import solve
from volsched.solvers.coupled.iterations import earliest_completion, solve_iterations
from volsched.solvers.coupled.iterations_brute import iterations_brute
from volsched.solvers.coupled.replay import replay


def make(rows, w, mu, m, K=1):
    return CoupledInstance(availability=parse_availability(rows), w=w, mu=mu, m=m, K=K)


def random_instance(rng, max_p=5, max_h=40, max_k=3):
    while True:
        p, horizon = int(rng.integers(1, max_p + 1)), int(rng.integers(4, max_h + 1))
        m = int(rng.integers(1, 5))
        probs = rng.dirichlet([4, 1, 1])
        rows = ["".join(rng.choice(list("URD"), size=horizon, p=probs)) for _ in range(p)]
        mu = [None if rng.random() < 0.3 else int(rng.integers(1, 4)) for _ in range(p)]
        if sum(m if v is None else min(v, m) for v in mu) >= m:
            return make(rows, [int(v) for v in rng.integers(1, 4, p)], mu, m, int(rng.integers(1, max_k + 1)))


# Each case: rows, w, mu, m, K, the hand-derived makespan (None: K iterations do not fit).
HAND = {
    # W = 2 tasks x 2 slots = 4; RECLAIMED slot 2 suspends: UP slots 0, 1, 3, 4 -> ends at 4.
    "reclaimed-suspends": (["UURUUDUUUU"], [2], [None], 2, 1, 5),
    # DOWN at 2 loses the first two slots: 3, 4, 5 -> ends at 5.
    "down-restarts": (["UUDUUUU"], [3], [None], 1, 1, 6),
    # Iteration 1: both with one task each, W = max(1, 3) = 3, slots 0-2; P0 is DOWN from
    # slot 3 on, so iteration 2 runs both tasks on P1 alone (W = 6): slots 3-8.
    "heterogeneous": (["UUUDDDDDDD", "UUUUUUUUUU"], [1, 3], [1, None], 2, 2, 9),
    # mu_0 = 1 forbids P0 alone; P1 alone needs W = 2 x 5 = 10 > 8 slots: only together (W = 5).
    "mu-binds": (["UUUUUUUU", "UUUUUUUU"], [1, 5], [1, 2], 2, 1, 5),
    # The only shared UP run is slots 4-6 (W = 3 with one task each); a second iteration never fits.
    "infeasible-second": (["DDDDUUUDDD", "RRRRUUURRR"], [3, 3], [1, 1], 2, 2, None),
}


@pytest.mark.problem("coupled", "iterations")
@pytest.mark.parametrize("case", sorted(HAND))
def test_hand_cases(case, method):
    rows, w, mu, m, K, expected = HAND[case]
    result = solve(make(rows, w, mu, m, K), problem="iterations", method=method)
    if expected is None:
        assert result.status == SolveStatus.INFEASIBLE and result.objective is None
        # The monolithic model asks for all K iterations: it proves infeasibility, no partial schedule.
        assert result.solution["completed_iterations"] == (0 if method == "cpsat" else K - 1)
    else:
        assert result.status == SolveStatus.OPTIMAL and result.verified
        assert result.objective == expected == result.bound


def test_chain_matches_enumeration_on_random_instances():
    rng = np.random.default_rng(2013)
    for _ in range(150):
        inst = random_instance(rng)
        chain = [it.completion for it in solve_iterations(inst)]
        assert chain == [c for _, c, _, _ in iterations_brute(inst)]


def test_chain_matches_monolithic_cpsat():
    """Chaining is optimal: a model that knows nothing of it agrees (p <= 6, H <= 60, K <= 3)."""
    rng = np.random.default_rng(7)
    statuses = set()
    for _ in range(25):
        inst = random_instance(rng, max_p=6, max_h=60, max_k=3)
        chain = solve(inst, problem="iterations", method="chain")
        model = solve(inst, problem="iterations", method="cpsat", **limits("coupled", "iterations", "cpsat"))
        assert model.status == chain.status
        assert model.objective == chain.objective
        statuses.add(chain.status)
    assert statuses == {SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE}


def test_earliest_completion_is_monotone_in_the_start():
    """The property the chaining argument rests on: E(s) never decreases with s."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        inst = random_instance(rng, max_p=6, max_h=50)
        ends = [earliest_completion(inst, s) for s in range(inst.horizon)]
        finite = [e.completion if e else inst.horizon for e in ends]
        assert finite == sorted(finite)
        assert all(e is None or e.completion >= s for s, e in enumerate(ends))


def test_without_down_one_iteration_is_offline_coupled_inf():
    """Identical w, mu = inf, no DOWN: K = 1 is the flexible problem of Section IV."""
    for seed in range(6):
        base = generate_markov(8, 120, 4, seed, w=3)
        states = np.where(base.availability == 2, 1, base.availability)
        flexible = CoupledInstance(availability=states, w=[3] * 8, mu=[None] * 8, m=4)
        a = solve(flexible, problem="iterations")
        b = solve(flexible, problem="offline-coupled-inf")
        assert a.objective == b.objective


def test_schedule_replays_to_the_claimed_completions():
    rng = np.random.default_rng(5)
    for _ in range(30):
        inst = random_instance(rng, max_p=6, max_h=60)
        for method in ("chain", "cpsat"):
            sol = solve(inst, problem="iterations", method=method).solution
            done = replay(inst, sol["schedule"], communication=False)
            assert done == sol["schedule"]["completions"][: inst.K]
            assert len(done) == sol["completed_iterations"]


def test_makespan_grows_with_the_iterations():
    inst = generate_markov(10, 600, 3, 4)
    previous = 0
    for K in range(1, 6):
        inst_k = CoupledInstance(availability=inst.availability, w=[2] * 10, mu=[None] * 10, m=3, K=K)
        value = solve(inst_k, problem="iterations").objective
        assert value is not None and value > previous
        previous = value


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_chain_equals_enumeration_property(seed):
    inst = random_instance(np.random.default_rng(seed), max_p=4, max_h=30)
    result = solve(inst, problem="iterations")
    expected = iterations_brute(inst)
    if len(expected) == inst.K:
        assert result.objective == expected[-1][1] + 1
    else:
        assert result.status == SolveStatus.INFEASIBLE
        assert result.solution["completed_iterations"] == len(expected)


def test_methods_are_checked_per_problem():
    inst = make(["UUUU"], [1], [None], 1)
    with pytest.raises(InputError, match="--method: iterations has methods"):
        solve(inst, problem="iterations", method="bnb")
    with pytest.raises(InputError, match="--problem"):
        solve(inst, problem="nope")


def test_brute_and_cpsat_refuse_large_instances():
    inst = generate_markov(20, 2000, 5, 0)
    with pytest.raises(InputError, match="horizon"):
        solve(inst, problem="iterations", method="cpsat")
    with pytest.raises(InputError, match="method"):
        solve(inst, problem="iterations", method="brute")
