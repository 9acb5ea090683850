"""volsched.ratios: the one definition of the ratio, its interval, its defects and the relative metrics.

Property tests (hypothesis) on the definitions, hand-derived values, and the row-level reference
(:func:`references`, :func:`score_rows`) against values recomputed here from the rows.
"""

from __future__ import annotations

import doctest
import math
import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import volsched.ratios
from volsched.ratios import (
    RATIO_RTOL,
    beats,
    best_bound,
    best_value,
    casanova_metrics,
    count_defects,
    is_defect,
    ratio,
    ratio_interval,
    references,
    relative_difference,
    score_rows,
)

SENSE = st.sampled_from(["min", "max"])
POSITIVE = st.floats(1e-6, 1e6, allow_nan=False, allow_infinity=False)
#: How much worse than the optimum a run is, relatively (0: a tie).
EXCESS = st.floats(0.0, 10.0, allow_nan=False)


def worse_than(reference: float, excess: float, sense: str) -> float:
    """A value ``excess`` (relative) worse than ``reference`` in ``sense``."""
    return reference * (1 + excess) if sense == "min" else reference / (1 + excess)


def row(kind, status, objective, bound=None, sense="min", method="m", instance="i", problem="p"):
    return {
        "instance_key": instance,
        "problem": problem,
        "kind": kind,
        "status": status,
        "objective": objective,
        "bound": bound,
        "sense": sense,
        "method": method,
    }


# --------------------------------------------------------------------------- the ratio


def test_hand_derived_ratios():
    assert ratio(15.0, 10.0) == 1.5 and ratio(10.0, 15.0, "max") == 1.5
    assert ratio(10.0, 10.0) == ratio(0.0, 0.0) == 1.0
    assert ratio(1.0, 0.0) is None and ratio(None, 1.0) is None and ratio(1.0, None) is None
    assert ratio(9.0, 10.0) == 0.9 and ratio(11.0, 10.0, "max") == pytest.approx(10 / 11)
    with pytest.raises(ValueError, match="sense"):
        ratio(1.0, 1.0, "minimise")


def test_ties_within_rounding_read_as_one_and_tiny_values_compare_relatively():
    assert ratio(10.0 * (1 - 1e-13), 10.0) == 1.0
    assert not beats(10.0 * (1 - 1e-13), 10.0)
    # A waste of 5e-14 beats a proven 1e-13 (an absolute slack of 1e-12 let it pass as a tie).
    assert beats(5e-14, 1e-13) and is_defect(ratio(5e-14, 1e-13))
    assert ratio(2e-13, 1e-13) == pytest.approx(2.0)


@given(POSITIVE, EXCESS, SENSE)
def test_a_value_on_the_feasible_side_of_its_bound_has_a_ratio_of_at_least_one(bound, excess, sense):
    value = worse_than(bound, excess, sense)
    r = ratio(value, bound, sense)
    assert r >= 1.0 and not is_defect(r) and not beats(value, bound, sense)
    assert r == pytest.approx(1 + excess, rel=1e-9)


@given(POSITIVE, st.floats(10 * RATIO_RTOL, 0.9), SENSE)
def test_a_value_beating_its_proof_is_a_defect(optimum, gain, sense):
    value = optimum * (1 - gain) if sense == "min" else optimum / (1 - gain)
    r = ratio(value, optimum, sense)
    assert beats(value, optimum, sense) and is_defect(r) and r == pytest.approx(1 - gain, rel=1e-9)
    assert ratio_interval(value, sense, optimum=optimum).defect


@given(POSITIVE, POSITIVE)
def test_the_max_sense_is_the_min_sense_on_reciprocals(value, reference):
    r, mirrored = ratio(value, reference, "max"), ratio(1 / value, 1 / reference, "min")
    assert r == pytest.approx(mirrored, rel=1e-9) or (is_defect(r) is is_defect(mirrored) is False)


# --------------------------------------------------------------------------- the interval


