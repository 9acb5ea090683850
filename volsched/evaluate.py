"""Score heuristics against the exact optimum on the same instance."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from volsched.instances.errors import require
from volsched.solvers import SolveStatus

from .families import Family

#: A heuristic may tie the optimum up to float rounding, never beat it by more.
RATIO_RTOL = 1e-9


class OptimumBeaten(RuntimeError):
    """A heuristic scored better than a proven optimum: a bug in a solver or the heuristic."""


def ratio(value: float, optimum: float, sense: str = "min") -> float | None:
    """Approximation ratio ``value / optimum`` (``optimum / value`` for maxima), never below 1.

    Raises :class:`OptimumBeaten` when the heuristic beats the proven optimum by
    more than ``RATIO_RTOL``; within it, the two are tied and the ratio is 1.
    ``None`` when the ratio is undefined (a zero optimum with a positive value).
    """
    worse, better = (value, optimum) if sense == "min" else (optimum, value)
    if worse < better * (1 - RATIO_RTOL) - 1e-12:
        raise OptimumBeaten(f"heuristic value {value!r} beats the proven optimum {optimum!r}")
    if better <= 0:
        return 1.0 if math.isclose(worse, better, abs_tol=1e-12) else None
    return max(1.0, worse / better)


def evaluate(
    family: Family,
    instance: Any,
    heuristics: Sequence[str] | None = None,
    method: str | None = None,
    time_limit: float | None = None,
) -> dict:
    """Solve ``instance`` exactly and score each heuristic's solution against the optimum."""
    names = list(family.heuristics) if heuristics is None else list(heuristics)
    for name in names:
        require(name in family.heuristics, "heuristics",
                f"unknown heuristic {name!r}; choose from {sorted(family.heuristics)}")
    result = family.solve(instance, method=method or family.methods[0], time_limit=time_limit)
    require(result.status is SolveStatus.OPTIMAL, "method",
            f"{result.method} stopped without proving optimality ({result.status.value})")
    policies = {}
    for name in names:
        solution = family.heuristics[name](instance)
        value = family.value(instance, solution)
        policies[name] = {"value": value, "ratio": ratio(value, result.objective, family.sense),
                          "solution": solution}
    return {
        "family": family.name,
        "instance": result.instance,
        "method": result.method,
        "optimum": result.objective,
        "optimal_solution": result.solution,
        "policies": policies,
    }
