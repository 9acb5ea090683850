"""``volsched hunt``: bad input, determinism, Graham's bounds as a ceiling, the work objective."""

from __future__ import annotations

import json

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.hunt import hunt


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["slack", "--heuristic", "nope"], "--heuristic"),
        (["slack"], "--heuristic: a ratio hunt needs"),
        (["slack", "--heuristic", "lpt", "--bound", "foo=3"], "--bound: slack takes bounds"),
        (["slack", "--heuristic", "lpt", "--bound", "machines"], "--bound: must be NAME=VALUE"),
        (["slack", "--heuristic", "lpt", "--bound", "machines=x"], "--bound machines: must be an integer"),
        (["slack", "--heuristic", "lpt", "--bound", "machines=0"], "--bound machines: must be in"),
        (["slack", "--heuristic", "lpt", "--bound", "free=9"], "--bound free"),
        (["slack", "--heuristic", "lpt", "--budget", "0"], "--budget"),
        (["slack", "--heuristic", "lpt", "--seed", "-1"], "--seed"),
        (["slack", "--heuristic", "lpt", "--batch", "0"], "--batch"),
        (["slack", "--heuristic", "lpt", "--objective", "speed"], "--objective"),
        (["slack", "--heuristic", "lpt", "--strategy", "magic"], "--strategy"),
        (["slack", "--heuristic", "lpt", "--time-limit", "-1"], "--time-limit"),
        (["slack", "--heuristic", "lpt", "--solve-budget", "0"], "--solve-budget"),
        (["slack", "--heuristic", "lpt", "--objective", "work"], "--heuristic: a work hunt"),
        (["checkpoint", "--objective", "work"], "--method: checkpoint's method dp has no work unit"),
        (
            ["checkpoint", "--heuristic", "daly", "--bound", "shape_min=2", "--bound", "shape_max=1"],
            "--bound shape_min",
        ),
        (["toy", "--heuristic", "x"], "FAMILY"),
    ],
)
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, capsys, argv, fragment):
    out = tmp_path / "archive"
    code, stdout, err = run(
        capsys, "hunt", *argv, "--budget" if "--budget" not in argv else "--keep", 3, "--out", out
    )
    assert_input_error(code, err, fragment)
    assert stdout == ""
    assert not out.exists()


