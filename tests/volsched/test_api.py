"""The Python API: each verb against the command's result on the same input (the CLI as the oracle)."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import subprocess
import sys

import pytest
from oracles.cli import one_json, run

import volsched
from volsched.experiments.report import VOLATILE_STATS
from volsched.experiments.store import VOLATILE_COLUMNS
from volsched.instances.errors import InputError

#: Result fields that measure the machine, not the answer.
CLOCKS = ("runtime_s", "elapsed_s")

CONFIG = """\
name = "tiny"
family = "checkpoint"
seeds = 2
heuristics = ["none", "daly"]
[grid]
slices = [4, 5]
"""


def without(obj, keys=CLOCKS):
    return {k: v for k, v in obj.items() if k not in keys}


def cli_json(capsys, *argv) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return one_json(out)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One small instance file per family the tests solve quickly (checkpoint, slack), written by the CLI."""
    folder = tmp_path_factory.mktemp("api")
    paths = {
        "checkpoint": (folder / "job.json", ["checkpoint", "--slices", "5", "--seed", "2"]),
        "slack": (
            folder / "jobs.json",
            ["slack", "--preset", "paper", "--jobs", "6", "--machines", "2", "--seed", "4"],
        ),
    }
    for path, argv in paths.values():
        assert volsched.cli.main(["generate", *argv, "--out", str(path)]) == 0
    return {family: path for family, (path, _) in paths.items()}


def test_generate_gives_the_instance_the_command_prints(capsys):
    printed = cli_json(capsys, "generate", "checkpoint", "--slices", "5", "--seed", "2")
    made = volsched.generate("checkpoint", slices=5, seed=2)
    assert isinstance(made, volsched.Instance)
    assert made.to_dict() == printed
    assert (made.family, made.params["slices"], made.name) == ("checkpoint", 5, printed["name"])


def test_generate_names_a_bad_option():
    with pytest.raises(InputError, match="slicez"):
        volsched.generate("checkpoint", slicez=5)
    with pytest.raises(InputError, match="family"):
        volsched.generate("nope")


def test_read_gives_the_file(files):
    for family, path in files.items():
        inst = volsched.read(path)
        assert inst.family == family
        assert inst.to_dict() == json.loads(path.read_text())


def test_read_names_the_file_of_the_wrong_kind(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"format": "volsched-instance", "version": 1, "family": "nope"}')
    with pytest.raises(InputError, match=str(path)):
        volsched.read(path)


@pytest.mark.parametrize("family", ["checkpoint", "slack"])
def test_solve_matches_the_command(capsys, files, family):
    printed = cli_json(capsys, "solve", files[family])
    for given in (files[family], volsched.read(files[family]), json.loads(files[family].read_text())):
        result = volsched.solve(given)
        assert isinstance(result, volsched.Solution)
        assert without(result.to_dict()) == without(printed)
    assert result.proven == (printed["status"] == "optimal")


def test_solve_takes_the_run_options(capsys, files):
    printed = cli_json(capsys, "solve", files["slack"], "--beta", "0.5")
    assert without(volsched.solve(files["slack"], beta=0.5).to_dict()) == without(printed)
    with pytest.raises(InputError, match="--samples"):
        volsched.solve(files["slack"], samples=3)


@pytest.mark.parametrize(("family", "heuristic"), [("checkpoint", "daly"), ("slack", "gaps")])
def test_simulate_matches_the_command(capsys, files, family, heuristic):
    printed = cli_json(capsys, "simulate", files[family], "--heuristic", heuristic, "--seed", "3")
    run_ = volsched.simulate(files[family], heuristic, seed=3)
    assert isinstance(run_, volsched.Simulation)
    assert run_.to_dict() == printed
    assert run_.objective == printed["objective"] and run_.seed == 3


