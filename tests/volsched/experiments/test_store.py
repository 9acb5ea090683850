"""Sweeps kept apart in a store, stores combined across machines, the papers' %diff references."""

from __future__ import annotations

import shutil
import sqlite3
import tomllib
import warnings

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.experiments.config import parse_config
from volsched.experiments.report import (
    DEFAULT_TABLE_COLUMNS,
    TABLE_COLUMNS,
    VOLATILE_STATS,
    summarize,
    to_markdown,
)
from volsched.experiments.runner import run_sweep
from volsched.experiments.store import SCHEMA_VERSION, Store, SweepWarning
from volsched.experiments.tasks import build_tasks
from volsched.families import FAMILIES


def config(name: str, seeds: list[int], slices: list[int] = (4,)) -> str:  # type: ignore[assignment]
    return (
        f'name = "{name}"\nfamily = "checkpoint"\nseeds = {seeds}\nheuristics = ["none", "daly"]\n'
        f"[grid]\nslices = {list(slices)}\n"
    )


def sweeps_of(text: str):
    return parse_config(tomllib.loads(text))


def keys_of(text: str) -> set[str]:
    return {t["key"] for s in sweeps_of(text) for t in build_tasks(s)}


def sweep_into(store, text: str) -> None:
    run_sweep(sweeps_of(text), store, workers=1, quiet=True)


def rows_without_clocks(summary: dict) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in VOLATILE_STATS} for r in summary["rows"]]


# --------------------------------------------------------------------------- sweeps kept apart


