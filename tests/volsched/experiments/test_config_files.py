"""Sweeps over instance files: ``instances = "jobs/*.json"`` in place of ``[grid]``.

Per family (from the registry: each family's first ``*-smoke`` preset gives a small instance, its
first heuristic the one swept), instance files are written, swept by glob with one exact method
and one heuristic, and every stored row is checked against ``volsched solve`` and ``volsched
evaluate`` run on the file directly (cross-method agreement: the same code path from another
entry point). Resumption, a changed file, a sweep whose files are gone by the time the workers
run, ``generate --preset`` folders, an outside heuristic (its value derived by hand) and the
bad inputs (one line, exit 2, no store written) are checked on top.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3

import numpy as np
import pytest
from oracles.cli import assert_input_error, one_json, run
from oracles.registry import SAFETY_NET_S, budget_argv, work_budget

from volsched.experiments.config import parse_sweep, read_config, star_points
from volsched.experiments.runner import run_sweep
from volsched.experiments.store import Store
from volsched.families import FAMILIES
from volsched.instances.io import write_json
from volsched.ratios import score_rows

SEEDS = 2
FILES = 2
#: Small options of each generator that writes a folder (``volsched generate --preset NAME --dir``).
FOLDER_OPTIONS = {("coupled", "paper"): ["--scenarios", "1", "--trials", "1", "--slots", "300"]}

EVERY_OTHER = '''
class EveryOther:
    """A checkpoint after every other slice, and after the last one."""

    def plan(self, instance, rng):
        a = [i % 2 for i in range(1, instance.n + 1)]
        a[-1] = 1
        return a
'''


def smoke_name(family: str) -> str:
    return next(n for n in FAMILIES[family].extras.presets if n.endswith("-smoke"))


def smoke(family: str):
    """``(generator parameters, heuristic)``: the smoke preset's first grid point and heuristic."""
    name = smoke_name(family)
    sweep = parse_sweep(FAMILIES[family].extras.presets[name][0], name)
    (_, _, point) = star_points(sweep.grid)[0]
    return point, sweep.heuristics[0]


def write_instances(folder, family: str, seeds) -> list[str]:
    """One file per generator seed, as ``volsched generate --out`` writes it; their names."""
    point, _ = smoke(family)
    (folder / "jobs").mkdir(exist_ok=True)
    names = []
    for seed in seeds:
        instance = FAMILIES[family].generate_from({**point, "seed": seed})
        write_json(folder / "jobs" / f"job{seed}.json", instance.to_json())
        names.append(f"jobs/job{seed}.json")
    return names


def sweep_text(
    family: str, heuristics: list[str], instances: str = "jobs/*.json", problem: str | None = None
) -> tuple[str, str, str]:
    """The sweep file's text, its problem (default: the first heuristic's) and that problem's first method."""
    fam = FAMILIES[family]
    problem = problem or fam.heuristic(heuristics[0]).problem
    method = fam.problems[problem].default_method
    budget = work_budget(family, problem, method)
    lines = [
        f'family = "{family}"',
        f'instances = "{instances}"',
        f"seeds = {SEEDS}",
        f"heuristics = {json.dumps(heuristics)}",
        "[exact]",
        f'problem = "{problem}"',
        f'method = "{method}"',
        f"time_limit = {SAFETY_NET_S}",
        *([] if budget is None else [f"budget = {float(budget)}"]),
    ]
    return "\n".join(lines) + "\n", problem, method


def rows_of(path) -> list[dict]:
    with Store(path) as store:
        return [dict(r) for r in score_rows(store.rows())]


def same_float(a: float | None, b: float | None) -> bool:
    """Both ``None``, or equal up to rounding: both divide the same two floats, maybe in another order."""
    return (a is None and b is None) or (a is not None and b is not None and a == pytest.approx(b, rel=1e-12))


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_glob_of_files_is_swept_as_solve_and_evaluate_score_each_file(capsys, tmp_path, family):
    names = write_instances(tmp_path, family, range(FILES))
    _, heuristic = smoke(family)
    text, problem, method = sweep_text(family, [heuristic])
    (tmp_path / "sweep.toml").write_text(text)
    store = tmp_path / "s.db"
    code, out, err = run(
        capsys, "sweep", tmp_path / "sweep.toml", "--store", store, "--workers", "2", "--json"
    )
    assert code == 0, err
    summary = one_json(out)
    assert summary["tasks"] == FILES * (1 + SEEDS) and summary["failed"] == 0 and summary["pending"] == 0

    rows = rows_of(store)
    assert sorted({r["params"]["file"] for r in rows}) == names
    for name in names:
        path = tmp_path / name
        mine = [r for r in rows if r["params"] == {"file": name, "sha256": sha256(path)}]
        (exact,) = [r for r in mine if r["kind"] == "exact"]
        code, out, err = run(
            capsys,
            "solve",
            path,
            "--problem",
            problem,
            "--method",
            method,
            *budget_argv(family, problem, method),
            "--json",
        )
        assert code == 0, err
        solved = one_json(out)
        assert (exact["method"], exact["problem"]) == (method, problem)
        assert exact["status"] == solved["status"] in ("optimal", "feasible")  # coupled full: a bound
        assert (exact["objective"], exact["bound"]) == (solved["objective"], solved["bound"])
        assert exact["instance"] == solved["instance"]
        runs = {r["method_params"]["seed"]: r for r in mine if r["kind"] == "heuristic"}
        assert sorted(runs) == list(range(SEEDS))
        for seed, row in runs.items():
            code, out, err = run(
                capsys,
                "evaluate",
                path,
                "--heuristic",
                heuristic,
                "--seed",
                seed,
                "--method",
                method,
                *budget_argv(family, problem, method),
                "--json",
            )
            assert code == 0, err
            policy = one_json(out)["policies"][heuristic]
            assert (row["method"], row["status"]) == (heuristic, "ok")
            assert row["objective"] == policy["value"]
            for end in ("ratio", "ratio_lo", "ratio_hi"):  # None where the optimum is unproven
                assert same_float(row[end], policy[end]), end

    code, out, err = run(capsys, "report", store, "--json")
    assert code == 0, err
    report = one_json(out)
    assert {(r["method"], r["instances"]) for r in report["rows"]} == {(method, FILES), (heuristic, FILES)}


