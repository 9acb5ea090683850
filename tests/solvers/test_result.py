"""The result type: the gap is finite whenever an objective and a bound are both present."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from volsched.solvers.result import relative_gap


@pytest.mark.parametrize(
    "objective, bound, gap",
    [
        (0, 15, 1.0),  # an incumbent of 0 against a bound of 15 is not "no bound"
        (0, 0, 0.0),
        (10, 8, 0.2),
        (8, 10, 0.2),
        (66, 200, 134 / 200),
        (None, 3, None),
        (3, None, None),
    ],
)
def test_gap_by_hand(objective, bound, gap):
    assert relative_gap(objective, bound) == (None if gap is None else pytest.approx(gap))


@given(st.floats(-1e12, 1e12), st.floats(-1e12, 1e12))
def test_gap_is_finite_and_at_most_2(objective, bound):
    g = relative_gap(objective, bound)
    assert math.isfinite(g) and 0 <= g <= 2
    # Signs compared directly: the product of two tiny numbers of opposite signs underflows to -0.0.
    if (objective >= 0 and bound >= 0) or (objective <= 0 and bound <= 0):
        assert g <= 1
