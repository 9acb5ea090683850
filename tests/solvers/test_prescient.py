"""The prescient optimum (Kondo et al. 2007, Section 3.4): hand cases, brute force, cross-method agreement.

Every semantic test runs against every registered method (``@pytest.mark.problem``);
the brute-force oracle (``tests/oracles/prescient/optimum.py``) computes in exact rationals.
"""

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.prescient.optimum import brute_force, random_instance

from volsched.instances.errors import InputError
from volsched.instances.prescient import PrescientInstance
from volsched.solvers import SolveStatus
from volsched.solvers.prescient import PROBLEMS, solve
from volsched.solvers.prescient.greedy import greedy_schedule, identical_optimum

problem = pytest.mark.problem("prescient", "makespan")


def build(clock, up, cpu=None, tasks=None, minutes=5.0, **kw):
    return PrescientInstance.build(clock, up, cpu=cpu, tasks=tasks, task_minutes=minutes, **kw)


@problem
def test_hand_two_hosts(method):
    # Host 0 at 1.5 GHz: 300 s a task (300, 600, 900). Host 1 at 3 GHz: 150 s a task;
    # [0, 500) holds 3 (150, 300, 450), [600, 2000) then 750, 900. Fifth smallest: 600.
    inst = build([1500.0, 3000.0], [[(0, 1000)], [(0, 500), (600, 2000)]], tasks=5)
    r = solve(inst, method)
    assert r.status is SolveStatus.OPTIMAL and r.objective == pytest.approx(600.0)
    assert r.solution["hosts_used"] == [0, 1]
    assert r.solution["slowest_clock_used_mhz"] == 1500.0


@problem
def test_exact_fit_at_host_down_completes(method):
    # A 300 s interval on the reference host holds exactly one 5-minute task, ending at the host-down.
    inst = build([1500.0], [[(100, 400), (500, 2000)]], tasks=2)
    r = solve(inst, method)
    assert r.objective == pytest.approx(800.0)  # completions at 400 (exact fit) and 800, not 800 and 1100


@problem
def test_suspension_is_not_failure(method):
    # Share 0 over [100, 200): the task is suspended, resumes, ends at 400.
    inst = build([1500.0], [[(0, 1000)]], cpu=[[(0, 1.0), (10, 0.0), (20, 1.0)]], tasks=1)
    assert solve(inst, method).objective == pytest.approx(400.0)


@problem
def test_no_suspension_zero_share_kills(method):
    # UCB: share 0 over [100, 200) cuts the interval; the task runs on [200, 500).
    inst = build([1500.0], [[(0, 1000)]], cpu=[[(0, 1.0), (10, 0.0), (20, 1.0)]], tasks=1, suspension=False)
    r = solve(inst, method)
    assert r.objective == pytest.approx(500.0)
    (a,) = r.solution["attempts"]
    assert a["start"] == pytest.approx(200.0)


@problem
def test_touching_intervals_are_a_host_down(method):
    # [0, 200) and [200, 2000) touch: the host went down at 200, so the first task starts at 200.
    inst = build([1500.0], [[(0, 200), (200, 2000)]], tasks=1)
    assert solve(inst, method).objective == pytest.approx(500.0)


@problem
def test_submission_inside_interval_and_half_share(method):
    # Submitted at 1000 inside [0, 5000); 3 GHz at share 0.5 = the reference speed: 300 s a task.
    inst = build([3000.0], [[(0, 5000)]], cpu=[[(0, 0.5)]], tasks=3, start=1000.0, history=(0.0, 500.0))
    assert solve(inst, method).objective == pytest.approx(900.0)


@problem
def test_traces_too_short_is_infeasible(method):
    inst = build([1500.0, 1500.0], [[(0, 500)], [(0, 590)]], tasks=3)  # room for 1 + 1 tasks
    r = solve(inst, method)
    assert r.status is SolveStatus.INFEASIBLE and r.objective is None


@pytest.mark.parametrize("seed", range(40))
def test_identical_agree_with_brute_force(seed):
    rng = np.random.default_rng(seed)
    inst = random_instance(
        rng,
        hosts=int(rng.integers(1, 4)),
        tasks=int(rng.integers(1, 5)),
        suspension=bool(seed % 3),
        nice=seed % 2 == 0,
    )
    best = brute_force(inst)
    for method in PROBLEMS["makespan"].methods:
        r = solve(inst, method)
        if best is None:
            assert r.status is SolveStatus.INFEASIBLE
        else:
            assert r.status is SolveStatus.OPTIMAL, method
            assert r.objective == pytest.approx(float(best[0]), rel=1e-9, abs=1e-6), method


