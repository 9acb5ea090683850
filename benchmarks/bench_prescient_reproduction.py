"""The prescient reproduction: the paper's claims beside a store's figures.

Kondo, Chien, Casanova (2007), Sections 4-6 and Tables II-III. Reads a store
filled by ``volsched sweep --preset kondo2007`` and prints,
as Markdown, per platform the normalised makespan of every heuristic (mean
makespan over mean optimum per T x task size, as the paper's figures do,
Section 3.4 / reading 5.1), the mean waste, and the table of claims; it writes
the figures in the paper's layout (one panel per T, bars per task size) in the
style of :mod:`volsched.plots` under ``benchmarks/figures/`` (``--figures``)::

    python benchmarks/bench_prescient_reproduction.py STORE [STORE ...] [--figures DIR]
    python benchmarks/bench_prescient_reproduction.py DIR/prescient-cells.json [--figures DIR]

Reading stores writes the normalised cells beside the figures (``prescient-cells.json``: per
platform, T, task size and heuristic, the ratio, the mean waste and the runs); given that file in
place of the stores, the script prints the same tables and draws the same figures without them.

Diagnostics (small targeted measurements, no store needed)::

    python benchmarks/bench_prescient_reproduction.py --predictor --seeds 4
    python benchmarks/bench_prescient_reproduction.py --oracle-theta --seeds 4
    python benchmarks/bench_prescient_reproduction.py --heartbeat --seeds 4
    python benchmarks/bench_prescient_reproduction.py --last-host --seeds 4
    python benchmarks/bench_prescient_reproduction.py --tail 470 --seeds 4
    python benchmarks/bench_prescient_reproduction.py --laggers sdsc --seeds 100
    python benchmarks/bench_prescient_reproduction.py --rep-prob --seeds 5
    python benchmarks/bench_prescient_reproduction.py --trace sdsc 200 15 0 EXCL-PRED,EXCL-PRED-TO

``--predictor``: the predictor μ = ⌈T/N⌉ s/r (Section 5.2) against the optimum,
with ``r`` from the previous weekday (the heuristics' reading) and from the
start day's own window (what a perfect day-to-day forecast would give), on
SDSC, DEUG, LRI and UCB. ``--oracle-theta``: EXCL-PRED and EXCL-PRED-TO run
with ``r`` replaced by the value that makes μ equal the optimum (a prescient
predictor; a diagnostic only, never a heuristic), beside the ordinary ones and
PRI-CR / EXCL-S.5. ``--heartbeat``: the replicating heuristics with failures
detected at the next heartbeat tick (the family's rule) and a constant 60 s
after the failure (the paper's worst case). ``--last-host``: the clock rate of
the host that completed each run's last task (SDSC, GIMPS, LRI-WISC: the same
availability, three clock laws). ``--tail MHZ``: SDSC instances as drawn and
with every clock below ``MHZ`` raised to it (a what-if on the depth of the slow
tail, scored against each instance's own optimum). ``--laggers PLATFORM``:
Section 3.4's lagger causes per heuristic, as ``volsched evaluate`` reports
them (a failure after Q3; a host slower than the optimum's slowest).
``--rep-prob``: the share of REP-PROB's replicas placed where Equation 1 gives
0, and a what-if without them (:func:`rep_prob`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from collections import defaultdict
from pathlib import Path

import numpy as np

PLATFORMS = ["sdsc", "deug", "lri", "ucb", "gimps", "lri-wisc"]
UCB_LRI = [f"ucb-lri-{t}" for t in ("n33", "n15", "n06", "p06", "p15", "p33")]
TS = [100, 200, 400]
MINUTES = [5.0, 15.0, 35.0]
ORDER = [
    "FCFS",
    "PRI-CR",
    "PRI-CR-WAIT",
    "PRI-HISTORY",
    "EXCL-S1.5",
    "EXCL-S1",
    "EXCL-S.5",
    "EXCL-S.25",
    "EXCL-PRED",
    "EXCL-PRED-DUP",
    "EXCL-PRED-TO",
    "REP-PROB",
]
#: The paper's figures: (file stem, platforms, heuristics).
FIGURES = [
    ("prioritization-sdsc", ["sdsc"], ["FCFS", "PRI-CR", "PRI-CR-WAIT", "PRI-HISTORY"]),  # Figure 4
    ("exclusion-sdsc", ["sdsc"], ["PRI-CR", "EXCL-S1.5", "EXCL-S1", "EXCL-S.5", "EXCL-S.25"]),  # Figure 8
    *[(f"prediction-{p}", [p], ["PRI-CR", "EXCL-S.5", "EXCL-PRED"]) for p in ("sdsc", "gimps", "lri-wisc")],
    *[
        (f"replication-{p}", [p], ["EXCL-PRED", "EXCL-PRED-DUP", "EXCL-PRED-TO", "REP-PROB"])
        for p in ("sdsc", "deug", "lri", "ucb")
    ],  # Figure 14 and Tables II-III
    ("all-platforms", PLATFORMS, ORDER),
]
TITLES = {
    "prioritization-sdsc": "Kondo et al. (2007), Figure 4: prioritization on SDSC",
    "exclusion-sdsc": "Kondo et al. (2007), Figure 8: exclusion by a fixed threshold on SDSC",
    **{
        f"prediction-{p}": f"Kondo et al. (2007), Section 5.2: exclusion by prediction on {p.upper()}"
        for p in ("sdsc", "gimps", "lri-wisc")
    },
    **{
        f"replication-{p}": f"Kondo et al. (2007), Figure 14 and Tables II-III: replication on {p.upper()}"
        for p in ("sdsc", "deug", "lri", "ucb")
    },
    "all-platforms": "Kondo et al. (2007): the 12 heuristics on the six platforms",
    "ucb-lri": "Kondo et al. (2007), Figure 16: REP-PROB against EXCL-PRED-TO on the UCB-LRI platforms",
}


# --------------------------------------------------------------------------- the store
def load(store_paths: list[str]) -> dict:
    """``cells[(platform, T, minutes)][method] -> {seed: (makespan, waste)}`` and the optima by seed.

    Only complete runs count: an exact row ``optimal``, a heuristic row ``ok`` with a makespan. Several
    stores (parts of one preset run side by side) are read as one.
    """
    from volsched.experiments.store import Store

    cells: dict = defaultdict(lambda: defaultdict(dict))
    for path in store_paths:
        with Store(path, create=False) as store:
            rows = store.rows()
        for r in rows:
            p = r["params"]
            if r["family"] != "prescient" or p.get("hosts") != 200:
                continue
            cell = (p["platform"], int(p["tasks"]), float(p["task_minutes"]))
            if r["kind"] == "exact" and r["status"] == "optimal":
                cells[cell]["optimum"][p["seed"]] = (float(r["objective"]), 0.0)
            elif r["kind"] == "heuristic" and r["status"] == "ok" and r["objective"] is not None:
                cells[cell][r["method"]][p["seed"]] = (float(r["objective"]), float(r["metrics"]["waste"]))
    return cells


def normalised(cells: dict) -> dict:
    """``(platform, T, minutes, method) -> (mean makespan / mean optimum, mean waste, runs)``.

    Over the seeds where the optimum and every heuristic of the cell completed (common start times).
    """
    out = {}
    for cell, by in cells.items():
        opt = by.get("optimum", {})
        methods = [m for m in by if m != "optimum"]
        seeds = set(opt)
        for m in methods:
            seeds &= set(by[m])
        seeds = sorted(seeds)
        if not seeds:
            continue
        mean_opt = np.mean([opt[s][0] for s in seeds])
        for m in methods:
            out[(*cell, m)] = (
                float(np.mean([by[m][s][0] for s in seeds]) / mean_opt),
                float(np.mean([by[m][s][1] for s in seeds])),
                len(seeds),
            )
    return out


def save_cells(norm: dict, path: Path) -> Path:
    """:func:`normalised`'s cells as JSON, one object per (platform, T, task size, heuristic)."""
    rows = [
        {"platform": p, "tasks": t, "task_minutes": m, "method": h, "ratio": r, "waste": w, "runs": n}
        for (p, t, m, h), (r, w, n) in sorted(norm.items())
    ]
    path.write_text(json.dumps(rows, indent=0) + "\n")
    return path