def test_a_second_run_adds_nothing_and_a_changed_file_is_a_new_task(capsys, tmp_path):
    names = write_instances(tmp_path, "checkpoint", range(FILES))
    (tmp_path / "sweep.toml").write_text(sweep_text("checkpoint", ["daly"])[0])
    store = tmp_path / "s.db"
    first = run_sweep(read_config(tmp_path / "sweep.toml"), store, workers=1, quiet=True)
    assert first["new"] == first["tasks"] == FILES * (1 + SEEDS)
    before = {r["key"]: r for r in rows_of(store)}

    again = run_sweep(read_config(tmp_path / "sweep.toml"), store, workers=1, quiet=True)
    assert (again["new"], again["skipped"]) == (0, first["tasks"])
    assert {r["key"]: r for r in rows_of(store)} == before

    changed = tmp_path / names[0]
    old_hash = sha256(changed)
    instance = FAMILIES["checkpoint"].generate_from({**smoke("checkpoint")[0], "seed": 7})
    write_json(changed, instance.to_json())
    assert sha256(changed) != old_hash
    with pytest.warns(UserWarning, match="another configuration"):  # the sweep's files changed
        third = run_sweep(read_config(tmp_path / "sweep.toml"), store, workers=1, quiet=True)
    assert third["new"] == 1 + SEEDS  # the changed file's tasks only
    after = rows_of(store)
    assert {r["key"] for r in after} > set(before)
    new = [r for r in after if r["key"] not in before]
    assert {json.dumps(r["params"], sort_keys=True) for r in new} == {
        json.dumps({"file": names[0], "sha256": sha256(changed)}, sort_keys=True)
    }
    (exact,) = [r for r in new if r["kind"] == "exact"]
    assert exact["objective"] == FAMILIES["checkpoint"].solve(instance, method="dp").objective
    assert exact["instance"] == instance.name


def test_the_workers_need_no_shared_file_system(tmp_path):
    """The tasks carry the files' text: the files may be gone once the sweep is read."""
    names = write_instances(tmp_path, "checkpoint", range(FILES))
    (tmp_path / "sweep.toml").write_text(sweep_text("checkpoint", ["daly"])[0])
    sweeps = read_config(tmp_path / "sweep.toml")
    expected = {}
    for name in names:
        path = tmp_path / name
        model = FAMILIES["checkpoint"].load(json.loads(path.read_text()))
        expected[name] = FAMILIES["checkpoint"].solve(model, method="dp").objective
        path.unlink()
    summary = run_sweep(sweeps, tmp_path / "s.db", workers=2, quiet=True)
    assert summary["failed"] == 0 and summary["pending"] == 0
    exact = {r["params"]["file"]: r["objective"] for r in rows_of(tmp_path / "s.db") if r["kind"] == "exact"}
    assert exact == expected


def test_an_outside_heuristic_relative_to_the_sweep_file(capsys, tmp_path, monkeypatch):
    folder = tmp_path / "experiment"
    folder.mkdir()
    (folder / "mine.py").write_text(EVERY_OTHER.lstrip())
    names = write_instances(folder, "checkpoint", range(FILES))
    (folder / "sweep.toml").write_text(sweep_text("checkpoint", ["daly", "mine.py:EveryOther"])[0])
    monkeypatch.chdir(tmp_path)  # not the sweep file's folder: both paths are the file's, not the cwd's
    code, out, err = run(
        capsys, "sweep", "experiment/sweep.toml", "--store", "s.db", "--workers", "2", "--json"
    )
    assert code == 0, err
    assert one_json(out)["failed"] == 0
    rows = [r for r in rows_of(tmp_path / "s.db") if r["method"] == "mine.py:EveryOther"]
    assert len(rows) == FILES * SEEDS
    monkeypatch.chdir(folder)
    for r in rows:
        instance = FAMILIES["checkpoint"].load(json.loads((folder / r["params"]["file"]).read_text()))
        a = np.array([i % 2 for i in range(1, instance.n + 1)], dtype=bool)
        a[-1] = True
        # The simulator's waste against the closed form's: two quadratures of one integral.
        assert r["objective"] == pytest.approx(instance.expected_waste(a), rel=1e-9)
        code, out, err = run(
            capsys,
            "evaluate",
            r["params"]["file"],
            "--heuristic",
            "mine.py:EveryOther",
            "--seed",
            r["method_params"]["seed"],
            "--json",
        )
        assert code == 0, err
        policy = one_json(out)["policies"]["mine.py:EveryOther"]
        assert r["objective"] == policy["value"]
        assert same_float(r["ratio"], policy["ratio"])
    assert sorted({r["params"]["file"] for r in rows}) == names