def test_out_is_a_file(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    code, _, err = run(capsys, "hunt", "slack", "--heuristic", "lpt", "--budget", 3, "--out", f)
    assert_input_error(code, err, "--out")
    assert f.read_text() == "x"


def test_same_seed_same_hunt_other_seed_other_path(tmp_path):
    args = dict(budget=60, bounds={"machines": 3, "jobs": 7})
    a = hunt("slack", "lpt", seed=3, out=tmp_path / "a", **args)
    b = hunt("slack", "lpt", seed=3, out=tmp_path / "b", **args)
    c = hunt("slack", "lpt", seed=4, **args)
    assert a["progress"] == b["progress"]
    assert (tmp_path / "a" / "hunt-slack-lpt-s3-01.json").read_bytes() == (
        tmp_path / "b" / "hunt-slack-lpt-s3-01.json"
    ).read_bytes()
    assert a["progress"] != c["progress"]


@pytest.mark.parametrize(("heuristic", "m"), [("lpt", 2), ("lpt", 3), ("list", 2), ("list", 3)])
def test_graham_bounds_are_a_ceiling(heuristic, m):
    """Graham (1966, 1969): LPT <= (4/3 - 1/(3m)) OPT and list <= (2 - 1/m) OPT; a hunt may not beat a
    theorem (a ratio above it would be a wrong optimum or a wrong heuristic value)."""
    s = hunt("slack", heuristic, budget=150, seed=1, bounds={"machines": m, "jobs": 2 * m + 1, "p_max": 12})
    bound = 4 / 3 - 1 / (3 * m) if heuristic == "lpt" else 2 - 1 / m
    assert 1.0 < s["best_ratio"] <= bound * (1 + 1e-12)  # float quotient of integers vs. the bound
    assert 1.0 < s["random_worst_ratio"] <= bound * (1 + 1e-12)
    assert s["progress"] == sorted(s["progress"], key=lambda x: -1 if x is None else x)


def test_m2_lpt_reaches_grahams_bound():
    """m = 2: 7/6 is reached by jobs (3, 3, 2, 2, 2) (LPT 7, OPT 6); a small space holds it."""
    s = hunt(
        "slack", "lpt", budget=300, seed=0, bounds={"machines": 2, "jobs": 5, "p_max": 6}, baseline=False
    )
    assert s["best_ratio"] == 7 / 6


@pytest.mark.parametrize(("heuristic", "bound"), [("lpt", (19, 15)), ("list", (9, 5))])
def test_m5_reaches_grahams_bound_without_being_told_the_construction(heuristic, bound):
    """m = 5, 11 jobs of sizes 1..20: Graham's tight ratios 4/3 - 1/15 = 19/15 (LPT) and 2 - 1/5 = 9/5
    (list) are reached exactly; the optimum behind each is the plain problem's, proven."""
    s = hunt(
        "slack",
        heuristic,
        budget=4500,
        seed=0,
        bounds={"machines": 5, "jobs": 11, "p_max": 20},
        baseline=False,
    )
    assert s["best_ratio"] == bound[0] / bound[1]
    assert s["best"]["status"] == "optimal"


def test_work_objective_reports_cpsat_work(tmp_path, capsys):
    code, stdout, err = run(
        capsys,
        "hunt",
        "slack",
        "--objective",
        "work",
        "--problem",
        "plain",
        "--budget",
        20,
        "--bound",
        "machines=3",
        "--bound",
        "jobs=9",
        "--out",
        tmp_path / "w",
        "--json",
    )
    assert code == 0, err
    s = one_json(stdout)
    assert s["best_work"] > 0 and s["random_worst_work"] > 0
    row = s["archive"][0]
    assert row["work"] == s["best_work"]  # re-solved from the archived file: the same deterministic work
    code, _, err = run(capsys, "verify", row["instance"], row["certificate"])
    assert code == 0, err


def test_screening_changes_nothing_but_the_solves(monkeypatch):
    """A candidate screened out by the family's lower bound could not have changed the search: the
    hunt and its random baseline follow the same path, with or without screening."""
    from volsched.hunt.families import SlackSpace

    bounds = {"machines": 4, "jobs": 9, "p_max": 20}
    screened = hunt("slack", "lpt", budget=150, seed=2, bounds=bounds)
    monkeypatch.setattr(SlackSpace, "optimum_bound", lambda self, instance, problem: None)
    plain = hunt("slack", "lpt", budget=150, seed=2, bounds=bounds)
    assert screened["screened"] > 0 and plain["screened"] == 0
    for key in ("progress", "random_progress", "best_ratio", "random_worst_ratio"):
        assert screened[key] == plain[key]


def test_a_killed_hunt_resumes_from_its_journal(tmp_path, monkeypatch):
    """A journal's first half (a kill) is replayed without evaluation; the result is the whole run's."""
    from volsched.hunt import JOURNAL
    from volsched.hunt.driver import Scorer

    args = dict(budget=80, seed=5, bounds={"machines": 3, "jobs": 7})
    whole = hunt("slack", "list", out=tmp_path / "whole", **args)
    lines = (tmp_path / "whole" / JOURNAL).read_text().splitlines()
    killed = tmp_path / "killed"
    killed.mkdir()
    half = len(lines) // 2
    (killed / JOURNAL).write_text("\n".join(lines[:half]) + "\n" + lines[half][:10])  # a line cut short
    calls = []
    original = Scorer.score_one
    monkeypatch.setattr(Scorer, "score_one", lambda self, *a: calls.append(1) or original(self, *a))
    resumed = hunt("slack", "list", out=killed, **args)
    assert resumed["resumed"] == half - 1
    assert len(calls) == len(lines) - 1 - (half - 1)
    for key in ("progress", "random_progress", "best_ratio", "random_worst_ratio"):
        assert resumed[key] == whole[key]
    journal = (killed / JOURNAL).read_text().splitlines()  # whole again: the cut line was dropped
    assert len(journal) == len(lines) and all(json.loads(line) for line in journal)


def test_a_journal_of_other_settings_is_refused(tmp_path, capsys):
    out = tmp_path / "a"
    assert run(capsys, "hunt", "slack", "--heuristic", "lpt", "--budget", 5, "--out", out)[0] == 0
    before = (out / "candidates.jsonl").read_bytes()
    code, _, err = run(capsys, "hunt", "slack", "--heuristic", "list", "--budget", 5, "--out", out)
    assert_input_error(code, err, "other settings")
    assert (out / "candidates.jsonl").read_bytes() == before


def test_a_heuristic_is_named_as_everywhere_else(tmp_path, capsys, monkeypatch):
    """Any case of a built-in name, and an outside heuristic by ``file.py:Class``, hunt the same way
    as ``simulate`` and ``evaluate`` take them; the archive keys the heuristic by its own name."""
    args = dict(budget=8, bounds={"slices": 6})
    upper = hunt("checkpoint", "DALY", seed=1, **args)
    lower = hunt("checkpoint", "daly", seed=1, **args)
    assert upper["progress"] == lower["progress"]
    (tmp_path / "mine.py").write_text(
        "class EveryOther:\n"
        "    def plan(self, instance, rng):\n"
        "        return [1 if i % 2 == 1 or i == instance.n - 1 else 0 for i in range(instance.n)]\n"
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(
        capsys,
        "hunt",
        "checkpoint",
        "--heuristic",
        "mine.py:EveryOther",
        "--budget",
        6,
        "--bound",
        "slices=6",
        "--seed",
        0,
        "--out",
        tmp_path / "archive",
        "--json",
    )
    assert code == 0 and one_json(out)["best_ratio"] >= 1.0
