"""A heuristic written outside the package, per family, scored from the CLI, from Python and in a sweep.

Each policy below is a file written into ``tmp_path`` (under 30 lines) and named by import path, as a
user would. Oracles: a hand-derived value (checkpoint: the expected waste of the vector the class
builds; slack: all jobs back to back on one free machine end at ``sum p``), a hand-derived schedule
(coupled: each configuration gives the tasks to the fastest UP workers of its slot, computed here from
the realization), and cross-method agreement (prescient: first come, first served is the built-in FCFS).
"""

from __future__ import annotations

import doctest
import importlib
import json
import sqlite3
import textwrap

import numpy as np
import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.evaluate import evaluate
from volsched.experiments.config import read_config
from volsched.experiments.runner import run_sweep
from volsched.families import FAMILIES
from volsched.instances.coupled import UP
from volsched.instances.errors import InputError

POLICIES = {
    "checkpoint": (
        "EveryOther",
        '''
        class EveryOther:
            """A checkpoint after every other slice, and after the last one."""

            def plan(self, instance, rng):
                a = [i % 2 for i in range(1, instance.n + 1)]
                a[-1] = 1
                return a
    ''',
    ),
    "coupled": (
        "Fastest",
        '''
        import numpy as np


        class Fastest:
            """The tasks to the fastest UP workers, each up to mu_q of them."""

            def decide(self, observation, rng):
                platform = observation.platform
                up = np.flatnonzero(observation.now == 0)
                by_speed = up[np.argsort(platform.w[up], kind="stable")]
                order = [int(q) for q in by_speed for _ in range(int(platform.mu[q]))]
                return order[: platform.m] if len(order) >= platform.m else None
    ''',
    ),
    "prescient": (
        "FirstCome",
        '''
        class FirstCome:
            """The waiting tasks to the ready hosts, in order."""

            def decide(self, observation, rng):
                pairs = zip(observation.ready.tolist(), observation.primary.tolist())
                return [(host, task) for host, task in pairs], None
    ''',
    ),
    "slack": (
        "OneFreeMachine",
        '''
        import numpy as np


        class OneFreeMachine:
            """Every job back to back on the first free machine."""

            problem = "plain"

            def plan(self, instance, rng):
                free = next(i for i, gaps in enumerate(instance.machines) if len(gaps) == 0)
                starts = [0, *np.cumsum(instance.p)[:-1].tolist()]
                return [(free, start) for start in starts]
    ''',
    ),
}

#: A small instance per family (generator options), proven optimal quickly by the default method.
GRIDS = {
    "checkpoint": {"slices": 8},
    "coupled": {"preset": "markov", "processors": 6, "slots": 60, "tasks": 3},
    "prescient": {"preset": "platform", "platform": "sdsc", "hosts": 12, "tasks": 8},
    "slack": {"preset": "paper", "machines": 5, "jobs": 8},
}
BUILT_IN = {"checkpoint": "daly", "coupled": "IE", "prescient": "FCFS", "slack": "lpt"}


def write_policy(folder, family: str) -> str:
    name, source = POLICIES[family]
    text = textwrap.dedent(source).lstrip()
    assert len(text.splitlines()) < 30
    (folder / "mine.py").write_text(text)
    return f"mine.py:{name}"


def make_instance(family: str, seed: int = 0):
    return FAMILIES[family].generate_from({**GRIDS[family], "seed": seed})


def expected_value(family: str, instance, run_: dict):
    """The oracle's value of the outside policy's run on ``instance`` (None: checked otherwise)."""
    if family == "checkpoint":
        a = np.array([i % 2 for i in range(1, instance.n + 1)], dtype=bool)
        a[-1] = True
        assert run_["solution"]["a"] == a.astype(int).tolist()
        return pytest.approx(instance.expected_waste(a), rel=1e-9)  # quadrature vs. closed form
    if family == "slack":
        return int(instance.p.sum())
    if family == "prescient":
        return FAMILIES[family].simulate(instance, "FCFS", run_["seed"])["objective"]
    entries = run_["solution"]["schedule"]["configurations"]
    states = instance.realization(max(e["start"] for e in entries) + 1)
    for entry in entries:
        if not any(entry["allocation"]):
            continue
        now = states[:, entry["start"]]
        up = np.flatnonzero(now == UP)
        fastest = up[np.argsort(instance.w[up], kind="stable")]
        want = np.zeros(instance.p, dtype=int)
        left = instance.m
        for q in fastest:
            want[q] = min(int(instance.mu[q]), left)
            left -= want[q]
        assert entry["allocation"] == want.tolist(), entry
    return run_["objective"]


