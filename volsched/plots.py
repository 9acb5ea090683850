"""Figures (matplotlib, headless): the style every family's figures share, and the checkpoint figures.

One place decides what a figure a paper can use looks like, so that every family draws the same way:

* the size: at most :data:`MAX_WIDTH_PX` pixels wide at :data:`DPI` (:func:`new_figure`,
  :func:`save`, which refuses a figure without a title);
* the series: a distinct (colour, marker) pair per series (:func:`series_styles`), the 17 coupled
  heuristics of Casanova et al. (2013, Section VI) by criterion, the legend grouped likewise
  (:func:`grouped_legend`);
* integer parameters get integer ticks only (:func:`integer_ticks`);
* proven ratios and ratio intervals are drawn apart (:func:`ratio_panels`): boxes of the proven
  ratios, and each unproven run as its interval ``[lo, hi]`` with a hollow marker at ``lo``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator, NullFormatter

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

#: Resolution of every saved figure, and the widest figure a page takes at that resolution.
DPI = 150
MAX_WIDTH_PX = 1600
#: The width of a full-page figure (inches): 1,590 pixels at :data:`DPI`.
PAGE_WIDTH = 10.6
#: Ten colours a reader tells apart (matplotlib's tab10), and seven markers; 10 and 7 are coprime,
#: so cycling both at once gives 70 distinct (colour, marker) pairs that change together.
COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
#: Above this largest ratio the ratio axis is logarithmic (boxes near 1 would be flattened).
LOG_ABOVE = 3.0

#: Casanova et al. (2013, Section VI): a proactive heuristic ``C-H`` applies the criterion ``C`` to the
#: passive heuristic ``H``; ``H[conditional]`` is the conditional-estimate variant.
_COUPLED = re.compile(r"^(?:(?P<c>[PEY])-)?(?P<h>IP|IE|IY|IAY|RANDOM)(?P<v>\[conditional\])?$")
_BASE_COLOUR = {"IP": 0, "IE": 1, "IY": 2, "IAY": 3, "RANDOM": 7}
_CRITERIA = ("", "P", "E", "Y")
_CRITERION_MARKERS = {False: ("o", "s", "^", "D"), True: ("h", "p", "v", "*")}
_CRITERION_NAMES = {"": "passive", "P": "P-H (proactive)", "E": "E-H (proactive)", "Y": "Y-H (proactive)"}


@dataclass(frozen=True)
class Style:
    """How one series is drawn: its colour and marker (distinct pairs), line style and legend group."""

    colour: str
    marker: str
    linestyle: str = "-"
    group: str = ""

    def line(self) -> dict:
        """Keyword arguments of ``Axes.plot``."""
        return {"color": self.colour, "marker": self.marker, "linestyle": self.linestyle}


def _coupled_style(name: str) -> Style | None:
    match = _COUPLED.match(name)
    if match is None:
        return None
    criterion, conditional = match["c"] or "", bool(match["v"])
    group = _CRITERION_NAMES[criterion] + (", conditional" if conditional else "")
    return Style(
        COLOURS[_BASE_COLOUR[match["h"]]],
        _CRITERION_MARKERS[conditional][_CRITERIA.index(criterion)],
        "--" if not criterion else (":" if conditional else "-"),
        group,
    )


def series_styles(names: Iterable[str]) -> dict[str, Style]:
    """A distinct (colour, marker) pair per name, in the names' order.

    Casanova's coupled heuristics are styled by meaning: the colour is the passive heuristic ``H``
    (IP, IE, IY, IAY, RANDOM), the marker the criterion (none, P, E, Y; other markers for the
    conditional variants) and the group the criterion, so that :func:`grouped_legend` shows the
    passive heuristics and each proactive criterion in a column of their own. Any other names cycle
    :data:`COLOURS` and :data:`MARKERS` together.

    Examples
    --------
    >>> s = series_styles(["IE", "E-IE", "E-IP"])
    >>> s["IE"].colour == s["E-IE"].colour, s["IE"].marker == s["E-IE"].marker, s["E-IE"].group
    (True, False, 'E-H (proactive)')
    >>> s = series_styles(["daly", "young"])
    >>> (s["daly"].colour, s["daly"].marker) != (s["young"].colour, s["young"].marker)
    True
    """
    names = list(dict.fromkeys(names))
    coupled = {n: _coupled_style(n) for n in names}
    if names and all(coupled.values()):
        return coupled  # type: ignore[return-value]
    return {n: Style(COLOURS[i % len(COLOURS)], MARKERS[i % len(MARKERS)]) for i, n in enumerate(names)}


def series_order(names: Iterable[str]) -> list[str]:
    """Casanova's heuristics grouped as :func:`grouped_legend` shows them (passive, then P, E, Y; the
    conditional variants after; IP, IE, IY, IAY, RANDOM within a group); other names as given.

    Examples
    --------
    >>> series_order(["Y-IE", "IE", "RANDOM", "E-IP"])
    ['IE', 'RANDOM', 'E-IP', 'Y-IE']
    """
    names = list(names)
    matches = {n: _COUPLED.match(n) for n in names}
    if not names or not all(matches.values()):
        return names

    def key(name: str) -> tuple:
        m = matches[name]
        return bool(m["v"]), _CRITERIA.index(m["c"] or ""), list(_BASE_COLOUR).index(m["h"])

    return sorted(names, key=key)


def grouped_legend(target, styles: Mapping[str, Style], fontsize: float = 8, **kwargs):
    """A legend of one entry per series; with groups, a column per group under the group's name.

    ``target`` is an Axes or a Figure. The group names are entries without a marker or a line (a
    header), and shorter groups are padded with empty entries so that each column is one group.
    """
    groups: dict[str, list[str]] = {}
    for name, style in styles.items():
        groups.setdefault(style.group, []).append(name)
    blank = Line2D([], [], linestyle="none", marker="none")

    def handle(name: str) -> Line2D:
        s = styles[name]
        return Line2D([], [], color=s.colour, marker=s.marker, linestyle=s.linestyle)

    if list(groups) == [""]:
        names = groups[""]
        return target.legend(
            [handle(n) for n in names], names, fontsize=fontsize, ncol=kwargs.pop("ncol", 1), **kwargs
        )
    depth = max(len(v) for v in groups.values()) + 1
    handles, labels = [], []
    for group, members in groups.items():
        column = [(blank, group)] + [(handle(n), n) for n in members]
        column += [(blank, "")] * (depth - len(column))
        handles += [h for h, _ in column]
        labels += [label for _, label in column]
    # With more groups than columns, column-major filling stacks two groups in one column.
    ncol = kwargs.pop("ncol", len(groups) if len(groups) <= 4 else math.ceil(len(groups) / 2))
    legend = target.legend(handles, labels, fontsize=fontsize, ncol=ncol, **kwargs)
    for text in legend.get_texts():
        if text.get_text() in groups:
            text.set_fontweight("bold")
    return legend


def is_integer_valued(values: Iterable) -> bool:
    """Whether every value is a whole number (an ``int``, or a float such as 2.0)."""
    values = list(values)
    return bool(values) and all(
        isinstance(v, int | float) and not isinstance(v, bool) and float(v).is_integer() for v in values
    )


def integer_ticks(ax, values: Iterable, axis: str = "x", max_ticks: int = 12) -> None:
    """Integer ticks only on an integer parameter's axis: at the values when few, else integer steps."""
    values = sorted({int(v) for v in values})
    target = ax.xaxis if axis == "x" else ax.yaxis
    if len(values) <= max_ticks:
        target.set_major_locator(FixedLocator(values))
    else:
        target.set_major_locator(MaxNLocator(integer=True))
    target.set_minor_locator(FixedLocator([]))


