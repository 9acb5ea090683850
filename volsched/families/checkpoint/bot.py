"""The bag-of-tasks experiment of the checkpoint paper (Section IV, Figures 1-3).

It joins the layers: per-job schedules from the exact solver (``optimal``),
the periodic heuristic with Daly's period in either reading of Section IV-A-2
(``periodic``: slice durations, ``periodic-printed``: checkpoint costs as
printed), or none (``none``), then the simulator of
:mod:`volsched.heuristics.checkpoint.bot` on the same seeded platform and
workload for every policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from joblib import Parallel, delayed
from tqdm import tqdm

from volsched.heuristics.checkpoint import POLICIES
from volsched.heuristics.checkpoint.bot import policy_schedules, simulate_bot
from volsched.instances.bot import BotInstance, generate_bot
from volsched.instances.errors import require
from volsched.solvers.checkpoint import solve

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

#: The paper's three policies, its periodic one in two readings, and the single-job rule behind each
#: heuristic: ``periodic`` maps Daly's period with ``min_i |sum_{h=j+1}^{i} p_h - rho|`` (slice
#: durations, volsched's reading), ``periodic-printed`` with ``min_i |sum_{h=j+1}^{i} c_h - rho|``
#: (checkpoint costs, Section IV-A-2 as printed).
BOT_RULES = {"periodic": "daly", "periodic-printed": "daly-printed", "none": "none"}
BOT_POLICIES = ("optimal", "periodic", "periodic-printed", "none")
PAPER_CLIENTS = (5000, 10000, 20000)
PAPER_JOBS = (1000, 3000, 5000, 7000, 9000, 10000)
CHUNK = 250


def _optimal_chunk(bot: BotInstance, jobs: range) -> list[np.ndarray]:
    return [np.asarray(solve(bot.job_instance(k), method="dp").solution["a"], dtype=bool) for k in jobs]


def optimal_schedules(bot: BotInstance, workers: int = -1, progress: bool = False) -> list[np.ndarray]:
    """The verified optimal checkpoint vector of every job on the nominal client, in parallel."""
    chunks = [range(s, min(s + CHUNK, bot.n_jobs)) for s in range(0, bot.n_jobs, CHUNK)]
    parts = Parallel(n_jobs=workers, return_as="generator")(
        delayed(_optimal_chunk)(bot, chunk) for chunk in chunks
    )
    out: list[np.ndarray] = []
    for part in tqdm(
        parts, total=len(chunks), desc="optimal schedules", unit="chunk", disable=not progress, leave=False
    ):
        out.extend(part)
    return out


def schedules_for(
    bot: BotInstance, policy: str, workers: int = -1, progress: bool = False
) -> list[np.ndarray]:
    """Per-job schedules of one of :data:`BOT_POLICIES`."""
    require(policy in BOT_POLICIES, "policy", f"must be one of {list(BOT_POLICIES)}, got {policy!r}")
    if policy == "optimal":
        return optimal_schedules(bot, workers, progress)
    return policy_schedules(bot, POLICIES[BOT_RULES[policy]])


def run_bot(
    clients: int,
    jobs: int,
    seed: int,
    policies: Sequence[str] = BOT_POLICIES,
    workers: int = -1,
    progress: bool = False,
) -> dict:
    """Simulate one platform and workload under every policy; one metrics dict per policy."""
    bot = generate_bot(clients, jobs, seed)
    results = {}
    for policy in policies:
        schedules = schedules_for(bot, policy, workers, progress)
        result = simulate_bot(bot, schedules, seed=seed, progress=progress).to_dict()
        result.pop("completion_times")
        results[policy] = result
    return {"clients": clients, "jobs": jobs, "seed": seed, "policies": results}


def _cell(clients: int, jobs: int, seed: int, policy: str) -> dict:
    return run_bot(clients, jobs, seed, [policy], workers=1)["policies"][policy]


def _cost_rank(cell: tuple[int, int, str]) -> tuple:
    """Longest simulations first, so the parallel run does not end on one long cell."""
    m, j, p = cell
    return ({"none": 0, "periodic-printed": 1}.get(p, 2), -j / m)


def reproduce(
    out: Path,
    clients: Sequence[int] = PAPER_CLIENTS,
    jobs: Sequence[int] = PAPER_JOBS,
    seed: int = 0,
    workers: int = -1,
    policies: Sequence[str] = BOT_POLICIES,
) -> dict:
    """Figures 1-3: every (clients, jobs, policy) cell, a markdown table and PNGs in ``out``."""
    # matplotlib loads when a figure is drawn, not when the family is (start-up time)
    from volsched.plots import bot_figure

    for p in policies:
        require(p in BOT_POLICIES, "policies", f"must be among {list(BOT_POLICIES)}, got {p!r}")
    cells = [(m, j, p) for m in clients for j in jobs for p in policies]
    order = sorted(cells, key=_cost_rank)
    values = Parallel(n_jobs=workers, return_as="generator")(
        delayed(_cell)(m, j, seed, p) for m, j, p in order
    )
    done = dict(tqdm(zip(order, values, strict=True), total=len(cells), desc="BoT simulations", leave=False))
    rows = [{"clients": m, "jobs": j, "policy": p, **done[(m, j, p)]} for m, j, p in cells]
    out.mkdir(parents=True, exist_ok=True)
    figures = [
        str(bot_figure(rows, m, out / f"figure-{k + 1}-{m}-clients.png")) for k, m in enumerate(clients)
    ]
    return {"rows": rows, "figures": figures, "table": bot_table(rows)}


def bot_table(rows: list[dict]) -> str:
    """Markdown: makespan (h), wasted time per client (h) split, and checkpoints."""
    lines = [
        "| clients | jobs | policy | makespan (h) | waste/client (h) | ckpt overhead/client (h) "
        "| lost/client (h) | checkpoints | duplicates |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        makespan = "never" if r["makespan"] is None else f"{r['makespan'] / 60:.1f}"
        m = r["clients"]
        lines.append(
            f"| {m} | {r['jobs']} | {r['policy']} | {makespan} | {r['wasted'] / 60 / m:.2f} "
            f"| {r['wasted_checkpoint'] / 60 / m:.2f} | {r['wasted_lost'] / 60 / m:.2f} "
            f"| {r['checkpoints']} | {r['duplicates']} |"
        )
    return "\n".join(lines)
