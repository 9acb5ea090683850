"""OFF-LINE-COUPLED (mu = infinity): earliest completion of one iteration, against enumeration."""

import itertools
import math

import numpy as np
import pytest

from volsched.cli import main
from volsched.instances.coupled import DOWN, UP, CoupledInstance, generate_planted
from volsched.instances.errors import InputError
from volsched.solvers import Infeasible, SolveStatus
from volsched.solvers.coupled import solve, verify_offline_inf


def instance(up, m, w):
    up = np.asarray(up, dtype=bool)
    return CoupledInstance(
        availability=np.where(up, UP, DOWN).astype(np.int8), w=[w] * up.shape[0], mu=[None] * up.shape[0], m=m
    )


def earliest(up, m, w):
    """The definition of Section IV, enumerated: min over k and k-sets of the slot of the
    ceil(m/k) w-th common UP slot, plus one."""
    best = None
    for k in range(1, min(m, up.shape[0]) + 1):
        need = math.ceil(m / k) * w
        for subset in itertools.combinations(range(up.shape[0]), k):
            common = np.flatnonzero(up[list(subset)].all(axis=0))
            if len(common) >= need:
                best = min(best or math.inf, int(common[need - 1]) + 1)
    return best


@pytest.mark.problem("coupled", "offline-coupled-inf")
def test_hand_built(method):
    # Two processors UP together in slots 1-4: m = 4, w = 1 fits on 2 processors x 2 tasks by slot 3
    # (end of slot 2), or on 4 processors only at slot 6 where all four are UP.
    up = [[0, 1, 1, 1, 1, 0, 1], [0, 1, 1, 1, 1, 0, 1], [1, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 1]]
    result = solve(instance(up, 4, 1), problem="offline-coupled-inf", method=method)
    assert result.status is SolveStatus.OPTIMAL and result.objective == 3
    assert result.solution["processors"] == [0, 1] and result.solution["tasks_per_processor"] == 2


@pytest.mark.problem("coupled", "offline-coupled-inf")
def test_no_iteration_fits_is_infeasible(method):
    result = solve(instance([[1, 0], [0, 1]], 2, 2), problem="offline-coupled-inf", method=method)
    assert result.status is SolveStatus.INFEASIBLE and result.objective is None


@pytest.mark.parametrize("seed", range(40))
def test_bnb_matches_enumeration(seed):
    rng = np.random.default_rng(seed)
    p, horizon = int(rng.integers(1, 7)), int(rng.integers(1, 30))
    up = rng.random((p, horizon)) < rng.uniform(0.3, 0.95)
    m, w = int(rng.integers(1, 8)), int(rng.integers(1, 4))
    expected = earliest(up, m, w)
    for method in ("bnb", "brute"):
        result = solve(instance(up, m, w), problem="offline-coupled-inf", method=method)
        if expected is None:
            assert result.status is SolveStatus.INFEASIBLE
        else:
            assert result.status is SolveStatus.OPTIMAL and result.verified
            assert result.objective == result.bound == expected


def test_verifier_recounts_and_rejects():
    inst = instance([[1, 1, 0, 1], [1, 0, 1, 1]], 2, 1)
    assert verify_offline_inf(inst, [0]) == 2  # two tasks on processor 0: its second UP slot is slot 1
    assert verify_offline_inf(inst, [0, 1]) == 1
    with pytest.raises(Infeasible):
        verify_offline_inf(inst, [0, 1], claimed=4)
    with pytest.raises(Infeasible, match="processors"):
        verify_offline_inf(instance([[1, 0], [0, 1]], 2, 2), [0, 1])


def test_other_methods_and_mixed_w_are_bad_input():
    inst = instance([[1, 1], [1, 1]], 2, 1)
    with pytest.raises(InputError, match="method"):
        solve(inst, problem="offline-coupled-inf", method="cpsat")
    mixed = CoupledInstance(availability=np.zeros((2, 3), dtype=np.int8), w=[1, 2], mu=[None, None], m=2)
    with pytest.raises(InputError, match="identical w"):
        solve(mixed, problem="offline-coupled-inf", method="bnb")


def test_cli(capsys, tmp_path):
    path = tmp_path / "c.json"
    assert (
        main(
            [
                "generate",
                "coupled",
                "--preset",
                "markov",
                "--processors",
                "8",
                "--slots",
                "60",
                "--tasks",
                "4",
                "--seed",
                "3",
                "--out",
                str(path),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["solve", str(path), "--problem", "offline-coupled-inf", "--method", "bnb", "--json"]) == 0
    import json

    result = json.loads(capsys.readouterr().out)
    inst = CoupledInstance.from_json(json.loads(path.read_text()))
    assert result["objective"] == earliest(inst.up, inst.m, int(inst.w[0]))


@pytest.mark.parametrize("seed", range(12))
def test_a_time_limited_bnb_reports_the_completion_of_the_processors_it_chose(seed):
    """Under a tiny limit bnb used to report the horizon it searched, not its processors' completion."""
    inst = generate_planted(40, 300, 8, 12, 0.6, seed)
    inst = CoupledInstance(availability=inst.availability, w=[3] * 40, mu=[None] * 40, m=8)
    result = solve(inst, problem="offline-coupled-inf", method="bnb", time_limit=0.02)
    if result.objective is not None:
        assert result.objective == verify_offline_inf(inst, result.solution["processors"])
        assert result.bound is None or result.bound <= result.objective
        assert result.solution["completion_slots"] == result.objective
