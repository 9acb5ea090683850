"""Figures a paper can use: one per family, a page wide, titled, series told apart, unproven runs drawn."""

import contextlib
import io
import json

import matplotlib
import pytest
from matplotlib.colors import to_hex
from oracles.figures import fits_a_page

from volsched import plots
from volsched.cli import main
from volsched.experiments.figures import metric_vs_param, ratio_boxplot
from volsched.experiments.store import Store
from volsched.families.coupled.tables import figure2
from volsched.ratios import score_rows

matplotlib.use("Agg")

PASSIVE = ["IP", "IE", "IY", "IAY", "RANDOM"]
COUPLED = PASSIVE + [f"{c}-{h}" for c in "PEY" for h in PASSIVE[:4]]


def _titled(fig):
    assert fig.get_suptitle() or any(ax.get_title() for ax in fig.axes)
    for ax in fig.axes:
        if ax.has_data():
            assert ax.get_xlabel() or ax.get_ylabel(), ax.get_title()


def _series_entries(legend):
    """The legend entries that stand for a series (a marker), not a group header or padding."""
    return [
        (t.get_text(), to_hex(h.get_color()), h.get_marker())
        for t, h in zip(legend.get_texts(), legend.legend_handles, strict=True)
        if h.get_marker() not in (None, "None", "none", "")
    ]


def test_the_17_coupled_heuristics_get_distinct_colour_marker_pairs_grouped_by_criterion():
    styles = plots.series_styles(COUPLED)
    pairs = {(s.colour, s.marker) for s in styles.values()}
    assert len(pairs) == 17
    # colour = the passive heuristic H, marker = the criterion C (Casanova et al. 2013, Section VI)
    for c in "PEY":
        for h in PASSIVE[:4]:
            assert styles[f"{c}-{h}"].colour == styles[h].colour
            assert styles[f"{c}-{h}"].marker == styles[f"{c}-IP"].marker != styles[h].marker
    assert len({styles[n].group for n in COUPLED}) == 4
    conditional = plots.series_styles(COUPLED + [f"{n}[conditional]" for n in COUPLED if n != "RANDOM"])
    assert len({(s.colour, s.marker) for s in conditional.values()}) == 33


@pytest.mark.parametrize("count", [2, 10, 12, 33, 70])
def test_any_names_get_distinct_pairs(count):
    styles = plots.series_styles([f"h{k}" for k in range(count)])
    assert len({(s.colour, s.marker) for s in styles.values()}) == count


def test_the_grouped_legend_has_one_entry_per_series(kept):
    fig, axes = plots.new_figure()
    styles = plots.series_styles(plots.series_order(COUPLED))
    for k, s in enumerate(styles.values()):
        axes[0, 0].plot([0, 1], [k, k], **s.line())
    legend = plots.grouped_legend(fig, styles)
    entries = _series_entries(legend)
    assert sorted(t for t, _, _ in entries) == sorted(COUPLED)
    assert len({(c, m) for _, c, m in entries}) == len(COUPLED)
    headers = [t.get_text() for t in legend.get_texts() if t.get_fontweight() == "bold"]
    assert headers == ["passive", "P-H (proactive)", "E-H (proactive)", "Y-H (proactive)"]


