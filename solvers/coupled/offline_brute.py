"""OFF-LINE-COUPLED (mu = 1) by enumeration of all m-subsets of processors (the tests' oracle, p <= 16)."""

from __future__ import annotations

import itertools

import numpy as np

from volsched.instances.errors import require

MAX_PROCESSORS = 16


def solve_brute(up: np.ndarray, m: int) -> tuple[list[int], int]:
    p = up.shape[0]
    require(p <= MAX_PROCESSORS, "method", f"brute enumerates all m-subsets; p = {p} > {MAX_PROCESSORS}")
    best, best_set = -1, []
    for subset in itertools.combinations(range(p), m):
        value = int(np.logical_and.reduce(up[list(subset)], axis=0).sum())
        if value > best:
            best, best_set = value, list(subset)
    return best_set, best
