"""Trace readers of the prescient family: FTA ``event_trace.tab``, SimGrid profiles, broken instance files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volsched.instances.errors import MAX_FIELD_INT, InputError
from volsched.instances.io import read_json
from volsched.instances.prescient import REF_OPS_PER_S, PrescientInstance, WorkProfile
from volsched.instances.prescient.fta import read_events, read_fta, write_fta
from volsched.instances.prescient.simgrid_profiles import (
    MAX_UNROLLED_EVENTS,
    Profile,
    format_profile,
    host_profiles,
    intervals_from_state,
    parse_profile,
    read_profile,
    read_profiles,
    runs_from_speed,
    write_profiles,
)
from volsched.solvers.deadline import hard_limit

DATA = Path(__file__).resolve().parents[2] / "data"
SAMPLES = DATA / "prescient"
BROKEN = DATA / "broken" / "prescient"
EXPECTED = json.loads((BROKEN / "EXPECTED.json").read_text())


# ---------------------------------------------------------------------- broken instance files
def test_every_broken_file_has_an_expected_error():
    assert sorted(EXPECTED) == sorted(p.name for p in BROKEN.glob("*.json") if p.name != "EXPECTED.json")


def test_the_valid_base_loads():
    inst = PrescientInstance.from_json(read_json(SAMPLES / "valid_small.json"))
    assert inst.n_hosts == 2 and inst.n_tasks == 3


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_file_names_field_and_index(name):
    with pytest.raises(InputError) as info:
        PrescientInstance.from_json(read_json(BROKEN / name))
    assert EXPECTED[name] in str(info.value)


# ---------------------------------------------------------------------- FTA
def test_fta_with_header_tabs_and_event_stop_time():
    inst = read_fta(SAMPLES / "fta_header_tabs.tab", tasks=4, task_minutes=5.0)
    assert inst.host_names == ("pc-a", "pc-b")
    assert inst.intervals(0).tolist() == [[1100000000.0, 1100003600.0], [1100004000.0, 1100090000.0]]
    assert inst.intervals(1).tolist() == [[1100000600.0, 1100001800.0], [1100002400.0, 1100050000.0]]
    assert inst.end_reasons.tolist() == [5, 2, 6, 0]
    # the documented defaults: 1.5 GHz, the whole CPU, start at the first event, no history
    assert inst.clock_mhz.tolist() == [1500.0, 1500.0] and inst.cpu_share.tolist() == [1.0, 1.0]
    assert inst.start == 1100000000.0 and inst.history is None and inst.horizon == 1100090000.0
    # round trip through JSON keeps the end reasons and names
    back = PrescientInstance.from_json(json.loads(json.dumps(inst.to_json())))
    assert back == inst


def test_fta_spaces_no_header_unsorted_clock_and_start():
    inst = read_fta(SAMPLES / "fta_spaces_noheader.tab", tasks=1, task_minutes=1.0, clock=3000.0, start=100.0)
    assert inst.intervals(0).tolist() == [[0.0, 400.0], [500.5, 900.0]]
    assert inst.end_reasons.tolist() == [3, 1, 4]
    assert inst.clock_mhz.tolist() == [3000.0, 3000.0] and inst.start == 100.0
    prof = WorkProfile(inst)
    finish, _, _ = prof.earliest_completion([0, 1], 100.0, 60 * REF_OPS_PER_S)
    assert finish.tolist() == [130.0, 130.0]  # one minute of the 1.5 GHz host at double speed


def test_fta_history_is_the_day_before_start():
    text = "0 1 1 1 a 1 0 200000 NULL\n"
    path = Path(SAMPLES.parent.parent / "tmp_fta_history.tab")
    try:
        path.write_text(text)
        assert read_fta(path, 1, 1.0, start=90000.0).history == (3600.0, 90000.0)
        assert read_fta(path, 1, 1.0, start=80000.0).history is None
    finally:
        path.unlink()


FTA_BAD = [
    ("1 1 1 1 a 2 0 10 1\n", "line 1: event_type must be 1 (available) or 0"),
    (
        "1 1 1 1 a 1 0 10 1\n1 1 1 1 a 1 5 20 1\n",
        "line 2: event_start_time: node a: this availability event starts at 5.0, before the availability "
        "event on line 1 ends (10.0)",
    ),
    ("1 1 1 1 a 1 10 10 1\n", "line 1: the event ends (10.0) at or before it starts"),
    ("1 1 1 1 a 1 -3 10 1\n", "line 1: event_start_time must be a finite time >= 0"),
    ("1 1 1 1 a 1 nan 10 1\n", "line 1: event_start_time must be a number of seconds"),
    ("1 1 1 1 a 1 0 1e400 1\n", "line 1: event_end_time must be a finite time >= 0 and <= 1e+12"),
    ("1 1 1 1 a 1 0 99999999999999999999999 1\n", "line 1: event_end_time must be a finite time >= 0"),
    ("1 1 1 1 a 1 0 inf 1\n", "line 1: event_end_time must be a number of seconds"),
    ("1 1 1 1 a 1 1_000 2000 1\n", "line 1: event_start_time must be a number of seconds"),
    ("1 1 1 1 a 1 \u0661 10 1\n", "line 1: event_start_time must be a number of seconds"),
    ("1 1 1 1 a 1 x 10 1\n", "line 1: event_start_time must be a number of seconds"),
    ("1 1 1 1 a 1 0 10 bad\n", "line 1: event_end_reason must be an integer code"),
    # a 23-digit code reached the int64 array of end reasons: OverflowError, exit 1
    (
        "1 1 1 1 a 1 0 10 99999999999999999999999\n",
        "line 1: event_end_reason must be an integer code in [-1, ",
    ),
    (
        "1 1 1 1 a 1 0 10 0\n1 1 1 1 a 1 10 20 1000000001\n",
        "line 2: event_end_reason must be an integer code",
    ),
    ("1 1 1 1 a 1 0 10 -2\n", "line 1: event_end_reason must be an integer code in [-1, 1000000000]"),
    ("1 1 1 1 a 1 0 10 " + "9" * 5000 + "\n", "line 1: event_end_reason must be an integer code"),
    ("1 1 1 1 a 1 0 10 1_0\n", "line 1: event_end_reason must be an integer code"),
    ("1 1 1 1 a 1 0 10 \u0663\n", "line 1: event_end_reason must be an integer code"),
    # an availability event overlapping an unavailability event of its node, either way round
    (
        "1 1 1 1 a 1 0 1000 1\n2 1 1 1 a 0 500 1500 NULL\n",
        "line 2: event_start_time: node a: this unavailability event starts at 500.0, before the "
        "availability event on line 1 ends (1000.0)",
    ),
    (
        "1 1 1 1 a 0 0 1000 NULL\n2 1 1 1 a 1 100 200 1\n",
        "line 2: event_start_time: node a: this availability event starts at 100.0, before the "
        "unavailability event on line 1 ends (1000.0)",
    ),
    # the overlap is with the longest event so far, not the last one started
    (
        "1 1 1 1 a 0 0 1000 NULL\n2 1 1 1 a 1 100 200 1\n3 1 1 1 a 1 300 400 1\n",
        "line 2: event_start_time: node a: this availability event starts at 100.0",
    ),
    (
        "1 1 1 1 a 1 0 10 1\n2 1 1 1 a 0 10 20 NULL\n3 1 1 1 a 0 15 30 NULL\n4 1 1 1 a 1 30 40 1\n",
        "line 3: event_start_time: node a: this unavailability event starts at 15.0, before the "
        "unavailability event on line 2 ends (20.0)",
    ),
    ("1 1 1 1 a 1 0\n", "line 1: has 7 fields, expected 9"),
    (
        "# header below\nnode_id event_type event_start_time\n",
        "line 2: the header has no column 'event_end_time'",
    ),
    ("1 1 1 1 a 0 0 10 1\n1 1 2 1 b 1 0 10 1\n", "line 1: node a has no availability event"),
    ("# nothing\n", "has no events"),
]


@pytest.mark.parametrize("text, fragment", FTA_BAD)
def test_malformed_fta_names_file_and_line(tmp_path, text, fragment):
    path = tmp_path / "event_trace.tab"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_fta(path, 1, 5.0)
    assert str(path) in str(info.value) and fragment in str(info.value)


def test_fta_end_reason_bounds_and_touching_events_are_accepted(tmp_path):
    path = tmp_path / "event_trace.tab"
    path.write_text(
        f"1 1 1 1 a 1 0 10 {MAX_FIELD_INT}\n2 1 1 1 a 0 10 20 -1\n3 1 1 1 a 1 20 30 -1\n"
        "4 1 1 1 a 0 30 40 NULL\n5 1 1 1 a 1 40 50 +6\n6 1 2 1 b 1 5 15 0\n"
    )
    inst = read_fta(path, 1, 1.0)
    assert inst.intervals(0).tolist() == [[0.0, 10.0], [20.0, 30.0], [40.0, 50.0]]
    assert inst.end_reasons.tolist() == [MAX_FIELD_INT, -1, 6, 0]


def _fta_text(events) -> str:
    return "".join(
        f"{i} 1 {node} 1 n{node} {etype} {start} {start + length} {i % 7}\n"
        for i, (node, etype, start, length) in enumerate(events)
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0, 1]), st.sampled_from([0, 1]), st.integers(0, 40), st.integers(1, 15)),
        min_size=1,
        max_size=8,
    )
)
def test_fta_accepts_exactly_the_traces_without_overlapping_events(events):
    """Brute force over every pair of one node's events, whatever their types, against the reader."""
    import tempfile

    nodes = sorted({e[0] for e in events}, key=[e[0] for e in events].index)  # in the file's order
    expected = None  # the first node's problem, nodes in the file's order
    for node in nodes:
        mine = [e for e in events if e[0] == node]
        if any(a[2] < b[2] + b[3] and b[2] < a[2] + a[3] for i, a in enumerate(mine) for b in mine[i + 1 :]):
            expected = rf"line \d+: event_start_time: node n{node}: this"
        elif not any(e[1] == 1 for e in mine):
            expected = f"node n{node} has no availability event"
        if expected:
            break
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "event_trace.tab"
        path.write_text(_fta_text(events))
        if expected:
            with pytest.raises(InputError, match=expected):
                read_fta(path, 1, 1.0)
            return
        inst = read_fta(path, 1, 1.0)
    for h, node in enumerate(nodes):
        up = sorted((float(s), float(s + n)) for nd, t, s, n in events if nd == node and t == 1)
        assert [tuple(iv) for iv in inst.intervals(h).tolist()] == up


