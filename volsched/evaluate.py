"""Score heuristics against the exact optimum on the same instance."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from volsched.instances.errors import MissingData
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
    # Relative only (issue 14): a checkpoint waste of 1e-13 beaten by 5e-14 is beaten.
    if worse < better * (1 - RATIO_RTOL):
        raise OptimumBeaten(f"heuristic value {value!r} beats the proven optimum {optimum!r}")
    if better <= 0:
        return 1.0 if worse == better else None
    return max(1.0, worse / better)


def evaluate(
    family: Family,
    instance: Any,
    heuristics: Sequence[str] | None = None,
    method: str | None = None,
    time_limit: float | None = None,
    seed: int = 0,
    simulators: dict | None = None,
) -> dict:
    """Score each heuristic against the off-line reference of the problem it declares, on the same instance.

    Each problem involved is solved once (``method``: its default for the
    instance unless given); each heuristic runs through its simulator with
    ``numpy.random.default_rng(seed)`` and its solution's verified value is
    compared in its problem's sense. When the method proves the optimum, the
    ratio is exact. Otherwise the reference is an interval: the method's proven
    bound, and the best known solution, which every heuristic run also
    improves (a simulated run is a verified feasible solution of the same
    problem); each heuristic's ratio then lies in ``[ratio_lo, ratio_hi]``.

    Without ``heuristics``, a heuristic that the instance cannot feed (a
    coupled one without Markov chains, a prescient one without a history
    window) is left out, with its reason in ``skipped``; named ones must run.
    Where the family diagnoses runs against the proven optimum's schedule
    (``Family.diagnose``: prescient's lagger causes), each policy gets those
    fields too.
    """
    from .experiments.store import ratio_interval  # the store's interval; it imports RATIO_RTOL from here

    names = list(family.heuristics) if heuristics is None else list(heuristics)
    for name in names:
        family.heuristic(name, "heuristics")
    simulators = simulators or {}
    runs, skipped = {}, {}
    for name in names:
        try:
            runs[name] = family.simulate(instance, name, seed, simulators.get(name))
        except MissingData as exc:
            if heuristics is not None:
                raise
            skipped[name] = str(exc)  # by default, the heuristics this instance can feed
    problems = list(dict.fromkeys(family.heuristics[n].problem for n in runs)) or [family.problem(None).name]
    exact = {p: family.solve(instance, problem=p, method=method, time_limit=time_limit) for p in problems}
    references = {}
    for p, result in exact.items():
        sense = family.problems[p].sense
        proven = result.status is SolveStatus.OPTIMAL
        values = [r["objective"] for r in runs.values() if r["problem"] == p and r["objective"] is not None]
        if result.objective is not None:
            values.append(result.objective)
        best = (min if sense == "min" else max)(values) if values else None
        references[p] = {"method": result.method, "status": result.status.value, "proven": proven,
                         "optimum": result.objective if proven else None, "bound": result.bound,
                         "best_known": best, "objective": result.objective, "solution": result.solution}
    policies = {}
    for name, run in runs.items():
        ref, sense = references[run["problem"]], family.problems[run["problem"]].sense
        value = run["objective"]
        if ref["proven"] and value is not None:
            r = ratio(value, ref["optimum"], sense)
            lo = hi = r
        else:
            r, lo, hi = ratio_interval(value, ref["best_known"], ref["bound"], False, sense)
        diagnosis = {} if family.diagnose is None or not ref["proven"] or run["solution"] is None else \
            family.diagnose(instance, run["solution"], ref["solution"])
        # The metrics at the policy's top level too (issue 16: {"value", "ratio", "waste"}).
        policies[name] = {**run["metrics"], **diagnosis, "problem": run["problem"], "value": value,
                          "ratio": r, "ratio_lo": lo, "ratio_hi": hi, "metrics": run["metrics"],
                          "solution": run["solution"]}
    first = references[problems[0]]
    return {
        "family": family.name,
        "instance": exact[problems[0]].instance,
        "seed": seed,
        "problem": problems[0],
        "method": first["method"],
        "optimum": first["optimum"],
        "lower_bound" if family.problems[problems[0]].sense == "min" else "upper_bound": first["bound"],
        "best_known": first["best_known"],
        "optimal_solution": first["solution"] if first["proven"] else None,
        "optima": references,
        "policies": policies,
        "skipped": skipped,
    }