def test_simulate_samples_as_the_command(capsys, files):
    printed = cli_json(capsys, "simulate", files["checkpoint"], "--heuristic", "none", "--samples", "500")
    assert volsched.simulate(files["checkpoint"], "none", samples=500).to_dict() == printed
    with pytest.raises(InputError, match="--samples"):
        volsched.simulate(files["checkpoint"], "none", samples=1)


def test_evaluate_matches_the_command(capsys, files):
    printed = cli_json(capsys, "evaluate", files["checkpoint"], "--heuristics", "daly,none")
    ev = volsched.evaluate(files["checkpoint"], ["daly", "none"])
    assert isinstance(ev, volsched.Evaluation)
    got = ev.to_dict()
    for p in (*got["optima"].values(), *printed["optima"].values()):
        p.pop("runtime_s", None)
    assert got == printed
    assert set(ev.policies) == {"daly", "none"}
    for name, p in ev.policies.items():
        assert isinstance(p, volsched.PolicyScore)
        assert (p.value, p.ratio, p.ratio_lo, p.ratio_hi) == tuple(
            printed["policies"][name][k] for k in ("value", "ratio", "ratio_lo", "ratio_hi")
        )
        # an independent computation: the ratio is the run's value over the proven optimum
        assert p.ratio == pytest.approx(p.value / printed["optimum"], rel=1e-12)
    assert ev.optimum == printed["optimum"] and ev.bound == printed["lower_bound"]


def test_verify_matches_the_command(capsys, files, tmp_path):
    solved = tmp_path / "sol.json"
    assert volsched.cli.main(["solve", str(files["slack"]), "--out", str(solved)]) == 0
    capsys.readouterr()
    printed = cli_json(capsys, "verify", files["slack"], solved)
    for given in (solved, json.loads(solved.read_text()), volsched.solve(files["slack"])):
        check = volsched.verify(files["slack"], given)
        assert isinstance(check, volsched.Verification)
        assert check.to_dict() == printed
    assert check.feasible and check.objective == printed["objective"]


def test_verify_rejects_a_false_claim_naming_the_field(files, tmp_path):
    claim = volsched.solve(files["slack"]).to_dict()
    claim["objective"] += 1
    with pytest.raises(InputError, match="objective"):
        volsched.verify(files["slack"], claim)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(claim))
    with pytest.raises(InputError, match=str(path)):
        volsched.verify(files["slack"], path)


def rows_of(path) -> dict:
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        return {r["key"]: without(dict(r), VOLATILE_COLUMNS) for r in db.execute("SELECT * FROM results")}
    finally:
        db.close()