def ratio_axis(ax, largest: float | None, axis: str = "x") -> None:
    """Logarithmic ratio axis above :data:`LOG_ABOVE` (plain numbers, no 10^k), linear otherwise."""
    if largest is None or not np.isfinite(largest) or largest <= LOG_ABOVE:
        return
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    # 1, 2, 5 per decade: labelled ticks even when the ratios span less than a decade
    subs = (1.0, 2.0, 5.0) if largest >= 10 else (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
    target.set_major_locator(LogLocator(base=10, subs=subs))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())


def percent_axis(ax, values: Iterable[float], axis: str = "y") -> bool:
    """A %diff axis: linear, or symmetric-logarithmic (linear within +-10 %) when a value passes 200 %
    (said in the axis label); whether it is logarithmic.

    One heuristic far off (RANDOM at +1,500 %) would otherwise flatten every other curve to a line.
    """
    values = [abs(v) for v in values if v is not None and np.isfinite(v)]
    if not values or max(values) <= 200:
        return False
    (ax.set_xscale if axis == "x" else ax.set_yscale)("symlog", linthresh=10)
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())
    label = ax.get_xlabel() if axis == "x" else ax.get_ylabel()
    (ax.set_xlabel if axis == "x" else ax.set_ylabel)(f"{label}, symmetric log scale")
    return True


