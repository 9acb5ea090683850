"""Work budgets from the command line, in sweep files, in the demo; compilation outside every clock."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from oracles.cli import run

import volsched
from volsched.experiments.config import parse_config
from volsched.families import FAMILIES
from volsched.instances.coupled import generate_markov
from volsched.instances.io import write_json
from volsched.solvers import jit

REPRO = Path(__file__).resolve().parents[3] / "shared" / "data" / "repro"


@pytest.fixture
def markov(tmp_path):
    path = tmp_path / "m.json"
    write_json(path, generate_markov(24, 300, 8, 5).to_json())
    return path


@pytest.mark.parametrize("budget", ["-1", "0", "nan", "inf"])
def test_a_bad_budget_is_bad_input(capsys, markov, tmp_path, budget):
    code, out, err = run(capsys, "solve", markov, "--budget", budget, "--out", tmp_path / "r.json")
    assert code == 2 and out == ""
    assert err.startswith("volsched: error: --budget:") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r.json").exists()


def test_solve_reports_the_budget_stop_and_the_work(capsys, markov):
    code, out, _ = run(capsys, "solve", markov, "--method", "bnb", "--budget", "3", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["stopped"] == "budget" and obj["status"] == "feasible"
    assert obj["work"] >= 3 and obj["bound"] > obj["objective"]
    code, out, _ = run(capsys, "solve", markov, "--method", "bnb", "--budget", "3")
    assert code == 0 and "stopped by the budget" in out


def test_evaluate_takes_a_budget(capsys):
    """The Falkenauer t60 file needs several CP-SAT targets: a budget far below one stops the reference."""
    t60 = REPRO / "slack-t60_00-milp-false-optimal.json"
    code, out, _ = run(capsys, "evaluate", t60, "--heuristics", "gaps", "--budget", "1e-4", "--json")
    assert code == 0, out
    reference = json.loads(out)["optima"]["slack"]
    assert reference["status"] == "feasible" and not reference["proven"]


def _sweep(exact: dict) -> dict:
    return {
        "family": "coupled",
        "seeds": 1,
        "heuristics": [],
        "exact": exact,
        "grid": {"preset": "markov", "processors": 6, "slots": 20, "tasks": 2},
    }


def test_a_sweep_budget_is_keyed_per_problem():
    sweep = parse_config({"sweep": [_sweep({"method": "bnb", "budget": 100})]})[0]
    assert sweep.budget("offline-coupled") == 100 and sweep.budget("full") is None
    table = {"offline-coupled": 5, "full": 9}
    sweep = parse_config({"sweep": [_sweep({"method": "bnb", "budget": table})]})[0]
    assert sweep.budget("offline-coupled") == 5 and sweep.budget("full") == 9


@pytest.mark.parametrize(
    ("budget", "where"),
    [
        (-1, "exact.budget"),
        ("ten", "exact.budget"),
        ({"nope": 3}, "exact.budget.nope"),
        ({"full": 0}, "exact.budget.full"),
    ],
)
def test_a_bad_sweep_budget_names_its_key(budget, where):
    with pytest.raises(volsched.instances.errors.InputError, match=where.replace(".", r"\.")):
        parse_config({"sweep": [_sweep({"method": "bnb", "budget": budget})]})


def test_every_preset_decides_its_exact_tasks_by_budget_or_by_finishing():
    """A preset's method runs to its end (no budget unit) or has a budget: a wall clock decides none."""
    from volsched.experiments.config import parse_config as parse
    from volsched.experiments.presets import presets
    from volsched.experiments.tasks import build_tasks

    for name, tables in presets().items():
        for sweep in parse({"sweep": tables}):
            for task in build_tasks(sweep)[:50]:
                if task["kind"] != "exact":
                    continue
                problem = sweep.family.problems[task["problem"]]
                if task["method"] in problem.budgets:
                    assert "budget" in task["method_params"], (name, task["problem"], task["method"])


