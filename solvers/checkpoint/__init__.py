"""Optimal checkpoint placement (Bouguerra et al. 2011, Section III-C).

One problem, ``checkpoint`` (minimise the expected wasted time of Expression
1), and three exact methods that return the same optimum: ``dp`` (vectorised
DP, the fast one), ``graph`` (the paper's DAG + Dijkstra in networkx, the
literal reference) and ``brute`` (enumeration, ``n <= 16``). Every method is
exact and polynomial (``brute`` aside), so ``time_limit`` and ``seed`` are
accepted for the common interface and not needed: each outcome is proven by the
shortest-path optimality of the DAG (Section III-C), and
:func:`volsched.solvers.finish` re-checks it with :func:`.verify.verify`. ``dp``
and ``graph`` refuse, as bad input, a job whose reachable states would not fit
their memory budget (:mod:`.states`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from volsched.instances.checkpoint import FAMILY, CheckpointInstance

from ..problem import MethodOutcome, Metric, Problem
from ..problem import solve as solve_problem
from .brute import solve_brute
from .dp import solve_dp
from .graph import solve_graph
from .verify import describe, verify, verify_solution

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from ..result import SolveResult


def _proven(fn: Callable[[CheckpointInstance], tuple[np.ndarray, float]]):
    def method(
        instance: CheckpointInstance, time_limit: float | None, seed: int, budget: float | None = None
    ) -> MethodOutcome:
        a, objective = fn(instance)
        return MethodOutcome(
            solution={"a": [int(v) for v in a]}, objective=objective, bound=objective, proven=True
        )

    method.__name__ = fn.__name__
    return method


METHODS = {"dp": _proven(solve_dp), "graph": _proven(solve_graph), "brute": _proven(solve_brute)}
DEFAULT_METHOD = "dp"

#: The family's one problem; its metrics are what a policy's simulation reports.
PROBLEMS = {
    "checkpoint": Problem(
        name="checkpoint",
        sense="min",
        methods=METHODS,
        verify=verify_solution,
        describe=describe,
        metrics=(
            Metric("expected_waste", "min", "expected wasted time of Expression (1), minutes"),
            Metric("monte_carlo_waste", "min", "mean waste over sampled failure times"),
            Metric("monte_carlo_stderr", None, "standard error of that mean"),
            Metric("checkpoints", None, "number of checkpoints taken"),
        ),
    ),
}


def solve(
    instance: CheckpointInstance,
    method: str = DEFAULT_METHOD,
    time_limit: float | None = None,
    seed: int | None = None,
    problem: str | None = None,
) -> SolveResult:
    """Minimum expected wasted time and an optimal checkpoint vector (status always ``optimal``).

    Every method is exact and of bounded work: none takes a budget.
    """
    return solve_problem(FAMILY, PROBLEMS, instance, problem, method, time_limit, seed)


__all__ = ["METHODS", "PROBLEMS", "solve", "verify"]
