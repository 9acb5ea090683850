"""Figures of a results store (matplotlib, headless): one figure per family, never several on one axis.

Per family with heuristic runs, ``ratios-<family>.png``: the proven ratios to the optimum and,
apart, the ratio intervals of the runs whose optimum is not proven
(:func:`volsched.plots.ratio_panels`). With a generator parameter, per family having it,
``ratio_vs_<param>-<family>.png`` and ``pct_diff_vs_<param>-<family>.png``. The style is
:mod:`volsched.plots`'.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from volsched.experiments.report import heuristic_names, resolve_reference, scenario_differences
from volsched.families import FAMILIES
from volsched.instances.errors import InputError
from volsched.plots import (
    grouped_legend,
    integer_ticks,
    is_integer_valued,
    new_figure,
    percent_axis,
    ratio_axis,
    ratio_panels,
    save,
    series_order,
    series_styles,
)
from volsched.ratios import score_rows

if TYPE_CHECKING:
    from volsched.experiments.store import Store

METRICS = ("ratio", "pct_diff")


def _proven(r: dict) -> bool:
    return (
        r["kind"] == "heuristic"
        and r["status"] == "ok"
        and r["optimum_proven"] == 1
        and r["ratio"] is not None
    )


def _unproven(r: dict) -> bool:
    return r["kind"] == "heuristic" and r["optimum_proven"] == 0 and r["ratio_lo"] is not None


def safe_name(text: str) -> str:
    """``text`` as a file-name part: letters, digits, ``-`` and ``_``, anything else ``_``."""
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in text)


def ordered(family: str, names: list[str]) -> list[str]:
    """``names`` in the family's registry order (the papers' order), unregistered ones after by name."""
    known = list(FAMILIES[family].heuristics) if family in FAMILIES else []
    rank = {n: k for k, n in enumerate(known)}
    return series_order(sorted(names, key=lambda n: (rank.get(n, len(rank)), n)))


def families_with_runs(rows: list[dict]) -> list[str]:
    """The families of the rows that have heuristic runs, in name order."""
    return sorted({r["family"] for r in rows if r["kind"] == "heuristic"})


def ratio_boxplot(rows: list[dict], path: Path, family: str | None = None) -> Path:
    """One family's ratios to the optimum: proven ratios as boxes, unproven runs as their intervals.

    ``rows`` are :func:`~volsched.ratios.score_rows` rows; ``family`` defaults to the only family
    with heuristic runs. A run whose optimum is proven counts in its heuristic's box; a run whose
    exact row did not prove optimality is drawn in a separate panel as its ratio interval
    ``[incumbent ratio, bound ratio]`` (:func:`volsched.plots.ratio_panels`). Runs that are in
    neither (failed runs, runs without an exact row) are counted in their heuristic's label.

    Raises
    ------
    ValueError
        ``family`` is not given and the rows have several families with runs.
    """
    if family is None:
        present = families_with_runs(rows)
        if len(present) > 1:
            raise ValueError(f"several families in the rows ({present}): give one")
        family = present[0] if present else "none"
    runs = [r for r in rows if r["family"] == family and r["kind"] == "heuristic"]
    problems = defaultdict(set)
    for r in runs:
        problems[r["method"]].add(r["problem"])
    several = len({p for ps in problems.values() for p in ps}) > 1
    series, notes = {}, {}
    for name in ordered(family, list(problems)):
        mine = [r for r in runs if r["method"] == name]
        proven = [r["ratio"] for r in mine if _proven(r)]
        intervals = [(r["ratio_lo"], r["ratio_hi"]) for r in mine if _unproven(r)]
        failed = sum(r["status"] != "ok" for r in mine)
        unscored = len(mine) - len(proven) - len(intervals) - failed
        note = [f"vs {'/'.join(sorted(problems[name]))}"] if several else []
        note += [f"{failed} failed"] if failed else []
        note += [f"{unscored} without optimum"] if unscored else []
        series[name] = (proven, intervals)
        notes[name] = ", ".join(note)
    return ratio_panels(series, f"{family}: heuristic / optimum per run", path, notes=notes)


def generator_params(rows: list[dict]) -> list[str]:
    """The generator parameter names present in the store's rows."""
    return sorted({k for r in rows for k in r["params"]})