@pytest.fixture
def job(tmp_path, monkeypatch):
    """``(family, spec, instance, instance file)`` with the policy file in ``tmp_path`` as the cwd."""

    def make(family):
        monkeypatch.chdir(tmp_path)
        spec = write_policy(tmp_path, family)
        instance = make_instance(family)
        path = tmp_path / "job.json"
        path.write_text(json.dumps(instance.to_json()))
        return spec, instance, path

    return make


@pytest.mark.parametrize("family", sorted(POLICIES))
def test_an_outside_heuristic_is_scored_from_the_cli(capsys, job, family):
    spec, instance, path = job(family)
    code, out, err = run(capsys, "simulate", path, "--heuristic", spec, "--json")
    assert code == 0, err
    sim = one_json(out)
    assert sim["heuristic"] == spec
    assert sim["objective"] == expected_value(family, instance, sim)

    code, out, err = run(capsys, "evaluate", path, "--heuristic", spec, "--json")
    assert code == 0, err
    report = one_json(out)
    assert list(report["policies"]) == [spec]
    policy = report["policies"][spec]
    assert policy["value"] == sim["objective"]
    optimum = report["optima"][policy["problem"]]
    assert optimum["proven"]
    assert policy["ratio"] == pytest.approx(policy["value"] / optimum["optimum"], rel=1e-12)
    assert policy["ratio"] >= 1 - 1e-9  # min problems: no run beats a proven optimum


@pytest.mark.parametrize("family", sorted(POLICIES))
def test_an_outside_heuristic_is_scored_from_python(tmp_path, family):
    spec = write_policy(tmp_path, family)
    fam = FAMILIES[family]
    instance = make_instance(family, seed=1)
    by_path = fam.heuristic(spec, base=tmp_path)
    module = importlib.import_module(type(by_path.policy.policy).__module__)
    by_class = fam.heuristic(getattr(module, spec.split(":")[1]))
    problem = getattr(by_class.policy, "problem", fam.default_heuristic_problem)
    assert by_path.problem == by_class.problem == problem
    report = evaluate(fam, instance, [by_path, by_class, BUILT_IN[family]])
    runs = report["policies"]
    assert set(runs) == {spec, by_class.name, BUILT_IN[family]}
    assert runs[spec]["value"] == runs[by_class.name]["value"]
    ran = {"solution": runs[spec]["solution"], "objective": runs[spec]["value"], "seed": 0}
    assert runs[spec]["value"] == expected_value(family, instance, ran)


@pytest.mark.parametrize("family", sorted(POLICIES))
def test_an_outside_heuristic_runs_in_a_sweep_on_local_workers(tmp_path, monkeypatch, family):
    """The sweep file names the heuristic relative to its own folder; the workers resolve it there."""
    folder = tmp_path / "experiment"
    folder.mkdir()
    spec = write_policy(folder, family)
    grid = {k: v for k, v in GRIDS[family].items()}
    lines = [
        f'family = "{family}"',
        "seeds = 2",
        f'heuristics = ["{spec}", "{BUILT_IN[family].upper()}"]',
        "[grid]",
        *(f"{k} = {json.dumps(v)}" for k, v in grid.items()),
    ]
    (folder / "sweep.toml").write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)  # not the sweep file's folder: the path is the file's, not the cwd's
    sweeps = read_config("experiment/sweep.toml")
    assert sweeps[0].heuristics == (spec, BUILT_IN[family])  # the built-in name in its own spelling
    summary = run_sweep(sweeps, tmp_path / "s.db", workers=2, quiet=True)
    assert summary["failed"] == 0 and summary["pending"] == 0
    with sqlite3.connect(tmp_path / "s.db") as db:
        query = "SELECT params, objective, status FROM results WHERE method = ?"
        rows = db.execute(query, (spec,)).fetchall()
    assert len(rows) == 2
    for params, objective, status in rows:
        assert status == "ok"
        params = json.loads(params)
        instance = FAMILIES[family].generate_from(params)
        heuristic = FAMILIES[family].heuristic(spec, base=folder)
        run_ = FAMILIES[family].simulate(instance, heuristic, params["seed"])
        assert objective == expected_value(family, instance, run_)


