"""The exact-fill schedule of :func:`volsched.solvers.slack.pack.pack` (``beta = 0``).

Every schedule goes through the independent verifier (:mod:`volsched.solvers.slack.verify`) and is
compared with the brute-force optimum (:func:`oracles.slack.brute.brute_force`) on small instances,
and with the exact-fill bound on paper-like ones, where brute force cannot go.
"""

import numpy as np
import pytest
from oracles.slack.brute import brute_force, medium_instance, small_instance, tight_instance

from volsched.instances.slack.generators import generate_paper
from volsched.solvers.slack.bound import fill_bound, lower_bound
from volsched.solvers.slack.pack import pack
from volsched.solvers.slack.problems import greedy, makespan_of, schedule_of
from volsched.solvers.slack.verify import verify_slack


def verified(inst, contents) -> int:
    solution = {"problem": "slack", "beta": inst.beta, "schedule": schedule_of(inst, contents)}
    return verify_slack(inst, solution)


def instances():
    for seed in range(30):
        rng = np.random.default_rng(seed)
        yield f"small{seed}", small_instance(rng).with_beta(0.0)
        yield f"tight{seed}", tight_instance(rng).with_beta(0.0)
        yield f"medium{seed}", medium_instance(rng).with_beta(0.0)


@pytest.mark.parametrize(("name", "inst"), list(instances()))
def test_packed_schedules_are_verified_and_never_beat_the_optimum(name, inst):
    opt = brute_force(inst, "slack", 0.0)[0]
    for target in (opt - 1, opt, opt + 2, 2 * opt):
        contents, makespan, _ = pack(inst, target)
        assert verified(inst, contents) == makespan >= opt, (name, target)


def test_pack_is_for_beta_0_and_stops_on_its_steps():
    inst = generate_paper(40, 400, 3, beta=0.5)
    assert pack(inst, 10**9)[0] is None
    inst = inst.with_beta(0.0)
    lo = lower_bound(inst, "slack", beta=inst.beta_ratio)
    assert pack(inst, lo, max_steps=5)[0] is None
    assert pack(inst, lo)[0] is not None


@pytest.mark.parametrize("seed", range(3))
def test_pack_meets_the_fill_bound_on_paper_instances(seed):
    """Within 0.01 % of the exact-fill bound (the greedy is 0.3-0.8 % above it), and verified."""
    inst = generate_paper(60, 600, seed, beta=0.0)
    hi = makespan_of(inst, greedy(inst, "slack"))
    bound = fill_bound(inst, lower_bound(inst, "slack", beta=inst.beta_ratio), hi).bound
    contents, makespan, _ = pack(inst, bound)
    assert verified(inst, contents) == makespan
    assert bound <= makespan <= bound * 1.0001, (bound, makespan, hi)


def test_the_slack_search_packs_at_beta_0_and_falls_back_when_it_runs_out_of_steps():
    """At 40 x 400, beta = 0: the exact-fill bound and pack meet (a proof in 0.05 work units); with
    0.02 units pack stops, the leader heuristic runs instead and the solve ends unproven."""
    from volsched.solvers.slack import solve

    inst = generate_paper(40, 400, 3, beta=0.0)
    done = solve(inst, method="cpsat", problem="slack", budget=10)
    assert done.status.value == "optimal"
    assert done.info["pack_makespan"] == done.info["fill_bound"] == done.objective
    assert "primal_makespan" not in done.info  # the leader heuristic was not needed
    short = solve(inst, method="cpsat", problem="slack", budget=0.02)
    assert short.status.value == "feasible" and short.info["pack_makespan"] is None
    assert short.info["primal_makespan"] is not None and short.bound == done.objective
    assert short.stopped == "budget"
