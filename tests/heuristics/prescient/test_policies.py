"""The twelve heuristics of Sections 4-6 on tiny scenarios traced by hand.

Units: a 1500 MHz host at share 1 does a 1-minute task in 60 s, a 3000 MHz
host in 30 s. Scenarios with a history put the previous day on ``[0, 1000)``
and submit the application at 1000.
"""

import math

import numpy as np
import pytest

from volsched.heuristics.prescient import HEURISTICS, History, Observation, Platform, prediction, simulate
from volsched.heuristics.prescient.policies import ExclS
from volsched.instances.prescient import PrescientInstance

REF = 110.7e6


def build(clock, up, cpu=None, tasks=1, minutes=1.0, **kw):
    return PrescientInstance.build(clock, up, tasks=tasks, task_minutes=minutes, cpu=cpu, **kw)


def run(name, inst, seed=0):
    return simulate(inst, HEURISTICS[name], np.random.default_rng(seed))


def trail(result):
    return [
        (a["task"], a["host"], pytest.approx(a["start"]), pytest.approx(a["end"]), a["outcome"], a["replica"])
        for a in result.attempts
    ]


def with_history(clock, up=None, cpu=None, tasks=1, minutes=1.0):
    up = up if up is not None else [[(0, 5000)]] * len(clock)
    return build(
        clock, up, cpu=cpu, tasks=tasks, minutes=minutes, start=1000.0, history=(0.0, 1000.0), horizon=5000.0
    )


def test_all_twelve_names():
    assert list(HEURISTICS) == [
        "FCFS",
        "PRI-CR",
        "PRI-CR-WAIT",
        "PRI-HISTORY",
        "EXCL-S1.5",
        "EXCL-S1",
        "EXCL-S.5",
        "EXCL-S.25",
        "EXCL-PRED",
        "EXCL-PRED-DUP",
        "EXCL-PRED-TO",
        "REP-PROB",
    ]
    assert all(policy.name == name for name, policy in HEURISTICS.items())


# --------------------------------------------------------------------------- Section 4
CLOCKS = [200.0, 1000.0, 1000.0, 1000.0, 3000.0]


def always_up(clock, tasks):
    return build(clock, [[(0, 10_000)]] * len(clock), tasks=tasks)


def test_pri_cr_takes_the_fastest_ready_host():
    result = run("PRI-CR", always_up(CLOCKS, 1))
    assert trail(result) == [(0, 4, 0, 30, "completed", False)]


def test_pri_cr_wait_waits_ten_minutes_and_the_wait_counts():
    inst = always_up([1500.0, 1500.0], 1)
    assert run("PRI-CR-WAIT", inst).makespan == pytest.approx(660.0)
    assert run("PRI-CR", inst).makespan == pytest.approx(60.0)


@pytest.mark.parametrize(("hosts", "start"), [(11, 0.0), (10, 600.0)])
def test_pri_cr_wait_stops_when_ready_hosts_outnumber_tasks_more_than_ten_to_one(hosts, start):
    result = run("PRI-CR-WAIT", always_up([1500.0] * hosts, 1))
    assert result.attempts[0]["start"] == pytest.approx(start)


def test_pri_cr_wait_stops_when_an_arrival_crosses_the_ratio():
    # 10 hosts up at 0, an eleventh (the fastest) at 200: 11 > 10 x 1, assign at 200 to it.
    inst = build([1500.0] * 10 + [3000.0], [[(0, 5000)]] * 10 + [[(200, 5000)]])
    assert trail(run("PRI-CR-WAIT", inst)) == [(0, 10, 200, 230, "completed", False)]


def volatile_history(period_up=90.0, gap=10.0):
    """Up intervals of ``period_up`` s separated by ``gap`` s over [0, 1000), then up from 1000."""
    iv, t = [], 0.0
    while t + period_up <= 1000.0 - gap:
        iv.append((t, t + period_up))
        t += period_up + gap
    return [*iv, (1000.0, 5000.0)]


def test_history_statistics_by_hand():
    # Host 0: ten 90-s intervals with 10-s gaps; host 1: up throughout (cut by the window's end).
    inst = with_history([1500.0, 1500.0], up=[volatile_history(), [(0, 5000)]])
    hist = History.of(inst, 60 * REF)
    # Random incidence for a 60-s task: it completes from the first 30 s of each 90-s interval.
    assert hist.p[0] == pytest.approx(1 / 3) and hist.p[1] == pytest.approx(1.0)
    assert hist.time_to_failure[0] == pytest.approx(30.0) and hist.time_to_failure[1] == 0.0
    assert hist.unavailability[0] == pytest.approx(10.0) and hist.unavailability[1] == 0.0
    assert hist.L[0] == pytest.approx(40.0)
    assert hist.ops_per_interval[0] == pytest.approx(90 * REF)
    assert hist.ops_per_interval[1] == pytest.approx(1000 * REF)
    assert hist.ops_per_second[0] == pytest.approx(REF)
    assert hist.r == pytest.approx((900 / 1000 + 1.0) / 2 * REF)


