"""Checkpoint placement heuristics scored against the optimum (Section IV-A-2).

``none`` checkpoints only after the last slice, ``every`` after every slice;
``young``, ``daly`` and ``daly-printed`` compute a period ``rho`` from the mean
time to failure ``M`` of the law and the job's mean checkpoint cost
``C = (1/n) sum c_i`` and map it onto slice boundaries with
:func:`periodic_schedule`.

Section IV-A-2 prints the mapping as ``min_i |sum_{h=j+1}^{i} c_h - rho|``, a
sum of checkpoint *costs*. ``young`` and ``daly`` sum the slice *durations*
``p_h`` instead (a period is an amount of work between checkpoints);
``daly-printed`` is the rule as printed. The two readings of the paper's
periodic policy are therefore ``daly`` and ``daly-printed``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable

    from volsched.instances.checkpoint import CheckpointInstance


def young_period(cost: float, mttf: float) -> float:
    """Young's first-order optimum ``T = sqrt(2 C M)``.

    ``inf`` for an infinite ``M`` (a log-normal law with ``sigma >= 38``), or
    one whose product with ``2 C`` overflows: checkpoint only at the end.
    """
    return math.sqrt(2.0 * cost * mttf)


def daly_period(delta: float, mttf: float) -> float:
    """Daly's higher-order optimum (Daly 2006, cited as [8]).

    ``tau = sqrt(2 delta M) [1 + sqrt(delta / (2M)) / 3 + delta / (18 M)] - delta``
    when ``delta < 2M``, else ``tau = M``. ``inf`` for an infinite (or
    overflowing) ``M``, as :func:`young_period`.
    """
    if delta >= 2.0 * mttf:
        return mttf
    root = math.sqrt(delta / (2.0 * mttf))
    return math.sqrt(2.0 * delta * mttf) * (1.0 + root / 3.0 + delta / (18.0 * mttf)) - delta


def periodic_schedule(p: np.ndarray, rho: float) -> np.ndarray:
    """Map a real period onto slice boundaries (Section IV-A-2).

    With the previous checkpoint after slice ``j``, the next goes after the
    ``i > j`` that minimises ``|sum_{h=j+1}^{i} p_h - rho|`` (the first such
    ``i`` on ties), until the last slice. A period at least the remaining sum
    (``inf`` included) places the next checkpoint after the last slice, so the
    last slice is always checkpointed.

    ``p`` is whatever per-slice quantity the sum runs over: the slice
    durations ``p_h`` (:func:`daly`, :func:`young`) or, as the paper prints
    the rule, the checkpoint costs ``c_h`` (:func:`daly_printed`).
    """
    n = len(p)
    done = np.concatenate([[0], np.cumsum(p)])
    a = np.zeros(n, dtype=bool)
    j = 0
    while j < n:
        # The work since the checkpoint, s_i, increases with i, so the closest to rho is the
        # last s_i <= rho or the next one. Comparing just those two keeps a period far above
        # the job (ulp(rho) > a slice: every |s_i - rho| rounds to the same double) from
        # tying every boundary, which made the first one, every slice, win; an infinite
        # period (an infinite mean time to failure) leaves only the last slice.
        s = done[j + 1 :] - done[j]
        k = int(np.searchsorted(s, rho, side="right"))  # s[:k] <= rho < s[k:]
        closer_above = k == 0 or (k < len(s) and s[k] - rho < rho - s[k - 1])
        j += k + 1 if closer_above else k
        a[j - 1] = True
    return a


def no_checkpoint(instance: CheckpointInstance) -> np.ndarray:
    a = np.zeros(instance.n, dtype=bool)
    a[-1] = True
    return a


def every_slice(instance: CheckpointInstance) -> np.ndarray:
    return np.ones(instance.n, dtype=bool)


def young(instance: CheckpointInstance) -> np.ndarray:
    rho = young_period(float(np.mean(instance.c)), instance.law.mean)
    return periodic_schedule(instance.p, rho)


def daly(instance: CheckpointInstance) -> np.ndarray:
    """Daly's period mapped over slice durations: ``min_i |sum_{h=j+1}^{i} p_h - rho|``.

    volsched's reading of Section IV-A-2 (the paper's ``Periodic`` policy): a
    period is an amount of work, so the sum runs over the slice durations
    ``p_h``. With the paper's 1-5 h slices and Daly's 34-44 min period this
    checkpoints after every slice.
    """
    rho = daly_period(float(np.mean(instance.c)), instance.law.mean)
    return periodic_schedule(instance.p, rho)


def daly_printed(instance: CheckpointInstance) -> np.ndarray:
    """Daly's period mapped over checkpoint costs, as printed: ``min_i |sum_{h=j+1}^{i} c_h - rho|``.

    Section IV-A-2 literally: "the k-th checkpoint is scheduled after the
    i-th where i minimize ... min_i |sum_{h=j+1}^{i} c_h - rho|", with ``rho``
    Daly's period for ``M`` and ``C = (1/n) sum c_i``. A checkpoint then
    falls about every ``rho / C`` slices, whatever the slices' durations.
    """
    rho = daly_period(float(np.mean(instance.c)), instance.law.mean)
    return periodic_schedule(instance.c, rho)


POLICIES: dict[str, Callable[[CheckpointInstance], np.ndarray]] = {
    "none": no_checkpoint,
    "every": every_slice,
    "young": young,
    "daly": daly,
    "daly-printed": daly_printed,
}


@dataclass(frozen=True)
class LawPolicy:
    """An off-line policy that needs only the job and the failure law (no RNG draw)."""

    name: str
    rule: Callable[[CheckpointInstance], np.ndarray]

    def plan(self, instance: CheckpointInstance, rng: np.random.Generator) -> np.ndarray:
        return self.rule(instance)


#: The rules as :class:`~volsched.heuristics.base.OfflinePolicy` objects.
POLICY_OBJECTS = {name: LawPolicy(name, rule) for name, rule in POLICIES.items()}
