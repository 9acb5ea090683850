"""Section 3.4's lagger analysis: the threshold, the failure cause and the slow-host cause.

The expected counts are worked out by hand from the paper's definitions
(quartiles of the first completions, threshold Q3 + 1 x IQR; a failure after
Q3; a completing host strictly slower than the optimum's slowest), and the
property test recomputes them with the standard library's quantiles.
"""

import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volsched.heuristics.prescient import lagger_causes, laggers


def completed(task, host, end):
    return {"task": task, "host": host, "start": 0.0, "end": float(end), "outcome": "completed"}


def failed(task, host, end):
    return {"task": task, "host": host, "start": 0.0, "end": float(end), "outcome": "failed"}


def test_laggers_iqr_factor_one():
    # Q1 = 2, Q3 = 4 (numpy's linear quantiles), threshold 4 + 2 = 6.
    assert laggers([1.0, 2.0, 3.0, 4.0, 100.0]) == 1
    assert laggers([1.0, 2.0, 3.0, 4.0, 6.0]) == 0
    assert laggers([]) == 0


# Five tasks completing at 1..4 and 100 s after the submission at t0 = 1000: Q3 = 4, threshold 6,
# task 4 lags. Host clocks: host 0 fast, host 1 slow.
CLOCKS = [2000.0, 500.0]


def run_with(last_host, failure_at=None, failure_task=4):
    attempts = [completed(t, 0, 1000 + t + 1) for t in range(4)]
    attempts.append(completed(4, last_host, 1100))
    if failure_at is not None:
        attempts.append(failed(failure_task, 0, 1000 + failure_at))
    return attempts


def test_a_lagger_on_a_host_slower_than_the_optimums_slowest_is_slow_host_caused():
    got = lagger_causes(run_with(last_host=1), CLOCKS, 1000.0, slow_below=800.0)
    assert got == {"laggers": 1, "laggers_failure": 0, "laggers_slow_host": 1, "laggers_explained": 1}


def test_the_slow_host_test_is_strict():
    got = lagger_causes(run_with(last_host=1), CLOCKS, 1000.0, slow_below=500.0)
    assert got["laggers_slow_host"] == 0 and got["laggers_explained"] == 0


def test_a_failure_after_q3_is_a_cause_and_one_before_it_is_not():
    late = lagger_causes(run_with(last_host=0, failure_at=50), CLOCKS, 1000.0, slow_below=800.0)
    assert late == {"laggers": 1, "laggers_failure": 1, "laggers_slow_host": 0, "laggers_explained": 1}
    early = lagger_causes(run_with(last_host=0, failure_at=3), CLOCKS, 1000.0, slow_below=800.0)
    assert early["laggers_failure"] == 0 and early["laggers_explained"] == 0


def test_a_failure_of_another_task_does_not_explain_the_lagger():
    got = lagger_causes(run_with(last_host=0, failure_at=50, failure_task=3), CLOCKS, 1000.0, 800.0)
    assert got["laggers_failure"] == 0


def test_both_causes_count_once_in_explained():
    got = lagger_causes(run_with(last_host=1, failure_at=50), CLOCKS, 1000.0, slow_below=800.0)
    assert got == {"laggers": 1, "laggers_failure": 1, "laggers_slow_host": 1, "laggers_explained": 1}


def test_without_the_optimums_threshold_the_slow_host_cause_is_not_classified():
    got = lagger_causes(run_with(last_host=1), CLOCKS, 1000.0)
    assert got["laggers_slow_host"] is None and got["laggers_explained"] is None


def test_a_tasks_completion_is_its_first_completed_execution():
    # A replica completing later (then cancelled elsewhere) does not move task 4's completion.
    attempts = [*run_with(last_host=0), completed(4, 1, 1003.5)]
    assert lagger_causes(attempts, CLOCKS, 1000.0, 800.0)["laggers"] == 0


def test_cancelled_executions_are_ignored():
    cancelled = {"task": 4, "host": 1, "start": 0.0, "end": 1090.0, "outcome": "cancelled"}
    attempts = [*run_with(last_host=0), cancelled]
    assert lagger_causes(attempts, CLOCKS, 1000.0, 800.0)["laggers_failure"] == 0


def test_no_completion_no_lagger():
    got = lagger_causes([failed(0, 0, 5.0)], CLOCKS, 0.0, 800.0)
    assert got == {"laggers": 0, "laggers_failure": 0, "laggers_slow_host": 0, "laggers_explained": 0}


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.floats(0, 1e4, allow_nan=False),
            st.lists(st.floats(0, 1e4, allow_nan=False), max_size=2),
        ),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from([100.0, 250.0, 400.0, 900.0]),
)
def test_counts_agree_with_a_standard_library_recount(tasks, slow_below):
    clocks = [100.0, 300.0, 500.0, 1000.0]
    attempts = []
    for task, (host, end, fails) in enumerate(tasks):
        attempts.append(completed(task, host, end))
        attempts.extend(failed(task, (host + 1) % 4, f) for f in fails)
    got = lagger_causes(attempts, clocks, 0.0, slow_below)
    ends = [end for _, end, _ in tasks]
    if len(ends) == 1:
        q1 = q3 = ends[0]
    else:
        q1, _, q3 = statistics.quantiles(ends, n=4, method="inclusive")  # numpy's linear quantiles
    lag = [i for i, e in enumerate(ends) if e > q3 + (q3 - q1) * (1 + 1e-12) + 1e-9]
    maybe = [i for i, e in enumerate(ends) if e > q3 + (q3 - q1) - 1e-9]
    assert len(lag) <= got["laggers"] <= len(maybe)
    if len(lag) == len(maybe):
        fail = {i for i in lag if any(f > q3 for f in tasks[i][2])}
        slow = {i for i in lag if clocks[tasks[i][0]] < slow_below}
        assert got["laggers_failure"] == len(fail)
        assert got["laggers_slow_host"] == len(slow)
        assert got["laggers_explained"] == len(fail | slow)
    assert got["laggers_explained"] <= got["laggers"]


def test_the_simulators_counts_are_the_analysis_of_its_own_schedule():
    from oracles.prescient.heuristics import random_instance

    from volsched.heuristics.prescient import HEURISTICS, simulate

    seen = 0
    for seed in range(12):
        inst = random_instance(seed, tasks=30, hosts=8)
        run = simulate(inst, HEURISTICS["FCFS"], np.random.default_rng(seed))
        got = lagger_causes(run.attempts, inst.clock_mhz, float(inst.start))
        assert (run.laggers, run.laggers_failure) == (got["laggers"], got["laggers_failure"])
        assert run.laggers == laggers(run.completions - float(inst.start))
        seen += run.laggers
    assert seen > 0


@pytest.mark.parametrize("factor", [0.5, 1.0, 1.5])
def test_a_larger_iqr_factor_never_finds_more_laggers(factor):
    rng = np.random.default_rng(1)
    c = rng.lognormal(0, 1, 200)
    assert laggers(c, factor) >= laggers(c, factor + 0.5)
