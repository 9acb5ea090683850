"""Checkpoint placement heuristics scored against the optimum (Section IV-A-2).

``none`` checkpoints only after the last slice, ``every`` after every slice;
``young`` and ``daly`` compute a period ``rho`` from the mean time to failure
``M`` of the law and the job's mean checkpoint cost ``C = (1/n) sum c_i`` and
map it onto slice boundaries with :func:`periodic_schedule`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

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
    ``i`` on ties), until the last slice. The paper's text sums the checkpoint
    costs ``c_h`` here; a period is an amount of work between checkpoints, so
    the slice durations ``p_h`` are meant. A period at least the remaining work
    (``inf`` included) places the next checkpoint after the last slice.
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
    rho = daly_period(float(np.mean(instance.c)), instance.law.mean)
    return periodic_schedule(instance.p, rho)


POLICIES: dict[str, Callable[[CheckpointInstance], np.ndarray]] = {
    "none": no_checkpoint,
    "every": every_slice,
    "young": young,
    "daly": daly,
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
