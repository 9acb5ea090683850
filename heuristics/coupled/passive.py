"""Passive heuristics of Section VI-A: a configuration at each iteration start and after a DOWN.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Section VI-A: "Passive heuristics
assign tasks to workers, which must be in the UP state, one by one until m tasks
are assigned", and "the current configuration is changed only when one of the
enrolled processors becomes DOWN" (or a new iteration begins, VI-B). A worker
can take a task while it holds fewer than ``mu_q``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from volsched.instances.errors import InputError

from .estimates import FORMULAS, MarkovEstimates
from .simulator import UP, Configuration, Observation, Platform


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


CRITERIA = ("IP", "IE", "IY", "IAY")


def estimates_for(platform: Platform, name: str) -> MarkovEstimates:
    """The Section V estimates of the platform's chains, or a clear error when it has none."""
    if platform.transitions is None:
        raise InputError(f"data.transitions: heuristic {name} estimates from the processors' Markov chains "
                         "(Section V), and this instance has none (generate it with the markov or "
                         "paper-realization preset)")
    return MarkovEstimates(platform.transitions)


@dataclass
class Criterion:
    """Scores of one more task on each candidate worker (Section VI-A), given the tasks placed so far.

    For a candidate ``P_q`` and the set ``S' = S U {P_q}`` with one more task
    on ``P_q``, ``W_q = max_{r in S'} x'_r w_r`` and ``n_r`` the communication
    slots ``r`` still needs (``T_prog`` if it lacks the program, plus the data
    it does not hold: a worker re-chosen after a DOWN keeps its data, issue 15
    part 0):

    * ``P^(S)(q) = P_+(S')^(W_q - 1) x P_comm(S')``,
    * ``E^(S)(q) = E_comm(S') + E^(S')(W_q)``,

    and the four criteria: IP maximises ``P``; IE minimises ``E``; IY
    maximises ``P / (t + E)``, ``t`` the slots since the iteration began,
    failed attempts included; IAY maximises ``P / E``. ``formula`` is the
    form of ``E^(S)(W)`` (:data:`~.estimates.FORMULAS`; the paper's printed
    one by default).
    """

    name: str
    formula: str = "printed"
    estimates: MarkovEstimates | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.name not in CRITERIA or self.formula not in FORMULAS:
            raise ValueError(f"criterion {self.name!r} with formula {self.formula!r}")

    def scores(self, platform: Platform, x: np.ndarray, cands: np.ndarray, held_program: np.ndarray,
               held_data: np.ndarray, elapsed: int) -> np.ndarray:
        """One score per candidate, larger is better (``-E`` for IE)."""
        w = platform.w
        k = cands.size
        grown = np.repeat(x[None, :], k, axis=0)
        grown[np.arange(k), cands] += 1
        masks = grown > 0
        work = (grown * w).max(axis=1)
        needs = np.where(masks, platform.T_prog * ~held_program
                         + np.maximum(grown * platform.T_data - held_data, 0), 0).astype(np.int64)
        est = self.estimates
        comm = est.communication(masks, needs, platform.n_com, self.formula)
        if self.name == "IE":
            return -(comm.time + est.expected_span(masks, work, self.formula))
        prob = est.success_probability(masks, work) * comm.success
        if self.name == "IP":
            return prob
        span = comm.time + est.expected_span(masks, work, self.formula)
        with np.errstate(divide="ignore", invalid="ignore"):
            score = prob / (elapsed + span) if self.name == "IY" else prob / span
        return np.where(np.isfinite(score), score, 0.0)


def assign(observation: Observation, criterion: Criterion, fresh: bool = False) -> Configuration | None:
    """Section VI-A's passive construction: the ``m`` tasks one by one, each to the best UP worker.

    Candidates are the UP workers holding fewer than ``mu_q`` tasks; ties go
    to the lowest index. ``fresh`` computes "from scratch ... as if no task
    were allocated to any worker" (VI-B): no credit for data held (programs,
    which persist, still count).
    """
    up = candidates(observation)
    if up is None:
        return None
    platform = observation.platform
    x = np.zeros(platform.p, dtype=np.int64)
    data = np.zeros(platform.p, dtype=np.int64) if fresh else observation.data
    elapsed = observation.t - observation.iteration_start
    order = []
    for _ in range(platform.m):
        cands = up[x[up] < platform.mu[up]]
        scores = criterion.scores(platform, x, cands, observation.program, data, elapsed)
        q = int(cands[int(np.argmax(scores))])  # argmax keeps the first (lowest index) of ties
        x[q] += 1
        order.append(q)
    return Configuration(tuple(order))


class Passive:
    """IP, IE, IY or IAY (Section VI-A): a configuration at an iteration's start and after a DOWN."""

    proactive = False

    def __init__(self, criterion: str, formula: str = "printed"):
        self.criterion = Criterion(criterion, formula)
        self.name = criterion if formula == "printed" else f"{criterion}[{formula}]"

    def begin(self, platform: Platform) -> None:
        self.criterion.estimates = estimates_for(platform, self.name)

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None:
        return assign(observation, self.criterion)


__all__ = ["CRITERIA", "Criterion", "Passive", "Random", "assign", "candidates", "estimates_for"]