@given(POSITIVE, st.lists(EXCESS, min_size=1, max_size=6), EXCESS, st.floats(0.0, 0.9), SENSE)
def test_interval_ends_are_ordered_and_the_lower_end_is_never_below_one(opt, excesses, worse, slack, sense):
    """Any valid bound and incumbent around the true optimum, the runs at or above it."""
    values = [worse_than(opt, e, sense) for e in excesses]
    incumbent = worse_than(opt, worse, sense)
    bound = opt * (1 - slack) if sense == "min" else opt / (1 - slack)
    best = best_value([incumbent, *values], sense)
    for v in values:
        interval = ratio_interval(v, sense, best_known=best, bound=bound)
        assert interval.ratio is None
        assert 1.0 <= interval.lo <= interval.hi * (1 + 1e-12)
        assert not interval.defect
        true = ratio(v, opt, sense)  # the ratio to the true optimum lies in the interval
        assert interval.lo * (1 - 1e-9) <= true <= interval.hi * (1 + 1e-9)


@given(POSITIVE, EXCESS, SENSE)
def test_a_proven_interval_is_one_point(optimum, excess, sense):
    value = worse_than(optimum, excess, sense)
    interval = ratio_interval(value, sense, optimum=optimum, best_known=0.1, bound=123.0)
    assert interval.ratio == interval.lo == interval.hi == ratio(value, optimum, sense)
    assert ratio_interval(None, sense, optimum=optimum) == ratio_interval(None, sense)


def test_best_value_and_bound_follow_the_sense():
    assert best_value([3.0, None, 1.0, 2.0], "min") == 1.0 and best_value([3.0, 1.0], "max") == 3.0
    assert best_bound([3.0, None, 1.0], "min") == 3.0 and best_bound([3.0, 1.0], "max") == 1.0
    assert best_value([], "min") is None and best_bound([None], "max") is None


# --------------------------------------------------------------------------- references from rows


@given(st.data(), SENSE)
def test_scored_rows_never_have_a_lower_end_below_one_when_the_best_known_value_includes_every_run(
    data, sense
):
    """Rows of one instance: an unproven exact row (any incumbent, a valid bound), runs around the optimum.

    Whatever the incumbent, even worse than every run, the lower end of every run is at least 1; and
    the result does not depend on the order of the rows.
    """
    opt = data.draw(POSITIVE)
    excesses = data.draw(st.lists(EXCESS, min_size=1, max_size=5))
    incumbent = data.draw(st.none() | EXCESS.map(lambda e: worse_than(opt, e, sense)))
    bound = data.draw(
        st.none() | st.floats(0.0, 0.9).map(lambda s: opt * (1 - s) if sense == "min" else opt / (1 - s))
    )
    rows = [row("exact", "timeout", incumbent, bound, sense)]
    rows += [
        row("heuristic", "ok", worse_than(opt, e, sense), sense=sense, method=f"h{i}")
        for i, e in enumerate(excesses)
    ]
    rows.append(row("heuristic", "error", None, sense=sense, method="failed"))
    scored = score_rows(rows)
    best = best_value([incumbent, *(r["objective"] for r in rows[1:])], sense)
    for r in scored[1:-1]:
        assert r["optimum_proven"] == 0 and r["best_known"] == best and r["ratio"] is None
        assert r["ratio_lo"] >= 1.0 and r["ratio_lo"] == ratio(r["objective"], best, sense)
        assert r["ratio_hi"] == ratio(r["objective"], bound, sense)
        assert r["ratio_hi"] is None or r["ratio_lo"] <= r["ratio_hi"] * (1 + 1e-12)
    assert min(r["ratio_lo"] for r in scored[1:-1]) == 1.0 or best == incumbent  # the best run, at 1
    assert count_defects(scored) == 0
    assert scored[-1]["ratio_lo"] is None and scored[-1]["optimum_proven"] is None
    shuffled = rows[:]
    random.Random(data.draw(st.integers(0, 1000))).shuffle(shuffled)
    assert sorted(score_rows(shuffled), key=lambda r: r["method"]) == sorted(
        scored, key=lambda r: r["method"]
    )


@pytest.mark.parametrize("sense", ["min", "max"])
def test_a_ratio_below_one_is_counted_as_a_defect(sense):
    """A run better than the proven optimum (instance i) and one better than a proven bound (j)."""
    better, worse = (9.0, 11.0) if sense == "min" else (11.0, 9.0)
    rows = [
        row("exact", "optimal", 10.0, 10.0, sense, instance="i"),
        row("heuristic", "ok", better, sense=sense, method="a", instance="i"),
        row("heuristic", "ok", worse, sense=sense, method="b", instance="i"),
        row("exact", "feasible", 20.0 if sense == "min" else 5.0, 10.0, sense, instance="j"),
        row("heuristic", "ok", better, sense=sense, method="a", instance="j"),
        row("heuristic", "ok", worse, sense=sense, method="b", instance="j"),
    ]
    scored = score_rows(rows)
    assert [r["defect"] for r in scored] == [False, True, False, False, True, False]
    assert count_defects(scored) == 2
    assert scored[1]["ratio"] == pytest.approx(0.9 if sense == "min" else 10 / 11)
    assert scored[4]["ratio_lo"] == 1.0 and is_defect(scored[4]["ratio_hi"])


