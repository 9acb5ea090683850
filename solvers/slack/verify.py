"""Independent verifier for slack-family schedules (slack and plain problems).

Shares no code with the models: it reads the instance's dates and processing
times, converts them to Python ints and recomputes everything exactly.

Solution format
---------------
::

    {"problem": "slack" | "plain",
     "beta": b,                      # slack only, optional: the beta the schedule is built for
     "schedule": [[machine, start], ...]}   # one entry per job, in job order

``machine`` is an index in ``[0, m)``, ``start`` an integer date. Job ``j``
runs on ``[start, start + p_j)``. Other keys are ignored (a solver may add its
own, e.g. ``"intervals"``). The period a job is in is derived from its start:
machine ``i``'s period ``k < K_i`` is the availability ``[e_i^{k-1}, s_i^k)``
before unavailability ``k`` (``e_i^{-1} = 0``); period ``K_i`` is the tail
``[e_i^{K_i - 1}, +inf)`` after the last interval (the whole time line of a
free machine). Without ``"beta"`` the instance's ``beta`` is used; with it,
the schedule is checked at that ``beta`` (a heuristic's schedule built for
another one). ``volsched verify`` checks a user's file at the instance's
``beta`` (or at ``verify --beta b``) and rejects, before calling this
verifier, a file stating another. ``beta`` is read as the decimal it is
written as (``0.1`` is 1/10).

Both problems (:func:`verify_plain`, :func:`verify_slack`):

* one entry per job, machine index in range, integer start ``>= 0``;
* a job never starts inside an unavailability nor spans one: its whole run
  lies in one availability period (Section 3.1, non-preemptive);
* jobs of one machine do not overlap;
* the makespan ``C_max = max_j (start_j + p_j)`` is recomputed in Python ints.

The slack problem (:func:`verify_slack`) adds, at every ``beta``
(Proposition 1, Section 5.1, as read in ``readings/slack.md`` 1.6 and 2):

* **compact execution** (Section 3.2, "each job is executed as early as
  possible"; slack.md 1.6): in each used period the jobs run back to back
  from the period's start, with no idle time between them, and inside an
  interval of a non-free machine in non-increasing ``p`` ("jobs are then
  executed by non-increasing processing times on each interval", L140). This
  makes the slack the trailing idle time ``d_i^k = a_i^k - sum p`` and forbids
  delaying a job only to push ``C_max`` past some ``e_i^k``;
* **the slack rule**: ``d_i^k >= beta * max_{j in pi(i,k)} p_j`` in every used
  interval;
* **the last-period rule**: a job may be in interval ``(i, k)`` only if
  ``e_i^k <= C_max``; the tail after a machine's last interval is never closed
  by an unavailability (``e = +inf``) and can hold no job (free machines have
  no intervals and are not concerned). With no free machine and at least one
  job the rule cannot hold: the job ending at ``C_max`` is in some interval
  whose ``e > s >= C_max`` (slack.md 2.4).
"""

from __future__ import annotations

import bisect
from fractions import Fraction
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from volsched.instances.errors import is_int, is_number

from ..result import Infeasible, reject_unless

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance


def _read(instance: SlackInstance, solution: Any, problem: str) -> tuple[list, list, list, list]:
    """Machines, starts, and per-machine Python-int dates ``s``, ``e``; structure checks."""
    reject_unless(isinstance(solution, dict), "solution", "must be a JSON object")
    if "problem" in solution:
        reject_unless(
            solution["problem"] == problem,
            "problem",
            f"must be {problem!r} for this verifier, got {solution['problem']!r}",
        )
    sched = solution.get("schedule")
    reject_unless(
        isinstance(sched, (list, tuple)), "schedule", "must be a list of [machine, start] pairs, one per job"
    )
    n, m = len(instance.p), len(instance.machines)
    reject_unless(len(sched) == n, "schedule", f"has {len(sched)} entries, the instance has {n} jobs")
    machine, start = [], []
    for j, entry in enumerate(sched):
        reject_unless(
            isinstance(entry, (list, tuple)) and len(entry) == 2,
            f"schedule[{j}]",
            f"must be a pair [machine, start], got {entry!r}",
        )
        i, t = entry
        reject_unless(
            is_int(i) and 0 <= i < m,
            f"schedule[{j}][0]",
            f"job {j}: machine must be an index in [0, {m}), got {i!r}",
        )
        reject_unless(
            is_int(t) and t >= 0, f"schedule[{j}][1]", f"job {j}: start must be an integer >= 0, got {t!r}"
        )
        machine.append(int(i))
        start.append(int(t))
    s = [[int(x) for x in row[:, 0]] for row in instance.machines]
    e = [[int(x) for x in row[:, 1]] for row in instance.machines]
    return machine, start, s, e


