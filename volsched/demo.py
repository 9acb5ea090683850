"""``volsched demo``: every family end to end on seeded instances.

For each family present it generates instances, solves them exactly
(verified), cross-checks the exact methods against each other, scores every
heuristic against the optimum (checkpoint; the coupled family's on-line
heuristics are still to come), prints tables and writes the instances, the
results and PNG plots to the output folder.
"""

from __future__ import annotations

import time
from pathlib import Path

from tqdm import tqdm

from volsched.instances.checkpoint import LAW_CHOICES, generate
from volsched.instances.coupled import generate_markov, generate_planted, paper_realization
from volsched.instances.io import write_json

from .checkpoint_bot import PAPER_CLIENTS, PAPER_JOBS, reproduce
from .evaluate import evaluate
from .families import FAMILIES
from .plots import ratio_bars

#: Slices of the paper's length (1-5 h, where checkpointing every slice is hard
#: to beat) and short ones (3-30 min, where the placement matters).
DEMO_SLICE_HOURS = {"paper": (1.0, 5.0), "short": (0.05, 0.5)}
DEMO_SLICES = 30
#: A small bag of tasks for the demo; ``--full`` runs the paper's sizes.
DEMO_BOT_CLIENTS = (500,)
DEMO_BOT_JOBS = (50, 100)


def _checkpoint_part(out: Path, quiet: bool) -> tuple[dict, list[str]]:
    family = FAMILIES["checkpoint"]
    jobs = [(law, label, hours) for label, hours in DEMO_SLICE_HOURS.items() for law in LAW_CHOICES]
    rows, reports = [], []
    for seed, (law, label, hours) in enumerate(tqdm(jobs, desc="checkpoint: solve + score",
                                                    disable=quiet, leave=False)):
        instance = generate(DEMO_SLICES, seed, law=law, slice_hours=hours)
        write_json(out / "instances" / f"{instance.name}.json", instance.to_json())
        report = evaluate(family, instance)
        reports.append(report)
        rows.append((f"{law}/{label}", report))

    # Cross-method agreement on one instance small enough for enumeration.
    small = generate(12, 0, law="weibull", slice_hours=DEMO_SLICE_HOURS["short"])
    agreement = {m: family.solve(small, method=m).objective for m in family.methods}
    spread = max(agreement.values()) - min(agreement.values())

    names = list(family.heuristics)
    ratio_bars([label for label, _ in rows],
               {name: [r["policies"][name]["ratio"] for _, r in rows] for name in names},
               out / "checkpoint-ratios.png",
               f"Checkpoint policies vs. the optimum (n = {DEMO_SLICES} slices)")
    header = f"{'instance':<26} {'optimum':>9} " + " ".join(f"{n:>7}" for n in names)
    lines = ["checkpoint: expected wasted time (minutes) and heuristic/optimum ratios", header]
    for label, r in rows:
        lines.append(f"{label:<26} {r['optimum']:>9.3f} "
                     + " ".join(f"{r['policies'][n]['ratio']:>7.3f}" for n in names))
    lines.append(f"exact methods on {small.name}: "
                 + ", ".join(f"{m} {v:.9f}" for m, v in agreement.items())
                 + f" (spread {spread:.1e})")
    return {"reports": reports, "agreement": agreement}, lines


def _coupled_part(out: Path, quiet: bool) -> tuple[dict, list[str]]:
    """OFF-LINE-COUPLED (mu = 1) on small instances, every exact method side by side."""
    family = FAMILIES["coupled"]
    instances = [generate_markov(14, 120, m, seed) for seed, m in enumerate((3, 5, 8))]
    instances.append(generate_planted(14, 120, 6, 30, 0.5, 0))
    rows, lines = [], ["coupled OFF-LINE-COUPLED (mu = 1): most slots with m processors all UP",
                       f"{'instance':<40} " + " ".join(f"{m:>14}" for m in family.methods)]
    for instance in tqdm(instances, desc="coupled: exact methods", disable=quiet, leave=False):
        write_json(out / "instances" / f"{instance.name}.json", instance.to_json())
        results = {m: family.solve(instance, method=m, time_limit=10) for m in family.methods}
        rows.append({"instance": instance.name, **{m: r.to_dict() for m, r in results.items()}})
        lines.append(f"{instance.name:<40} " + " ".join(
            f"{r.objective:>5.0f} {r.status.value:<8}" for r in results.values()))
    iteration_rows, more = _coupled_iterations_part(out, quiet)
    return {"rows": rows, "iterations": iteration_rows}, lines + more


