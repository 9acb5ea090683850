"""Properties of every prescient heuristic on seeded random instances.

* its schedule is accepted by the family's independent verifier, which
  recomputes the makespan the simulator claims;
* its makespan is never below the prescient optimum (Section 3.4's greedy,
  optimal for identical tasks);
* the same seed gives the same run;
* it never reads the future: traces changed after an instant ``tau`` leave
  every decision before ``tau`` unchanged.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.prescient.heuristics import random_instance

from volsched.heuristics.prescient import HEURISTICS, NAMES, simulate
from volsched.instances.prescient import PrescientInstance
from volsched.solvers.prescient import solve, verify_solution

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    seed=st.integers(0, 10_000),
    suspension=st.booleans(),
    tasks=st.integers(1, 14),
    minutes=st.sampled_from([1.0, 3.0, 7.5]),
)
def test_every_heuristic_is_verified_and_never_beats_the_optimum(seed, suspension, tasks, minutes):
    inst = random_instance(seed, hosts=6, tasks=tasks, minutes=minutes, suspension=suspension)
    optimum = solve(inst, method="greedy")
    for name in NAMES:
        run = simulate(inst, HEURISTICS[name], np.random.default_rng(seed))
        if run.makespan is None:
            continue  # the traces ended first: a heuristic may fail where the optimum does not
        value = verify_solution(inst, {"attempts": run.attempts, "makespan": run.makespan})
        assert value == pytest.approx(run.makespan, abs=1e-6)
        assert optimum.status.value == "optimal"
        assert value >= optimum.objective - 1e-6, name
        assert run.waste == pytest.approx(100.0 * sum(a["replica"] for a in run.attempts) / tasks)


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_run(name):
    inst = random_instance(11, hosts=7, tasks=10, minutes=3.0)
    a = simulate(inst, HEURISTICS[name], np.random.default_rng(5))
    b = simulate(inst, HEURISTICS[name], np.random.default_rng(5))
    assert a.attempts == b.attempts and a.metrics == b.metrics


def changed_after(inst: PrescientInstance, tau: float, seed: int) -> PrescientInstance:
    """``inst`` with new up intervals and CPU shares from ``tau`` on (the same before)."""
    rng = np.random.default_rng(seed)
    ups, cpus = [], []
    first_sample = int(np.ceil(tau / inst.period))
    for h in range(inst.n_hosts):
        iv = [(float(a), float(min(b, tau))) for a, b in inst.intervals(h) if a < tau]
        t = tau + float(rng.uniform(0, 300))
        while t < inst.horizon:
            end = min(t + float(rng.exponential(1500.0)) + 10.0, inst.horizon)
            iv.append((t, end))
            t = end + float(rng.exponential(300.0)) + 1.0
        idx, share = inst.cpu_runs(h)
        runs = [(int(i), float(s)) for i, s in zip(idx, share, strict=True) if i < first_sample]
        k = first_sample
        while k * inst.period < inst.horizon:
            runs.append((k, float(rng.choice([0.0, 0.5, 1.0]))))
            k += int(rng.integers(1, 40))
        ups.append(iv)
        cpus.append(runs)
    return PrescientInstance.build(
        inst.clock_mhz,
        ups,
        task_minutes=inst.task_minutes,
        cpu=cpus,
        period=inst.period,
        start=inst.start,
        history=inst.history,
        horizon=inst.horizon,
        suspension=inst.suspension,
    )


def decisions_before(run, tau):
    return [(a["task"], a["host"], a["start"], a["replica"]) for a in run.attempts if a["start"] < tau]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_heuristic_reads_the_future(name, seed):
    inst = random_instance(seed, hosts=8, tasks=16, minutes=5.0, zero_share=0.3)
    base = simulate(inst, HEURISTICS[name], np.random.default_rng(seed))
    tau = inst.start + 0.5 * (base.makespan if base.makespan is not None else 3600.0)
    before = decisions_before(base, tau)
    assert before  # something was decided before tau
    for other in range(3):
        changed = changed_after(inst, tau, 100 * seed + other)
        run = simulate(changed, HEURISTICS[name], np.random.default_rng(seed))
        assert decisions_before(run, tau) == before


def test_the_future_does_change_the_run():
    # The check above has teeth: the same change does alter what happens after tau.
    inst = random_instance(1, hosts=8, tasks=16, minutes=5.0, zero_share=0.3)
    base = simulate(inst, HEURISTICS["FCFS"], np.random.default_rng(1))
    tau = inst.start + 0.5 * base.makespan
    runs = [
        simulate(changed_after(inst, tau, k), HEURISTICS["FCFS"], np.random.default_rng(1)) for k in range(3)
    ]
    assert any(r.attempts != base.attempts for r in runs)


@pytest.mark.parametrize("name", NAMES)
def test_reading_the_traces_in_short_windows_changes_nothing(name):
    # The trace profile grows by doubling from the submission; start it at 5 minutes so that
    # hosts wait for their next interval, idle hosts sit in cut intervals and dispatches grow it.
    from volsched.heuristics.prescient import Physics

    for seed in (2, 5):
        inst = random_instance(seed, hosts=7, tasks=18, minutes=6.0, suspension=seed % 2 == 0)
        whole = simulate(inst, HEURISTICS[name], np.random.default_rng(seed))
        short = simulate(
            inst, HEURISTICS[name], np.random.default_rng(seed), physics=Physics(inst, span=300.0)
        )
        assert short.attempts == whole.attempts


@pytest.mark.parametrize("name", NAMES)
def test_tasks_of_different_sizes_verify(name):
    inst = random_instance(8, hosts=6, tasks=10, minutes=4.0)
    sizes = np.random.default_rng(8).choice([1.0, 4.0, 9.0], size=inst.n_tasks)
    inst = inst.replace(task_minutes=sizes)
    run = simulate(inst, HEURISTICS[name], np.random.default_rng(0))
    assert verify_solution(inst, {"attempts": run.attempts, "makespan": run.makespan}) == pytest.approx(
        run.makespan, abs=1e-6
    )