def new_figure(nrows: int = 1, ncols: int = 1, height: float = 4.5, width: float = PAGE_WIDTH, **kwargs):
    """``plt.subplots`` at most a page wide (:data:`PAGE_WIDTH`); ``axes`` always a 2-D array."""
    kwargs.setdefault("layout", "constrained")
    return plt.subplots(nrows, ncols, figsize=(min(width, PAGE_WIDTH), height), squeeze=False, **kwargs)


def save(fig, path: Path, title: str | None = None) -> Path:
    """Give ``fig`` its title, lay it out and write it at :data:`DPI`; a figure needs a title."""
    if title:
        fig.suptitle(title)
    titled = bool(fig.get_suptitle()) or any(ax.get_title() for ax in fig.axes)
    if not titled:
        raise ValueError(f"{path}: a figure needs a title")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def box_colours(boxes: dict, colours: Sequence[str]) -> None:
    """Colour each box of ``Axes.boxplot``'s result (box, median, whiskers, caps) as its series."""
    for k, colour in enumerate(colours):
        boxes["boxes"][k].set_color(colour)
        boxes["medians"][k].set_color(colour)
        for part in ("whiskers", "caps"):
            for line in boxes[part][2 * k : 2 * k + 2]:
                line.set_color(colour)


def marked_bars(ax, x, heights, width: float, style: Style, bottom: float = 0.0, label: str | None = None):
    """Bars in the series' colour with its marker on each bar's top, so that a series of bars is told
    apart by marker as well as colour; the legend handle (a bar and its marker, a tuple
    ``Axes.legend`` draws as one entry). Missing heights (``nan``) draw nothing."""
    x = np.asarray(x, dtype=float)
    tops = np.asarray(heights, dtype=float)
    ax.bar(x, tops - bottom, width, bottom=bottom, color=style.colour, edgecolor="black", linewidth=0.4)
    ax.plot(x, tops, linestyle="none", marker=style.marker, color=style.colour, markeredgecolor="black", ms=5)
    bar = Patch(facecolor=style.colour, edgecolor="black", linewidth=0.4, label=label)
    mark = Line2D([], [], linestyle="none", marker=style.marker, color=style.colour, markeredgecolor="black")
    return (bar, mark)


def proven_or_interval(
    ax,
    x: float,
    proven: float | None,
    lo: float | None,
    hi: float | None,
    style: Style,
    vertical: bool = True,
    **kwargs,
) -> str:
    """Draw one run: a filled marker at its ``proven`` value, else its interval ``[lo, hi]`` as a
    segment with a hollow marker at ``lo`` (a lone hollow marker without ``hi``). What was drawn:
    ``"proven"``, ``"interval"`` or ``"nothing"`` (no value at all)."""

    def xy(a, b):
        return (a, b) if vertical else (b, a)

    if proven is not None:
        ax.plot(*xy([x], [proven]), linestyle="none", marker=style.marker, color=style.colour, **kwargs)
        return "proven"
    if lo is None:
        return "nothing"
    if hi is not None:
        ax.plot(*xy([x, x], [lo, hi]), color=style.colour, linewidth=1.2)
    ax.plot(
        *xy([x], [lo]),
        linestyle="none",
        marker=style.marker,
        color=style.colour,
        markerfacecolor="white",
        **kwargs,
    )
    return "interval"


def proof_key(colour: str = "0.3") -> list:
    """Two legend handles: a filled marker (proven) and a hollow one on a segment (interval)."""
    return [
        Line2D([], [], linestyle="none", marker="o", color=colour, label="filled: proven optimum"),
        Line2D(
            [],
            [],
            marker="o",
            color=colour,
            markerfacecolor="white",
            label="hollow + bar: not proven, [incumbent, bound]",
        ),
    ]