def _periods(instance: SlackInstance, machine: list, start: list, s: list, e: list) -> dict:
    """``{(i, k): [(start, job), ...]}`` sorted by start; raises on spanning and overlap."""
    p = [int(x) for x in instance.p]
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for j, (i, t) in enumerate(zip(machine, start, strict=True)):
        k = bisect.bisect_right(e[i], t)  # intervals whose unavailability has ended by t
        if k < len(s[i]):
            reject_unless(
                t < s[i][k],
                f"schedule[{j}]",
                f"job {j} starts at {t}, inside machine {i}'s unavailability {k} [{s[i][k]}, {e[i][k]})",
            )
            reject_unless(
                t + p[j] <= s[i][k],
                f"schedule[{j}]",
                f"job {j} runs [{t}, {t + p[j]}) on machine {i} across unavailability {k} "
                f"[{s[i][k]}, {e[i][k]}): a job never spans an unavailability",
            )
        groups.setdefault((i, k), []).append((t, j))
    for (i, _k), jobs in groups.items():
        jobs.sort()
        for (t0, j0), (t1, j1) in pairwise(jobs):
            reject_unless(
                t0 + p[j0] <= t1,
                f"schedule[{j1}]",
                f"jobs {j0} [{t0}, {t0 + p[j0]}) and {j1} [{t1}, {t1 + p[j1]}) overlap on machine {i}",
            )
    return groups


def verify_plain(instance: SlackInstance, solution: Any) -> int:
    """Makespan of a plain schedule (no slack rule, no last-period rule); raises :class:`Infeasible`."""
    machine, start, s, e = _read(instance, solution, "plain")
    _periods(instance, machine, start, s, e)
    return max(t + int(pj) for t, pj in zip(start, instance.p, strict=True))


def _beta(instance: SlackInstance, solution: dict) -> Fraction:
    beta = solution.get("beta", instance.beta)
    reject_unless(is_number(beta) and 0 <= beta <= 1, "beta", f"must be a number in [0, 1], got {beta!r}")
    return Fraction(repr(float(beta)))


def verify_slack(instance: SlackInstance, solution: Any) -> int:
    """Makespan of a schedule under the slack rule at ``beta`` and the last-period rule.

    See the module docstring for every rule checked. Raises :class:`Infeasible`
    naming the job, machine and interval.
    """
    machine, start, s, e = _read(instance, solution, "slack")
    beta = _beta(instance, solution)
    groups = _periods(instance, machine, start, s, e)
    p = [int(x) for x in instance.p]
    cmax = max(t + pj for t, pj in zip(start, p, strict=True))
    for (i, k), jobs in sorted(groups.items()):
        if k == len(s[i]) and k > 0:
            raise Infeasible(
                f"schedule[{jobs[0][1]}]: job {jobs[0][1]} runs on machine {i} after its last "
                f"unavailability (ends at {e[i][k - 1]}): no unavailability closes that period "
                f"(e = +inf > C_max = {cmax}), the last-period rule forbids it"
            )
        begin = e[i][k - 1] if k > 0 else 0
        clock = begin
        for t, j in jobs:
            reject_unless(
                t == clock,
                f"schedule[{j}]",
                f"job {j} starts at {t} on machine {i}, period {k}; compact execution starts it "
                f"at {clock} (jobs run back to back from the period's start {begin})",
            )
            clock = t + p[j]
        if k == len(s[i]):
            continue  # a free machine: never disturbed, no rule on its order or slack
        sizes = [p[j] for _, j in jobs]
        for (_, j0), (_, j1) in pairwise(jobs):
            reject_unless(
                p[j0] >= p[j1],
                f"schedule[{j1}]",
                f"machine {i} interval {k}: job {j1} (p = {p[j1]}) runs after job {j0} "
                f"(p = {p[j0]}); jobs of an interval run in non-increasing p",
            )
        slack = s[i][k] - clock
        longest = max(sizes)
        reject_unless(
            slack * beta.denominator >= beta.numerator * longest,
            f"machine {i} interval {k}",
            f"slack d = {slack} < beta * max p = {beta} * {longest} (slack rule; jobs "
            f"{[j for _, j in jobs]})",
        )
        reject_unless(
            e[i][k] <= cmax,
            f"machine {i} interval {k}",
            f"holds jobs {[j for _, j in jobs]} but its unavailability ends at e = {e[i][k]} "
            f"> C_max = {cmax} (last-period rule, Proposition 1 / Section 5.1)",
        )
    return cmax
