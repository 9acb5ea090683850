"""OFF-LINE-COUPLED (mu = inf) by enumeration of every processor subset (the tests' oracle, p <= 16)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from volsched.instances.errors import require

MAX_PROCESSORS = 16


def solve_offline_inf_brute(up: np.ndarray, m: int, w: int) -> tuple[list[int] | None, int | None]:
    """OFF-LINE-COUPLED (mu = inf) by enumeration: ``(processors, T)`` or ``(None, None)``."""
    p = up.shape[0]
    require(p <= MAX_PROCESSORS, "method", f"brute enumerates all subsets; p = {p} > {MAX_PROCESSORS}")
    best, best_set = None, None
    for k in range(1, min(m, p) + 1):
        need = math.ceil(m / k) * w
        for subset in itertools.combinations(range(p), k):
            common = np.flatnonzero(np.logical_and.reduce(up[list(subset)], axis=0))
            if len(common) >= need and (best is None or common[need - 1] + 1 < best):
                best, best_set = int(common[need - 1]) + 1, list(subset)
    return best_set, best