def test_pri_history_prefers_the_high_queue_then_the_faster_history():
    # 2-minute tasks: host 0 (1500 MHz) delivers 90 ref-s per interval < 120: low queue.
    # Hosts 1 and 2 (1000 MHz) are up throughout; host 2 got share 0.5 during the history.
    up = [volatile_history(), [(0, 5000)], [(0, 5000)]]
    cpu = [[(0, 1.0)], [(0, 1.0)], [(0, 0.5), (100, 1.0)]]
    one = with_history([1500.0, 1000.0, 1000.0], up=up, cpu=cpu, minutes=2.0)
    assert run("PRI-CR", one).attempts[0]["host"] == 0
    assert trail(run("PRI-HISTORY", one)) == [(0, 1, 1000, 1180, "completed", False)]
    two = with_history([1500.0, 1000.0, 1000.0], up=up, cpu=cpu, tasks=2, minutes=2.0)
    assert [(a["task"], a["host"]) for a in run("PRI-HISTORY", two).attempts] == [(0, 1), (1, 2)]


# --------------------------------------------------------------------------- Section 5.1
def test_excl_s_thresholds_by_hand():
    # mean 1240, population SD sqrt(870400) = 932.95.
    sd = math.sqrt(870400.0)
    for k in (1.5, 1.0, 0.5, 0.25):
        assert ExclS(k).threshold(np.array(CLOCKS)) == pytest.approx(1240.0 - k * sd)


@pytest.mark.parametrize(
    ("name", "makespan", "used"),
    [
        (
            "EXCL-S1.5",
            450.0,
            {0, 1, 2, 3, 4},
        ),  # threshold < 0: nothing excluded, the 200 MHz host takes 450 s
        ("EXCL-S1", 90.0, {1, 2, 3, 4}),  # 307 MHz: the 200 MHz host excluded
        ("EXCL-S.5", 90.0, {1, 2, 3, 4}),  # 774 MHz
        ("EXCL-S.25", 150.0, {4}),  # 1007 MHz: only the 3 GHz host, 5 x 30 s
        ("PRI-CR", 450.0, {0, 1, 2, 3, 4}),
    ],
)
def test_excl_s_on_five_tasks(name, makespan, used):
    result = run(name, always_up(CLOCKS, 5))
    assert result.makespan == pytest.approx(makespan)
    assert {a["host"] for a in result.attempts} == used


# --------------------------------------------------------------------------- Section 5.2
def two_speeds(tasks=1):
    # r = (2 + 1) / 2 ref ops/s, s = 60 ref-s: s / r = 40 s.
    return with_history([3000.0, 1500.0], tasks=tasks)


def test_prediction_at_submission_and_after_n_completions():
    inst = with_history([3000.0, 1500.0], tasks=5)
    platform = Platform.of(inst)
    empty = np.zeros(0, dtype=np.int64)

    def obs(completions, t):
        c = np.asarray(completions, dtype=float)
        return Observation(
            t=t,
            platform=platform,
            ready=empty,
            primary=empty,
            done=np.zeros(5, bool),
            original=np.full(5, -1),
            original_start=np.full(5, np.nan),
            replicas=np.zeros(5, np.int64),
            replicas_sent=np.zeros(5, np.int64),
            completions=c,
            live_task=empty,
            live_host=empty,
            live_start=np.zeros(0),
            memory={},
        )

    assert prediction(obs([], 1000.0)) == pytest.approx(1000 + 3 * 40)  # ceil(5/2) s / r
    assert prediction(obs([1010.0], 1015.0)) == pytest.approx(1000 + 3 * 40)  # fewer than N
    assert prediction(obs([1010.0, 1020.0], 1025.0)) == pytest.approx(1020 + 2 * 40)  # ceil(3/2)
    assert prediction(obs([1010.0, 1020.0, 1030.0, 1040.0], 1045.0)) == pytest.approx(1040 + 1 * 40)


def test_excl_pred_excludes_hosts_that_cannot_finish_by_the_prediction():
    # theta = 1040: the 1500 MHz host would finish at 1060; the 3 GHz one at 1030.
    assert trail(run("EXCL-PRED", two_speeds())) == [(0, 0, 1000, 1030, "completed", False)]


def test_excl_pred_reverts_to_pri_cr_at_theta_minus_095_task_times_on_a_mean_clock_host():
    # Mean clock 2250 MHz: a task takes 40 s there; revert at 1040 - 38 = 1002, when the
    # second task is still waiting: the excluded host takes it then.
    result = run("EXCL-PRED", two_speeds(tasks=2))
    assert trail(result) == [(0, 0, 1000, 1030, "completed", False), (1, 1, 1002, 1062, "completed", False)]


