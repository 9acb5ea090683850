"""Figures of a results store (matplotlib, headless): ratio box plots and metric-vs-parameter curves."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import ScalarFormatter

from volsched.experiments.report import heuristic_names, resolve_reference, scenario_differences
from volsched.instances.errors import InputError
from volsched.ratios import score_rows

if TYPE_CHECKING:
    from volsched.experiments.store import Store

METRICS = ("ratio", "pct_diff")
LOG_ABOVE = 3.0


def _proven(r: dict) -> bool:
    return (
        r["kind"] == "heuristic"
        and r["status"] == "ok"
        and r["optimum_proven"] == 1
        and r["ratio"] is not None
    )


def _save(fig, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def ratio_boxplot(rows: list[dict], path: Path) -> Path:
    """Box plot of the proven ratios to the optimum, one box per (family, heuristic).

    ``rows`` are :func:`~volsched.ratios.score_rows` rows. Only ratios whose exact row proved
    optimality are drawn; each label says how many unproven rows were left out.
    The y axis is logarithmic when the largest ratio exceeds 3 (otherwise the
    boxes near 1 would be flattened), linear otherwise; a line marks ratio 1.
    """
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    unproven: dict[tuple[str, str], int] = defaultdict(int)
    for r in rows:
        if _proven(r):
            groups[(r["family"], r["method"])].append(r["ratio"])
        elif r["kind"] == "heuristic" and r["status"] == "ok" and r["optimum_proven"] == 0:
            unproven[(r["family"], r["method"])] += 1
    keys = sorted(groups)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.7 * len(keys) + 2), 4.5))
    if keys:
        labels = [
            f"{f}/{m}\nn={len(groups[(f, m)])}"
            + (f", +{unproven[(f, m)]} unproven" if unproven[(f, m)] else "")
            for f, m in keys
        ]
        ax.boxplot([groups[k] for k in keys], tick_labels=labels)
        ax.tick_params(axis="x", labelrotation=30, labelsize=7)
        if max(max(v) for v in groups.values()) > LOG_ABOVE:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(ScalarFormatter())
            ax.yaxis.set_minor_formatter(ScalarFormatter())
    else:
        ax.text(0.5, 0.5, "no proven ratios yet", ha="center", va="center", transform=ax.transAxes)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel("heuristic / optimum (proven optima only)")
    ax.set_title("Ratio to the optimum")
    return _save(fig, path)


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


def metric_vs_param(
    rows: list[dict], param: str, path: Path, metric: str = "ratio", reference: str | None = None
) -> Path:
    """For each heuristic, the mean ``metric`` against the generator parameter ``param``.

    The layout of Casanova et al. 2013 (HCW), Figure 2 (%diff vs. ``w_min``):
    one subplot per family having ``param``, one curve per heuristic.

    Parameters
    ----------
    rows : list of dict
        :func:`~volsched.ratios.score_rows` rows.
    param : str
        A generator parameter present in the rows.
    path : Path
        The PNG to write.
    metric : {"ratio", "pct_diff"}
        ``"ratio"``: mean proven ratio to the optimum of the instances with that
        parameter value. ``"pct_diff"``: 100 x the mean over the scenarios with
        that value of the relative difference against ``reference`` (Section
        VII-A; see :func:`~volsched.experiments.report.relative_difference`).
    reference : str, optional
        Reference heuristic for ``pct_diff`` (default: per family, the first in
        name order).

    Raises
    ------
    InputError
        ``param`` is not a generator parameter in the rows, ``metric`` is
        unknown, or ``reference`` is not a heuristic in the rows.
    """
    _check_param(rows, param)
    if metric not in METRICS:
        raise InputError(f"metric: choose from {list(METRICS)}, got {metric!r}")
    refs = resolve_reference(rows, reference) if metric == "pct_diff" else {}
    curves: dict[str, dict[str, dict]] = {}
    for family, heuristics in heuristic_names(rows).items():
        per_h: dict[str, dict] = {}
        for h in heuristics:
            acc: dict = defaultdict(list)
            if metric == "ratio":
                for r in rows:
                    if r["family"] == family and r["method"] == h and _proven(r) and param in r["params"]:
                        acc[r["params"][param]].append(r["ratio"])
            elif refs.get(family) is not None:
                diffs, _ = scenario_differences(rows, family, h, refs[family])
                for scenario, d in diffs:
                    if param in scenario:
                        acc[scenario[param]].append(100 * d)
            if acc:
                per_h[h] = {x: float(np.mean(v)) for x, v in acc.items()}
        if per_h:
            curves[family] = per_h
    n = max(1, len(curves))
    fig, axes = plt.subplots(1, n, figsize=(5.5 * n, 4.2), squeeze=False)
    if not curves:
        axes[0, 0].text(
            0.5,
            0.5,
            f"no {metric} values to plot against {param}",
            ha="center",
            va="center",
            transform=axes[0, 0].transAxes,
        )
    for ax, (family, per_h) in zip(axes[0], sorted(curves.items()), strict=False):
        pos, ticks = _x_positions(sorted({x for c in per_h.values() for x in c}, key=str))
        for h, c in sorted(per_h.items()):
            xs = sorted(c, key=lambda x: pos[x])
            ax.plot([pos[x] for x in xs], [c[x] for x in xs], marker="o", label=h)
        if ticks is not None:
            ax.set_xticks(range(len(ticks)), ticks)
        ax.axhline(1.0 if metric == "ratio" else 0.0, color="black", linewidth=0.8)
        ax.set_xlabel(param)
        ax.set_ylabel(
            "mean ratio to the optimum (proven)" if metric == "ratio" else f"%diff vs {refs[family]}"
        )
        ax.set_title(f"{family}: {'ratio' if metric == 'ratio' else '%diff'} vs {param}")
        ax.legend(fontsize=7)
    return _save(fig, path)


def write_plots(
    store: Store, directory: Path, param: str | None = None, reference: str | None = None
) -> list[Path]:
    """Write ``ratios.png`` and, with ``param``, ``ratio_vs_<param>.png`` and ``pct_diff_vs_<param>.png``.

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
    paths = [ratio_boxplot(rows, directory / "ratios.png")]
    if param is not None:
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in param)
        paths.append(metric_vs_param(rows, param, directory / f"ratio_vs_{safe}.png"))
        paths.append(
            metric_vs_param(
                rows, param, directory / f"pct_diff_vs_{safe}.png", metric="pct_diff", reference=reference
            )
        )
    return paths
