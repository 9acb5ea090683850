"""Disturbed execution (Sections 3.2-3.3): the worked example, the compiled runs, the exact worst case."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.slack.disturbance import disturbed_makespan_reference
from oracles.slack.heuristics import instances, random_instance

from volsched.heuristics.slack import (
    EXECUTORS,
    Schedule,
    disturbed_makespans,
    execute,
    gaps,
    lpt,
    machine_plans,
    plain_list,
    sampled_makespans,
    worst_case,
    worst_machine,
)
from volsched.heuristics.slack._executor_kernel import disturbed_makespans as kernel
from volsched.instances.errors import InputError
from volsched.instances.slack import SlackInstance

ALGOS = (gaps, lpt, plain_list)


def worked():
    """The module docstring's example: A, B in interval 0 of machine 0, C in interval 1, D on machine 1."""
    inst = SlackInstance(machines=[[[10, 12], [20, 25]], []], p=[6, 3, 4, 25], beta=0.1)
    return inst, Schedule(np.array([0, 0, 0, 1]), np.array([0, 6, 12, 0]), 0.1)


def test_worked_example():
    inst, sched = worked()
    # delta = (-5, -2): A cut at 5; B [7,10) (rule 1); C early [10,14) (rule 3: A would delay C);
    # A [14, ...) cut at 18 (rule 2); the tail from 23: A [23, 29). Machine 1 ends at 25.
    assert disturbed_makespan_reference(inst, sched, [-5, -2]) == 29
    # delta_1 = 0: A [14, 20) ends exactly when the unavailability starts, and completes
    assert disturbed_makespan_reference(inst, sched, [-5, 0]) == 25
    assert list(disturbed_makespans(inst, sched, np.array([[-5, -2], [-5, 0], [0, 0]]))) == [29, 25, 25]
    assert 29 / sched.makespan(inst.p) == pytest.approx(1.16)


def test_worked_example_worst_case():
    """Hand-derived supremum 31: A cut at 5 (delta_0 = -5), B [7,10), C [10,14), A [14,20) cut just before
    its end (delta_1 -> 0-), the tail from 25-: A ends at 31-. Cutting C instead leaves C and A for the
    tail (at most 30), and cutting A earlier in interval 0 lets it run before C and end before e^0.
    """
    inst, sched = worked()
    worst = worst_case(inst, sched)
    assert worst.makespan == 31
    assert worst.witness[0] == pytest.approx(-5)
    assert 30.9 < disturbed_makespan_reference(inst, sched, worst.witness) < 31


def test_worked_example_compact_executor():
    """The compact variant: A (cut at 5) restarts first at 7: A [7,13), B [13,16), C [16,20) is cut at 18,
    C runs in the tail [23, 27): 27, where the planned rules give 29. With delta_1 = 0, C ends at 20: 25.
    Its supremum is 32: A cut just before 6 restarts at 8-, runs [8-, 14-) and is cut again just before
    its end (s~^1 -> 14-, within [e^0, s^1] = [12, 20]); the unavailability ends at 19-, and the tail runs
    A, B, C back to back: [19-, 25-), [25-, 28-), [28-, 32-). (The planned rules run B and C first after
    the first cut, and A no longer fits before 20: 31.)
    """
    inst, sched = worked()
    assert disturbed_makespan_reference(inst, sched, [-5, -2], "compact") == 27
    assert disturbed_makespan_reference(inst, sched, [-5, 0], "compact") == 25
    assert disturbed_makespans(inst, sched, np.array([[-5, -2], [-5, 0]]), "compact").tolist() == [27, 25]
    assert worst_case(inst, sched, executor="compact").makespan == 32


def test_no_disturbance_is_the_reference_schedule():
    inst, sched = worked()
    assert disturbed_makespan_reference(inst, sched, [0, 0]) == 25


@settings(max_examples=150, deadline=None)
@given(instances(min_free=0))
def test_zero_delta_replays_every_schedule(inst):
    for algo in ALGOS:
        if inst.lam == 0 and algo is gaps:
            continue
        sched = algo(inst)
        ref = sched.makespan(inst.p)
        for executor in EXECUTORS:
            assert disturbed_makespan_reference(inst, sched, np.zeros(inst.n_intervals), executor) == ref
            assert disturbed_makespans(inst, sched, np.zeros((1, inst.n_intervals)), executor)[0] == ref


@pytest.mark.parametrize("executor", EXECUTORS)
@settings(max_examples=150, deadline=None)
@given(instances(min_free=0), st.integers(0, 2**32 - 1))
def test_compiled_runs_follow_the_python_rules(executor, inst, seed):
    """Integer delta too, so that the ties (a job ending exactly at s~) take the same side in both."""
    rng = np.random.default_rng(seed)
    a = inst.table["a"]
    deltas = np.vstack([-a * rng.random((4, len(a))), -np.floor((a + 1) * rng.random((4, len(a))))])
    for algo in ALGOS:
        if inst.lam == 0 and algo is gaps:
            continue
        sched = algo(inst)
        got = disturbed_makespans(inst, sched, deltas, executor)
        want = [disturbed_makespan_reference(inst, sched, d, executor) for d in deltas]
        # the same decisions; sums of floats in another order (a constant plus delta, or delta first)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
        assert got[4:].tolist() == want[4:]  # integer delta: exact


