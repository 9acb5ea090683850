"""The slack family's Figure 4 report: ratios to the beta-independent bound, stability, the optimum apart."""

import numpy as np

from volsched.families import FAMILIES
from volsched.families.slack import figure4
from volsched.solvers.slack.bound import lower_bound

PARAMS = {"preset": "paper", "machines": 4, "jobs": 8, "free_fraction": 0.2, "horizon": 10.0}


def _row(method, problem, beta, seed, objective, stability):
    return {
        "family": "slack",
        "kind": "heuristic",
        "status": "ok",
        "method": method,
        "problem": problem,
        "params": {**PARAMS, "beta": beta, "seed": seed},
        "objective": objective,
        "bound": None,
        "sense": "min",
        "instance_key": f"{beta}-{seed}",
        "metrics": {"makespan": objective, "stability": stability},
    }


def _optimum(row, value):
    """The proven exact row of ``row``'s instance and problem: its ratio is computed from it."""
    return {
        **row,
        "kind": "exact",
        "method": "cpsat",
        "status": "optimal",
        "objective": value,
        "bound": value,
        "metrics": {"makespan": value},
    }


def test_tables_divide_by_the_bound_of_the_heuristics_problem():
    rows = [
        _row("gaps", "slack", beta, seed, 1000.0 * (seed + 1) * (1 + beta), 1 + seed)
        for beta in (0.0, 1.0)
        for seed in (0, 1, 2)
    ]
    rows += [_optimum(r, r["objective"] / (1.0 + r["params"]["beta"])) for r in list(rows)]
    rows.append(_row("lpt", "plain", 0.0, 0, 500.0, 2.0))
    rows.append({**_row("gaps", "slack", 0.5, 0, 1.0, 1.0), "params": {"preset": "theorem2", "seed": 0}})
    table = figure4.tables(rows)
    fam = FAMILIES["slack"]
    for beta in (0.0, 1.0):
        expected = []
        for seed in (0, 1, 2):
            inst = fam.generate_from({**PARAMS, "beta": 0.3, "seed": seed})  # beta does not change the bound
            expected.append(1000.0 * (seed + 1) * (1 + beta) / lower_bound(inst, "slack"))
        cell = table["gaps"][beta]
        assert cell["bound_problem"] == "slack" and cell["makespan_ratio"]["n"] == 3
        assert np.isclose(cell["makespan_ratio"]["median"], np.median(expected))
        assert cell["stability"]["median"] == 2.0 and cell["stability"]["max"] == 3.0
        assert np.isclose(cell["optimum_ratio"]["median"], 1.0 + beta)
    inst = fam.generate_from({**PARAMS, "beta": 1.0, "seed": 0})
    assert np.isclose(table["lpt"][0.0]["makespan_ratio"]["median"], 500.0 / lower_bound(inst, "plain"))
    assert 0.5 not in table["gaps"]  # only paper instances


def test_report_and_plots(tmp_path):
    rows = [_row("gaps", "slack", beta, seed, 9000.0 + seed, 1.5) for beta in (0.0, 0.5) for seed in (0, 1)]
    part = figure4.report(rows)
    assert "Figure 4" in part["markdown"] and set(part["json"]["canon2011"]["gaps"]) == {"0", "0.5"}
    made = figure4.plots(rows, tmp_path)
    assert [p.name for p in made] == ["canon2011-figure4.png"] and made[0].stat().st_size > 0
    assert figure4.report([{**rows[0], "family": "coupled"}]) is None


def _unproven(row, upper, lower):
    """The exact row of ``row``'s instance stopped by its budget: a schedule ``upper``, a bound ``lower``."""
    return {**_optimum(row, upper), "status": "feasible", "bound": lower}


def test_runs_without_a_proven_optimum_get_their_certified_interval_apart(tmp_path):
    rows = [_row("gaps", "slack", beta, seed, 1100.0 + seed, 2.0) for beta in (0.0, 0.7) for seed in (0, 1)]
    rows += [_unproven(r, 1000.0, 980.0) for r in rows if r["params"]["beta"] == 0.7]
    rows += [_optimum(r, 1000.0) for r in rows if r["params"]["beta"] == 0.0 and r["kind"] == "heuristic"]
    table = figure4.tables(rows)
    proven, interval = table["gaps"][0.0], table["gaps"][0.7]
    assert proven["optimum_ratio"]["n"] == 2 and proven["interval_lo"]["n"] == 0
    assert interval["optimum_ratio"]["n"] == 0 and interval["interval_lo"]["n"] == 2
    assert np.isclose(interval["interval_lo"]["median"], np.median([1100 / 1000, 1101 / 1000]))
    assert np.isclose(interval["interval_hi"]["max"], 1101 / 980)
    assert "| gaps | 0.7 | 0 | - | 2 | 1.1005 | 1.1230 | 1.1235 |" in figure4.to_markdown(table)
    made = figure4.plots(rows, tmp_path)
    assert [p.name for p in made] == ["canon2011-figure4.png", "canon2011-optimum-ratio.png"]
