"""The report layer on hand-built stores with hand-computed statistics."""

import csv
import dataclasses
import json
import sqlite3

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.experiments.figures import check_plot_args, metric_vs_param, ratio_boxplot, write_plots
from volsched.experiments.report import summarize, to_markdown, write_csv
from volsched.experiments.store import RESULT_COLUMNS, SCHEMA_VERSION, ResultRow, Store
from volsched.instances.errors import InputError
from volsched.ratios import relative_difference, score_rows

PNG = b"\x89PNG\r\n\x1a\n"


def task(family, inst, method, kind, params, sense="min"):
    return {
        "key": f"{family}/{inst}/{method}",
        "sweep": "t",
        "family": family,
        "instance_key": f"{family}/{inst}",
        "params": params,
        "method": method,
        "kind": kind,
        "method_params": {"time_limit": 5} if kind == "exact" else {},
        "problem": "p",
        "sense": sense,
    }


def result(t, status, objective=None, bound=None, runtime=0.5, error=None):
    return {
        **t,
        "instance": t["instance_key"],
        "status": status,
        "objective": objective,
        "bound": bound,
        "runtime_s": runtime,
        "error": error,
        "versions": {"volsched": "test"},
        "host": "test",
        "timestamp": "2024-01-01T00:00:00",
    }


def by_method(summary, method):
    (row,) = [r for r in summary["rows"] if r["method"] == method]
    return row


@pytest.fixture
def ratio_store(tmp_path):
    """Family ``f``: exact ``ex`` and heuristic ``h1`` on instances i0..i9.

    i0-i4: proven optimum 10, h1 = 10, 11, 12, 15, 20 -> ratios 1.0, 1.1, 1.2, 1.5, 2.0
           (i3, i4: heuristic row written before the exact row);
    i5: exact feasible 10, bound 8, h1 = 12 -> interval [1.2, 1.5];
    i6: exact feasible 20, bound 10, h1 = 30 -> interval [1.5, 3.0];
    i7: exact timeout, h1 error; i8: exact optimal 10, h1 timeout; i9: planned only.
    """
    store = Store(tmp_path / "r.sqlite")
    tasks = {}
    for i in range(10):
        params = {"n": 5 if i % 2 else 10, "seed": i}
        tasks[i] = (task("f", f"i{i}", "ex", "exact", params), task("f", f"i{i}", "h1", "heuristic", params))
    store.plan([t for pair in tasks.values() for t in pair])
    h_values = [10.0, 11.0, 12.0, 15.0, 20.0]
    for i, v in enumerate(h_values):
        exact, heur = result(tasks[i][0], "optimal", 10.0, 10.0, runtime=1.0), result(tasks[i][1], "ok", v)
        for row in (heur, exact) if i >= 3 else (exact, heur):
            assert store.write(row)
    store.write(result(tasks[5][0], "feasible", 10.0, 8.0, runtime=4.0))
    store.write(result(tasks[5][1], "ok", 12.0))
    store.write(result(tasks[6][1], "ok", 30.0))
    store.write(result(tasks[6][0], "feasible", 20.0, 10.0, runtime=4.0))
    store.write(result(tasks[7][0], "timeout", runtime=10.0, error="time limit"))
    store.write(result(tasks[7][1], "error", error="boom"))
    store.write(result(tasks[8][0], "optimal", 10.0, 10.0, runtime=1.0))
    store.write(result(tasks[8][1], "timeout", runtime=2.3, error="time limit"))
    yield store
    store.close()


def casanova_rows(sense):
    """Family ``c``, heuristics ``IE`` and ``H``; scenarios w=1, w=2, seeds 0 and 1 paired.

    w=1: IE 10, 20 (mean 15); H 12, 27 (mean 19.5).  w=2: IE 30, 50 (mean 40); H 20, 40 (mean 30).
    Seed 2 of w=1: H fails (IE 1000); seed 3 of w=2: IE times out (H 5). Neither is paired.
    """
    values = {
        (1, 0): (10, 12),
        (1, 1): (20, 27),
        (2, 0): (30, 20),
        (2, 1): (50, 40),
        (1, 2): (1000, None),
        (2, 3): (None, 5),
    }
    rows = []
    for (w, seed), (ie, h) in values.items():
        params = {"w": w, "seed": seed}
        for name, v in (("IE", ie), ("H", h)):
            t = task("c", f"w{w}s{seed}", name, "heuristic", params, sense=sense)
            bad = "error" if name == "H" else "timeout"
            rows.append((t, result(t, "ok", float(v)) if v is not None else result(t, bad, error="x")))
    return rows


