"""Independent verifier for checkpoint schedules.

Checks the vector's shape and ``a_n = 1`` and recomputes its expected waste by
plain interval-by-interval summation (:meth:`CheckpointInstance.expected_waste`),
sharing nothing with the DAG, the DP or the enumeration.
"""

from __future__ import annotations

import math

import numpy as np

from volsched.instances.checkpoint import CheckpointInstance
from volsched.instances.errors import InputError

from ..result import Infeasible, reject_unless

RTOL = 1e-9


def verify(instance: CheckpointInstance, a, claimed: float | None = None) -> float:
    """Return the recomputed expected waste of ``a``; raise if ``claimed`` disagrees.

    Raises
    ------
    Infeasible
        ``a`` is not a valid schedule for ``instance``, or ``claimed`` differs
        from the recomputed value by more than ``RTOL`` (relative).
    """
    if isinstance(a, (list, tuple)):
        for j, v in enumerate(a):  # JSON true/false are not 0/1 (issue 14)
            reject_unless(not isinstance(v, bool), f"a[{j}]", f"must be 0 or 1, got {v!r}")
    try:
        a = instance.check_schedule(a if isinstance(a, (list, tuple)) else np.asarray(a).tolist())
    except InputError as exc:
        raise Infeasible(str(exc)) from None
    value = instance.expected_waste(a)
    if claimed is not None and not math.isclose(value, claimed, rel_tol=RTOL, abs_tol=1e-12):
        raise Infeasible(f"checkpoint: claimed expected waste {claimed!r} but the schedule's is {value!r}")
    return value


def verify_solution(instance: CheckpointInstance, solution) -> float:
    """The expected waste of a solution object ``{"a": [...]}`` (raises ``Infeasible``)."""
    reject_unless(isinstance(solution, dict) and "a" in solution, "solution.a", "missing")
    return verify(instance, solution["a"])


def describe(instance: CheckpointInstance, solution: dict, value: float, bound: float | None) -> dict:
    """The fields derived from a verified vector: its number of checkpoints."""
    return {"checkpoints": int(sum(int(v) for v in solution["a"]))}