def test_fta_write_then_read_round_trip(tmp_path):
    inst = read_fta(SAMPLES / "fta_header_tabs.tab", tasks=2, task_minutes=5.0)
    write_fta(inst, tmp_path / "out.tab")
    again = read_fta(tmp_path / "out.tab", tasks=2, task_minutes=5.0)
    np.testing.assert_array_equal(again.up_start, inst.up_start)
    np.testing.assert_array_equal(again.up_end, inst.up_end)
    assert again.end_reasons.tolist() == inst.end_reasons.tolist()
    assert len(read_events(tmp_path / "out.tab")) == 2


# ---------------------------------------------------------------------- SimGrid profiles
def test_loopafter_and_periodicity_unroll():
    state0 = read_profile(SAMPLES / "host0.state")
    assert state0.loop_after == 50.0
    assert intervals_from_state(state0, 520.0) == [(0.0, 100.0), (150.0, 300.0), (350.0, 500.0)]
    state1 = read_profile(SAMPLES / "host1.state")
    assert intervals_from_state(state1, 250.0) == [(20.0, 60.0), (120.0, 160.0), (220.0, 250.0)]
    assert state1.value_at(130.0, 1.0) == 1.0 and state1.value_at(170.0, 1.0) == 0.0


def test_speed_profile_to_runs_and_the_issue_example():
    runs = runs_from_speed(read_profile(SAMPLES / "host0.speed"), 10.0, 1000.0)
    assert runs == [(0, 1.0), (1, 0.5), (3, 0.0), (4, 1.0)]
    with pytest.raises(InputError, match="not on the 10-s sample grid"):
        runs_from_speed(parse_profile("0 1\n15 0.5\n"), 10.0, 100.0)
    # hand-derived: a 3e9-flop task on a 1 Gflop/s host with speed 0 1.0 / 1 0.5 / 3 1.0 ends at 4.0 s
    speed = parse_profile("0 1.0\n1 0.5\n3 1.0\n")
    clock = 1e9 / REF_OPS_PER_S * 1500.0
    inst = PrescientInstance.build(
        [clock],
        [[(0.0, 100.0)]],
        tasks=1,
        task_minutes=1.0,
        cpu=[runs_from_speed(speed, 1.0, 100.0)],
        period=1.0,
    )
    finish, _, _ = WorkProfile(inst).earliest_completion(0, 0.0, 3e9)
    assert finish[()] == pytest.approx(4.0, abs=1e-12)