BAD = {
    "checkpoint": "def plan(self, instance, rng):\n        return {'a': [1] * instance.n}",
    "coupled": "def decide(self, observation, rng):\n        return {'order': [0]}",
    "prescient": "def decide(self, observation, rng):\n        return {'host': 0}",
    "slack": "def plan(self, instance, rng):\n        return {'schedule': []}",
}
EXPECTED = {
    "checkpoint": "plan() must return a sequence of n = 8 values 0/1",
    "coupled": "decide() must return None (keep the configuration, or wait) or a Configuration",
    "prescient": "decide() must return a pair (assignments, wake)",
    "slack": "plan() must return a Schedule, or a sequence of n = 8 pairs (machine, start)",
}


@pytest.mark.parametrize("family", sorted(BAD))
def test_a_wrong_return_value_names_the_policy_and_what_was_expected(capsys, job, tmp_path, family):
    _, _, path = job(family)
    (tmp_path / "bad.py").write_text(f"class Bad:\n    {BAD[family]}\n")
    code, out, err = run(capsys, "simulate", path, "--heuristic", "bad.py:Bad", "--out", tmp_path / "r.json")
    assert_input_error(code, err, f"heuristic bad.py:Bad: {EXPECTED[family]}")
    assert "got a dict" in err
    assert out == "" and not (tmp_path / "r.json").exists()


def test_a_wrong_vector_says_what_is_wrong_in_it(tmp_path):
    fam = FAMILIES["checkpoint"]
    instance = make_instance("checkpoint")
    for body, fragment in [
        ("[1] * (instance.n - 1)", "got a list of 7 items"),
        ("[0] * instance.n", "(a_n is 0)"),
        ("[2] * instance.n", "(found 2)"),
        ("None", "got None"),
    ]:
        source = f"class V:\n    def plan(self, instance, rng):\n        return {body}\n"
        (tmp_path / "v.py").write_text(source)
        with pytest.raises(InputError, match=r"heuristic v.py:V: plan") as info:
            fam.simulate(instance, fam.heuristic("v.py:V", base=tmp_path), 0)
        assert fragment in str(info.value)
        fam_cache = importlib.import_module("volsched.families.plugins")._FILE_MODULES
        fam_cache.clear()  # the next body is written within the file system's mtime resolution


def test_an_exception_in_the_policy_and_an_infeasible_schedule_are_the_users(capsys, job, tmp_path):
    _, _, path = job("slack")
    (tmp_path / "boom.py").write_text(
        "class Boom:\n    def plan(self, instance, rng):\n        return 1 / 0\n"
    )
    code, _, err = run(capsys, "evaluate", path, "--heuristic", "boom.py:Boom")
    assert_input_error(code, err, "heuristic boom.py:Boom: plan() raised ZeroDivisionError: division by zero")
    # Every job at time 0 on machine 0: they overlap, which the plain problem's verifier refuses.
    (tmp_path / "pile.py").write_text(
        "class Pile:\n    problem = 'plain'\n\n"
        "    def plan(self, instance, rng):\n"
        "        return [(0, 0)] * instance.n\n"
    )
    code, _, err = run(capsys, "simulate", path, "--heuristic", "pile.py:Pile")
    assert_input_error(code, err, "heuristic pile.py:Pile: its solution is infeasible for the plain problem")


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("nowhere.py:X", "nowhere.py: no such file"),
        ("mine.py:Nope", "mine.py has no Nope (its classes: EveryOther)"),
        ("no_such_module_xyz:X", "no module named 'no_such_module_xyz'"),
        ("json:dumps", "json:dumps: dumps has no method plan() or decide()"),
        ("broken.py:X", "importing"),
    ],
)
def test_a_bad_import_path_is_one_line(capsys, job, tmp_path, spec, fragment):
    _, _, path = job("checkpoint")
    (tmp_path / "broken.py").write_text("raise RuntimeError('nope')\n")
    code, _out, err = run(capsys, "simulate", path, "--heuristic", spec)
    assert_input_error(code, err, fragment)


