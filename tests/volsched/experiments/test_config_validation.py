"""Every sweep grid value goes through its generator's checks before any task runs (``check_grid_values``).

A value only the generator refuses (``alpha = 0``, a missing ``file``, a broken FTA trace, too many
host-days) used to pass the config and become ``error`` rows, exit 0; it is now exit 2 with one line
naming the grid key and value, and nothing written: no store created, an existing one untouched.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import tomllib
from pathlib import Path

import pytest
from oracles.cli import assert_input_error, run

import volsched.families
from volsched.experiments.config import parse_config, star_points
from volsched.experiments.runner import run_sweep
from volsched.experiments.store import Store
from volsched.instances.errors import InputError

BROKEN = Path(__file__).resolve().parents[2] / "data" / "broken" / "sweep"
EXPECTED = json.loads((BROKEN / "EXPECTED.json").read_text())


def _files(folder: Path) -> dict:
    return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()}


def test_every_broken_sweep_has_an_expected_error():
    assert sorted(EXPECTED) == sorted(p.name for p in BROKEN.glob("*.toml"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_grid_value_its_generator_refuses_exits_2_and_creates_no_store(capsys, tmp_path, monkeypatch, name):
    monkeypatch.chdir(BROKEN)  # the configs name their files relative to their folder
    before = _files(BROKEN)
    code, out, err = run(capsys, "sweep", name, "--store", tmp_path / "s.db", "--workers", 1, "--quiet")
    assert_input_error(code, err, EXPECTED[name])
    assert out == "" and list(tmp_path.iterdir()) == [] and _files(BROKEN) == before


def test_an_existing_store_is_left_untouched(capsys, tmp_path):
    good = tmp_path / "good.toml"
    good.write_text('name = "alpha"\nfamily = "checkpoint"\nseeds = 1\nheuristics = []\n[grid]\nslices = 4\n')
    store = tmp_path / "s.db"
    code, _, err = run(capsys, "sweep", good, "--store", store, "--workers", 1, "--quiet")
    assert code == 0, err
    before = _files(tmp_path)
    bad = BROKEN / "checkpoint_alpha_zero.toml"
    code, out, err = run(capsys, "sweep", bad, "--store", store, "--workers", 1, "--quiet", "--json")
    assert_input_error(code, err, "grid.alpha[0] = 0.0: alpha: must be in (0, 1], got 0.0")
    assert out == "" and _files(tmp_path) == before


def test_the_issue_grid_stored_20_error_rows_of_30_and_exited_0(tmp_path):
    """``alpha = [0.0, 1e-300, 1.5]``: the generator refuses 0 and 1.5, not 1e-300 (in (0, 1])."""
    text = (BROKEN / "checkpoint_alpha_zero.toml").read_text()
    with pytest.raises(InputError, match=r"^config\.grid\.alpha\[0\] = 0\.0: alpha: must be in \(0, 1\]"):
        parse_config(tomllib.loads(text))
    kept = parse_config(tomllib.loads(text.replace("0.0, 1e-300, 1.5", "1e-300")))[0]
    assert kept.grid["alpha"] == [1e-300]
    with pytest.raises(InputError, match=r"^config\.grid\.alpha\[1\] = 1\.5: "):
        parse_config(tomllib.loads(text.replace("0.0, 1e-300, 1.5", "1e-300, 1.5")))


@pytest.mark.parametrize("bad, index", [(0.0, 0), (1.5, 1), (-2.0, 2)])
def test_the_value_named_is_the_one_refused_wherever_it_is(bad, index):
    alphas = [0.5, 1.0]
    alphas.insert(index, bad)
    obj = {"family": "checkpoint", "grid": {"slices": [3, 4], "alpha": alphas}}
    with pytest.raises(InputError) as info:
        parse_config(obj)
    assert str(info.value).startswith(f"config.grid.alpha[{index}] = {bad!r}: alpha: ")


def test_every_value_is_built_once_and_not_every_point(monkeypatch):
    """Four keys of 3, 2, 1 and 4 values: 1 + 2 + 1 + 0 + 3 = 7 instances built, not the product's 24."""
    built = []
    real = volsched.families.Family.generate_from
    monkeypatch.setattr(
        volsched.families.Family,
        "generate_from",
        lambda self, params: built.append(params) or real(self, params),
    )
    grid = {
        "slices": [3, 4, 5],
        "law": ["weibull", "exponential"],
        "alpha": [1.0],
        "slice_hours": [[0.05, 0.5], [0.1, 0.5], [0.2, 0.5], [0.05, 1.0]],
    }
    (sweep,) = parse_config({"family": "checkpoint", "seeds": [7, 8], "grid": grid})
    assert len(built) == 1 + 2 + 1 + 0 + 3 == len(star_points(sweep.grid))
    values = {k: {repr(p[k]) for p in built} for k in grid}
    assert all(values[k] == {repr(v) for v in sweep.grid[k]} for k in grid)  # every value met
    assert {p["seed"] for p in built} == {7}


