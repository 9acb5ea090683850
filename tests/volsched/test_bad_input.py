"""Every bad input exits 2 with one line, and nothing is written (the CLI contract, DESIGN.md)."""

from __future__ import annotations

import json
import os
import stat

import pytest
from oracles.cli import assert_input_error, run

from volsched.instances.coupled import generate_markov
from volsched.instances.io import write_json


@pytest.fixture
def coupled(tmp_path):
    path = tmp_path / "c.json"
    write_json(path, generate_markov(5, 30, 2, 0).to_json())
    return path


def _with(path, tmp_path, **data):
    obj = json.loads(path.read_text())
    obj["data"].update(data)
    out = tmp_path / "changed.json"
    out.write_text(json.dumps(obj))
    return out


@pytest.mark.parametrize(
    "field, value, fragment",
    [
        ("w", [10**30, 1, 1, 1, 1], "w[0]: must be at most 1000000000"),
        ("w", [2**63, 1, 1, 1, 1], "w[0]: must be at most"),
        ("K", 2**62, "K: must be at most"),
        ("T_prog", 10**30, "T_prog: must be at most"),
    ],
)
def test_huge_integers_in_an_instance_are_bad_input(capsys, tmp_path, coupled, field, value, fragment):
    code, _out, err = run(capsys, "solve", _with(coupled, tmp_path, **{field: value}))
    assert_input_error(code, err, fragment)


def test_a_huge_objective_in_a_result_is_bad_input(capsys, tmp_path, coupled):
    result = tmp_path / "r.json"
    result.write_text(json.dumps({"objective": 2**1030, "solution": {"processors": [0, 1]}}))
    code, _, err = run(capsys, "verify", coupled, result)
    assert_input_error(code, err, "objective: must be a finite number or null")


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["generate", "checkpoint", "--slices", "1000000000000"], "--slices: must be at most"),
        (["solve", "{coupled}", "--seed", "18446744073709551616"], "--seed: must be at most"),
        (["solve", "{coupled}", "--seed", "-1"], "--seed: must be an integer >= 0"),
        (["generate", "checkpoint", "--seed", "-1"], "--seed: must be an integer >= 0"),
        (["solve", "{coupled}", "--time-limit", "0"], "--time-limit: must be a positive, finite number"),
        (["solve", "{coupled}", "--time-limit", "nan"], "--time-limit"),
        (["solve", "{coupled}", "--time-limit", "inf"], "--time-limit"),
        (["solve", "{coupled}", "--time-limit", "1e400"], "--time-limit"),
        (["solve", "{coupled}", "--time-limit", "-2"], "--time-limit"),
        (["generate", "coupled", "--preset", "markov", "--density", "2"], "--density: generator 'markov'"),
    ],
)
def test_bad_options_exit_2(capsys, tmp_path, coupled, argv, fragment):
    argv = [a.replace("{coupled}", str(coupled)) for a in argv]
    code, _out, err = run(capsys, *argv, "--out", tmp_path / "o.json")
    assert_input_error(code, err, fragment)
    assert not (tmp_path / "o.json").exists()


def test_deep_json_and_endless_files_are_bad_input(capsys, tmp_path, coupled):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    code, _, err = run(capsys, "solve", deep)
    assert_input_error(code, err, "nested too deeply")
    if os.path.exists("/dev/zero"):
        code, _, err = run(capsys, "verify", coupled, "/dev/zero")
        assert_input_error(code, err, "larger than")


@pytest.mark.parametrize("command", [["solve", "{coupled}"], ["generate", "checkpoint"], ["demo"]])
def test_an_unwritable_output_is_bad_input(capsys, coupled, command):
    argv = [a.replace("{coupled}", str(coupled)) for a in command]
    code, _out, err = run(capsys, *argv, "--out", "/proc/volsched-nope/x")
    assert_input_error(code, err, "/proc/volsched-nope")


def test_output_files_follow_the_umask(capsys, tmp_path, coupled):
    old = os.umask(0o022)
    try:
        assert run(capsys, "solve", coupled, "--out", tmp_path / "r.json")[0] == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o644
