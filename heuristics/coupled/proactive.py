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
  computation is complete nothing remains (``E = 0``, ``P = 1``). A value frozen at
  the configuration's first slot instead (``benchmarks/bench_coupled_frozen_criterion.py``)
  makes P-IP and P-IAY 11-34 points worse against IE on Table I's realizations.
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

**Speed**. The fresh configuration depends only on who is UP and who
holds the program, and for IY on ``t``; it is memoised on those during a run, with
the probability and time that value it (Y's value also depends on ``t``: it is
recomputed from them). The sets are valued in the compiled loops of
:class:`.passive.SetEstimates`. After a slot where it keeps its configuration,
C-H promises (:class:`.simulator.Hold`) to keep it at the next slots whose
decisions it can prove are "keep" again without computing them, so that the
simulator does not ask it (:meth:`Proactive.decide` gives the proofs); the
other slot decisions are taken by the same rule compiled
(:meth:`Proactive.compiled`, :mod:`._proactive_kernel`) as long as the values it
needs are known. The runs are the same, decision for decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._constants_kernel import MONOTONE_T, TINY
from .passive import Criterion, assign, estimates_for
from .simulator import UP, Configuration, Hold, Observation, Platform, PolicyDefaults

if TYPE_CHECKING:
    from .estimates import MarkovEstimates

MEASURES = ("P", "E", "Y")
#: Fresh configurations a policy keeps (the memo is emptied when full), in Python and in the rule.
#: A failing m = 10 run meets about 120,000 UP sets in 860,000 slots: at 2^18 instead of 2^14 its
#: proactive rules ran 1.3-1.5x faster (benchmarks/RESULTS.md, session 24); the rows are
#: allocated lazily, so short runs do not pay for them.
_FRESH = 1 << 16
_RULE_MEMO = 1 << 18


def components(
    est: MarkovEstimates,
    platform: Platform,
    formula: str,
    x: np.ndarray,
    needs: np.ndarray,
    remaining: int,
    criterion: Criterion | None = None,
) -> tuple[float, float]:
    """``(P, E)`` of allocation ``x``: ``needs`` communication slots, ``remaining`` computation slots.

    ``P = P_comm(S, n) P_+^(W' - 1)`` and ``E = E_comm(S, n) + E^(S)(W')`` with
    ``W' = remaining``; ``(1, 0)`` when nothing remains. By ``criterion``'s compiled
    evaluation (:class:`.passive.SetEstimates`) when it has one: the same bits.
    """
    mask = x > 0
    if remaining <= 0 and not needs.any():
        return 1.0, 0.0
    engine = criterion.engine if criterion is not None else None
    needs = needs.astype(np.int64)
    if engine is not None and remaining > 0:
        return engine.value(x, needs, int(remaining))
    comm = est.communication(mask[None, :], needs[None, :], platform.n_com, formula)
    work = max(int(remaining), 1)
    prob = float(comm.success[0] * est.success_probability(mask, work))
    span = float(comm.time[0] + (est.expected_span(mask, work, formula) if remaining > 0 else 0.0))
    return prob, span


def value(name: str, prob: float, span: float, elapsed: int) -> float:
    """C's value from ``(P, E)``: ``P``, ``E`` or the yield ``P / (E + t)`` (0 when not finite)."""
    if name == "P":
        return prob
    if name == "E":
        return span
    with np.errstate(divide="ignore", invalid="ignore"):
        out = prob / (elapsed + span)
    return float(out) if np.isfinite(out) else 0.0


def measure(
    est: MarkovEstimates,
    platform: Platform,
    name: str,
    formula: str,
    x: np.ndarray,
    needs: np.ndarray,
    remaining: int,
    elapsed: int,
) -> float:
    """C's value of allocation ``x``: ``needs`` communication slots, ``remaining`` computation slots."""
    return value(name, *components(est, platform, formula, x, needs, remaining), elapsed)


def _better(name: str, fresh: float, current: float) -> bool:
    return fresh < current if name == "E" else fresh > current


