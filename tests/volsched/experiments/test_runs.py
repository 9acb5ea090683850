"""A store's runs as one table: the DataFrame against the rows read with sqlite3, and `report --runs`."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import sqlite3

import pandas as pd
import pytest
from oracles.cli import assert_input_error, run

import volsched
from volsched.experiments.runs import RUN_COLUMNS
from volsched.experiments.store import Store, SweepWarning

#: instance -> (exact row or None, heuristic value or None (error)); family "f", problem "p", "min".
#: i0: proven optimum 10, h = 12 -> ratio 1.2.  i1: incumbent 20, bound 16, h = 18 -> best known 18,
#: ratio in [18 / 18, 18 / 16] = [1, 1.125].  i2: no exact row.  i3: h failed.
CASES = {
    "i0": (("optimal", 10.0, 10.0), 12.0),
    "i1": (("feasible", 20.0, 16.0), 18.0),
    "i2": (None, 7.0),
    "i3": (("optimal", 5.0, 5.0), None),
}
EXPECTED = {  # hand-derived: (ratio, ratio_lo, ratio_hi, proven) of each heuristic run
    "i0": (1.2, 1.2, 1.2, True),
    "i1": (None, 1.0, 1.125, False),
    "i2": (None, None, None, None),
    "i3": (None, None, None, None),
}


def task(inst, method, kind, sweep="t"):
    return {
        "key": f"{inst}/{method}",
        "sweep": sweep,
        "family": "f",
        "instance_key": inst,
        "params": {"n": int(inst[1:]) + 3, "hours": [0.5, 1.0], "seed": 0},
        "method": method,
        "kind": kind,
        "method_params": {"time_limit": 5.0} if kind == "exact" else {"seed": 0},
        "problem": "p",
        "sense": "min",
    }


def row(t, status, objective=None, bound=None):
    return {
        **t,
        "instance": f"name-{t['instance_key']}",
        "status": status,
        "objective": objective,
        "bound": bound,
        "metrics": {} if objective is None else {"makespan": objective},
        "runtime_s": 0.25,
        "error": None if status != "error" else "boom",
        "versions": {"volsched": "9.9"},
        "host": "h",
        "timestamp": "2024-01-01T00:00:00",
    }


@pytest.fixture
def store_path(tmp_path):
    path = tmp_path / "runs.db"
    with Store(path) as store:
        tasks = [task(i, m, k) for i in CASES for m, k in (("ex", "exact"), ("h", "heuristic"))]
        store.plan([t for t in tasks if not (t["instance_key"] == "i2" and t["kind"] == "exact")])
        for inst, (exact, value) in CASES.items():
            if exact is not None:
                store.write(row(task(inst, "ex", "exact"), *exact))
            store.write(row(task(inst, "h", "heuristic"), "ok", value) if value is not None
                        else row(task(inst, "h", "heuristic"), "error"))  # fmt: skip
    return path


def sqlite_rows(path) -> dict[str, dict]:
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        return {r["key"]: dict(r) for r in db.execute("SELECT * FROM results")}
    finally:
        db.close()


def same(a, b) -> bool:
    missing = (a is None or (isinstance(a, float) and math.isnan(a)), b is None)
    return all(missing) if any(missing) else a == b


def test_the_frame_holds_every_stored_row_with_its_parameters_and_ratio(store_path):
    frame = volsched.read_runs(store_path)
    stored = sqlite_rows(store_path)
    assert list(frame.columns[: len(RUN_COLUMNS)]) == list(RUN_COLUMNS)
    assert sorted(frame["key"]) == sorted(stored)
    for rec in frame.to_dict("records"):
        raw = stored[rec["key"]]
        params = json.loads(raw["params"])
        for column, value in (("value", raw["objective"]), ("bound", raw["bound"]), ("status", raw["status"]),
                              ("method", raw["method"]), ("kind", raw["kind"]), ("instance", raw["instance"]),
                              ("p_n", params["n"]), ("p_hours", json.dumps(params["hours"])),
                              ("method_time_limit", json.loads(raw["method_params"]).get("time_limit")),
                              ("metric_makespan", json.loads(raw["metrics"]).get("makespan")),
                              ("sweep", "t"), ("volsched", "9.9")):  # fmt: skip
            assert same(rec[column], value), (rec["key"], column, rec[column], value)
        proven = None if pd.isna(rec["proven"]) else bool(rec["proven"])
        if raw["kind"] == "exact":
            assert proven == (raw["status"] == "optimal")
            assert all(same(rec[k], None) for k in ("ratio", "ratio_lo", "ratio_hi"))
        else:
            ratio, lo, hi, expected_proven = EXPECTED[raw["instance_key"]]
            for got, want in ((rec["ratio"], ratio), (rec["ratio_lo"], lo), (rec["ratio_hi"], hi)):
                assert same(got, want) or got == pytest.approx(want, rel=1e-15), (rec["key"], got, want)
            assert proven == expected_proven, rec["key"]


def test_store_to_frame_and_read_runs_agree(store_path):
    with Store(store_path, create=False) as store:
        frame = store.to_frame()
    assert frame.equals(volsched.read_runs([store_path]))


def test_report_runs_writes_the_frame_as_csv(capsys, store_path, tmp_path):
    out = tmp_path / "runs.csv"
    code, _, err = run(capsys, "report", store_path, "--runs", out)
    assert code == 0, err
    frame = volsched.read_runs(store_path)
    with out.open(newline="") as fh:
        lines = list(csv.DictReader(fh))
    assert [r["key"] for r in lines] == list(frame["key"])
    assert list(lines[0]) == list(frame.columns)
    for line, rec in zip(lines, frame.to_dict("records"), strict=True):
        for column in ("value", "bound", "ratio", "ratio_lo", "ratio_hi"):
            want = rec[column]
            assert (line[column] == "") if same(want, None) else float(line[column]) == want


@pytest.mark.skipif(importlib.util.find_spec("pyarrow") is not None, reason="pyarrow is installed")
def test_parquet_without_pyarrow_is_one_clear_line_and_writes_nothing(capsys, store_path, tmp_path):
    out = tmp_path / "runs.parquet"
    code, _, err = run(capsys, "report", store_path, "--runs", out)
    assert_input_error(code, err, "pyarrow")
    assert not out.exists()


@pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None, reason="pyarrow is not installed")
def test_parquet_round_trips(capsys, store_path, tmp_path):
    out = tmp_path / "runs.parquet"
    code, _, err = run(capsys, "report", store_path, "--runs", out)
    assert code == 0, err
    assert list(pd.read_parquet(out)["key"]) == list(volsched.read_runs(store_path)["key"])


@pytest.mark.parametrize(("name", "fragment"), [("runs.txt", ".csv or .parquet"), ("no/runs.csv", "folder")])
def test_a_bad_runs_file_is_refused_before_anything_is_written(capsys, store_path, tmp_path, name, fragment):
    code, out, err = run(capsys, "report", store_path, "--runs", tmp_path / name)
    assert_input_error(code, err, fragment)
    assert out == "" and not (tmp_path / name).exists()


def test_the_frame_of_one_sweep(store_path):
    with Store(store_path) as store, pytest.warns(SweepWarning, match="recorded apart as 'other'"):
        store.plan([task("i9", "h", "heuristic", sweep="other")])
        store.write(row(task("i9", "h", "heuristic", sweep="other"), "ok", 3.0))
    assert list(volsched.read_runs(store_path, sweep="other")["key"]) == ["i9/h"]
    assert "i9/h" not in set(volsched.read_runs(store_path, sweep="t")["key"])
    assert len(volsched.read_runs(store_path)) == len(sqlite_rows(store_path))
