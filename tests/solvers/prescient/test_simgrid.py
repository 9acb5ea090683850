"""SimGrid 3.32 as an independent oracle of the prescient family (Kondo et al. 2007, Section 2.1).

Each test exports an instance and a schedule (:func:`export_simgrid`), replays
it in SimGrid in a subprocess (``tests/oracles/prescient/simgrid_replay.py``; one engine per
process) and checks that SimGrid's completions, failures and cancellations are
volsched's, on random instances with shares of 0, with and without suspension:
the schedules are the greedy optimum and random heuristic-like runs (failures,
replicas, cancellations) computed by the exact oracle. Skipped, with the reason
shown, when SimGrid's Python bindings are absent.
"""

import numpy as np
import pytest
from oracles.prescient.optimum import random_instance, random_run
from oracles.prescient.simgrid_oracle import MARKS, replay

from volsched.instances.prescient import PrescientInstance
from volsched.solvers.prescient import solve
from volsched.solvers.prescient.simgrid import ZERO_SPEED, export_simgrid
from volsched.solvers.prescient.verify import availability_end, host_views, verify_solution

pytestmark = MARKS


def assert_same(instance, schedule, events, tol=1e-6):
    """Every attempt of ``schedule`` happened in SimGrid with the same start, end and outcome.

    One tie is told apart: a task whose work is done exactly when its host
    goes down completes in volsched (the model's rule) but SimGrid 3.32 applies
    the host-off first and kills it at that same instant; such an attempt must
    end at the same instant, as ``failed`` in SimGrid.
    """
    t0 = instance.start
    names = [f"h{h}" for h in range(instance.n_hosts)]
    seen = {(e["host"], e["task"], round(e["start"], 5)): e for e in events}
    assert len(events) == len(schedule["attempts"])
    for a in schedule["attempts"]:
        e = seen[(names[a["host"]], a["task"], round(a["start"] - t0, 5))]
        scale = max(1.0, abs(a["end"] - t0))
        assert abs(e["end"] - (a["end"] - t0)) <= tol * scale, (a, e)
        tie = a["outcome"] == "completed" and e["outcome"] == "failed" and _ends_availability(instance, a)
        assert e["outcome"] == a["outcome"] or tie, (a, e)


def _ends_availability(instance, attempt) -> bool:
    """The attempt ends exactly when its availability does (host-down, or a zero share without suspension)."""
    down = availability_end(host_views(instance)[attempt["host"]], attempt["start"])
    return down is not None and abs(down - attempt["end"]) <= 1e-9


def test_completion_at_the_host_down_instant(tmp_path):
    # Exact fit: volsched completes the task at 300, the instant the host goes down; SimGrid 3.32
    # applies the host-off first (a tie: the attempt ends at 300 either way).
    inst = PrescientInstance.build([1500.0], [[(0, 300), (400, 1000)]], tasks=1, task_minutes=5.0)
    sched = solve(inst, "greedy").solution
    assert sched["attempts"][0]["end"] == 300.0
    events = replay(inst, sched, tmp_path)
    assert events[0]["end"] == pytest.approx(300.0)
    assert_same(inst, sched, events)


def test_design_checks(tmp_path):
    # DESIGN.md: a 3e9-op task on a 1e9 op/s host with speed profile 0 1.0 / 1 0.5 / 3 1.0 ends at 4.0 s;
    # a host turned off at 2 s kills its task at 2.0 s. Here 1e9 op/s is a clock of 1500 / 0.1107 MHz.
    clock = 1e9 / 110.7e6 * 1500.0
    inst = PrescientInstance.build(
        [clock, clock],
        [[(0, 100)], [(0, 2), (50, 100)]],
        cpu=[[(0, 1.0), (1, 0.5), (3, 1.0)], [(0, 1.0)]],
        period=1.0,
        task_minutes=[3e9 / 110.7e6 / 60] * 2,
    )
    sched = {
        "attempts": [
            {"task": 0, "host": 0, "start": 0.0, "end": 4.0, "outcome": "completed"},
            {"task": 1, "host": 1, "start": 0.0, "end": 2.0, "outcome": "failed"},
            {"task": 1, "host": 1, "start": 50.0, "end": 53.0, "outcome": "completed"},
        ]
    }
    assert verify_solution(inst, sched) == pytest.approx(53.0)
    assert_same(inst, sched, replay(inst, sched, tmp_path))