# --- the worst case against a dense grid ------------------------------------------------------------


def grid(a):
    """delta values in [-a, 0]: integers, half-integers, and just beside each integer."""
    v = {float(x) for x in np.arange(-a, 0.5, 0.5)}
    v |= {x + d for x in range(-a, 1) for d in (-0.01, 0.01)}
    return sorted(x for x in v if -a <= x <= 0)


def machine_grid_max(plan, executor):
    axes = [grid(int(a)) for a in plan.a]
    deltas = np.array(list(itertools.product(*axes)), dtype=float)
    out = kernel(
        plan.p.astype(float),
        plan.r.astype(float),
        plan.kappa.astype(np.int64),
        np.array([0, len(plan.p)], dtype=np.int64),
        plan.s.astype(float),
        plan.e.astype(float),
        np.array([0, len(plan.s)], dtype=np.int64),
        deltas,
        0.0,
        executor == "compact",
    )
    return out.max()


@pytest.mark.parametrize("executor", EXECUTORS)
@settings(max_examples=60, deadline=None)
@given(instances(max_busy=2, max_free=1, max_k=3, a_max=5, u_max=3, max_n=5, p_max=4))
def test_worst_case_dominates_a_dense_grid_and_is_reached(executor, inst):
    """No grid point beats the enumeration's supremum, and its witness delta comes within 0.25 of it."""
    for sched in (gaps(inst), lpt(inst)):
        plans, _ = machine_plans(inst, sched)
        for plan in plans:
            w = worst_machine(plan, executor=executor)
            assert machine_grid_max(plan, executor) <= w.value + 1e-9
            reached = execute(plan, w.witness, executor)
            assert w.value - 0.25 < reached <= w.value + 1e-9
            assert np.all(w.witness <= 0) and np.all(w.witness >= -plan.a)


@settings(max_examples=80, deadline=None)
@given(instances(max_busy=2, max_k=3, a_max=8, max_n=6), st.integers(0, 2**32 - 1))
def test_sampled_stability_is_at_most_the_worst_case(inst, seed):
    for algo in (gaps, plain_list):
        sched = algo(inst)
        worst = worst_case(inst, sched).makespan
        runs = sampled_makespans(inst, sched, np.random.default_rng(seed), draws=30)
        assert np.all(runs <= worst + 1e-9)
        if algo is gaps:  # its makespan job is on an undisturbed free machine (last-period rule)
            assert np.all(runs >= sched.makespan(inst.p))


def test_sampling_is_seeded_and_uniform_on_the_availability():
    inst = random_instance(np.random.default_rng(3), busy=6, free=2, n=40, k=6, beta=0.2)
    sched = gaps(inst)
    one = sampled_makespans(inst, sched, np.random.default_rng(7), draws=30)
    two = sampled_makespans(inst, sched, np.random.default_rng(7), draws=30)
    assert one.tobytes() == two.tobytes()
    assert len(one) == 30


def test_worst_case_budget_is_bad_input():
    inst = random_instance(np.random.default_rng(0), busy=1, free=1, n=12, k=6, a_hi=40, p_hi=6, beta=0.0)
    plans, _ = machine_plans(inst, lpt(inst))
    with pytest.raises(InputError, match="--disturbance worst"):
        worst_machine(plans[0], budget=5)


# --- Proposition 1 and Theorem 2 --------------------------------------------------------------------


@pytest.mark.parametrize("executor", EXECUTORS)
@settings(max_examples=100, deadline=None)
@given(instances(max_busy=2, max_k=3, a_max=10, max_n=6, p_max=5, beta=1.0))
def test_proposition1_gaps_at_beta_one_is_stable(executor, inst):
    """Prop. 1: slack rule + last-period rule => stable (worst-case stability exactly 1), both executors."""
    sched = gaps(inst)
    assert worst_case(inst, sched, executor=executor).makespan == sched.makespan(inst.p)


def theorem2_bound(inst, beta):
    return 1.0 if beta == 1 else 2.5 - beta + inst.gamma


@settings(max_examples=150, deadline=None)
@given(instances(max_busy=2, max_k=3, a_max=4, u_max=6, max_n=6, p_max=3, theorem2=True))
def test_theorem2_bound_holds_in_the_worst_case(inst):
    assert inst.theorem2_assumption
    sched = gaps(inst)
    stability = worst_case(inst, sched).makespan / sched.makespan(inst.p)
    assert stability <= theorem2_bound(inst, inst.beta) + 1e-12


