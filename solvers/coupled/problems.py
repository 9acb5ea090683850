"""The four exact problems of the coupled family, each with its methods, verifier and metrics.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Sections III and IV:

* ``offline-coupled`` (mu = 1, no communication, identical ``w``): the most
  slots in which some ``m`` processors are all UP, a fixed-size maximum
  biclique. Methods ``bnb`` (:mod:`.bnb`), ``cpsat`` (:mod:`.offline_cpsat`),
  ``milp`` (:mod:`.offline_milp`), ``brute`` (:mod:`.offline_brute`, p <= 16).
  The decision form (ENCD) is answered alongside: an iteration of ``w`` slots
  fits iff the optimum is at least ``w``.
* ``offline-coupled-inf`` (mu = inf): the earliest slot by which one
  iteration completes. ``bnb`` (:mod:`.offline_inf`), ``brute``
  (:mod:`.offline_inf_brute`).
* ``iterations``: the makespan of ``K`` iterations, communication relaxed.
  ``chain`` (:mod:`.iterations`), ``cpsat`` (:mod:`.iterations_cpsat`),
  ``brute`` (:mod:`.iterations_brute`).
* ``full``: the makespan of ``K`` iterations under every rule of Section III.
  ``cpsat`` (bounds, the greedy schedule and the exact model of
  :mod:`.full_cpsat`, for ``p H <= MAX_CELLS``), ``greedy`` (bounds and
  the greedy schedule only, any size; see :mod:`.full`) and ``search`` (the greedy
  and bounds, then the exact search over iteration completions of
  :mod:`.full_search`, on a budget of ``states``). Without ``--method``,
  ``cpsat`` where the model fits and ``greedy`` beyond; ``greedy`` is first
  (the method a sweep uses when it names none: it takes every size).

Each method below only adapts its module's answer to a
:class:`~volsched.solvers.MethodOutcome`; verification and status are
:func:`volsched.solvers.finish`'s.
"""

from __future__ import annotations

import dataclasses
import functools

from volsched.instances.coupled import CoupledInstance, generate_markov, paper_realization
from volsched.instances.errors import require

from ..problem import Allowance, Effort, MethodOutcome, Metric, Problem, backend
from ..result import Infeasible, reject_unless
from .bnb import solve_bnb
from .full import MAX_CELLS, solve_full
from .full_bound import DataChain
from .full_holders import holder_search
from .full_holders_bound import holders_bound
from .full_search import solve_full_search
from .horizon import cut, reading
from .iterations import Iteration, schedule_of, solve_iterations
from .iterations_brute import iterations_brute
from .offline_brute import solve_brute
from .offline_inf import solve_offline_inf
from .offline_inf_brute import solve_offline_inf_brute
from .replay import check_claim, claimed_completions, replay
from .verify import verify_offline, verify_offline_inf


def trivial_bound(up, m: int) -> int:
    """Slots in which at least ``m`` processors are UP: no m-set can share more."""
    return int((up.sum(axis=0) >= m).sum())


# --- offline-coupled (mu = 1) ------------------------------------------------


def _offline_outcome(
    instance: CoupledInstance, chosen, value, bound, proven, info=None, effort: Effort | None = None
) -> MethodOutcome:
    done = {} if effort is None else {"stopped": effort.stopped, "work": effort.work}
    if value is None:
        return MethodOutcome(None, None, trivial_bound(instance.up, instance.m), False, info or {}, **done)
    bound = trivial_bound(instance.up, instance.m) if bound is None else bound
    return MethodOutcome(
        {"processors": sorted(int(q) for q in chosen)}, value, bound, proven, info or {}, **done
    )


def _offline_bnb(instance, time_limit, seed, budget=None):
    effort = Effort()
    rows, value, bound, nodes = solve_bnb(instance.up, instance.m, time_limit, budget, effort)
    return _offline_outcome(instance, rows, value, bound, value == bound, {"nodes": int(nodes)}, effort)


def _offline_cpsat(instance, time_limit, seed, budget=None):
    solve_cpsat = backend(f"{__package__}.offline_cpsat", "solve_cpsat", "ortools")
    effort = Effort()
    found = solve_cpsat(instance.up, instance.m, time_limit, seed, budget=budget, effort=effort)
    return _offline_outcome(instance, *found, effort=effort)


def _offline_milp(instance, time_limit, seed, budget=None):
    solve_milp = backend(f"{__package__}.offline_milp", "solve_milp", "pulp")
    effort = Effort()
    found = solve_milp(
        instance.up, instance.m, time_limit, effort=effort, max_nodes=None if budget is None else int(budget)
    )
    return _offline_outcome(instance, *found, effort=effort)


def _offline_brute(instance, time_limit, seed, budget=None):
    chosen, value = solve_brute(instance.up, instance.m)
    return _offline_outcome(instance, chosen, value, value, True)


def _check_offline(instance: CoupledInstance) -> None:
    require(instance.m <= instance.p, "m", f"m = {instance.m} exceeds the {instance.p} processors (mu = 1)")


