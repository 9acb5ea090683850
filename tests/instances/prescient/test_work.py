"""The cumulative-work primitive (reading 2.5) against an exact, piece-by-piece oracle.

The oracle walks one host's traces in ``fractions.Fraction`` arithmetic, piece
by piece, with the paper's rules written out again (work restarts at every
host-down; without suspension a zero share is a host-down; a task completing
exactly at an interval's end completes). It shares no code with
:class:`WorkProfile`.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volsched.instances.prescient import REF_OPS_PER_S, PrescientInstance, WorkProfile


def oracle_pieces(up, cpu, period, clock, suspension):
    """Maximal effective intervals as lists of (t0, t1, rate in reference seconds per second)."""
    out = []
    for s, e in up:
        cuts = sorted({F(s), F(e)} | {F(k) * F(period) for k, _ in cpu if F(s) < F(k) * F(period) < F(e)})
        current = []
        for a, b in itertools.pairwise(cuts):
            share = F(0)
            for k, v in cpu:
                if F(k) * F(period) <= a:
                    share = F(v)
            if not suspension and share == 0:
                if current:
                    out.append(current)
                current = []
                continue
            current.append((a, b, F(clock) / 1500 * share))
        if current:
            out.append(current)
    return out


def oracle_completion(up, cpu, period, clock, suspension, t, w):
    """Earliest (finish, begin) of w reference seconds of work for a host free at t; None if never."""
    t, w = F(t), F(w)
    for iv in oracle_pieces(up, cpu, period, clock, suspension):
        start, end = iv[0][0], iv[-1][1]
        if end <= t:
            continue
        begin = max(start, t)
        left = w
        for a, b, r in iv:
            a = max(a, begin)
            if b <= a:
                continue
            if r > 0 and r * (b - a) >= left:
                return a + left / r, begin
            left -= r * (b - a)
    return None


def oracle_work(up, cpu, period, clock, suspension, t0, t1):
    total = F(0)
    for iv in oracle_pieces(up, cpu, period, clock, suspension):
        for a, b, r in iv:
            lo, hi = max(a, F(t0)), min(b, F(t1))
            if hi > lo:
                total += r * (hi - lo)
    return total


def check(inst, queries, until=None):
    prof = WorkProfile(inst, until=until)
    hosts = np.array([q[0] for q in queries])
    ts = np.array([float(q[1]) for q in queries])
    ws = np.array([float(q[2]) for q in queries]) * REF_OPS_PER_S
    finish, begin, k = prof.earliest_completion(hosts, ts, ws)
    for i, (h, t, w) in enumerate(queries):
        up = inst.intervals(h).tolist()
        idx, share = inst.cpu_runs(h)
        cpu = list(zip(idx.tolist(), share.tolist(), strict=True))
        want = oracle_completion(up, cpu, inst.period, inst.clock_mhz[h], inst.suspension, t, w)
        if want is not None and until is not None and want[0] > until:
            want = None
        if want is None:
            assert finish[i] == np.inf and k[i] == -1, (h, t, w, finish[i])
        else:
            assert finish[i] == pytest.approx(float(want[0]), abs=1e-7), (h, t, w)
            assert begin[i] == pytest.approx(float(want[1]), abs=1e-9), (h, t, w)
            assert prof.iv_host[k[i]] == h
            assert prof.iv_start[k[i]] <= begin[i] and finish[i] <= prof.iv_end[k[i]]
    return prof, finish


def hand_instance(suspension=True):
    # host 0: 1.5 GHz, share 1 on [0, 20), 0.5 on [20, 50), 0 on [50, 60), then 1
    # host 1: 3 GHz, full CPU; host 2: 750 MHz, touching intervals
    return PrescientInstance.build(
        [1500, 3000, 750],
        [[(0, 100), (150, 400)], [(10, 50)], [(0, 30), (30, 100)]],
        tasks=1,
        task_minutes=1.0,
        cpu=[[(0, 1.0), (2, 0.5), (5, 0.0), (6, 1.0)], [(0, 1.0)], [(0, 1.0)]],
        suspension=suspension,
    )


def test_hand_derived_completions():
    prof = WorkProfile(hand_instance())
    ops = 60 * REF_OPS_PER_S  # one minute on the reference host
    finish, begin, _ = prof.earliest_completion([0, 0, 0, 1, 1, 1, 2, 2], [0, 30, 90, 0, 20, 21, 0, 10], ops)
    # host 0 from 0: 20 + 30*0.5 = 35 by t = 50, suspended to 60, 25 more: 85
    # from 30: 10 by 50, suspended, 50 more by 110 > 100: fails; next interval: 150 + 60
    # host 1 at double speed: 30 s; from 21 only 29 s remain: no later interval
    # host 2 at half speed needs 120 s: neither [0, 30) nor [30, 100) is long enough (touching ≠ merged)
    assert finish.tolist() == [85.0, 210.0, 210.0, 40.0, 50.0, np.inf, np.inf, np.inf]
    assert begin.tolist()[:5] == [0.0, 150.0, 150.0, 10.0, 20.0]
    assert prof.iv_work.tolist() == pytest.approx(
        [75 * REF_OPS_PER_S, 250 * REF_OPS_PER_S, 80 * REF_OPS_PER_S, 15 * REF_OPS_PER_S, 35 * REF_OPS_PER_S]
    )


def test_without_suspension_a_zero_share_is_a_failure():
    prof = WorkProfile(hand_instance(suspension=False))
    assert prof.iv_start.tolist() == [0, 60, 150, 10, 0, 30]
    assert prof.iv_end.tolist() == [50, 100, 400, 50, 30, 100]
    ops = 30 * REF_OPS_PER_S
    finish, _, _ = prof.earliest_completion([0, 0], [0, 40], ops)
    assert finish.tolist() == [40.0, 90.0]


def test_work_between_is_the_integral_of_the_rate():
    prof = WorkProfile(hand_instance())
    got = prof.work_between([0, 0, 1, 2], [0, 25, 0, 0], [400, 155, 1000, 1000]) / REF_OPS_PER_S
    assert got.tolist() == pytest.approx([325, 25 * 0.5 + 40 + 5, 80, 50])


@st.composite
def instances(draw):
    n = draw(st.integers(1, 4))
    period = draw(st.sampled_from([1, 2, 5]))
    suspension = draw(st.booleans())
    up, cpu, clock = [], [], []
    for _ in range(n):
        cuts = sorted(draw(st.sets(st.integers(0, 120), min_size=2, max_size=10)))
        pairs = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False)]
        if draw(st.booleans()) and len(pairs) >= 2:  # make two intervals touch
            _a0, b0 = pairs[0]
            pairs[1] = (b0, max(pairs[1][1], b0 + 1))
        up.append(pairs)
        samples = sorted(draw(st.sets(st.integers(1, 60), max_size=6)))
        cpu.append(
            [(0, draw(st.sampled_from([0, 0.25, 0.5, 1.0])))]
            + [(k, draw(st.sampled_from([0, 0.25, 0.5, 0.75, 1.0]))) for k in samples]
        )
        clock.append(draw(st.sampled_from([375, 750, 1500, 2250, 3000])))
    inst = PrescientInstance.build(
        clock, up, tasks=1, task_minutes=1.0, cpu=cpu, period=period, suspension=suspension
    )
    queries = draw(
        st.lists(
            st.tuples(
                st.integers(0, n - 1), st.integers(0, 130), st.sampled_from([1, 2, 3, 5, 7.5, 10, 25, 40])
            ),
            min_size=1,
            max_size=12,
        )
    )
    return inst, queries


@settings(max_examples=300, deadline=None)
@given(instances())
def test_earliest_completion_matches_the_oracle(case):
    inst, queries = case
    check(inst, queries)


@settings(max_examples=150, deadline=None)
@given(instances(), st.integers(1, 130))
def test_a_profile_cut_at_until_is_exact_or_says_not_yet(case, until):
    inst, queries = case
    check(inst, queries, until=until)


@settings(max_examples=150, deadline=None)
@given(instances(), st.integers(0, 130), st.integers(0, 130))
def test_work_between_matches_the_oracle(case, a, b):
    inst, _ = case
    t0, t1 = min(a, b), max(a, b)
    prof = WorkProfile(inst)
    got = prof.work_between(np.arange(inst.n_hosts), t0, t1) / REF_OPS_PER_S
    for h in range(inst.n_hosts):
        idx, share = inst.cpu_runs(h)
        want = oracle_work(
            inst.intervals(h).tolist(),
            list(zip(idx.tolist(), share.tolist(), strict=True)),
            inst.period,
            inst.clock_mhz[h],
            inst.suspension,
            t0,
            t1,
        )
        assert got[h] == pytest.approx(float(want), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(instances())
def test_completion_is_monotone_in_time_and_work(case):
    inst, _ = case
    prof = WorkProfile(inst)
    ts = np.arange(0, 130, 0.5)
    for h in range(inst.n_hosts):
        for w in (2.0, 10.0):
            f, b, _ = prof.earliest_completion(h, ts, w * REF_OPS_PER_S)
            assert np.all(f[1:] >= f[:-1]) and np.all(b >= ts)
            f2, _, _ = prof.earliest_completion(h, ts, 2 * w * REF_OPS_PER_S)
            assert np.all(f2 >= f)


def test_large_epoch_times_keep_their_precision():
    # FTA times are UNIX epoch seconds; many hosts multiply the search keys
    base = 1.1e9
    up = [[(base + 10 * h, base + 10 * h + 600.0)] for h in range(5000)]
    inst = PrescientInstance.build([1500.0] * 5000, up, tasks=1, task_minutes=5.0)
    prof = WorkProfile(inst)
    hosts = np.arange(5000)
    f, _b, _ = prof.earliest_completion(hosts, base + 10 * hosts + 1e-3, 300 * REF_OPS_PER_S)
    np.testing.assert_allclose(f - (base + 10 * hosts), 300.001, atol=1e-6)
    f, _, _ = prof.earliest_completion(hosts, base + 10 * hosts + 300.5, 300 * REF_OPS_PER_S)
    assert np.all(f == np.inf)