def test_read_profiles_builds_an_instance():
    inst = read_profiles(
        [SAMPLES / "host0.state", SAMPLES / "host1.state"],
        [SAMPLES / "host0.speed", SAMPLES / "host1.speed"],
        [1500.0, 750.0],
        tasks=2,
        task_minutes=1.0,
        horizon=400.0,
    )
    assert inst.intervals(0).tolist() == [[0.0, 100.0], [150.0, 300.0], [350.0, 400.0]]
    assert inst.intervals(1).tolist() == [[20.0, 60.0], [120.0, 160.0], [220.0, 260.0], [320.0, 360.0]]
    assert inst.cpu_runs(0)[1].tolist() == [1.0, 0.5, 0.0, 1.0]


PROFILE_BAD = [
    ("0 1\n5\n", "line 2: must be 'date value'"),
    ("0 1\nx 1\n", "line 2: must be two numbers"),
    ("5 1\n2 0\n", "line 2: events must be sorted"),
    ("-1 1\n", "line 1: the date must be a time >= 0"),
    ("0 -2\n", "line 1: the value must be a number >= 0"),
    ("0 1\nLOOPAFTER -1\n", "line 2: LOOPAFTER must be >= 0"),
    ("0 1\nPERIODICITY 0\n", "line 2: PERIODICITY must be > 0"),
    ("0 1\nLOOPAFTER x\n", "line 2: LOOPAFTER must be followed by a number"),
    ("0 1\nLOOPAFTER 0\n", "last more than 0 s per cycle"),
]


