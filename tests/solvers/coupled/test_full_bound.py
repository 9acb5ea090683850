"""Problem ``full``: the data-chain lower bound (off-line reference) vs brute force, greedy, hand cases."""

import dataclasses

import numpy as np
import pytest
from oracles.coupled.full import brute_full, random_tiny

from volsched.instances.coupled import CoupledInstance, paper_realization, parse_availability
from volsched.solvers import SolveStatus
from volsched.solvers.coupled import _chain_kernel, solve
from volsched.solvers.coupled.full import transfer_bound, trivial_bound
from volsched.solvers.coupled.full_bound import DataChain, data_chain, data_chain_bound
from volsched.solvers.coupled.full_greedy import greedy_full
from volsched.solvers.coupled.iterations import min_workload, solve_iterations
from volsched.solvers.coupled.replay import check_claim


def inst(rows, w, mu, m, n_com=1, T_prog=0, T_data=0, K=1):
    return CoupledInstance(
        availability=parse_availability(rows), w=w, mu=mu, m=m, n_com=n_com, T_prog=T_prog, T_data=T_data, K=K
    )


def tiny(seed: int) -> CoupledInstance:
    """``random_tiny`` with ``T_data`` drawn up to 2 too (the oracle's generator stops at 1)."""
    rng = np.random.default_rng([15, 4, seed])
    base = random_tiny(rng, max_p=3, max_h=9, max_k=2)
    return CoupledInstance(
        availability=base.availability,
        w=base.w.tolist(),
        mu=list(base.mu),
        m=base.m,
        n_com=base.n_com,
        T_prog=base.T_prog,
        T_data=int(rng.integers(0, 3)),
        K=base.K,
    )


def iterations_bound(instance) -> int:
    done = solve_iterations(instance)
    return done[-1].completion + 1 if len(done) == instance.K else instance.horizon + 1


TINY = [tiny(seed) for seed in range(300)]


def test_the_tiny_sample_covers_the_rules():
    assert any((i.availability == 1).any() for i in TINY)  # RECLAIMED slots
    assert {i.n_com for i in TINY} == {1, 2}
    assert {i.T_prog for i in TINY} == {0, 1, 2} and {i.T_data for i in TINY} == {0, 1, 2}
    assert {i.K for i in TINY} == {1, 2}


@pytest.mark.parametrize("block", range(6))
def test_never_above_brute_force_and_never_below_the_old_bounds(block):
    """Valid (<= the exact optimum, or H + 1 when none fits), and at least iterations and trivial."""
    stronger = tight = 0
    for instance in TINY[block * 50 : (block + 1) * 50]:
        expected = brute_full(instance)
        optimum = instance.horizon + 1 if expected is None else expected
        bound = data_chain_bound(instance)
        assert bound <= optimum
        assert bound >= iterations_bound(instance)
        assert bound >= min(trivial_bound(instance), instance.horizon + 1)
        old = max(iterations_bound(instance), trivial_bound(instance), transfer_bound(instance))
        stronger += bound > old
        tight += bound == optimum
    # A bound that is valid but weak passes the first assert: it must also be tight on most of these.
    assert stronger >= 5 and tight >= 45


def test_without_communication_it_is_the_iterations_chain():
    rng = np.random.default_rng(77)
    for _ in range(60):
        base = random_tiny(rng, max_p=5, max_h=30, comm=False, max_k=3)
        assert data_chain(base) == [it.completion for it in solve_iterations(base)]


def test_one_processor_is_exact():
    """One worker: the relaxation loses nothing (its programme and data are its own UP slots)."""
    rng = np.random.default_rng(5)
    for _ in range(60):
        rows = ["".join(rng.choice(list("URD"), size=int(rng.integers(4, 12)), p=[0.75, 0.15, 0.1]))]
        w, m, t_prog, t_data, big_k = (int(v) for v in rng.integers([1, 1, 0, 0, 1], [3, 3, 3, 3, 3]))
        instance = inst(rows, [w], [None], m, T_prog=t_prog, T_data=t_data, K=big_k)
        expected = brute_full(instance)
        assert data_chain_bound(instance) == (instance.horizon + 1 if expected is None else expected)


