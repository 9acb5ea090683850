"""The compiled scans of the holder methods against their slot-by-slot definitions, with DOWN slots
from rare to most slots (a run per word of 64 slots, or many)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.coupled.holders import random_case

from volsched.instances.coupled import DOWN, RECLAIMED, UP
from volsched.solvers.coupled import _holders_kernel as kernel


def words(slots):
    out = np.zeros((len(slots) + 63) // 64, dtype=np.uint64)
    for i, on in enumerate(slots):
        if on:
            out[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    return out


def first_slot(ok, gone, need, span):
    """The first slot at which ``need`` slots of ``ok`` since the last one of ``gone`` are counted."""
    done = 0
    for i in range(span):
        if gone[i]:
            done = 0
        elif ok[i]:
            done += 1
            if done >= need:
                return i
    return -1


@settings(max_examples=300, deadline=None)
@given(
    slots=st.integers(1, 300),
    ready=st.floats(0.05, 1.0),
    down=st.sampled_from([0.0, 0.02, 0.3, 0.75, 0.95]),
    need=st.integers(1, 140),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_completion_is_found_by_the_slot_rule(slots, ready, down, need, seed):
    rng = np.random.default_rng(seed)
    ok, gone = rng.random(slots) < ready, rng.random(slots) < down
    bits, down = words(ok)[None, None, :], words(gone)[None, :]
    one = np.zeros((1, 1), dtype=np.int64), np.ones((1, 1), dtype=np.int64)  # processor 0, one task
    found = kernel.first_completion(bits, down, *one, 0, need, slots)
    assert (found >= 0) == (first_slot(ok, gone, need, slots) >= 0)


@settings(max_examples=150, deadline=None)
@given(
    p=st.integers(1, 5),
    levels=st.integers(1, 3),
    span=st.integers(1, 260),
    down=st.sampled_from([0.01, 0.2, 0.6]),
    seed=st.integers(0, 2**32 - 1),
)
def test_completions_is_the_slot_rule(p, levels, span, down, seed):
    rng = np.random.default_rng(seed)
    weights = [down, 0.1] + [(0.9 - down) / (levels + 1)] * (levels + 1)
    ready = rng.choice(np.arange(-2, levels + 1), size=(p, span), p=weights).astype(np.int64)
    rows = 12
    members = np.full((rows, levels), -1, dtype=np.int64)
    tasks = np.zeros((rows, levels), dtype=np.int64)
    work = rng.integers(1, 40, size=rows).astype(np.int64)
    for a in range(rows):
        chosen = rng.choice(p, size=int(rng.integers(1, min(p, levels) + 1)), replace=False)
        members[a, : len(chosen)] = np.sort(chosen)
        tasks[a, : len(chosen)] = rng.integers(1, levels + 1, size=len(chosen))
    out = np.empty(rows, dtype=np.int64)
    kernel.completions(ready, members, tasks, work, 5, out)
    for a in range(rows):
        pairs = [(q, t) for q, t in zip(members[a], tasks[a], strict=True) if q >= 0]
        ok = [all(ready[q, i] >= t for q, t in pairs) for i in range(span)]
        gone = [any(ready[q, i] == -2 for q, _ in pairs) for i in range(span)]
        i = first_slot(ok, gone, int(work[a]), span)
        assert out[a] == (-1 if i < 0 else 5 + i)


@settings(max_examples=400, deadline=None)
@given(
    p=st.integers(2, 7),
    slots=st.integers(1, 160),
    down=st.sampled_from([0.0, 0.03, 0.15, 0.4]),
    need=st.integers(1, 40),
    costs=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    late=st.integers(0, 30),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_replay_that_stops_where_it_can_no_longer_complete_completes_where_the_whole_one_does(
    p, slots, down, need, costs, late, seed
):
    rng = np.random.default_rng(seed)
    avail, holder, members, tasks, spares = random_case(rng, p, slots, down)
    m = int(tasks.sum()) + int(rng.integers(0, 3))
    start = int(rng.integers(0, slots))
    last = int(rng.integers(start, slots))
    settings_ = np.array([*costs, m, int(rng.integers(1, m + 1)), last], dtype=np.int64)
    join = min(start + late, last) if len(spares) else start
    outs = []
    for reach in (kernel.hope(avail, start, last, members), np.zeros((2, 0), dtype=np.int64)):
        ys = np.zeros((len(spares) + 1, p), dtype=np.int64)
        starts = np.zeros(len(spares) + 1, dtype=np.int64)
        left = np.zeros(len(spares), dtype=np.int64)
        letters = np.zeros((p, 0), dtype=np.int8)
        row = (members, tasks, need, spares, settings_, ys, starts, left, letters, reach)
        c, sigma, count = kernel.preloaded(avail, start, join, holder, *row)
        outs.append((c, sigma, count, ys[:count].tolist(), starts[:count].tolist(), left.tolist()))
    stopped, whole = outs
    assert stopped[0] == whole[0]
    if whole[0] >= 0:
        assert stopped == whole


def test_hope_counts_the_slots_every_member_is_up_between_their_down_slots():
    # processors 0 and 1 over 8 slots (U = UP, R = RECLAIMED, D = DOWN):
    #   0: U U R U D U U U
    #   1: U U U U U U D U
    u, r, d = UP, RECLAIMED, DOWN
    avail = np.array([[u, u, r, u, d, u, u, u], [u, u, u, u, u, u, d, u]], dtype=np.int8)
    reach = kernel.hope(avail, 0, 7, np.array([0, 1], dtype=np.int64))
    # before slot 4 (a DOWN): 3 slots with both UP from slot 0; after it, runs [5, 6) and [7, 8)
    assert reach[0].tolist() == [3, 2, 1, 1, 0, 1, 0, 1, 0]
    assert reach[1].tolist() == [1, 1, 1, 1, 1, 1, 1, 0, 0]