def check_plot_args(rows: list[dict], param: str | None = None, reference: str | None = None) -> None:
    """Validate :func:`write_plots` arguments against ``rows`` (so a caller can check before writing).

    Raises
    ------
    InputError
        ``param`` is not a generator parameter in the rows, or ``reference``
        is not a heuristic in the rows.
    """
    if param is not None:
        _check_param(rows, param)
    if reference is not None:
        resolve_reference(rows, reference)


def _check_param(rows: list[dict], param: str) -> None:
    names = generator_params(rows)
    if param not in names:
        raise InputError(
            f"--param: {param!r} is not a generator parameter in the store (parameters: {names})"
        )


def _x_positions(values: list) -> tuple[dict, list[str] | None]:
    """Numeric parameters are plotted at their value, anything else at evenly spaced ticks."""
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return {v: v for v in values}, None
    order = sorted(values, key=str)
    return {v: i for i, v in enumerate(order)}, [str(v) for v in order]


def _means(rows: list[dict], family: str, name: str, param: str, keep, value) -> dict:
    acc: dict = defaultdict(list)
    for r in rows:
        if r["family"] == family and r["method"] == name and keep(r) and param in r["params"]:
            acc[r["params"][param]].append(value(r))
    return {x: (float(np.mean(v)), len(v)) for x, v in acc.items()}


def param_curves(
    rows: list[dict], param: str, metric: str = "ratio", reference: str | None = None
) -> dict[str, dict[str, dict[str, dict]]]:
    """The data of :func:`metric_vs_param`: ``{family: {panel: {heuristic: {value: (mean, n)}}}}``.

    Panels of ``"ratio"``: ``"proven"`` (the mean proven ratio) and ``"unproven"`` (the mean lower
    end of the unproven runs' ratio intervals); of ``"pct_diff"``: ``"pct_diff"``.
    """
    refs = resolve_reference(rows, reference) if metric == "pct_diff" else {}
    out: dict = {}
    for family, heuristics in heuristic_names(rows).items():
        panels: dict = defaultdict(dict)
        for h in ordered(family, heuristics):
            if metric == "ratio":
                proven = _means(rows, family, h, param, _proven, lambda r: r["ratio"])
                lower = _means(rows, family, h, param, _unproven, lambda r: r["ratio_lo"])
                for panel, values in (("proven", proven), ("unproven", lower)):
                    if values:
                        panels[panel][h] = values
            elif refs.get(family) is not None:
                acc: dict = defaultdict(list)
                diffs, _ = scenario_differences(rows, family, h, refs[family])
                for scenario, d in diffs:
                    if param in scenario:
                        acc[scenario[param]].append(100 * d)
                if acc:
                    panels["pct_diff"][h] = {x: (float(np.mean(v)), len(v)) for x, v in acc.items()}
        if panels:
            out[family] = dict(panels)
    return out


def _x_positions(values: list) -> tuple[dict, list[str] | None]:
    """Numeric parameters are plotted at their value, anything else at evenly spaced ticks."""
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return {v: v for v in values}, None
    order = sorted(values, key=str)
    return {v: i for i, v in enumerate(order)}, [str(v) for v in order]


_PANEL_LABELS = {
    "proven": ("proven optima", "mean heuristic / optimum (ratio, no unit)"),
    "unproven": ("optimum not proven: mean lower end of the ratio intervals", ""),
}


