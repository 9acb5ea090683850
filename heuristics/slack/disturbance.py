"""Disturbed execution of a slack-family schedule, and its stability (Sections 3.2-3.3, 6).

Canon et al. 2011, as read in ``readings/slack.md`` section 3.

Disturbance model (Section 3.2, slack.md 3.1)
---------------------------------------------
Every unavailability ``k`` of every non-free machine ``i`` (those after the
makespan included) moves earlier by its own ``delta_i^k`` in ``[-a_i^k, 0]``,
**whole**: its length ``u_i^k`` is unchanged, so ``s~ = s + delta`` and
``e~ = e + delta`` (Fig. 2, Theorem 2's proof "come earlier (while being still
constant)"). Free machines are never disturbed, and neither is the tail of a
machine after its last interval (available for ever, the model's convention).

Execution rules (Section 3.3's two rules, made event-driven, slack.md 3.2)
--------------------------------------------------------------------------
Each machine runs alone (no migration, L112): its jobs keep their reference
order (by reference start ``r_j``; in a slack schedule, interval by interval
and by non-increasing ``p`` inside one). ``kappa_j`` is the period a job's
reference start lies in. The executor knows the plan (the reference dates
``s``, ``e`` and ``r``) but no disturbance before it happens. The machine is in
period ``k`` from ``e~^{k-1}`` (0 for ``k = 0``) until ``s~^k``. Whenever it is
available and idle at time ``t`` in period ``k``, with ``q`` the next job never
started, it

1. starts ``q`` if ``q`` is due or late (``r_q <= t``), belongs to this period
   or an earlier one (``kappa_q <= k``) and can end before the planned start
   of the unavailability (``t + p_q <= s^k``);
2. otherwise starts the first waiting interrupted job ``j`` (reference order)
   that can end before ``s^k`` and **delays no planned start**: ``t + p_j <=
   r_q``, or ``q`` cannot start in this period at all (rule 1's period and fit
   conditions fail; they only get worse as ``t`` grows), or there is no ``q``
   (Section 3.3: "each interrupted job is re-executed as soon as possible
   without delaying the starting dates of the jobs that follow");
3. otherwise starts ``q`` now, early, if rule 1's period and fit conditions
   hold ("when a processor becomes idle, it starts the execution of its next
   allocated job"; after an unavailability that ended early the machine is
   idle before ``r_q``);
4. otherwise stays idle until the unavailability, and is available again at
   ``e~^k``.

A job that is running when the unavailability starts (``s~^k`` strictly
inside it) is **interrupted** and waits to be re-executed from scratch on the
same machine; the jobs after it that had not started are merely pending. A
job ending exactly at ``s~^k`` completes. Rules 1 and 3 never start a job of a
later period, so the slack before an unavailability is kept for re-execution,
and with no disturbance the run is the reference schedule of a compact plan.
After its last interval a machine is available for ever and everything left
runs (in the order above).

**Variant** ``executor="compact"`` (slack.md 3.2, offered as an option only):
the machine runs its list in reference order and an interrupted job is
re-executed first, before its followers (they shift); at ``t`` in period ``k``
the next job of the list starts if ``kappa <= k`` and it can end before
``s^k``, otherwise the machine stays idle until the unavailability. Both
variants keep a ``beta = 1`` schedule stable; they differ for ``beta < 1``.

The disturbed makespan is the last completion over all machines;
**stability** is it divided by the schedule's own reference makespan (the
``C*_max`` of L154 is a typo, slack.md 3.3).

Worked example (``tests/heuristics/slack/test_disturbance.py``)
----------------------------------------------------------------
Machine 0 has unavailabilities ``[10, 12)`` and ``[20, 25)``; machine 1 is
free. Reference: on machine 0, A (``p = 6``) at ``[0, 6)`` and B (``p = 3``)
at ``[6, 9)`` in interval 0, C (``p = 4``) at ``[12, 16)`` in interval 1; on
machine 1, D (``p = 25``) at ``[0, 25)``: ``C_max = 25``. Disturb with
``delta_0 = -5`` (unavailable ``[5, 7)``) and ``delta_1 = -2`` (unavailable
``[18, 23)``):

* A runs from 0 and is interrupted at 5; B has not started;
* at 7 (period 1): B is late (``r = 6``), of period 0, fits before 20:
  rule 1, B runs ``[7, 10)``;
* at 10: C is not due (``r = 12``); A waiting would end at 16 > 12 and delay
  C: rule 3, C runs early ``[10, 14)``;
* at 14: no ``q`` left; A fits before ``s^1 = 20``: rule 2, A runs from 14,
  and the unavailability at 18 interrupts it;
* at 23 (the tail): A runs ``[23, 29)``.

Disturbed makespan ``max(29, 25) = 29``, stability ``29 / 25 = 1.16``. With
``delta_1 = 0`` instead, A ends at 20, exactly when the unavailability
starts: it completes, the disturbed makespan is 25 and the stability 1.
The compact variant runs A first at 7 (``[7, 13)``), then B ``[13, 16)``
and C from 16, which the unavailability at 18 interrupts: C reruns
``[23, 27)``, 27. Over all ``delta`` the supremum is 31 (A cut at 5, then
just before 20: it reruns ``[25-, 31-)``; worst-case stability 1.24), and 32
under the compact variant.

Evaluations
-----------
* :func:`sampled_makespans`: the paper's (Section 6, L292): every
  ``delta_i^k ~ U[-a_i^k, 0]`` independently, ``draws`` (30) disturbed runs,
  the median (numpy's: the mean of the 15th and 16th values);
* :func:`worst_case`: the definition's (L154), the supremum over all
  ``delta``, exact (see its docstring).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from volsched.instances.errors import InputError

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance

    from .gaps import Schedule

#: Most replays of one machine :func:`worst_case` makes before giving up (bad input, exit 2).
WORST_BUDGET = 100_000
#: Most constraint-matrix cells one machine's enumeration may update (about 10 s of Python).
WORST_WORK = 10**8


@dataclass(frozen=True, eq=False)
class MachinePlan:
    """One machine's part of a schedule, in reference order (what its executor knows)."""

    machine: int
    jobs: np.ndarray  # job indices
    p: np.ndarray
    r: np.ndarray  # reference starts
    kappa: np.ndarray  # period of each reference start (K: the tail)
    s: np.ndarray  # planned unavailability starts s^k
    e: np.ndarray  # planned unavailability ends e^k
    a: np.ndarray  # availabilities a^k (the bounds of delta^k)
    rows: np.ndarray  # rows of ``instance.table`` of its intervals (the index of delta)


