"""Passive heuristics of Section VI-A: a configuration at each iteration start and after a DOWN.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Section VI-A: "Passive heuristics
assign tasks to workers, which must be in the UP state, one by one until m tasks
are assigned", and "the current configuration is changed only when one of the
enrolled processors becomes DOWN" (or a new iteration begins, VI-B). A worker
can take a task while it holds fewer than ``mu_q``.
"""

from __future__ import annotations

import numpy as np

from .simulator import UP, Configuration, Observation


def candidates(observation: Observation) -> np.ndarray | None:
    """The UP workers, or ``None`` when they cannot hold the ``m`` tasks (the master waits)."""
    platform = observation.platform
    up = np.flatnonzero(observation.now == UP)
    if np.minimum(platform.mu[up], platform.m).sum() < platform.m:
        return None
    return up


class Random:
    """RANDOM: "allocates tasks to UP processors randomly using a uniform distribution" (VI-C).

    Each of the ``m`` tasks goes to a worker drawn uniformly among the UP
    workers that hold fewer than ``mu_q`` tasks (with replacement). Read as
    passive: it draws at an iteration's start and after a DOWN only.
    """

    name = "RANDOM"
    proactive = False

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None:
        up = candidates(observation)
        if up is None:
            return None
        mu = observation.platform.mu
        held = np.zeros(observation.platform.p, dtype=np.int64)
        order = []
        for _ in range(observation.platform.m):
            open_ = up[held[up] < mu[up]]
            q = int(open_[rng.integers(open_.size)])
            held[q] += 1
            order.append(q)
        return Configuration(tuple(order))


__all__ = ["Random", "candidates"]
