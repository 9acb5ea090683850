"""The prescient family's part of ``volsched demo``: the prescient optimum, the 12 heuristics against it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tqdm import tqdm

from volsched.evaluate import evaluate
from volsched.families import DemoPart
from volsched.families.prescient.family import FAMILY
from volsched.instances.io import write_json
from volsched.instances.prescient.platforms import generate_platform

if TYPE_CHECKING:
    from pathlib import Path

CASES = (("sdsc", 100, 15.0), ("lri-wisc", 200, 5.0))


def demo(out: Path, quiet: bool, full: bool, seed: int):
    """Per case, the optimum (seconds after submission), each heuristic's makespan / optimum and waste."""

    rows = []
    names = list(FAMILY.heuristics)
    lines = [
        "prescient: makespan / prescient optimum of identical tasks (Kondo et al. 2007), 60 hosts; "
        "waste in % of T",
        f"{'heuristic':<14} " + " ".join(f"{f'{p} T={t} {m:g} min':>24}" for p, t, m in CASES),
    ]
    cells: dict[str, list[str]] = {name: [] for name in names}
    optima = []
    for platform, tasks, minutes in tqdm(CASES, desc="prescient: platforms", disable=quiet, leave=False):
        instance = generate_platform(platform, 60, tasks, minutes, seed, days=2)
        write_json(out / "instances" / f"{instance.name}.json", instance.to_json())
        report = evaluate(FAMILY, instance, seed=seed)
        rows.append(report)
        optima.append(f"{report['optimum']:.0f} s" if report["optimum"] is not None else "unproven")
        for name in names:
            p = report["policies"].get(name)
            cells[name].append("skipped" if p is None else f"{p['ratio']:.3f} (waste {p['waste']:.0f})")
    lines.append(f"{'optimum':<14} " + " ".join(f"{o:>24}" for o in optima))
    lines += [f"{name:<14} " + " ".join(f"{c:>24}" for c in cells[name]) for name in names]
    figure(rows, names, [f"{p}, T={t}, {m:g} min" for p, t, m in CASES], out / "prescient-ratios.png")
    return DemoPart({"reports": rows}, lines)


def figure(reports: list[dict], names: list[str], cases: list[str], path: Path) -> Path:
    """Each heuristic's makespan over the prescient optimum, one series per case: filled where the
    optimum is proven, else the ratio interval (:func:`volsched.plots.proven_or_interval`); a
    skipped heuristic is named in its row."""
    from matplotlib.lines import Line2D

    from volsched.plots import (
        new_figure,
        proof_key,
        proven_or_interval,
        ratio_axis,
        save,
        series_styles,
    )

    styles = series_styles(cases)
    fig, axes = new_figure(height=5.5)
    ax = axes[0, 0]
    y = list(range(len(names)))[::-1]
    skipped: dict[str, int] = {}
    largest = 1.0
    for k, (report, case) in enumerate(zip(reports, cases, strict=True)):
        for name, row in zip(names, y, strict=True):
            p = report["policies"].get(name)
            if p is None:
                skipped[name] = skipped.get(name, 0) + 1
                continue
            offset = (k - (len(cases) - 1) / 2) * 0.25
            proven = p["ratio"]
            lo, hi = p.get("ratio_lo", proven), p.get("ratio_hi", proven)
            proven_or_interval(ax, row + offset, proven, lo, hi, styles[case], vertical=False, ms=6)
            largest = max(largest, *(v for v in (proven, lo, hi) if v is not None))
    labels = [f"{n} (skipped in {skipped[n]})" if n in skipped else n for n in names]
    ax.set_yticks(y, labels, fontsize=8)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ratio_axis(ax, largest)
    ax.set_xlabel("makespan / prescient optimum (ratio, no unit)")
    ax.set_title(
        "60 hosts, 2 days of trace; n = 1 run per case and heuristic (case: platform, tasks T, task length)",
        fontsize=9,
    )
    ax.grid(axis="x", alpha=0.3)
    handles = [
        Line2D([], [], label=case, color=s.colour, marker=s.marker, linestyle="none")
        for case, s in styles.items()
    ]
    fig.legend(handles=handles + proof_key(), loc="outside lower center", ncol=2, fontsize=8)
    return save(
        fig, path, "prescient: the 12 heuristics of Kondo et al. (2007) against the prescient optimum"
    )
