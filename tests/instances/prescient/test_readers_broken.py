"""Broken FTA traces and SimGrid profiles (``tests/data/broken/prescient``): refused naming file, line, field.

Each FTA file is read by :func:`read_fta` and by ``volsched generate prescient --fta``; no command reads
SimGrid profiles (``volsched export`` writes them), so those go through :func:`read_profiles`, over a week.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from oracles.cli import assert_input_error, run

from volsched.instances.errors import InputError
from volsched.instances.prescient.fta import read_fta
from volsched.instances.prescient.simgrid_profiles import read_profiles

DATA = Path(__file__).resolve().parents[2] / "data"
FTA = DATA / "broken" / "prescient" / "fta"
PROFILES = DATA / "broken" / "prescient" / "profiles"
FTA_EXPECTED = json.loads((FTA / "EXPECTED.json").read_text())
PROFILES_EXPECTED = json.loads((PROFILES / "EXPECTED.json").read_text())
WEEK = 7 * 86400.0


def test_every_broken_trace_has_an_expected_error():
    assert sorted(FTA_EXPECTED) == sorted(p.name for p in FTA.iterdir() if p.name != "EXPECTED.json")
    assert sorted(PROFILES_EXPECTED) == sorted(
        p.name for p in PROFILES.iterdir() if p.name != "EXPECTED.json"
    )


@pytest.mark.parametrize("name", sorted(FTA_EXPECTED))
def test_a_broken_fta_trace_is_input_error_naming_file_line_and_field(name):
    with pytest.raises(InputError) as info:
        read_fta(FTA / name, 2, 5.0)
    assert str(info.value) == f"{FTA / name}, {FTA_EXPECTED[name]}"


@pytest.mark.parametrize("name", sorted(FTA_EXPECTED))
def test_a_broken_fta_trace_exits_2_with_one_line_and_writes_nothing(capsys, tmp_path, name):
    out = tmp_path / "out" / "i.json"
    code, stdout, err = run(
        capsys, "generate", "prescient", "--fta", FTA / name, "--tasks", 2, "--task-minutes", 5, "--out", out
    )
    assert_input_error(code, err, f"{FTA / name}, {FTA_EXPECTED[name]}")
    assert stdout == "" and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", sorted(PROFILES_EXPECTED))
def test_a_profile_unrolling_beyond_the_budget_is_input_error_naming_file_line_and_field(name):
    path = PROFILES / name
    state, speed = (
        ([path], None) if path.suffix == ".state" else ([DATA / "prescient" / "host0.state"], [path])
    )
    with pytest.raises(InputError) as info:
        read_profiles(state, speed, [1500.0], tasks=1, task_minutes=1.0, horizon=WEEK)
    assert str(info.value).startswith(f"{path}, {PROFILES_EXPECTED[name]}")