def test_star_points_meet_each_value_once_with_the_others_at_their_first():
    grid = {"a": [1, 2, 3], "b": ["x"], "c": [[0, 1], [1, 2]]}
    assert star_points(grid) == [
        (None, 0, {"a": 1, "b": "x", "c": [0, 1]}),
        ("a", 1, {"a": 2, "b": "x", "c": [0, 1]}),
        ("a", 2, {"a": 3, "b": "x", "c": [0, 1]}),
        ("c", 1, {"a": 1, "b": "x", "c": [1, 2]}),
    ]


def test_a_refusal_naming_no_grid_key_names_the_whole_point(monkeypatch):
    def refuse(self, params):
        raise InputError("platform budget: too large")

    monkeypatch.setattr(volsched.families.Family, "generate_from", refuse)
    with pytest.raises(InputError) as info:
        parse_config({"family": "checkpoint", "seeds": [3], "grid": {"slices": [4, 5], "law": "weibull"}})
    assert str(info.value) == (
        "config.grid: the grid point {law = 'weibull', slices = 4} (seed 3): platform budget: too large"
    )


def test_a_generator_bug_is_not_bad_input(monkeypatch):
    monkeypatch.setattr(volsched.families.Family, "generate_from", lambda self, params: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        parse_config({"family": "checkpoint", "grid": {"slices": 4}})


def test_what_a_generator_prints_while_checked_is_not_printed(capsys):
    (sweep,) = parse_config(
        {
            "family": "prescient",
            "grid": {"platform": "sdsc", "hosts": 4, "days": 2, "tasks": 2, "calibrate": True},
        }
    )
    assert sweep.grid["calibrate"] == [True]
    assert capsys.readouterr() == ("", "")


def test_the_runner_still_stores_a_generation_that_fails_at_run_time(tmp_path):
    """A failure the checks cannot see (a file deleted after them) is an ``error`` row, the sweep goes on."""
    (sweep,) = parse_config(
        {"family": "checkpoint", "seeds": 1, "heuristics": [], "grid": {"slices": 4, "alpha": [0.5]}}
    )
    sweep = dataclasses.replace(sweep, grid={**sweep.grid, "alpha": [0.5, 1.5]})
    summary = run_sweep([sweep], tmp_path / "s.db", workers=1, quiet=True)
    assert (summary["tasks"], summary["done"], summary["failed"]) == (2, 2, 1)
    with Store(tmp_path / "s.db") as store:
        rows = {r["params"]["alpha"]: r for r in store.rows()}
    assert rows[1.5]["status"] == "error" and rows[1.5]["error"].startswith("InputError: alpha: ")
    assert rows[0.5]["status"] == "optimal"
    assert sqlite3.connect(tmp_path / "s.db").execute("select count(*) from results").fetchone() == (2,)