@pytest.mark.parametrize(("family", "preset"), sorted(FOLDER_OPTIONS))
def test_a_folder_written_by_generate_is_swept(capsys, tmp_path, family, preset):
    """Every file of the folder, by the smoke preset's exact method (no heuristic: 60 files)."""
    options = FOLDER_OPTIONS[(family, preset)]
    code, out, err = run(
        capsys, "generate", family, "--preset", preset, *options, "--dir", tmp_path / "paper"
    )
    assert code == 0, err
    files = sorted(p.name for p in (tmp_path / "paper").glob("*.json"))
    assert len(files) >= 2
    smoke_problem = parse_sweep(FAMILIES[family].extras.presets[smoke_name(family)][0]).problem
    text, problem, method = sweep_text(family, [], "paper", smoke_problem)
    (tmp_path / "sweep.toml").write_text(text)
    code, out, err = run(capsys, "sweep", tmp_path / "sweep.toml", "--store", tmp_path / "s.db", "--json")
    assert code == 0, err
    assert one_json(out)["failed"] == 0
    rows = rows_of(tmp_path / "s.db")
    assert sorted(r["params"]["file"] for r in rows) == [f"paper/{f}" for f in files]
    for r in rows:
        assert r["params"]["sha256"] == sha256(tmp_path / r["params"]["file"])
    for r in rows[:3]:
        code, out, err = run(
            capsys,
            "solve",
            tmp_path / r["params"]["file"],
            "--problem",
            problem,
            "--method",
            method,
            *budget_argv(family, problem, method),
            "--json",
        )
        assert code == 0, err
        assert (r["status"], r["objective"]) == (one_json(out)["status"], one_json(out)["objective"])


def test_every_folder_generator_has_small_options():
    made = {(f, n) for f in FAMILIES for n, g in FAMILIES[f].generators.items() if g.many}
    assert made == set(FOLDER_OPTIONS)


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ('instances = "nothing/*.json"', "sweep.toml.instances: no file matches 'nothing/*.json'"),
        ('instances = "empty"', "sweep.toml.instances: the folder 'empty' has no .json file"),
        (
            'instances = "other/*.json"',
            "other/slack.json: family: is 'slack', but this sweep's family is 'checkpoint'",
        ),
        ('instances = "broken/*.json"', "sweep.toml.instances: broken/cut.json: not valid JSON (line"),
        ('instances = "bad/*.json"', "sweep.toml.instances: bad/data.json: p: must be a list of integers"),
        ('instances = "store/*"', "sweep.toml.instances: store/s.db: an SQLite database"),
        ('instances = "jobs/*.json"\n[grid]\nslices = 4', "sweep.toml.instances: give either instances"),
        ("instances = 3", "sweep.toml.instances: must be a glob or a folder of checkpoint instance files"),
        ('instances = ["jobs/job0.json"]', "sweep.toml.instances: must be a glob or a folder"),
        ('instances = ""', "sweep.toml.instances: must be a glob or a folder"),
    ],
)
def test_bad_instances_are_one_line_before_any_task_runs(capsys, tmp_path, body, fragment):
    write_instances(tmp_path, "checkpoint", [0])
    (tmp_path / "empty").mkdir()
    (tmp_path / "other").mkdir()
    slack = FAMILIES["slack"].generate_from({**smoke("slack")[0], "seed": 0})
    write_json(tmp_path / "other" / "slack.json", slack.to_json())
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "cut.json").write_text((tmp_path / "jobs" / "job0.json").read_text()[:40])
    (tmp_path / "bad").mkdir()
    obj = json.loads((tmp_path / "jobs" / "job0.json").read_text())
    write_json(tmp_path / "bad" / "data.json", {**obj, "data": {**obj["data"], "p": "x"}})
    (tmp_path / "store").mkdir()
    sqlite3.connect(tmp_path / "store" / "s.db").execute("CREATE TABLE t (x)").connection.close()
    (tmp_path / "sweep.toml").write_text(f'family = "checkpoint"\n{body}\n')
    fresh, kept = tmp_path / "fresh.db", tmp_path / "kept.db"
    with Store(kept):
        pass
    before = kept.read_bytes()
    for store in (fresh, kept):
        code, out, err = run(capsys, "sweep", tmp_path / "sweep.toml", "--store", store)
        assert_input_error(code, err, fragment)
        assert out == ""
    assert not fresh.exists() and kept.read_bytes() == before
