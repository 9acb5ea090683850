"""The optimal prescient schedule (Kondo, Chien, Casanova 2007, Section 3.4).

One problem, ``makespan``: the earliest completion of the application's
``T`` tasks, in seconds from its submission, by a scheduler that knows the
host and CPU traces in advance (it never meets a failure, has no heartbeat
delay, and starts a task only where it completes inside one availability
interval). Two methods:

* ``greedy`` (:mod:`.greedy`): the paper's greedy, vectorised. Optimal, with
  its proof, for identical tasks (the paper's case); for non-identical sizes
  a heuristic (largest task first), reported ``feasible`` with a lower bound
  (the optimum with every task at the smallest size).
* ``cpsat`` (:mod:`.cpsat`): a bin-packing model over candidate makespans,
  exact for any sizes on small instances.

Every schedule is re-checked by :mod:`.verify`, which also replays heuristic
runs (attempts that fail or are cancelled, replicas); its docstring defines
the schedule format. :mod:`.simgrid` exports an instance and a schedule for
SimGrid, the independent oracle of the tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from volsched.instances.prescient import FAMILY, PrescientInstance
from volsched.instances.prescient.platforms import generate_platform

from ..problem import Effort, MethodOutcome, Metric, Problem, backend
from ..problem import solve as solve_problem
from .greedy import attempts_of, greedy_schedule, identical_optimum
from .verify import describe, verify_partial, verify_solution

if TYPE_CHECKING:
    from ..result import SolveResult


def _solution(schedule: dict) -> dict:
    return {"makespan": schedule["makespan"], "attempts": attempts_of(schedule)}


def _greedy(
    instance: PrescientInstance, time_limit: float | None, seed: int, budget: float | None = None
) -> MethodOutcome:
    if instance.identical:
        best = identical_optimum(instance)
        if best is None:
            return MethodOutcome(None, None, None, True, {"reason": "the traces cannot hold T tasks"})
        return MethodOutcome(
            _solution(best), best["makespan"], best["makespan"], True, {"trace_read_until": best["horizon"]}
        )
    smallest = instance.with_tasks(instance.n_tasks, float(instance.task_minutes.min()))
    low = identical_optimum(smallest)
    if low is None:
        return MethodOutcome(
            None, None, None, True, {"reason": "the traces cannot hold T tasks even of the smallest size"}
        )
    found = greedy_schedule(instance, span=2.0 * (low["horizon"] - float(instance.start)))
    if found is None:
        return MethodOutcome(
            None, None, low["makespan"], False, {"reason": "the greedy placed not every task"}
        )
    return MethodOutcome(
        _solution(found),
        found["makespan"],
        low["makespan"],
        False,
        {"bound": "the optimum with every task at the smallest size"},
    )


def _cpsat(
    instance: PrescientInstance, time_limit: float | None, seed: int, budget: float | None = None
) -> MethodOutcome:
    solve_cpsat = backend(f"{__package__}.cpsat", "solve_cpsat", "ortools")
    effort = Effort()
    schedule, makespan, bound, proven, info = solve_cpsat(
        instance, time_limit, seed, budget=budget, effort=effort
    )
    done = {"stopped": None if proven else effort.stopped, "work": effort.work}
    if schedule is None:
        return MethodOutcome(None, None, bound, proven, info, **done)
    schedule["makespan"] = makespan
    return MethodOutcome(_solution(schedule), makespan, bound, proven, info, **done)


def _warm(method: str) -> None:
    """Compile the greedy's kernel (numba) on a tiny platform, outside the method's clock."""
    if method != "greedy":
        return
    _greedy(generate_platform("sdsc", 3, 3, 5.0, 0, days=2), None, 0)


METHODS = {"greedy": _greedy, "cpsat": _cpsat}

PROBLEMS = {
    "makespan": Problem(
        name="makespan",
        sense="min",
        methods=METHODS,
        verify=verify_solution,
        describe=describe,
        verify_partial=verify_partial,
        budgets={"cpsat": "cpsat"},
        warm=_warm,
        metrics=(
            Metric("makespan", "min", "seconds from the submission to the last task's completion"),
            Metric("waste", "min", "100 x replica instances sent, failed included, / T (Section 5)"),
            Metric(
                "laggers",
                None,
                "completions above Q3 + 1 IQR, failed executions excluded (Section 3.4; a diagnostic)",
            ),
            Metric(
                "laggers_failure",
                None,
                "laggers whose task failed after the upper quartile (Section 3.4's failure cause)",
            ),
            Metric("failed", None, "a heuristic run whose traces ended before every task completed"),
        ),
    ),
}


def solve(
    instance: PrescientInstance,
    method: str = "greedy",
    time_limit: float | None = None,
    seed: int | None = None,
    problem: str | None = None,
) -> SolveResult:
    """The prescient optimum of ``instance`` (status ``optimal`` with a proof)."""
    return solve_problem(FAMILY, PROBLEMS, instance, problem, method, time_limit, seed)


__all__ = ["METHODS", "PROBLEMS", "solve", "verify_solution"]