def load_cells(path: str) -> dict:
    """What :func:`save_cells` wrote, as :func:`normalised` returns it."""
    return {
        (r["platform"], int(r["tasks"]), float(r["task_minutes"]), r["method"]): (
            float(r["ratio"]),
            float(r["waste"]),
            int(r["runs"]),
        )
        for r in json.loads(Path(path).read_text())
    }


def _pct_better(norm: dict, plat: str, a: str, b: str, T: int | None = None) -> list[float]:
    """Per cell, how much ``a`` beats ``b`` in % of ``b`` (positive: ``a`` better), the paper's sign."""
    out = []
    for t in TS if T is None else [T]:
        for m in MINUTES:
            if (plat, t, m, a) in norm and (plat, t, m, b) in norm:
                va, vb = norm[(plat, t, m, a)][0], norm[(plat, t, m, b)][0]
                out.append(100.0 * (vb - va) / vb)
    return out


def _waste_less(norm: dict, plat: str, a: str, b: str) -> list[float]:
    """Per cell, ``b``'s waste minus ``a``'s (points; positive: ``a`` wastes less)."""
    return [
        norm[(plat, t, m, b)][1] - norm[(plat, t, m, a)][1]
        for t in TS
        for m in MINUTES
        if (plat, t, m, a) in norm and (plat, t, m, b) in norm
    ]


def _f(x: float, spec: str = ".2f") -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def platform_table(norm: dict, plat: str, methods: list[str]) -> list[str]:
    cols = [(t, m) for t in TS for m in MINUTES]
    runs = {norm[k][2] for k in norm if k[0] == plat}
    lines = [
        f"**{plat}** (mean makespan / mean optimum; runs per cell: {sorted(runs)})",
        "",
        "| heuristic | " + " | ".join(f"T={t} {m:g}m" for t, m in cols) + " | mean waste % |",
        "|---|" + "---:|" * (len(cols) + 1),
    ]
    for h in methods:
        vals = [norm.get((plat, t, m, h)) for t, m in cols]
        if all(v is None for v in vals):
            continue
        waste = np.mean([v[1] for v in vals if v is not None])
        lines.append(f"| {h} | " + " | ".join(_f(v[0]) if v else "-" for v in vals) + f" | {waste:.1f} |")
    return [*lines, ""]


