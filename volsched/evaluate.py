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
    seed: int = 0,
) -> dict:
    """Score each heuristic against the proven optimum of the problem it declares, on the same instance.

    Each problem involved is solved once (``method``: its default unless
    given); each heuristic runs through its simulator with
    ``numpy.random.default_rng(seed)`` and its solution's verified value is
    compared in its problem's sense.
    """
    names = list(family.heuristics) if heuristics is None else list(heuristics)
    for name in names:
        family.heuristic(name, "heuristics")
    problems = list(dict.fromkeys(family.heuristics[n].problem for n in names)) or [family.problem(None).name]
    optima = {}
    for problem in problems:
        result = family.solve(instance, problem=problem, method=method, time_limit=time_limit)
        require(result.status is SolveStatus.OPTIMAL, "method",
                f"{result.method} stopped without proving optimality on {problem} ({result.status.value})")
        optima[problem] = result
    policies = {}
    for name in names:
        run = family.simulate(instance, name, seed)
        problem = family.problems[run["problem"]]
        policies[name] = {"problem": run["problem"], "value": run["objective"],
                          "ratio": ratio(run["objective"], optima[run["problem"]].objective, problem.sense),
                          "metrics": run["metrics"], "solution": run["solution"]}
    first = optima[problems[0]]
    return {
        "family": family.name,
        "instance": first.instance,
        "seed": seed,
        "problem": problems[0],
        "method": first.method,
        "optimum": first.objective,
        "optimal_solution": first.solution,
        "optima": {p: {"method": r.method, "objective": r.objective, "solution": r.solution}
                   for p, r in optima.items()},
        "policies": policies,
    }
