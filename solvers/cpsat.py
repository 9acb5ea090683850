"""How every CP-SAT model of volsched is run: workers, seed and time limit (DESIGN.md: 2 cores)."""

from __future__ import annotations

import time

from ortools.sat.python import cp_model


def run_cpsat(model: cp_model.CpModel, time_limit: float | None = None, seed: int = 0,
              workers: int = 2, started: float | None = None) -> tuple[cp_model.CpSolver, int]:
    """Solve ``model``; returns the solver (for values and bounds) and its status.

    With ``started`` (a ``time.perf_counter()`` reading), the time spent since
    then building the model counts against ``time_limit``: CP-SAT's search
    cannot be interrupted, so it gets only what is left.
    """
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    if time_limit is not None:
        spent = 0.0 if started is None else time.perf_counter() - started
        solver.parameters.max_time_in_seconds = max(1e-3, time_limit - spent)
    return solver, solver.solve(model)