def _direction(d: float, paper_d: float, w: float, paper_w: float, tie: float = 3.0) -> str:
    """Whether a makespan and a waste difference go the paper's way (within ``tie`` % counts as a tie)."""

    def same(a, b):
        return abs(a) < tie if abs(b) < tie else ((a > 0) == (b > 0) and abs(a) >= tie / 2)

    ok_d, ok_w = same(d, paper_d), same(w, paper_w)
    return "yes" if ok_d and ok_w else "makespan only" if ok_d else "waste only" if ok_w else "no"


def claims(norm: dict) -> list[str]:
    """The paper's claims beside the measured figures."""
    rows = []

    def row(claim: str, paper: str, measured: str, verdict: str) -> None:
        rows.append(f"| {claim} | {paper} | {measured} | {verdict} |")

    to = [
        (p, t, m, norm[(p, t, m, "EXCL-PRED-TO")][0])
        for p in ("sdsc", "deug", "lri", "ucb")
        for t in TS
        for m in MINUTES
        if (p, t, m, "EXCL-PRED-TO") in norm
    ]
    worst = max(to, key=lambda x: x[3]) if to else None
    n_ok = sum(v <= 1.7 for *_, v in to)
    per = ", ".join(
        f"{p.upper()} {max(v for q, *_, v in to if q == p):.2f}"
        for p in ("sdsc", "deug", "lri", "ucb")
        if any(q == p for q, *_ in to)
    )
    row(
        "EXCL-PRED-TO within ~1.7 of optimal (SDSC, DEUG, LRI, UCB; every T x size)",
        "<= 1.7",
        f"{n_ok}/{len(to)} cells <= 1.7; worst per platform: {per}"
        + (f"; worst cell {worst[0]} T={worst[1]} {worst[2]:g} min {worst[3]:.2f}" if worst else ""),
        "yes" if to and n_ok == len(to) else "no",
    )
    for plat in ("sdsc", *[p for p in PLATFORMS if p != "sdsc"]):
        d = _pct_better(norm, plat, "PRI-CR", "FCFS")
        if d:
            row(
                f"PRI-CR ahead of FCFS ({plat.upper()})",
                "consistently (Section 4, SDSC)",
                f"PRI-CR better in {sum(x > 0 for x in d)}/{len(d)} cells, mean {np.mean(d):+.1f} %, "
                f"range {min(d):+.1f} .. {max(d):+.1f} %",
                "tie (one clock rate)"
                if all(x == 0 for x in d)
                else "yes"
                if all(x > 0 for x in d)
                else "mostly"
                if np.mean(d) > 0
                else "no",
            )
    for plat in ("sdsc", *[p for p in PLATFORMS if p != "sdsc"]):
        d = _pct_better(norm, plat, "PRI-CR-WAIT", "PRI-CR")
        if d:
            ahead = sum(x > 0.5 for x in d)
            row(
                f"PRI-CR-WAIT never ahead of PRI-CR ({plat.upper()})",
                "never surpasses (Section 4)",
                f"WAIT ahead by > 0.5 % in {ahead}/{len(d)} cells (best {max(d):+.1f} %)",
                "yes" if ahead == 0 else "no",
            )
    d = _pct_better(norm, "sdsc", "PRI-HISTORY", "PRI-CR")
    if d:
        row(
            "PRI-HISTORY poor compared to PRI-CR (SDSC)",
            "performs poorly (Section 4)",
            f"PRI-HISTORY better in {sum(x > 0 for x in d)}/{len(d)} cells, mean {np.mean(d):+.1f} %",
            "yes" if np.mean(d) < 0 else "no",
        )
    v = norm.get(("sdsc", 100, 5.0, "PRI-CR"))
    if v:
        row(
            "PRI-CR > 4x optimal for 100 x 5 min (SDSC)",
            "more than a factor of 4 (Section 4)",
            f"{v[0]:.2f}",
            "yes" if v[0] > 4 else "no",
        )
    paper = {100: 8, 200: 30, 400: 6}
    for T in TS:
        best = {
            h: np.mean([norm[("sdsc", T, m, h)][0] for m in MINUTES if ("sdsc", T, m, h) in norm])
            for h in ("EXCL-S1.5", "EXCL-S1", "EXCL-S.5", "EXCL-S.25")
        }
        d = _pct_better(norm, "sdsc", "EXCL-S.5", "PRI-CR", T)
        if d:
            ranked = sorted(best, key=best.get)
            row(
                f"EXCL-S.5 best fixed threshold, SDSC T={T}",
                f"best; {paper[T]} % better than PRI-CR",
                f"best: {ranked[0]} ({', '.join(f'{h} {best[h]:.2f}' for h in ranked)}); "
                f"EXCL-S.5 vs PRI-CR {np.mean(d):+.1f} % (sizes {', '.join(f'{x:+.0f}' for x in d)})",
                "yes" if ranked[0] == "EXCL-S.5" else "no",
            )
    for plat in ("sdsc", "gimps"):
        for T in TS:
            d = _pct_better(norm, plat, "EXCL-S.5", "EXCL-PRED", T)
            if d:
                row(
                    f"EXCL-S.5 beats EXCL-PRED, {plat.upper()} T={T}",
                    "yes (Section 5.2.1)",
                    f"{np.mean(d):+.1f} % (sizes {', '.join(f'{x:+.0f}' for x in d)})",
                    "yes" if np.mean(d) > 0 else "no",
                )
    for T in TS:
        d = _pct_better(norm, "lri-wisc", "EXCL-PRED", "EXCL-S.5", T)
        e = _pct_better(norm, "lri-wisc", "EXCL-PRED", "PRI-CR", T)
        if d:
            row(
                f"LRI-WISC T={T}: EXCL-PRED >= EXCL-S.5, tied with PRI-CR",
                "same or better" + (", 17 % better" if T == 400 else "") + "; tied with PRI-CR",
                f"vs EXCL-S.5 {np.mean(d):+.1f} % (sizes {', '.join(f'{x:+.0f}' for x in d)}); "
                f"vs PRI-CR {np.mean(e):+.1f} %",
                ("yes" if abs(np.mean(e)) < 5 else "partly") if np.mean(d) >= -3 else "no",
            )

    def paired(table: str, a: str, b: str, short: str, paper: dict, spec: str, cells: bool) -> None:
        """Table II / III rows: ``a`` against ``b``, makespan and waste, beside the paper's figures."""
        for plat, (pm, pw) in paper.items():
            d = _pct_better(norm, plat, a, b)
            w = _waste_less(norm, plat, a, b)
            if d:
                detail = (
                    f" (better in {sum(x > 0 for x in d)}/{len(d)} cells, best {max(d):+.1f} %)"
                    if cells
                    else ""
                )
                row(
                    f"{table}, {plat.upper()}: {a} vs {b} (+: {short} better)",
                    f"makespan {pm:{spec}} %, waste {pw:+.1f}",
                    f"makespan {np.mean(d):+.1f} %{detail}, waste {np.mean(w):+.1f}",
                    _direction(np.mean(d), pm, np.mean(w), pw),
                )

    paired(
        "Table III",
        "REP-PROB",
        "EXCL-PRED-TO",
        "REP-PROB",
        {"sdsc": (-4.0, -140.0), "deug": (-11.1, -37.5), "lri": (1.7, 3.3), "ucb": (13.1, -19.2)},
        "+.1f",
        True,
    )
    for plat in UCB_LRI:
        d = _pct_better(norm, plat, "REP-PROB", "EXCL-PRED-TO")
        if d:
            row(
                f"Figure 16, {plat.upper()}: REP-PROB vs EXCL-PRED-TO",
                "REP-PROB ahead by ~13 % or less, only near -15 % / -6 %",
                f"makespan {np.mean(d):+.1f} % (better in {sum(x > 0 for x in d)}/{len(d)}, "
                f"best {max(d):+.1f} %)",
                "yes" if np.mean(d) <= 13.1 else "no",
            )
    paired(
        "Table II",
        "EXCL-PRED-TO",
        "EXCL-PRED-DUP",
        "TO",
        {"sdsc": (0.06, 86.2), "deug": (-8.7, 39.0), "lri": (-10.8, 71.4), "ucb": (-17.5, 26.1)},
        "+.2f",
        False,
    )
    return ["| claim | paper | measured | reproduced |", "|---|---|---|---|", *rows, ""]


