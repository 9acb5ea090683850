"""The hunt report's figures: the search's progress, the ratios' distribution, and the worst instance
drawn in its family's own picture.

* ``coupled``: the availability matrix (Casanova et al. 2013, Figure 1's UP / RECLAIMED / DOWN
  slots), with the processors the heuristic enrols;
* ``slack``: the Gantt charts of the heuristic's and the optimal schedules, unavailabilities hatched
  (Canon et al. 2011, Section 3.1);
* ``prescient``: the Gantt charts of the heuristic's and the optimal task attempts over each host's
  availability (Kondo et al. 2007, Section 2);
* ``checkpoint``: the slices laid end to end with the checkpoints each policy places (Bouguerra et
  al. 2011, Section III).

Every figure is at most 1,600 px wide at 150 dpi, with a title, axis labels with units and a legend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from volsched.plots import plt, save

if TYPE_CHECKING:
    from pathlib import Path

#: Figure width in inches: 1,500 px at :data:`volsched.plots.DPI`.
WIDTH = 10.0
HUNT_COLOUR, RANDOM_COLOUR, REFERENCE_COLOUR = "#1f77b4", "#ff7f0e", "#7f7f7f"
STATE_COLOURS = ("#2ca02c", "#ffbf00", "#d62728")  # UP, RECLAIMED, DOWN


def progress_figure(path: Path, summary: dict, sample_max: float | None, title: str) -> Path:
    """Best ratio after each candidate: the hunt's, random search's, and the random sample's max."""
    fig, ax = plt.subplots(figsize=(WIDTH, 4.0))
    for label, curve, colour in (
        ("hunt", summary.get("progress"), HUNT_COLOUR),
        ("random search (same seed and budget)", summary.get("random_progress"), RANDOM_COLOUR),
    ):
        if curve:
            xs = [i + 1 for i, v in enumerate(curve) if v is not None]
            ax.step(xs, [v for v in curve if v is not None], where="post", label=label, color=colour)
    if sample_max is not None:
        ax.axhline(sample_max, color=REFERENCE_COLOUR, ls="--", label="worst of the random reference sample")
    ax.set_xlabel("candidates evaluated")
    ax.set_ylabel("best ratio to the optimum (proven lower end)")
    ax.set_title(title)
    ax.legend(loc="best")
    return save(fig, path)


def ratios_figure(path: Path, ratios: list[float], best: float, title: str, reference: str) -> Path:
    """Histogram of the reference sample's ratios, the hunt's worst marked."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.5))
    ax.hist(ratios, bins=min(20, max(5, len(ratios) // 2)), color=REFERENCE_COLOUR, label=reference)
    ax.axvline(best, color=HUNT_COLOUR, lw=2, label=f"hunt's worst instance ({best:.3f})")
    ax.set_xlabel("ratio to the optimum (proven lower end, dimensionless)")
    ax.set_ylabel("instances")
    ax.set_title(title)
    ax.legend()
    return save(fig, path)


def worst_figure(path: Path, family: str, instance: Any, run: dict, optimum: dict, title: str) -> Path:
    """The worst instance in its family's picture (module docstring)."""
    draw = {"coupled": _coupled, "slack": _slack, "prescient": _prescient, "checkpoint": _checkpoint}
    return save(draw[family](instance, run, optimum, title), path)


