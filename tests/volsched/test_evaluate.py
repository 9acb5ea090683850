"""evaluate() scores with volsched.ratios: a proof beaten is a bug, an unproven optimum an interval."""

import pytest

import volsched.families
from volsched.evaluate import OptimumBeaten, evaluate
from volsched.families import FAMILIES
from volsched.instances import checkpoint as checkpoint_model
from volsched.solvers import SolveResult, SolveStatus

CHECKPOINT = FAMILIES["checkpoint"]


@pytest.fixture(scope="module")
def instance():
    return checkpoint_model.generate(8, 5)


@pytest.fixture(scope="module")
def values(instance):
    """Each heuristic's verified expected waste on ``instance`` (the simulators, not evaluate)."""
    return {name: CHECKPOINT.simulate(instance, name, 0)["objective"] for name in CHECKPOINT.heuristics}


def _solver(status: SolveStatus, incumbent: float | None, bound: float | None):
    def solve(self, instance, problem=None, method=None, time_limit=None, seed=None, **limits):
        return SolveResult(
            family="checkpoint",
            instance=instance.name,
            method="fake",
            status=status,
            objective=incumbent,
            bound=bound,
            runtime_s=0.0,
            solution={},
            verified=incumbent is not None,
        )

    return solve


def test_a_proven_optimum_gives_each_heuristic_its_value_over_it(instance, values):
    report = evaluate(CHECKPOINT, instance)
    optimum = report["optimum"]
    for name, p in report["policies"].items():
        assert p["value"] == values[name]
        assert (
            p["ratio"] == p["ratio_lo"] == p["ratio_hi"] == pytest.approx(values[name] / optimum, rel=1e-12)
        )
        assert p["ratio"] >= 1.0


def test_beating_a_proven_optimum_raises(monkeypatch, instance, values):
    best = min(values.values())
    monkeypatch.setattr(
        volsched.families.Family, "solve", _solver(SolveStatus.OPTIMAL, best * 1.01, best * 1.01)
    )
    with pytest.raises(OptimumBeaten, match="beats the proven optimum"):
        evaluate(CHECKPOINT, instance)


def test_a_tie_within_rounding_reads_as_one(monkeypatch, instance, values):
    name = min(values, key=values.get)
    tie = values[name] * (1 + 1e-12)  # the proof a hair above the best run: rounding, not a bug
    monkeypatch.setattr(volsched.families.Family, "solve", _solver(SolveStatus.OPTIMAL, tie, tie))
    assert evaluate(CHECKPOINT, instance)["policies"][name]["ratio"] == 1.0


def test_an_unproven_optimum_is_an_interval_to_the_best_known_value(monkeypatch, instance, values):
    """An incumbent worse than every run: the lower end is over the best run, never below 1."""
    best = min(values.values())
    incumbent, bound = 10 * max(values.values()), best / 2
    monkeypatch.setattr(volsched.families.Family, "solve", _solver(SolveStatus.FEASIBLE, incumbent, bound))
    report = evaluate(CHECKPOINT, instance)
    assert report["optimum"] is None and report["best_known"] == best
    for name, p in report["policies"].items():
        assert p["ratio"] is None
        assert p["ratio_lo"] == pytest.approx(values[name] / best, rel=1e-12) and p["ratio_lo"] >= 1.0
        assert p["ratio_hi"] == pytest.approx(values[name] / bound, rel=1e-12)
    assert min(p["ratio_lo"] for p in report["policies"].values()) == 1.0


def test_without_an_incumbent_the_runs_are_the_best_known_value(monkeypatch, instance, values):
    monkeypatch.setattr(volsched.families.Family, "solve", _solver(SolveStatus.UNKNOWN, None, None))
    report = evaluate(CHECKPOINT, instance)
    best = min(values.values())
    for name, p in report["policies"].items():
        assert p["ratio_lo"] == pytest.approx(values[name] / best, rel=1e-12)
        assert p["ratio_hi"] is None