def ratio_panels(
    series: Mapping[str, tuple[Sequence[float], Sequence[tuple[float, float | None]]]],
    title: str,
    path: Path,
    quantity: str = "heuristic / optimum",
    notes: Mapping[str, str] | None = None,
) -> Path:
    """Proven ratios and ratio intervals, kept apart: one row per series, two panels side by side.

    ``series`` maps a name to ``(proven ratios, unproven intervals)``, an interval being
    ``(lo, hi)`` of :meth:`volsched.ratios.Reference.interval` (``hi`` ``None`` without a positive
    bound). The left panel draws a box of the proven ratios (every point when there are few), the
    right panel every unproven run as a segment from ``lo`` to ``hi`` with a hollow marker at
    ``lo`` (to the panel's edge without ``hi``); each row states its ``n``. Without unproven runs
    the right panel is left out. Both panels share the ratio axis, logarithmic above
    :data:`LOG_ABOVE`. ``notes`` adds a short text to a series' row label (failed runs, say).
    """
    names = list(series)
    styles = series_styles(names)
    notes = notes or {}
    has_intervals = any(series[n][1] for n in names)
    height = min(2.2 + 0.34 * max(1, len(names)), 13.0)
    fig, axes = new_figure(1, 2 if has_intervals else 1, height=height, sharey=True, sharex=True)
    left = axes[0, 0]
    y = np.arange(len(names))[::-1]
    values = [v for n in names for v in series[n][0]]
    values += [x for n in names for lo, hi in series[n][1] for x in (lo, hi) if x is not None]
    largest = max(values) if values else None
    right_edge = (largest or 1.0) * 1.15
    proven = [list(series[n][0]) for n in names]
    filled = [k for k, v in enumerate(proven) if v]
    if filled:
        boxes = left.boxplot(
            [proven[k] for k in filled],
            positions=[y[k] for k in filled],
            orientation="horizontal",
            widths=0.6,
            showfliers=False,
            manage_ticks=False,
        )
        box_colours(boxes, [styles[names[k]].colour for k in filled])
    rng = np.random.default_rng(0)  # a fixed jitter: the same figure on every run
    for k, name in enumerate(names):
        s = styles[name]
        pts = proven[k]
        if pts:
            jitter = rng.uniform(-0.15, 0.15, len(pts)) if len(pts) > 1 else np.zeros(1)
            left.plot(pts, y[k] + jitter, linestyle="none", marker=s.marker, color=s.colour, ms=4, alpha=0.8)
        left.text(1.01, y[k], f"n={len(pts)}", transform=left.get_yaxis_transform(), va="center", fontsize=7)
    left.set_yticks(y, [f"{n} ({notes[n]})" if notes.get(n) else n for n in names], fontsize=8)
    left.set_ylim(-0.7, len(names) - 0.3)
    left.set_title("proven ratios (box: quartiles, whiskers 1.5 IQR)", fontsize=9)
    left.set_xlabel(f"{quantity}, proven optimum (ratio, no unit)")
    if has_intervals:
        right = axes[0, 1]
        for k, name in enumerate(names):
            s = styles[name]
            runs = list(series[name][1])
            offsets = np.linspace(-0.3, 0.3, len(runs)) if len(runs) > 1 else np.zeros(len(runs))
            for (lo, hi), dy in zip(runs, offsets, strict=True):
                right.plot([lo, right_edge if hi is None else hi], [y[k] + dy] * 2, color=s.colour, lw=1)
            right.plot(
                [lo for lo, _ in runs],
                y[k] + offsets,
                linestyle="none",
                marker=s.marker,
                markerfacecolor="white",
                color=s.colour,
                ms=4,
            )
            right.text(
                1.01, y[k], f"n={len(runs)}", transform=right.get_yaxis_transform(), va="center", fontsize=7
            )
        right.set_title("unproven runs: interval [lo, hi], hollow marker at lo", fontsize=9)
        right.set_xlabel(f"{quantity}, optimum not proven (ratio interval)")
    for ax in axes[0]:
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.grid(axis="x", alpha=0.3)
        for k in range(1, len(names)):  # a rule between groups (the coupled criteria)
            if styles[names[k]].group != styles[names[k - 1]].group:
                ax.axhline(y[k] + 0.5, color="0.6", linewidth=0.8, linestyle="--")
    ratio_axis(left, largest)
    return save(fig, path, title)