@pytest.fixture(params=["min", "max"])
def casanova_store(request, tmp_path):
    store = Store(tmp_path / f"c-{request.param}.sqlite")
    rows = casanova_rows(request.param)
    store.plan([t for t, _ in rows])
    for _, r in rows:
        store.write(r)
    yield request.param, store
    store.close()


def test_counts_and_pending(ratio_store):
    s = summarize(ratio_store)
    assert (s["tasks"], s["done"], s["pending"], s["errors"], s["timeouts"]) == (20, 18, 2, 1, 2)
    assert [(r["kind"], r["method"]) for r in s["rows"]] == [("exact", "ex"), ("heuristic", "h1")]


def test_exact_method_statistics(ratio_store):
    ex = by_method(summarize(ratio_store), "ex")
    assert (ex["instances"], ex["runs"]) == (9, 9)
    assert {k: ex[k] for k in ("optimal", "feasible", "infeasible", "unknown", "timeout", "error")} == {
        "optimal": 6,
        "feasible": 2,
        "infeasible": 0,
        "unknown": 0,
        "timeout": 1,
        "error": 0,
    }
    assert ex["runtime_mean"] == pytest.approx(24 / 9)
    assert ex["runtime_max"] == 10.0
    # gaps: six optimal rows 0, then |10-8|/10 = 0.2 and |20-10|/20 = 0.5
    assert ex["gap_mean"] == pytest.approx(0.7 / 8)
    assert ex["gap_max"] == pytest.approx(0.5)


def test_proven_ratio_statistics_link_both_ways(ratio_store):
    h = by_method(summarize(ratio_store), "h1")
    # i3 and i4 were written before their exact rows and still count
    assert h["proven"] == 5
    assert h["ratio_mean"] == pytest.approx(6.8 / 5)
    assert h["ratio_median"] == pytest.approx(1.2)
    # linear percentile: position 0.9 * 4 = 3.6 between 1.5 and 2.0
    assert h["ratio_p90"] == pytest.approx(1.8)
    assert h["ratio_max"] == pytest.approx(2.0)
    assert h["within_1_1"] == pytest.approx(0.4)
    assert h["below_1"] == 0
    assert h["runtime_mean"] == pytest.approx((8 * 0.5 + 2.3) / 9)


def test_unproven_rows_are_an_interval_counted_apart(ratio_store):
    h = by_method(summarize(ratio_store), "h1")
    assert (h["unproven"], h["unproven_open"], h["no_exact"]) == (2, 0, 0)
    assert h["unproven_ratio_lo_mean"] == pytest.approx((1.2 + 1.5) / 2)
    assert h["unproven_ratio_hi_mean"] == pytest.approx((1.5 + 3.0) / 2)
    assert h["unproven_ratio_hi_max"] == pytest.approx(3.0)
    assert h["ratio_max"] == pytest.approx(2.0)


def test_errors_and_timeouts_are_fails(ratio_store):
    h = by_method(summarize(ratio_store), "h1")
    assert (h["instances"], h["runs"], h["ok"], h["fails"]) == (9, 9, 7, 2)


