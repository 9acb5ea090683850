"""The prescient server of Section 2.1, traced by hand on tiny scenarios.

A 1500 MHz host at share 1 delivers 110.7e6 operations per second, so a task
of ``x`` minutes takes ``60 x`` seconds on it; every expected instant below is
worked out from the paper's rules and the module's documented choices
(next-heartbeat-tick detection, cancellation at a completion).
"""

import numpy as np
import pytest

from volsched.heuristics.prescient import HEURISTICS, PrescientSimulator, detection_time, simulate
from volsched.instances.prescient import PrescientInstance
from volsched.solvers.prescient import verify_solution

FCFS = HEURISTICS["FCFS"]


def build(clock, up, cpu=None, tasks=1, minutes=1.0, **kw):
    return PrescientInstance.build(clock, up, tasks=tasks, task_minutes=minutes, cpu=cpu, **kw)


def trail(run):
    return [
        (a["task"], a["host"], pytest.approx(a["start"]), pytest.approx(a["end"]), a["outcome"])
        for a in run.attempts
    ]


def test_detection_is_the_first_heartbeat_tick_after_the_failure():
    # Ticks every 60 s from the start: 60, 120, 180 ...
    assert detection_time(0.0, 100.0) == 120.0
    assert detection_time(0.0, 120.0) == 180.0  # a tick at the failure instant is missed
    assert detection_time(10.0, 15.0) == 70.0
    assert detection_time(10.0, 69.999) == 70.0


def test_failure_detected_at_the_heartbeat_then_restart_on_the_same_host_once_back():
    # 2-minute task on [0, 100): fails at 100, detected at the tick 120; the host is back at 130.
    inst = build([1500.0], [[(0, 100), (130, 1000)]], minutes=2.0)
    run = simulate(inst, FCFS, np.random.default_rng(0))
    assert trail(run) == [(0, 0, 0, 100, "failed"), (0, 0, 130, 250, "completed")]
    assert run.makespan == pytest.approx(250.0)
    assert run.waste == 0.0


def test_host_back_before_the_heartbeat_waits_for_the_detection():
    # Back at 105, but the server learns of the failure only at 120.
    inst = build([1500.0], [[(0, 100), (105, 1000)]], minutes=2.0)
    run = simulate(inst, FCFS, np.random.default_rng(0))
    assert trail(run) == [(0, 0, 0, 100, "failed"), (0, 0, 120, 240, "completed")]


def test_failure_on_a_tick_is_detected_one_period_later():
    inst = build([1500.0], [[(0, 120), (125, 1000)]], minutes=3.0)
    run = simulate(inst, FCFS, np.random.default_rng(0))
    assert trail(run) == [(0, 0, 0, 120, "failed"), (0, 0, 180, 360, "completed")]


def test_restart_goes_to_any_ready_host():
    # Host 1 comes up at 110; the failed task is re-queued at 120 and host 1 takes it (host 0 is
    # back only at 500).
    inst = build([1500.0, 1500.0], [[(0, 100), (500, 1000)], [(110, 1000)]], tasks=1, minutes=2.0)
    run = simulate(inst, FCFS, np.random.default_rng(0))
    assert trail(run) == [(0, 0, 0, 100, "failed"), (0, 1, 120, 240, "completed")]


def test_suspension_at_share_zero_is_never_a_failure():
    # Share 1 on [0, 30), 0 on [30, 90), 1 after: 30 s of work, suspended 60 s, 30 s more.
    inst = build([1500.0], [[(0, 1000)]], cpu=[[(0, 1.0), (3, 0.0), (9, 1.0)]], period=10.0)
    run = simulate(inst, FCFS, np.random.default_rng(0))
    assert trail(run) == [(0, 0, 0, 120, "completed")]


def test_without_suspension_share_zero_kills_the_task():
    # UCB (Section 3.1): the zero-share run ends the availability; detected at 60, host back at 90.
    inst = build([1500.0], [[(0, 1000)]], cpu=[[(0, 1.0), (3, 0.0), (9, 1.0)]], period=10.0, suspension=False)
    run = simulate(inst, FCFS, np.random.default_rng(0))
    assert trail(run) == [(0, 0, 0, 30, "failed"), (0, 0, 90, 150, "completed")]


def test_host_joins_the_ready_queue_when_it_comes_up_and_when_it_completes():
    # Host 0 runs tasks back to back; host 1 appears at 90 and takes the third task.
    inst = build([1500.0, 1500.0], [[(0, 1000)], [(90, 1000)]], tasks=3)
    run = simulate(inst, FCFS, np.random.default_rng(0))
    assert trail(run) == [
        (0, 0, 0, 60, "completed"),
        (1, 0, 60, 120, "completed"),
        (2, 1, 90, 150, "completed"),
    ]
    assert run.makespan == pytest.approx(150.0)


def test_a_busy_cpu_host_is_ready_and_its_task_starts_suspended():
    # Reading 1.9b: up with share 0 until 50, the only host takes the task at 0.
    inst = build([1500.0], [[(0, 1000)]], cpu=[[(0, 0.0), (5, 1.0)]])
    run = simulate(inst, FCFS, np.random.default_rng(0))
    assert trail(run) == [(0, 0, 0, 110, "completed")]


def test_makespan_counts_from_the_submission():
    inst = build([1500.0], [[(0, 1000)]], start=100.0)
    run = simulate(inst, FCFS, np.random.default_rng(0))
    assert trail(run) == [(0, 0, 100, 160, "completed")]
    assert run.makespan == pytest.approx(60.0)


