"""The coupled family's part of ``volsched demo``: every exact method side by side, and K iterations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tqdm import tqdm

from volsched.families import DemoPart
from volsched.families.coupled.family import FAMILY
from volsched.instances.coupled import generate_markov, generate_planted, paper_realization
from volsched.instances.io import write_json

if TYPE_CHECKING:
    from pathlib import Path

#: The demo's work budgets, in each method's unit: its results are the same on every machine.
BUDGETS = {"bnb": 1_000_000, "cpsat": 10.0, "greedy": 100_000}
#: The wall-clock safety net of each solve (seconds); the budgets decide long before on 2 cores.
SAFETY_S = 300


def _cell(value, status) -> str:
    return status.value if value is None else f"{value:.0f}"


def _solve(family, instance, method, problem=None):
    return family.solve(
        instance, problem=problem, method=method, budget=BUDGETS.get(method), time_limit=SAFETY_S
    )


def demo(out: Path, quiet: bool, full: bool, seed: int):
    """OFF-LINE-COUPLED (mu = 1) by every method; ``iterations`` and ``full`` on paper realizations."""
    methods = list(FAMILY.problems["offline-coupled"].methods)
    instances = [generate_markov(14, 120, m, k) for k, m in enumerate((3, 5, 8))]
    instances.append(generate_planted(14, 120, 6, 30, 0.5, 0))
    rows, lines = (
        [],
        [
            "coupled OFF-LINE-COUPLED (mu = 1): most slots with m processors all UP",
            f"{'instance':<40} " + " ".join(f"{m:>14}" for m in methods),
        ],
    )
    for instance in tqdm(instances, desc="coupled: exact methods", disable=quiet, leave=False):
        write_json(out / "instances" / f"{instance.name}.json", instance.to_json())
        results = {m: _solve(FAMILY, instance, m) for m in methods}
        rows.append({"instance": instance.name, **{m: r.to_dict() for m, r in results.items()}})
        lines.append(
            f"{instance.name:<40} "
            + " ".join(f"{_cell(r.objective, r.status):>5} {r.status.value:<8}" for r in results.values())
        )

    realizations = [paper_realization(m, 5, w_min, 0, 0) for m, w_min in ((5, 1), (5, 3), (10, 1), (10, 3))]
    iteration_rows = []
    lines += [
        "",
        "coupled, 10 iterations on Section VII-A realizations (H = 2000): optimum without "
        "communication (iterations) and bounds with it (full, greedy)",
        f"{'instance':<44} {'iterations':>12} {'full':>10} {'full bound':>11} {'gap':>6}",
    ]
    for instance in tqdm(realizations, desc="coupled: iterations and full", disable=quiet, leave=False):
        write_json(out / "instances" / f"{instance.name}.json", instance.to_json())
        relaxed = FAMILY.solve(instance, problem="iterations")
        bounds = _solve(FAMILY, instance, "greedy", "full")
        iteration_rows.append(
            {"instance": instance.name, "iterations": relaxed.to_dict(), "full": bounds.to_dict()}
        )
        lines.append(
            f"{instance.name:<44} {_cell(relaxed.objective, relaxed.status):>12} "
            f"{_cell(bounds.objective, bounds.status):>10} {_cell(bounds.bound, bounds.status):>11} "
            f"{'' if bounds.gap is None else f'{bounds.gap:.2f}':>6}"
        )
    figure(rows, iteration_rows, methods, out / "coupled-methods.png")
    return DemoPart({"rows": rows, "iterations": iteration_rows}, lines)


def _short(name: str) -> str:
    return name.removeprefix("coupled-")


def figure(rows: list[dict], iteration_rows: list[dict], methods: list[str], path: Path) -> Path:
    """(a) OFF-LINE-COUPLED's optimum by every exact method per instance, (b) the ``iterations``
    optimum and the ``full`` problem's [incumbent, bound] per realization; proven values filled,
    unproven ones as their interval (:func:`volsched.plots.proven_or_interval`)."""
    from matplotlib.lines import Line2D

    from volsched.plots import (
        COLOURS,
        MARKERS,
        Style,
        new_figure,
        proof_key,
        proven_or_interval,
        save,
        series_styles,
    )

    fig, axes = new_figure(1, 2, height=5.6)
    left, right = axes[0]
    styles = series_styles(methods)
    step = 0.6 / max(1, len(methods))
    for i, row in enumerate(rows):
        for k, method in enumerate(methods):
            r = row[method]
            proven = r["objective"] if r["status"] == "optimal" else None
            x = i + (k - (len(methods) - 1) / 2) * step
            proven_or_interval(left, x, proven, r["objective"], r["bound"], styles[method], ms=6)
    left.set_xticks(
        range(len(rows)), [_short(r["instance"]) for r in rows], rotation=20, ha="right", fontsize=8
    )
    left.set_ylabel("slots with m processors all UP (slots)")
    left.set_xlabel("instance")
    left.set_title("(a) OFF-LINE-COUPLED (mu = 1) by each exact method", fontsize=9)
    problems = {"iterations": "iterations (no communication)", "full": "full (greedy)"}
    # colours and markers after the methods', so that one legend tells all six apart
    pstyles = {label: Style(COLOURS[4 + k], MARKERS[4 + k]) for k, label in enumerate(problems.values())}
    for i, row in enumerate(iteration_rows):
        for k, (key, label) in enumerate(problems.items()):
            r = row[key]
            proven = r["objective"] if r["status"] == "optimal" else None
            proven_or_interval(
                right, i + (k - 0.5) * 0.25, proven, r["objective"], r["bound"], pstyles[label], ms=6
            )
    right.set_xticks(
        range(len(iteration_rows)),
        [_short(r["instance"]) for r in iteration_rows],
        rotation=20,
        ha="right",
        fontsize=8,
    )
    right.set_ylabel("makespan of 10 iterations (slots)")
    right.set_xlabel("Section VII-A realization")
    right.set_title("(b) 10 iterations: optimum of iterations, bounds of full", fontsize=9)
    handles = [
        Line2D([], [], label=name, color=style.colour, marker=style.marker, linestyle="none")
        for name, style in {**{f"method {m}": styles[m] for m in methods}, **pstyles}.items()
    ]
    fig.legend(handles=handles + proof_key(), loc="outside lower center", ncol=4, fontsize=8)
    for ax in (left, right):
        ax.grid(axis="y", alpha=0.3)
    return save(fig, path, "coupled: exact methods and problems on the demo instances")