def test_the_reference_takes_the_best_of_several_exact_rows():
    rows = [
        row("exact", "feasible", 30.0, 8.0, method="a"),
        row("exact", "timeout", 25.0, 9.0, method="b"),
        row("exact", "error", None, None, method="c"),
        row("heuristic", "ok", 27.0, method="h"),
    ]
    ref = references(rows)[("i", "p")]
    assert (ref.exact, ref.proven, ref.incumbent, ref.bound, ref.best_known) == (True, False, 25.0, 9.0, 25.0)
    proven = references([*rows, row("exact", "optimal", 20.0, 20.0, method="d")])[("i", "p")]
    assert (proven.optimum, proven.bound, proven.best_known) == (20.0, 20.0, 20.0)


def test_without_an_exact_row_a_run_is_not_scored():
    rows = [row("heuristic", "ok", 3.0), row("exact", "error", None, None)]
    (h, _e) = score_rows(rows)
    assert h["optimum_proven"] is None and h["ratio_lo"] is None and not h["defect"]
    assert references(rows)[("i", "p")].best_known == 3.0


# --------------------------------------------------------------------------- Casanova et al. 2013


@given(POSITIVE, POSITIVE, SENSE)
def test_relative_difference_is_antisymmetric_and_uses_the_smaller_value(a, b, sense):
    d = relative_difference(a, b, sense)
    assert d == pytest.approx(-relative_difference(b, a, sense), rel=1e-12, abs=1e-300)
    assert abs(d) == pytest.approx(abs(a - b) / min(a, b), rel=1e-12)
    worse = a > b if sense == "min" else a < b
    assert (d > 0) == worse or d == 0


@given(POSITIVE, POSITIVE)
def test_relative_difference_of_maxima_is_that_of_the_reciprocals_in_magnitude_and_sign(a, b):
    assume(a != b)
    d_max, d_min = relative_difference(a, b, "max"), relative_difference(1 / a, 1 / b, "min")
    assert math.copysign(1, d_max) == math.copysign(1, d_min)


def test_relative_difference_by_hand():
    assert relative_difference(40.0, 20.0, "min") == pytest.approx(1.0)
    assert relative_difference(20.0, 40.0, "min") == pytest.approx(-1.0)
    assert relative_difference(20.0, 40.0, "max") == pytest.approx(1.0)
    assert relative_difference(0.0, 0.0, "min") == 0.0 and relative_difference(0.0, 1.0, "min") is None


@given(st.lists(st.tuples(POSITIVE, POSITIVE), min_size=1, max_size=6), SENSE)
def test_casanova_metrics_of_the_reference_against_itself_and_by_recomputation(pairs, sense):
    """One scenario per pair (no trials): %diff is the mean of the pairwise differences, %wins by count."""
    rows = []
    for i, (h, ref) in enumerate(pairs):
        for method, v in (("H", h), ("R", ref)):
            rows.append(
                {
                    "family": "c",
                    "method": method,
                    "kind": "heuristic",
                    "status": "ok",
                    "objective": v,
                    "sense": sense,
                    "instance_key": f"s{i}",
                    "params": {"scenario": i, "seed": 0},
                }
            )
    m = casanova_metrics(rows, "c", "H", "R")
    diffs = [relative_difference(h, r, sense) for h, r in pairs]
    assert m["scenarios"] == m["trials"] == len(pairs)
    assert m["pct_diff"] == pytest.approx(100 * sum(diffs) / len(diffs), rel=1e-9, abs=1e-9)
    wins = [h <= r if sense == "min" else h >= r for h, r in pairs]
    assert m["pct_wins"] == pytest.approx(100 * sum(wins) / len(wins))
    itself = casanova_metrics(rows, "c", "R", "R")
    assert (itself["pct_diff"], itself["stdv"], itself["pct_wins"], itself["pct_wins30"]) == (0, 0, 100, 100)


def test_the_docstring_examples_hold():
    result = doctest.testmod(volsched.ratios)
    assert result.attempted >= 20 and result.failed == 0