@pytest.mark.parametrize("seed", range(25))
def test_non_identical_cpsat_matches_brute_force_greedy_brackets_it(seed):
    rng = np.random.default_rng(1000 + seed)
    inst = random_instance(
        rng,
        hosts=int(rng.integers(1, 4)),
        tasks=int(rng.integers(2, 5)),
        identical=False,
        suspension=bool(seed % 3),
        nice=seed % 2 == 0,
    )
    best = brute_force(inst)
    exact = solve(inst, "cpsat")
    greedy = solve(inst, "greedy")
    if best is None:
        assert exact.status is SolveStatus.INFEASIBLE
        assert greedy.objective is None
        return
    opt = float(best[0])
    assert exact.status is SolveStatus.OPTIMAL
    assert exact.objective == pytest.approx(opt, rel=1e-9, abs=1e-6)
    assert greedy.bound <= opt + 1e-6
    if greedy.objective is not None:
        assert greedy.objective >= opt - 1e-6
        assert greedy.status in (SolveStatus.FEASIBLE, SolveStatus.OPTIMAL)


def test_greedy_is_only_a_heuristic_for_non_identical_sizes():
    # Two hosts free on [0, 600) at the reference speed, tasks 1, 1, 2 and 2... minutes: LPT finds 240 s,
    # but the greedy is not proven here and reports a bound below its value or equal to it.
    inst = build([1500.0, 1500.0], [[(0, 3000)], [(0, 3000)]], minutes=[3.0, 3.0, 2.0, 2.0, 2.0])
    g, c = solve(inst, "greedy"), solve(inst, "cpsat")
    assert c.objective == pytest.approx(360.0)  # {3, 3} and {2, 2, 2}
    assert g.objective == pytest.approx(420.0)  # LPT: 3 | 3, then 2 | 2, then 2: 7 minutes
    assert g.status is SolveStatus.FEASIBLE and g.bound <= c.objective


@pytest.mark.parametrize("seed", range(30))
def test_fast_identical_path_equals_step_by_step_greedy(seed):
    rng = np.random.default_rng(5000 + seed)
    inst = random_instance(
        rng, hosts=int(rng.integers(1, 6)), tasks=int(rng.integers(1, 12)), suspension=bool(seed % 2)
    )
    fast, slow = identical_optimum(inst), greedy_schedule(inst)
    assert (fast is None) == (slow is None)
    if fast is not None:
        assert fast["makespan"] == pytest.approx(slow["makespan"], rel=1e-12, abs=1e-9)
        assert sorted(fast["end"].tolist()) == pytest.approx(sorted(slow["end"].tolist()), rel=1e-12)


def test_reads_only_as_far_as_needed():
    # A week of traces; the answer is within the first hour, so the greedy stops reading early.
    week = 7 * 86400.0
    inst = build([1500.0] * 4, [[(0, week)]] * 4, tasks=8, horizon=week)
    best = identical_optimum(inst)
    assert best["makespan"] == pytest.approx(600.0)
    assert best["horizon"] < 3600.0


def test_deterministic_solution_bytes():
    inst = random_instance(np.random.default_rng(3), hosts=3, tasks=4)
    a, b = solve(inst, "greedy"), solve(inst, "greedy")
    assert json.dumps(a.solution, sort_keys=True) == json.dumps(b.solution, sort_keys=True)


def test_cpsat_refuses_large_instances_as_bad_input():
    inst = build([1500.0], [[(0, 10**6)]], tasks=200)
    with pytest.raises(InputError, match="cpsat"):
        solve(inst, "cpsat")


def test_oracle_is_exact_on_the_hand_case():
    inst = build([1500.0, 3000.0], [[(0, 1000)], [(0, 500), (600, 2000)]], tasks=5)
    assert brute_force(inst)[0] == Fraction(600)
    assert math.isfinite(float(brute_force(inst)[0]))


def test_export_writes_platform_and_profiles(tmp_path):
    from volsched.solvers.prescient.simgrid import ZERO_SPEED, export_simgrid

    inst = build(
        [1500.0, 3000.0],
        [[(0, 200), (200, 1000)], [(700, 2000)]],
        cpu=[[(0, 1.0), (10, 0.0), (20, 1.0)], [(0, 0.5)]],
        tasks=1,
        start=100.0,
    )
    files = {p.name for p in export_simgrid(inst, tmp_path)}
    assert files == {"platform.xml", "h0.speed", "h0.state", "h1.speed", "h1.state", "volsched-simgrid.json"}
    # Dates from the submission (100): host 0 goes down and up at 100 (touching intervals), host 1 is down
    # until 600; the share is 0 from the submission to 200, written as ZERO_SPEED.
    assert (tmp_path / "h0.state").read_text().split("\n")[:4] == ["0.0 1", "100.0 0", "100.0 1", "900.0 0"]
    assert (tmp_path / "h1.state").read_text().split("\n")[:3] == ["0.0 0", "600.0 1", "1900.0 0"]
    assert (tmp_path / "h0.speed").read_text().split("\n")[:2] == [f"0.0 {ZERO_SPEED!r}", "100.0 1.0"]
    assert 'speed="221400000.0f"' in (tmp_path / "platform.xml").read_text()