def _coupled(instance, run: dict, optimum: dict, title: str):
    from matplotlib.colors import ListedColormap
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    configs = run.get("schedule", {}).get("configurations", [])
    end = float(run.get("makespan") or run.get("objective") or instance.horizon)
    span = int(min(max(end * 1.1, 10), instance.max_realization()))
    states = instance.realization(span)
    p = states.shape[0]
    fig, ax = plt.subplots(figsize=(WIDTH, 1.5 + 0.3 * p))
    ax.imshow(
        states,
        aspect="auto",
        interpolation="nearest",
        cmap=ListedColormap(STATE_COLOURS),
        vmin=0,
        vmax=2,
        extent=(0, span, p - 0.5, -0.5),
    )
    for k, conf in enumerate(configs):
        stop = configs[k + 1]["start"] if k + 1 < len(configs) else end
        for q, tasks in enumerate(conf["allocation"]):
            if tasks:
                ax.plot([conf["start"], stop], [q, q], color="black", lw=2.5, solid_capstyle="butt")
    ax.set_yticks(range(p), [f"P{q} (w={int(instance.w[q])})" for q in range(p)])
    ax.set_xlabel("time (slots)")
    ax.set_ylabel("processor (w: slots per task)")
    ax.set_title(title)
    handles = [
        Patch(color=c, label=s) for c, s in zip(STATE_COLOURS, ("UP", "RECLAIMED", "DOWN"), strict=True)
    ]
    handles.append(Line2D([], [], color="black", lw=2.5, label=f"enrolled by {run.get('heuristic', 'H')}"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return fig


def _slack(instance, run: dict, optimum: dict, title: str):
    p = np.asarray(instance.p)
    m = len(instance.machines)
    fig, axes = plt.subplots(2, 1, figsize=(WIDTH, 1.6 + 0.7 * m), sharex=True)
    cmap = plt.get_cmap("tab20")
    panels = ((run.get("schedule"), f"{run.get('heuristic', 'heuristic')}"), (optimum["schedule"], "optimum"))
    for ax, (schedule, who) in zip(axes, panels, strict=True):
        ends = [s + int(p[j]) for j, (_, s) in enumerate(schedule)]
        for i, intervals in enumerate(instance.machines):
            for s, e in intervals:
                ax.barh(i, e - s, left=s, color="white", edgecolor="grey", hatch="///")
        for j, (i, s) in enumerate(schedule):
            ax.barh(i, int(p[j]), left=s, color=cmap(j % 20), edgecolor="black")
            ax.text(s + p[j] / 2, i, str(int(p[j])), ha="center", va="center", fontsize=7)
        ax.axvline(max(ends), color="black", ls="--")
        ax.set_yticks(range(m), [f"M{i}" for i in range(m)])
        ax.set_ylabel("machine")
        ax.invert_yaxis()
        ax.set_title(f"{who}: makespan {max(ends)}", fontsize=9)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    axes[0].legend(
        handles=[
            Patch(facecolor=cmap(0), edgecolor="black", label="job (its size inside)"),
            Patch(facecolor="white", edgecolor="grey", hatch="///", label="unavailability"),
            Line2D([], [], color="black", ls="--", label="makespan"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
    )
    axes[-1].set_xlabel("time (units of the job sizes)")
    fig.suptitle(title)
    return fig


def _prescient(instance, run: dict, optimum: dict, title: str):
    from matplotlib.patches import Patch

    start = float(instance.start)
    attempts = {"heuristic": run.get("attempts", []), "optimum": optimum.get("attempts", [])}
    stop = max((a["end"] for rows in attempts.values() for a in rows), default=start + 3600.0)
    n = len(instance.clock_mhz)
    fig, axes = plt.subplots(2, 1, figsize=(WIDTH, 1.8 + 0.55 * n), sharex=True)
    colours = {"completed": "#2ca02c", "failed": "#d62728"}
    names = {"heuristic": run.get("heuristic", "heuristic"), "optimum": "optimum"}
    for ax, (key, rows) in zip(axes, attempts.items(), strict=True):
        for h in range(n):
            lo, hi = instance.up_ptr[h], instance.up_ptr[h + 1]
            for s, e in zip(instance.up_start[lo:hi], instance.up_end[lo:hi], strict=True):
                if e > start and s < stop:
                    s0, e0 = max(s, start), min(e, stop)
                    ax.barh(h, (e0 - s0) / 60, left=(s0 - start) / 60, height=0.8, color="#dddddd")
        for a in rows:
            ax.barh(
                a["host"],
                (a["end"] - a["start"]) / 60,
                left=(a["start"] - start) / 60,
                height=0.5,
                color=colours.get(a["outcome"], "#7f7f7f"),
                edgecolor="black",
                lw=0.5,
            )
        span = (max((a["end"] for a in rows), default=start) - start) / 60
        ax.set_title(f"{names[key]}: makespan {span:.1f} min", fontsize=9)
        ax.set_yticks(range(n), [f"H{h} ({instance.clock_mhz[h]:.0f} MHz)" for h in range(n)], fontsize=7)
        ax.set_ylabel("host (clock)")
        ax.invert_yaxis()
    axes[0].legend(
        handles=[
            Patch(color="#dddddd", label="host available"),
            Patch(color=colours["completed"], label="attempt completed"),
            Patch(color=colours["failed"], label="attempt failed"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
    )
    axes[-1].set_xlabel("time since the application's start (minutes)")
    fig.suptitle(title)
    return fig


def _checkpoint(instance, run: dict, optimum: dict, title: str):
    from matplotlib.patches import Patch

    p, c = np.asarray(instance.p), np.asarray(instance.c)
    rows = ((run.get("a"), run.get("heuristic", "heuristic")), (optimum["a"], "optimum"))
    fig, ax = plt.subplots(figsize=(WIDTH, 2.6))
    for y, (a, _) in enumerate(rows):
        t = 0.0
        for j in range(len(p)):
            ax.barh(y, p[j], left=t, color="#9ecae1" if j % 2 else "#6baed6", edgecolor="black", lw=0.5)
            t += p[j]
            if a[j]:
                ax.barh(y, c[j], left=t, color="#d62728", edgecolor="black", lw=0.5)
                t += c[j]
        ax.text(t, y, f"  {int(sum(a))} checkpoint" + ("s" if sum(a) != 1 else ""), va="center", fontsize=8)
    ax.set_yticks([0, 1], [who for _, who in rows])
    ax.invert_yaxis()
    ax.set_xlabel("failure-free time (quanta): slices, then each checkpoint placed after its slice")
    law = instance.law
    shown = ", ".join(f"{k} {v:.4g}" for k, v in vars(law).items() if isinstance(v, int | float))
    ax.set_xlim(0, ax.get_xlim()[1] * 1.12)  # room for the counts written after each row
    ax.set_title(f"{title}\nfailure law: {type(law).__name__} ({shown}; times in quanta)", fontsize=9)
    ax.legend(
        handles=[
            Patch(color="#6baed6", label="slice"),
            Patch(color="#d62728", label="checkpoint (its cost)"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
    )
    return fig
