"""Figure 4 of Canon et al. (2011, Section 6) from a results store: makespan ratio and stability against beta.

Read from the heuristic rows of ``paper`` instances (the ``canon2011`` presets). Per heuristic and
``beta``, the quartiles of

* the **makespan ratio**: the reference makespan over one lower bound that does not depend on
  ``beta`` (slack.md 7.6), :func:`volsched.solvers.slack.bound.lower_bound` of the
  problem the heuristic is scored against: for GAPS the ``slack`` bound (the last-period rule
  only, valid at every ``beta``), for the LPT and list baselines the ``plain`` one. The instance
  is regenerated from the row's parameters (its machines and jobs do not depend on ``beta``);
* the **stability**: the disturbed makespan over the schedule's own reference makespan (the
  simulator's ``stability``, the median of its draws under ``sampled``);
* separately, never in the same table or plot, the **ratio to the exact optimum** of the ``slack``
  problem at the row's ``beta`` where the store proved one (the paper only had the bound), and
  else its **certified interval** ``[lo, hi]``: the makespan over the best known schedule and over
  the exact search's proven bound at that ``beta`` (:func:`volsched.ratios.score_rows`). The
  interval holds the true ratio; it is kept apart from the proven ratios, never mixed with them.

The paper's claims to compare with (Section 6): stability falling and the makespan ratio rising
(about 20 %) as beta grows, stability close to 1 for beta >= 0.7, and disturbed makespans up to
an order of magnitude above the reference at low beta.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
from matplotlib.lines import Line2D

from volsched.ratios import ratio, score_rows

PRESET = "paper"
STATS = ("n", "q1", "median", "q3", "max")
#: Per heuristic and beta: the paper's ratio, the stability, the proven ratio, the interval's ends.
MEASURES = ("makespan_ratio", "stability", "optimum_ratio", "interval_lo", "interval_hi")


def _rows(rows: list[dict]) -> list[dict]:
    """The finished heuristic runs on ``paper`` instances, with their ratio to the exact optimum.

    ``ratio`` is :func:`volsched.ratios.score_rows`': ``None`` unless the store proved the optimum.
    """
    return [
        r
        for r in score_rows(r for r in rows if r["family"] == "slack")
        if r["kind"] == "heuristic"
        and r["status"] == "ok"
        and r["params"].get("preset") == PRESET
        and r["objective"] is not None
    ]


def _stats(values: list[float]) -> dict:
    if not values:
        return {k: None for k in STATS} | {"n": 0}
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    return {
        "n": len(values),
        "q1": float(q1),
        "median": float(med),
        "q3": float(q3),
        "max": float(max(values)),
    }


def bounds(rows: list[dict]) -> dict[tuple, dict[str, int | None]]:
    """``{instance parameters without beta: {"plain": bound, "slack": bound}}`` for the rows' instances."""
    from volsched.families import FAMILIES
    from volsched.solvers.slack.bound import lower_bound

    out: dict[tuple, dict] = {}
    for r in rows:
        key = _key(r)
        if key not in out:
            instance = FAMILIES["slack"].generate_from({**r["params"], "beta": 1.0})
            out[key] = {p: lower_bound(instance, p) for p in ("plain", "slack")}
    return out


def _key(r: dict) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in r["params"].items() if k != "beta"))


def tables(rows: list[dict]) -> dict:
    """``{heuristic: {beta: {"bound_problem", measure: stats}}}`` for each of :data:`MEASURES`.

    ``interval_lo`` and ``interval_hi`` are over the runs without a proven optimum (whose interval
    is closed), ``optimum_ratio`` over the others.
    """
    paper = _rows(rows)
    lower = bounds(paper)
    acc: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in paper:
        beta = float(r["params"].get("beta", 1.0))
        cell = acc[r["method"]][beta]
        q = ratio(r["objective"], lower[_key(r)][r["problem"]], r["sense"])
        if q is not None:
            cell["makespan_ratio"].append(q)
        stability = (r.get("metrics") or {}).get("stability")
        if stability is not None:
            cell["stability"].append(stability)
        if r["ratio"] is not None:
            cell["optimum_ratio"].append(r["ratio"])
        elif r.get("ratio_lo") is not None and r.get("ratio_hi") is not None:
            cell["interval_lo"].append(r["ratio_lo"])
            cell["interval_hi"].append(r["ratio_hi"])
        cell["problem"] = r["problem"]
    return {
        h: {
            b: {
                "bound_problem": cell["problem"],
                **{m: _stats(cell[m]) for m in MEASURES},
            }
            for b, cell in sorted(by_beta.items())
        }
        for h, by_beta in sorted(acc.items())
    }


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.3g}"