@pytest.mark.parametrize("seed", range(15))
def test_greedy_and_cpsat_agree_beyond_brute_force(seed):
    rng = np.random.default_rng(3000 + seed)
    inst = random_instance(
        rng,
        hosts=int(rng.integers(4, 8)),
        tasks=int(rng.integers(6, 16)),
        suspension=bool(seed % 3),
        nice=seed % 2 == 0,
    )
    g, c = solve(inst, "greedy"), solve(inst, "cpsat")
    assert g.status is c.status
    if g.objective is not None:
        assert g.status is SolveStatus.OPTIMAL
        assert c.objective == pytest.approx(g.objective, rel=1e-9, abs=1e-6)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), suspension=st.booleans())
def test_invariants_of_the_optimum(seed, suspension):
    rng = np.random.default_rng(seed)
    inst = random_instance(
        rng, hosts=int(rng.integers(1, 5)), tasks=int(rng.integers(1, 8)), suspension=suspension
    )
    best = identical_optimum(inst)
    # Twice the clock rates or half the work: the same time per task, the same completions.
    fast = identical_optimum(inst.replace(clock_mhz=inst.clock_mhz * 2.0))
    half = identical_optimum(inst.replace(task_minutes=inst.task_minutes / 2.0))
    assert (fast is None) == (half is None)
    if fast is not None:
        assert fast["makespan"] == pytest.approx(half["makespan"], rel=1e-9, abs=1e-6)
        assert best is None or fast["makespan"] <= best["makespan"] + 1e-9
    if best is None:
        return
    # One more task never finishes sooner; one host fewer never helps.
    more = identical_optimum(inst.with_tasks(inst.n_tasks + 1, float(inst.task_minutes[0])))
    assert more is None or more["makespan"] >= best["makespan"] - 1e-9
    if inst.n_hosts > 1:
        keep = np.flatnonzero(np.arange(inst.n_hosts) != int(rng.integers(inst.n_hosts)))
        ups = [inst.intervals(h) for h in keep]
        cpu = [[(int(i), float(v)) for i, v in zip(*inst.cpu_runs(h), strict=True)] for h in keep]
        fewer = PrescientInstance.build(
            inst.clock_mhz[keep],
            ups,
            cpu=cpu,
            task_minutes=inst.task_minutes,
            period=inst.period,
            start=inst.start,
            horizon=inst.horizon,
            suspension=inst.suspension,
        )
        worse = identical_optimum(fewer)
        assert worse is None or worse["makespan"] >= best["makespan"] - 1e-9
    # On each host the optimum runs back to back: a task starts where the previous one ended or later.
    for h in set(best["host"].tolist()):
        mine = np.flatnonzero(best["host"] == h)
        assert np.all(best["start"][mine][1:] >= best["end"][mine][:-1] - 1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_greedy_on_a_short_span_is_the_whole_trace_greedy(seed):
    rng = np.random.default_rng(7000 + seed)
    inst = random_instance(
        rng,
        hosts=int(rng.integers(1, 5)),
        tasks=int(rng.integers(1, 8)),
        identical=False,
        suspension=bool(seed % 2),
    )
    whole, short = greedy_schedule(inst), greedy_schedule(inst, span=60.0)
    assert (whole is None) == (short is None)
    if whole is not None:
        assert short["makespan"] == pytest.approx(whole["makespan"], rel=1e-12)  # cumsums over other spans
        assert short["host"].tolist() == whole["host"].tolist()


@pytest.mark.parametrize("seed", range(20))
def test_touching_intervals_agree_with_brute_force(seed):
    rng = np.random.default_rng(9000 + seed)
    inst = random_instance(
        rng,
        hosts=int(rng.integers(1, 3)),
        tasks=int(rng.integers(1, 5)),
        identical=seed % 4 != 0,
        suspension=bool(seed % 3),
        nice=seed % 2 == 0,
        touching=True,
    )
    best = brute_force(inst)
    for method in PROBLEMS["makespan"].methods:
        r = solve(inst, method)
        if best is None:
            assert r.objective is None
        elif inst.identical or method == "cpsat":
            assert r.objective == pytest.approx(float(best[0]), rel=1e-9, abs=1e-6), method


@problem
def test_fit_short_by_rounding_only_counts(method):
    # The interval's work falls short of the task's by 1e-13 of it (the size of a float rounding of
    # an exact fit): both methods count it as a fit ending at the host-down, and the verifier, whose
    # tolerance is 1e-6 s, accepts it (the work is done 3e-11 s after 400).
    inst = build([1500.0 * (1 - 1e-13)], [[(100, 400), (500, 5000)]], tasks=1)
    r = solve(inst, method)
    assert r.objective == pytest.approx(400.0, abs=1e-6)