def test_heuristic_without_exact_row(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        t = task("f", "a", "h", "heuristic", {"seed": 0})
        store.plan([t])
        store.write(result(t, "ok", 3.0))
        h = by_method(summarize(store), "h")
        assert (h["proven"], h["unproven"], h["no_exact"]) == (0, 0, 1)
        assert h["ratio_mean"] is None and h["ratio_p90"] is None and h["unproven_ratio_lo_mean"] is None


def test_heuristic_beating_a_proof_is_counted(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        ex, h = task("f", "a", "ex", "exact", {"seed": 0}), task("f", "a", "h", "heuristic", {"seed": 0})
        store.plan([ex, h])
        store.write(result(ex, "optimal", 10.0, 10.0))
        store.write(result(h, "ok", 9.0))
        s = summarize(store)
        row = by_method(s, "h")
        assert (row["proven"], row["below_1"], row["ratio_max"]) == (1, 1, pytest.approx(0.9))
        assert row["defects"] == s["defects"] == 1


def unproven_store(path, values, incumbent=20.0, bound=10.0, sense="min"):
    """One instance: an exact row stopped with ``incumbent`` and ``bound``, one heuristic per value."""
    store = Store(path)
    ex = task("f", "a", "ex", "exact", {"seed": 0}, sense)
    hs = [task("f", "a", f"h{i}", "heuristic", {"seed": 0}, sense) for i in range(len(values))]
    store.plan([ex, *hs])
    store.write(result(ex, "timeout", incumbent, bound))
    for t, v in zip(hs, values, strict=True):
        store.write(result(t, "ok", v))
    return store


@pytest.mark.parametrize("sense", ["min", "max"])
def test_an_unproven_lower_end_is_over_the_best_known_value_never_below_1(tmp_path, sense):
    """Runs better than the exact incumbent: the lower end is over the best of them, not the incumbent.

    Against the incumbent alone, the lower ends were 12/20 = 0.6 and 15/20 = 0.75 (maximisation:
    10/20 and 10/15), below 1 and counted nowhere.
    """
    incumbent, bound, values = (20.0, 10.0, [12.0, 15.0]) if sense == "min" else (10.0, 30.0, [20.0, 15.0])
    with unproven_store(tmp_path / "s.sqlite", values, incumbent, bound, sense) as store:
        s = summarize(store)
    h0, h1 = by_method(s, "h0"), by_method(s, "h1")
    best = 12.0 if sense == "min" else 20.0
    for row, v in ((h0, values[0]), (h1, values[1])):
        assert (row["proven"], row["unproven"], row["unproven_open"], row["defects"]) == (0, 1, 0, 0)
        lo, hi = (v / best, v / bound) if sense == "min" else (best / v, bound / v)
        assert row["unproven_ratio_lo_mean"] == pytest.approx(lo) and row["unproven_ratio_lo_mean"] >= 1
        assert row["unproven_ratio_hi_mean"] == pytest.approx(hi)
    assert h0["unproven_ratio_lo_mean"] == 1.0 and s["defects"] == 0


def test_a_run_beating_a_proven_bound_is_a_defect(tmp_path):
    with unproven_store(tmp_path / "s.sqlite", [8.0, 12.0], incumbent=20.0, bound=10.0) as store:
        s = summarize(store)
        text = to_markdown(s)
    assert by_method(s, "h0")["defects"] == 1 and by_method(s, "h1")["defects"] == 0
    assert by_method(s, "h0")["unproven_ratio_hi_mean"] == pytest.approx(0.8)
    assert s["defects"] == 1
    assert "defects 1" in text.splitlines()[0]
    h0 = next(line for line in text.splitlines() if line.startswith("| f | h0 |"))
    assert h0.split(" | ")[12] == "1"  # the defects column


def test_report_json_and_markdown_count_defects(capsys, tmp_path):
    unproven_store(tmp_path / "s.sqlite", [8.0, 12.0, 5.0]).close()
    code, out, err = run(capsys, "report", tmp_path / "s.sqlite", "--json")
    assert code == 0, err
    report = one_json(out)
    assert report["defects"] == 2
    assert {r["method"]: r["defects"] for r in report["rows"] if r["kind"] == "heuristic"} == {
        "h0": 1,
        "h1": 0,
        "h2": 1,
    }
    code, out, err = run(capsys, "report", tmp_path / "s.sqlite")
    assert code == 0, err
    assert out.splitlines()[0].endswith("defects 2")


def test_the_store_keeps_rows_as_written_and_computes_nothing(tmp_path):
    with unproven_store(tmp_path / "s.sqlite", [12.0]) as store:
        rows = store.rows()
        columns = [r[1] for r in store.db.execute("PRAGMA table_info(results)")]
    assert columns == list(RESULT_COLUMNS)
    assert all(isinstance(r, ResultRow) for r in rows)
    assert not set(columns) & {"optimum", "ratio", "ratio_lo", "ratio_hi", "optimum_proven"}
    (h,) = [r for r in rows if r["kind"] == "heuristic"]
    assert dict(h) == {c: getattr(h, c) for c in RESULT_COLUMNS} and h.objective == 12.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.objective = 1.0  # type: ignore[misc]


#: The results table of layout 2, which stored ratio columns filled as rows arrived.
LAYOUT_2_RESULTS = """CREATE TABLE results (
    key TEXT PRIMARY KEY REFERENCES planned(key), sweep TEXT NOT NULL, family TEXT NOT NULL,
    instance_key TEXT NOT NULL, instance TEXT, params TEXT NOT NULL, method TEXT NOT NULL,
    kind TEXT NOT NULL, method_params TEXT NOT NULL, problem TEXT NOT NULL, sense TEXT NOT NULL,
    status TEXT NOT NULL, objective REAL, bound REAL, metrics TEXT NOT NULL, runtime_s REAL,
    optimum REAL, optimum_bound REAL, optimum_proven INTEGER, ratio REAL, ratio_lo REAL, ratio_hi REAL,
    error TEXT, versions TEXT NOT NULL, host TEXT NOT NULL, timestamp TEXT NOT NULL)"""


def test_a_layout_2_store_is_read_with_its_ratios_recomputed_and_never_written(capsys, tmp_path):
    with unproven_store(tmp_path / "new.sqlite", [12.0, 15.0]) as store:
        expected = summarize(store)
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        f"ATTACH '{tmp_path / 'new.sqlite'}' AS new;"
        "CREATE TABLE planned AS SELECT * FROM new.planned;" + LAYOUT_2_RESULTS + ";"
    )
    db.execute(
        "INSERT INTO results (key, sweep, family, instance_key, instance, params, method, kind, "
        "method_params, problem, sense, status, objective, bound, metrics, runtime_s, error, versions, "
        "host, timestamp) SELECT key, sweep, family, instance_key, instance, params, method, kind, "
        "method_params, problem, sense, status, objective, bound, metrics, runtime_s, error, versions, "
        "host, timestamp FROM new.results"
    )
    db.execute("UPDATE results SET ratio_lo = objective / 20.0, optimum = 20.0, optimum_proven = 0")  # stale
    db.commit()
    db.execute("DETACH new")
    db.execute("PRAGMA user_version=2")
    db.close()
    before = path.read_bytes()
    with Store(path, create=False) as store:
        assert summarize(store) == expected
    code, out, err = run(capsys, "report", path, "--json")
    assert code == 0, err
    assert one_json(out)["rows"] == expected["rows"]
    with Store(path) as store, pytest.raises(InputError, match=r"(?i)start a new store"):
        store.plan([task("f", "b", "ex", "exact", {"seed": 1})])
    with Store(path) as store, pytest.raises(InputError, match=f"writes layout {SCHEMA_VERSION}"):
        store.write(result(task("f", "b", "ex", "exact", {"seed": 1}), "optimal", 1.0, 1.0))
    assert path.read_bytes() == before


def test_a_damaged_layout_2_store_is_refused(capsys, tmp_path):
    path = tmp_path / "odd.sqlite"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE planned (key TEXT); CREATE TABLE results (key TEXT, ratio REAL);")
    db.execute("PRAGMA user_version=2")
    db.close()
    code, _out, err = run(capsys, "report", path, "--json")
    assert_input_error(code, err, "not a volsched store")


def test_casanova_metrics_by_hand(casanova_store):
    sense, store = casanova_store
    s = summarize(store, reference="IE")
    h, ie = by_method(s, "H"), by_method(s, "IE")
    assert s["reference"] == {"c": "IE"}
    assert (h["scenarios"], h["trials"], h["fails"]) == (2, 4, 1)
    if sense == "min":
        # w=1: (19.5 - 15) / 15 = 0.3; w=2, H better: (30 - 40) / min(30, 40) = -1/3
        assert h["pct_diff"] == pytest.approx(100 * (0.3 - 1 / 3) / 2)
        assert h["stdv"] == pytest.approx((0.3 + 1 / 3) / 2)
        assert h["pct_wins"] == pytest.approx(50.0)  # 20 <= 30, 40 <= 50
        assert h["pct_wins30"] == pytest.approx(75.0)  # only 27 > 1.3 * 20
    else:
        # larger is better: w=1: (15 - 19.5) / 15 = -0.3; w=2: (40 - 30) / min(30, 40) = 1/3
        assert h["pct_diff"] == pytest.approx(100 * (-0.3 + 1 / 3) / 2)
        assert h["stdv"] == pytest.approx((0.3 + 1 / 3) / 2)
        assert h["pct_wins"] == pytest.approx(50.0)  # 12 >= 10, 27 >= 20
        assert h["pct_wins30"] == pytest.approx(75.0)  # 1.3 * 40 >= 50 but 1.3 * 20 < 30
    assert (ie["pct_diff"], ie["stdv"], ie["pct_wins"], ie["pct_wins30"]) == (0.0, 0.0, 100.0, 100.0)
    assert (ie["scenarios"], ie["trials"], ie["fails"]) == (2, 5, 1)


def test_default_reference_is_first_in_name_order(casanova_store):
    sense, store = casanova_store
    s = summarize(store)
    assert s["reference"] == {"c": "H"}
    ie = by_method(s, "IE")
    assert ie["reference"] == "H"
    assert ie["pct_diff"] == pytest.approx(100 * (-0.3 + 1 / 3) / 2 * (1 if sense == "min" else -1))
    assert by_method(s, "H")["pct_wins"] == 100.0


def test_relative_difference_uses_the_smaller_value():
    assert relative_difference(40.0, 20.0, "min") == pytest.approx(1.0)
    assert relative_difference(20.0, 40.0, "min") == pytest.approx(-1.0)
    assert relative_difference(20.0, 40.0, "max") == pytest.approx(1.0)
    assert relative_difference(0.0, 0.0, "min") == 0.0
    assert relative_difference(0.0, 1.0, "min") is None


def test_summary_is_strict_json(ratio_store, casanova_store, tmp_path):
    _, cstore = casanova_store
    for store in (ratio_store, cstore, Store(tmp_path / "empty.sqlite")):
        s = summarize(store)
        assert json.loads(json.dumps(s, allow_nan=False)) == s
    assert summarize(Store(tmp_path / "empty.sqlite"))["rows"] == []


def test_markdown_shows_the_numbers(ratio_store, casanova_store):
    text = to_markdown(summarize(ratio_store))
    assert "tasks 20, done 18, pending 2, errors 1, timeouts 2" in text
    h1 = next(line for line in text.splitlines() if line.startswith("| f | h1 |"))
    for number in ("1.360", "1.200", "1.800", "2.000", "0.400", "[1.350, 2.250]", "3.000"):
        assert number in h1
    ex = next(line for line in text.splitlines() if line.startswith("| f | ex |"))
    assert "| 6 | 2 | 0 | 0 | 1 | 0 |" in ex and "0.0875" in ex
    sense, cstore = casanova_store
    lines = to_markdown(summarize(cstore, "IE")).splitlines()
    h = next(line for line in lines if line.startswith("| c | H |"))
    assert ("| -1.67 |" if sense == "min" else "| 1.67 |") in h and "| 0.32 |" in h


def test_csv_round_trip(ratio_store, tmp_path):
    s = summarize(ratio_store)
    paths = write_csv(s, tmp_path / "csv")
    assert [p.name for p in paths] == ["exact.csv", "heuristics.csv"]
    with paths[1].open(newline="") as fh:
        (h,) = list(csv.DictReader(fh))
    expected = by_method(s, "h1")
    for key in ("ratio_mean", "ratio_p90", "within_1_1", "unproven_ratio_lo_mean", "unproven_ratio_hi_mean"):
        assert float(h[key]) == expected[key]
    assert int(h["fails"]) == 2 and int(h["unproven"]) == 2
    with paths[0].open(newline="") as fh:
        (ex,) = list(csv.DictReader(fh))
    assert float(ex["gap_mean"]) == pytest.approx(0.0875) and int(ex["optimal"]) == 6


def test_plots_are_png(ratio_store, casanova_store, tmp_path):
    paths = write_plots(ratio_store, tmp_path / "p1", param="n")
    _, cstore = casanova_store
    paths += write_plots(cstore, tmp_path / "p2", param="w", reference="IE")
    # one figure per family; family c has no exact row, hence no ratio against w to draw
    assert [p.name for p in paths] == [
        "ratios-f.png",
        "ratio_vs_n-f.png",
        "pct_diff_vs_n-f.png",
        "ratios-c.png",
        "pct_diff_vs_w-c.png",
    ]
    for p in paths:
        assert p.read_bytes()[:8] == PNG
    rows = score_rows(ratio_store.rows())
    assert ratio_boxplot(rows, tmp_path / "b.png").read_bytes()[:8] == PNG
    assert metric_vs_param(rows, "n", tmp_path / "m.png").read_bytes()[:8] == PNG


def test_bad_param_and_reference_are_named(ratio_store, tmp_path):
    with pytest.raises(InputError, match="nope"):
        write_plots(ratio_store, tmp_path / "out", param="nope")
    with pytest.raises(InputError, match="XX"):
        write_plots(ratio_store, tmp_path / "out", reference="XX")
    with pytest.raises(InputError, match="XX"):
        summarize(ratio_store, reference="XX")
    with pytest.raises(InputError, match="nope"):
        metric_vs_param(ratio_store.rows(), "nope", tmp_path / "m.png")
    with pytest.raises(InputError, match="nope"):
        check_plot_args(ratio_store.rows(), param="nope")
    check_plot_args(ratio_store.rows(), param="n", reference="h1")
    assert not (tmp_path / "out").exists()
