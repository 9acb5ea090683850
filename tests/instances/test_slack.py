"""The slack instance model: validation naming field and index, exact JSON round trip, derived dates."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volsched.instances.errors import InputError
from volsched.instances.io import read_json
from volsched.instances.slack import SlackInstance, beta_ratio

BROKEN = Path(__file__).resolve().parents[1] / "data" / "broken" / "slack"
EXPECTED = json.loads((BROKEN / "EXPECTED.json").read_text())


def test_every_broken_file_has_an_expected_error():
    assert {p.name for p in BROKEN.glob("*.json")} - {"EXPECTED.json"} == set(EXPECTED)
    assert len(EXPECTED) >= 20


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_file_is_rejected_naming_the_field(name):
    with pytest.raises(InputError) as err:
        SlackInstance.from_json(read_json(BROKEN / name))
    assert EXPECTED[name] in str(err.value)


def test_the_valid_base_of_the_broken_files_loads():
    obj = read_json(BROKEN / "p_zero.json")
    obj["data"]["p"] = [3, 4, 5]
    inst = SlackInstance.from_json(obj)
    assert (inst.m, inst.n, inst.lam, inst.free) == (3, 3, 1, (2,))


def test_derived_dates_follow_section_3_1():
    # machine 0: available [0, 10), unavailable [10, 12), available [12, 20), unavailable [20, 25)
    inst = SlackInstance(machines=[[[10, 12], [20, 25]], [[0, 6]], []], p=[3, 4])
    assert inst.a(0).tolist() == [10, 8] and inst.u(0).tolist() == [2, 5]
    assert inst.s(0).tolist() == [10, 20] and inst.e(0).tolist() == [12, 25]
    assert inst.a(1).tolist() == [0] and inst.u(1).tolist() == [6]  # a trace that starts unavailable
    t = inst.table
    assert t["machine"].tolist() == [0, 0, 1] and t["k"].tolist() == [0, 1, 0]
    assert t["start"].tolist() == [0, 12, 0] and t["a"].tolist() == [10, 8, 0]
    assert (inst.a_min, inst.u_max, inst.gamma, inst.horizon) == (0, 6, float("inf"), 25)
    assert inst.lam == 1 and not inst.theorem2_assumption


def test_theorem2_assumption_and_gamma():
    machines = [[[10, 12], [20, 23]], []]  # a = 10, 8; u = 2, 3
    inst = SlackInstance(machines=machines, p=[4, 5])
    assert inst.a_min == 8 and inst.u_max == 3 and inst.gamma == 3 / 8
    assert not inst.theorem2_assumption  # 2 * 5 = 10 > 8
    assert SlackInstance(machines=machines, p=[4, 3]).theorem2_assumption  # 2 * 4 = 8 <= 8


def test_all_free_machines():
    inst = SlackInstance(machines=[[], []], p=[1])
    assert inst.lam == 2 and inst.a_min is None and inst.gamma is None and inst.horizon == 0
    assert inst.theorem2_assumption


def test_with_beta_returns_a_new_validated_instance():
    inst = SlackInstance(machines=[[[10, 12]], []], p=[3], name="x", params={"seed": 1})
    half = inst.with_beta(0.5)
    assert half.beta == 0.5 and inst.beta == 1.0
    assert half.name == "x" and half.params == {"seed": 1} and half.machines[0].tolist() == [[10, 12]]
    with pytest.raises(InputError, match=r"--beta: must be a number in \[0, 1\]"):
        inst.with_beta(1.01)
    with pytest.raises(InputError, match="--beta"):
        inst.with_beta(float("nan"))


def test_beta_is_read_as_the_decimal_it_is_written_as():
    assert beta_ratio(0.1) == (1, 10)
    assert beta_ratio(0.7) == (7, 10)
    assert beta_ratio(1) == (1, 1) and beta_ratio(0.0) == (0, 1)
    assert SlackInstance(machines=[[]], p=[1], beta=0.25).beta_ratio == (1, 4)


def test_intervals_are_read_only_arrays_and_inputs_are_copied():
    rows = [[[1, 2]]]
    inst = SlackInstance(machines=rows, p=[1])
    rows[0][0][0] = 0
    assert inst.machines[0].tolist() == [[1, 2]]
    with pytest.raises(ValueError):
        inst.table["e"][0] = 5


def test_numpy_inputs_are_accepted():
    inst = SlackInstance(
        machines=[np.array([[1, 2], [4, 9]]), np.zeros((0, 2), dtype=np.int64)], p=np.array([2, 3])
    )
    assert inst.lam == 1 and inst.e(0).tolist() == [2, 9]


intervals = st.lists(st.tuples(st.integers(0, 50), st.integers(1, 50)), max_size=6).map(
    lambda au: [
        [sum(a + u for a, u in au[:k]) + au[k][0], sum(a + u for a, u in au[: k + 1])] for k in range(len(au))
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    machines=st.lists(intervals, min_size=1, max_size=5),
    p=st.lists(st.integers(1, 10**9), min_size=1, max_size=8),
    beta=st.one_of(st.floats(0, 1), st.sampled_from([0, 1, 0.1, 0.3, 0.7])),
)
def test_json_round_trip_is_exact(machines, p, beta):
    inst = SlackInstance(machines=machines, p=p, beta=beta, name="rt", params={"seed": 3})
    obj = json.loads(json.dumps(inst.to_json()))
    back = SlackInstance.from_json(obj)
    assert back.to_json() == inst.to_json()
    assert [v.tolist() for v in back.machines] == [list(map(list, v)) for v in machines]
    assert back.p.tolist() == p and back.beta == float(beta)
    assert back.lam == sum(1 for v in machines if not v)
    for i in range(back.m):  # contiguity: s = e_prev + a, e = s + u
        e_prev = np.concatenate([[0], back.e(i)[:-1]])
        assert (back.s(i) == e_prev + back.a(i)).all() and (back.e(i) == back.s(i) + back.u(i)).all()
        assert (back.a(i) >= 0).all() and (back.u(i) >= 1).all()


def test_beta_defaults_to_one_when_the_file_has_none():
    obj = SlackInstance(machines=[[]], p=[1], beta=0.3).to_json()
    del obj["data"]["beta"]
    assert SlackInstance.from_json(obj).beta == 1.0


@pytest.mark.parametrize(
    "rows, fragment",
    [
        ([[5, 4]], "machines[0][0][1]: e = 4 must be after s = 5"),
        ([[3, 5], [4, 8]], "machines[0][1][0]: s = 4 is before the end 5"),
        ([[-1, 2]], "machines[0][0][0]: must be a date in [0,"),
        ([[1, 2 * 10**9]], "machines[0][0][1]: must be a date in [0,"),
    ],
)
def test_numpy_arrays_are_checked_like_lists(rows, fragment):
    for value in (rows, np.array(rows, dtype=np.int64)):
        with pytest.raises(InputError) as err:
            SlackInstance(machines=[value, []], p=[1])
        assert fragment in str(err.value)
