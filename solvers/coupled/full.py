"""Problem ``full``: proven bounds for any size, the exact CP-SAT model when ``p H`` is small.

Lower bounds: the ``iterations`` optimum (relaxing communication can only
lower the makespan, :mod:`.iterations`) and :func:`trivial_bound`.
Upper bound: the :func:`.full_greedy.greedy_full` schedule, improved by the
model of :mod:`.full_cpsat` (hinted with it) when the method is ``cpsat``.
The outcome is proven when the bounds meet or CP-SAT proves it. When not even
the communication-free relaxation fits ``K`` iterations in the horizon, no
schedule does: the outcome is a proven infeasibility.
"""

from __future__ import annotations

import time

from volsched.instances.coupled import CoupledInstance
from volsched.instances.errors import require

from ..problem import MethodOutcome, backend
from .full_greedy import greedy_full
from .iterations import min_workload, solve_iterations

MAX_CELLS = 2000
"""Largest ``p x H`` the CP-SAT model accepts (about a dozen variables per processor and slot)."""


def trivial_bound(instance: CoupledInstance) -> int:
    """``T_prog + K (T_data + W_min)``, a lower bound on the makespan.

    ``W_min`` is the smallest ``max_q x_q w_q`` over allocations of ``m`` tasks
    (water-filling, each processor capped by ``mu_q``). Within an attempt every
    transfer precedes every computation, an enrolled worker needs at least
    ``T_data`` data slots, and the first iteration needs the program somewhere.
    """
    low = min_workload(instance, range(instance.p))
    return instance.T_prog + instance.K * (instance.T_data + low)


def solve_full(instance: CoupledInstance, time_limit: float | None, seed: int, model: bool) -> MethodOutcome:
    """Bounds, the greedy schedule, and with ``model`` the exact CP-SAT model.

    ``model=True`` needs ``p H <= MAX_CELLS`` (bad input otherwise: use
    ``greedy``). The model gets what is left of ``time_limit`` after the
    bounds; when nothing is left it is not run, and ``info.model`` says so.
    """
    if model:
        require(instance.p * instance.horizon <= MAX_CELLS, "--method",
                f"cpsat builds a time-indexed model of p x H <= {MAX_CELLS} processor-slots; this instance "
                f"has {instance.p} x {instance.horizon} = {instance.p * instance.horizon}: "
                "use --method greedy for proven bounds")
    begin = time.perf_counter()
    relaxed = solve_iterations(instance)
    if len(relaxed) < instance.K:
        return MethodOutcome({"completed_iterations_without_communication": len(relaxed)}, None,
                             instance.horizon + 1, True)
    lower_bounds = {"iterations": relaxed[-1].completion + 1, "communication": trivial_bound(instance)}
    lower = max(lower_bounds.values())
    schedule = greedy_full(instance)
    upper = None if schedule is None else schedule["completions"][-1] + 1
    source = None if schedule is None else "greedy"
    ran, proven_infeasible = "not requested (method greedy)", False
    if model and (upper is None or upper > lower):
        left = None if time_limit is None else time_limit - (time.perf_counter() - begin)
        if left is not None and left <= 0:
            ran = "not run: the time limit was spent on the bounds"
        else:
            solve_full_cpsat = backend(f"{__package__}.full_cpsat", "solve_full_cpsat", "ortools")
            found, makespan, bound, proven = solve_full_cpsat(instance, left, seed, hint=schedule)
            ran = "proven" if proven else "stopped"
            lower = max(lower, bound)
            if found is not None and (upper is None or makespan < upper):
                schedule, upper, source = found, makespan, "cpsat"
            proven_infeasible = proven and found is None
            if proven and upper is not None:
                lower = upper
    elif model:
        ran = "not needed: the greedy schedule meets the lower bound"
    info = {"model": ran, "source": source}
    witness = {"lower_bounds": lower_bounds, "source": source, "model": ran}
    if proven_infeasible:
        return MethodOutcome(witness, None, None, True, info)
    if upper is None:
        return MethodOutcome(witness, None, lower, False, info)
    return MethodOutcome({**witness, "schedule": schedule}, upper, min(lower, upper), upper <= lower, info)


__all__ = ["MAX_CELLS", "solve_full", "trivial_bound"]