# --------------------------------------------------------------------------- figures
def figure(norm: dict, stem: str, plats: list[str], methods: list[str], folder: Path) -> Path | None:
    """One of the paper's figures in the house style (:mod:`volsched.plots`): a panel per platform and
    T, a bar per heuristic and task size rising from 1 (the optimum) to the mean makespan over the
    mean optimum, the heuristic's marker on its top; ``n`` runs under each task size. Platforms and T
    without a run are left out; nothing is drawn without any."""
    from matplotlib.lines import Line2D

    from volsched.plots import PAGE_WIDTH, marked_bars, new_figure, ratio_axis, save, series_styles

    styles = series_styles(ORDER)  # a heuristic looks the same in every figure

    def has(p, t):
        return any((p, t, m, h) in norm for m in MINUTES for h in methods)

    plats = [p for p in plats if any(has(p, t) for t in TS)]
    ts = [t for t in TS if any(has(p, t) for p in plats)]
    if not plats:
        return None
    height = 1.4 + (2.3 if len(plats) > 2 else 2.8) * len(plats)
    fig, axes = new_figure(len(plats), len(ts), height=height, width=PAGE_WIDTH, sharey="row")
    width = 0.8 / len(methods)
    x = np.arange(len(MINUTES))
    handles = {}
    for i, p in enumerate(plats):
        largest = max(norm[k][0] for k in norm if k[0] == p and k[3] in methods)
        for j, t in enumerate(ts):
            ax = axes[i, j]
            for k, h in enumerate(methods):
                ys = [norm.get((p, t, m, h), (np.nan,))[0] for m in MINUTES]
                pos = x + (k - (len(methods) - 1) / 2) * width
                handles[h] = marked_bars(ax, pos, ys, width, styles[h], bottom=1.0)
            ax.axhline(1.0, color="black", lw=0.8)
            if "replication" in stem:
                ax.axhline(1.7, color="0.4", lw=0.8, ls="--")
            runs = [
                next((norm[(p, t, m, h)][2] for h in methods if (p, t, m, h) in norm), 0) for m in MINUTES
            ]
            ax.set_xticks(x, [f"{m:g}\nn={n}" for m, n in zip(MINUTES, runs, strict=True)])
            ax.set_xlim(-0.5, len(MINUTES) - 0.5)
            ax.set_title(f"{p.upper()}, T = {t} tasks", fontsize=9)
            ax.grid(axis="y", alpha=0.3)
            if i == len(plats) - 1:
                ax.set_xlabel("task size (min on a dedicated 1.5 GHz host)", fontsize=8)
            if j == 0:
                ax.set_ylabel("mean makespan / mean optimum\n(ratio, no unit)", fontsize=8)
        ratio_axis(axes[i, 0], largest, axis="y")
    entries = [(handles[h], h) for h in methods]
    if "replication" in stem:
        entries.append((Line2D([], [], color="0.4", lw=0.8, ls="--"), "1.7: the paper's EXCL-PRED-TO bound"))
    fig.legend(
        [e for e, _ in entries],
        [name for _, name in entries],
        loc="outside lower center",
        ncol=min(len(entries), 6),
        fontsize=8,
    )
    return save(
        fig,
        folder / f"prescient-{stem}.png",
        f"{TITLES.get(stem, stem)}\nbars rise from 1 (the optimum); n: runs per bar (seeds all completed)",
    )


