"""The exact subset sums and matchings of :mod:`volsched.solvers.slack.subsetsum`, against enumeration."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from volsched.solvers.slack.subsetsum import best_at_most, largest_subset, match_singles, reachable

values = st.lists(st.integers(1, 40), max_size=9)


def sums(vs):
    return {sum(c) for k in range(len(vs) + 1) for c in itertools.combinations(vs, k)}


@settings(max_examples=200, deadline=None)
@given(vs=values, cap=st.integers(0, 120))
def test_reachable_is_the_set_of_subset_sums(vs, cap):
    bits = reachable(vs, cap)
    assert {s for s in range(cap + 1) if bits >> s & 1} == {s for s in sums(vs) if s <= cap}
    assert best_at_most(bits, cap) == max(s for s in sums(vs) if s <= cap)


@settings(max_examples=200, deadline=None)
@given(vs=values, cap=st.integers(0, 120))
def test_largest_subset_is_a_subset_with_the_largest_sum(vs, cap):
    chosen, total = largest_subset(vs, cap)
    assert len(set(chosen)) == len(chosen) and all(0 <= i < len(vs) for i in chosen)
    assert sum(vs[i] for i in chosen) == total == max(s for s in sums(vs) if s <= cap)


def test_largest_subset_spares_the_later_values():
    assert sorted(largest_subset([3, 4, 7], 7)[0]) == [0, 1]
    assert largest_subset([7, 3, 4], 7)[0] == [0]


@settings(max_examples=150, deadline=None)
@given(rooms=st.lists(st.integers(1, 20), max_size=4), sizes=st.lists(st.integers(1, 20), max_size=5))
def test_match_singles_is_a_maximum_matching(rooms, sizes):
    pairs, total, _ = match_singles(rooms, sizes)
    assert len({r for r, _ in pairs}) == len(pairs) == len({k for _, k in pairs})
    assert all(sizes[k] <= rooms[r] for r, k in pairs)
    assert total == sum(sizes[k] for _, k in pairs)
    best = 0  # every way to give each room a distinct item or none
    items = [*range(len(sizes)), *([None] * len(rooms))]
    for perm in itertools.permutations(items, len(rooms)):
        best = max(best, sum(sizes[k] for r, k in enumerate(perm) if k is not None and sizes[k] <= rooms[r]))
    assert total == best
