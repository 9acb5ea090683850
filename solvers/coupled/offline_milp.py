"""OFF-LINE-COUPLED (mu = 1) as a MILP through PuLP and its bundled CBC (same model as :mod:`.cpsat`)."""

from __future__ import annotations

import time

import numpy as np
import pulp

from ..cbc import OPTIMAL, run_cbc
from ..deadline import HardStop
from ..problem import STOPPED_CLOCK, Effort


def solve_milp(
    up: np.ndarray,
    m: int,
    time_limit: float | None = None,
    max_nodes: int | None = None,
    effort: Effort | None = None,
) -> tuple[list[int], int | None, int | None, bool]:
    """``(processors, value, bound, proven)``.

    The value is proven (and is the bound) only when CBC's search finished (:func:`..cbc.run_cbc`),
    never after a stop on ``time_limit`` (wall clock) or ``max_nodes`` (CBC nodes, the
    deterministic budget). ``effort`` receives the nodes and the stop cause. When ``time_limit``
    passes while the model is built, or the hard time limit fires (:mod:`..deadline`), the
    outcome is a stop on the wall clock without a solution.
    """
    started = time.perf_counter()
    try:
        return _solve(up, m, time_limit, max_nodes, effort, started)
    except HardStop:
        if effort is not None:
            effort.add(0, STOPPED_CLOCK)
        return [], None, None, False


def _solve(up, m, time_limit, max_nodes, effort, started):
    p, horizon = up.shape
    prob = pulp.LpProblem("offline_coupled", pulp.LpMaximize)
    x = [prob.add_variable(f"x{q}", cat="Binary") for q in range(p)]
    y = [prob.add_variable(f"y{t}", cat="Binary") for t in range(horizon)]
    prob += pulp.lpSum(y)
    prob += pulp.lpSum(x) == m
    deadline = None if time_limit is None else started + time_limit
    for k, (q, t) in enumerate(zip(*np.nonzero(~up), strict=True)):
        if not k & 4095 and deadline is not None and time.perf_counter() > deadline:
            if effort is not None:
                effort.add(0, STOPPED_CLOCK)
            return [], None, None, False
        prob += x[q] + y[t] <= 1
    run = run_cbc(prob, time_limit, max_nodes, effort, started)
    if not run.solution:
        return [], None, None, False
    chosen = [q for q in range(p) if (x[q].value() or 0) > 0.5]
    value = int(round(pulp.value(prob.objective) or 0))
    proven = run.verdict == OPTIMAL
    return chosen, value, value if proven else None, proven