def _processors(solution) -> list:
    reject_unless(isinstance(solution, dict) and "processors" in solution, "solution.processors", "missing")
    return solution["processors"]


def _verify_offline(instance, solution) -> int:
    return verify_offline(instance, _processors(solution))


def _describe_offline(instance, solution, value, bound) -> dict:
    out = {}
    w = int(instance.w.max())
    if int(instance.w.min()) == w:
        fits = True if value >= w else (False if bound is not None and bound < w else None)
        out["decision"] = {"w": w, "iteration_fits": fits}
    return out


# --- offline-coupled-inf (mu = inf) ------------------------------------------


def _identical_w(instance: CoupledInstance) -> None:
    require(
        bool((instance.w == instance.w[0]).all()), "w", "offline-coupled-inf needs identical w (Section IV)"
    )


def _inf_bnb(instance, time_limit, seed, budget=None):
    effort = Effort()
    rows, _, completion, lower, proven = solve_offline_inf(
        instance.up, instance.m, int(instance.w[0]), time_limit, budget, effort
    )
    done = {"stopped": None if proven else effort.stopped, "work": effort.work}
    if completion is None:
        return MethodOutcome(None, None, None, proven, **done)
    return MethodOutcome({"processors": sorted(int(q) for q in rows)}, completion, lower, proven, **done)


def _inf_brute(instance, time_limit, seed, budget=None):
    rows, completion = solve_offline_inf_brute(instance.up, instance.m, int(instance.w[0]))
    if completion is None:
        return MethodOutcome(None, None, None, True)
    return MethodOutcome({"processors": sorted(int(q) for q in rows)}, completion, completion, True)


def _verify_inf(instance, solution) -> int:
    return verify_offline_inf(instance, _processors(solution))


