"""The prescient generators behind ``volsched generate prescient`` (the command lines of its docstring)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from volsched.families.prescient.family import FAMILY
from volsched.instances.errors import InputError
from volsched.instances.prescient.fta import read_fta
from volsched.instances.prescient.platforms import generate_platform

FTA = Path(__file__).resolve().parents[3] / "data" / "prescient" / "fta_header_tabs.tab"


def generate(*argv):
    parser = argparse.ArgumentParser()
    FAMILY.add_generate_arguments(parser)
    return FAMILY.generate_args(parser.parse_args([str(a) for a in argv]))


@pytest.mark.parametrize("platform", ["sdsc", "deug", "lri", "ucb", "gimps", "lri-wisc"])
def test_the_platform_command(platform):
    inst = generate("--platform", platform, "--hosts", 12, "--tasks", 7, "--task-minutes", 5, "--seed", 4)
    assert inst.params == {
        "preset": "platform",
        "platform": platform,
        "hosts": 12,
        "tasks": 7,
        "task_minutes": 5.0,
        "seed": 4,
        "days": 7,
        "calibrate": False,
    }
    same = generate_platform(platform, 12, 7, 5.0, 4)
    assert json.dumps(inst.to_json()["data"]) == json.dumps(same.to_json()["data"])


def test_the_fta_command():
    inst = generate("--fta", FTA, "--tasks", 4, "--task-minutes", 5)
    assert inst.params["preset"] == "fta" and inst.params["start"] == "first"
    assert inst.to_json()["data"] == read_fta(FTA, 4, 5.0).to_json()["data"]
    assert inst.clock_mhz.tolist() == [1500.0, 1500.0]
    clocked = generate(
        "--fta", FTA, "--tasks", 4, "--task-minutes", 5, "--clock", 2400, "--start", 1100002000
    )
    assert clocked.clock_mhz.tolist() == [2400.0, 2400.0] and clocked.start == 1100002000.0


def test_the_preset_still_chooses():
    assert generate("--preset", "fta", "--fta", FTA).params["preset"] == "fta"
    assert generate().params["preset"] == "platform"  # no option: the default synthetic SDSC platform


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--fta", FTA, "--platform", "sdsc"], "--platform: generator 'fta' does not use it"),
        (["--fta", FTA, "--hosts", "5"], "--hosts: generator 'fta' does not use it"),
        (["--preset", "fta"], "--fta: generator 'fta' needs it"),
        (["--platform", "seti"], "--platform: must be one of"),
        (["--platform", "sdsc", "--tasks", "0"], "--tasks: must be an integer >= 1"),
        (["--platform", "sdsc", "--task-minutes", "0"], "--task-minutes: must be positive"),
        (["--fta", FTA, "--start", "later"], "--start: must be 'first' or a time"),
        (["--fta", FTA, "--clock", "-1"], "--clock"),
    ],
)
def test_bad_generate_options(argv, fragment):
    with pytest.raises(InputError) as info:
        generate(*argv)
    assert fragment in str(info.value)


def test_calibrate_prints_the_check_on_stderr(capsys):
    generate("--platform", "sdsc", "--hosts", 30, "--tasks", 5, "--calibrate")
    err = capsys.readouterr().err
    assert "failure rate, 5-min tasks" in err and "(paper, SDSC: 6.33 %)" in err and "CV" in err
