"""Exact off-line problems of the coupled family (Casanova et al. 2013, Section IV).

Implemented so far: ``offline-coupled-inf`` (mu = infinity, the earliest slot by
which one iteration completes, :mod:`.flexible`; methods ``bnb`` and ``brute``)
and ``offline-coupled`` (mu = 1, no communication, identical w):
the most slots in which some ``m`` processors are all UP, a fixed-size maximum
biclique. Methods ``bnb`` (combinatorial branch-and-bound, the fast one),
``cpsat``, ``milp`` (PuLP + CBC) and ``brute`` (p <= 16). Every solution is
recounted by :func:`.verify.verify_offline` before it is reported. The
decision form (ENCD) is answered alongside: an iteration of ``w`` slots fits
iff the optimum is at least ``w``. The problem reads the availability and ``m``
only (it is the mu = 1, communication-free case of Section IV). A method
stopped without a bound of its own reports :func:`trivial_bound`.
"""

from __future__ import annotations

import time

from volsched.instances.coupled import FAMILY, CoupledInstance
from volsched.instances.errors import require

from ..result import SolveResult, SolveStatus, VerificationError
from .bnb import solve_bnb
from .brute import iterations_brute, solve_brute, solve_flexible_brute
from .cpsat import solve_cpsat
from .flexible import solve_flexible
from .full import MAX_CELLS as FULL_MAX_CELLS
from .full import solve_full_cpsat
from .full import trivial_bound as full_trivial_bound
from .greedy_full import greedy_full
from .iterations import Iteration, schedule_of, solve_iterations
from .iterations_cpsat import solve_iterations_cpsat
from .milp import solve_milp
from .replay import check_claim, replay
from .verify import verify_flexible, verify_offline

#: Each problem's methods; the first is its default.
PROBLEM_METHODS = {
    "offline-coupled": ("bnb", "cpsat", "milp", "brute"),
    "offline-coupled-inf": ("bnb", "brute"),
    "iterations": ("chain", "cpsat", "brute"),
    "full": ("cpsat",),
}
PROBLEMS = tuple(PROBLEM_METHODS)
METHODS = tuple(dict.fromkeys(m for methods in PROBLEM_METHODS.values() for m in methods))


def trivial_bound(up, m: int) -> int:
    """Slots in which at least ``m`` processors are UP: no m-set can share more."""
    return int((up.sum(axis=0) >= m).sum())


def _offline(instance: CoupledInstance, method: str, time_limit, seed,
             ) -> tuple[list[int], int | None, int | None, bool]:
    up, m = instance.up, instance.m
    if method == "bnb":
        chosen, value, bound, _ = solve_bnb(up, m, time_limit)
        return chosen, value, bound, value == bound
    if method == "cpsat":
        return solve_cpsat(up, m, time_limit, seed or 0)
    if method == "milp":
        return solve_milp(up, m, time_limit)
    chosen, value = solve_brute(up, m)
    return chosen, value, value, True


def solve(instance: CoupledInstance, problem: str | None = None, method: str | None = None,
          time_limit: float | None = None, seed: int | None = None) -> SolveResult:
    """Solve one of :data:`PROBLEMS` with one of its :data:`PROBLEM_METHODS` (default: the first)."""
    problem = problem or PROBLEMS[0]
    require(problem in PROBLEMS, "--problem", f"must be one of {list(PROBLEMS)}, got {problem!r}")
    methods = PROBLEM_METHODS[problem]
    method = method or methods[0]
    require(method in methods, "--method", f"{problem} has methods {list(methods)}, got {method!r}")
    if problem == "offline-coupled-inf":
        return _solve_flexible(instance, method, time_limit)
    if problem == "iterations":
        return _solve_iterations(instance, method, time_limit, seed)
    if problem == "full":
        return _solve_full(instance, time_limit, seed)
    require(instance.m <= instance.p, "m", f"m = {instance.m} exceeds the {instance.p} processors (mu = 1)")
    begin = time.perf_counter()
    chosen, value, bound, proven = _offline(instance, method, time_limit, seed)
    runtime = time.perf_counter() - begin
    if bound is None:
        bound = trivial_bound(instance.up, instance.m)
    if value is None:
        status = SolveStatus.UNKNOWN
    else:
        value = verify_offline(instance, [int(q) for q in chosen], value)
        status = SolveStatus.OPTIMAL if proven else SolveStatus.FEASIBLE
    solution = {"problem": "offline-coupled"}
    if value is not None:
        solution["processors"] = sorted(int(q) for q in chosen)
    w = int(instance.w.max())
    if value is not None and int(instance.w.min()) == w:
        fits = True if value >= w else (False if proven else None)
        solution["decision"] = {"w": w, "iteration_fits": fits}
    return SolveResult(family=FAMILY, instance=instance.name, method=method, status=status,
                       objective=None if value is None else float(value),
                       bound=None if bound is None else float(bound), runtime_s=runtime,
                       solution=solution, verified=value is not None)