def metric_vs_param(
    rows: list[dict],
    param: str,
    path: Path,
    metric: str = "ratio",
    reference: str | None = None,
    family: str | None = None,
) -> Path | None:
    """For one family, each heuristic's mean ``metric`` against the generator parameter ``param``.

    The layout of Casanova et al. 2013 (HCW), Figure 2 (%diff vs. ``w_min``): one curve per
    heuristic, each its own (colour, marker) (:func:`volsched.plots.series_styles`), integer ticks
    on an integer parameter.

    Parameters
    ----------
    rows : list of dict
        :func:`~volsched.ratios.score_rows` rows.
    param : str
        A generator parameter present in the rows.
    path : Path
        The PNG to write.
    metric : {"ratio", "pct_diff"}
        ``"ratio"``: the mean proven ratio to the optimum of the runs with that parameter value,
        and, in a panel of its own (filled markers are proven, hollow ones are not), the mean lower
        end of the ratio intervals of the runs whose optimum is not proven. ``"pct_diff"``: 100 x
        the mean over the scenarios with that value of the relative difference against
        ``reference`` (Section VII-A; see :func:`~volsched.experiments.report.relative_difference`).
    reference : str, optional
        Reference heuristic for ``pct_diff`` (default: the family's paper's).
    family : str, optional
        The family drawn (default: the first, in name order, with values of ``param``).

    Returns
    -------
    Path or None
        ``path``, or ``None`` when the family has no value to draw.

    Raises
    ------
    InputError
        ``param`` is not a generator parameter in the rows, ``metric`` is
        unknown, or ``reference`` is not a heuristic in the rows.
    """
    _check_param(rows, param)
    if metric not in METRICS:
        raise InputError(f"metric: choose from {list(METRICS)}, got {metric!r}")
    curves = param_curves(rows, param, metric, reference)
    if family is None:
        family = next(iter(sorted(curves)), None)
    panels = curves.get(family)
    if not panels:
        return None
    names = list(dict.fromkeys(h for per_h in panels.values() for h in per_h))
    styles = series_styles(names)
    order = [p for p in ("proven", "unproven", "pct_diff") if p in panels]
    fig, axes = new_figure(1, len(order), height=5.2, sharex=True, sharey=True)
    values = sorted({x for per_h in panels.values() for c in per_h.values() for x in c}, key=str)
    pos, ticks = _x_positions(values)
    for ax, panel in zip(axes[0], order, strict=True):
        for h, c in panels[panel].items():
            xs = sorted(c, key=lambda x: pos[x])
            hollow = {"markerfacecolor": "white"} if panel == "unproven" else {}
            ax.plot([pos[x] for x in xs], [c[x][0] for x in xs], **styles[h].line(), **hollow, ms=5)
        if ticks is not None:
            ax.set_xticks(range(len(ticks)), ticks)
        elif is_integer_valued(values):
            integer_ticks(ax, values)
        ax.axhline(1.0 if metric == "ratio" else 0.0, color="black", linewidth=0.8)
        ax.set_xlabel(f"{param} (generator parameter)")
        counts = sorted({n for c in panels[panel].values() for _, n in c.values()})
        span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        if panel == "pct_diff":
            ref = resolve_reference(rows, reference)[family]
            ax.set_ylabel(f"mean %diff against {ref} (%)")
            ax.set_title(f"mean over the scenarios (n = {span} per point)", fontsize=9)
        else:
            title, label = _PANEL_LABELS[panel]
            ax.set_ylabel(label)
            ax.set_title(f"{title}\n(n = {span} runs per point)", fontsize=9)
        ax.grid(alpha=0.3)
    means = [m for per_h in panels.values() for c in per_h.values() for m, _ in c.values()]
    if metric == "ratio":
        ratio_axis(axes[0, 0], max(means), axis="y")
    else:
        percent_axis(axes[0, 0], means)
    if len(names) <= 6:
        grouped_legend(axes[0, -1], styles, loc="best")
    else:
        grouped_legend(fig, styles, loc="outside lower center", fontsize=7)
    what = "heuristic / optimum" if metric == "ratio" else "%diff"
    return save(fig, path, f"{family}: {what} against {param}")


def write_plots(
    store: Store, directory: Path, param: str | None = None, reference: str | None = None
) -> list[Path]:
    """Per family with heuristic runs, ``ratios-<family>.png``; with ``param``, per family having it,
    ``ratio_vs_<param>-<family>.png`` and ``pct_diff_vs_<param>-<family>.png``.

    Both arguments are checked before anything is written.

    Raises
    ------
    InputError
        ``param`` is not a generator parameter in the store, or ``reference``
        is not a heuristic in the store.
    """
    rows = score_rows(store.rows())
    check_plot_args(rows, param, reference)
    directory = Path(directory)
    paths = []
    for family in families_with_runs(rows):
        paths.append(ratio_boxplot(rows, directory / f"ratios-{safe_name(family)}.png", family))
        if param is None:
            continue
        for metric in METRICS:
            name = f"{metric}_vs_{safe_name(param)}-{safe_name(family)}.png"
            made = metric_vs_param(rows, param, directory / name, metric, reference, family)
            if made is not None:
                paths.append(made)
    return paths