def machine_plans(instance: SlackInstance, schedule: Schedule) -> tuple[list[MachinePlan], int]:
    """The plans of the non-free machines that hold jobs, and the end of the undisturbed ones."""
    p = instance.p
    ends = schedule.start + p
    counts = np.array([len(v) for v in instance.machines], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    plans = []
    floor = 0
    for i in np.unique(schedule.machine).tolist():
        on = np.flatnonzero(schedule.machine == i)
        if counts[i] == 0:
            floor = max(floor, int(ends[on].max()))
            continue
        on = on[np.lexsort((on, schedule.start[on]))]
        e = instance.e(i)
        plans.append(
            MachinePlan(
                i,
                on,
                p[on],
                schedule.start[on],
                np.searchsorted(e, schedule.start[on], side="right"),
                instance.s(i),
                e,
                instance.a(i),
                np.arange(offsets[i], offsets[i + 1]),
            )
        )
    return plans, floor


# --- the rules, once, over an abstract time algebra ------------------------------------------------
# A time is (c, v): the constant c plus delta of node v (v = k + 1 for unavailability k, 0 for none).
# `ask(strict, X, Y)` answers "X < Y" (strict) or "X <= Y": numerically for a given delta, or by
# branching over both answers in the worst-case enumeration.

EXECUTORS = ("planned", "compact")


def run_machine(plan: MachinePlan, ask, executor: str = "planned") -> tuple[int, int]:
    """The execution rules of the module docstring on one machine; the last completion as ``(c, v)``."""
    if executor == "compact":
        return _run_compact(plan, ask)
    p, r, kap, s, e = (x.tolist() for x in (plan.p, plan.r, plan.kappa, plan.s, plan.e))
    n, K = len(p), len(s)
    t = (0, 0)
    last = (0, 0)
    k = qi = 0
    waiting: list[int] = []

    def fits(t, pj, bound):
        return bound is None or ask(False, (t[0] + pj, t[1]), (bound, 0))

    while qi < n or waiting:
        if k < K:
            if ask(False, (s[k], k + 1), t):  # s~^k <= t: the unavailability has begun
                t, k = (e[k], k + 1), k + 1
                continue
            limit = s[k]
        else:
            limit = None

        q_ok = qi < n and kap[qi] <= k and fits(t, p[qi], limit)
        x = None
        if q_ok and ask(False, (r[qi], 0), t):  # rule 1
            x = qi
        else:
            for j in waiting:  # rule 2
                if fits(t, p[j], limit) and (not q_ok or fits(t, p[j], r[qi])):
                    x = j
                    break
            if x is None and q_ok:  # rule 3
                x = qi
        if x is None:  # rule 4
            t, k = (e[k], k + 1), k + 1
            continue
        end = (t[0] + p[x], t[1])
        if k < K and ask(True, (s[k], k + 1), end):  # s~^k < end: interrupted
            if x == qi:
                waiting.append(qi)
                qi += 1
            t, k = (e[k], k + 1), k + 1
        else:
            if x == qi:
                qi += 1
            else:
                waiting.remove(x)
            t = last = end
    return last


def _run_compact(plan: MachinePlan, ask) -> tuple[int, int]:
    """The ``compact`` variant: the list in reference order, an interrupted job first again."""
    p, kap, s, e = (x.tolist() for x in (plan.p, plan.kappa, plan.s, plan.e))
    n, K = len(p), len(s)
    t = last = (0, 0)
    k = qi = 0
    while qi < n:
        if k < K and ask(False, (s[k], k + 1), t):
            t, k = (e[k], k + 1), k + 1
            continue
        if k < K and (kap[qi] > k or not ask(False, (t[0] + p[qi], t[1]), (s[k], 0))):
            t, k = (e[k], k + 1), k + 1  # idle until the unavailability
            continue
        end = (t[0] + p[qi], t[1])
        if k < K and ask(True, (s[k], k + 1), end):
            t, k = (e[k], k + 1), k + 1  # interrupted: it stays first
        else:
            t = last = end
            qi += 1
    return last


def execute(plan: MachinePlan, delta: np.ndarray, executor: str = "planned") -> float:
    """The machine's last completion under ``delta`` (one value per interval of the machine)."""
    dv = np.concatenate([[0.0], np.asarray(delta, dtype=float)])

    def ask(strict, X, Y):
        x, y = X[0] + dv[X[1]], Y[0] + dv[Y[1]]
        return bool(x < y) if strict else bool(x <= y)

    c, v = run_machine(plan, ask, executor)
    return float(c + dv[v])


class _Flat:
    """The plans flattened for the compiled executor."""

    def __init__(self, instance: SlackInstance, schedule: Schedule):
        plans, self.floor = machine_plans(instance, schedule)
        self.plans = plans
        cat = np.concatenate
        self.P = cat([pl.p for pl in plans] or [np.zeros(0)]).astype(float)
        self.R = cat([pl.r for pl in plans] or [np.zeros(0)]).astype(float)
        self.KAP = cat([pl.kappa for pl in plans] or [np.zeros(0)]).astype(np.int64)
        self.job_off = np.concatenate([[0], np.cumsum([len(pl.p) for pl in plans])]).astype(np.int64)
        self.S = cat([pl.s for pl in plans] or [np.zeros(0)]).astype(float)
        self.E = cat([pl.e for pl in plans] or [np.zeros(0)]).astype(float)
        self.A = cat([pl.a for pl in plans] or [np.zeros(0)]).astype(float)
        self.rows = cat([pl.rows for pl in plans] or [np.zeros(0, np.int64)]).astype(np.int64)
        self.int_off = np.concatenate([[0], np.cumsum([len(pl.s) for pl in plans])]).astype(np.int64)


def disturbed_makespans(
    instance: SlackInstance, schedule: Schedule, deltas: np.ndarray, executor: str = "planned"
) -> np.ndarray:
    """Disturbed makespan of each row of ``deltas`` (shape ``(draws, intervals)``, table order), compiled."""
    # numba loads on first use, not when the package is imported (start-up time)
    from ._executor_kernel import disturbed_makespans as kernel

    f = _Flat(instance, schedule)
    deltas = np.ascontiguousarray(np.asarray(deltas, dtype=float)[:, f.rows])
    return kernel(
        f.P, f.R, f.KAP, f.job_off, f.S, f.E, f.int_off, deltas, float(f.floor), executor == "compact"
    )


def sampled_makespans(
    instance: SlackInstance,
    schedule: Schedule,
    rng: np.random.Generator,
    draws: int = 30,
    executor: str = "planned",
) -> np.ndarray:
    """``draws`` disturbed makespans, every ``delta_i^k ~ U[-a_i^k, 0]`` independently (Section 6).

    Every interval of the instance gets its ``delta`` from ``rng``, in
    ``(draw, table row)`` order, whatever the schedule: with the same seed,
    every schedule of an instance (GAPS at each beta, the baselines) meets the
    same disturbances (common random numbers, so that the betas of Figure 4
    are compared on the same realizations).
    """
    # numba loads on first use, not when the package is imported (start-up time)
    from ._executor_kernel import disturbed_makespans as kernel

    f = _Flat(instance, schedule)
    a = instance.table["a"]
    deltas = np.ascontiguousarray((-a * rng.random((draws, len(a))))[:, f.rows])
    return kernel(
        f.P, f.R, f.KAP, f.job_off, f.S, f.E, f.int_off, deltas, float(f.floor), executor == "compact"
    )


# --- the worst case ----------------------------------------------------------------------------------
_BIG = 1 << 24  # a weight (w, strict edges s <= 0) is encoded as w * _BIG + s: lexicographic order
_INF = 1 << 120


def _dec(x: int) -> tuple[int, int]:
    w = (x + _BIG // 2) // _BIG
    return w, x - w * _BIG


class _Region:
    """A set of difference constraints ``x_v - x_u <= w`` (or ``<``) over ``x_0 = 0, x_{k+1} = delta^k``.

    ``d[u][v]`` is the shortest-path bound on ``x_v - x_u``, with a strict
    edge counted as ``-1`` in the second (infinitesimal) component; the region
    is non-empty iff no cycle is negative in that order (Floyd-Warshall kept
    up to date edge by edge). A ``delta^k`` enters the matrix with its box
    ``-a^k <= delta^k <= 0`` when a comparison first names it, so that the
    unavailabilities an execution never reaches cost nothing.
    """

    __slots__ = ("a", "d")

    def __init__(self, d, a):
        self.d = d
        self.a = a

    @classmethod
    def box(cls, a: list[int]) -> _Region:
        return cls([[0]], a)

    def _with(self, v: int) -> _Region:
        """The region with nodes up to ``v``, each new one bounded by its box only."""
        d = self.d
        if v < len(d):
            return self
        d = [row[:] for row in d]
        for node in range(len(d), v + 1):
            up = self.a[node - 1] * _BIG  # x_0 - x_node <= a, x_node - x_0 <= 0
            for row in d:
                row.append(row[0])
            d.append([up + y for y in d[0]])
            d[node][node] = 0
        return _Region(d, self.a)

    def add(self, u: int, v: int, w: int) -> _Region | None:
        """The region with ``x_v - x_u <= w`` (encoded ``w``), or ``None`` if it is empty."""
        reg = self._with(max(u, v))
        d = reg.d
        if d[u][v] <= w:
            return reg
        if d[v][u] + w < 0:
            return None
        du = [row[u] for row in d]
        dv = d[v]
        return _Region(
            [
                [min(ry, dux + w + dvy) for ry, dvy in zip(row, dv, strict=True)]
                for dux, row in zip(du, d, strict=True)
            ],
            self.a,
        )

    def given(self, strict: bool, X, Y, answer: bool) -> _Region | None:
        """The region where ``X < Y`` (strict) or ``X <= Y`` has the given ``answer``."""
        (cx, vx), (cy, vy) = X, Y
        if answer:  # x_vx - x_vy <= cy - cx (strict: <)
            return self.add(vy, vx, (cy - cx) * _BIG - (1 if strict else 0))
        # not (X < Y): X >= Y, x_vy - x_vx <= cx - cy; not (X <= Y): X > Y, strictly
        return self.add(vx, vy, (cx - cy) * _BIG - (0 if strict else 1))

    def sup(self, v: int) -> int:
        """``sup x_v`` over the region (an integer: every constant is)."""
        return _dec(self._with(v).d[0][v])[0]

    def witness(self, eps: float) -> np.ndarray:
        """A point of the region: ``x_v = w + s eps`` from ``d[0][v] = (w, s)``, for a small ``eps``.

        Unavailabilities the region does not name get ``delta = 0``.
        """
        out = np.zeros(len(self.a))
        for v, x in enumerate(self.d[0][1:]):
            w, s = _dec(x)
            out[v] = w + s * eps
        return out


@dataclass(frozen=True, eq=False)
class MachineWorst:
    """The supremum of one machine's disturbed completion, and a ``delta`` close to it."""

    machine: int
    value: int
    witness: np.ndarray
    replays: int


def worst_machine(plan: MachinePlan, budget: int = WORST_BUDGET, executor: str = "planned") -> MachineWorst:
    """Supremum over ``delta`` of the machine's last completion, exact.

    The rules compare times that are each a constant plus one ``delta^k``
    (the machine's clock restarts at ``e~^k = e^k + delta^k`` after each
    unavailability and otherwise only adds processing times), against
    constants (``s^k``, ``r_q``) or against ``s~^k = s^k + delta^k``. Every
    comparison is therefore a difference constraint on ``delta``, and each
    sequence of answers (a course of the execution: which job each
    unavailability interrupts, which rule fires when) is a polyhedron of
    difference constraints, ``-a^k <= delta^k <= 0`` included, on which the
    last completion is ``c + delta^v``. The enumeration replays the rules
    depth first, forking at each comparison whose two answers are both
    possible (the breakpoints of each ``delta``: "just before job j ends",
    "just at its end", "before the machine becomes idle", ...), and keeps the
    largest ``c + sup delta^v``, a shortest path in the constraint graph
    (strict inequalities are infinitesimal: "just before the end" counts as an
    interruption, the supremum of slack.md 3.5).
    """
    stack: list[tuple[tuple[bool, ...], _Region]] = [((), _Region.box(plan.a.tolist()))]
    best, best_reg, replays = None, None, 0
    work = [0]
    while stack:
        prefix, reg = stack.pop()
        replays += 1
        if replays > budget or work[0] > WORST_WORK:
            raise InputError(
                f"--disturbance worst: machine {plan.machine} needs more than "
                f"{min(replays - 1, budget):,} replays of its execution ({len(plan.p)} jobs, "
                f"{len(plan.s)} intervals); the exact worst case is for small instances "
                "(use --disturbance sampled)"
            )
        # The prefix's answers replay without touching the region: `reg` is already the region
        # they define (stored at the fork), so a replay pays only for its new comparisons.
        state = {"reg": reg, "pos": 0}

        def ask(strict, X, Y, prefix=prefix, state=state):
            pos = state["pos"]
            state["pos"] = pos + 1
            if pos < len(prefix):
                return prefix[pos]
            here = state["reg"]
            work[0] += 2 * len(here.d) ** 2
            yes, no = here.given(strict, X, Y, True), here.given(strict, X, Y, False)
            if yes is not None and no is not None:
                stack.append(((*prefix, *state["tail"], False), no))
            ans = yes is not None
            state["tail"].append(ans)
            state["reg"] = yes if ans else no
            return ans

        state["tail"] = []
        c, v = run_machine(plan, ask, executor)
        value = c + state["reg"].sup(v)
        if best is None or value > best:
            best, best_reg = value, state["reg"]
    n_edges = 4 * (len(plan.s) + 1) * (len(plan.s) + 1)
    return MachineWorst(plan.machine, int(best), best_reg.witness(1.0 / (8 * n_edges)), replays)


@dataclass(frozen=True, eq=False)
class WorstCase:
    """The worst disturbed makespan (a supremum), each machine's share, and a ``delta`` near it."""

    makespan: int
    machines: tuple[MachineWorst, ...]
    witness: np.ndarray  # one delta per row of instance.table (0 where nothing depends on it)


def worst_case(
    instance: SlackInstance, schedule: Schedule, budget: int = WORST_BUDGET, executor: str = "planned"
) -> WorstCase:
    """The definition's stability numerator (L154): ``sup_delta C~_max``, exact.

    Machines are independent (no migration, each has its own ``delta``), so
    the supremum of the maximum is the maximum of each machine's supremum
    (:func:`worst_machine`) and of the undisturbed machines' ends. The witness
    ``delta`` puts every machine near its own supremum at once.
    """
    plans, floor = machine_plans(instance, schedule)
    parts = tuple(worst_machine(pl, budget, executor) for pl in plans)
    witness = np.zeros(instance.n_intervals)
    for pl, w in zip(plans, parts, strict=True):
        witness[pl.rows] = w.witness
    value = max([floor] + [w.value for w in parts])
    return WorstCase(int(value), parts, witness)