def _coupled_iterations_part(out: Path, quiet: bool) -> tuple[list[dict], list[str]]:
    """Makespan of K = 10 iterations on paper realizations: ``iterations`` (exact) and ``full`` (bounds)."""
    family = FAMILIES["coupled"]
    instances = [paper_realization(m, 5, w_min, 0, 0) for m, w_min in ((5, 1), (5, 3), (10, 1), (10, 3))]
    rows = []
    lines = ["", "coupled, 10 iterations on Section VII-A realizations (H = 2000): optimum without "
             "communication (iterations) and bounds with it (full)",
             f"{'instance':<44} {'iterations':>12} {'full':>10} {'full bound':>11} {'gap':>6}"]
    for instance in tqdm(instances, desc="coupled: iterations and full", disable=quiet, leave=False):
        write_json(out / "instances" / f"{instance.name}.json", instance.to_json())
        relaxed = family.solve(instance, problem="iterations")
        full = family.solve(instance, problem="full", time_limit=10)
        rows.append({"instance": instance.name, "iterations": relaxed.to_dict(), "full": full.to_dict()})
        lines.append(f"{instance.name:<44} {_cell(relaxed.objective, relaxed.status):>12} "
                     f"{_cell(full.objective, full.status):>10} {full.bound or float('nan'):>11.0f} "
                     f"{'' if full.gap is None else f'{full.gap:.2f}':>6}")
    return rows, lines


def _cell(value, status) -> str:
    return status.value if value is None else f"{value:.0f}"


def _bot_part(out: Path, clients, jobs, seed: int) -> tuple[dict, list[str]]:
    res = reproduce(out, clients=clients, jobs=jobs, seed=seed)
    (out / "table.md").write_text(res["table"] + "\n")
    write_json(out / "rows.json", res["rows"])
    lines = [f"checkpoint bag of tasks (Section IV; seed {seed}): optimal vs. periodic (Daly) "
             "vs. no checkpoint", res["table"]]
    return res, lines


def run_demo(out: Path, full: bool = False, quiet: bool = False, seed: int = 0) -> dict:
    """Run the demo into ``out``; return a summary whose ``text`` is the printed report.

    With ``full``, the bag-of-tasks part runs the paper's 3 x 6 grid of client
    and job counts (Figures 1-3), which takes hours on 2 cores, instead of a
    small platform.
    """
    begin = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    results, lines = _checkpoint_part(out, quiet)
    coupled, coupled_lines = _coupled_part(out, quiet)
    lines += ["", *coupled_lines]
    bot_dir = out / ("reproduction" if full else "bot")
    bot, bot_lines = _bot_part(bot_dir, PAPER_CLIENTS if full else DEMO_BOT_CLIENTS,
                               PAPER_JOBS if full else DEMO_BOT_JOBS, seed)
    results["bot"] = bot["rows"]
    lines += ["", *bot_lines]
    write_json(out / "results.json", {"checkpoint": results, "coupled": coupled})
    elapsed = time.perf_counter() - begin
    lines.append(f"\nwrote {out}/: instances/, results.json, checkpoint-ratios.png, "
                 f"{bot_dir.name}/ (table.md, rows.json, figures) in {elapsed:.1f} s")
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    return {"out": str(out), "files": files, "elapsed_s": elapsed, "text": "\n".join(lines)}