def test_the_coupled_demo_prints_the_status_of_a_method_with_no_value(tmp_path, monkeypatch):
    import importlib

    coupled_demo = importlib.import_module("volsched.demos.coupled")

    monkeypatch.setitem(coupled_demo.BUDGETS, "greedy", 1)  # the greedy's passes stop with no schedule
    monkeypatch.setitem(coupled_demo.BUDGETS, "cpsat", 1e-9)  # CP-SAT stops before its first solution
    part = coupled_demo.demo(tmp_path, quiet=True, full=False, seed=0)
    assert any(row["full"]["objective"] is None for row in part.results["iterations"])
    assert any(row["cpsat"]["objective"] is None for row in part.results["rows"])
    assert any("unknown" in line for line in part.lines)


def test_compilation_is_announced_once_with_its_duration(capsys, monkeypatch):
    monkeypatch.setattr(jit, "ANNOUNCE_AFTER_S", 0.01)
    monkeypatch.setattr(jit, "_announced", False)
    with jit.compiling("something"):
        time.sleep(0.2)
    with jit.compiling("something else"):
        time.sleep(0.2)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert err[0].startswith("volsched: compiling numba kernels for something ")
    assert err[1].startswith("volsched: compiled in ")


def test_a_quick_warm_up_says_nothing(capsys, monkeypatch):
    monkeypatch.setattr(jit, "_announced", False)
    with jit.compiling("fast"):
        pass
    assert capsys.readouterr().err == ""


def test_solve_times_the_method_without_its_compilation(monkeypatch):
    """A warm-up that takes long (a cold cache) is outside the runtime a result reports."""
    from volsched.solvers import problem as problem_module

    spec = FAMILIES["coupled"].problems["offline-coupled"]
    calls = []
    monkeypatch.setattr(problem_module, "_WARMED", set())
    slow = problem_module.Problem(
        **{
            **{f: getattr(spec, f) for f in spec.__dataclass_fields__},
            "warm": lambda method: (calls.append(method), time.sleep(0.5)),
        }
    )
    result = problem_module.solve(
        "coupled", {"offline-coupled": slow}, generate_markov(8, 40, 3, 0), method="bnb"
    )
    assert calls == ["bnb"] and result.runtime_s < 0.5
    problem_module.solve("coupled", {"offline-coupled": slow}, generate_markov(8, 40, 3, 1), method="bnb")
    assert calls == ["bnb"]  # once per process


def _cache_dir_on_import(writable: bool, **env: str) -> str:
    """``NUMBA_CACHE_DIR`` after ``import volsched`` in a fresh interpreter whose ``os.access`` says
    ``writable``. A subprocess: numba reads the variable when it is first imported and places each
    kernel's cache when its module is imported, so changing it in this process would send every
    kernel compiled later to another folder."""
    import subprocess
    import sys

    code = (
        "import os\n"
        f"os.access = lambda path, mode: {writable}\n"
        "import volsched\n"
        "print(os.environ.get('NUMBA_CACHE_DIR', '<unset>'))\n"
    )
    clean = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=clean | env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_the_numba_cache_moves_to_a_user_directory_when_the_package_is_read_only(tmp_path):
    assert _cache_dir_on_import(False, XDG_CACHE_HOME=str(tmp_path)) == str(tmp_path / "volsched" / "numba")
    assert (tmp_path / "volsched" / "numba").is_dir()


def test_a_writable_package_keeps_numba_s_own_cache():
    assert _cache_dir_on_import(True) == "<unset>"


def test_the_user_s_numba_cache_dir_wins(tmp_path):
    mine = str(tmp_path / "mine")
    assert _cache_dir_on_import(False, NUMBA_CACHE_DIR=mine, XDG_CACHE_HOME=str(tmp_path)) == mine
    assert not (tmp_path / "volsched").exists()


def test_the_readme_names_the_budget_unit_of_every_budgeted_method():
    """The budget table of the docs' getting-started page is the users' reference of units: every
    (problem, method) that the registry gives a budget appears in it, with the method's name in a row."""
    readme = (Path(__file__).resolve().parents[2] / "docs" / "getting-started.md").read_text()
    start = readme.index("| method | budget unit |")
    rows = readme[start : readme.index("\n\n", start)].splitlines()
    missing = [
        (family, problem, method)
        for family in FAMILIES
        for problem, spec in FAMILIES[family].problems.items()
        for method in spec.budgets
        if not any(f"`{method}`" in row or f"--method {method}`" in row for row in rows)
    ]
    assert not missing
