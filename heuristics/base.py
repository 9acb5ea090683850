"""What a heuristic is: small policy protocols with an explicit RNG, and one simulator shape.

In the style of alns' operator protocols: every policy names itself and takes
a ``numpy.random.Generator`` it is given (never a global RNG), so the same
seed gives the same decisions.

* An :class:`OfflinePolicy` plans once from what it is allowed to know before
  the run (the checkpoint policies need only the failure law and the job).
* An :class:`OnlinePolicy` decides at each time ``t`` from an
  :class:`Observation`, which exposes only what is known at ``t``: the
  simulator builds it from the realization up to ``t`` (read-only arrays that
  end at ``t``) and never hands the policy the instance itself.
* A :class:`Simulator` runs one policy on one instance and returns the
  solution, in the format the family's verifier replays, and the metrics the
  problem declares.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Observation(Protocol):
    """What an on-line policy may see at time ``t``; families add their fields (the past only)."""

    t: int


@runtime_checkable
class OfflinePolicy(Protocol):
    name: str

    def plan(self, instance: Any, rng: np.random.Generator) -> Any:
        """A whole plan from what is known before the run."""


@runtime_checkable
class OnlinePolicy(Protocol):
    name: str

    def decide(self, observation: Observation, rng: np.random.Generator) -> Any:
        """The decision at ``observation.t``, from the past only."""


@runtime_checkable
class Simulator(Protocol):
    def run(self, instance: Any, policy: Any, rng: np.random.Generator) -> tuple[dict, dict[str, float]]:
        """``(solution, metrics)``: the solution for the verifier, the problem's metrics by name."""


def past(array: np.ndarray, t: int) -> np.ndarray:
    """A read-only view of ``array[..., : t + 1]``: the part of a realization known at ``t``."""
    view = array[..., : t + 1]
    view.flags.writeable = False
    return view


__all__ = ["Observation", "OfflinePolicy", "OnlinePolicy", "Simulator", "past"]
