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
    return DemoPart({"reports": rows}, lines)