@pytest.mark.parametrize("text, fragment", PROFILE_BAD)
def test_malformed_profile_names_file_and_line(tmp_path, text, fragment):
    path = tmp_path / "h.state"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_profile(path)
    assert str(path) in str(info.value) and fragment in str(info.value)


def test_profile_text_round_trip():
    prof = Profile(np.array([0.0, 1 / 3, 2.5]), np.array([1.0, 0.123456789, 0.0]), loop_after=7.25)
    back = parse_profile(format_profile(prof))
    assert back.dates.tolist() == prof.dates.tolist() and back.values.tolist() == prof.values.tolist()
    assert back.loop_after == 7.25


@pytest.mark.parametrize("suspension", [True, False])
def test_written_host_profiles_read_back_as_the_same_traces(tmp_path, suspension):
    inst = PrescientInstance.build(
        [1500.0, 900.0],
        [[(0, 100), (100, 180), (250, 400)], [(10, 50)]],
        tasks=1,
        task_minutes=1.0,
        cpu=[[(0, 1.0), (2, 0.5), (5, 0.0), (6, 1.0)], [(0, 0.25)]],
        suspension=suspension,
        horizon=500.0,
    )
    paths = write_profiles(inst, tmp_path)
    assert [p.name for p in paths] == ["host0.state", "host0.speed", "host1.state", "host1.speed"]
    state, speed = host_profiles(inst, 0)
    # touching intervals: an off and an on at the same date (a kill); no suspension cuts [50, 60)
    cut = [(50.0, 0.0), (60.0, 1.0)] if not suspension else []
    after = [(100.0, 0.0), (100.0, 1.0), (180.0, 0.0), (250.0, 1.0), (400.0, 0.0)]
    assert list(zip(state.dates.tolist(), state.values.tolist(), strict=True)) == [(0.0, 1.0), *cut, *after]
    assert speed.dates.tolist() == [0.0, 20.0, 50.0, 60.0] and speed.values.tolist() == [1.0, 0.5, 0.0, 1.0]
    back = read_profiles(
        [tmp_path / "host0.state", tmp_path / "host1.state"],
        [tmp_path / "host0.speed", tmp_path / "host1.speed"],
        [1500.0, 900.0],
        tasks=1,
        task_minutes=1.0,
        horizon=500.0,
    )
    want = WorkProfile(inst)
    got = WorkProfile(back)
    if suspension:
        assert got.iv_start.tolist() == want.iv_start.tolist()
    else:
        # the state profile already has the zero-share cut; the effective intervals agree
        assert got.iv_start.tolist() == want.iv_start.tolist() and got.iv_end.tolist() == want.iv_end.tolist()
    np.testing.assert_allclose(got.iv_work, want.iv_work)


# ---------------------------------------------------------------------- SimGrid profiles: unrolling budget
WEEK = 7 * 86400.0


def _within(seconds: float):
    """Fail (``HardStop``) instead of hanging: the unbudgeted unrolling of a tiny loop never returned."""
    return hard_limit(seconds)


@pytest.mark.parametrize("speed", [False, True])
def test_a_loop_of_1e_300_s_over_a_week_is_refused_before_unrolling(tmp_path, speed):
    path = tmp_path / ("h.speed" if speed else "h.state")
    path.write_text("0 1\nLOOPAFTER 1e-300\n")
    state = SAMPLES / "host0.state" if speed else path
    with _within(5.0), pytest.raises(InputError) as info:
        read_profiles([state], [path] if speed else None, [1500.0], tasks=1, task_minutes=1.0, horizon=WEEK)
    assert str(info.value).startswith(f"{path}, line 2: LOOPAFTER: repeating 1 event(s) every 1e-300 s")
    assert f"more than {MAX_UNROLLED_EVENTS:,} events (MAX_UNROLLED_EVENTS)" in str(info.value)