class Proactive(PolicyDefaults):
    """C-H: H builds the configurations; C decides, at every slot, whether a fresh one replaces it."""

    proactive = True

    def __init__(self, measure_name: str, criterion: str, formula: str = "printed"):
        if measure_name not in MEASURES:
            raise ValueError(f"proactive measure must be one of {MEASURES}, got {measure_name!r}")
        self.measure, self.criterion, self.formula = measure_name, Criterion(criterion, formula), formula
        base = f"{measure_name}-{criterion}"
        self.name = base if formula == "printed" else f"{base}[{formula}]"
        self._fresh: dict = {}
        self.hold: Hold | None = None

    def begin(self, platform: Platform) -> None:
        est = estimates_for(platform, self.name)
        self.criterion.prepare(platform, est)
        self._fresh = {}
        self.hold = None
        # The P and E promises need 1 - P_+ >= 1 / (1 + T) far above a power's rounding error.
        self._monotone = est.T < MONOTONE_T
        self._rule = None
        if self.criterion.engine is not None:
            from numba import types
            from numba.typed import Dict

            p, m = platform.p, platform.m
            memo = Dict.empty(types.UniTuple(types.int64, 2), types.int64)
            self._rule = (
                MEASURES.index(self.measure),
                self.criterion.name == "IY",
                memo,
                np.zeros((_RULE_MEMO, m), dtype=np.int64),
                np.zeros((_RULE_MEMO, p), dtype=np.int64),
                np.zeros((_RULE_MEMO, 2)),
                np.zeros(_RULE_MEMO, dtype=np.int64),
                np.zeros(1, dtype=np.int64),
            )

    def compiled(self) -> tuple | None:
        """The decisions the simulator may take in compiled code (:func:`._decision_kernel.arguments`).

        H's construction at an iteration's start and after a DOWN, and C-H's slot rule
        (:mod:`._proactive_kernel`), both on the values of the compiled evaluation
        (:class:`.passive.SetEstimates`); when one is missing, the simulator asks :meth:`decide`,
        which computes it. The rule memoises the fresh configurations as :meth:`decide` does.
        ``None`` without the compiled evaluation.
        """
        if self._rule is None:
            return None
        return ("assign", self.criterion.engine, self._rule)

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None:
        """Keep, or switch to the fresh configuration; after a "keep", a promise (:class:`Hold`).

        The promises, each for the slots of the same attempt (no switch, no DOWN of an
        enrolled worker, no completed iteration) that see the same workers UP:

        * **No fresh configuration** (the UP workers cannot take the ``m`` tasks): H
          returns none as long as the UP set is the same (:func:`.passive.candidates`
          reads nothing else), and C-H keeps. Any C, any H.
        * **The fresh configuration is the one in force**, for H in IP, IE, IAY: with the
          same UP set and the same holders of the program, H builds the same fresh
          configuration (``assign(fresh=True)`` reads only those: no data credit, no
          ``t``), which is again the one in force. Any C.
        * **C kept the current configuration**, for C in P, E and H in IP, IE, IAY: the
          fresh configuration and its value ``c_2`` are the same (above; P and E do not
          read ``t``), and the configuration in force has only progressed: its workers
          need no more communication slots ``n_q`` and it has no more computation slots
          ``W - c`` left. E is non-decreasing in each: ``E_comm = max(max_q E^(q)(n_q),
          sum_q n_q / n_com)`` and ``E^(S)(W') = (1 + (W'-1) E_c) / P_+^(W'-1)`` (or
          ``1 + (W'-1) E_c / P_+``) for ``P_+ <= 1``. So its value can only improve and
          "not better" stays "not better". For P the promise also asks for the same
          ``n`` (``P_comm`` reads ``ceil E_comm`` through ``P_ND``, whose rounding need not
          be monotone): then ``P_comm`` is the same value and only ``P_+^(W'-1)`` grows.
          In floats: sums, products, quotients, ``max`` and ``ceil`` round monotonically;
          a power ``b^s`` is computed within a few units in the last place, while
          ``b^(s+1) / b^s = b <= 1 - 1/(1 + T)`` (``P_+ = E_u / (1 + E_u)`` with
          ``E_u < T``, the estimates' truncation, at most ``2^30``; ``b = 1`` and
          ``b = 0`` give exact powers), so ``b^s`` is non-increasing in ``s`` for
          normal results. A P-promise needs ``P >= 10^-290`` (the powers stay normal),
          an E-promise an ``E`` that is not NaN: where E's power is subnormal ``E`` is
          ``inf`` and only becomes smaller; a NaN value of the current configuration
          (``0 x inf`` in ``E^(q)(1)`` when ``E_c = inf``) always keeps. If ``c_2`` is
          NaN, C keeps whatever the current value.

        Y and IY read ``t``: no promise but the first.
        """
        self.hold = None
        if observation.reason != "slot":
            return assign(observation, self.criterion)
        platform, est = observation.platform, self.criterion.estimates
        elapsed = observation.t - observation.iteration_start
        timed = self.criterion.name == "IY"
        up = observation.now == UP
        key = (up.tobytes(), observation.program.tobytes(), elapsed if timed else None)
        found = self._fresh.get(key)
        if found is None:
            fresh = assign(observation, self.criterion, fresh=True)
            x2 = parts = None
            if fresh is not None:
                x2 = fresh.allocation(platform.p)
                needs2 = np.where(x2 > 0, platform.T_prog * ~observation.program + x2 * platform.T_data, 0)
                parts = components(
                    est, platform, self.formula, x2, needs2, int((x2 * platform.w).max()), self.criterion
                )
            if len(self._fresh) >= _FRESH:
                self._fresh.clear()
            self._fresh[key] = found = (fresh, x2, parts)
        fresh, x2, parts = found
        if fresh is None:
            self.hold = Hold(up)
            return None
        if np.array_equal(x2, observation.allocation):
            if not timed:
                self.hold = Hold(up, observation.program)
            return None
        fresh_value = value(self.measure, *parts, elapsed)
        current = self._current(observation, elapsed)
        if _better(self.measure, fresh_value, current):
            return fresh
        if not timed:
            self.hold = self._promise(observation, up, current, fresh_value)
        return None

    def _current(self, observation: Observation, elapsed: int) -> float:
        """``c``: the configuration in force valued on what remains of it (the progress choice)."""
        prob, span = components(
            self.criterion.estimates,
            observation.platform,
            self.formula,
            observation.allocation,
            observation.needs,
            observation.workload - observation.progress,
            self.criterion,
        )
        return value(self.measure, prob, span, elapsed)

    def _promise(
        self, observation: Observation, up: np.ndarray, current: float, fresh_value: float
    ) -> Hold | None:
        """After a "keep" for H in IP, IE, IAY: the promise :meth:`decide`'s proofs allow, if any."""
        if not self._monotone or observation.progress >= observation.workload:
            return None
        if self.measure == "E" and (current == current or fresh_value != fresh_value):
            return Hold(up, observation.program)
        if self.measure == "P" and (current >= TINY or fresh_value != fresh_value):
            return Hold(up, observation.program, observation.needs.copy())
        return None


__all__ = ["MEASURES", "Proactive", "components", "measure", "value"]