def test_zero_share_is_suspension_in_simgrid(tmp_path):
    # Share 0 on [100, 200): the task ends at 400 (SimGrid 3.32 would ignore a literal 0; see ZERO_SPEED).
    inst = PrescientInstance.build(
        [1500.0], [[(0, 1000)]], cpu=[[(0, 1.0), (10, 0.0), (20, 1.0)]], tasks=1, task_minutes=5.0
    )
    sched = solve(inst, "greedy").solution
    events = replay(inst, sched, tmp_path)
    assert events[0]["end"] == pytest.approx(400.0, abs=1e-9 + 100 * ZERO_SPEED * 1e3)


def _first(seed: int, make):
    """The first ``make(rng)`` that is not ``None`` over the seeds ``seed * 100 + k`` (deterministic)."""
    for k in range(100):
        got = make(np.random.default_rng(seed * 100 + k))
        if got is not None:
            return got
    raise AssertionError("no usable random instance")  # pragma: no cover


@pytest.mark.parametrize("seed", range(12))
def test_optimum_replays_identically(seed, tmp_path):
    def make(rng):
        inst = random_instance(
            rng,
            hosts=int(rng.integers(1, 4)),
            tasks=int(rng.integers(1, 6)),
            suspension=bool(seed % 3),
            nice=seed % 2 == 0,
        )
        r = solve(inst, "greedy")
        return None if r.objective is None else (inst, r.solution)

    inst, sched = _first(700 + seed, make)
    assert_same(inst, sched, replay(inst, sched, tmp_path))


@pytest.mark.parametrize("seed", range(16))
def test_heuristic_runs_replay_identically(seed, tmp_path):
    # Even seeds: a run with a failure; odd seeds: a run with a cancelled replica.
    wanted = "failed" if seed % 2 == 0 else "cancelled"

    def make(rng):
        inst = random_instance(
            rng,
            hosts=int(rng.integers(1, 4)),
            tasks=int(rng.integers(2, 6)),
            identical=bool(seed % 4 < 2),
            suspension=bool(seed % 3),
        )
        sched = random_run(inst, rng, replicas=0.5)
        ok = sched is not None and any(a["outcome"] == wanted for a in sched["attempts"])
        return (inst, sched) if ok else None

    inst, sched = _first(900 + seed, make)
    verify_solution(inst, sched)
    assert_same(inst, sched, replay(inst, sched, tmp_path))


def _heuristics():
    from volsched.heuristics.prescient import HEURISTICS

    return HEURISTICS


@pytest.mark.parametrize("name", list(_heuristics()))
def test_heuristic_simulator_runs_replay_identically(name, tmp_path):
    # The heuristics' own simulator (its failures, restarts, replicas and cancellations) against SimGrid,
    # on the first seeded random instance with history on which the run completes and sees a failure.
    from volsched.heuristics.prescient import PrescientSimulator

    policy = _heuristics()[name]

    def make(rng):
        inst = random_instance(
            rng, hosts=4, tasks=int(rng.integers(2, 5)), suspension=bool(rng.integers(3)), history=True
        )
        sched, _ = PrescientSimulator().run(inst, policy, np.random.default_rng(1))
        ok = "makespan" in sched and any(a["outcome"] == "failed" for a in sched["attempts"])
        return (inst, sched) if ok else None

    inst, sched = _first(1300, make)
    assert verify_solution(inst, sched) == pytest.approx(sched["makespan"], abs=1e-6)
    assert_same(inst, sched, replay(inst, sched, tmp_path))


@pytest.mark.parametrize("seed", range(6))
def test_touching_intervals_kill_in_simgrid_too(seed, tmp_path):
    # A host-down followed at once by a restart: written "date 0" then "date 1"; the task dies there.
    def make(rng):
        inst = random_instance(
            rng,
            hosts=int(rng.integers(1, 3)),
            tasks=int(rng.integers(2, 5)),
            suspension=bool(seed % 2),
            touching=True,
        )
        sched = random_run(inst, rng, replicas=0.3)
        ok = sched is not None and any(a["outcome"] == "failed" for a in sched["attempts"])
        return (inst, sched) if ok else None

    inst, sched = _first(1700 + seed, make)
    verify_solution(inst, sched)
    assert_same(inst, sched, replay(inst, sched, tmp_path))


def test_host_names_become_ids_when_unique(tmp_path):
    inst = PrescientInstance.build(
        [1500.0, 1500.0], [[(0, 1000)], [(0, 1000)]], tasks=2, task_minutes=5.0, host_names=("alpha", "beta")
    )
    sched = solve(inst, "greedy").solution
    events = replay(inst, sched, tmp_path)
    assert sorted(e["host"] for e in events) == ["alpha", "beta"]
    assert [e["end"] for e in events] == pytest.approx([300.0, 300.0])
    clash = inst.replace(host_names=("server", "beta"))
    export_simgrid(clash, tmp_path / "clash")
    assert 'id="h0"' in (tmp_path / "clash" / "platform.xml").read_text()