@pytest.mark.parametrize("loop", ["LOOPAFTER 5e-324", "PERIODICITY 1e-300", "LOOPAFTER 0.5"])
def test_every_reader_of_a_profile_refuses_an_unrolling_beyond_the_budget(loop):
    """``0.5``: 2.4 million events in a week, a plain overrun of the budget (no float overflow)."""
    prof = parse_profile(f"# a comment\n0 1\n{loop}\n", "h.state")
    keyword = loop.split()[0]
    for read in (
        lambda: prof.unrolled(WEEK),
        lambda: prof.value_at(WEEK, 1.0),
        lambda: intervals_from_state(prof, WEEK),
        lambda: runs_from_speed(prof, 10.0, WEEK),
    ):
        with (
            _within(5.0),
            pytest.raises(InputError, match=rf"^h\.state, line 3: {keyword}: repeating 1 event"),
        ):
            read()
    built = Profile(np.array([0.0, 2.0]), np.array([1.0, 0.0]), loop_after=1e-300)
    with pytest.raises(InputError, match=r"^LOOPAFTER: repeating 2 event\(s\) every 2\.0 s up to 1e\+20 s"):
        built.unrolled(1e20)


def test_the_budget_counts_the_unrolled_events_exactly(monkeypatch):
    """On ``0 1 / 1 0 / LOOPAFTER 1`` (a 2-s cycle of 2 events from date 2), up to ``u`` makes
    ``2 (floor((u - 2) / 2) + 2)`` events: 100 up to 98 and 99.9, 102 up to 100 (hand-derived)."""
    monkeypatch.setattr("volsched.instances.prescient.simgrid_profiles.MAX_UNROLLED_EVENTS", 100)
    prof = parse_profile("0 1\n1 0\nLOOPAFTER 1\n")
    assert prof.repeats(98.0) == prof.repeats(99.9) == 49
    assert prof.unrolled(99.9)[0].size == 100
    with pytest.raises(InputError, match="makes more than 100 events"):
        prof.unrolled(100.0)
    assert prof.repeats(1.9) == 0 and prof.unrolled(1.9)[0].tolist() == [0.0, 1.0]


def _naive_unroll(dates: list, values: list, loop: float, until: float):
    """One cycle at a time, as SimGrid replays a looping profile: ``first_loop + k * cycle + offset``."""
    cycle = dates[-1] - dates[0] + loop
    first_loop = dates[-1] + loop
    out = [(d, v) for d, v in zip(dates, values, strict=True) if d <= until]
    k = 0
    while first_loop + k * cycle <= until:
        out += [(first_loop + k * cycle + (d - dates[0]), v) for d, v in zip(dates, values, strict=True)]
        k += 1
    return [(d, v) for d, v in out if d <= until], k


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.sampled_from([0.0, 0.25, 1.0, 3.5, 7.0]), min_size=0, max_size=4),
    start=st.sampled_from([0.0, 2.0, 10.5]),
    loop=st.sampled_from([0.0, 0.125, 0.1, 1.0, 2.5]),
    until=st.floats(0.0, 400.0),
    budget=st.integers(1, 400),
)
def test_unrolling_matches_a_cycle_by_cycle_replay_within_the_budget(gaps, start, loop, until, budget):
    import volsched.instances.prescient.simgrid_profiles as sp

    dates = [start]
    for g in gaps:
        dates.append(dates[-1] + g)
    values = [float(i % 3) / 2 for i in range(len(dates))]
    if dates[-1] - dates[0] + loop <= 0:
        return
    prof = Profile(np.array(dates), np.array(values), loop_after=loop)
    want, cycles = _naive_unroll(dates, values, loop, until)
    old = sp.MAX_UNROLLED_EVENTS
    sp.MAX_UNROLLED_EVENTS = budget
    try:
        if cycles > 0 and (cycles + 1) * len(dates) > budget:  # the file's own events are no unrolling
            with pytest.raises(InputError, match="MAX_UNROLLED_EVENTS"):
                prof.unrolled(until)
            return
        d, v = prof.unrolled(until)
    finally:
        sp.MAX_UNROLLED_EVENTS = old
    assert list(zip(d.tolist(), v.tolist(), strict=True)) == want
