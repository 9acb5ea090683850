"""Problem ``full``: schedules that follow the holder bound's path, one exact iteration at a time.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Section III, as replayed by :mod:`.replay`.

The holder bound (:mod:`.full_holders_bound`) ends on a relaxed path: per iteration, the slot
``s_k`` one past its completion and the set ``H_k`` of processors that may hold a program there.
Where the holder search (:mod:`.full_holders`) misses the bound, it is often one slot or one
holder off that path early on, and the loss compounds: a window where every fast processor is
UP closes before the late iteration can use it. The search's iterations enter one allocation and
a few preloads; the path may need several spares preloaded across iterations, or allocations
switched within one.

**Following the path.** From a real state ``(s, T)`` (the slot after ``k`` completed iterations,
``T`` exactly the processors holding a complete program), the exact time-indexed model of
:mod:`.full_cpsat` is solved on the window ``[s, s_{k+1})`` of the realization, with ``T``
holding programs at its first slot and one iteration to complete within it: the rules of Section
III, slot by slot, with nothing entered or sent after the completion. Among such iterations it
looks for one that leaves the most processors of ``H_{k+1} ∪ H_{k+2}`` holding a program (the
path's next holders), within a fixed CP-SAT deterministic time. The model's holders just after
the completion are the next state's ``T``, and the next window begins there with a new entry (an
idle one when the model enrols nobody at its first slot). A window where no iteration fits, or
one larger than :data:`.full.MAX_CELLS` processor-slots, is a dead end: the walk goes back one
window and solves it again, now with a program kept outside the holder set that led there (a state
with fewer holders, no earlier, is no better), at most :data:`BACKTRACKS` times per start; then
the attempt ends. Equal counts of the path's holders can leave different processors holding, and
only some of them reach the path's end.

The attempt starts from the beam states of the holder search that are at least as far along the
path as the bound (``s <= s_k`` and ``T ⊇ H_k``; their schedules so far are the prefix), the
latest first, then from the start ``(0, ∅)``. A schedule that follows the path to its end has the
bound's makespan, which proves it optimal; a window that completes earlier than the path's only
helps. Like every schedule, it goes through the replay (:func:`volsched.solvers.finish`).

This is a primal method: it looks for a schedule, it proves nothing by itself. Work is one unit
per window solved, charged to the caller's :class:`~volsched.solvers.problem.Allowance`, and each window
gets :data:`WINDOW_BUDGET` of CP-SAT deterministic time on one worker, all the windows of one solve
together :data:`FOLLOW_BUDGET` (a :class:`.full.Windows` lives as long as the solve: where the solve
follows a path again after a better incumbent, the windows it already solved are not solved
again): the same answer on every machine. A window first runs without CP-SAT's LP relaxation
(:data:`PARAMETERS`, at most :data:`FIRST_BUDGET`), then, if it found no iteration and proved
none, with it on the rest of its budget: on the paper realizations' windows of 200-2,000 cells
the LP's cuts took most of the time (a unit of deterministic time was 7-15 CPU seconds of one
core, about 2-7 without), and without them the first iteration that fits (mostly the one kept)
usually comes sooner, but on some windows only the LP finds one within the budget. A window where
no iteration is found, and none is proven impossible, spends its whole budget.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from ..problem import STOPPED_CLOCK, Allowance, Effort
from .full import MAX_CELLS, Windows

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from volsched.instances.coupled import CoupledInstance

#: CP-SAT deterministic time per window, and for all the windows of one solve (:class:`.full.Windows`).
WINDOW_BUDGET = 10.0
FOLLOW_BUDGET = 9.0

#: Of a window's budget, what the model without the LP (:data:`PARAMETERS`) may spend; a window
#: where it finds no iteration, and proves none, runs again with the LP on the rest.
FIRST_BUDGET = 3.0

#: Start states tried at most, the start ``(0, ∅)`` included.
STARTS = 3

#: Windows solved again, per start, after a window where no iteration fits (:func:`_follow`).
BACKTRACKS = 8

#: CP-SAT parameters of the window model: without the LP relaxation (``linearization_level`` 0),
#: whose cuts took most of the search's time on these models before its first solution.
PARAMETERS = {"linearization_level": 0}


def follow_path(
    instance: CoupledInstance,
    path: Sequence[tuple[int, int]],
    upper: int,
    layers: Sequence[Sequence[tuple[int, int, Callable[[], dict]]]] = (),
    allowance: Allowance | None = None,
    windows: Windows | None = None,
) -> dict | None:
    """A schedule of makespan below ``upper`` that follows ``path``, or ``None``.

    Parameters
    ----------
    instance : CoupledInstance
    path : sequence of (int, int)
        The holder bound's path (:func:`.full_holders_bound.holders_bound`): per iteration,
        ``(s, H)`` after it, ``H`` a bit mask.
    upper : int
        The incumbent's makespan.
    layers : sequence of sequences of (s, holders, prefix)
        The holder search's beam (:func:`.full_holders.holder_search`): ``layers[k]`` the states
        after ``k + 1`` iterations, ``holders`` a bit mask of exactly the processors holding a
        program at ``s``, ``prefix()`` the schedule of those iterations. The attempts start from
        :func:`dominating`'s states (at most :data:`STARTS` with the start), then ``(0, ∅)``.
    allowance : Allowance, optional
        Charged one unit per window solved; its deadline also cuts each window's CP-SAT search.
    windows : Windows, optional
        The solve's windows so far (default: none); receives this call's.

    Examples
    --------
    >>> from volsched.instances.coupled import paper_realization
    >>> from volsched.solvers.coupled.full_bound import DataChain
    >>> from volsched.solvers.coupled.full_holders_bound import holders_bound
    >>> from volsched.solvers.coupled.replay import replay
    >>> instance = paper_realization(10, 5, 1, 0, 6)  # the holder search ends at 173
    >>> path = []
    >>> holders_bound(instance, 173, DataChain(instance), path=path)
    141
    >>> schedule = follow_path(instance, path, 173)
    >>> replay(instance, schedule)[-1] + 1  # the bound's makespan: optimal
    141
    """
    if len(path) != instance.K:
        return None
    allowance = Allowance.of(allowance)
    windows = Windows() if windows is None else windows
    tries = [*dominating(path, layers)[: STARTS - 1], (0, 0, 0, None)]
    for k, s, holders, prefix in tries:
        schedule = _follow(instance, path, upper, k, s, holders, prefix, allowance, windows)
        if schedule is not None:
            return schedule
        if _spent(allowance, windows):
            break
    return None


def dominating(path: Sequence[tuple[int, int]], layers: Sequence[Sequence[tuple]]) -> list:
    """The start states ``(k, s, H, prefix)`` of :func:`follow_path` among the holder search's beam
    (``layers[k - 1]``: the states ``(s, H, prefix)`` kept after ``k`` iterations): per iteration,
    the earliest state with ``s <= s_k`` and ``H ⊇ H_k``, the latest iterations first."""
    out = []
    for k in range(min(len(layers), len(path) - 1) - 1, -1, -1):
        s_k, h_k = path[k]
        fit = [(s, h, prefix) for s, h, prefix in layers[k] if s <= s_k and h & h_k == h_k]
        if fit:
            s, h, prefix = min(fit, key=lambda state: (state[0], -state[1].bit_count()))
            out.append((k + 1, s, h, prefix))
    return out


def _follow(instance, path, upper, k0, s, holders, prefix, allowance, windows) -> dict | None:
    """The windows from the state ``(s, holders)`` after ``k0`` iterations to the last one.

    A window where no iteration fits is a dead end of the state it starts from: the walk goes
    back one window and solves it again with a program kept by someone outside the set that led
    there (fewer holders at a start no earlier would be no better), at most :data:`BACKTRACKS`
    times per start.
    """
    p = instance.p
    head = {"configurations": [], "communication": [""] * p, "completions": []}
    if prefix is not None:
        head = prefix()
    steps: list[tuple[int, int, dict]] = []  # per window solved: its start, its holders, its iteration
    excluded: dict[int, tuple[int, ...]] = {}  # per iteration: the kept sets that led to dead ends
    backtracks = 0
    k = k0
    while k < instance.K:
        found = _solve(instance, path, k, s, holders, excluded.get(k, ()), allowance, windows)
        if found is None:
            if not steps or backtracks >= BACKTRACKS or _spent(allowance, windows):
                return None
            backtracks += 1
            excluded = {j: sets for j, sets in excluded.items() if j < k}
            k -= 1
            s, holders, last = steps.pop()
            excluded[k] = (*excluded.get(k, ()), sum(1 << q for q in last["kept"]))
            continue
        steps.append((s, holders, found))
        s, holders = s + found["makespan"], sum(1 << q for q in found["holders"])
        k += 1
    if s >= upper:
        return None
    configurations = list(head["configurations"])
    rows = [list(row) for row in head["communication"]]
    completions = list(head["completions"])
    for start, _, found in steps:
        entries = found["configurations"]  # the model lists the slots up to its completion only
        if not entries or entries[0]["start"] != 0:
            configurations.append({"start": start, "allocation": [0] * p})
        configurations += [
            {"start": start + c["start"], "allocation": list(c["allocation"])} for c in entries
        ]
        for q in range(p):
            rows[q] += [*("." * (start - len(rows[q]))), *found["communication"][q]]
        completions.append(start + found["completions"][0])
    communication = ["".join(row).rstrip(".") for row in rows]
    return {"configurations": configurations, "communication": communication, "completions": completions}


def _spent(allowance: Allowance, windows: Windows) -> bool:
    """Whether the solve's allowance stopped or its windows used up :data:`FOLLOW_BUDGET`."""
    return allowance.effort.stopped is not None or windows.spent.work >= FOLLOW_BUDGET


