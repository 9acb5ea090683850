"""Proactive heuristics C-H of Section VI-B: at every slot, switch to a fresh configuration if it is better.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Section VI-B. At each slot ``t``
of an iteration, with ``config_1`` in force, "a new configuration is computed
from scratch using heuristic H, as if no task were allocated to any worker"
(``config_2``); "the measure of this configuration given by C should be updated
to account for the progress between t' and t" for ``config_1`` (its value
``c``); ``config_2`` has value ``c_2``; one of them is kept for the slot. C is
one of P (success probability), E (expected time) and Y (yield ``P / (E + t)``);
H one of IP, IE, IY, IAY (:mod:`.passive`). At an iteration's start and after
a DOWN, C-H builds its configuration with H, like the passive heuristic.

The paper leaves three points open (``../shared/readings/coupled-online.md``
3.4); the choices here:

* **Progress.** ``config_1`` is valued on what remains: the communication
  slots its workers still need (``n_q`` without the messages already held) and
  the ``W - c`` slots of computation not done yet:
  ``E = E_comm(S, n) + E^(S)(W - c)``, ``P = P_comm(S, n) P_+^(W - c - 1)``,
  ``Y = P / (E + t)`` with ``t`` the slots since the iteration began. Once the
  computation is complete nothing remains (``E = 0``, ``P = 1``).
* **Credit.** ``config_2`` is valued as if started now: no data credit ("as if
  no task were allocated"), but a worker's program counts as held, because a
  program is persistent state that the new configuration really keeps (III-C).
* **RECLAIMED.** The Section V estimates assume every worker of ``S`` is UP at
  the current slot. A configuration whose worker is RECLAIMED now is valued
  with the same formulas (its worker may come back); H only builds fresh
  configurations from UP workers.
* **Switch rule.** Switch only when ``c_2`` is strictly better in C's own
  direction: larger for P and Y, smaller for E (the paper's literal "if
  c >= c_2, keep" is backwards for E), and never to the same allocation.

The fresh configuration depends only on who is UP, who holds the program and,
for IY and Y, on ``t``; it is memoised on those during a run.
"""

from __future__ import annotations

import numpy as np

from .estimates import MarkovEstimates
from .passive import Criterion, assign, estimates_for
from .simulator import Configuration, Observation, Platform

MEASURES = ("P", "E", "Y")


def measure(est: MarkovEstimates, platform: Platform, name: str, formula: str, x: np.ndarray,
            needs: np.ndarray, remaining: int, elapsed: int) -> float:
    """C's value of allocation ``x``: ``needs`` communication slots, ``remaining`` computation slots."""
    mask = x > 0
    if remaining <= 0 and not needs.any():
        prob, span = 1.0, 0.0
    else:
        comm = est.communication(mask[None, :], needs[None, :].astype(np.int64), platform.n_com, formula)
        work = max(int(remaining), 1)
        prob = float(comm.success[0] * est.success_probability(mask, work))
        span = float(comm.time[0] + (est.expected_span(mask, work, formula) if remaining > 0 else 0.0))
    if name == "P":
        return prob
    if name == "E":
        return span
    with np.errstate(divide="ignore", invalid="ignore"):
        value = prob / (elapsed + span)
    return float(value) if np.isfinite(value) else 0.0


def _better(name: str, fresh: float, current: float) -> bool:
    return fresh < current if name == "E" else fresh > current


class Proactive:
    """C-H: H builds the configurations; C decides, at every slot, whether a fresh one replaces it."""

    proactive = True

    def __init__(self, measure_name: str, criterion: str, formula: str = "printed"):
        if measure_name not in MEASURES:
            raise ValueError(f"proactive measure must be one of {MEASURES}, got {measure_name!r}")
        self.measure, self.criterion, self.formula = measure_name, Criterion(criterion, formula), formula
        base = f"{measure_name}-{criterion}"
        self.name = base if formula == "printed" else f"{base}[{formula}]"
        self._fresh: dict = {}

    def begin(self, platform: Platform) -> None:
        self.criterion.estimates = estimates_for(platform, self.name)
        self._fresh = {}

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None:
        if observation.reason != "slot":
            return assign(observation, self.criterion)
        platform, est = observation.platform, self.criterion.estimates
        elapsed = observation.t - observation.iteration_start
        timed = self.criterion.name == "IY" or self.measure == "Y"
        key = (observation.now.tobytes(), observation.program.tobytes(), elapsed if timed else None)
        if key not in self._fresh:
            fresh = assign(observation, self.criterion, fresh=True)
            value = None
            if fresh is not None:
                x2 = fresh.allocation(platform.p)
                needs2 = np.where(x2 > 0, platform.T_prog * ~observation.program + x2 * platform.T_data, 0)
                value = measure(est, platform, self.measure, self.formula, x2, needs2,
                                int((x2 * platform.w).max()), elapsed)
            self._fresh[key] = (fresh, value)
        fresh, value = self._fresh[key]
        if fresh is None or np.array_equal(fresh.allocation(platform.p), observation.allocation):
            return None
        current = measure(est, platform, self.measure, self.formula, observation.allocation,
                          observation.needs, observation.workload - observation.progress, elapsed)
        return fresh if _better(self.measure, value, current) else None


__all__ = ["MEASURES", "Proactive", "measure"]
