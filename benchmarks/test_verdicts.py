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


def _coupled_rows(m=5, n=40):
    """Synthetic casanova2013 runs: each heuristic a fixed multiple of IE, a little noise, one cap."""
    factor = {"IE": 1.0, "Y-IE": 0.9, "P-IE": 0.9, "E-IAY": 0.95, "E-IY": 0.97, "RANDOM": 25.0, "E-IE": 1.6}
    for c in ("", "P-", "E-", "Y-"):
        factor.setdefault(f"{c}IP", 1.3)
        factor.setdefault(f"{c}IY", 1.2)
        factor.setdefault(f"{c}IAY", 1.1)
    base, noise = _base(n), _noise(n, sd=0.001)
    rows = []
    for i in range(n):
        params = {"preset": "paper-realization", "tasks": m, "w_min": 1, "scenario": 0, "trial": i}
        for name, f in factor.items():
            failed = name == "RANDOM" and i == 0
            rows.append(
                {
                    "family": "coupled",
                    "kind": "heuristic",
                    "params": params,
                    "instance_key": f"r{i}",
                    "method": name,
                    "status": "capped" if failed else "ok",
                    "objective": None if failed else base[i] * f * (1 + (noise[i] if name != "IE" else 0)),
                }
            )
    return rows


def test_coupled_claims_read_paired_realizations_where_both_finished():
    claims = {c["claim"]: c for c in _verdicts.coupled_claims(_coupled_rows())}
    assert claims["m = 5: RANDOM behind IE"]["verdict"] == "reproduced"
    assert claims["m = 5: RANDOM behind IE"]["n"] == 39  # RANDOM's capped run is left out
    assert claims["m = 5: RANDOM over 20 x IE"]["verdict"] == "reproduced"
    assert claims["m = 5: the heuristics ahead of IE"]["verdict"] == "reproduced"
    assert claims["m = 5: no other heuristic ahead of IE"]["verdict"] == "reproduced"
    # the 17 heuristics less IE, RANDOM and the four
    assert claims["m = 5: no other heuristic ahead of IE"]["note"] == "11/11 comparisons reproduced"
    assert claims["m = 5: C-IY ahead of C-IP"]["verdict"] == "reproduced"
    assert claims["m = 5: C-IAY ahead of C-IY"]["verdict"] == "reproduced"
    assert claims["m = 5: Y-H the same as P-H"]["verdict"] == "reproduced"
    assert claims["m = 5: E-IE behind IE"]["verdict"] == "reproduced"
    assert not any(c.startswith("m = 10") for c in claims)


def test_coupled_claims_say_tie_and_reversed():
    rows = _coupled_rows(m=10)
    for r in rows:
        if r["method"] == "IAY":
            r["objective"] = next(
                x["objective"] for x in rows if x["instance_key"] == r["instance_key"] and x["method"] == "IE"
            )
        if r["method"] == "P-IE":
            r["objective"] *= 1.3  # now P-IE is behind IE and 30 % behind Y-IE
    claims = {c["claim"]: c for c in _verdicts.coupled_claims(rows)}
    assert claims["m = 10: IAY and IY behind IE"]["verdict"] == "not reproduced (tie)"
    assert claims["m = 10: the heuristics ahead of IE"]["verdict"] == "not reproduced (reversed)"
    # E-IY (0.97 x IE) is ahead of IE, which Table II's "only three" excludes
    assert claims["m = 10: no other heuristic ahead of IE"]["verdict"] == "not reproduced (reversed)"
    assert claims["m = 10: Y-H the same as P-H"]["verdict"].startswith("not reproduced")