def _solve(instance, path, k, s, holders, excluded, allowance, windows) -> dict | None:
    """Iteration ``k``'s window from ``(s, holders)``: its schedule (with ``makespan``), or ``None``."""
    from .full_cpsat import solve_full_cpsat  # ortools only on first use

    p = instance.p
    length = path[k][0] - s
    if p * length > MAX_CELLS:  # the path's completions are increasing: length >= 1
        return None
    gather = (path[k][1] | (path[k + 1][1] if k + 1 < instance.K else 0)) & ((1 << p) - 1)
    key = (s, holders, length, gather, excluded)
    if key not in windows.solved:
        if allowance.charge(1) or _spent(allowance, windows):
            return None
        window = _window(instance, s, length)
        found, makespan, spent = None, None, 0.0
        for parameters, share in ((PARAMETERS, FIRST_BUDGET), ({}, WINDOW_BUDGET)):
            budget = min(share, WINDOW_BUDGET - spent, FOLLOW_BUDGET - windows.spent.work)
            if budget <= 0:
                break
            effort = Effort()
            left = None if allowance.deadline is None else max(1e-3, allowance.deadline - time.perf_counter())
            found, makespan, _, proven = solve_full_cpsat(
                window,
                time_limit=left,
                budget=budget,
                effort=effort,
                holders={q for q in range(p) if holders >> q & 1},
                gather=[q for q in range(p) if gather >> q & 1],
                exclude=[[q for q in range(p) if kept >> q & 1] for kept in excluded],
                **parameters,
            )
            spent += effort.work
            windows.spent.add(effort.work)
            if effort.stopped == STOPPED_CLOCK:
                allowance.effort.stopped = allowance.effort.stopped or STOPPED_CLOCK
                break
            if found is not None or proven:
                break
        windows.solved[key] = None if found is None else {**found, "makespan": makespan}
    return windows.solved[key]


def _window(instance: CoupledInstance, start: int, length: int) -> CoupledInstance:
    """The instance restricted to the slots ``[start, start + length)`` and one iteration."""
    states = instance.realization(start + length)[:, start : start + length].copy()
    return replace(instance, availability=states, K=1, transitions=None, continuation_seed=None)


__all__ = [
    "BACKTRACKS",
    "FIRST_BUDGET",
    "FOLLOW_BUDGET",
    "STARTS",
    "WINDOW_BUDGET",
    "dominating",
    "follow_path",
]
