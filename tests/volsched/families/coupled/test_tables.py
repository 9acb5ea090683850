"""Tables I/II of Casanova et al. 2013 from store rows: the paper's definitions on hand-made rows."""

import pytest

from volsched.families.coupled.tables import (
    by_w_min,
    distance_stats,
    gaps,
    offline_reference,
    plots,
    report,
    tables,
)


def _params(m, w_min, scenario, trial):
    return {
        "preset": "paper-realization",
        "tasks": m,
        "n_com": 5,
        "w_min": w_min,
        "scenario": scenario,
        "trial": trial,
        "slots": 2000,
        "seed": 0,
    }


def _row(kind, method, problem, params, objective, status="ok", bound=None):
    key = f"{params['tasks']}-{params['w_min']}-{params['scenario']}-{params['trial']}"
    return {
        "family": "coupled",
        "kind": kind,
        "method": method,
        "problem": problem,
        "params": params,
        "instance_key": key,
        "status": status,
        "objective": objective,
        "bound": bound,
        "sense": "min",
    }


def _store():
    rows = []
    # m = 5, one scenario of two trials. IE: 100 and 200 (mean 150); X: 120 and 150 (mean 135).
    for trial, (ie, x) in enumerate(((100, 120), (200, 150))):
        p = _params(5, 1, 0, trial)
        rows += [
            _row("heuristic", "IE", "full", p, ie),
            _row("heuristic", "X", "full", p, x),
            _row("exact", "chain", "iterations", p, 40, "optimal", 40),
            _row("exact", "greedy", "full", p, 90 + trial, "feasible", 50),
        ]
    # A second scenario: X fails (the cap) on its only trial, IE finishes.
    p = _params(5, 2, 0, 0)
    rows += [
        _row("heuristic", "IE", "full", p, 300),
        _row("heuristic", "X", "full", p, None),
        _row("exact", "greedy", "full", p, 280, "optimal", 280),
    ]
    return rows


def test_offline_reference_takes_the_best_bound_and_the_best_schedule():
    refs = offline_reference(_store())
    assert refs["5-1-0-0"] == {"lower": 50, "best": 90, "optimum": None}
    assert refs["5-1-0-1"] == {"lower": 50, "best": 91, "optimum": None}
    assert refs["5-2-0-0"] == {"lower": 280, "best": 280, "optimum": 280}


def test_the_paper_metrics_and_the_offline_ratios():
    table = {t["heuristic"]: t for t in tables(_store())[5]}
    x, ie = table["X"], table["IE"]
    # %diff: only the first scenario pairs two finished runs; (135 - 150) / 135.
    assert x["pct_diff"] == pytest.approx(100 * (135 - 150) / 135)
    assert ie["pct_diff"] == 0
    # %wins per trial, ties counting: X wins the second trial only (150 <= 200), not the first.
    assert x["pct_wins"] == pytest.approx(50.0) and x["pct_wins30"] == pytest.approx(100.0)
    assert (x["fails"], x["trials"]) == (1, 3) and (ie["fails"], ie["trials"]) == (0, 3)
    assert x["ratio_lower_mean"] == pytest.approx((120 / 50 + 150 / 50) / 2)
    assert x["ratio_best_mean"] == pytest.approx((120 / 90 + 150 / 91) / 2)
    assert ie["ratio_optimum_mean"] == pytest.approx(300 / 280) and ie["proven"] == 1
    assert [t["heuristic"] for t in tables(_store())[5]] == ["X", "IE"]  # sorted by %diff


def test_report_and_plots(tmp_path):
    part = report(_store())
    assert "Table I format" in part["markdown"] and part["json"]["casanova2013"]["5"]
    made = plots(_store(), tmp_path)
    assert made and all(p.exists() and p.stat().st_size > 0 for p in made)
    assert (tmp_path / "casanova2013-distance-to-offline-m5.png") in made
    assert part["json"]["distance"] == distance_stats(_store())
    assert report([r for r in _store() if r["kind"] == "exact"]) is None


def test_distance_boxes_per_m_and_reference():
    boxes = distance_stats(_store())
    assert list(boxes) == ["5"]
    best = boxes["5"]["best"]
    # X finished two trials: 120 / 90 and 150 / 91; IE three: 100 / 90, 200 / 91, 300 / 280.
    assert best["X"]["n"] == 2 and best["X"]["values"] == pytest.approx([120 / 90, 150 / 91])
    assert best["X"]["med"] == pytest.approx((120 / 90 + 150 / 91) / 2)
    assert best["IE"]["n"] == 3 and best["IE"]["med"] == pytest.approx(100 / 90)
    # the proven optimum only on the second scenario, where X failed
    assert list(boxes["5"]["optimum"]) == ["IE"] and boxes["5"]["optimum"]["IE"]["n"] == 1
    assert boxes["5"]["lower"]["X"]["values"] == pytest.approx([120 / 50, 150 / 50])


