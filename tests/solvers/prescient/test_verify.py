"""The prescient verifier: heuristic-like runs (failures, replicas, cancellations) and every rejection."""

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.prescient.optimum import random_instance, random_run

from volsched.instances.prescient import PrescientInstance
from volsched.solvers import Infeasible
from volsched.solvers.prescient.verify import TIME_TOL, verify_solution

# Host 0: reference speed, up [0, 1000), share 0 over [100, 200). Host 1: 3 GHz, up [0, 500) and [600, 2000).
INST = PrescientInstance.build(
    [1500.0, 3000.0],
    [[(0, 1000)], [(0, 500), (600, 2000)]],
    cpu=[[(0, 1.0), (10, 0.0), (20, 1.0)], [(0, 1.0)]],
    tasks=2,
    task_minutes=5.0,
)


def run():
    return {
        "attempts": [
            {"task": 0, "host": 0, "start": 0.0, "end": 400.0, "outcome": "completed"},
            {"task": 1, "host": 1, "start": 400.0, "end": 500.0, "outcome": "failed"},
            {"task": 1, "host": 1, "start": 600.0, "end": 750.0, "outcome": "completed", "replica": False},
            {"task": 1, "host": 0, "start": 400.0, "end": 450.0, "outcome": "cancelled"},
        ]
    }


def test_accepts_a_run_with_failure_replica_and_cancellation():
    assert verify_solution(INST, run()) == 750.0
    claimed = {**run(), "makespan": 750.0}
    assert verify_solution(INST, claimed) == 750.0


def _broken(change):
    sol = run()
    change(sol)
    return sol


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda s: s["attempts"][2].update(end=751.0), "attempts[2].end"),
        (lambda s: s["attempts"][2].update(start=550.0, end=700.0), "attempts[2].start"),  # host 1 is down
        (lambda s: s["attempts"][1].update(outcome="completed", end=550.0), "attempts[1].outcome"),
        (lambda s: s["attempts"][1].update(end=490.0), "attempts[1].end"),
        (lambda s: s["attempts"][0].update(outcome="failed", end=1000.0), "attempts[0].outcome"),
        (lambda s: s["attempts"][3].update(end=900.0), "attempts[3].end"),
        (
            lambda s: s["attempts"][3].update(start=300.0, end=350.0),
            "attempts[3].start",
        ),  # host 0 busy to 400
        (lambda s: s["attempts"].pop(0), "task 0"),
        (
            lambda s: s["attempts"].append(
                {"task": 0, "host": 1, "start": 750.0, "end": 900.0, "outcome": "completed"}
            ),
            "attempts[4].start",
        ),  # after task 0 completed
        (lambda s: s.update(makespan=700.0), "solution.makespan"),
        (lambda s: s["attempts"][0].update(outcome="done"), "attempts[0].outcome"),
        (lambda s: s["attempts"][0].update(host=2), "attempts[0].host"),
        (lambda s: s["attempts"][0].update(task=True), "attempts[0].task"),
        (lambda s: s["attempts"][0].update(start=float("nan")), "attempts[0].start"),
        (lambda s: s["attempts"][0].update(end=-1.0), "attempts[0].end"),
        (lambda s: s["attempts"][0].pop("outcome"), "attempts[0].outcome"),
        (lambda s: s.pop("attempts"), "solution.attempts"),
    ],
)
def test_rejections_name_the_field(change, field):
    with pytest.raises(Infeasible, match=rf"^{__import__('re').escape(field)}"):
        verify_solution(INST, _broken(change))


def test_start_before_submission_is_rejected():
    inst = INST.replace(start=100.0)
    with pytest.raises(Infeasible, match=r"attempts\[0\]\.start"):
        verify_solution(inst, run())


def test_no_suspension_zero_share_is_a_failure():
    inst = INST.replace(suspension=False)
    sol = {
        "attempts": [
            {"task": 0, "host": 0, "start": 0.0, "end": 100.0, "outcome": "failed"},
            {"task": 0, "host": 0, "start": 200.0, "end": 500.0, "outcome": "completed"},
            {"task": 1, "host": 1, "start": 0.0, "end": 150.0, "outcome": "completed"},
        ]
    }
    assert verify_solution(inst, sol) == 500.0
    sol["attempts"][1]["start"] = 150.0  # inside the zero-share run: unavailable
    with pytest.raises(Infeasible, match=r"attempts\[1\]\.start"):
        verify_solution(inst, sol)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), suspension=st.booleans(), identical=st.booleans())
def test_random_runs_verify_and_a_shifted_end_does_not(seed, suspension, identical):
    rng = np.random.default_rng(seed)
    inst = random_instance(
        rng,
        hosts=int(rng.integers(1, 4)),
        tasks=int(rng.integers(1, 6)),
        identical=identical,
        suspension=suspension,
    )
    sol = random_run(inst, rng)
    if sol is None:
        return
    first = {}
    for a in sol["attempts"]:
        if a["outcome"] == "completed":
            first[a["task"]] = min(first.get(a["task"], np.inf), a["end"])
    expected = max(first.values()) - inst.start
    assert verify_solution(inst, sol) == pytest.approx(expected, abs=TIME_TOL)
    bad = copy.deepcopy(sol)
    i = int(rng.integers(len(bad["attempts"])))
    bad["attempts"][i]["end"] += 1.0 if bad["attempts"][i]["outcome"] != "cancelled" else 1e4
    with pytest.raises(Infeasible):
        verify_solution(inst, bad)
