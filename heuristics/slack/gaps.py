"""GAPS(beta), Greedy Allocation with Parametrized Slack (Canon et al. 2011, Section 5.1, Algorithm 1).

Algorithm 1, line by line, as read in ``readings/slack.md`` section 6:

1. the intervals ``(i, k)`` of the non-free machines, by non-decreasing end
   date ``e_i^k`` of their unavailability; ties by machine, then ``k``;
2. the jobs by non-increasing ``p_j``; ties by job index (a stable sort);
3. ``S = J``, the unscheduled jobs;
4-6. each interval is filled once, scanning ``S`` in that order, with
   ``M = sum_{j' in pi(i,k)} p_j'``;
7. **the lambda test** ``e_i^k <= (sum_{j' in S} p_j' - p_j) / lambda``
   (``S`` still holds ``j``). When it fails the job is **skipped and the scan
   goes on**, as the pseudo-code does (a smaller job, or a later interval, may
   pass); the prose's "transition to the second step" (L232) would stop at
   once (slack.md 6.1: one interval ``a = 5, e = 5.5``, jobs ``{6, 5}``,
   ``lambda = 1``, ``beta = 0``: the pseudo-code puts 5 in the interval,
   ``C_max = 6``; stopping would give 11);
8. **the relaxed slack rule** ``a_i^k - M - p_j >= beta * max_{j' in pi(i,k) U {j}} p_j'``:
   the max includes ``j``, so that the first job of an interval leaves its own
   share of slack (the literal empty max lets one job fill an interval and
   break the rule ``d >= beta max p`` of L203; slack.md 6, line 8);
9-10. ``j`` joins ``pi(i,k)`` and leaves ``S``;
15. the jobs left are scheduled by LPT on the ``lambda`` free machines (each,
   in the order of line 2, to the least-loaded free machine, the lowest index
   on ties), back to back from time 0.

Inside interval ``(i, k)`` the jobs run back to back from ``e_i^{k-1}`` in
non-increasing ``p`` (Section 3.3, L140: "jobs are then executed by
non-increasing processing times on each interval"), which is the order in
which line 8 accepts them. Times and ``p`` are integers and ``beta`` is the
decimal it is written as, so both tests are exact integer comparisons
(line 8: ``(a - M - p) den >= num max p`` with ``beta = num / den``).

Line 7 is what enforces the last-period rule ``e_i^k <= C_max``: the last job
accepted in an interval leaves ``sum S >= lambda e_i^k``, and LPT ends no
earlier than ``sum S / lambda``. Algorithm 1 divides by ``lambda``: GAPS needs a
free machine (Section 5, L199).

:func:`gaps` runs in ``O((n + I) log n)`` for ``n`` jobs and ``I`` intervals
(the "loglinear" cost of L234; slack.md 6.2): inside one interval both tests
are upper bounds on ``p_j`` that only decrease as jobs are added (line 7:
``p_j <= sum S - lambda e``; line 8: ``p_j <= a (den / (num + den))`` for the
first job, ``p_j <= a - M - beta p_first`` afterwards), so "scan in order and
take what passes" is "take the first remaining job, after the last one taken,
whose ``p`` is at most the bound" (a bisection in the sorted ``p`` and a
next-remaining pointer structure). Once line 7 fails for the smallest
remaining job, it fails for every later interval (``e`` grows, ``sum S``
shrinks) and the scan stops. The tests hold the literal double loop as the oracle of
:func:`gaps` (``tests/oracles/slack/gaps.py``).
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass

import numpy as np

from volsched.instances.errors import InputError
from volsched.instances.slack import SlackInstance, beta_ratio


@dataclass(frozen=True, eq=False)
class Schedule:
    """A schedule as the verifier reads it: job ``j`` runs on ``machine[j]`` from ``start[j]``.

    ``beta`` is the beta it was built for (``None`` for a plain schedule: LPT
    and list scheduling reserve no slack).
    """

    machine: np.ndarray
    start: np.ndarray
    beta: float | None = None

    def makespan(self, p: np.ndarray) -> int:
        """The reference makespan ``C_max = max_j (start_j + p_j)``."""
        return int((self.start + p).max())

    def to_solution(self) -> dict:
        """The verifier's format (:mod:`volsched.solvers.slack.verify`), ``problem`` left to the caller."""
        out: dict = {"schedule": [[int(i), int(t)] for i, t in zip(self.machine, self.start, strict=True)]}
        if self.beta is not None:
            out["beta"] = self.beta
        return out