def test_offline_gap_per_cell():
    rows = _store()
    # A realization whose only rows are a failed run and a greedy that found nothing: no UB.
    p = _params(5, 2, 1, 0)
    rows += [
        _row("heuristic", "IE", "full", p, None),
        _row("exact", "greedy", "full", p, None, "unknown", 60),
    ]
    cells = {(c["m"], c["w_min"]): c for c in gaps(rows)}
    assert list(cells) == [(5, 1), (5, 2), (5, "all")]
    one = cells[(5, 1)]  # LB 50 on both; UB 90 and 91 (the greedy); the runs do not beat it
    assert one["realizations"] == 2 and one["without_upper_bound"] == 0
    assert one["median_gap"] == pytest.approx(((90 - 50) / 90 + (91 - 50) / 91) / 2)
    assert one["max_gap"] == pytest.approx(41 / 91) and one["proven_optimal"] == 0
    assert one["median_gap_greedy"] == pytest.approx(one["median_gap"])
    two = cells[(5, 2)]  # 280 = 280 proven; the other has no UB
    assert (two["realizations"], two["without_upper_bound"], two["proven_optimal"]) == (2, 1, 1)
    assert two["median_gap"] == 0
    assert cells[(5, "all")]["realizations"] == 4 and cells[(5, "all")]["proven_optimal"] == 1
    part = report(rows)
    assert part["json"]["offline_gap"] == gaps(rows) and "(UB - LB) / UB" in part["markdown"]


def test_figure2_data_is_the_paper_metric_per_w_min():
    series = by_w_min(_store(), m=5)
    assert list(series) == ["IE", "X"]
    # w_min 1: the first scenario's (135 - 150) / 135; w_min 2: X failed, no pair to compare.
    assert series["X"] == pytest.approx({1: 100 * (135 - 150) / 135, 2: None})
    assert series["IE"] == {1: 0, 2: 0}
    assert by_w_min(_store(), m=10) == {} and by_w_min(_store(), m=5, reference="Y") == {}
    part = report(_store())
    assert part["json"]["figure2"]["5"]["X"]["2"] is None
    assert "Figure 2's data" in part["markdown"] and "| X | -11.1 | - |" in part["markdown"]


def test_the_offline_ratios_compare_like_with_like():
    """The ratio to the optimum averages the proven realizations only: the other two are given there too.

    IE runs on three realizations: 100 and 200 (lower bound 50, best known 90 and 91, unproven) and
    300 (optimum 280, proven). A fourth realization has runs but no exact row, hence no lower bound:
    it is in neither subset, so that "/ lower bound" and "/ best known" average the same runs.
    """
    rows = _store()
    p = _params(5, 3, 0, 0)
    rows += [_row("heuristic", "IE", "full", p, 400), _row("heuristic", "X", "full", p, 500)]
    ie = {t["heuristic"]: t for t in tables(rows)[5]}["IE"]
    assert (ie["trials"], ie["fails"], ie["n"], ie["proven"]) == (4, 0, 3, 1)
    assert ie["ratio_lower_mean"] == pytest.approx((100 / 50 + 200 / 50 + 300 / 280) / 3)
    assert ie["ratio_best_mean"] == pytest.approx((100 / 90 + 200 / 91 + 300 / 280) / 3)
    # On the proven realization the bound, the best known schedule and the optimum coincide.
    assert (
        ie["proven_ratio_lower_mean"]
        == ie["proven_ratio_best_mean"]
        == ie["ratio_optimum_mean"]
        == pytest.approx(300 / 280)
    )
    x = {t["heuristic"]: t for t in tables(rows)[5]}["X"]
    assert (x["n"], x["proven"], x["ratio_optimum_mean"], x["proven_ratio_best_mean"]) == (2, 0, None, None)
    text = report(rows)["markdown"]
    header = next(line for line in text.splitlines() if line.startswith("| heuristic | #fails"))
    cells = [c.strip() for c in header.strip("|").split("|")]
    line = next(line for line in text.splitlines() if line.startswith("| IE |"))
    values = dict(zip(cells, (c.strip() for c in line.strip("|").split("|")), strict=True))
    assert (values["n"], values["n proven"]) == ("3", "1")
    assert (
        values["/ lower bound (proven)"]
        == values["/ best known (proven)"]
        == values["/ optimum (proven)"]
        == f"{300 / 280:.3f}"
    )
    assert values["/ best known"] == f"{(100 / 90 + 200 / 91 + 300 / 280) / 3:.3f}"
