"""The single-job checkpoint simulator: a policy's vector, its expected waste, and a Monte-Carlo check.

Bouguerra et al. 2011, Section III-B, Expression (1): the waste of a run that
fails at time ``t`` is the accumulated checkpoint overhead of the interval
``t`` falls in plus ``alpha`` times the time since that interval's start (0
when the job ends first). The simulator samples failure times from the law
with the RNG it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from volsched.instances.errors import require

if TYPE_CHECKING:
    from volsched.instances.checkpoint import CheckpointInstance

    from ..base import OfflinePolicy


@dataclass(frozen=True)
class SingleJobSimulator:
    """Runs an off-line checkpoint policy on one job; ``samples`` failure times for the Monte-Carlo mean."""

    samples: int = 100_000

    def run(
        self, instance: CheckpointInstance, policy: OfflinePolicy, rng: np.random.Generator
    ) -> tuple[dict, dict[str, float]]:
        require(self.samples >= 2, "--samples", f"must be at least 2, got {self.samples}")
        a = np.asarray(policy.plan(instance, rng), dtype=bool)
        sigma = np.cumsum(np.where(a, instance.c, 0))[a]
        ends = instance.tau[1:][a] + sigma
        starts = np.concatenate([[0], ends[:-1]])
        t = instance.law.sample(rng, self.samples)
        k = np.searchsorted(ends, t, side="left")
        inside = k < len(ends)
        kk = np.minimum(k, len(ends) - 1)
        waste = np.where(inside, sigma[kk] + instance.alpha * (t - starts[kk]), 0.0)
        solution = {"a": [int(v) for v in a]}
        metrics = {
            "expected_waste": float(instance.expected_waste(a)),
            "monte_carlo_waste": float(waste.mean()),
            "monte_carlo_stderr": float(waste.std(ddof=1) / np.sqrt(self.samples)),
            "checkpoints": int(a.sum()),
        }
        return solution, metrics