def test_a_different_sweep_warns_and_is_kept_apart(capsys, tmp_path):
    store = tmp_path / "s.db"
    first, second = config("a", [0, 1]), config("b", [1, 2], [4, 5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the first sweep and its resumption warn nothing
        sweep_into(store, first)
        sweep_into(store, first)
    with pytest.warns(SweepWarning, match="recorded apart as 'b'"):
        sweep_into(store, second)
    for label, text in (("a", first), ("b", second)):
        code, out, err = run(capsys, "report", store, "--sweep", label, "--json")
        assert code == 0, err
        report = one_json(out)
        assert report["tasks"] == report["done"] == len(keys_of(text))
        assert [s["label"] for s in report["sweeps"]] == [label]
        with Store.open(store, sweep=label) as one:
            assert {r.key for r in one.rows()} == keys_of(text)
    with Store(store) as s:
        assert [r.label for r in s.sweeps()] == ["a", "b"]
        assert (
            len(s.rows())
            == len(keys_of(first) | keys_of(second))
            < len(keys_of(first)) + len(keys_of(second))
        )
    code, out, _ = run(capsys, "report", store)
    assert "sweeps a, b (--sweep NAME shows one)" in out.splitlines()[0]
    code, out, err = run(capsys, "report", store, "--sweep", "c")
    assert_input_error(code, err, "'c' is not a sweep")


def test_a_changed_configuration_of_the_same_name_is_labelled_by_its_hash(tmp_path):
    store = tmp_path / "s.db"
    sweep_into(store, config("a", [0]))
    with pytest.warns(SweepWarning, match="another configuration"):
        sweep_into(store, config("a", [0, 1]))
    with Store(store) as s:
        records = s.sweeps()
        assert [r.name for r in records] == ["a", "a"]
        assert records[0].label == "a" and records[1].label == f"a@{records[1].config_hash[:8]}"
        assert records[0].config_hash != records[1].config_hash
        assert s.sweep_keys()[records[1].label] == keys_of(config("a", [0, 1]))


def test_sweeps_of_one_file_sharing_tasks_each_own_them(tmp_path):
    text = (
        '[[sweep]]\nname = "x"\nfamily = "checkpoint"\nheuristics = ["daly"]\n[sweep.grid]\nslices = [4]\n'
        '[[sweep]]\nname = "y"\nfamily = "checkpoint"\nheuristics = ["daly"]\n[sweep.grid]\nslices = [4, 5]\n'
    )
    store = tmp_path / "s.db"
    sweep_into(store, text)
    x, y = (build_tasks(s) for s in sweeps_of(text))
    with Store(store) as s:
        owned = s.sweep_keys()
    assert owned == {"x": {t["key"] for t in x}, "y": {t["key"] for t in y}}
    assert owned["x"] < owned["y"]


#: What layout 5 added, taken away again: a store of layout 4.
TO_LAYOUT_4 = (
    "ALTER TABLE results DROP COLUMN work; ALTER TABLE results DROP COLUMN cpu_s; PRAGMA user_version=4;"
)


def test_a_layout_3_store_is_read_and_upgraded_on_its_first_write(tmp_path):
    store = tmp_path / "old.db"
    sweep_into(store, config("a", [0]))
    db = sqlite3.connect(store)
    db.executescript(TO_LAYOUT_4 + "DROP TABLE sweep_tasks; DROP TABLE sweeps; PRAGMA user_version=3;")
    db.close()
    with Store(store, create=False) as s:
        assert s.layout == 3
        assert [r.label for r in s.sweeps()] == ["a"] and s.sweep_keys()["a"] == keys_of(config("a", [0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same sweep again: resumed, not another one
        sweep_into(store, config("a", [0]))
    with Store(store) as s:
        assert s.layout == SCHEMA_VERSION
        assert [r.label for r in s.sweeps()] == ["a"]


def slack_config(seeds: list[int]) -> str:
    """A sweep whose exact method counts its work (CP-SAT's deterministic time)."""
    return (
        f'name = "s"\nfamily = "slack"\nseeds = {seeds}\nheuristics = ["gaps"]\n'
        '[grid]\npreset = "paper"\nmachines = 4\njobs = 8\nbeta = [0.5]\n'
        '[exact]\nproblem = "slack"\nbudget = {slack = 1.0}\n'
    )


def test_a_layout_4_store_reads_work_and_cpu_as_none_and_gains_them_on_its_first_write(tmp_path):
    store = tmp_path / "old.db"
    sweep_into(store, slack_config([0]))
    db = sqlite3.connect(store)
    db.executescript(TO_LAYOUT_4)
    db.close()
    with Store(store, create=False) as s:
        assert s.layout == 4
        old = {r.key: r for r in s.rows()}
        assert old and all(r.work is None and r.cpu_s is None for r in old.values())
    with pytest.warns(SweepWarning):  # another configuration: seed 1 added
        sweep_into(store, slack_config([0, 1]))
    with Store(store) as s:
        assert s.layout == SCHEMA_VERSION
        rows = {r.key: r for r in s.rows()}
    assert all(rows[k].work is None and rows[k].cpu_s is None for k in old)
    new = [r for k, r in rows.items() if k not in old]
    assert new and all(r.cpu_s is not None and r.cpu_s >= 0 for r in new)
    assert {r.work is not None and r.work > 0 for r in new if r.kind == "exact"} == {True}
    assert {r.work for r in new if r.kind == "heuristic"} == {None}


def test_a_store_with_work_but_another_layout_number_is_refused(capsys, tmp_path):
    store = tmp_path / "odd.db"
    sweep_into(store, config("a", [0]))
    db = sqlite3.connect(store)
    db.executescript("PRAGMA user_version=4;")  # layout 4's number over layout 5's columns
    db.close()
    code, out, err = run(capsys, "report", store, "--json")
    assert_input_error(code, err, "its tables do not have the store's columns")
    assert out == ""


# --------------------------------------------------------------------------- stores combined


def test_two_stores_combine_into_the_report_of_one(capsys, tmp_path):
    sweep_into(tmp_path / "a.db", config("part", [0, 1]))
    sweep_into(tmp_path / "b.db", config("part", [1, 2]))  # seed 1's tasks in both
    sweep_into(tmp_path / "all.db", config("all", [0, 1, 2]))
    code, out, err = run(capsys, "report", tmp_path / "a.db", tmp_path / "b.db", "--json")
    assert code == 0, err
    combined = one_json(out)
    with Store(tmp_path / "all.db") as whole:
        expected = summarize(whole)
    assert (combined["tasks"], combined["done"], combined["pending"]) == (
        expected["tasks"],
        expected["done"],
        0,
    )
    assert rows_without_clocks(combined) == rows_without_clocks(expected)
    # the two stores' sweeps have one name and two configurations: the second is relabelled
    labels = [s["label"] for s in combined["sweeps"]]
    assert labels[0] == "part" and labels[1].startswith("part@") and len(labels) == 2


def test_stores_that_disagree_on_a_task_are_refused_naming_it(capsys, tmp_path):
    sweep_into(tmp_path / "a.db", config("part", [0]))
    shutil.copy(tmp_path / "a.db", tmp_path / "b.db")
    db = sqlite3.connect(tmp_path / "b.db")
    (key,) = db.execute("SELECT key FROM results WHERE method = 'none' LIMIT 1").fetchone()
    db.execute("UPDATE results SET objective = objective * (1 + 1e-12) WHERE kind = 'exact'")  # rounding
    db.commit()
    db.close()
    code, _, err = run(capsys, "report", tmp_path / "a.db", tmp_path / "b.db", "--json")
    assert code == 0, err
    off = "UPDATE results SET objective = objective * 1.01 WHERE key = ?"
    assert_refused_after(capsys, tmp_path, off, key, "objective")


def assert_refused_after(capsys, folder, update: str, key: str, column: str) -> None:
    """``update`` (SQL, its ``?`` the task's key) on ``b.db`` makes it disagree with ``a.db`` on
    ``column`` of task ``key``: the report of both is refused, naming the task and the column."""
    db = sqlite3.connect(folder / "b.db")
    db.execute(update, (key,))
    db.commit()
    db.close()
    code, out, err = run(capsys, "report", folder / "a.db", folder / "b.db", "--json")
    assert_input_error(code, err, f"disagree on task {key}")
    assert column in err and out == ""


def test_stores_that_disagree_on_work_are_refused_and_a_store_without_work_agrees(capsys, tmp_path):
    sweep_into(tmp_path / "a.db", slack_config([0]))
    for name in ("b.db", "c.db"):
        shutil.copy(tmp_path / "a.db", tmp_path / name)
    db = sqlite3.connect(tmp_path / "c.db")
    db.executescript(TO_LAYOUT_4)  # the rows of an older layout have no work: they agree with any
    db.close()
    code, _, err = run(capsys, "report", tmp_path / "a.db", tmp_path / "c.db", "--json")
    assert code == 0, err
    db = sqlite3.connect(tmp_path / "b.db")
    (key,) = db.execute(
        "SELECT key FROM results WHERE kind = 'exact' AND work IS NOT NULL LIMIT 1"
    ).fetchone()
    db.close()
    assert_refused_after(capsys, tmp_path, "UPDATE results SET work = work + 1 WHERE key = ?", key, "work")


# --------------------------------------------------------------------------- the %diff reference


def task(family, problem, inst, method, params, kind="heuristic"):
    return {
        "key": f"{inst}/{method}",
        "sweep": "t",
        "family": family,
        "instance_key": inst,
        "params": params,
        "method": method,
        "kind": kind,
        "method_params": {},
        "problem": problem,
        "sense": "min",
    }


def hand_store(path, family, values: dict[tuple[str, str], dict[str, float]]):
    """``values[(problem, "i<w>")][heuristic]``: instance ``i<w>`` is scenario ``w`` (one trial each)."""
    store = Store(path)
    rows = []
    for (problem, inst), by_h in sorted(values.items()):
        for method, value in by_h.items():
            t = task(family, problem, inst, method, {"w": int(inst[1:]), "seed": 0})
            rows.append(
                (
                    t,
                    {
                        **t,
                        "instance": inst,
                        "status": "ok",
                        "objective": value,
                        "bound": None,
                        "metrics": {},
                        "runtime_s": 0.1,
                        "error": None,
                        "versions": {},
                        "host": "h",
                        "timestamp": "t",
                    },
                )
            )
    store.plan([t for t, _ in rows])
    for _, r in rows:
        store.write(r)
    return store


def by_method(summary, method):
    (row,) = [r for r in summary["rows"] if r["method"] == method]
    return row


def test_the_default_reference_is_the_papers_not_the_first_name(tmp_path):
    # coupled: E-IAY comes first in name order, the paper's reference is IE (Casanova et al. 2013)
    with hand_store(
        tmp_path / "c.db",
        "coupled",
        {("full", "i0"): {"E-IAY": 30.0, "IE": 20.0}, ("full", "i1"): {"E-IAY": 10.0, "IE": 20.0}},
    ) as s:
        summary = summarize(s)
    assert summary["reference"] == {"coupled": "IE"}
    e = by_method(summary, "E-IAY")
    assert e["reference"] == "IE"
    # Section VII-A: scenario w=0: (30 - 20) / 20 = 0.5; w=1: (10 - 20) / 10 = -1; mean -0.25
    assert e["pct_diff"] == pytest.approx(-25.0)
    text = to_markdown(summary, DEFAULT_TABLE_COLUMNS)
    assert "coupled: IE (the paper's, Casanova et al. 2013)" in " ".join(text.split())


def test_pct_diff_compares_only_heuristics_of_the_same_problem(tmp_path):
    # slack: gaps is scored against the slack rule, lpt and list against the plain problem, on one instance
    values = {("slack", "i0"): {"gaps": 100.0}, ("plain", "i0"): {"lpt": 40.0, "list": 50.0}}
    with hand_store(tmp_path / "s.db", "slack", values) as s:
        default, given = summarize(s), summarize(s, reference="LPT")
    assert default["references"] == {"slack": {"plain": None, "slack": "gaps"}}
    assert by_method(default, "gaps")["pct_diff"] == 0.0
    for name in ("lpt", "list"):
        assert by_method(default, name)["reference"] is None and by_method(default, name)["pct_diff"] is None
    assert by_method(given, "list")["reference"] == "lpt"
    assert by_method(given, "list")["pct_diff"] == pytest.approx(100 * (50 - 40) / 40)
    assert by_method(given, "gaps")["reference"] == "gaps"
    text = " ".join(to_markdown(default).split())
    assert "problem plain none (the paper has none for this problem; --reference NAME sets one)" in text
    assert "problem slack gaps (the paper's, Canon et al. 2011)" in text


def test_the_default_heuristic_table_fits_120_columns_and_columns_shows_the_rest(capsys, tmp_path):
    names = {n for f in FAMILIES for n in FAMILIES[f].heuristics}
    longest = max(names, key=len)
    values = {("checkpoint", f"i{k}"): {longest: 123456.789 * (k + 1), "daly": 1.5 + k} for k in range(3)}
    hand_store(tmp_path / "w.db", "checkpoint", values).close()
    code, out, err = run(capsys, "report", tmp_path / "w.db")
    assert code == 0, err
    heuristics = out[out.index("## Heuristics") :].splitlines()
    assert max(map(len, heuristics)) <= 120, max(heuristics, key=len)
    table = [line for line in heuristics if line.startswith("|")]
    assert table[0].count("|") - 1 == len(DEFAULT_TABLE_COLUMNS)
    code, out, err = run(capsys, "report", tmp_path / "w.db", "--columns", "all")
    assert code == 0, err
    header = next(line for line in out[out.index("## Heuristics") :].splitlines() if line.startswith("|"))
    assert header.count("|") - 1 == len(TABLE_COLUMNS) > len(DEFAULT_TABLE_COLUMNS)
    code, out, err = run(capsys, "report", tmp_path / "w.db", "--columns", "pct_wins30,stdv")
    header = next(line for line in out[out.index("## Heuristics") :].splitlines() if line.startswith("|"))
    assert header == "| family | heuristic | %wins30 | stdv |"
    code, out, err = run(capsys, "report", tmp_path / "w.db", "--columns", "nope")
    assert_input_error(code, err, "--columns: 'nope'")


def test_the_command_line_prints_a_sweep_warning_as_one_volsched_line(capsys, tmp_path):
    store = tmp_path / "s.db"
    (tmp_path / "a.toml").write_text(config("a", [0]))
    (tmp_path / "b.toml").write_text(config("b", [1]))
    assert run(capsys, "sweep", tmp_path / "a.toml", "--store", store, "--workers", 1, "--quiet")[0] == 0
    code, _, err = run(capsys, "sweep", tmp_path / "b.toml", "--store", store, "--workers", 1, "--quiet")
    assert code == 0
    lines = [line for line in err.splitlines() if "warning" in line.lower()]
    assert len(lines) == 1 and lines[0].startswith("volsched: warning: ")
    assert "recorded apart as 'b'" in lines[0]
