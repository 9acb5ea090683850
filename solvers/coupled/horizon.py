"""How far the schedule problems (``iterations``, ``full``) read an instance's realization.

The cap: heuristics run up to the paper's cap of 10^6 slots on
the same realization the exact methods read, and "the off-line problems then
read the prefix they need". An instance whose realization continues beyond
its stored horizon (:attr:`~volsched.instances.coupled.CoupledInstance.extendable`)
is therefore solved over its realization up to :func:`offline_limit`, not
over the stored slots only: a paper realization stores 2,000 slots, while
m = 10 makespans reach 10^5.

:func:`reading` runs a method on the stored slots first and, while it finds
no schedule of ``K`` iterations, on twice as many slots of the realization
(:meth:`~volsched.instances.coupled.CoupledInstance.realization`, prefix-stable),
up to the limit. What a method proves about a prefix stays true of the whole
realization:

* a schedule that completes within ``L`` slots and is optimal among those
  that do is optimal outright, since a better one would complete earlier,
  hence within ``L`` too;
* "no schedule completes within ``L`` slots" is the lower bound ``L + 1``;
  it is a proof of infeasibility only at the limit (the cap), where a run
  has failed too.

The verifiers replay a schedule on the realization as far as its entries
reach (:func:`~.replay.replay_horizon`), so a schedule read beyond the stored
slots closes with an idle entry at its end, as an on-line run does, and
replays on the original instance.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import TYPE_CHECKING

from volsched.instances.coupled import PAPER_CAP, CoupledInstance

from ..problem import STOPPED_CLOCK, MethodOutcome

if TYPE_CHECKING:
    from collections.abc import Callable

#: A method's next attempt on twice the slots is assumed to cost this many times its last one
#: (the methods are about linear in the slots read); an attempt that would overrun the time limit
#: is not started, and the outcome keeps the bound the last one proved.
GROWTH = 2.5


def offline_limit(instance: CoupledInstance) -> int:
    """The most slots the schedule problems read: the paper's cap, within the realization's length."""
    if not instance.extendable:
        return instance.horizon
    return max(instance.horizon, min(PAPER_CAP, instance.max_realization()))


def cut(instance: CoupledInstance, length: int) -> CoupledInstance:
    """The instance that stores the first ``length`` slots of the realization and goes no further."""
    if length == instance.horizon and not instance.extendable:
        return instance
    return dataclasses.replace(instance, availability=instance.realization(length), continuation_seed=None)


def reading(
    method: Callable[..., MethodOutcome], longest: Callable[[CoupledInstance], int] | None = None
) -> Callable[..., MethodOutcome]:
    """``method(instance, time_limit, seed, budget)`` run on as much of the realization as its answer needs.

    Parameters
    ----------
    method : callable
        A schedule method; it reads only the stored slots of the instance it is given.
    longest : callable, optional
        ``longest(instance)``: the most slots the method handles (a time-indexed model's size).

    Returns
    -------
    callable
        The method over the realization. ``info.slots_read`` says how far it read; an outcome
        without a schedule proves infeasibility only at :func:`offline_limit` (``info.reason``),
        and is otherwise unproven with the lower bound of the last prefix (``info.stopped``: by
        the time limit or the budget; ``info.horizon``: by the method's size). With a work
        ``budget``, each prefix gets what the shorter ones left of it, and the work adds up; the
        time limit's projection of the next prefix's cost is a safety net only.
    """

    @functools.wraps(method)
    def run(
        instance: CoupledInstance, time_limit: float | None, seed: int, budget: float | None = None
    ) -> MethodOutcome:
        def attempt(prefix, left, spent):
            if budget is None:
                return method(prefix, left, seed)
            return method(prefix, left, seed, budget - spent)

        if not instance.extendable:
            return attempt(instance, time_limit, 0.0)
        # The projection extrapolates an attempt's cost: numba's one-time compilation (or cache
        # load) in a fresh process is not part of it, or a cold first call stops the reading early.
        from numba.core.event import install_timer

        limit = offline_limit(instance)
        if longest is not None:
            limit = max(instance.horizon, min(limit, longest(instance)))
        begin = time.perf_counter()
        length, why, work, stopped = instance.horizon, None, 0.0, None
        while True:
            start = time.perf_counter()
            left = None if time_limit is None else time_limit - (start - begin)
            compiling: list[float] = []
            with install_timer("numba:compiler_lock", compiling.append):
                outcome = attempt(cut(instance, length), left, work)
            cost = time.perf_counter() - start - sum(compiling)
            work += outcome.work or 0.0
            stopped = outcome.stopped
            if outcome.objective is not None or length >= limit:
                break
            longer = min(2 * length, limit)
            if stopped is not None:
                why = f"stopped after {length:,} slots by the {stopped}"
                break
            spent = time.perf_counter() - begin
            if time_limit is not None and spent + GROWTH * cost * longer / length > time_limit:
                why = f"stopped after {length:,} slots: reading {longer:,} would overrun the time limit"
                stopped = STOPPED_CLOCK
                break
            length = longer
        info = {**outcome.info, "slots_read": length}
        outcome = dataclasses.replace(outcome, work=work, stopped=stopped)
        if length > instance.horizon:
            outcome = _closed(outcome, instance.p, length)
        if outcome.objective is not None:
            return dataclasses.replace(outcome, info=info)
        if length >= offline_limit(instance) and outcome.proven:
            info["reason"] = (
                f"no schedule completes K = {instance.K} iterations within the {length:,} "
                "slots the off-line problems read (the paper's cap)"
            )
            return dataclasses.replace(outcome, info=info)
        if why is None:
            info["horizon"] = f"the method reads at most {length:,} slots"
        else:
            info["stopped"] = why
        return dataclasses.replace(outcome, proven=False, info=info)

    return run


def _closed(outcome: MethodOutcome, p: int, length: int) -> MethodOutcome:
    """The outcome's schedule with an idle entry at its end: the makespan, or the slots read."""
    solution = outcome.solution
    schedule = solution.get("schedule") if isinstance(solution, dict) else None
    if not schedule or not schedule.get("configurations"):
        return outcome
    completions = schedule.get("completions") or []
    end = completions[-1] + 1 if outcome.objective is not None else length
    if schedule["configurations"][-1]["start"] >= end:
        return outcome
    closing = {"start": end, "allocation": [0] * p}
    schedule = {**schedule, "configurations": [*schedule["configurations"], closing]}
    return dataclasses.replace(outcome, solution={**solution, "schedule": schedule})


__all__ = ["GROWTH", "cut", "offline_limit", "reading"]