def test_theorem2_tight_family_by_hand():
    """Intervals [2,3) [5,6) [8,9) (a = 2, u = 1, gamma = 1/2), one free machine, five jobs of 1, beta = 0.

    GAPS: interval e = 3 takes two jobs (line 7: 3 <= 5 - 1, then 3 <= 4 - 1; slack 0 >= 0), the rest
    fails line 7; LPT puts three on the free machine: C_max = 3 = e^0. Worst case: the first job is cut
    just before 1 (delta_0 -> -1), the machine is back at 2: the second job (late) runs [2, 3), the
    first again from 3 and is cut just before 4 (s~^1 -> 4-, within [e^0, s^1] = [3, 5]); back at 5-,
    it ends at 6- before the next window opens at e^1 = 6. Supremum 6: stability 2 <= 5/2 - 0 + 1/2.
    """
    inst = SlackInstance(machines=[[[2, 3], [5, 6], [8, 9]], []], p=[1] * 5, beta=0.0)
    sched = gaps(inst)
    assert sched.makespan(inst.p) == 3
    assert worst_case(inst, sched).makespan == 6
    assert 6 / 3 <= theorem2_bound(inst, 0.0)


@pytest.mark.parametrize("seed", range(12))
def test_theorem2_bound_on_the_theorem2_generator(seed):
    """The family's own Theorem 2 generator (``--preset theorem2``), small enough for the exact worst case."""
    from volsched.instances.slack import generators as gen

    beta = [0.0, 0.3, 0.6, 0.9, 1.0][seed % 5]
    inst = gen.generate_theorem2(5, 14, seed, 1 + seed % 2, 4, 8, 14, 1 + 3 * (seed % 4), 3.0, beta)
    assert inst.theorem2_assumption
    sched = gaps(inst)
    stability = worst_case(inst, sched).makespan / sched.makespan(inst.p)
    assert 1 <= stability <= theorem2_bound(inst, beta) + 1e-12


def test_all_machines_free():
    inst = SlackInstance(machines=[[], []], p=[3, 5, 2], beta=0.4)
    sched = gaps(inst)
    assert sched.machine.tolist() == [1, 0, 1] and sched.start.tolist() == [0, 0, 3]
    assert worst_case(inst, sched).makespan == 5
    assert disturbed_makespans(inst, sched, np.zeros((2, 0))).tolist() == [5, 5]


def test_sampled_delta_is_uniform_on_minus_a_zero():
    """One job [0, 4) before an unavailability [10, 11): cut iff s~ = 10 + delta < 4, i.e. delta < -6,
    with probability 0.4 under U[-10, 0]; then it reruns from e~ = 11 + delta: 15 + delta, mean 7."""
    inst = SlackInstance(machines=[[[10, 11]], []], p=[4, 1], beta=0.0)
    sched = Schedule(np.array([0, 1]), np.array([0, 0]), None)
    runs = sampled_makespans(inst, sched, np.random.default_rng(2024), draws=40_000)
    cut = runs > 4
    assert abs(cut.mean() - 0.4) < 0.01  # 4 standard deviations: 0.0098
    assert abs(runs[cut].mean() - 7) < 0.03  # sd of 15 + delta given cut: 4 / sqrt(12)
    assert runs[cut].min() >= 5 and runs[cut].max() <= 9


def test_theorem2_scenario_is_not_the_worst_case():
    """Theorem 2's proof strikes each interval's longest job just before it ends (slack.md 3.5: only a
    scenario). On the worked example: A cut just before 6 (delta_0 -> -4), back at 8-: B [8, 11), C early
    [11, 15), A no longer fits before 20; C cut just before 15 (delta_1 -> -5), back at 20-: A, C in the
    tail, 30-. The supremum, 31, cuts A at 5 instead."""
    inst, sched = worked()
    eps = 1e-6
    # C runs [11 - eps, 15 - eps): the cut must come before its end, s~^1 = 15 - 2 eps
    proof = disturbed_makespan_reference(inst, sched, [-4 - eps, -5 - 2 * eps])
    assert proof == pytest.approx(30, abs=1e-5) and proof < 30
    assert worst_case(inst, sched).makespan == 31


def test_sampled_runs_use_common_random_numbers():
    """The same seed disturbs every schedule of an instance with the same delta (all intervals drawn)."""
    inst = random_instance(np.random.default_rng(4), busy=5, free=2, n=30, k=5, beta=0.2)
    a = inst.table["a"]
    deltas = -a * np.random.default_rng(8).random((6, len(a)))
    for sched in (gaps(inst), gaps(inst, beta=0.9), lpt(inst), plain_list(inst)):
        got = sampled_makespans(inst, sched, np.random.default_rng(8), draws=6)
        assert got.tolist() == disturbed_makespans(inst, sched, deltas).tolist()