# --------------------------------------------------------------------------- Section 6
def test_excl_pred_dup_replicates_once_when_hosts_outnumber_tasks():
    # The replica waits for the revert (1002): before, the 1500 MHz host is excluded.
    result = run("EXCL-PRED-DUP", two_speeds())
    assert trail(result) == [(0, 0, 1000, 1030, "completed", False), (0, 1, 1002, 1030, "cancelled", True)]
    assert result.waste == pytest.approx(100.0)


def test_excl_pred_dup_one_replica_per_task():
    result = run("EXCL-PRED-DUP", with_history([3000.0] * 3))
    assert [a["replica"] for a in result.attempts] == [False, True]
    assert result.waste == pytest.approx(100.0)


# EXCL-PRED-TO: hosts A = 3 GHz, B = 1.5 GHz, C = 1.2 GHz, up throughout. r = 3.8/3 ref:
# theta = 1000 + 60 / (3.8/3) = 1047.37, the original's timeout; revert at theta - 45 (mean clock 1900).
THETA = 1000.0 + 60.0 / (3.8 / 3.0)
STUCK_A = [(0, 1.0), (101, 0.0), (200, 1.0)]  # A: share 0 on [1010, 2000): 20 ref-s done, 40 left at 2000


def to_instance(up=None, cpu_b=None, cpu_a=STUCK_A):
    return with_history([3000.0, 1500.0, 1200.0], up=up, cpu=[cpu_a, cpu_b or [(0, 1.0)], [(0, 1.0)]])


def test_excl_pred_to_replicates_an_original_at_its_timeout():
    result = run("EXCL-PRED-TO", to_instance())
    assert trail(result) == [
        (0, 0, 1000, THETA + 60, "cancelled", False),
        (0, 1, THETA, THETA + 60, "completed", True),
    ]
    assert result.makespan == pytest.approx(THETA + 60 - 1000)


def test_excl_pred_to_does_not_restart_a_failed_replica():
    # B goes down at 1100 under the replica: nothing more is done, C stays idle, A ends at 2020.
    up = [[(0, 5000)], [(0, 1100), (1110, 5000)], [(0, 5000)]]
    result = run("EXCL-PRED-TO", to_instance(up=up))
    assert trail(result) == [(0, 0, 1000, 2020, "completed", False), (0, 1, THETA, 1100, "failed", True)]
    assert result.waste == pytest.approx(100.0)


def test_excl_pred_to_times_out_originals_only():
    # The replica on B is stuck too (share 0 from 1050): it never times out; C stays idle.
    result = run("EXCL-PRED-TO", to_instance(cpu_b=[(0, 1.0), (105, 0.0), (300, 1.0)]))
    assert trail(result) == [(0, 0, 1000, 2020, "completed", False), (0, 1, THETA, 2020, "cancelled", True)]


def test_excl_pred_to_reissues_a_failed_original():
    # A fails at 1020 (detected at 1060) and is back, idle, at 1030. The timeout at theta sees the
    # original still running (as the server believes): its replica goes to the fastest ready host, A.
    # At 1060 the original is re-issued to B (PRI-CR since the revert); theta has passed, so it times
    # out at once and C gets a second replica. A's replica completes first; both others are cancelled.
    up = [[(0, 1020), (1030, 5000)], [(0, 5000)], [(0, 5000)]]
    result = run("EXCL-PRED-TO", to_instance(up=up, cpu_a=[(0, 1.0)]))
    assert trail(result) == [
        (0, 0, 1000, 1020, "failed", False),
        (0, 0, THETA, THETA + 30, "completed", True),
        (0, 1, 1060, THETA + 30, "cancelled", False),
        (0, 2, 1060, THETA + 30, "cancelled", True),
    ]
    assert result.waste == pytest.approx(200.0)


# REP-PROB: a volatile host has ten 90-s intervals with 10-s gaps in the history. At 3 GHz a task
# takes 30 s: p = 2/3, time to failure 15, L = 25; at 1.5 GHz: p = 1/3, L = 30 + 10 = 40.
# A host up throughout the history has p = 1, L = 0.


def test_rep_prob_prefers_the_likely_host_over_the_fast_one():
    # Host 0 (3 GHz) volatile, host 1 (1.5 GHz) stable; r = (1.8 + 1) / 2 = 1.4 ref, T = 3, N = 2:
    # D = 1000 + 2 x 60 / 1.4 = 1085.7. Host 0: A = floor((85.7 - 30) / 25) + 1 = 3, P = 1 - (1/3)^3;
    # host 1: P = 1. The first task goes to host 1, the next to host 0 (P = 0.96 > 0.8: no replica).
    inst = with_history([3000.0, 1500.0], up=[volatile_history(), [(0, 5000)]], tasks=3)
    result = run("REP-PROB", inst)
    assert trail(result) == [
        (0, 1, 1000, 1060, "completed", False),
        (1, 0, 1000, 1030, "completed", False),
        (2, 0, 1030, 1060, "completed", False),
    ]
    assert [a["host"] for a in run("PRI-CR", inst).attempts[:2]] == [0, 1]


