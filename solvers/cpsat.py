"""How every CP-SAT model of volsched is run: workers, seed, work budget and time limit.

With a work budget, CP-SAT stops on its *deterministic time* (``max_deterministic_time``), a
count of the work its search did that does not depend on the machine or its load, and runs one
search worker: parallel workers exchange solutions as they come, so two of them do not repeat a
search, while one worker with a fixed seed does. Without a budget it runs ``workers`` workers
(DESIGN.md: 2 cores). The time limit stays the wall-clock safety net.
"""

from __future__ import annotations

import time

from ortools.sat.python import cp_model

from .problem import STOPPED_BUDGET, STOPPED_CLOCK, Effort

#: CP-SAT statuses that end a finished search: the status is a proof.
FINISHED = (cp_model.OPTIMAL, cp_model.INFEASIBLE, cp_model.MODEL_INVALID)


def run_cpsat(
    model: cp_model.CpModel,
    time_limit: float | None = None,
    seed: int = 0,
    workers: int = 2,
    started: float | None = None,
    budget: float | None = None,
    effort: Effort | None = None,
    **parameters,
) -> tuple[cp_model.CpSolver, int]:
    """Solve ``model``; returns the solver (for values and bounds) and its status.

    With ``started`` (a ``time.perf_counter()`` reading), the time spent since
    then building the model counts against ``time_limit``: CP-SAT's search
    cannot be interrupted, so it gets only what is left. ``budget`` is CP-SAT
    deterministic time; ``effort`` receives the deterministic time spent and
    why the search stopped (:func:`stop_cause`). ``parameters`` are further
    CP-SAT parameters by name.
    """
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers if budget is None else 1
    solver.parameters.random_seed = seed
    for name, value in parameters.items():
        setattr(solver.parameters, name, value)
    if budget is not None:
        solver.parameters.max_deterministic_time = max(1e-6, budget)
    if time_limit is not None:
        spent = 0.0 if started is None else time.perf_counter() - started
        solver.parameters.max_time_in_seconds = max(1e-3, time_limit - spent)
    status = solver.solve(model)
    if effort is not None:
        effort.add(solver.deterministic_time, stop_cause(solver, status, budget))
    return solver, status


def stop_cause(solver: cp_model.CpSolver, status: int, budget: float | None) -> str | None:
    """Why a CP-SAT search ended unfinished: ``None`` (it finished), ``"budget"`` or ``"wall clock"``.

    The budget is the cause when one was given and the search used it up; otherwise the time
    limit cut it (the only other limit set).
    """
    if status in FINISHED:
        return None
    if budget is not None and solver.deterministic_time >= budget * (1 - 1e-9):
        return STOPPED_BUDGET
    return STOPPED_CLOCK


__all__ = ["FINISHED", "run_cpsat", "stop_cause"]
