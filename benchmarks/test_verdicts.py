"""The verdict rule of ``benchmarks/verdicts.py`` on synthetic paired data with known answers."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

# pytest runs with --import-mode=importlib, so benchmarks/ is not on sys.path: load the script by path
_spec = importlib.util.spec_from_file_location("verdicts", Path(__file__).with_name("verdicts.py"))
_verdicts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_verdicts)
combine, paired_outcome, verdict = _verdicts.combine, _verdicts.paired_outcome, _verdicts.verdict


def _base(n=40, seed=0):
    return np.random.default_rng(seed).uniform(100.0, 200.0, n)


def _noise(n=40, seed=1, sd=0.002):
    return np.random.default_rng(seed).normal(0.0, sd, n)


def test_clear_effect_is_reproduced():
    y = _base()
    x = y * (1.10 + _noise())  # x about 10 % above y on every seed
    v = verdict(x, y, "ahead")
    assert v["verdict"] == "reproduced"
    assert v["outcome"] == "forward" and v["p"] < 1e-6 and v["effect"] == pytest.approx(0.10, abs=0.005)


def test_identical_values_are_a_tie_without_a_test():
    y = _base()
    v = verdict(y.copy(), y, "ahead")
    assert v["verdict"] == "not reproduced (tie)"
    assert v["p"] is None and v["nonzero"] == 0 and v["effect"] == 0.0


def test_opposite_effect_is_reversed():
    y = _base()
    x = y * (0.90 + _noise())
    assert verdict(x, y, "ahead")["verdict"] == "not reproduced (reversed)"


def test_significant_but_below_the_minimum_effect_is_a_tie():
    y = _base(200)
    x = y * (1.004 + _noise(200, sd=0.001))  # 0.4 %: every seed agrees, but under 1 %
    out = paired_outcome(x, y)
    assert out["p"] < 1e-6
    assert out["outcome"] == "tie"


def test_mostly_equal_pairs_with_a_minority_effect_is_a_tie():
    # one third of the seeds 5 % apart, the rest identical: the median pair shows no difference
    y = _base(90)
    x = y.copy()
    x[:30] *= 1.05
    assert paired_outcome(x, y)["outcome"] == "tie"


def test_large_effect_on_too_few_seeds_is_undecided():
    y = _base(4)
    x = y * np.array([1.5, 0.8, 1.6, 1.4])  # n = 4: no two-sided Wilcoxon p can be under 0.05
    v = verdict(x, y, "ahead")
    assert v["p"] >= 0.05 and v["verdict"] == "undecided (within noise)"


def test_kinds():
    y = _base()
    ahead, same = y * (1.10 + _noise()), y.copy()
    assert verdict(same, y, "not-ahead")["verdict"] == "reproduced (tie)"
    assert verdict(ahead, y, "not-ahead")["verdict"] == "reproduced"
    assert verdict(y, ahead, "not-ahead")["verdict"] == "not reproduced (reversed)"
    assert verdict(same, y, "same")["verdict"] == "reproduced"
    assert verdict(ahead, y, "same")["verdict"] == "not reproduced (differs)"


def test_scale_for_quantities_that_can_be_zero():
    y = np.zeros(40)  # waste of a heuristic that never replicates, in % of the tasks
    x = 30.0 + _noise(sd=1.0)
    with pytest.raises(ValueError):
        paired_outcome(x, y)
    out = paired_outcome(x, y, scale=100.0)
    assert out["outcome"] == "forward" and out["effect"] == pytest.approx(0.30, abs=0.01)


def test_combined_claim_fails_on_its_weakest_part():
    y = _base()
    good = verdict(y * (1.10 + _noise()), y, "ahead")
    rev = verdict(y * (0.90 + _noise()), y, "ahead")
    assert combine([good, good])["verdict"] == "reproduced"
    assert combine([good, rev, good])["verdict"] == "not reproduced (reversed)"
