"""The slack family's part of ``volsched demo``: exact optima at three betas, GAPS and the baselines."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    return DemoPart({"rows": rows}, lines)


#: CP-SAT deterministic time per exact solve (the same result on every machine); the time limit
#: (seconds) is only the safety net.
BUDGET = 10.0
SAFETY_S = 300


def _value(x) -> str:
    return f"{'unproven':>9}" if x is None else f"{x:>9.0f}"


def _ratio(x) -> str:
    return "n/a" if x is None else f"{x:.3f}"