def test_data_kept_across_another_workers_down():
    """P0 and P1 get their data at 0-1 (T_data = 2); P1 is DOWN at 2, gets it again at 3-4; P0,
    RECLAIMED from 2 to 5, keeps its data: both compute at 6 (makespan 7). Zeroing everybody's data
    at the DOWN would need P0's two UP slots 6, 7 first (makespan 9)."""
    instance = inst(["UURRRRUUUU", "UUDUUUUUUU"], [1, 1], [1, 1], 2, n_com=2, T_data=2)
    assert brute_full(instance) == 7
    assert data_chain_bound(instance) == 7


def test_program_lost_on_down_and_kept_across_iterations():
    # Programme at 0-1, lost at 2; again at 3-4, data at 5, compute at 6: iteration 1 ends at 6.
    # Iteration 2 keeps the programme: data at 7, compute at 8 (makespan 9).
    instance = inst(["UUDUUUUUUU"], [1], [None], 1, T_prog=2, T_data=1, K=2)
    assert brute_full(instance) == 9
    assert data_chain(instance) == [6, 8]


def test_data_never_crosses_iterations():
    # Data at 0, compute at 1; the data of iteration 2 is sent again at 2, compute at 3.
    instance = inst(["UUUUUUUU", "UUUUUUUU"], [1, 1], [1, 1], 2, n_com=2, T_data=1, K=2)
    assert data_chain(instance) == [1, 3] and brute_full(instance) == 4


def test_bandwidth_count_per_iteration():
    """Four workers, one task each, one channel: 4 data slots before anyone computes."""
    instance = inst(["U" * 10] * 4, [1] * 4, [1] * 4, 4, n_com=1, T_data=1, K=2)
    assert data_chain(instance) == [4, 9]
    assert brute_full(inst(["UUUUUU"] * 4, [1] * 4, [1] * 4, 4, n_com=1, T_data=1)) == 5


@pytest.mark.parametrize("args", [(5, 5, 1, 0), (10, 20, 2, 1), (5, 10, 3, 2), (10, 5, 1, 3)])
def test_never_above_the_greedy_on_paper_realizations(args):
    """The greedy's replayed makespan is an upper bound; the chain must stay below it and above
    the iterations optimum (and above it strictly: communication costs something here)."""
    m, n_com, w_min, scenario = args
    instance = paper_realization(m, n_com, w_min, scenario, 0, slots=3000)
    schedule = greedy_full(instance)
    assert schedule is not None
    upper = check_claim(instance, schedule)
    bound = data_chain_bound(instance)
    assert iterations_bound(instance) < bound <= upper


def test_solve_full_reports_the_bound_and_uses_it():
    instance = paper_realization(5, 5, 1, 0, 0, slots=3000)
    result = solve(instance, problem="full")
    bounds = result.solution["lower_bounds"]
    assert bounds["data_chain"] == data_chain_bound(instance) > bounds["iterations"]
    assert result.bound == max(bounds.values())


def test_solve_full_is_infeasible_when_only_the_data_chain_says_so():
    # Without communication one slot suffices; with T_prog = 2 and T_data = 1 four UP slots are needed.
    instance = inst(["UUUR"], [1], [None], 1, T_prog=2, T_data=1)
    assert brute_full(instance) is None and solve_iterations(instance)
    for method in ("greedy", "cpsat"):
        result = solve(instance, problem="full", method=method)
        assert result.status == SolveStatus.INFEASIBLE and result.objective is None
        assert result.solution["completed_iterations_data_chain"] == 0


def test_a_chain_restarted_after_its_first_completion_is_its_tail():
    for args in [(5, 5, 1, 0, 0), (5, 20, 3, 2, 1), (10, 10, 2, 4, 3)]:
        instance = paper_realization(*args)
        whole = data_chain(instance)
        tail = data_chain(dataclasses.replace(instance, K=instance.K - 1), start=whole[0] + 1)
        assert tail == whole[1:]


def test_latest_is_the_last_completion_after_which_the_rest_still_fits():
    """Against the definition, every slot tried: one search per ``(left, target)`` serves every start."""
    instance = paper_realization(5, 10, 1, 3, 2, slots=300)
    chain = DataChain(instance)
    first = chain.completions()
    for left in (1, 3, 6):
        for target in (first[-1] + 1, first[-1] + 40, first[min(left, len(first)) - 1] + 1):
            for start in (0, 1, first[0], first[0] + 1, first[2], 150):
                fits = [c for c in range(start - 1, instance.horizon) if chain.rest(c + 1, left) < target]
                assert chain.latest(start, left, target) == max(fits, default=start - 1)


