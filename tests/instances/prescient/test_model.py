"""The prescient instance model (Kondo et al. 2007, Sections 2.1, 3.1): validation, exact JSON round trips."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from volsched.instances.errors import InputError
from volsched.instances.prescient import REF_OPS_PER_S, PrescientInstance, ops_per_second, task_ops


def small(**kw):
    args = dict(
        clock_mhz=[1500.0, 797.0],
        up=[[(0, 100), (150, 400)], [(10, 50)]],
        tasks=3,
        task_minutes=1.0,
        cpu=[[(0, 1.0), (2, 0.5), (5, 0.0), (6, 1.0)], [(0, 0.75)]],
    )
    args.update(kw)
    clock, up = args.pop("clock_mhz"), args.pop("up")
    return PrescientInstance.build(clock, up, **args)


def test_units_follow_section_3_1():
    assert task_ops(5) == 5 * 60 * 110.7e6
    assert ops_per_second(1500) == REF_OPS_PER_S
    assert ops_per_second(3000) == 2 * REF_OPS_PER_S
    inst = small()
    assert inst.n_hosts == 2 and inst.n_tasks == 3 and inst.identical
    np.testing.assert_array_equal(inst.task_ops, [60 * 110.7e6] * 3)
    assert inst.share_at(0, 19.999) == 1.0 and inst.share_at(0, 20) == 0.5 and inst.share_at(0, 55) == 0.0
    assert inst.horizon == 400.0 and inst.period == 10.0 and inst.suspension


def roundtrip(inst):
    obj = inst.to_json()
    text = json.dumps(obj)
    back = PrescientInstance.from_json(json.loads(text))
    assert back.to_json() == obj
    for key in (
        "clock_mhz",
        "up_start",
        "up_end",
        "up_ptr",
        "cpu_index",
        "cpu_share",
        "cpu_ptr",
        "task_minutes",
    ):
        a, b = getattr(inst, key), getattr(back, key)
        assert a.dtype == b.dtype and np.array_equal(a, b), key
    return back


def test_json_round_trip_is_exact():
    inst = small(start=12.5, history=(0.0, 10.0), horizon=1000.0, params={"seed": 3})
    back = roundtrip(inst)
    assert back == inst and back.history == (0.0, 10.0) and back.params == {"seed": 3}
    assert inst.to_json()["data"]["task_minutes"] == 1.0


def test_json_round_trip_non_identical_with_reasons_and_names():
    rng = np.random.default_rng(1)
    up = [[(0.1 * rng.random(), 33.3 + rng.random())], [(1 / 3, 2 / 3), (2 / 3, 7.0)]]
    inst = PrescientInstance.build(
        [1234.5678, 25.0],
        up,
        task_minutes=[0.1, 1 / 3, 35.0],
        end_reasons=[[5], [6, -1]],
        host_names=["a", "b"],
        suspension=False,
        period=2.0,
    )
    back = roundtrip(inst)
    assert not back.identical and back.host_names == ("a", "b") and not back.suspension
    assert back.end_reasons.tolist() == [5, 6, -1]


def test_arrays_are_read_only():
    inst = small()
    with pytest.raises(ValueError):
        inst.up_start[0] = 5.0


BAD = [
    (dict(up=[[(0, 100), (90, 400)], [(10, 50)]]), "up[0][1][0]: intervals overlapping"),
    (dict(up=[[(150, 400), (0, 100)], [(10, 50)]]), "up[0][1][0]: intervals unsorted"),
    (dict(up=[[(0, 100)], [(-1, 50)]]), "up[1][0][0]: must be a time"),
    (dict(up=[[(0, 100)], [(1, math.nan)]]), "up[1][0][1]: must be a time"),
    (dict(up=[[(0, 100)], [(5, 5)]]), "up[1][0][1]: an interval must end after it starts"),
    (dict(up=[[(0, 100)], []]), "up[1]: host 1 has no availability over the whole trace"),
    (dict(cpu=[[(0, 1.0)], [(0, 1.5)]]), "cpu[1][0][1]: a CPU share must be in [0, 1]"),
    (dict(cpu=[[(0, 1.0), (3, -0.1)], [(0, 1.0)]]), "cpu[0][1][1]: a CPU share must be in [0, 1]"),
    (dict(cpu=[[(0, 1.0), (3, math.nan)], [(0, 1.0)]]), "cpu[0][1][1]"),
    (dict(cpu=[[(1, 1.0)], [(0, 1.0)]]), "cpu[0][0][0]: a host's first CPU run must start at sample 0"),
    (dict(cpu=[[(0, 1.0), (4, 0.5), (4, 0.2)], [(0, 1.0)]]), "cpu[0][2][0]: CPU runs must start at strictly"),
    (dict(tasks=0), "tasks: T = 0"),
    (dict(tasks=None, task_minutes=[1.0, 0.0]), "task_minutes[1]: a task size must be a positive"),
    (dict(tasks=None, task_minutes=[-3.0]), "task_minutes[0]"),
    (dict(tasks=None, task_minutes=[math.inf]), "task_minutes[0]"),
    (dict(clock_mhz=[1500.0, 0.0]), "clock_mhz[1]: must be a clock rate"),
    (dict(period=0.0), "period: must be a positive number"),
    (dict(start=400.0), "start: must be a time in [0, horizon"),
    (dict(start=-1.0), "start"),
    (dict(horizon=399.0), "horizon: must be a time at or after the last interval's end"),
    (dict(start=5.0, history=(0.0, 6.0)), "history[1]"),
    (dict(start=5.0, history=(4.0, 4.0)), "history[1]"),
]


@pytest.mark.parametrize("changes, fragment", BAD)
def test_bad_instances_name_field_and_index(changes, fragment):
    with pytest.raises(InputError) as info:
        small(**changes)
    assert fragment in str(info.value)


def test_a_host_down_throughout_one_window_is_fine():
    inst = small(up=[[(0, 100)], [(10000, 10050)]], start=5.0)
    assert inst.window(0, 200).up_ptr.tolist() == [0, 1, 1]


BAD_JSON = [
    (("up", 1, 0, 0), True, "up[1][0][0]: must be a number"),
    (("up", 1, 0, 1), "50", "up[1][0][1]: must be a number"),
    (("up", 1, 0), [10], "up[1][0]: must be a [number, number] pair"),
    (("up", 0), "x", "up[0]: must be a list"),
    (("cpu", 0, 1, 0), 2.0, "cpu[0][1][0]: must be an integer sample index"),
    (("clock_mhz", 1), None, "clock_mhz[1]: must be a number"),
    (("tasks",), 0, "tasks: must be an integer >= 1"),
    (("tasks",), 2, "task_minutes"),
    (("suspension",), 1, "suspension: must be true or false"),
    (("history",), [0, "a"], "history: must be a [start, end] pair"),
    (("task_minutes",), "15", "task_minutes: must be a number or a list"),
]


@pytest.mark.parametrize("path, value, fragment", BAD_JSON)
def test_bad_json_names_field_and_index(path, value, fragment):
    inst = small(tasks=None, task_minutes=[1.0, 2.0, 3.0])
    obj = copy.deepcopy(inst.to_json())
    node = obj["data"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(InputError) as info:
        PrescientInstance.from_json(obj)
    assert fragment in str(info.value)


def test_unknown_and_missing_fields():
    obj = small().to_json()
    obj["data"]["extra"] = 1
    with pytest.raises(InputError, match=r"data.extra: unknown field"):
        PrescientInstance.from_json(obj)
    obj = small().to_json()
    del obj["data"]["cpu"]
    with pytest.raises(InputError, match=r"data.cpu: missing"):
        PrescientInstance.from_json(obj)


def test_window_clips_intervals():
    inst = small()
    win = inst.window(50, 200)
    assert win.up_start.tolist() == [50, 150] and win.up_end.tolist() == [100, 200]
    assert win.up_ptr.tolist() == [0, 2, 2]
    assert small(start=300.0, history=(40.0, 160.0)).history_window().up_end.tolist() == [100, 160, 50]


def test_with_tasks():
    inst = small().with_tasks(7, 35.0)
    assert inst.n_tasks == 7 and inst.identical and inst.task_minutes[0] == 35.0


@pytest.mark.parametrize(
    "path, value, fragment",
    [
        (("up", 0, 0, 1), 10**400, "up[0][0][1]: must be at most"),
        (("cpu", 0, 1, 0), 2**70, "cpu[0][1][0]: must be at most"),
        (("up", 0, 0, 0), math.inf, "up[0][0][0]: must be finite"),
        (("end_reasons", 1, 0), 1.5, "end_reasons[1][0]: must be an integer"),
        (("end_reasons", 1), [], "end_reasons[1]: has 0 codes, up[1] has 1 intervals"),
    ],
)
def test_huge_and_odd_json_values(path, value, fragment):
    obj = copy.deepcopy(small(end_reasons=[[1, 2], [3]]).to_json())
    node = obj["data"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(InputError) as info:
        PrescientInstance.from_json(obj)
    assert fragment in str(info.value)
