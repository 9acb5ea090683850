"""The allocations of Section III-C: the walk that lists those that can complete, against the list."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volsched.instances.coupled import CoupledInstance, paper_realization
from volsched.solvers.coupled import allocations as module
from volsched.solvers.coupled.allocations import allocations, completable, count_allocations


def first_completion(ready, x, w):
    """The definition, slot by slot: the first slot at which ``W(x)`` slots since the last one with
    a member DOWN have every member ready for its tasks (-1 if none)."""
    members = [q for q in range(len(x)) if x[q]]
    need = max(x[q] * w[q] for q in members)
    done = 0
    for i in range(ready.shape[1]):
        levels = [ready[q, i] for q in members]
        if -2 in levels:
            done = 0
        elif all(level >= x[q] for level, q in zip(levels, members, strict=True)):
            done += 1
            if done >= need:
                return i
    return -1


def listed(found, p):
    return [found.allocation(a, p) for a in range(len(found.work))]


@settings(max_examples=150, deadline=None)
@given(
    p=st.integers(1, 6),
    m=st.integers(1, 4),
    span=st.integers(1, 400),
    caps=st.lists(st.sampled_from([None, 1, 2, 3]), min_size=6, max_size=6),
    down=st.sampled_from([0.03, 0.3, 0.6]),
    slow=st.sampled_from([6, 40]),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_walk_lists_exactly_the_allocations_that_can_complete_in_order(
    p, m, span, caps, down, slow, seed
):
    rng = np.random.default_rng(seed)
    mu = caps[:p]
    if sum(m if c is None else min(c, m) for c in mu) < m:
        mu = [None] * p
    w = rng.integers(1, slow, size=p).tolist()
    instance = CoupledInstance(
        availability=np.zeros((p, span), dtype=np.int8), w=w, mu=mu, m=m, n_com=m, T_prog=1, T_data=1, K=1
    )
    weights = [down, 0.15] + [(0.85 - down) / (m + 1)] * (m + 1)
    ready = rng.choice(np.arange(-2, m + 1), size=(p, span), p=weights).astype(np.int64)
    found = completable(instance, ready)
    expected = [x for x in allocations(instance)[1:] if first_completion(ready, x, w) >= 0]
    assert listed(found, p) == expected
    for a, x in enumerate(expected):
        assert found.work[a] == max(x[q] * w[q] for q in range(p))
        assert found.masks[a] == sum(1 << q for q in range(p) if x[q])


def test_on_a_paper_realization_it_drops_most_allocations_and_keeps_the_others():
    # Section VII-A, m = 5: a state whose members must all be ready within 40 slots
    from volsched.solvers.coupled import _holders_kernel
    from volsched.solvers.coupled.full_bound import DataChain

    instance = paper_realization(5, 5, 1, 4, 0, slots=300)
    chain = DataChain(instance)
    holder = np.zeros(instance.p, dtype=np.bool_)
    args = (chain.avail, chain.count, chain.since, 100, holder, instance.T_prog, instance.T_data)
    ready = _holders_kernel.readiness(*args, instance.m, 140)
    found = completable(instance, ready)
    expected = [x for x in allocations(instance)[1:] if first_completion(ready, x, instance.w) >= 0]
    assert listed(found, instance.p) == expected
    assert 0 < len(expected) < count_allocations(instance) // 10


@pytest.mark.parametrize("limit", ["MAX_COMPLETABLE", "MAX_NODES"])
def test_a_state_with_too_many_allocations_gives_up(monkeypatch, limit):
    instance = paper_realization(5, 5, 1, 0, 0, slots=100)
    ready = np.full((instance.p, 100), instance.m, dtype=np.int64)  # every member ready throughout
    assert len(completable(instance, ready).work) == count_allocations(instance) - 1
    monkeypatch.setattr(module, limit, 1000)
    assert completable(instance, ready) is None
