"""Independent verifier of prescient-family schedules: the optimum's and any heuristic run's.

Kondo, Chien, Casanova (2007), Section 2.1 and 3.1: a host runs one task at a
time; a task runs at ``110.7e6 * clock / 1.5 GHz * share(t)`` operations per
second, is suspended (not failed) while the CPU share is 0, and fails when its
host goes down, losing all its work (no checkpointing). So an attempt
completes only inside the availability interval it started in.

Schedule format
---------------
A solution (of ``solve``, of a heuristic's simulation, or a user's file) is::

    {"makespan": 5123.5,                       # optional claim, checked when present
     "attempts": [
        {"task": 0, "host": 3, "start": 32400.0, "end": 32712.25, "outcome": "completed"},
        {"task": 1, "host": 7, "start": 32400.0, "end": 32590.0,  "outcome": "failed"},
        {"task": 1, "host": 3, "start": 32712.25, "end": 33020.0, "outcome": "completed"},
        {"task": 2, "host": 5, "start": 32400.0, "end": 32950.5, "outcome": "cancelled"},
        ...]}

* ``task`` in ``[0, T)``, ``host`` in ``[0, N)`` (the instance's host order);
* ``start`` and ``end`` in seconds on the instance's trace clock (the clock
  of its availability intervals and CPU-share samples), ``start >=`` the
  application's submission time, ``end >= start``;
* ``outcome``:

  - ``"completed"``: ``end`` is the instant the task's work is done, inside
    the availability interval containing ``start`` (a completion exactly at
    the host-down instant counts);
  - ``"failed"``: the host went down before the work was done; ``end`` is
    that host-down instant (the physical end; when the server learns of it,
    one heartbeat later at most, is the policy's business, not the schedule's).
    Without suspension (UCB), the start of a run of share 0 is a host-down;
  - ``"cancelled"``: the server stopped the attempt (e.g. a replica whose
    task completed elsewhere) at ``end``, no later than its completion or
    its host's failure would have been.

Other keys of an attempt (``"replica": true``, ...) are ignored here: they are
the heuristics' bookkeeping (waste, Section 6), not physics.

What is checked
---------------
Each attempt starts while its host is up; attempts on one host do not overlap
(a host runs one task at a time, Section 2.1); each outcome is recomputed from
the traces and must match ``end`` within :data:`TIME_TOL`; every task has a
completed attempt and none starts after its task's first completion. The
makespan is ``max`` over tasks of the first completion, minus the submission
time (seconds from submission, the issue's reading of Section 2.1: a
heuristic's initial wait counts). A claimed ``makespan`` must agree.

Independence
------------
This module shares no code with the methods (:mod:`.greedy`, :mod:`.cpsat`)
nor with the model's :class:`~volsched.instances.prescient.WorkProfile`: it
reads the instance's intervals and CPU runs itself and walks each attempt's
runs forward from its start (:func:`completion_time`), in float arithmetic
(the shares are real numbers), to within :data:`TIME_TOL` seconds. About 30
µs per attempt (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np

from volsched.instances.errors import is_int, is_number

from ..result import Infeasible, reject_unless

#: Two instants closer than this (seconds) are the same instant for the verifier.
TIME_TOL = 1e-6
OUTCOMES = ("completed", "failed", "cancelled")
_FIRST_WINDOW = 64
#: Runs walked in Python before the numpy windows (most attempts end within a few runs).
_SCALAR_RUNS = 8


class HostView(NamedTuple):
    """The verifier's own reading of one host.

    Attributes
    ----------
    up_start, up_end : ndarray of float
        Up intervals ``[up_start[i], up_end[i])``, sorted, disjoint (touching allowed: a host-down).
    run_time, run_share : ndarray of float
        CPU runs: share ``run_share[j]`` from ``run_time[j]`` to ``run_time[j + 1]`` (the last
        run for ever); ``run_time[0] = 0``.
    speed : float
        Operations per second at share 1: ``110.7e6 * clock / 1500``.
    suspension : bool
        ``False`` (UCB): a run of share 0 kills a running task like a host-down.
    """

    up_start: np.ndarray
    up_end: np.ndarray
    run_time: np.ndarray
    run_share: np.ndarray
    speed: float
    suspension: bool


def host_views(instance) -> list[HostView]:
    """Each host's :class:`HostView`, read from the instance's CSR fields."""
    speed = instance.clock_mhz * (110.7e6 / 1500.0)
    views = []
    for h in range(instance.n_hosts):
        u0, u1 = instance.up_ptr[h], instance.up_ptr[h + 1]
        c0, c1 = instance.cpu_ptr[h], instance.cpu_ptr[h + 1]
        views.append(
            HostView(
                instance.up_start[u0:u1],
                instance.up_end[u0:u1],
                instance.cpu_index[c0:c1] * instance.period,
                instance.cpu_share[c0:c1],
                float(speed[h]),
                bool(instance.suspension),
            )
        )
    return views


def completion_time(host: HostView, start: float, work: float) -> float:
    """The first instant ``t >= start`` at which ``work`` operations are done on ``host``.

    Ignores host-downs and, without suspension, zero shares (the caller
    compares the result with the attempt's end of availability). Run ``j``
    contributes ``speed * share[j] * (its end - max(start, its start))``: the
    first :data:`_SCALAR_RUNS` runs are walked one by one, the rest in numpy
    windows of growing length.
    """
    n = len(host.run_time)
    k = max(int(np.searchsorted(host.run_time, start, side="right")) - 1, 0)
    done = 0.0
    for j in range(k, min(n, k + _SCALAR_RUNS)):
        begin = max(float(host.run_time[j]), start)
        finish = float(host.run_time[j + 1]) if j + 1 < n else math.inf
        rate = host.speed * float(host.run_share[j])
        if rate > 0:
            if done + rate * (finish - begin) >= work:
                return begin + (work - done) / rate
            done += rate * (finish - begin)
    k, width = min(n, k + _SCALAR_RUNS), _FIRST_WINDOW
    while k < n:
        stop = min(n, k + width)
        begin = np.maximum(host.run_time[k:stop], start)
        finish = np.append(host.run_time[k + 1 : stop], host.run_time[stop] if stop < n else math.inf)
        rate = host.speed * host.run_share[k:stop]
        with np.errstate(invalid="ignore"):
            gained = np.where(rate > 0, rate * (finish - begin), 0.0)
        total = done + np.cumsum(gained)
        j = int(np.searchsorted(total, work, side="left"))
        if j < len(total):
            before = done if j == 0 else total[j - 1]
            return float(begin[j] + (work - before) / rate[j])
        done = float(total[-1])
        k, width = stop, 2 * width
    return math.inf


def availability_end(host: HostView, t: float) -> float | None:
    """When the availability that contains ``t`` ends (``None``: the host is not available at ``t``).

    The up interval containing ``t`` (an interval starting within
    :data:`TIME_TOL` after ``t`` counts); without suspension, cut at the
    first run of share 0, and ``t`` inside such a run is unavailable.
    """
    i = int(np.searchsorted(host.up_start, t + TIME_TOL, side="right")) - 1
    if i < 0 or t >= host.up_end[i]:
        return None
    end = float(host.up_end[i])
    if not host.suspension:
        j = max(int(np.searchsorted(host.run_time, t + TIME_TOL, side="right")) - 1, 0)
        if host.run_share[j] == 0:
            return None
        hi = int(np.searchsorted(host.run_time, end, side="left"))
        zero = np.flatnonzero(host.run_share[j + 1 : hi] == 0)
        if zero.size:
            end = min(end, float(host.run_time[j + 1 + zero[0]]))
    return end


def _int_in(value, high: int) -> bool:
    return (type(value) is int or is_int(value)) and 0 <= value < high


def _time(value) -> bool:
    return (type(value) is float and math.isfinite(value)) or is_number(value)


def _attempt(raw, index: int, n_tasks: int, n_hosts: int, submission: float) -> tuple:
    """One attempt's fields, checked (messages built only on failure: this runs per attempt)."""
    where = f"attempts[{index}]"
    if not isinstance(raw, dict):
        raise Infeasible(f"{where}: must be an object, got {type(raw).__name__}")
    for key in ("task", "host", "start", "end", "outcome"):
        if key not in raw:
            raise Infeasible(f"{where}.{key}: missing")
    task, host, start, end, outcome = raw["task"], raw["host"], raw["start"], raw["end"], raw["outcome"]
    if not _int_in(task, n_tasks):
        raise Infeasible(f"{where}.task: must be an integer in [0, {n_tasks}), got {task!r}")
    if not _int_in(host, n_hosts):
        raise Infeasible(f"{where}.host: must be an integer in [0, {n_hosts}), got {host!r}")
    if not (_time(start) and start >= submission - TIME_TOL):
        raise Infeasible(
            f"{where}.start: must be a finite number of seconds, at or after the submission "
            f"{submission!r}, got {start!r}"
        )
    if not (_time(end) and end >= start):
        raise Infeasible(
            f"{where}.end: must be a finite number of seconds at or after start {start!r}, got {end!r}"
        )
    if outcome not in OUTCOMES:
        raise Infeasible(f"{where}.outcome: must be one of {list(OUTCOMES)}, got {outcome!r}")
    return int(task), int(host), float(start), float(end), outcome


def replay(
    hosts: list[HostView], work: np.ndarray, submission: float, attempts, complete: bool = True
) -> np.ndarray:
    """Check every attempt against the traces; returns each task's first completion time.

    With ``complete=False`` (a run whose traces ended first) a task may have no
    completed attempt; its time is then ``inf``.

    Parameters
    ----------
    hosts : list of HostView
    work : ndarray of float
        Operations of each task (``T`` entries).
    submission : float
        When the application was submitted (trace clock).
    attempts : list
        The schedule's ``attempts`` (module docstring).

    Raises
    ------
    Infeasible
        Naming the attempt (``attempts[i]``) or the task at fault.
    """
    n_tasks = len(work)
    reject_unless(isinstance(attempts, list), "attempts", "must be a list of attempts")
    parsed = [_attempt(a, i, n_tasks, len(hosts), submission) for i, a in enumerate(attempts)]
    first = [math.inf] * n_tasks
    tol = TIME_TOL
    for i, (task, h, start, end, outcome) in enumerate(parsed):
        host = hosts[h]
        down = availability_end(host, start)
        if down is None:
            raise Infeasible(f"attempts[{i}].start: host {h} is not available at {start!r}")
        done = completion_time(host, start, float(work[task]))
        if outcome == "completed":
            if not done <= down + tol:
                raise Infeasible(
                    f"attempts[{i}].outcome: task {task} cannot complete on host {h} from "
                    f"{start!r}: the host goes down at {down!r}, the work would be done at "
                    f"{done!r}"
                )
            if not abs(end - done) <= tol:
                raise Infeasible(
                    f"attempts[{i}].end: task {task} started at {start!r} on host {h} completes "
                    f"at {done!r}, not {end!r}"
                )
            first[task] = min(first[task], end)
        elif outcome == "failed":
            if not done >= down - tol:
                raise Infeasible(
                    f"attempts[{i}].outcome: task {task} completes at {done!r} on host {h}, "
                    f"before the host goes down at {down!r}"
                )
            if not abs(end - down) <= tol:
                raise Infeasible(f"attempts[{i}].end: host {h} goes down at {down!r}, not {end!r}")
        elif not end <= min(done, down) + tol:
            raise Infeasible(
                f"attempts[{i}].end: cancelled at {end!r}, after the attempt ended by itself "
                f"at {min(done, down)!r}"
            )
    by_host: dict[int, list[tuple[float, float, int]]] = {}
    for i, (_, h, start, end, _) in enumerate(parsed):
        by_host.setdefault(h, []).append((start, end, i))
    for h, runs in by_host.items():
        runs.sort()
        for (_, end0, i0), (start1, _, i1) in itertools.pairwise(runs):
            if not start1 >= end0 - tol:
                raise Infeasible(
                    f"attempts[{i1}].start: host {h} still runs attempts[{i0}] until {end0!r} "
                    "(one task at a time)"
                )
    first = np.array(first)
    missing = np.flatnonzero(~np.isfinite(first))
    reject_unless(
        not complete or len(missing) == 0,
        f"task {int(missing[0]) if len(missing) else 0}",
        "has no completed attempt",
    )
    for i, (task, _, start, _, _) in enumerate(parsed):
        if not start <= first[task] + tol:
            raise Infeasible(f"attempts[{i}].start: task {task} already completed at {first[task]!r}")
    return first


def makespan_of(hosts: list[HostView], work: np.ndarray, submission: float, solution) -> float:
    """The verified makespan (seconds from submission) of ``solution``; checks a claimed one."""
    first = replay(hosts, work, submission, _attempts(solution))
    value = float(first.max()) - submission
    if "makespan" in solution:
        claim = solution["makespan"]
        reject_unless(
            is_number(claim) and abs(claim - value) <= TIME_TOL,
            "solution.makespan",
            f"claimed {claim!r} but the schedule's last completion is {value!r} s after submission",
        )
    return value


def _attempts(solution) -> list:
    reject_unless(isinstance(solution, dict), "solution", "must be an object")
    reject_unless("attempts" in solution, "solution.attempts", "missing")
    return solution["attempts"]


def _work(instance) -> np.ndarray:
    """Each task's operations, ``minutes * 60 * 110.7e6`` (computed here, not by the model)."""
    return instance.task_minutes * (60.0 * 110.7e6)


def verify_solution(instance, solution) -> float:
    """The makespan of ``solution`` on ``instance``, recomputed (the family's ``Problem.verify``)."""
    return makespan_of(host_views(instance), _work(instance), float(instance.start), solution)


def verify_partial(instance, solution) -> dict:
    """A run that ended with the traces (heuristics' ``failed``): every attempt must still replay.

    Returns the fields derived from it: no makespan, and the tasks that completed.
    """
    attempts = _attempts(solution)
    reject_unless("makespan" not in solution, "solution.makespan", "a run that did not complete has none")
    first = replay(host_views(instance), _work(instance), float(instance.start), attempts, complete=False)
    return {"makespan": None, "completed_tasks": int(np.isfinite(first).sum())}


def describe(instance, solution, value, bound) -> dict:
    """Fields derived from a verified schedule: the hosts that completed a task, the slowest of them.

    Section 3.4 classifies a lagger as slow-host-caused by "the clock rate of
    the slowest host used in the corresponding optimal application execution".
    """
    used = sorted({int(a["host"]) for a in solution["attempts"] if a["outcome"] == "completed"})
    return {
        "makespan": float(value),
        "hosts_used": used,
        "slowest_clock_used_mhz": float(min(instance.clock_mhz[used])),
    }