def _need_free(instance: SlackInstance) -> None:
    if instance.lam == 0:
        raise InputError(
            "instance: GAPS needs a free machine (lambda >= 1): Algorithm 1's line 7 divides by "
            "lambda, and without one no schedule obeys the last-period rule (Section 5, L199)"
        )


def _beta(instance: SlackInstance, beta: float | None) -> tuple[float, int, int]:
    b = instance.beta if beta is None else float(beta)
    num, den = beta_ratio(b)
    if not 0 <= num <= den:
        raise InputError(f"--beta: must be a number in [0, 1], got {b!r}")
    return b, num, den


def _lpt(
    jobs: list[int], p: list[int], free: tuple[int, ...], machine: np.ndarray, start: np.ndarray
) -> None:
    """Line 15: ``jobs`` (already in LPT order) to the least-loaded free machine, lowest index on ties."""
    heap = [(0, i) for i in free]
    for j in jobs:
        load, i = heap[0]
        machine[j] = i
        start[j] = load
        heapq.heapreplace(heap, (load + p[j], i))


def _interval_order(instance: SlackInstance) -> np.ndarray:
    """Line 1: interval rows of ``instance.table`` by ``(e, machine, k)``."""
    t = instance.table
    return np.lexsort((t["k"], t["machine"], t["e"]))


def gaps(instance: SlackInstance, beta: float | None = None) -> Schedule:
    """GAPS(beta), Algorithm 1 (see the module docstring), in loglinear time.

    Parameters
    ----------
    instance : SlackInstance
    beta : float, optional
        The slack share; the instance's ``beta`` when ``None``.

    Returns
    -------
    Schedule
        Identical, job for job, to Algorithm 1's literal double loop.
    """
    _need_free(instance)
    b, num, den = _beta(instance, beta)
    lam = instance.lam
    n = instance.n
    order = np.argsort(-instance.p, kind="stable")
    ps = instance.p[order].tolist()  # line 2: non-increasing
    neg = [-x for x in ps]  # ascending, for bisect
    p_list = instance.p.tolist()
    nxt = list(range(n + 1))  # next remaining position >= x (path-halving)

    def find(x: int) -> int:
        while nxt[x] != x:
            nxt[x] = nxt[nxt[x]]
            x = nxt[x]
        return x

    sum_s = int(sum(ps))
    last = n - 1  # the smallest remaining job sits at `last`
    machine = np.full(n, -1, dtype=np.int64)
    start = np.zeros(n, dtype=np.int64)
    t = instance.table
    rows = _interval_order(instance)
    a_all, e_all, begin_all, mach_all = t["a"], t["e"], t["start"], t["machine"]
    # Intervals whose first-job bound a den / (num + den) is below every p never take a job.
    threshold = -(-(num + den) * int(instance.p.min()) // den)  # in Python ints: den may be large
    usable = a_all[rows] >= threshold
    rows = rows[usable]
    for a, e, begin, i in zip(
        a_all[rows].tolist(),
        e_all[rows].tolist(),
        begin_all[rows].tolist(),
        mach_all[rows].tolist(),
        strict=True,
    ):
        while last >= 0 and machine[order[last]] >= 0:
            last -= 1
        if last < 0 or sum_s - lam * e < ps[last]:
            break  # line 7 fails for every job from here on
        bound = min(sum_s - lam * e, a * den // (num + den))
        pos = find(bisect.bisect_left(neg, -bound))
        if pos >= n:
            continue
        first = ps[pos]
        shave = -((-num * first) // den)  # ceil(beta p_first), exact
        used = 0
        clock = begin
        while pos < n:
            j = int(order[pos])
            machine[j] = i
            start[j] = clock
            clock += ps[pos]
            used += ps[pos]
            sum_s -= ps[pos]
            nxt[pos] = pos + 1
            bound = min(sum_s - lam * e, a - used - shave)
            if bound <= 0:
                break
            pos = find(max(pos + 1, bisect.bisect_left(neg, -bound)))
    rest = [int(order[x]) for x in range(n) if machine[order[x]] < 0]
    _lpt(rest, p_list, instance.free, machine, start)
    return Schedule(machine, start, b)
