"""What the m = 5 benchmarks of the coupled on-line side share: the stored runs, and a verified run.

Used by ``bench_coupled_random_draws.py`` and ``bench_coupled_frozen_criterion.py``, which set a
variant heuristic beside the runs of a ``casanova2013`` store's m = 5 half
(``benchmarks/casanova2013-m5.toml``) on the same realizations.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from volsched.heuristics.coupled.simulator import simulate
from volsched.instances.coupled import paper_realization
from volsched.ratios import relative_difference
from volsched.solvers.coupled.replay import replay_trace

#: A realization of the m = 5 half: (n_com, w_min, scenario, trial).
KEYS = ("n_com", "w_min", "scenario", "trial")


def stored(path: str) -> dict[tuple, dict]:
    """Per m = 5 realization (:data:`KEYS`): each heuristic's stored makespan (None: failed)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out: dict[tuple, dict] = {}
    for params, method, objective in db.execute(
        "SELECT params, method, objective FROM results WHERE kind = 'heuristic'"
    ):
        p = json.loads(params)
        if p["tasks"] == 5:
            out.setdefault(tuple(p[k] for k in KEYS), {})[method] = objective
    db.close()
    return out


def verified_run(case: tuple, policy) -> int | None:
    """``policy``'s makespan on realization ``case`` (seed 0), its schedule re-read by the replay verifier."""
    inst = paper_realization(5, *case)
    result = simulate(inst, policy, np.random.default_rng(0))
    replayed = replay_trace(inst, result.schedule)
    assert replayed.completions == result.schedule["completions"], (case, policy.name)
    return result.makespan


def diff(h: float, ref: float) -> float:
    """Section VII-A's ``(H - IE) / min(H, IE)`` of two makespans."""
    return relative_difference(h, ref, "min")
