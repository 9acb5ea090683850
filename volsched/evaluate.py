"""Score heuristics against the exact optimum on the same instance."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from volsched.instances.errors import MissingData, require
from volsched.solvers import SolveStatus

from .families import Family, Heuristic
from .ratios import Reference, beats, best_value

if TYPE_CHECKING:
    from collections.abc import Sequence


class OptimumBeaten(RuntimeError):
    """A heuristic scored better than a proven optimum: a bug in a solver or the heuristic."""


def evaluate(
    family: Family,
    instance: Any,
    heuristics: Sequence[Any] | None = None,
    method: str | None = None,
    time_limit: float | None = None,
    seed: int = 0,
    simulators: dict | None = None,
    budget: float | None = None,
) -> dict:
    """Score each heuristic against the off-line reference of the problem it declares, on the same instance.

    Each problem involved is solved once (``method``: its default for the
    instance unless given; ``budget``: its deterministic work budget, see
    :func:`volsched.solvers.problem.solve`); each heuristic runs through its simulator with
    ``numpy.random.default_rng(seed)`` and its solution's verified value is
    compared in its problem's sense. When the method proves the optimum, the
    ratio is exact. Otherwise the reference is an interval: the method's proven
    bound, and the best known solution, which every heuristic run also
    improves (a simulated run is a verified feasible solution of the same
    problem); each heuristic's ratio then lies in ``[ratio_lo, ratio_hi]``.
    The reference and the ratios are :mod:`volsched.ratios`' (:class:`~volsched.ratios.Reference`,
    :func:`~volsched.ratios.ratio_interval`).

    ``heuristics`` holds anything :meth:`Family.heuristic <volsched.families.Family.heuristic>`
    takes: built-in names in any case, import paths ``module:Class`` or ``file.py:Class``
    (relative to the working directory), entry-point names, policy classes or
    :class:`~volsched.families.Heuristic` objects; each policy is keyed by its heuristic's name
    (the built-in spelling, the import path as given). ``simulators`` maps those names to the
    simulator that runs each one (default: the heuristic's own).

    Without ``heuristics``, a heuristic that the instance cannot feed (a
    coupled one without Markov chains, a prescient one without a history
    window) is left out, with its reason in ``skipped``; named ones must run.
    Where the family diagnoses runs against the proven optimum's schedule
    (``Family.extras.diagnose``: prescient's lagger causes), each policy gets those
    fields too.

    Raises
    ------
    OptimumBeaten
        A heuristic's value beats a proven optimum by more than ``RATIO_RTOL``
        (:func:`volsched.ratios.beats`).
    """
    chosen = (
        list(family.heuristics.values())
        if heuristics is None
        else [h if isinstance(h, Heuristic) else family.heuristic(h, "heuristics") for h in heuristics]
    )
    names = [h.name for h in chosen]
    repeated = sorted({n for n in names if names.count(n) > 1})
    require(not repeated, "heuristics", f"names {repeated} more than once")
    simulators = simulators or {}
    runs, skipped = {}, {}
    for h in chosen:
        try:
            runs[h.name] = family.simulate(instance, h, seed, simulators.get(h.name))
        except MissingData as exc:
            if heuristics is not None:
                raise
            skipped[h.name] = str(exc)  # by default, the heuristics this instance can feed
    problems = list(dict.fromkeys(run["problem"] for run in runs.values())) or [family.problem(None).name]
    exact = {
        p: family.solve(instance, problem=p, method=method, time_limit=time_limit, budget=budget)
        for p in problems
    }
    references, offline = {}, {}
    for p, result in exact.items():
        sense = family.problems[p].sense
        proven = result.status is SolveStatus.OPTIMAL
        values = [r["objective"] for r in runs.values() if r["problem"] == p]
        best = best_value([result.objective, *values], sense)
        offline[p] = ref = Reference(
            sense=sense,
            exact=True,
            proven=proven,
            incumbent=result.objective,
            bound=result.bound,
            best_known=best,
        )
        references[p] = {
            "method": result.method,
            "status": result.status.value,
            "proven": proven,
            "optimum": ref.optimum,
            "bound": result.bound,
            "best_known": ref.best_known,
            "objective": result.objective,
            "solution": result.solution,
        }
    policies = {}
    for name, run in runs.items():
        ref, value = offline[run["problem"]], run["objective"]
        if ref.proven and value is not None and beats(value, ref.optimum, ref.sense):
            raise OptimumBeaten(f"heuristic {name}: value {value!r} beats the proven optimum {ref.optimum!r}")
        score = ref.interval(value)
        diagnosis = (
            {}
            if family.extras.diagnose is None or not ref.proven or run["solution"] is None
            else family.extras.diagnose(instance, run["solution"], references[run["problem"]]["solution"])
        )
        # The metrics at the policy's top level too, beside "value" and "ratio" (prescient's "waste").
        policies[name] = {
            **run["metrics"],
            **diagnosis,
            "problem": run["problem"],
            "value": value,
            "ratio": score.ratio,
            "ratio_lo": score.lo,
            "ratio_hi": score.hi,
            "metrics": run["metrics"],
            "solution": run["solution"],
        }
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