def _fmt4(x) -> str:
    """Four decimals: an interval's ends differ in the third (a certified gap of about 1 %)."""
    return "-" if x is None else f"{x:.4f}"


def to_markdown(table: dict) -> str:
    lines = [
        "## Slack: Figure 4 of Canon et al. (2011), makespan ratio and stability against beta",
        "",
        "Makespan ratio: reference makespan / the beta-independent lower bound of "
        "`solvers/slack/bound.py` for the heuristic's problem (GAPS: `slack`, baselines: `plain`). "
        "Stability: disturbed / reference makespan. Quartiles over instances.",
        "",
        "| heuristic | beta | instances | ratio q1 | ratio median | ratio q3 | stability q1 | "
        "stability median | stability q3 | stability max |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for h, by_beta in table.items():
        for b, cell in by_beta.items():
            r, s = cell["makespan_ratio"], cell["stability"]
            lines.append(
                f"| {h} | {b:g} | {r['n']} | {_fmt(r['q1'])} | {_fmt(r['median'])} | "
                f"{_fmt(r['q3'])} | {_fmt(s['q1'])} | {_fmt(s['median'])} | {_fmt(s['q3'])} | "
                f"{_fmt(s['max'])} |"
            )
    proven = [
        (h, b, c["optimum_ratio"])
        for h, bb in table.items()
        for b, c in bb.items()
        if c["optimum_ratio"]["n"]
    ]
    if proven:
        lines += [
            "",
            "Ratio to the proven exact optimum (a separate measure; the paper had only the bound):",
            "",
            "| heuristic | beta | instances | q1 | median | q3 | max |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {h} | {b:g} | {o['n']} | {_fmt(o['q1'])} | {_fmt(o['median'])} | {_fmt(o['q3'])} | "
            f"{_fmt(o['max'])} |"
            for h, b, o in proven
        ]
    certified = [
        (h, b, c)
        for h, bb in table.items()
        for b, c in bb.items()
        if c["interval_lo"]["n"] or c["optimum_ratio"]["n"]
    ]
    if certified:
        lines += [
            "",
            "Against the optimum of the heuristic's problem at its beta: the runs with a proven "
            "optimum (their ratio), and the others' certified interval [lo, hi] (makespan over the "
            "best known schedule, over the proven bound), medians and maxima:",
            "",
            "| heuristic | beta | proven | ratio median | interval runs | lo median | hi median | hi max |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {h} | {b:g} | {c['optimum_ratio']['n']} | {_fmt4(c['optimum_ratio']['median'])} | "
            f"{c['interval_lo']['n']} | {_fmt4(c['interval_lo']['median'])} | "
            f"{_fmt4(c['interval_hi']['median'])} | {_fmt4(c['interval_hi']['max'])} |"
            for h, b, c in certified
        ]
    return "\n".join(lines) + "\n"


def report(rows: list[dict], reference: str | None = None) -> dict | None:
    """The family's part of ``volsched report`` when the store holds runs on ``paper`` instances."""
    if not _rows(rows):
        return None
    table = tables(rows)
    return {
        "json": {"canon2011": {h: {f"{b:g}": c for b, c in bb.items()} for h, bb in table.items()}},
        "markdown": to_markdown(table),
    }


def plots(rows: list[dict], folder: Path, reference: str | None = None) -> list[Path]:
    """Figure 4 (GAPS): box plots of the makespan ratio and of the stability against beta; the ratio
    to the proven optimum in its own figure when there is one."""
    paper = [r for r in _rows(rows) if r["method"] == "gaps"]
    if not paper:
        return []
    from volsched.plots import new_figure, save

    lower = bounds(paper)
    by_beta: dict = defaultdict(lambda: defaultdict(list))
    for r in paper:
        beta = float(r["params"].get("beta", 1.0))
        q = ratio(r["objective"], lower[_key(r)]["slack"], r["sense"])
        if q is not None:
            by_beta[beta]["ratio"].append(q)
        if (r.get("metrics") or {}).get("stability") is not None:
            by_beta[beta]["stability"].append(r["metrics"]["stability"])
        if r["ratio"] is not None:
            by_beta[beta]["optimum"].append(r["ratio"])
        else:
            by_beta[beta]["unproven"].append(1)
            if r.get("ratio_lo") is not None and r.get("ratio_hi") is not None:
                by_beta[beta]["lo"].append(r["ratio_lo"])
                by_beta[beta]["hi"].append(r["ratio_hi"])
    betas = sorted(by_beta)
    folder = Path(folder)
    made = []
    panels = [
        ("ratio", "(a) makespan / lower bound", "makespan / beta-independent lower bound (no unit)"),
        ("stability", "(b) stability", "disturbed / reference makespan (no unit)"),
    ]
    fig, axes = new_figure(1, 2, height=4.6)
    for ax, (key, title, label) in zip(axes[0], panels, strict=True):
        data = _boxes(ax, by_beta, betas, key, title, label)
        ax.plot(range(len(betas)), [np.median(d) if d else np.nan for d in data], "-", color="black", lw=1)
    made.append(
        save(
            fig,
            folder / "canon2011-figure4.png",
            "GAPS on paper-like instances (Canon et al. 2011, Figure 4)",
        )
    )
    if any(by_beta[b]["optimum"] or by_beta[b]["lo"] for b in betas):
        made.append(_optimum_figure(by_beta, betas, folder / "canon2011-optimum-ratio.png"))
    return made


def _optimum_figure(by_beta: dict, betas: list, path: Path) -> Path:
    """GAPS against the slack optimum at each beta: the proven ratios, and apart, per beta, the
    certified intervals' two ends as boxes side by side (the true ratio lies between them)."""
    from volsched.plots import box_colours, new_figure, save, series_styles

    names = ["proven ratio", "interval: lower end (/ best known)", "interval: upper end (/ bound)"]
    keys = ["optimum", "lo", "hi"]
    styles = series_styles(names)
    fig, axes = new_figure(height=4.8)
    ax = axes[0, 0]
    width, shown = 0.26, []
    for k, (key, name) in enumerate(zip(keys, names, strict=True)):
        pos = [i + (k - 1) * width for i in range(len(betas))]
        data = [by_beta[b][key] for b in betas]
        filled = [i for i, d in enumerate(data) if d]
        if not filled:
            continue
        boxes = ax.boxplot(
            [data[i] for i in filled],
            positions=[pos[i] for i in filled],
            widths=width * 0.9,
            whis=1.5,
            showfliers=False,
            manage_ticks=False,
        )
        box_colours(boxes, [styles[name].colour] * len(filled))
        medians = [float(np.median(data[i])) for i in filled]
        s = styles[name]
        ax.plot([pos[i] for i in filled], medians, ls="none", marker=s.marker, color=s.colour, mec="black")
        shown.append(name)
        above = ax.get_xaxis_transform()
        for i in filled:
            ax.text(pos[i], 1.01, f"{len(data[i])}", transform=above, ha="center", fontsize=6)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(betas)), [f"{b:g}" for b in betas])
    ax.set_xlim(-0.6, len(betas) - 0.4)
    ax.set_xlabel("beta (the slack rule's parameter, 0 to 1); above each box: its runs")
    ax.set_ylabel("GAPS makespan / optimum of the slack problem at beta (no unit)")
    ax.grid(axis="y", alpha=0.3)
    handles = [Line2D([], [], color=styles[n].colour, marker=styles[n].marker, mec="black") for n in shown]
    ax.legend(handles, shown, fontsize=7, loc="upper left")
    return save(fig, path, "GAPS against the optimum at each beta: proven ratios, else certified intervals")


def _boxes(ax, by_beta: dict, betas: list, key: str, title: str, label: str) -> list:
    """One box per beta of ``by_beta[beta][key]`` (whiskers at 1.5 IQR, as Figure 4) with its ``n``;
    the data drawn."""
    data = [by_beta[b][key] for b in betas]
    ax.boxplot([d if d else [np.nan] for d in data], positions=range(len(betas)), whis=1.5)
    ax.set_xticks(range(len(betas)), [f"{b:g}" for b in betas])
    for k, (b, d) in enumerate(zip(betas, data, strict=True)):
        left_out = len(by_beta[b]["unproven"]) if key == "optimum" else 0
        count = f"n={len(d)}" + (f" (+{left_out} without proven optimum)" if left_out else "")
        ax.text(k, 1.01, count, transform=ax.get_xaxis_transform(), ha="center", fontsize=7)
    ax.set_xlabel("beta (the slack rule's parameter, 0 to 1)")
    ax.set_ylabel(label)
    ax.set_title(title, fontsize=9, pad=12)
    ax.grid(axis="y", alpha=0.3)
    return data


__all__ = ["bounds", "plots", "report", "tables", "to_markdown"]