def _describe_inf(instance, solution, value, bound) -> dict:
    k = len(solution["processors"])
    per = -(-instance.m // k)
    return {
        "k": k,
        "tasks_per_processor": per,
        "workload": per * int(instance.w[0]),
        "completion_slots": int(value),
    }


# --- iterations and full: schedules --------------------------------------------


def _schedule(solution) -> dict:
    reject_unless(isinstance(solution, dict) and "schedule" in solution, "solution.schedule", "missing")
    return solution["schedule"]


def _replay_partial(instance: CoupledInstance, solution: dict, communication: bool) -> dict:
    """A witness that completes fewer than ``K`` iterations: its claimed completions must replay."""
    schedule = _schedule(solution)
    completed = replay(instance, schedule, communication=communication)
    claimed = claimed_completions(schedule)
    if claimed != completed:
        raise Infeasible(f"schedule.completions: claimed {claimed!r} but the replay completes at {completed}")
    return {"makespan": None, "completed_iterations": len(completed), "iterations": len(completed)}


def _chained(instance: CoupledInstance, done: list[Iteration]) -> MethodOutcome:
    rows = [
        {"start": it.start, "completion": it.completion, "allocation": list(it.allocation)} for it in done
    ]
    schedule = schedule_of(instance, rows)
    if len(rows) == instance.K:
        makespan = rows[-1]["completion"] + 1
        return MethodOutcome({"schedule": schedule}, makespan, makespan, True)
    return MethodOutcome({"schedule": schedule}, None, instance.horizon + 1, True)


def _iterations_chain(instance, time_limit, seed, budget=None):
    return _chained(instance, solve_iterations(instance))


def _iterations_brute(instance, time_limit, seed, budget=None):
    return _chained(
        instance,
        [
            Iteration(start=s, completion=c, allocation=tuple(x), workload=w)
            for s, c, x, w in iterations_brute(instance)
        ],
    )


def _iterations_cpsat(instance, time_limit, seed, budget=None):
    solve_iterations_cpsat = backend(f"{__package__}.iterations_cpsat", "solve_iterations_cpsat", "ortools")
    effort = Effort()
    rows, makespan, bound, proven = solve_iterations_cpsat(
        instance, time_limit, seed, budget=budget, effort=effort
    )
    return MethodOutcome(
        {"schedule": schedule_of(instance, rows or [])},
        makespan,
        bound,
        proven,
        stopped=effort.stopped,
        work=effort.work,
    )


def _verify_iterations(instance, solution) -> int:
    return check_claim(instance, _schedule(solution), communication=False)


def _verify_full(instance, solution) -> int:
    return check_claim(instance, _schedule(solution), communication=True)


def _describe_schedule(instance, solution, value, bound) -> dict:
    done = len(solution["schedule"]["completions"])
    return {"makespan": int(value), "completed_iterations": done, "iterations": done}


def _full_partial(instance, solution) -> dict:
    return _replay_partial(instance, solution, True) if "schedule" in solution else {"makespan": None}


def _full_cpsat(instance, time_limit, seed, budget=None):
    return solve_full(instance, time_limit, seed, model=True, budget=budget)


def _full_greedy(instance, time_limit, seed, budget=None):
    return solve_full(instance, time_limit, seed, model=False, budget=budget)


def _full_search(instance, time_limit, seed, budget=None):
    """The search over the realization: on a prefix that is not the whole of it, only where the
    greedy has a schedule (:func:`.full_search.solve_full_search`)."""
    run = functools.partial(solve_full_search, longer=instance.extendable)
    return reading(run)(instance, time_limit, seed, budget)


def _stored(instance: CoupledInstance) -> int:
    """How far the time-indexed models read: the stored slots only. Their size is the file's, which its
    author chose (without a time limit, a model doubled up to its size cap ran for minutes); beyond,
    ``chain`` and ``greedy`` read the realization."""
    return instance.horizon


#: The methods whose kernels are compiled (numba), with the function that runs those kernels: each
#: is warmed before its clock starts (full's cpsat calls the greedy's kernels, on time-indexed models
#: too small for a realization).
_COMPILED = {
    "offline-coupled": {"bnb": _offline_bnb},
    "offline-coupled-inf": {"bnb": _inf_bnb},
    "iterations": {"chain": _iterations_chain},
    "full": {"greedy": _full_greedy, "cpsat": _full_greedy, "search": _full_greedy},
}


def warm(problem: str, method: str) -> None:
    """Run ``method`` of ``problem`` on a tiny instance: numba compiles (or loads from its cache)
    every kernel it calls, with the argument types of a real run. (The verifier's kernels compile
    on its first use; verification is outside the method's clock.)"""
    run = _COMPILED.get(problem, {}).get(method)
    if run is None:
        return
    if problem.startswith("offline"):
        instance = cut(generate_markov(8, 64, 3, 0), 64)
    else:
        instance = cut(paper_realization(5, 5, 1, 0, 0, slots=400), 400)
    run(instance, None, 0, None)
    if problem == "full":  # the holder search and bound run only where the greedy misses the bound
        short = cut(instance, 120)  # an iteration completes, and few allocations can: a quick warm-up
        holder_search(short, short.horizon + 1, DataChain(short), Allowance(2))
        holders_bound(short, short.horizon + 1, DataChain(short), Allowance(2))
        narrow = dataclasses.replace(short, n_com=1)  # the master must choose whom to serve
        holder_search(narrow, narrow.horizon + 1, DataChain(narrow), Allowance(2))


PROBLEMS: dict[str, Problem] = {
    "offline-coupled": Problem(
        name="offline-coupled",
        sense="max",
        methods={
            "bnb": _offline_bnb,
            "cpsat": _offline_cpsat,
            "milp": _offline_milp,
            "brute": _offline_brute,
        },
        verify=_verify_offline,
        check=_check_offline,
        describe=_describe_offline,
        budgets={"bnb": "nodes", "cpsat": "cpsat", "milp": "cbc-nodes"},
        warm=functools.partial(warm, "offline-coupled"),
        metrics=(Metric("common_up_slots", "max", "slots in which the m chosen processors are all UP"),),
    ),
    "offline-coupled-inf": Problem(
        name="offline-coupled-inf",
        sense="min",
        methods={"bnb": _inf_bnb, "brute": _inf_brute},
        verify=_verify_inf,
        check=_identical_w,
        describe=_describe_inf,
        budgets={"bnb": "nodes"},
        warm=functools.partial(warm, "offline-coupled-inf"),
        metrics=(Metric("completion_slots", "min", "slots until one iteration completes"),),
    ),
    "iterations": Problem(
        name="iterations",
        sense="min",
        methods={
            "chain": reading(_iterations_chain),
            "cpsat": reading(_iterations_cpsat, _stored),
            "brute": reading(_iterations_brute),
        },
        verify=_verify_iterations,
        describe=_describe_schedule,
        budgets={"cpsat": "cpsat"},
        warm=functools.partial(warm, "iterations"),
        verify_partial=lambda instance, solution: _replay_partial(instance, solution, False),
        metrics=(Metric("makespan", "min", "slots until K iterations complete, communication relaxed"),),
    ),
    "full": Problem(
        name="full",
        sense="min",
        methods={
            "greedy": reading(_full_greedy),
            "cpsat": reading(_full_cpsat, _stored),
            "search": _full_search,
        },
        verify=_verify_full,
        describe=_describe_schedule,
        verify_partial=_full_partial,
        budgets={"greedy": "greedy-calls", "cpsat": "cpsat", "search": "states"},
        warm=functools.partial(warm, "full"),
        choose=lambda instance: "cpsat" if instance.p * instance.horizon <= MAX_CELLS else "greedy",
        metrics=(
            Metric("makespan", "min", "slots until K iterations complete (Section III)"),
            Metric("failed", None, "an on-line run reached the cap before K iterations (VII-A)"),
            Metric("iterations", None, "iterations an on-line run completed"),
            Metric("switches", None, "configuration changes a proactive policy made (VI-B)"),
        ),
    ),
}
