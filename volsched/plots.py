"""Figures (matplotlib, headless)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import ScalarFormatter

if TYPE_CHECKING:
    from pathlib import Path


def ratio_bars(labels: list[str], ratios: dict[str, list[float]], path: Path, title: str) -> Path:
    """Grouped bars: one group per instance, one bar per heuristic, ratio to the optimum."""
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(labels) + 2), 4.2))
    width = 0.8 / max(1, len(ratios))
    x = np.arange(len(labels))
    for k, (name, values) in enumerate(ratios.items()):
        ax.bar(x + (k - (len(ratios) - 1) / 2) * width, values, width, label=name)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.yaxis.set_minor_formatter(ScalarFormatter())
    ax.set_ylabel("expected waste / optimum (log)")
    ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def bot_figure(rows: list[dict], clients: int, path: Path) -> Path:
    """The paper's Figure layout for one client count: (a) makespan, (b) wasted time per client."""
    rows = [r for r in rows if r["clients"] == clients]
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    jobs = sorted({r["jobs"] for r in rows})
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for policy in policies:
        pts = sorted((r["jobs"], r["makespan"]) for r in rows if r["policy"] == policy)
        left.plot(
            [j for j, _ in pts], [np.nan if v is None else v / 60 for _, v in pts], marker="o", label=policy
        )
    left.set_xlabel("jobs in the BoT")
    left.set_ylabel("maximum completion time (h)")
    left.set_title(f"(a) BoT completion time, {clients} clients")
    left.legend(fontsize=8)
    width = 0.8 / len(policies)
    x = np.arange(len(jobs))
    for k, policy in enumerate(policies):
        by_jobs = {r["jobs"]: r for r in rows if r["policy"] == policy}
        ckpt = [by_jobs[j]["wasted_checkpoint"] / 60 / clients for j in jobs]
        lost = [by_jobs[j]["wasted_lost"] / 60 / clients for j in jobs]
        pos = x + (k - (len(policies) - 1) / 2) * width
        bars = right.bar(pos, ckpt, width, label=f"{policy}: checkpoint overhead")
        right.bar(
            pos,
            lost,
            width,
            bottom=ckpt,
            hatch="//",
            color=bars.patches[0].get_facecolor(),
            alpha=0.5,
            label=f"{policy}: lost computation",
        )
    right.set_xticks(x, [str(j) for j in jobs])
    right.set_xlabel("jobs in the BoT")
    right.set_ylabel("wasted time per client (h)")
    right.set_title(f"(b) overall wasted time, {clients} clients")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
