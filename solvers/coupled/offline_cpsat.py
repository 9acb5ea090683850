"""OFF-LINE-COUPLED (mu = 1) as a CP-SAT model: x_q (processor chosen), y_t (slot counted).

``sum_q x_q = m``; ``y_t + x_q <= 1`` for every slot ``t`` where ``q`` is not UP;
maximise ``sum_t y_t``. Finds good solutions fast, but its LP bound is weak
(DESIGN.md, Known pitfalls): use ``bnb`` for proofs.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np
from ortools.sat.python import cp_model

from ..cpsat import run_cpsat

if TYPE_CHECKING:
    from ..problem import Effort


def solve_cpsat(
    up: np.ndarray,
    m: int,
    time_limit: float | None = None,
    seed: int = 0,
    workers: int = 2,
    budget: float | None = None,
    effort: Effort | None = None,
) -> tuple[list[int], int | None, int, bool]:
    """``(processors, value, bound, proven)``; ``value`` is ``None`` when no solution was found.

    ``budget``: CP-SAT deterministic time; ``effort`` receives what was spent and why it stopped.
    """
    started = time.perf_counter()
    p, horizon = up.shape
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{q}") for q in range(p)]
    y = [model.new_bool_var(f"y{t}") for t in range(horizon)]
    model.add(sum(x) == m)
    for q, t in zip(*np.nonzero(~up), strict=True):
        model.add_bool_or([x[q].Not(), y[t].Not()])
    model.maximize(sum(y))
    solver, status = run_cpsat(model, time_limit, seed, workers, started, budget, effort)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return [], None, None, False  # stopped before presolve: its bound means nothing
    chosen = [q for q in range(p) if solver.value(x[q])]
    return (
        chosen,
        int(round(solver.objective_value)),
        int(round(solver.best_objective_bound)),
        status == cp_model.OPTIMAL,
    )
