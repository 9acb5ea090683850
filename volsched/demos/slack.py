"""The slack family's part of ``volsched demo``: exact optima at three betas, GAPS and the baselines."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from volsched.evaluate import evaluate
from volsched.families import DemoPart
from volsched.families.slack.family import FAMILY
from volsched.instances.io import write_json
from volsched.instances.slack.generators import generate_planted, generate_theorem2

if TYPE_CHECKING:
    from pathlib import Path

BETAS = (0.0, 0.5, 1.0)


def demo(out: Path, quiet: bool, full: bool, seed: int):
    """Slack optima by beta, the plain optimum, and each heuristic's ratio and stability (sampled)."""

    instances = [generate_theorem2(4, 12, seed), generate_planted(2, 13, seed, "yes")]
    rows = []
    lines = [
        "slack: minimum makespan under the slack rule (Canon et al. 2011), GAPS(beta) and the baselines",
        f"{'instance':<34} {'beta':>4} {'slack opt':>9} {'plain opt':>9} "
        + " ".join(f"{h + ' ratio / stab.':>20}" for h in FAMILY.heuristics),
    ]
    for base in tqdm(instances, desc="slack: betas", disable=quiet, leave=False):
        write_json(out / "instances" / f"{base.name}.json", base.to_json())
        for beta in BETAS:
            report = evaluate(FAMILY, base.with_beta(beta), seed=seed, budget=BUDGET, time_limit=SAFETY_S)
            rows.append({"instance": base.name, "beta": beta, **report})
            slack, plain = report["optima"]["slack"], report["optima"]["plain"]
            cells = " ".join(
                f"{_ratio(p['ratio'])} / {p['stability']:>6.3f}".rjust(20)
                for p in report["policies"].values()
            )
            lines.append(
                f"{base.name:<34} {beta:>4.1f} {_value(slack['optimum'])} {_value(plain['optimum'])} {cells}"
            )
    lines.append(
        "(gaps is scored against the slack optimum at its beta, lpt and list against the plain one; "
        "stability: median of 30 sampled disturbances over the schedule's own makespan)"
    )
    figure(rows, out / "slack-betas.png")
    return DemoPart({"rows": rows}, lines)


def figure(rows: list[dict], path: Path) -> Path:
    """Per heuristic (colour) and instance (marker, line style): (a) the ratio to the exact optimum of
    its problem and (b) the stability, against beta; an unproven optimum's ratio is drawn as its
    interval (:func:`volsched.plots.proven_or_interval`)."""
    from volsched.plots import COLOURS, MARKERS, Style, grouped_legend, new_figure, proven_or_interval, save

    heuristics = list(dict.fromkeys(h for r in rows for h in r["policies"]))
    instances = list(dict.fromkeys(r["instance"] for r in rows))
    styles = {
        (h, i): Style(COLOURS[a], MARKERS[b], ("-", "--", ":")[b % 3], i)
        for b, i in enumerate(instances)
        for a, h in enumerate(heuristics)
    }
    fig, axes = new_figure(1, 2, height=5.2)
    left, right = axes[0]
    for k, ((h, i), style) in enumerate(styles.items()):
        mine = sorted((r for r in rows if r["instance"] == i and h in r["policies"]), key=lambda r: r["beta"])
        # a small shift per series, so that equal values (many ratios of 1) stay visible
        shift = (k - (len(styles) - 1) / 2) * 0.012
        betas = [r["beta"] + shift for r in mine]
        for r in mine:
            p = r["policies"][h]
            proven_or_interval(
                left, r["beta"] + shift, p["ratio"], p.get("ratio_lo"), p.get("ratio_hi"), style, ms=6
            )
        left.plot(
            betas,
            [r["policies"][h]["ratio"] or np.nan for r in mine],
            color=style.colour,
            linestyle=style.linestyle,
            linewidth=1,
        )
        right.plot(betas, [r["policies"][h]["stability"] for r in mine], **style.line(), ms=6)
    for ax in (left, right):
        ax.set_xticks(BETAS, [f"{b:g}" for b in BETAS])
        ax.set_xlabel("beta (the slack rule's parameter, 0 to 1)")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.grid(alpha=0.3)
    left.set_ylabel("makespan / exact optimum of its problem (no unit)")
    left.set_title("(a) ratio to the optimum (gaps: slack problem; lpt, list: plain)", fontsize=9)
    right.set_ylabel("stability: disturbed / own makespan (no unit)")
    right.set_title("(b) stability, median of 30 sampled disturbances", fontsize=9)
    legend = {}
    for (h, i), s in styles.items():
        legend[f"{h} ({i})"] = Style(s.colour, s.marker, s.linestyle, i)
    grouped_legend(fig, legend, loc="outside lower center", fontsize=7)
    return save(
        fig, path, "slack: GAPS and the baselines against beta (Canon et al. 2011), n = 1 run per point"
    )


#: CP-SAT deterministic time per exact solve (the same result on every machine); the time limit
#: (seconds) is only the safety net.
BUDGET = 10.0
SAFETY_S = 300


def _value(x) -> str:
    return f"{'unproven':>9}" if x is None else f"{x:>9.0f}"


def _ratio(x) -> str:
    return "n/a" if x is None else f"{x:.3f}"
