"""Ratios to the optimum: never below 1, and a heuristic that beats a proof is a bug."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from volsched.evaluate import OptimumBeaten, ratio


def test_ratio_minimisation_and_maximisation():
    assert ratio(15.0, 10.0) == 1.5
    assert ratio(10.0, 15.0, sense="max") == 1.5
    assert ratio(10.0, 10.0) == 1.0


def test_ties_within_rounding_give_exactly_one():
    assert ratio(10.0 * (1 - 1e-13), 10.0) == 1.0


def test_beating_a_proven_optimum_raises():
    with pytest.raises(OptimumBeaten):
        ratio(9.0, 10.0)
    with pytest.raises(OptimumBeaten):
        ratio(11.0, 10.0, sense="max")


def test_zero_optimum():
    assert ratio(0.0, 0.0) == 1.0
    assert ratio(1.0, 0.0) is None


@given(st.floats(1e-6, 1e6), st.floats(0.0, 10.0))
def test_ratio_is_at_least_one(optimum, excess):
    assert ratio(optimum * (1 + excess), optimum) >= 1.0


def test_tiny_values_are_compared_relatively():
    """A waste of 5e-14 beats a proven 1e-13 (an absolute 1e-12 slack let it pass as a tie)."""
    with pytest.raises(OptimumBeaten):
        ratio(5e-14, 1e-13)
    assert ratio(2e-13, 1e-13) == pytest.approx(2.0)
    assert ratio(1e-13, 0.0) is None