@pytest.mark.parametrize("block", range(3))
def test_the_prefix_and_chain_bound_never_exceeds_brute_force(block):
    """The chain restarted at the exact optimum of the first iteration bounds K = 2 iterations."""
    checked = 0
    for instance in TINY[block * 100 : (block + 1) * 100]:
        if instance.K != 2 or (first := brute_full(dataclasses.replace(instance, K=1))) is None:
            continue
        expected = brute_full(instance)
        optimum = instance.horizon + 1 if expected is None else expected
        rest = data_chain(dataclasses.replace(instance, K=1), start=first)
        bound = rest[0] + 1 if rest else instance.horizon + 1
        assert data_chain_bound(instance) <= bound <= optimum  # F is monotone in its start
        checked += 1
    assert checked >= 20


def quiet(seed: int) -> CoupledInstance:
    """Two iterations, long programs, and workers that go DOWN once and come back UP, often
    while another iteration computes: the instances where the quiet window matters."""
    rng = np.random.default_rng([15, 26, seed])
    p, horizon = int(rng.integers(2, 4)), int(rng.integers(10, 15))
    avail = np.zeros((p, horizon), dtype=np.int8)
    for q in range(p):
        down = int(rng.integers(0, horizon))
        avail[q, down : down + int(rng.integers(0, 5))] = 2
        spot = int(rng.integers(0, horizon))
        stretch = avail[q, spot : spot + int(rng.integers(0, 3))]
        stretch[stretch == 0] = 1
    return CoupledInstance(
        availability=avail,
        w=rng.integers(1, 4, p).tolist(),
        mu=[None] * p,
        m=int(rng.integers(1, 3)),
        n_com=int(rng.integers(1, 3)),
        T_prog=int(rng.integers(1, 4)),
        T_data=int(rng.integers(0, 2)),
        K=2,
    )


@pytest.mark.parametrize("block", range(4))
def test_the_quiet_window_never_exceeds_brute_force(block):
    """The chain with the quiet window is at least the chain without it, and never above the
    brute-force optimum where they differ; it differs on some and is tight on most of those."""
    differ = tight = 0
    for seed in range(block * 400, (block + 1) * 400):
        instance = quiet(seed)
        new, old = data_chain(instance), data_chain(instance, quiet=False)
        assert len(new) <= len(old) and all(a >= b for a, b in zip(new, old, strict=False))
        if new == old:
            continue
        differ += 1
        expected = brute_full(instance)
        optimum = instance.horizon + 1 if expected is None else expected
        assert data_chain_bound(instance) <= optimum
        tight += data_chain_bound(instance) == optimum
    assert differ >= 15 and tight >= differ * 0.7


def test_the_quiet_window_charges_a_program_reloaded_while_others_compute():
    """P0 (w 3) can complete the first iteration at slot 5 (program 0-2, computation 3-5); P1 (w 1)
    is DOWN in slots 0-3. Without the window the chain lets P1 take its program for the second
    iteration in its UP slots 4-6, during a computation in which nobody receives anything:
    f_2 = 7. With it (W_min = 1, so slot 5 is quiet) P1 needs slot 7 too: f_2 = 8, and the
    optimum meets it (P1 runs both iterations: program 4-6, computations 7 and 8)."""
    instance = inst(
        ["UUUUUUDUUUUUUU", "DDDDUUUUUUUUUU"], [3, 1], [None, None], 1, n_com=1, T_prog=3, T_data=0, K=2
    )
    assert data_chain(instance, quiet=False) == [5, 7]
    assert data_chain(instance) == [5, 8]
    assert data_chain_bound(instance) == brute_full(instance) == 9


def test_the_quiet_window_length_is_the_least_workload_of_the_processors_up_before():
    """``W*(v)``, compiled, against :func:`min_workload` of the processors UP at ``v - 1``."""
    for seed in range(40):
        instance = quiet(seed)
        cap = np.array([int(min(mu, instance.m)) for mu in instance.mu], dtype=np.int64)
        lengths = _chain_kernel.quiet_lengths(
            instance.availability, np.asarray(instance.w, dtype=np.int64), cap, instance.m
        )
        assert lengths[0] == -1
        for v in range(1, instance.horizon + 1):
            fit = min_workload(instance, np.flatnonzero(instance.availability[:, v - 1] == 0).tolist())
            assert lengths[v] == (-1 if fit is None else fit)
