"""Figures (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first
import numpy as np  # noqa: E402
from matplotlib.ticker import ScalarFormatter  # noqa: E402


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
