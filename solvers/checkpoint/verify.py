"""Independent verifier for checkpoint schedules.

Checks the vector's shape and ``a_n = 1`` and recomputes its expected waste by
plain interval-by-interval summation (:meth:`CheckpointInstance.expected_waste`),
sharing nothing with the DAG, the DP or the enumeration.
"""

from __future__ import annotations

import math

import numpy as np

from volsched.instances.checkpoint import CheckpointInstance

from ..result import VerificationError

RTOL = 1e-9


def verify(instance: CheckpointInstance, a, claimed: float | None = None) -> float:
    """Return the recomputed expected waste of ``a``; raise if ``claimed`` disagrees.

    Raises
    ------
    InputError
        ``a`` is not a valid schedule for ``instance``.
    VerificationError
        ``claimed`` differs from the recomputed value by more than ``RTOL`` (relative).
    """
    a = instance.check_schedule([int(v) for v in np.asarray(a).tolist()])
    value = instance.expected_waste(a)
    if claimed is not None and not math.isclose(value, claimed, rel_tol=RTOL, abs_tol=1e-12):
        raise VerificationError(
            f"checkpoint: claimed expected waste {claimed!r} but the schedule's is {value!r}"
        )
    return value
