"""OFF-LINE-COUPLED (mu = 1) as a MILP through PuLP and its bundled CBC (same model as :mod:`.cpsat`)."""

from __future__ import annotations

import numpy as np
import pulp

from ..deadline import HardStop, kill_children


def solve_milp(up: np.ndarray, m: int, time_limit: float | None = None,
               ) -> tuple[list[int], int | None, int | None, bool]:
    """``(processors, value, bound, proven)``."""
    p, horizon = up.shape
    prob = pulp.LpProblem("offline_coupled", pulp.LpMaximize)
    x = [prob.add_variable(f"x{q}", cat="Binary") for q in range(p)]
    y = [prob.add_variable(f"y{t}", cat="Binary") for t in range(horizon)]
    prob += pulp.lpSum(y)
    prob += pulp.lpSum(x) == m
    for q, t in zip(*np.nonzero(~up), strict=True):
        prob += x[q] + y[t] <= 1
    solver = pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit)
    try:
        prob.solve(solver)
    except HardStop:
        kill_children("cbc")  # CBC reads and presolves a large model without looking at its limit
        raise
    status = pulp.LpStatus[prob.status]
    if status != "Optimal" and prob.sol_status not in (pulp.LpSolutionIntegerFeasible,):
        return [], None, None, False
    chosen = [q for q in range(p) if (x[q].value() or 0) > 0.5]
    value = int(round(pulp.value(prob.objective) or 0))
    proven = status == "Optimal" and prob.sol_status == pulp.LpSolutionOptimal
    return chosen, value, value if proven else None, proven