def test_sweep_and_report_match_the_commands(capsys, tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(CONFIG)
    summary = volsched.sweep(config, tmp_path / "api.db", workers=1)
    printed = cli_json(capsys, "sweep", config, "--store", tmp_path / "cli.db", "--workers", "1")
    assert isinstance(summary, volsched.SweepSummary)
    assert without(summary.to_dict(), (*CLOCKS, "store", "warnings")) == without(printed, (*CLOCKS, "store"))
    assert summary.done == 12 and summary.warnings == ()
    assert rows_of(tmp_path / "api.db") == rows_of(tmp_path / "cli.db")

    report = volsched.report(tmp_path / "api.db")
    assert isinstance(report, volsched.Report)
    printed = cli_json(capsys, "report", tmp_path / "cli.db")
    printed.pop("written")

    def steady(obj):  # the exact methods' runtimes differ between two runs
        return {**obj, "rows": [without(r, VOLATILE_STATS) for r in obj["rows"]]}

    assert steady(report.to_dict()) == steady(printed)
    code, out, _ = run(capsys, "report", tmp_path / "api.db")
    assert code == 0 and out.rstrip("\n") == report.markdown.rstrip("\n")
    # a sweep given as a table, the same tasks: nothing new
    again = volsched.sweep(
        {
            "name": "tiny",
            "family": "checkpoint",
            "seeds": 2,
            "heuristics": ["none", "daly"],
            "grid": {"slices": [4, 5]},
        },
        tmp_path / "api.db",
        workers=1,
    )
    assert (again.new, again.skipped, again.warnings) == (0, 12, ())


def test_sweep_needs_a_config_or_a_preset(tmp_path):
    with pytest.raises(InputError, match="sweep"):
        volsched.sweep(None, tmp_path / "s.db")


def test_results_are_frozen_and_their_dicts_are_json(files):
    sol = volsched.solve(files["checkpoint"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        sol.objective = 0.0  # type: ignore[misc]
    for result in (sol, volsched.simulate(files["checkpoint"], "daly"), volsched.read(files["checkpoint"])):
        assert dataclasses.is_dataclass(result)
        obj = result.to_dict()
        assert json.loads(json.dumps(obj, allow_nan=False)) == obj


def test_every_verb_and_result_is_public_and_documented_with_an_example():
    verbs = ("generate", "read", "solve", "simulate", "evaluate", "verify", "sweep", "report", "read_runs")
    for name in (
        *verbs,
        "Instance",
        "Solution",
        "Simulation",
        "Evaluation",
        "Verification",
        "SweepSummary",
        "Report",
    ):
        assert name in volsched.__all__
        obj = getattr(volsched, name)
        assert obj.__doc__ and "Examples" in obj.__doc__, name
    for name in verbs:
        assert callable(getattr(volsched, name)), name
        assert "Returns" in getattr(volsched, name).__doc__ or name == "read_runs"


def test_a_verb_named_like_a_submodule_survives_its_import():
    code = (
        "import volsched, volsched.evaluate, volsched.verify\n"
        "from volsched.evaluate import evaluate as inner\n"
        "assert volsched.evaluate is not inner and callable(volsched.evaluate)\n"
        "assert volsched.evaluate.__module__ == volsched.verify.__module__ == 'volsched.api'\n"
        "assert inner.__module__ == 'volsched.evaluate'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def loaded_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


HEAVY = (
    "volsched.api",
    "volsched.families.checkpoint",
    "volsched.families.coupled",
    "volsched.families.slack",
    "volsched.families.prescient",
    "volsched.solvers.checkpoint",
    "numba",
    "pandas",
    "ortools",
)


def test_import_volsched_and_help_stay_light():
    for code in (
        "import volsched\nassert 'evaluate' in dir(volsched)",
        "import contextlib, io\nfrom volsched.cli import main\nout = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n    main(['--help'])",
    ):
        heavy = loaded_after(code) & set(HEAVY)
        assert not heavy, (code, heavy)
    assert "volsched.api" in loaded_after("import volsched\nvolsched.solve")


def test_evaluate_applies_the_run_options_to_an_outside_heuristic(capsys, files, tmp_path, monkeypatch):
    """``disturbance`` (a slack run option) reaches a heuristic named by import path exactly as on
    the command line, and changes what a schedule meeting unavailabilities scores."""
    (tmp_path / "mine.py").write_text(
        "from volsched.heuristics.slack import POLICIES\n\n"
        "class Lpt:\n"
        "    problem = 'plain'\n\n"
        "    def plan(self, instance, rng):\n"
        "        return POLICIES['lpt'].plan(instance, rng)\n"
    )
    monkeypatch.chdir(tmp_path)
    scores = {}
    for disturbance in ("none", "worst"):
        printed = cli_json(
            capsys,
            "evaluate",
            files["slack"],
            "--heuristic",
            "mine.py:Lpt",
            "--disturbance",
            disturbance,
            "--budget",
            "5",
        )
        ev = volsched.evaluate(files["slack"], ["mine.py:Lpt"], budget=5, disturbance=disturbance)
        got = ev.to_dict()["policies"]["mine.py:Lpt"]
        assert got["metrics"] == printed["policies"]["mine.py:Lpt"]["metrics"]
        scores[disturbance] = got["metrics"]
    assert scores["none"] != scores["worst"]