def test_a_figure_without_a_title_is_refused(tmp_path):
    fig, _ = plots.new_figure()
    with pytest.raises(ValueError, match="title"):
        plots.save(fig, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def _row(family, inst, method, kind, objective, status, bound=None, params=None, problem="p"):
    return {
        "family": family,
        "instance_key": f"{family}/{inst}",
        "method": method,
        "kind": kind,
        "problem": problem,
        "params": params or {},
        "status": status,
        "objective": objective,
        "bound": bound,
        "sense": "min",
    }


def _runs(family="f", heuristics=("a", "b", "c"), proven=3, unproven=4, params=None):
    """``proven`` instances with a proven optimum 10, ``unproven`` with incumbent 20 and bound 10."""
    rows = []
    for i in range(proven + unproven):
        p = params(i) if params else {"seed": i}
        exact = ("optimal", 10.0, 10.0) if i < proven else ("feasible", 20.0, 10.0)
        rows.append(_row(family, f"i{i}", "ex", "exact", exact[1], exact[0], exact[2], p))
        for k, h in enumerate(heuristics):
            rows.append(_row(family, f"i{i}", h, "heuristic", 20.0 + k + i, "ok", params=p))
    return rows


def test_ratio_figure_keeps_proven_ratios_apart_and_draws_every_unproven_run(kept, tmp_path):
    heuristics = ("a", "b", "c")
    rows = score_rows(_runs(heuristics=heuristics, proven=3, unproven=4))
    path = ratio_boxplot(rows, tmp_path / "r.png", "f")
    fits_a_page(path)
    (fig,) = kept()
    _titled(fig)
    proven_ax, interval_ax = fig.axes
    assert "proven" in proven_ax.get_title() and "unproven" in interval_ax.get_title()
    # each unproven run: one segment [lo, hi] and one hollow marker at lo, in its heuristic's colour
    segments = [
        ln
        for ln in interval_ax.get_lines()
        if len(ln.get_xdata()) == 2 and ln.get_linestyle() == "-" and to_hex(ln.get_color()) != "#000000"
    ]
    hollow = [ln for ln in interval_ax.get_lines() if ln.get_markerfacecolor() == "white"]
    assert len(segments) == 4 * len(heuristics)
    assert sum(len(ln.get_xdata()) for ln in hollow) == 4 * len(heuristics)
    for ln in segments:  # incumbent 20 and bound 10: the interval is [h / 20, h / 10]
        lo, hi = sorted(ln.get_xdata())
        assert hi == pytest.approx(2 * lo)
    # n per box, per panel
    for ax, n in ((proven_ax, 3), (interval_ax, 4)):
        assert sorted(t.get_text() for t in ax.texts if t.get_text().startswith("n=")) == [f"n={n}"] * 3
    # proven points: filled, one per proven run
    filled = [
        ln for ln in proven_ax.get_lines() if ln.get_linestyle() == "None" and ln.get_marker() != "None"
    ]
    assert sum(len(ln.get_xdata()) for ln in filled) == 3 * len(heuristics)
    assert len({(to_hex(ln.get_color()), ln.get_marker()) for ln in filled}) == len(heuristics)


def test_integer_parameters_get_integer_ticks_only(kept, tmp_path):
    rows = score_rows(_runs(proven=6, unproven=0, params=lambda i: {"w_min": 1 + i % 3, "seed": i}))
    path = metric_vs_param(rows, "w_min", tmp_path / "m.png", family="f")
    fits_a_page(path)
    (fig,) = kept()
    _titled(fig)
    ax = fig.axes[0]
    fig.canvas.draw()
    ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
    assert ticks == ["1", "2", "3"]
    entries = _series_entries(ax.get_legend())
    assert len(entries) == 3 and len({(c, m) for _, c, m in entries}) == 3


def _casanova(m=10):
    rows = []
    for w_min in (1, 2, 3):
        params = {"preset": "paper-realization", "tasks": m, "w_min": w_min, "scenario": 0, "trial": 0}
        for k, name in enumerate(COUPLED):
            rows.append(
                _row("coupled", f"w{w_min}", name, "heuristic", 100.0 + 7 * k + w_min, "ok", params=params)
            )
    return rows


def test_casanova_figure2_integer_w_min_ticks_17_series_told_apart(kept, tmp_path):
    path = figure2(_casanova(), tmp_path / "f2.png")
    fits_a_page(path)
    (fig,) = kept()
    _titled(fig)
    assert "Figure 2" in fig.get_suptitle()
    ax = fig.axes[0]
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels() if t.get_text()] == ["1", "2", "3"]
    entries = _series_entries(fig.legends[0])
    assert (
        len(entries) == len(ax.get_lines()) - 1 == 16
    )  # RANDOM is left out, as in the paper; minus the 0 line
    assert len({(c, m) for _, c, m in entries}) == 16


def _store(tmp_path):
    store = Store(tmp_path / "two.db")
    rows = _runs("alpha", ("a", "b"), 2, 1) + _runs("beta", ("x",), 1, 2)
    tasks = []
    for r in rows:
        key = f"{r['instance_key']}/{r['method']}"
        t = {**{k: r[k] for k in ("family", "instance_key", "params", "method", "kind", "problem", "sense")}}
        t |= {"key": key, "sweep": "t", "method_params": {}}
        tasks.append((t, r))
    store.plan([t for t, _ in tasks])
    for t, r in tasks:
        store.write(
            {
                **t,
                "instance": r["instance_key"],
                "status": r["status"],
                "objective": r["objective"],
                "bound": r["bound"],
                "runtime_s": 0.1,
                "error": None,
                "versions": {"volsched": "test"},
                "host": "test",
                "timestamp": "2026-01-01T00:00:00",
            }
        )
    store.close()
    return tmp_path / "two.db"


def test_report_plot_writes_one_figure_per_family(tmp_path):
    db = _store(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["report", str(db), "--plot", str(tmp_path / "figs"), "--json"]) == 0
    written = json.loads(printed.getvalue())["written"]
    assert sorted(p.split("/")[-1] for p in written) == ["ratios-alpha.png", "ratios-beta.png"]
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == ["ratios-alpha.png", "ratios-beta.png"]
    for p in written:
        fits_a_page(p)
