"""The prescient reproduction's figures (benchmarks/bench_prescient_reproduction.py) in the house style
of :mod:`volsched.plots`: a page wide at 150 dpi, titled, labelled, each heuristic its own (colour,
marker), bars and markers at the ratios given, ``n`` under each task size."""

import importlib.util
from pathlib import Path

import matplotlib
import pytest
from matplotlib.colors import to_hex
from PIL import Image

from volsched import plots

matplotlib.use("Agg")

BENCHMARKS = Path(__file__).parents[2] / "benchmarks"


def _script(name: str):
    """A benchmark script of ``benchmarks/``, imported as a module (it is not a package)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return _script("bench_prescient_reproduction")


def test_a_replication_figure_draws_every_ratio_as_a_marked_bar_from_one(bench, kept, tmp_path):
    methods = ["EXCL-PRED", "EXCL-PRED-DUP", "EXCL-PRED-TO", "REP-PROB"]
    # hand-picked ratios, distinct per (platform, T, size, heuristic); one T on UCB only, 7 runs per cell
    norm = {}
    for p, base in (("sdsc", 1.0), ("ucb", 2.0)):
        for i, m in enumerate(bench.MINUTES):
            for k, h in enumerate(methods):
                norm[(p, 100, m, h)] = (1.05 + base + 0.3 * i + 0.07 * k, 5.0, 7)
    norm[("ucb", 400, 5.0, "REP-PROB")] = (1.5, 1.0, 3)
    path = bench.figure(norm, "replication-ucb", ["sdsc", "ucb"], methods, tmp_path)

    assert Image.open(path).size[0] == round(plots.PAGE_WIDTH * plots.DPI) <= plots.MAX_WIDTH_PX
    (fig,) = kept()
    assert fig.get_suptitle()
    axes = fig.axes
    assert len(axes) == 2 * 2  # SDSC and UCB, T = 100 and T = 400 (the T = 200 column has no run)
    drawn = {}
    for ax in axes:
        assert ax.get_title()
        ticks = [t.get_text() for t in ax.get_xticklabels()]
        assert all("n=" in t for t in ticks)
        for line in ax.lines:
            if line.get_marker() in (None, "None", "none", ""):
                continue
            key = (to_hex(line.get_color()), line.get_marker())
            drawn.setdefault(key, []).extend(v for v in line.get_ydata() if v == v)
        tops = sorted(r.get_y() + r.get_height() for r in ax.patches if r.get_height() == r.get_height())
        assert all(r.get_y() == 1.0 for r in ax.patches)
        ratios = sorted(
            v[0] for (p, t, _, _), v in norm.items() if f"{p.upper()}, T = {t} tasks" == ax.get_title()
        )
        # bars rise from 1 to the ratio: their tops are 1 + (ratio - 1), exact to float rounding
        assert tops == pytest.approx(ratios, rel=1e-12)
    assert len(drawn) == len(methods)  # one (colour, marker) pair per heuristic
    assert sorted(v for vs in drawn.values() for v in vs) == sorted(v[0] for v in norm.values())
    for ax in axes[::2]:
        assert "ratio" in ax.get_ylabel()
    for ax in axes[2:]:
        assert "min" in ax.get_xlabel()
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()][: len(methods)] == methods
    assert "1.7" in legend.get_texts()[-1].get_text()


def test_the_cells_written_beside_the_figures_read_back_exactly(bench, tmp_path):
    norm = {
        ("sdsc", 100, 5.0, "FCFS"): (1.2345678901234567, 12.5, 100),
        ("ucb-lri-n33", 400, 35.0, "REP-PROB"): (2.0 / 3.0, 0.1, 7),
    }
    path = bench.save_cells(norm, tmp_path / "prescient-cells.json")
    assert bench.load_cells(str(path)) == norm


def test_a_figure_without_any_run_is_not_drawn(bench, tmp_path):
    assert bench.figure({}, "all-platforms", bench.PLATFORMS, bench.ORDER, tmp_path) is None
    assert not list(tmp_path.iterdir())


@pytest.fixture(scope="module")
def bot_bench():
    return _script("bench_bot_reproduction")


def _bot_rows():
    rows = []
    for jobs, scale in ((1000, 1.0), (3000, 2.7)):
        for k, policy in enumerate(("optimal", "periodic", "none")):
            makespan = None if (policy == "none" and jobs == 3000) else 12_345.6 * scale * (1 + k)
            rows.append(
                {
                    "clients": 50,
                    "jobs": jobs,
                    "policy": policy,
                    "makespan": makespan,
                    "wasted": 50 * 60 * (3.3 + k) * scale,
                    "wasted_checkpoint": 50 * 60 * 0.3 * scale,
                    "wasted_lost": 50 * 60 * (3.0 + k) * scale,
                    "checkpoints": 10 * jobs + k,
                    "duplicates": 7 * jobs - k,
                }
            )
    return rows


def test_the_bot_table_reads_back_at_its_printed_rounding(bot_bench):
    from volsched.families.checkpoint.bot import bot_table

    rows = _bot_rows()
    back = bot_bench.rows_from_table(bot_table(rows))
    assert len(back) == len(rows)
    for got, want in zip(back, rows, strict=True):
        assert (got["clients"], got["jobs"], got["policy"]) == (want["clients"], want["jobs"], want["policy"])
        assert (got["checkpoints"], got["duplicates"]) == (want["checkpoints"], want["duplicates"])
        if want["makespan"] is None:
            assert got["makespan"] is None
        else:  # the table prints hours to 0.1: half of that, in minutes
            assert abs(got["makespan"] - want["makespan"]) <= 3.0 + 1e-9
        for key in ("wasted", "wasted_checkpoint", "wasted_lost"):  # 0.01 h per client
            assert abs(got[key] - want[key]) <= 0.005 * 60 * 50 + 1e-9


def test_a_bot_figure_says_which_runs_never_finished_on_a_log_axis(bot_bench, kept, tmp_path):
    rows = _bot_rows()
    path = plots.bot_figure(rows, 50, tmp_path / "bot.png")
    assert Image.open(path).size[0] <= 1600
    (fig,) = kept()
    left = fig.axes[0]
    assert left.get_yscale() == "log"
    notes = [t.get_text() for t in left.texts]
    assert any("none" in t and "3000" in t and "1000" not in t for t in notes), notes
    drawn = {line.get_label(): line.get_ydata() for line in left.get_lines()}
    assert sorted(drawn) == ["none", "optimal", "periodic"]
    assert list(drawn["optimal"]) == pytest.approx([12_345.6 / 60, 12_345.6 * 2.7 / 60])


def test_figure2_drawn_again_from_a_report_json_plots_the_same_curves(kept, tmp_path):
    import json

    from volsched.families.coupled.tables import figure2, report
    from volsched.heuristics.coupled import NAMES

    rows = []
    for w_min in (1, 2, 3):  # the 17 heuristics, each slower by 7 slots than the one before it
        params = {"preset": "paper-realization", "tasks": 10, "w_min": w_min, "scenario": 0, "trial": 0}
        for k, name in enumerate(NAMES):
            rows.append(
                {
                    "family": "coupled",
                    "instance_key": f"w{w_min}",
                    "method": name,
                    "kind": "heuristic",
                    "problem": "p",
                    "params": params,
                    "status": "ok",
                    "objective": 100.0 + 7 * k + w_min,
                    "bound": None,
                    "sense": "min",
                }
            )
    figure2(rows, tmp_path / "direct.png")
    (tmp_path / "report.json").write_text(
        json.dumps({"reference": {"coupled": "IE"}, "papers": {"coupled": report(rows)["json"]}})
    )
    (path,) = _script("bench_coupled_figures").redraw(
        tmp_path / "report.json", tmp_path / "out"
    )  # no exact row
    assert path.name == "figure2-m10.png" and Image.open(path).size[0] <= plots.MAX_WIDTH_PX
    direct, again = kept()

    def curves(fig):
        return sorted(
            (line.get_label(), tuple(line.get_xdata()), tuple(line.get_ydata())) for line in fig.axes[0].lines
        )

    assert curves(again) == curves(direct) and len(curves(direct)) == 17  # 16 heuristics and the 0 line
    assert again.get_suptitle() == direct.get_suptitle()


def test_the_distance_figure_drawn_again_from_a_report_json_has_the_same_boxes(kept, tmp_path):
    import json

    from volsched.families.coupled.tables import distance_stats, report
    from volsched.families.coupled.tables import plots as coupled_plots

    rows = []
    for trial in range(12):  # IE at 1.2-1.75 times the greedy, Y-IE at 1.1-1.65; the last trial proven
        params = {"preset": "paper-realization", "tasks": 5, "w_min": 1, "scenario": 0, "trial": trial}
        key = f"t{trial}"
        base = {"family": "coupled", "instance_key": key, "params": params, "sense": "min"}
        rows.append(
            {
                **base,
                "kind": "exact",
                "method": "chain",
                "problem": "iterations",
                "status": "optimal",
                "objective": 80.0,
                "bound": 80.0,
            }
        )
        proven = trial == 11
        rows.append(
            {
                **base,
                "kind": "exact",
                "method": "greedy",
                "problem": "full",
                "status": "optimal" if proven else "feasible",
                "objective": 100.0,
                "bound": 100.0 if proven else 90.0,
            }
        )
        for name, extra in (("IE", 20), ("Y-IE", 10)):
            rows.append(
                {
                    **base,
                    "kind": "heuristic",
                    "method": name,
                    "problem": "full",
                    "status": "ok",
                    "objective": 100.0 + extra + 5 * trial,
                    "bound": None,
                }
            )
    assert any("distance" in p.name for p in coupled_plots(rows, tmp_path))
    (tmp_path / "report.json").write_text(
        json.dumps({"reference": {"coupled": "IE"}, "papers": {"coupled": report(rows)["json"]}})
    )
    made = _script("bench_coupled_figures").redraw(tmp_path / "report.json", tmp_path / "out")
    (again_path,) = [p for p in made if "distance" in p.name]
    assert again_path.name == "distance-to-offline-m5.png"
    assert Image.open(again_path).size[0] <= plots.MAX_WIDTH_PX
    direct_fig, again_fig = [f for f in kept() if "off-line reference" in f.get_suptitle()]

    def boxes(fig):
        return [
            [tuple(map(tuple, line.get_xydata())) for line in ax.lines] + [ax.get_title()] for ax in fig.axes
        ]

    assert boxes(again_fig) == boxes(direct_fig)
    assert [ax.get_title() for ax in direct_fig.axes][-1].startswith("makespan / proven optimum")
    stats = distance_stats(rows)["5"]
    assert stats["best"]["IE"]["n"] == 12 and stats["optimum"]["IE"]["values"] == [1.75]