def _solve_flexible(instance: CoupledInstance, method: str, time_limit) -> SolveResult:
    w = int(instance.w[0])
    require(bool((instance.w == w).all()), "w", "offline-coupled-inf needs identical w (Section IV)")
    begin = time.perf_counter()
    if method == "bnb":
        rows, _, completion, lower, proven = solve_flexible(instance.up, instance.m, w, time_limit)
    else:
        rows, completion = solve_flexible_brute(instance.up, instance.m, w)
        lower, proven = (completion if completion is not None else instance.horizon + 1), True
    runtime = time.perf_counter() - begin
    if completion is None:
        status = SolveStatus.INFEASIBLE if proven else SolveStatus.UNKNOWN
        return SolveResult(family=FAMILY, instance=instance.name, method=method, status=status,
                           objective=None, bound=None, runtime_s=runtime,
                           solution={"problem": "offline-coupled-inf"}, verified=False)
    rows = sorted(int(q) for q in rows)
    value = verify_flexible(instance, rows, completion)
    k = len(rows)
    return SolveResult(
        family=FAMILY, instance=instance.name, method=method,
        status=SolveStatus.OPTIMAL if proven else SolveStatus.FEASIBLE,
        objective=float(value), bound=float(lower), runtime_s=runtime,
        solution={"problem": "offline-coupled-inf", "processors": rows, "k": k,
                  "tasks_per_processor": -(-instance.m // k), "workload": -(-instance.m // k) * w,
                  "completion_slots": value},
        verified=True)


def _solve_iterations(instance: CoupledInstance, method: str, time_limit, seed) -> SolveResult:
    """Problem ``iterations``: the makespan (slots) of ``K`` iterations, communication relaxed.

    Proven infeasible when not even the optimal chain completes ``K``
    iterations in the horizon; the solution then holds the most iterations
    that do complete (the deadline form of Section IV).
    """
    begin = time.perf_counter()
    if method == "cpsat":
        rows, makespan, bound, proven = solve_iterations_cpsat(instance, time_limit, seed or 0)
    else:
        done = solve_iterations(instance) if method == "chain" else [
            Iteration(start=s, completion=c, allocation=tuple(x), workload=w)
            for s, c, x, w in iterations_brute(instance)]
        rows = [{"start": it.start, "completion": it.completion, "allocation": list(it.allocation)}
                for it in done]
        makespan = rows[-1]["completion"] + 1 if len(rows) == instance.K else None
        bound, proven = makespan or instance.horizon + 1, True
    runtime = time.perf_counter() - begin
    schedule = schedule_of(instance, rows or [])
    if makespan is not None:
        makespan = check_claim(instance, schedule, communication=False)
        completed = schedule["completions"]
        status = SolveStatus.OPTIMAL if proven and bound >= makespan else SolveStatus.FEASIBLE
    else:
        completed = replay(instance, schedule, communication=False)
        if completed != schedule["completions"]:
            raise VerificationError(f"coupled iterations: {method} claims {schedule['completions']}, "
                                    f"the replay completes at {completed}")
        status = SolveStatus.INFEASIBLE if proven else SolveStatus.UNKNOWN
    return SolveResult(family=FAMILY, instance=instance.name, method=method, status=status,
                       objective=None if makespan is None else float(makespan),
                       bound=float(bound), runtime_s=runtime,
                       solution={"problem": "iterations", "makespan": makespan,
                                 "completed_iterations": len(completed),
                                 "schedule": schedule},
                       verified=True)


def _solve_full(instance: CoupledInstance, time_limit, seed) -> SolveResult:
    """Problem ``full``: bounds for any size, the exact CP-SAT model when ``p H`` is small.

    Lower bound: the ``iterations`` optimum (relaxing communication can only
    lower the makespan) and :func:`.full.trivial_bound`. Upper bound: the
    :func:`.greedy_full.greedy_full` schedule, improved by the CP-SAT model
    (hinted with it) when ``p H <= MAX_CELLS``. ``optimal`` only when the
    bounds meet or CP-SAT proves it.
    """
    begin = time.perf_counter()
    relaxed = solve_iterations(instance)
    if len(relaxed) < instance.K:
        return SolveResult(family=FAMILY, instance=instance.name, method="cpsat",
                           status=SolveStatus.INFEASIBLE, objective=None, bound=float(instance.horizon + 1),
                           runtime_s=time.perf_counter() - begin,
                           solution={"problem": "full", "completed_iterations_without_communication":
                                     len(relaxed)}, verified=True)
    lower = max(relaxed[-1].completion + 1, full_trivial_bound(instance))
    schedule = greedy_full(instance)
    upper, source, model = None, None, "not built: p * H > MAX_CELLS"
    if schedule is not None:
        upper, source = check_claim(instance, schedule), "greedy"
    proven_infeasible = False
    if instance.p * instance.horizon <= FULL_MAX_CELLS and (upper is None or upper > lower):
        left = None if time_limit is None else max(0.1, time_limit - (time.perf_counter() - begin))
        found, makespan, bound, proven = solve_full_cpsat(instance, left, seed or 0, hint=schedule)
        model = "proven" if proven else "stopped"
        lower = max(lower, bound)
        if found is not None and (upper is None or makespan < upper):
            schedule, upper, source = found, check_claim(instance, found), "cpsat"
        proven_infeasible = proven and found is None
        if proven and upper is not None:
            lower = upper
    runtime = time.perf_counter() - begin
    if proven_infeasible:
        status = SolveStatus.INFEASIBLE
    elif upper is None:
        status = SolveStatus.UNKNOWN
    else:
        status = SolveStatus.OPTIMAL if upper <= lower else SolveStatus.FEASIBLE
    solution = {"problem": "full", "makespan": upper, "source": source, "model": model,
                "lower_bounds": {"iterations": relaxed[-1].completion + 1,
                                 "communication": full_trivial_bound(instance)}}
    if schedule is not None:
        solution["schedule"] = schedule
    return SolveResult(family=FAMILY, instance=instance.name, method="cpsat", status=status,
                       objective=None if upper is None else float(upper),
                       bound=None if proven_infeasible else float(min(lower, upper or lower)),
                       runtime_s=runtime, solution=solution, verified=upper is not None)


__all__ = ["METHODS", "PROBLEMS", "PROBLEM_METHODS", "check_claim", "replay", "solve", "verify_flexible",
           "verify_offline"]