def ratio_points(labels: list[str], ratios: dict[str, list[float]], path: Path, title: str) -> Path:
    """One marker per (instance, series): the ratio to the optimum of each series on each instance.

    The instances are the x categories; the series are offset a little within a category so that
    equal ratios stay visible, each with its own (colour, marker).
    """
    styles = series_styles(ratios)
    fig, axes = new_figure(height=4.8)
    ax = axes[0, 0]
    x = np.arange(len(labels))
    step = 0.7 / max(1, len(ratios))
    for k, (name, values) in enumerate(ratios.items()):
        s = styles[name]
        ax.plot(
            x + (k - (len(ratios) - 1) / 2) * step,
            [np.nan if v is None else v for v in values],
            linestyle="none",
            marker=s.marker,
            color=s.colour,
            ms=6,
            label=name,
        )
    for boundary in x[1:] - 0.5:
        ax.axvline(boundary, color="0.85", linewidth=0.8)
    ax.axhline(1.0, color="black", linewidth=0.8)
    finite = [v for vs in ratios.values() for v in vs if v is not None]
    ratio_axis(ax, max(finite) if finite else None, axis="y")
    ax.set_ylabel("expected waste / optimum (ratio, no unit)")
    ax.set_xticks(x, labels, rotation=25, ha="right", fontsize=8)
    ax.set_xlim(-0.5, len(labels) - 0.5)
    ax.set_xlabel("instance (failure law / slice lengths)")
    grouped_legend(fig, styles, loc="outside lower center", ncol=len(ratios))
    return save(fig, path, title)


def bot_figure(rows: list[dict], clients: int, path: Path) -> Path:
    """The paper's Figure layout for one client count: (a) makespan, (b) wasted time per client."""
    rows = [r for r in rows if r["clients"] == clients]
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    styles = series_styles(policies)
    jobs = sorted({r["jobs"] for r in rows})
    fig, axes = new_figure(1, 2, height=4.8)
    left, right = axes[0]
    for policy in policies:
        pts = sorted((r["jobs"], r["makespan"]) for r in rows if r["policy"] == policy)
        left.plot(
            [j for j, _ in pts],
            [np.nan if v is None else v / 60 for _, v in pts],
            label=policy,
            **styles[policy].line(),
        )
    unfinished = [
        f"{policy}: unfinished at the\nsimulation's cap with "
        + ", ".join(str(r["jobs"]) for r in rows if r["policy"] == policy and r["makespan"] is None)
        + " jobs\n(in (b): its waste up to the cap)"
        for policy in policies
        if any(r["policy"] == policy and r["makespan"] is None for r in rows)
    ]
    if unfinished:
        note = "\n".join(unfinished)
        left.text(0.98, 0.03, note, transform=left.transAxes, fontsize=7, ha="right", va="bottom")
    # The policies' makespans differ by orders of magnitude (no checkpoint against the optimum).
    left.set_yscale("log")
    left.set_xlabel("jobs in the BoT")
    integer_ticks(left, jobs)
    left.set_ylabel("maximum completion time (h, log scale)")
    left.set_title(f"(a) BoT completion time, {clients} clients", fontsize=10)
    grouped_legend(left, styles, loc="upper left")
    width = 0.8 / len(policies)
    x = np.arange(len(jobs))
    for k, policy in enumerate(policies):
        by_jobs = {r["jobs"]: r for r in rows if r["policy"] == policy}
        ckpt = [by_jobs[j]["wasted_checkpoint"] / 60 / clients for j in jobs]
        lost = [by_jobs[j]["wasted_lost"] / 60 / clients for j in jobs]
        pos = x + (k - (len(policies) - 1) / 2) * width
        colour = styles[policy].colour
        right.bar(pos, ckpt, width, color=colour, edgecolor="black", linewidth=0.5)
        right.bar(
            pos, lost, width, bottom=ckpt, color=colour, alpha=0.45, hatch="//", edgecolor="black", lw=0.5
        )
        # the marker on each bar's top tells the policies apart where colours are alike
        right.plot(
            pos,
            np.add(ckpt, lost),
            linestyle="none",
            marker=styles[policy].marker,
            color=colour,
            markeredgecolor="black",
            ms=5,
        )
    right.set_xticks(x, [str(j) for j in jobs])
    right.set_xlabel("jobs in the BoT")
    right.set_ylabel("wasted time per client (h)")
    right.set_title(f"(b) overall wasted time, {clients} clients", fontsize=10)
    handles: list = [
        (
            Patch(facecolor=styles[p].colour, edgecolor="black"),
            Line2D(
                [],
                [],
                linestyle="none",
                marker=styles[p].marker,
                color=styles[p].colour,
                markeredgecolor="black",
            ),
        )
        for p in policies
    ]
    handles += [
        Patch(facecolor="white", edgecolor="black"),
        Patch(facecolor="white", edgecolor="black", hatch="//"),
    ]
    labels = [*policies, "solid: checkpoint overhead", "hatched: lost work"]
    right.legend(handles, labels, fontsize=7)
    return save(fig, path, f"Bag of tasks on {clients} volatile clients (checkpoint paper, Section IV)")
