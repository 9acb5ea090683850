"""Tables I and II and Figure 2 of Casanova et al. (HCW 2013, Section VII), from a results store.

Read from the rows of a ``casanova2013`` sweep (paper realizations, the 17
heuristics, the ``iterations`` and ``full`` exact rows). Per ``m`` and
heuristic, with the paper's definitions (``../shared/readings/coupled-online.md``
4.2) and IE as the reference:

* ``fails``: runs that reached the cap (10^6 slots) out of the trials;
* ``pct_diff``: per scenario (``m, n_com, w_min, scenario``), the mean makespan
  over its trials against IE's, ``(H - IE) / min(H, IE)``, averaged over the
  scenarios; ``stdv`` the standard deviation of those per-scenario values as a
  fraction; ``pct_wins`` and ``pct_wins30``: the trials where ``H <= IE`` and
  ``H <= 1.3 IE`` (ties count as wins). Only trials where both H and IE
  finished are compared (the paper: "assuming that heuristic H succeeds");
  :func:`volsched.ratios.casanova_metrics` computes these four.

and the columns no published work has: the makespan over the off-line lower
bound of the same realization (the best proven bound of ``iterations`` and
``full``), over the best known off-line schedule (the ``full`` greedy's and
every heuristic's run on that realization: a run is a verified schedule,
:class:`volsched.ratios.Reference`), and over the exact optimum where ``full``
proved one. The optimum is proven on a subset of the realizations only (mostly
large ``w_min``), so the tables give the first two ratios twice: over every
realization with a lower bound, and over the proven subset beside the ratio to
the optimum, each with its number of runs ``n``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from volsched.markdown import markdown_table
from volsched.ratios import best_bound, casanova_metrics, ratio, references

REFERENCE = "IE"
#: Row statuses whose objective is a verified schedule's makespan ("timeout": an exact method stopped
#: by its limit keeps its verified incumbent).
FINISHED = ("ok", "optimal", "feasible", "timeout")
#: Exact rows that give no bound.
FAILED = ("error",)
PRESET = "paper-realization"


def _paper(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r["family"] == "coupled" and r["params"].get("preset") == PRESET]


def offline_reference(rows: list[dict]) -> dict[str, dict]:
    """Per realization: ``lower`` (best proven bound), ``best`` (best known makespan), ``optimum``.

    ``best`` and ``optimum`` are the ``full`` problem's :class:`volsched.ratios.Reference`
    (``best_known``: the exact incumbents and every run); ``lower`` is the best proven bound of
    ``iterations`` and ``full`` (the ``iterations`` optimum, without communication, bounds ``full``).
    """
    full = references(r for r in rows if r["problem"] == "full")
    lower: dict[str, list] = defaultdict(list)
    for r in rows:
        if r["kind"] == "exact" and r["problem"] in ("iterations", "full") and r["status"] not in FAILED:
            lower[r["instance_key"]].append(r["bound"])
    out = {}
    for key in dict.fromkeys(r["instance_key"] for r in rows):
        ref = full.get((key, "full"))
        out[key] = {
            "lower": best_bound(lower[key], "min"),
            "best": ref.best_known if ref else None,
            "optimum": ref.optimum if ref else None,
        }
    return out


def gaps(rows: list[dict]) -> list[dict]:
    """The off-line reference's relative gap ``(UB - LB) / UB`` per ``(m, w_min)``.

    ``UB`` is the best known schedule of the realization (the ``full`` greedy's or any run's),
    ``LB`` its best proven bound (:func:`offline_reference`). Per cell and per ``m`` (``w_min``
    ``"all"``): the realizations, those without an upper bound, the median and largest gap, the
    median gap of the ``full`` greedy alone (what the runs add), and the realizations proven
    optimal (gap 0).
    """
    paper = _paper(rows)
    refs = offline_reference(paper)
    cell_of = {r["instance_key"]: (r["params"]["tasks"], r["params"]["w_min"]) for r in paper}
    greedy = {
        r["instance_key"]: r["objective"]
        for r in paper
        if r["kind"] == "exact"
        and r["problem"] == "full"
        and r["status"] in FINISHED
        and r["objective"] is not None
    }
    groups: dict[tuple, list[str]] = defaultdict(list)
    for key, (m, w_min) in cell_of.items():
        groups[(m, w_min)].append(key)
        groups[(m, "all")].append(key)
    out = []

    def order(cell):
        m, w_min = cell
        return m, w_min == "all", 0 if w_min == "all" else w_min

    for (m, w_min), keys in sorted(groups.items(), key=lambda kv: order(kv[0])):
        known = [
            (refs[k]["best"] - refs[k]["lower"]) / refs[k]["best"]
            for k in keys
            if refs[k]["best"] and refs[k]["lower"] is not None
        ]
        alone = [
            (greedy[k] - refs[k]["lower"]) / greedy[k]
            for k in keys
            if k in greedy and refs[k]["lower"] is not None
        ]
        out.append(
            {
                "m": m,
                "w_min": w_min,
                "realizations": len(keys),
                "without_upper_bound": sum(not refs[k]["best"] for k in keys),
                "median_gap": float(np.median(known)) if known else None,
                "max_gap": max(known) if known else None,
                "median_gap_greedy": float(np.median(alone)) if alone else None,
                "proven_optimal": sum(g <= 0 for g in known),
            }
        )
    return out


def _ratio_mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


#: The off-line denominators of a run's makespan, in :func:`offline_reference`'s keys.
DENOMINATORS = ("lower", "best", "optimum")


def tables(rows: list[dict], reference: str = REFERENCE) -> dict[int, list[dict]]:
    """``{m: [one row per heuristic, sorted by %diff]}`` over the paper realizations of ``rows``.

    Each row: ``trials``, ``fails`` and the four metrics of :func:`volsched.ratios.casanova_metrics`;
    the mean :func:`volsched.ratios.ratio` of the finished runs' makespans to the lower bound
    (``ratio_lower_mean``) and to the best known makespan (``ratio_best_mean``) over the ``n`` runs
    whose realization has both; and over the ``proven`` runs among them whose realization has a proven
    optimum, the same two (``proven_ratio_lower_mean``, ``proven_ratio_best_mean``) beside the ratio to
    the optimum (``ratio_optimum_mean``), so that the three compare like with like.
    """
    paper = _paper(rows)
    refs = offline_reference(paper)
    out = {}
    for m in sorted({r["params"]["tasks"] for r in paper}):
        sub = [r for r in paper if r["params"]["tasks"] == m]
        names = sorted({r["method"] for r in sub if r["kind"] == "heuristic"})
        table = []
        for name in names:
            runs = [
                r for r in sub if r["method"] == name and r["kind"] == "heuristic" and r["status"] == "ok"
            ]
            done = [r for r in runs if r["objective"] is not None]
            every, proven = [], []
            for r in done:
                ref = refs[r["instance_key"]]
                q = {key: ratio(r["objective"], ref[key], "min") for key in DENOMINATORS}
                if q["lower"] is not None and q["best"] is not None:
                    every.append(q)
                    if q["optimum"] is not None:
                        proven.append(q)
            metrics = casanova_metrics(sub, "coupled", name, reference if reference in names else None)
            table.append(
                {
                    "heuristic": name,
                    "trials": len(runs),
                    "fails": len(runs) - len(done),
                    "pct_diff": metrics["pct_diff"],
                    "stdv": metrics["stdv"],
                    "pct_wins": metrics["pct_wins"],
                    "pct_wins30": metrics["pct_wins30"],
                    "n": len(every),
                    "ratio_lower_mean": _ratio_mean([q["lower"] for q in every]),
                    "ratio_best_mean": _ratio_mean([q["best"] for q in every]),
                    "proven": len(proven),
                    "proven_ratio_lower_mean": _ratio_mean([q["lower"] for q in proven]),
                    "proven_ratio_best_mean": _ratio_mean([q["best"] for q in proven]),
                    "ratio_optimum_mean": _ratio_mean([q["optimum"] for q in proven]),
                }
            )
        table.sort(
            key=lambda t: (
                t["pct_diff"] is None,
                t["pct_diff"] if t["pct_diff"] is not None else 0,
                t["heuristic"],
            )
        )
        out[m] = table
    return out


def _fmt(x, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def to_markdown(by_m: dict[int, list[dict]], reference: str = REFERENCE) -> str:
    """One table per ``m``, in the format of Tables I and II plus the off-line ratio columns.

    The off-line ratios come in two groups, each with its number of runs: every realization with a
    lower bound (``n``), and the subset with a proven optimum (``n proven``), where the three ratios
    are means over the same runs.
    """
    out = []
    for m, table in by_m.items():
        number = {5: "I", 10: "II"}.get(m, "-")
        out += [
            f"## Casanova et al. 2013, m = {m} (Table {number} format; reference {reference})",
            "",
            "Off-line ratios, the mean of makespan / reference on the same realization, over two "
            "subsets of the finished runs: the `n` on realizations with a lower bound, and the "
            "`n proven` of them whose realization has a proven optimum (the three `(proven)` columns "
            "average the same runs).",
            "",
        ]
        out += markdown_table(
            [
                "heuristic",
                "#fails",
                "%diff",
                "stdv",
                "%wins",
                "%wins30",
                "n",
                "/ lower bound",
                "/ best known",
                "n proven",
                "/ lower bound (proven)",
                "/ best known (proven)",
                "/ optimum (proven)",
            ],
            [
                [
                    t["heuristic"],
                    f"{t['fails']} / {t['trials']}",
                    _fmt(t["pct_diff"], ".2f"),
                    _fmt(t["stdv"], ".2f"),
                    _fmt(t["pct_wins"], ".2f"),
                    _fmt(t["pct_wins30"], ".2f"),
                    str(t["n"]),
                    _fmt(t["ratio_lower_mean"], ".3f"),
                    _fmt(t["ratio_best_mean"], ".3f"),
                    str(t["proven"]),
                    _fmt(t["proven_ratio_lower_mean"], ".3f"),
                    _fmt(t["proven_ratio_best_mean"], ".3f"),
                    _fmt(t["ratio_optimum_mean"], ".3f"),
                ]
                for t in table
            ],
        )
        out.append("")
    return "\n".join(out)


def gaps_markdown(cells: list[dict]) -> str:
    """:func:`gaps` as a table."""
    head = [
        "m",
        "w_min",
        "realizations",
        "without UB",
        "median gap (UB: best known)",
        "max",
        "median gap (UB: full greedy alone)",
        "proven optimal",
    ]
    body = [
        [
            str(c["m"]),
            str(c["w_min"]),
            str(c["realizations"]),
            str(c["without_upper_bound"]),
            _fmt(c["median_gap"], ".3f"),
            _fmt(c["max_gap"], ".3f"),
            _fmt(c["median_gap_greedy"], ".3f"),
            str(c["proven_optimal"]),
        ]
        for c in cells
    ]
    return "\n".join(
        [
            "## Off-line reference: relative gap (UB - LB) / UB per (m, w_min)",
            "",
            *markdown_table(head, body),
            "",
        ]
    )


def by_w_min(rows: list[dict], m: int = 10, reference: str = REFERENCE) -> dict[str, dict]:
    """Figure 2's data: ``{heuristic: {w_min: %diff against reference}}`` for ``m``, RANDOM left out.

    %diff per ``w_min`` is Table I/II's %diff on that ``w_min``'s scenarios only; ``None`` where no
    scenario pairs two finished runs. Empty when ``reference`` has no rows at ``m``.
    """
    paper = [r for r in _paper(rows) if r["params"]["tasks"] == m]
    w_mins = sorted({r["params"]["w_min"] for r in paper})
    names = sorted({r["method"] for r in paper if r["kind"] == "heuristic"} - {"RANDOM"})
    if reference not in names:
        return {}
    cells = {w: [r for r in paper if r["params"]["w_min"] == w] for w in w_mins}
    return {
        name: {w: casanova_metrics(cell, "coupled", name, reference)["pct_diff"] for w, cell in cells.items()}
        for name in names
    }


def by_w_min_markdown(series: dict[str, dict], m: int) -> str:
    """:func:`by_w_min` as a table, one row per heuristic."""
    w_mins = sorted({w for values in series.values() for w in values})
    body = [[name, *(_fmt(values.get(w), ".1f") for w in w_mins)] for name, values in series.items()]
    return "\n".join(
        [
            f"## %diff per w_min, m = {m} (Figure 2's data)",
            "",
            *markdown_table(["heuristic", *(f"w_min {w}" for w in w_mins)], body),
            "",
        ]
    )


def figure2(rows: list[dict], path: Path, m: int = 10, reference: str = REFERENCE) -> Path | None:
    """%diff against IE versus ``w_min`` for ``m`` (the paper's Figure 2 is for m = 10), drawn by
    :func:`draw_figure2` from :func:`by_w_min`."""
    series = by_w_min(rows, m, reference)
    if not series:
        return None
    return draw_figure2(series, path, m, reference)


def draw_figure2(series: dict[str, dict], path: Path, m: int, reference: str = REFERENCE) -> Path:
    """Figure 2 from its data: ``series`` maps each heuristic to its %diff per ``w_min``.

    The data is what :func:`by_w_min` returns, or the ``figure2`` object of ``volsched report
    --json`` (its ``w_min`` keys are strings), so a stored report is drawn again without its store.
    One curve per heuristic, coloured by its passive heuristic and marked by its criterion, the
    legend in a column per criterion (:func:`volsched.plots.series_styles`); integer ``w_min`` ticks.
    """
    from volsched.plots import (
        grouped_legend,
        integer_ticks,
        new_figure,
        percent_axis,
        save,
        series_order,
        series_styles,
    )

    series = {name: {int(w): y for w, y in values.items()} for name, values in series.items()}
    names = series_order(sorted(series))
    styles = series_styles(names)
    fig, axes = new_figure(height=5.5)
    ax = axes[0, 0]
    w_mins = sorted({w for values in series.values() for w in values})
    for name in names:
        values = dict(sorted(series[name].items()))
        ax.plot(list(values), [np.nan if y is None else y for y in values.values()], **styles[name].line())
    ax.axhline(0, color="black", linewidth=0.8)
    integer_ticks(ax, w_mins)
    ax.set_xlabel("w_min (minimum task work, slots)")
    ax.set_ylabel(f"%diff against {reference} (%)")
    percent_axis(ax, [y for values in series.values() for y in values.values()])
    ax.grid(alpha=0.3)
    ax.set_title(
        "per w_min: the mean over its scenarios of the per-scenario %diff (Section VII-A); RANDOM left out",
        fontsize=9,
    )
    grouped_legend(fig, styles, loc="outside lower center", fontsize=7)
    return save(fig, path, f"Casanova et al. 2013, Figure 2: %diff against {reference}, m = {m}")


#: :func:`distance_plot`'s panels: the denominator and what the quotient is to the true ratio.
DISTANCE_PANELS = {
    "best": "makespan / best known schedule (a lower end of the ratio to the optimum)",
    "lower": "makespan / lower bound (an upper end of the ratio to the optimum)",
    "optimum": "makespan / proven optimum (the ratio, where the optimum is proven)",
}


def distance_stats(rows: list[dict]) -> dict[str, dict[str, dict[str, dict]]]:
    """Per ``m``, per :data:`DISTANCE_PANELS` panel and per heuristic, the box of the quotients of
    its makespans over the off-line reference of the same realization.

    A box is :func:`matplotlib.cbook.boxplot_stats`'s (median, quartiles, whiskers at 1.5 times the
    interquartile range) with ``n``, and the quotients themselves when there are at most 10, so
    that :func:`draw_distance` draws the figure again from a stored report, without the store.
    """
    from matplotlib.cbook import boxplot_stats

    paper = _paper(rows)
    refs = offline_reference(paper)
    out: dict[str, dict[str, dict[str, dict]]] = {}
    for m in sorted({int(r["params"]["tasks"]) for r in paper}):
        runs = [r for r in paper if r["kind"] == "heuristic" and int(r["params"]["tasks"]) == m]
        panels: dict[str, dict[str, dict]] = {key: {} for key in DISTANCE_PANELS}
        for name in _names(runs):
            done = [r for r in runs if r["method"] == name and r["objective"]]
            for key, boxes in panels.items():
                quotients = (ratio(r["objective"], refs[r["instance_key"]][key], "min") for r in done)
                values = [q for q in quotients if q is not None]
                if values:
                    box = boxplot_stats(values)[0]
                    boxes[name] = {k: float(box[k]) for k in ("med", "q1", "q3", "whislo", "whishi")}
                    boxes[name]["n"] = len(values)
                    if len(values) <= 10:
                        boxes[name]["values"] = [float(v) for v in values]
        out[str(m)] = {key: boxes for key, boxes in panels.items() if boxes}
    return {m: panels for m, panels in out.items() if panels}


def _names(runs: list[dict]) -> list[str]:
    """The heuristics of ``runs`` in :func:`volsched.plots.series_order`."""
    from volsched.plots import series_order

    return series_order(sorted({r["method"] for r in runs}))


def draw_distance(panels: dict[str, dict[str, dict]], path: Path, m: int | str) -> Path:
    """The distance to the off-line reference from :func:`distance_stats`'s boxes for one ``m``:
    one panel per reference (ratios kept apart from ratio intervals), one box per heuristic, with
    its ``n``; every quotient is drawn where there are at most 10."""
    from volsched.plots import box_colours, new_figure, ratio_axis, save, series_order, series_styles

    names = series_order(sorted({name for boxes in panels.values() for name in boxes}))
    keys = [k for k in DISTANCE_PANELS if panels.get(k)]
    styles = series_styles(names)
    fig, axes = new_figure(len(keys), 1, height=1.5 + 2.6 * len(keys), sharex=True)
    x = np.arange(len(names))
    largest = max(box["whishi"] for k in keys for box in panels[k].values())
    for ax, key in zip(axes[:, 0], keys, strict=True):
        boxes = panels[key]
        filled = [k for k, name in enumerate(names) if name in boxes]
        stats = [{**boxes[names[k]], "fliers": []} for k in filled]
        drawn = ax.bxp(stats, positions=x[filled], widths=0.6, showfliers=False, manage_ticks=False)
        box_colours(drawn, [styles[names[k]].colour for k in filled])
        for k in filled:
            box = boxes[names[k]]
            if "values" in box:  # few runs: every one is shown
                s = styles[names[k]]
                ax.plot(
                    [x[k]] * len(box["values"]), box["values"], "none", marker=s.marker, color=s.colour, ms=4
                )
            ax.text(k, 1.01, f"n={box['n']}", transform=ax.get_xaxis_transform(), ha="center", fontsize=6)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ratio_axis(ax, largest, axis="y")
        ax.set_ylabel("ratio (no unit)")
        ax.set_title(DISTANCE_PANELS[key], fontsize=9, pad=12)
        ax.grid(axis="y", alpha=0.3)
    bottom = axes[-1, 0]
    bottom.set_xticks(x, names, rotation=45, ha="right", fontsize=8)
    bottom.set_xlabel("heuristic (colour: the passive heuristic H that it builds on)")
    return save(
        fig,
        path,
        f"Casanova et al. 2013, m = {m}: makespan over the off-line reference of the same realization",
    )


def report(rows: list[dict], reference: str | None = None) -> dict | None:
    """The family's part of ``volsched report``: the tables, when the store holds paper realizations."""
    if not any(r["kind"] == "heuristic" for r in _paper(rows)):
        return None
    ref = reference or REFERENCE
    by_m = tables(rows, ref)
    cells = gaps(rows)
    series = {m: by_w_min(rows, m, ref) for m in by_m}
    series = {m: s for m, s in series.items() if s}
    return {
        "json": {
            "casanova2013": {str(m): t for m, t in by_m.items()},
            "offline_gap": cells,
            "figure2": {
                str(m): {name: {str(w): v for w, v in values.items()} for name, values in s.items()}
                for m, s in series.items()
            },
            "distance": distance_stats(rows),
        },
        "markdown": "\n".join(
            [
                to_markdown(by_m, ref),
                gaps_markdown(cells),
                *(by_w_min_markdown(s, m) for m, s in series.items()),
            ]
        ),
    }


def plots(rows: list[dict], folder: Path, reference: str | None = None) -> list[Path]:
    """Figure 2 (m = 10; m = 5 too) and the distance to the off-line reference, per ``m``."""
    if not any(r["kind"] == "heuristic" for r in _paper(rows)):
        return []
    ref = reference or REFERENCE
    made = [figure2(rows, Path(folder) / f"casanova2013-figure2-m{m}.png", m, ref) for m in (10, 5)]
    for m, panels in distance_stats(rows).items():
        made.append(draw_distance(panels, Path(folder) / f"casanova2013-distance-to-offline-m{m}.png", m))
    return [p for p in made if p is not None]


__all__ = [
    "by_w_min",
    "by_w_min_markdown",
    "distance_stats",
    "draw_distance",
    "draw_figure2",
    "figure2",
    "gaps",
    "gaps_markdown",
    "offline_reference",
    "plots",
    "report",
    "tables",
    "to_markdown",
]