def test_traces_that_end_first_leave_the_run_unfinished():
    inst = build([1500.0], [[(0, 100)]], minutes=2.0, horizon=200.0)
    run = simulate(inst, FCFS, np.random.default_rng(0))
    assert run.failed and run.makespan is None
    assert trail(run) == [(0, 0, 0, 100, "failed")]


def test_fcfs_breaks_arrival_ties_with_the_seeded_draw():
    inst = build([1500.0] * 4, [[(0, 1000)]] * 4, tasks=1)
    first = {simulate(inst, FCFS, np.random.default_rng(seed)).attempts[0]["host"] for seed in range(30)}
    assert first == {0, 1, 2, 3}
    again = [simulate(inst, FCFS, np.random.default_rng(7)).attempts[0]["host"] for _ in range(3)]
    assert len(set(again)) == 1


def test_simulator_protocol_returns_the_verifiers_schedule():
    inst = build([1500.0, 750.0], [[(0, 100), (130, 1000)], [(0, 1000)]], tasks=3, minutes=2.0)
    solution, metrics = PrescientSimulator().run(inst, FCFS, np.random.default_rng(3))
    assert set(metrics) == {"makespan", "waste", "laggers", "laggers_failure", "failed"}
    assert not metrics["failed"]
    assert verify_solution(inst, solution) == pytest.approx(metrics["makespan"])


@pytest.mark.parametrize("suspension", [True, False])
def test_one_task_path_agrees_with_the_batch_search(suspension):
    # Physics.finish_one (two searchsorted in one interval) against WorkProfile.earliest_completion.
    from oracles.prescient.heuristics import random_instance

    from volsched.heuristics.prescient import Physics

    rng = np.random.default_rng(4)
    for seed in range(6):
        inst = random_instance(seed, hosts=5, suspension=suspension, zero_share=0.3)
        physics = Physics(inst, span=3600.0)
        for _ in range(60):
            h = int(rng.integers(inst.n_hosts))
            k = int(rng.integers(physics.count(h)))
            a, b = physics.bounds(h, k)
            t = float(rng.uniform(a, min(b, physics.until)))
            if t >= min(b, physics.until):
                continue
            work = float(rng.choice([10.0, 60.0, 600.0, 3600.0])) * 110.7e6
            one = physics.finish_one(h, k, t, work)
            batch = physics.finish(np.array([h, h]), np.array([k, k]), t, np.array([work, work]))
            assert one[1] == bool(batch[1][0])
            assert one[0] == pytest.approx(float(batch[0][0]), abs=1e-6)


def whole_second_instance(seed, suspension=True):
    """Distinct clocks 1500 k MHz (a 1-minute task in 60 / k s), integer bounds, shares 0 or 1."""
    rng = np.random.default_rng(seed)
    n = 6
    ups, cpus = [], []
    for _ in range(n):
        t, iv = int(rng.integers(0, 200)), []
        while t < 6000:
            end = t + int(rng.integers(20, 900))
            iv.append((t, end))
            t = end + int(rng.integers(1, 200))
        ups.append(iv)
        k, runs = 0, []
        while k < 700:
            runs.append((k, float(rng.random() < 0.8)))
            k += int(rng.integers(1, 12))
        cpus.append(runs)
    clocks = rng.permutation(np.arange(1, n + 1)) * 1500.0
    return PrescientInstance.build(
        clocks,
        ups,
        tasks=14,
        task_minutes=1.0,
        cpu=cpus,
        period=10.0,
        start=3000.0,
        history=(0.0, 3000.0),
        horizon=7000.0,
        suspension=suspension,
    )


@pytest.mark.parametrize("name", ["PRI-CR", "PRI-CR-WAIT", "PRI-HISTORY", "EXCL-S1", "EXCL-S.5", "EXCL-S.25"])
@pytest.mark.parametrize("suspension", [True, False])
def test_agrees_with_an_independent_per_second_loop_where_it_is_exact(name, suspension):
    # tests/oracles/prescient/simulator.py is the same server written as a time-stepped loop; on whole-second
    # traces it is exact, and policies without random ties must then decide alike.
    from oracles.prescient.simulator import per_second

    for seed in range(4):
        inst = whole_second_instance(seed, suspension)
        run = simulate(inst, HEURISTICS[name], np.random.default_rng(0))
        sent = []
        ref = per_second(inst, HEURISTICS[name], np.random.default_rng(0), 4000, sent)
        assert ref == pytest.approx(run.makespan)
        assert sent == [(a["task"], a["host"], pytest.approx(a["start"]), a["replica"]) for a in run.attempts]


def test_a_policy_cannot_write_the_servers_state():
    class Vandal:
        name, replicates = "vandal", False

        def decide(self, obs, rng):
            for array in (obs.ready, obs.primary, obs.done, obs.original, obs.completions, obs.live_start):
                with pytest.raises(ValueError):
                    array[...] = 0
            return [], None

    simulate(build([1500.0], [[(0, 1000)]]), Vandal(), np.random.default_rng(0))


def test_a_policy_must_place_originals_and_replicas_where_the_server_allows():
    class Replicator:
        name, replicates = "bad", False

        def decide(self, obs, rng):
            from volsched.heuristics.prescient import Assignment

            return [Assignment(int(obs.ready[0]), int(obs.primary[0]), replica=True)], None

    with pytest.raises(ValueError, match="waits for its original"):
        simulate(build([1500.0], [[(0, 1000)]]), Replicator(), np.random.default_rng(0))


def test_too_many_tasks_is_bad_input():
    from volsched.heuristics.prescient.simulator import MAX_TASKS
    from volsched.instances.errors import InputError

    inst = build([1500.0], [[(0, 1000)]], tasks=MAX_TASKS + 1)
    with pytest.raises(InputError, match="tasks"):
        simulate(inst, FCFS, np.random.default_rng(0))
