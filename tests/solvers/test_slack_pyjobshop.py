"""The plain problem against a peer solver: PyJobShop's proven optimum equals ours (an oracle).

PyJobShop models machines with ``breaks`` (the unavailability periods
``[s_i^k, e_i^k)``; a machine is available for ever after its last one, as in
:mod:`volsched.instances.slack`) and tasks with ``allow_breaks=False``, so a
task never spans an unavailability; one mode per machine. Its model is written
by others and solved by its own CP-SAT formulation, so agreement checks our
plain model, not a copy of it.
"""

import numpy as np
import pytest
from oracles.registry import SAFETY_NET_S, TEST_BUDGETS, limits, registered_methods
from oracles.slack.exact import random_instance

from volsched.solvers import SolveStatus
from volsched.solvers.slack import solve

pyjobshop = pytest.importorskip(
    "pyjobshop", reason="PyJobShop is not installed (pip install -e '.[test]' brings it)"
)


def pyjobshop_optimum(instance) -> tuple[str, float]:
    model = pyjobshop.Model()
    machines = [
        model.add_machine(breaks=[(int(s), int(e)) for s, e in rows] or None) for rows in instance.machines
    ]
    for p in instance.p:
        task = model.add_task(allow_breaks=False)
        for machine in machines:
            model.add_mode(task, machine, int(p))
    model.set_objective(weight_makespan=1)
    # One worker and a deterministic-time budget (the test budget of a CP-SAT method): the same
    # search on every machine; the time limit is the safety net only.
    result = model.solve(
        display=False, time_limit=SAFETY_NET_S, num_workers=1, max_deterministic_time=TEST_BUDGETS["cpsat"]
    )
    return result.status, result.objective


@pytest.mark.parametrize("method", registered_methods("slack", "plain"))
def test_plain_optimum_equals_pyjobshop(method):
    for seed in range(12):
        inst = random_instance(
            np.random.default_rng(3000 + seed), n_max=7, machines_max=3, intervals_max=3, p_max=9, a_max=16
        )
        status, theirs = pyjobshop_optimum(inst)
        assert status == pyjobshop.SolveStatus.OPTIMAL, (seed, status)
        ours = solve(inst, method=method, problem="plain", **limits("slack", "plain", method))
        assert ours.status == SolveStatus.OPTIMAL
        assert ours.objective == theirs, (seed, inst.to_json())
