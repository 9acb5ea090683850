"""Problem ``full``: proven bounds for any size, the exact CP-SAT model when ``p H`` is small.

Lower bounds: the ``iterations`` optimum (relaxing communication can only
lower the makespan, :mod:`.iterations`), :func:`trivial_bound`,
:func:`transfer_bound` (the master's bandwidth) and the data chain of
:mod:`.full_bound` (unlimited bandwidth, the data phase and the program kept).
Upper bound: the :func:`.full_greedy.greedy_full` schedule, then a shorter one
from the search over iterations that tracks the program holders
(:mod:`.full_holders`) when the greedy's does not meet the lower bound, improved
by the model of :mod:`.full_cpsat` (hinted with it) when the method is ``cpsat``.
When the bounds still differ, the holder bound of :mod:`.full_holders_bound`
(a relaxed search that knows who may hold the program) lifts the lower one, and schedules that
follow its relaxed path one exact iteration at a time (:mod:`.full_windows`) may meet it.
When the greedy's two plain passes end at :data:`HOLDERS_FIRST` slots or later, the two
holder methods run between them and its rollouts, which then run only if the bounds still
differ, and the holder methods again if the rollouts find an earlier schedule: a rollout
replays every remaining slot in each of its trials.
The outcome is proven when the bounds meet or CP-SAT proves it. When not even
the communication-free relaxation fits ``K`` iterations in the horizon, no
schedule does: the outcome is a proven infeasibility; the same holds for the
data chain.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from volsched.instances.errors import require

from ..problem import STOPPED_BUDGET, STOPPED_CLOCK, Allowance, Effort, MethodOutcome, backend
from .allocations import MAX_COMPLETABLE, trackable
from .full_bound import DataChain
from .full_greedy import plain_passes, rollout_passes
from .full_holders import holder_search
from .full_holders_bound import SUBSET_LIMITS, holders_bound
from .iterations import min_workload, solve_iterations

if TYPE_CHECKING:
    from volsched.instances.coupled import CoupledInstance

MAX_CELLS = 2000
"""Largest ``p x H`` the CP-SAT model accepts (about a dozen variables per processor and slot)."""

#: States the holder bound (:mod:`.full_holders_bound`) expands at most in one pass: beyond,
#: that pass gives no bound and the finer ones do not run (a fixed count, so the same on every
#: machine).
BOUND_STATES = 5000

#: From this makespan of the plain greedy passes on, the holder methods run before the greedy's
#: rollouts, not after (a makespan in slots: the same order on every machine).
HOLDERS_FIRST = 20_000


class _Found:
    """The best schedule so far (its makespan, which method found it) and the best lower bound."""

    def __init__(self, lower: int, lower_bounds: dict[str, int]):
        self.schedule: dict | None = None
        self.upper: int | None = None
        self.source: str | None = None
        self.lower, self.lower_bounds = lower, lower_bounds
        self.note: str | None = None

    def offer(self, schedule: dict | None, source: str) -> None:
        """Keep ``schedule`` if it completes earlier than the best so far."""
        makespan = None if schedule is None else schedule["completions"][-1] + 1
        if makespan is not None and (self.upper is None or makespan < self.upper):
            self.schedule, self.upper, self.source = schedule, makespan, source

    def open(self) -> bool:
        """Whether a schedule is known and the bounds still differ."""
        return self.upper is not None and self.upper > self.lower


class Windows:
    """The windows of :mod:`.full_windows` one solve has solved, by ``(start, holders, length,
    gather, excluded)``, and the CP-SAT deterministic time they spent (``FOLLOW_BUDGET`` caps it):
    the holder methods run again after a better incumbent, and follow the same windows."""

    def __init__(self) -> None:
        self.solved: dict[tuple, dict | None] = {}
        self.spent = Effort()


def trivial_bound(instance: CoupledInstance) -> int:
    """``T_prog + K (T_data + W_min)``, a lower bound on the makespan.

    ``W_min`` is the smallest ``max_q x_q w_q`` over allocations of ``m`` tasks
    (water-filling, each processor capped by ``mu_q``). Within an attempt every
    transfer precedes every computation, an enrolled worker needs at least
    ``T_data`` data slots, and the first iteration needs the program somewhere.
    """
    low = min_workload(instance, range(instance.p))
    return instance.T_prog + instance.K * (instance.T_data + low)


#: Allocations enumerated at most for the one-iteration transfer bound; beyond, the relaxed form.
MAX_ALLOCATIONS = 200_000


def transfer_bound(instance: CoupledInstance) -> int:
    """A lower bound from the master's bandwidth: transfer slots plus computation slots.

    Section III: a slot in which an attempt computes has no transfer (every
    enrolled worker must receive nothing, III-A, and transfers go only to
    enrolled workers, III-C), and the master sends at most ``n_com`` messages
    per slot and one to a processor (III-B). Nobody holds the program at the
    start and data never crosses iterations, so ``K`` iterations on
    allocations with at least ``k`` workers need ``k T_prog + K m T_data``
    transfers and ``K W_min`` computing slots:

    .. math:: C \\ge \\lceil (k_{min} T_{prog} + K m T_{data}) / n_{com} \\rceil + K W_{min}.

    With ``K = 1`` the bound is taken per allocation ``x`` (``k(x)`` workers,
    workload ``W(x) = max x_q w_q``, and the busiest worker's own
    ``T_prog + x_q T_data`` transfer slots) and minimised over every
    allocation, when there are at most :data:`MAX_ALLOCATIONS`.
    """
    p, m, big_k = instance.p, instance.m, instance.K
    t_prog, t_data, n_com = instance.T_prog, instance.T_data, instance.n_com
    caps = [int(min(instance.mu[q], m)) for q in range(p)]
    w = [int(v) for v in instance.w]
    if big_k == 1:
        best = _per_allocation_bound(caps, w, m, t_prog, t_data, n_com)
        if best is not None:
            return best
    k_min = next(k for k in range(1, p + 1) if sum(sorted(caps, reverse=True)[:k]) >= m)
    return -(-(k_min * t_prog + big_k * m * t_data) // n_com) + big_k * min_workload(instance, range(p))


def _per_allocation_bound(caps, w, m, t_prog, t_data, n_com) -> int | None:
    """``min_x [max(ceil((k(x) T_prog + m T_data) / n_com), T_prog + max_q x_q T_data) + W(x)]``."""
    p = len(caps)
    room = [sum(caps[q:]) for q in range(p)] + [0]
    best, visited = None, 0
    x = [0] * p

    def walk(q: int, left: int) -> bool:
        nonlocal best, visited
        visited += 1
        if visited > MAX_ALLOCATIONS:
            return False
        if left == 0:
            chosen = [v for v in x if v]
            sends = max(-(-(len(chosen) * t_prog + m * t_data) // n_com), t_prog + max(chosen) * t_data)
            value = sends + max(x[j] * w[j] for j in range(p))
            best = value if best is None else min(best, value)
            return True
        if q == p or room[q] < left:
            return True
        for v in range(min(caps[q], left), -1, -1):
            x[q] = v
            if not walk(q + 1, left - v):
                x[q] = 0
                return False
        x[q] = 0
        return True

    return best if walk(0, m) else None


def _holder_methods(
    instance: CoupledInstance,
    found: _Found,
    guide: DataChain,
    allowance: Allowance,
    deadline: float | None,
    windows: Windows,
) -> None:
    """The holder search on the best schedule's makespan, then the holder bound's passes, then, where
    a gap is left, the schedules that follow the bound's path (:mod:`.full_windows`, in the solve's
    ``windows``)."""
    layers: list = []
    if found.open() and not allowance.charge(0):
        found.offer(holder_search(instance, found.upper, guide, allowance, layers), "holders")
    path: list[tuple[int, int]] = []
    for subsets in SUBSET_LIMITS:  # a finer pass only where the coarser one did not prove
        if not found.open() or allowance.charge(0):
            break
        left = None if allowance.budget is None else allowance.budget - allowance.effort.work
        own = Allowance(BOUND_STATES if left is None else min(BOUND_STATES, left), deadline)
        own_path: list[tuple[int, int]] = []
        held = holders_bound(instance, found.upper, guide, own, subsets, path=own_path)
        allowance.charge(own.effort.work)
        if held is None:
            capped = own.effort.stopped == STOPPED_BUDGET and own.budget == BOUND_STATES
            if capped and "holders" not in found.lower_bounds:
                found.note = f"stopped at its {BOUND_STATES:,} states: no bound"
            elif own.effort.stopped is None and trackable(instance) and "holders" not in found.lower_bounds:
                found.note = f"a state has more than {MAX_COMPLETABLE:,} allocations to list: no bound"
            break
        path = own_path
        found.lower_bounds["holders"] = max(held, found.lower_bounds.get("holders", held))
        found.lower, found.note = max(found.lower, held), None
    if found.open() and path and not allowance.charge(0):
        follow_path = backend(f"{__package__}.full_windows", "follow_path", "ortools")  # as full_cpsat
        found.offer(follow_path(instance, path, found.upper, layers, allowance, windows), "windows")


def solve_full(
    instance: CoupledInstance, time_limit: float | None, seed: int, model: bool, budget: float | None = None
) -> MethodOutcome:
    """Bounds, the greedy schedule, and with ``model`` the exact CP-SAT model.

    ``model=True`` needs ``p H <= MAX_CELLS`` (bad input otherwise: use
    ``greedy``). The model gets what is left of ``time_limit`` after the
    bounds; when nothing is left it is not run, and ``info.model`` says so.
    ``budget`` is, for ``greedy``, the compiled greedy calls of its passes;
    for ``cpsat``, the model's CP-SAT deterministic time (the greedy that
    hints it then runs whole: its instances are small).
    """
    if model:
        require(
            instance.p * instance.horizon <= MAX_CELLS,
            "--method",
            f"cpsat builds a time-indexed model of p x H <= {MAX_CELLS} processor-slots; this instance "
            f"has {instance.p} x {instance.horizon} = {instance.p * instance.horizon}: "
            "use --method greedy for proven bounds",
        )
    begin = time.perf_counter()
    relaxed = solve_iterations(instance)
    if len(relaxed) < instance.K:
        return MethodOutcome(
            {"completed_iterations_without_communication": len(relaxed)}, None, instance.horizon + 1, True
        )
    guide = DataChain(instance)
    chain = guide.completions()
    if len(chain) < instance.K:
        witness = {
            "completed_iterations_without_communication": len(relaxed),
            "completed_iterations_data_chain": len(chain),
        }
        return MethodOutcome(witness, None, instance.horizon + 1, True)
    lower_bounds = {
        "iterations": relaxed[-1].completion + 1,
        "communication": trivial_bound(instance),
        "transfers": transfer_bound(instance),
        "data_chain": chain[-1] + 1,
    }
    lower = max(lower_bounds.values())
    effort, greedy_effort = Effort(), Effort()
    deadline = None if time_limit is None else begin + time_limit
    allowance = Allowance(None if model else budget, deadline, greedy_effort)
    found = _Found(lower, lower_bounds)
    windows = Windows()  # shared by the holder methods' runs in this solve
    schedule, rolls = plain_passes(instance, allowance, lower)
    found.offer(schedule, "greedy")
    if rolls and found.upper is not None and found.upper >= HOLDERS_FIRST:
        # On a long realization each rollout trial replays every slot to the last iteration, where
        # the holder methods' cost does not grow with the slots: they go first, and the rollouts
        # only run on what they leave open.
        _holder_methods(instance, found, guide, allowance, deadline, windows)
        if found.open() and not allowance.charge(0):
            before = found.upper
            found.offer(rollout_passes(instance, allowance, found.lower, guide, found.schedule), "greedy")
            if found.upper < before:
                _holder_methods(instance, found, guide, allowance, deadline, windows)
    else:
        if rolls and found.open():
            found.offer(rollout_passes(instance, allowance, found.lower, guide, found.schedule), "greedy")
        if found.schedule is None:  # which limit, if any, stopped the passes
            allowance.charge(0)
        _holder_methods(instance, found, guide, allowance, deadline, windows)
    schedule, upper, source, lower = found.schedule, found.upper, found.source, found.lower
    holders_note = found.note
    if not model:  # the greedy's calls are the method's work; under the model, its deterministic time
        effort = greedy_effort
    effort.stopped = greedy_effort.stopped
    late = schedule is None and greedy_effort.stopped is not None
    ran, proven_infeasible = "not requested (method greedy)", False
    if model and (upper is None or upper > lower):
        left = None if time_limit is None else time_limit - (time.perf_counter() - begin)
        if left is not None and left <= 0:
            ran = "not run: the time limit was spent on the bounds"
        else:
            solve_full_cpsat = backend(f"{__package__}.full_cpsat", "solve_full_cpsat", "ortools")
            found, makespan, bound, proven = solve_full_cpsat(
                instance, left, seed, hint=schedule, budget=budget, effort=effort
            )
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
    if holders_note:
        info["holder_bound"] = holders_note
    if late and upper is None:
        cause = "time limit" if greedy_effort.stopped == STOPPED_CLOCK else "work budget"
        info["stopped"] = f"the greedy schedule was stopped by the {cause}"
    witness = {"lower_bounds": lower_bounds, "source": source, "model": ran}
    done = {"stopped": effort.stopped, "work": effort.work}
    if proven_infeasible:
        return MethodOutcome(witness, None, None, True, info, **done)
    if upper is None:
        return MethodOutcome(witness, None, lower, False, info, **done)
    return MethodOutcome(
        {**witness, "schedule": schedule}, upper, min(lower, upper), upper <= lower, info, **done
    )


__all__ = ["BOUND_STATES", "MAX_CELLS", "solve_full", "trivial_bound"]
