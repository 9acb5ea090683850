"""The checkpoint family's part of ``volsched demo``: policies vs. the optimum, and the bag of tasks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tqdm import tqdm

from volsched.evaluate import evaluate
from volsched.families import DemoPart
from volsched.families.checkpoint.bot import PAPER_CLIENTS, PAPER_JOBS, reproduce
from volsched.families.checkpoint.family import FAMILY
from volsched.instances.checkpoint import LAW_CHOICES, generate
from volsched.instances.io import write_json
from volsched.plots import ratio_points

if TYPE_CHECKING:
    from pathlib import Path

#: Slices of the paper's length (1-5 h, where checkpointing every slice is hard
#: to beat) and short ones (3-30 min, where the placement matters).
DEMO_SLICE_HOURS = {"paper": (1.0, 5.0), "short": (0.05, 0.5)}
DEMO_SLICES = 30
#: A small bag of tasks for the demo; ``--full`` runs the paper's sizes.
DEMO_BOT_CLIENTS = (500,)
DEMO_BOT_JOBS = (50, 100)


def demo(out: Path, quiet: bool, full: bool, seed: int):
    """Score every policy on seeded jobs, cross-check the exact methods, run the bag of tasks."""

    jobs = [(law, label, hours) for label, hours in DEMO_SLICE_HOURS.items() for law in LAW_CHOICES]
    rows, reports = [], []
    for k, (law, label, hours) in enumerate(
        tqdm(jobs, desc="checkpoint: solve + score", disable=quiet, leave=False)
    ):
        instance = generate(DEMO_SLICES, k, law=law, slice_hours=hours)
        write_json(out / "instances" / f"{instance.name}.json", instance.to_json())
        report = evaluate(FAMILY, instance, seed=seed)
        reports.append(report)
        rows.append((f"{law}/{label}", report))

    # Cross-method agreement on one instance small enough for enumeration.
    small = generate(12, 0, law="weibull", slice_hours=DEMO_SLICE_HOURS["short"])
    agreement = {m: FAMILY.solve(small, method=m).objective for m in FAMILY.problem(None).methods}
    spread = max(agreement.values()) - min(agreement.values())

    names = list(FAMILY.heuristics)
    ratio_points(
        [label for label, _ in rows],
        {name: [r["policies"][name]["ratio"] for _, r in rows] for name in names},
        out / "checkpoint-ratios.png",
        f"checkpoint: each policy's expected waste over the optimum ({DEMO_SLICES} slices per job)",
    )
    header = f"{'instance':<26} {'optimum':>9} " + " ".join(f"{n:>7}" for n in names)
    lines = ["checkpoint: expected wasted time (minutes) and heuristic/optimum ratios", header]
    for label, r in rows:
        lines.append(
            f"{label:<26} {r['optimum']:>9.3f} "
            + " ".join(f"{r['policies'][n]['ratio']:>7.3f}" for n in names)
        )
    lines.append(
        f"exact methods on {small.name}: "
        + ", ".join(f"{m} {v:.9f}" for m, v in agreement.items())
        + f" (spread {spread:.1e})"
    )

    bot_dir = out / ("reproduction" if full else "bot")
    res = reproduce(
        bot_dir,
        clients=PAPER_CLIENTS if full else DEMO_BOT_CLIENTS,
        jobs=PAPER_JOBS if full else DEMO_BOT_JOBS,
        seed=seed,
    )
    (bot_dir / "table.md").write_text(res["table"] + "\n")
    write_json(bot_dir / "rows.json", res["rows"])
    lines += [
        "",
        f"checkpoint bag of tasks (Section IV; seed {seed}): optimal vs. periodic (Daly's period "
        "over slice durations) vs. periodic-printed (over checkpoint costs, as printed) vs. no checkpoint",
        res["table"],
    ]
    return DemoPart({"reports": reports, "agreement": agreement, "bot": res["rows"]}, lines)
