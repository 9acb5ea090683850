"""How every CP-SAT model of volsched is run: workers, seed and time limit (DESIGN.md: 2 cores)."""

from __future__ import annotations

from ortools.sat.python import cp_model


def run_cpsat(model: cp_model.CpModel, time_limit: float | None = None, seed: int = 0,
              workers: int = 2) -> tuple[cp_model.CpSolver, int]:
    """Solve ``model``; returns the solver (for values and bounds) and its status."""
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = time_limit
    return solver, solver.solve(model)