def test_a_module_path_is_found_on_sys_path_and_in_the_working_directory(capsys, job, tmp_path):
    _, instance, path = job("checkpoint")
    (tmp_path / "mine_mod.py").write_text((tmp_path / "mine.py").read_text())
    code, out, err = run(capsys, "simulate", path, "--heuristic", "mine_mod:EveryOther", "--json")
    assert code == 0, err
    assert one_json(out)["objective"] == expected_value("checkpoint", instance, one_json(out))


def test_a_problem_attribute_that_is_not_the_familys_is_refused(capsys, job, tmp_path):
    _, _, path = job("checkpoint")
    (tmp_path / "p.py").write_text(
        "class P:\n    problem = 'makespan'\n\n    def plan(self, i, rng):\n        return [1] * i.n\n"
    )
    code, _, err = run(capsys, "simulate", path, "--heuristic", "p.py:P")
    assert_input_error(code, err, "its problem must be one of ['checkpoint'], got 'makespan'")


@pytest.mark.parametrize(
    ("family", "given", "name"),
    [
        ("checkpoint", "DALY", "daly"),
        ("checkpoint", "Daly-Printed", "daly-printed"),
        ("coupled", "y-ie", "Y-IE"),
        ("coupled", "ie[CONDITIONAL]", "IE[conditional]"),
        ("prescient", "fcfs", "FCFS"),
        ("slack", "GAPS", "gaps"),
    ],
)
def test_built_in_names_match_in_any_case(family, given, name):
    assert FAMILIES[family].heuristic(given).name == name


def test_any_case_gives_the_same_run_on_the_command_line(capsys, job):
    _, _, path = job("checkpoint")
    runs = []
    for name in ("daly", "DALY"):
        code, out, err = run(capsys, "simulate", path, "--heuristic", name, "--json")
        assert code == 0, err
        runs.append(one_json(out))
    assert runs[0]["heuristic"] == runs[1]["heuristic"] == "daly"
    assert runs[0]["objective"] == runs[1]["objective"]


def test_evaluate_takes_a_repeated_heuristic_and_the_old_comma_list_with_one_warning(capsys, job):
    spec, _, path = job("checkpoint")
    code, out, err = run(capsys, "evaluate", path, "--heuristic", spec, "--heuristic", "Young", "--json")
    assert code == 0 and err == ""
    new = one_json(out)["policies"]
    assert list(new) == [spec, "young"]
    code, out, err = run(capsys, "evaluate", path, "--heuristics", f"{spec},young", "--json")
    assert code == 0
    assert err.count("\n") == 1 and "--heuristics A,B is deprecated" in err and "--heuristic A" in err
    old = one_json(out)["policies"]
    assert {k: v["value"] for k, v in old.items()} == {k: v["value"] for k, v in new.items()}


def test_an_installed_package_registers_heuristics_by_entry_point(tmp_path, monkeypatch):
    plugins = importlib.import_module("volsched.families.plugins")
    package = tmp_path / "site"
    (package / "userpkg").mkdir(parents=True)
    (package / "userpkg" / "__init__.py").write_text(textwrap.dedent(POLICIES["checkpoint"][1]))
    info = package / "userpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: userpkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[volsched.heuristics]\ncheckpoint.every-other = userpkg:EveryOther\n"
    )
    monkeypatch.syspath_prepend(str(package))
    plugins._entry_points.cache_clear()
    try:
        fam = FAMILIES["checkpoint"]
        h = fam.heuristic("Every-Other")
        assert (h.name, h.problem, h.source) == ("every-other", "checkpoint", "entry point")
        instance = make_instance("checkpoint")
        run_ = fam.simulate(instance, "every-other", 0)
        assert run_["objective"] == expected_value("checkpoint", instance, run_)
        from volsched.listing import describe

        listed = {x["name"]: x for x in describe(fam)["heuristics"]}
        assert listed["every-other"]["problem"] == "checkpoint"
        assert "userpkg:EveryOther" in listed["every-other"]["source"]
    finally:
        plugins._entry_points.cache_clear()


@pytest.mark.parametrize("family", sorted(POLICIES))
def test_the_protocols_examples_run(family):
    module = importlib.import_module(f"volsched.heuristics.{family}.protocol")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
