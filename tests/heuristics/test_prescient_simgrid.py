"""SimGrid 3.32 replays the heuristics' runs: every attempt's end and outcome are volsched's.

The schedules are the simulator's own (failures detected at the heartbeat,
restarts, replicas, cancellations), exported with every (re)start and
cancellation instant fixed (:func:`volsched.solvers.prescient.simgrid.export_simgrid`)
and replayed by ``tests/oracles/prescient/simgrid_replay.py`` in a subprocess. Skipped, with the
reason shown, when SimGrid's Python bindings are absent.
"""

import numpy as np
import pytest
from oracles.prescient.heuristics import random_instance
from oracles.prescient.simgrid_oracle import MARKS, replay

from volsched.heuristics.prescient import HEURISTICS, simulate

pytestmark = MARKS


@pytest.mark.parametrize("name", ["FCFS", "EXCL-S.5", "EXCL-PRED-DUP", "EXCL-PRED-TO", "REP-PROB"])
@pytest.mark.parametrize("suspension", [True, False])
def test_simgrid_replays_a_heuristic_run(name, suspension, tmp_path):
    inst = random_instance(21, hosts=6, tasks=12, minutes=4.0, suspension=suspension, zero_share=0.3)
    run = simulate(inst, HEURISTICS[name], np.random.default_rng(3))
    assert run.makespan is not None
    schedule = {"attempts": run.attempts, "makespan": run.makespan}
    outcomes = {a["outcome"] for a in run.attempts}
    assert "failed" in outcomes  # the instance was drawn so that every run meets failures
    assert ("cancelled" in outcomes) == HEURISTICS[name].replicates
    events = replay(inst, schedule, tmp_path)
    t0 = inst.start
    seen = {(e["host"], e["task"], round(e["start"], 5)): e for e in events}
    assert len(events) == len(run.attempts)
    for a in run.attempts:
        e = seen[(f"h{a['host']}", a["task"], round(a["start"] - t0, 5))]
        assert e["outcome"] == a["outcome"], (a, e)
        assert abs(e["end"] - (a["end"] - t0)) <= 1e-6 * max(1.0, abs(a["end"] - t0)), (a, e)
