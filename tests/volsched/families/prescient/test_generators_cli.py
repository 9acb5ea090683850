"""``volsched generate prescient`` as its documented command lines, and bad prescient input on the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.instances.io import read_json
from volsched.instances.prescient import PrescientInstance

DATA = Path(__file__).resolve().parents[3] / "data"
FTA = DATA / "prescient" / "fta_header_tabs.tab"
BROKEN = DATA / "broken" / "prescient"
EXPECTED = json.loads((BROKEN / "EXPECTED.json").read_text())


@pytest.mark.parametrize("platform", ["sdsc", "deug", "lri", "ucb", "gimps", "lri-wisc"])
def test_generate_platform_exactly_as_the_issue(capsys, tmp_path, platform):
    out = tmp_path / "i.json"
    code, _, err = run(
        capsys,
        "generate",
        "prescient",
        "--platform",
        platform,
        "--hosts",
        25,
        "--tasks",
        10,
        "--task-minutes",
        5,
        "--seed",
        2,
        "--out",
        out,
    )
    assert code == 0, err
    inst = PrescientInstance.from_json(read_json(out))
    assert inst.n_hosts == 25 and inst.n_tasks == 10 and inst.params["platform"] == platform


def test_generate_fta_exactly_as_the_issue_then_solve(capsys, tmp_path):
    out = tmp_path / "f.json"
    code, _, err = run(
        capsys, "generate", "prescient", "--fta", FTA, "--tasks", 3, "--task-minutes", 5, "--out", out
    )
    assert code == 0, err
    code, stdout, err = run(capsys, "solve", out, "--method", "greedy", "--json")
    assert code == 0, err
    result = one_json(stdout)
    # two hosts up from the first event (pc-a) and 600 s later (pc-b), 300 s per task at 1.5 GHz:
    # back to back, pc-a completes at 300, 600, 900 s and pc-b (up from 600 s) at 900 s: the third
    # smallest completion is 900 s
    assert result["status"] == "optimal" and result["objective"] == pytest.approx(900.0)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_instance_files_exit_2_naming_the_field(capsys, tmp_path, name):
    code, _, err = run(capsys, "solve", BROKEN / name, "--out", tmp_path / "r.json")
    assert_input_error(code, err, EXPECTED[name])
    assert not (tmp_path / "r.json").exists()


def test_malformed_fta_exits_2_naming_file_and_line(capsys, tmp_path):
    bad = tmp_path / "event_trace.tab"
    bad.write_text("1 1 1 1 a 1 0 100 1\n2 1 1 1 a 7 100 200 1\n")
    code, _, err = run(capsys, "generate", "prescient", "--fta", bad, "--out", tmp_path / "o.json")
    assert_input_error(code, err, f"{bad}, line 2: event_type must be 1 (available) or 0")
    assert not (tmp_path / "o.json").exists()


def test_platform_and_fta_together_exit_2(capsys, tmp_path):
    code, _, err = run(
        capsys, "generate", "prescient", "--fta", FTA, "--platform", "sdsc", "--out", tmp_path / "o.json"
    )
    assert_input_error(code, err, "--platform: generator 'fta' does not use it")