def test_rep_prob_replicates_below_the_threshold():
    # Both volatile; r = (1.8 + 0.9) / 2 = 1.35 ref, D = 1000 + 60 / 1.35 = 1044.4. Host 0: A = 1,
    # P = 2/3 <= 0.8; host 1 cannot finish by D (X = 60): P = 0, yet the task stays below the
    # threshold, so host 1 gets a replica ("until there are no remaining hosts left").
    inst = with_history([3000.0, 1500.0], up=[volatile_history(), volatile_history()])
    result = run("REP-PROB", inst)
    assert trail(result) == [(0, 0, 1000, 1030, "completed", False), (0, 1, 1000, 1030, "cancelled", True)]
    assert result.waste == pytest.approx(100.0)


def test_rep_prob_success_probability_equation_1():
    inst = with_history([3000.0, 1500.0], up=[volatile_history(), [(0, 5000)]])
    obs_platform = Platform.of(inst)
    empty = np.zeros(0, dtype=np.int64)
    obs = Observation(
        t=1000.0,
        platform=obs_platform,
        ready=empty,
        primary=empty,
        done=np.zeros(1, bool),
        original=np.full(1, -1),
        original_start=np.full(1, np.nan),
        replicas=np.zeros(1, np.int64),
        replicas_sent=np.zeros(1, np.int64),
        completions=np.zeros(0),
        live_task=empty,
        live_host=empty,
        live_start=np.zeros(0),
        memory={},
    )
    rep = HEURISTICS["REP-PROB"]
    # D = 1200: host 0 has A = floor((200 - 30) / 25) + 1 = 7 attempts: 1 - (1/3)^7; host 1 any
    # number (L = 0): P = 1; started at 1180, host 0 cannot finish by D (X = 30): P = 0.
    got = rep.success(obs, np.array([0, 1, 0]), np.array([1000.0, 1000.0, 1180.0]), 1200.0)
    assert got == pytest.approx([1 - (1 / 3) ** 7, 1.0, 0.0])


@pytest.mark.parametrize("name", ["PRI-HISTORY", "EXCL-PRED", "EXCL-PRED-DUP", "EXCL-PRED-TO", "REP-PROB"])
def test_history_heuristics_refuse_an_instance_without_history(name):
    from volsched.instances.errors import InputError

    inst = always_up([1500.0, 1500.0], 1)
    with pytest.raises(InputError, match=r"data.history"):
        run(name, inst)


@pytest.mark.parametrize("suspension", [True, False])
def test_random_incidence_against_sampling(suspension):
    # History.p and time_to_failure are exact; sampling start instants uniformly over the up time
    # and asking the instance's WorkProfile whether the task completes in the same interval must
    # agree within the sampling error (Section 3.3: "we chose many thousands of random points").
    from oracles.prescient.heuristics import random_instance

    from volsched.instances.prescient import WorkProfile

    inst = random_instance(13, hosts=5, suspension=suspension, zero_share=0.2)
    s = 20 * 60 * REF
    hist = History.of(inst, s)
    window = inst.history_window()
    prof = WorkProfile(window)
    rng = np.random.default_rng(0)
    for h in range(inst.n_hosts):
        lo, hi = prof.iv_ptr[h], prof.iv_ptr[h + 1]
        a, b = prof.iv_start[lo:hi], prof.iv_end[lo:hi]
        if hi == lo:
            continue
        k = rng.choice(np.arange(lo, hi), size=20_000, p=(b - a) / (b - a).sum())
        u = rng.uniform(prof.iv_start[k], prof.iv_end[k])
        _, _, chosen = prof.earliest_completion(np.full(u.shape, h), u, np.full(u.shape, s))
        ok = chosen == k
        censored = prof.iv_end[k] >= window.t1
        keep = ok | ~censored
        p_hat = ok[keep].mean()
        assert hist.p[h] == pytest.approx(p_hat, abs=4 * np.sqrt(p_hat * (1 - p_hat) / keep.sum()) + 1e-9)
        fail = ~ok & ~censored
        if fail.sum() > 200:
            ttf = prof.iv_end[k][fail] - u[fail]
            error = 4 * ttf.std() / np.sqrt(fail.sum())
            assert hist.time_to_failure[h] == pytest.approx(ttf.mean(), abs=error)