# --------------------------------------------------------------------------- diagnostics
def _instances(plats, seeds):
    from volsched.instances.prescient.platforms import generate_platform

    for p in plats:
        for t in TS:
            for m in MINUTES:
                for seed in seeds:
                    yield p, t, m, seed, generate_platform(p, 200, t, m, seed)


def _optimum(inst) -> float:
    from volsched.solvers.prescient.greedy import identical_optimum

    return float(identical_optimum(inst)["makespan"])


def predictor(seeds) -> None:
    from volsched.heuristics.prescient import History
    from volsched.instances.prescient import TraceWindow, WorkProfile

    print(
        "| platform | T | min | mu(prev. weekday)/opt - 1 | mu(start day's window)/opt - 1 | "
        "r(prev)/r(today) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for p, t, m, _, group in _grouped(["sdsc", "deug", "lri", "ucb"], seeds):
        e_prev, e_today, ratio = [], [], []
        for inst in group:
            s = float(inst.task_ops.mean())
            r_prev = History.of(inst, s).r
            w0, w1 = (x + 86400.0 for x in inst.history)  # the start's own weekday window (the next day's)
            today = WorkProfile(TraceWindow.cut(inst, w0, w1))
            r_today = History.of_profile(today, inst.n_hosts, (w0, w1), s).r
            opt = _optimum(inst)
            e_prev.append(math.ceil(t / 200) * s / r_prev / opt - 1)
            e_today.append(math.ceil(t / 200) * s / r_today / opt - 1)
            ratio.append(r_prev / r_today)
        print(
            f"| {p} | {t} | {m:g} | {100 * np.mean(e_prev):+.1f} % "
            f"(|err| {100 * np.mean(np.abs(e_prev)):.1f}) | "
            f"{100 * np.mean(e_today):+.1f} % (|err| {100 * np.mean(np.abs(e_today)):.1f}) | "
            f"{np.mean(ratio):.2f} ({min(ratio):.2f}-{max(ratio):.2f}) |",
            flush=True,
        )


def _grouped(plats, seeds):
    from itertools import groupby

    for key, items in groupby(_instances(plats, seeds), key=lambda x: x[:3]):
        yield (*key, None, [x[4] for x in items])


def _run(inst, name, seed, platform=None) -> tuple[float, float]:
    from volsched.heuristics.prescient import HEURISTICS, simulate

    run = simulate(inst, HEURISTICS[name], np.random.default_rng(seed), platform=platform)
    return (math.inf if run.makespan is None else run.makespan), run.waste


def oracle_theta(seeds, plats=("sdsc", "gimps", "lri-wisc")) -> None:
    from volsched.heuristics.prescient import Platform

    names = ["PRI-CR", "EXCL-S.5", "EXCL-PRED", "EXCL-PRED-TO"]
    print("| platform | T | min | " + " | ".join(names) + " | EXCL-PRED, oracle r | EXCL-PRED-TO, oracle r |")
    print("|---|---:|---:|" + "---:|" * (len(names) + 2))
    for p, t, m, _, group in _grouped(list(plats), seeds):
        sums = defaultdict(list)
        for seed, inst in zip(seeds, group, strict=True):
            opt = _optimum(inst)
            plat = Platform.of(inst)
            r_star = math.ceil(t / 200) * plat.s / opt
            oracle = dataclasses.replace(plat, history=dataclasses.replace(plat.history, r=r_star))
            for h in names:
                sums[h].append(_run(inst, h, seed)[0] / opt)
            sums["oracle-PRED"].append(_run(inst, "EXCL-PRED", seed, oracle)[0] / opt)
            sums["oracle-TO"].append(_run(inst, "EXCL-PRED-TO", seed, oracle)[0] / opt)
        print(
            f"| {p} | {t} | {m:g} | "
            + " | ".join(f"{np.mean(sums[h]):.2f}" for h in [*names, "oracle-PRED", "oracle-TO"])
            + " |",
            flush=True,
        )


def heartbeat(seeds, plats=("sdsc", "ucb")) -> None:
    from volsched.heuristics.prescient import simulator

    names = ["PRI-CR", "EXCL-PRED-DUP", "EXCL-PRED-TO", "REP-PROB"]
    rule = simulator.detection_time
    print("| platform | T | min | " + " | ".join(f"{h} next tick / +60 s" for h in names) + " |")
    print("|---|---:|---:|" + "---:|" * len(names))
    for p, t, m, _, group in _grouped(list(plats), seeds):
        res = defaultdict(lambda: ([], []))
        for seed, inst in zip(seeds, group, strict=True):
            opt = _optimum(inst)
            for h in names:
                simulator.detection_time = rule
                res[h][0].append(_run(inst, h, seed)[0] / opt)
                simulator.detection_time = lambda start, failure, heartbeat=60.0: failure + heartbeat
                try:
                    res[h][1].append(_run(inst, h, seed)[0] / opt)
                finally:
                    simulator.detection_time = rule
        print(
            f"| {p} | {t} | {m:g} | "
            + " | ".join(f"{np.mean(res[h][0]):.2f} / {np.mean(res[h][1]):.2f}" for h in names)
            + " |",
            flush=True,
        )


def last_host(seeds, plats=("sdsc", "gimps", "lri-wisc")) -> None:
    """Where each run's last task completed: the clock of its host, against the platform's slow tail."""
    names = ["PRI-CR", "EXCL-S.5", "EXCL-PRED", "EXCL-PRED-TO", "REP-PROB"]
    head = " | ".join(f"{h}: ratio, last task's host < 500 MHz" for h in names)
    print(f"| platform | T | min | {head} |")
    print("|---|---:|---:|" + "---:|" * len(names))
    from volsched.heuristics.prescient import HEURISTICS, simulate

    for p, t, m, _, group in _grouped(list(plats), seeds):
        res = defaultdict(lambda: ([], []))
        for seed, inst in zip(seeds, group, strict=True):
            opt = _optimum(inst)
            for h in names:
                run = simulate(inst, HEURISTICS[h], np.random.default_rng(seed))
                done = [a for a in run.attempts if a["outcome"] == "completed"]
                last = max(done, key=lambda a: a["end"])
                res[h][0].append(run.makespan / opt)
                res[h][1].append(inst.clock_mhz[last["host"]] < 500)
        cells = " | ".join(f"{np.mean(res[h][0]):.2f}, {sum(res[h][1])}/{len(seeds)}" for h in names)
        print(f"| {p} | {t} | {m:g} | {cells} |", flush=True)


def rep_prob(seeds, plats=("sdsc", "deug", "lri", "ucb")) -> None:
    """Where REP-PROB's replicas go: the share placed on hosts whose Equation 1 probability is 0.

    A replica started within ``X`` of ``D`` (or on a host that cannot finish
    by ``D``) has ``A = 0`` attempts, so it adds nothing to ``P(C_i <= D)``;
    the paper's loop still places it ("until there are no remaining hosts
    left", Section 6), and so does the family's REP-PROB. The what-if
    ``useful`` drops those replicas (a diagnostic, not a heuristic of the
    family), beside REP-PROB and EXCL-PRED-TO on the same instances.
    """
    from volsched.heuristics.prescient import HEURISTICS, simulate
    from volsched.heuristics.prescient.policies import RepProb

    counts = {"replicas": 0, "zero": 0}

    def zero_probability(policy, obs, out):
        hosts = np.array([a.host for a in out if a.replica], dtype=np.int64)
        if not hosts.size:
            return np.zeros(0, dtype=bool)
        return policy.success(obs, hosts, np.full(hosts.size, obs.t), obs.memory["D"]) <= 0.0

    class Counted(RepProb):
        def decide(self, obs, rng):
            out, wake = super().decide(obs, rng)
            zero = zero_probability(self, obs, out)
            counts["replicas"] += zero.size
            counts["zero"] += int(zero.sum())
            return out, wake

    class Useful(RepProb):
        def decide(self, obs, rng):
            out, wake = super().decide(obs, rng)
            zero = iter(zero_probability(self, obs, out).tolist())
            return [a for a in out if not a.replica or not next(zero)], wake

    variants = {"REP-PROB": Counted(), "useful": Useful(), "EXCL-PRED-TO": HEURISTICS["EXCL-PRED-TO"]}
    print(
        "| platform | T | min | "
        + " | ".join(f"{v}: ratio, waste %" for v in variants)
        + " | REP-PROB replicas with P = 0 |"
    )
    print("|---|---:|---:|" + "---:|" * (len(variants) + 1))
    for p, t, m, _, group in _grouped(list(plats), seeds):
        counts.update(replicas=0, zero=0)
        res = defaultdict(lambda: ([], []))
        opts = []
        for seed, inst in zip(seeds, group, strict=True):
            opts.append(_optimum(inst))
            for v, policy in variants.items():
                run = simulate(inst, policy, np.random.default_rng(seed))
                res[v][0].append(math.inf if run.makespan is None else run.makespan)
                res[v][1].append(run.waste)
        cells = " | ".join(
            f"{np.mean(res[v][0]) / np.mean(opts):.2f}, {np.mean(res[v][1]):.0f}" for v in variants
        )
        share = 100 * counts["zero"] / counts["replicas"] if counts["replicas"] else 0.0
        print(f"| {p} | {t} | {m:g} | {cells} | {share:.0f} % of {counts['replicas']} |", flush=True)


LAGGER_HEURISTICS = [
    "FCFS",
    "PRI-CR",
    "EXCL-S1.5",
    "EXCL-S1",
    "EXCL-S.5",
    "EXCL-S.25",
    "EXCL-PRED",
    "EXCL-PRED-TO",
]


def lagger_analysis(seeds, plats=("sdsc",)) -> None:
    """Section 3.4's lagger causes, pooled over the seeds of each T: what ``volsched evaluate`` reports.

    Per heuristic: laggers per run, and the share of them with a failure after
    Q3, on a host slower than the optimum's slowest, and with either cause
    (the paper: ">70%" for FCFS). Then, per T x size, the share of slow-host
    laggers of EXCL-S.5 against PRI-CR's (the paper: EXCL-S.5 "eliminates the
    highest percentage of laggers caused by slow hosts", a reduction "as high
    as ~60%").
    """
    from volsched.evaluate import evaluate
    from volsched.families import FAMILIES

    family = FAMILIES["prescient"]
    keys = ("laggers", "laggers_failure", "laggers_slow_host", "laggers_explained")
    for p in plats:
        pooled = defaultdict(lambda: np.zeros(5))  # (plat, T, h) -> runs, then the four counts
        cells = defaultdict(lambda: np.zeros(4))  # (T, m, h) -> the four counts
        for _, t, m, seed, inst in _instances([p], seeds):
            report = evaluate(family, inst, heuristics=LAGGER_HEURISTICS, seed=seed)
            for h, pol in report["policies"].items():
                counts = np.array([pol[k] for k in keys], dtype=float)
                pooled[t, h] += np.concatenate([[1.0], counts])
                cells[t, m, h] += counts
        print(
            f"\n{p}: laggers per run; % of laggers with a failure after Q3 / on a host slower than the "
            f"optimum's slowest / either ({len(seeds)} seeds x 3 task sizes per T)\n"
        )
        print("| heuristic | " + " | ".join(f"T = {t}: per run, fail / slow / either %" for t in TS) + " |")
        print("|---|" + "---:|" * len(TS))
        for h in LAGGER_HEURISTICS:
            row = []
            for t in TS:
                runs, lag, *causes = pooled[t, h]
                pct = " / ".join(f"{100 * x / lag:.0f}" if lag else "-" for x in causes)
                row.append(f"{lag / runs:.1f}, {pct}")
            print(f"| {h} | " + " | ".join(row) + " |")
        print("\n| T | min | slow-host laggers % PRI-CR | EXCL-S.5 | reduction | lowest % |")
        print("|---:|---:|---:|---:|---:|---|")
        for t in TS:
            for m in MINUTES:
                share = {
                    h: (100 * cells[t, m, h][2] / cells[t, m, h][0] if cells[t, m, h][0] else 0.0)
                    for h in LAGGER_HEURISTICS
                }
                low = min(share, key=lambda h: (share[h], LAGGER_HEURISTICS.index(h)))
                base, s5 = share["PRI-CR"], share["EXCL-S.5"]
                red = f"{100 * (base - s5) / base:.0f} %" if base else "-"
                print(
                    f"| {t} | {m:g} | {base:.0f} | {s5:.0f} | {red} | {low} ({share[low]:.0f}) |", flush=True
                )


def tail(seeds, floor: float, plats=("sdsc",)) -> None:
    """The same instances with every clock below ``floor`` MHz raised to it (a what-if on the slow tail)."""
    names = ["PRI-CR", "EXCL-S.5", "EXCL-PRED", "EXCL-PRED-DUP", "EXCL-PRED-TO", "REP-PROB"]
    print("| platform | T | min | " + " | ".join(f"{h} as drawn / floor {floor:g}" for h in names) + " |")
    print("|---|---:|---:|" + "---:|" * len(names))
    for p, t, m, _, group in _grouped(list(plats), seeds):
        res = defaultdict(lambda: ([], []))
        for seed, inst in zip(seeds, group, strict=True):
            raised = dataclasses.replace(inst, clock_mhz=np.maximum(inst.clock_mhz, floor))
            opt, opt_raised = _optimum(inst), _optimum(raised)
            for h in names:
                res[h][0].append(_run(inst, h, seed)[0] / opt)
                res[h][1].append(_run(raised, h, seed)[0] / opt_raised)
        cells = " | ".join(f"{np.mean(res[h][0]):.2f} / {np.mean(res[h][1]):.2f}" for h in names)
        print(f"| {p} | {t} | {m:g} | {cells} |", flush=True)


def trace(plat: str, T: int, minutes: float, seed: int, names: list[str]) -> None:
    """The prediction, the revert instant and every attempt of each run's last task (times from t0)."""
    from volsched.heuristics.prescient import Platform
    from volsched.instances.prescient.platforms import generate_platform

    inst = generate_platform(plat, 200, T, minutes, seed)
    p = Platform.of(inst)
    theta = math.ceil(T / p.N) * p.s / p.history.r
    print(
        f"{plat} T={T} {minutes:g} min seed {seed}: optimum {_optimum(inst):.0f} s, theta {theta:.0f} s, "
        f"revert at {theta - 0.95 * p.s / p.mean_speed:.0f} s"
    )
    from volsched.heuristics.prescient import HEURISTICS, simulate

    for h in names:
        run = simulate(inst, HEURISTICS[h], np.random.default_rng(seed))
        done = [a for a in run.attempts if a["outcome"] == "completed"]
        task = max(done, key=lambda a: a["end"])["task"]
        print(f"  {h}: makespan {run.makespan:.0f} s, waste {run.waste:.0f}; last task {task}:")
        for a in (a for a in run.attempts if a["task"] == task):
            print(
                f"    host {a['host']} ({inst.clock_mhz[a['host']]:.0f} MHz) {a['start'] - inst.start:.0f}-"
                f"{a['end'] - inst.start:.0f} s {a['outcome']}{' (replica)' if a['replica'] else ''}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "store",
        nargs="*",
        help="stores filled by the kondo2007 preset (several: read as one), or one prescient-cells.json",
    )
    ap.add_argument("--figures", default=str(Path(__file__).parent / "figures"), help="folder of the figures")
    ap.add_argument("--predictor", action="store_true", help="the predictor's error against the optimum")
    ap.add_argument("--oracle-theta", action="store_true", help="EXCL-PRED(-TO) with a prescient r")
    ap.add_argument("--heartbeat", action="store_true", help="next-tick against constant 60 s detection")
    ap.add_argument("--last-host", action="store_true", help="the clock of the host of each run's last task")
    ap.add_argument("--tail", type=float, metavar="MHZ", help="SDSC with every clock below MHZ raised to it")
    ap.add_argument(
        "--trace",
        nargs=5,
        metavar=("PLATFORM", "T", "MIN", "SEED", "HEURISTICS"),
        help="the last task's attempts of each run (HEURISTICS comma-separated)",
    )
    ap.add_argument("--laggers", metavar="PLATFORM", help="Section 3.4's lagger causes per heuristic")
    ap.add_argument("--rep-prob", action="store_true", help="REP-PROB's zero-probability replicas")
    ap.add_argument("--seeds", type=int, default=4, help="seeds per cell of the diagnostics")
    a = ap.parse_args()
    seeds = list(range(a.seeds))
    if a.predictor:
        predictor(seeds)
    if a.oracle_theta:
        oracle_theta(seeds)
    if a.heartbeat:
        heartbeat(seeds)
    if a.last_host:
        last_host(seeds)
    if a.tail:
        tail(seeds, a.tail)
    if a.rep_prob:
        rep_prob(seeds)
    if a.laggers:
        lagger_analysis(seeds, (a.laggers,))
    if a.trace:
        plat, T, m, seed, names = a.trace
        trace(plat, int(T), float(m), int(seed), names.split(","))
    if a.store:
        if len(a.store) == 1 and a.store[0].endswith(".json"):
            norm = load_cells(a.store[0])
        else:
            norm = normalised(load(a.store))
            Path(a.figures).mkdir(parents=True, exist_ok=True)
            print(f"wrote {save_cells(norm, Path(a.figures) / 'prescient-cells.json')}")
        for p in PLATFORMS:
            print("\n".join(platform_table(norm, p, ORDER)))
        for p in UCB_LRI:
            print("\n".join(platform_table(norm, p, ["EXCL-PRED-TO", "REP-PROB"])))
        print("\n".join(claims(norm)))
        for stem, plats, methods in FIGURES:
            path = figure(norm, stem, plats, methods, Path(a.figures))
            if path:
                print(f"wrote {path}")
        path = figure(norm, "ucb-lri", UCB_LRI, ["EXCL-PRED-TO", "REP-PROB"], Path(a.figures))
        if path:
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
