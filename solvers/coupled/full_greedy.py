"""A constructive schedule for problem ``full`` (an upper bound on the makespan, any size).

Casanova et al. (HCW 2013), Section III rules as replayed by :mod:`.replay`.
Iteration after iteration, from the current slot ``t0``:

1. Candidates are allocations over the processors UP at ``t0``: each single
   processor that can hold all ``m`` tasks, and sets of processors with the
   ``m`` tasks water-filled to minimise ``max_q x_q w_q`` under ``mu_q``: every
   set of at most ``m`` of them when at most :data:`ALL_SUBSETS` are UP, else for
   ``k = 1..m`` the first ``k`` of these orders: fastest ``w_q``; longest time
   before their next DOWN slot; longest current UP run; most program received
   first, then fastest; and, for each span ``2, 4, 8, ...`` that some processor
   stays UP from ``t0``, the fastest among those UP throughout it first (fast
   but soon lost workers are what the first orders miss).
2. Each candidate is simulated as one attempt started at ``t0``: transfers
   as soon as possible under ``n_com`` (the workers with the most left to receive
   first, program before data), then computation in every slot where all its
   workers are UP; it fails at the first DOWN slot of one of its workers.
3. The candidate completing earliest is committed (an entry at ``t0``, its
   transfers) and ``t0`` moves to the slot after its completion. If none
   completes, ``t0`` moves to ``t1``, the earliest slot after a candidate's
   failure or where a processor comes UP; the candidate failing last is put in
   force at ``t0`` with only its program transfers before ``t1`` (a program is
   kept while its holder is not DOWN, Section III-C), or the configuration is
   set idle when it would send nothing.

A greedy is not monotone in its candidates: an earlier first iteration can leave
worse workers for the next. :func:`greedy_full` therefore makes seven passes and
keeps the earliest makespan: with and without the span orders (on the 3,000 m = 5
paper realizations the span pass alone was better on 547 and worse on 107), and
five *rollouts* of the span pass (:func:`greedy_pass` with ``lookahead``). At each
step of a rollout, the :data:`LOOKAHEAD` earliest-completing candidates, a preload
of programs to spare workers, a *wait* for the next processor to come UP, and a
candidate *kept* in force through its workers' DOWN slots are each finished by the
plain greedy, and so is the allocation with which the data chain's relaxation
completes first from ``t0`` (:mod:`.full_bound`), kept in force. The option whose
trial ends first is committed. The five rollouts judge a trial by its last
completion or by the completion :data:`REACHES` iterations on. Committing the first
iteration's earliest candidate can strand the next one (a fast worker about to go
DOWN); the plain greedy never sends a program
to a worker that it does not use at once, never waits for a fast worker that is
RECLAIMED or DOWN at ``t0``, and drops a candidate at its first DOWN although the
survivors keep their data; the rollouts see all four. A trial
finished to the last iteration judges an early step by the plain greedy's noisy
tail, which a shorter reach does not (``benchmarks/RESULTS.md``, sessions 25 and 26).

Deterministic (ties go to the earlier candidate, lower indices first). The
dispatcher (:func:`volsched.solvers.finish`) replays the schedule; this module does not.
The steps run compiled (:mod:`._greedy_kernel`); this module sizes the arrays, keeps the
deadline and writes the schedule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..problem import Allowance
from .full_bound import DataChain
from .replay import LETTERS

if TYPE_CHECKING:
    from volsched.instances.coupled import CoupledInstance

ALL_SUBSETS = 5
"""With at most this many processors UP, every subset of at most ``m`` of them is a candidate."""

LOOKAHEAD = 8
"""Candidates that the rollout pass tries at each step (:func:`greedy_pass`)."""

REACHES = (None, 1, 2, 3, 4)
"""The rollout passes' judges: a trial's last completion, or its completion this many iterations on."""

#: Greedy steps per compiled call between two looks at the deadline (about 10 ms of steps).
BUDGET = 2000


def greedy_full(
    instance: CoupledInstance,
    deadline: Allowance | float | None = None,
    target: int = 0,
    chain: DataChain | None = None,
) -> dict | None:
    """A schedule of ``K`` iterations in the format of :mod:`.replay`, or ``None`` if none was found.

    The best of the seven passes of the module docstring (the earlier pass on a tie), that is
    :func:`rollout_passes` after :func:`plain_passes`; the
    rollouts run only when the plain span pass found a schedule, and no pass runs once one has
    a makespan of at most ``target`` (a lower bound: no later pass could be earlier).
    ``None`` does not prove infeasibility. Once the replay accepts it, its
    makespan is an upper bound on the optimum. With ``deadline`` (a
    ``time.perf_counter()`` value, or an :class:`~volsched.solvers.problem.Allowance` that adds
    a budget of compiled greedy calls) a pass gives up, with ``None``, once it stops.
    ``chain``: the instance's :class:`.full_bound.DataChain` if the caller has one (the
    rollouts' guide), else built when a rollout needs it.
    """
    deadline = Allowance.of(deadline)
    best, rolls = plain_passes(instance, deadline, target)
    return rollout_passes(instance, deadline, target, chain, best) if rolls else best


def _makespan(schedule: dict) -> int:
    return schedule["completions"][-1] + 1


def plain_passes(
    instance: CoupledInstance, deadline: Allowance | float | None = None, target: int = 0
) -> tuple[dict | None, bool]:
    """The two plain passes of :func:`greedy_full` (with the span orders, then without).

    Returns the better schedule (or ``None``) and whether the rollouts may follow: only when the
    span pass found a schedule. The second pass does not run when the first meets ``target``.
    """
    deadline = Allowance.of(deadline)
    best = greedy_pass(instance, True, deadline)
    # The rollouts refine what the span pass found: where that pass runs out of slots (a prefix
    # too short, :func:`.horizon.reading`), their trials would too, at many times the cost.
    rolls = best is not None
    if best is None or _makespan(best) > target:
        schedule = greedy_pass(instance, False, deadline)
        if schedule is not None and (best is None or _makespan(schedule) < _makespan(best)):
            best = schedule
    return best, rolls


def rollout_passes(
    instance: CoupledInstance,
    deadline: Allowance | float | None = None,
    target: int = 0,
    chain: DataChain | None = None,
    best: dict | None = None,
) -> dict | None:
    """The five rollouts of :func:`greedy_full` (one memo of trials), each until one meets ``target``.

    Returns the best of ``best`` (a schedule to beat, kept on a tie) and theirs.
    """
    deadline = Allowance.of(deadline)
    memo: dict = {}
    for reach in REACHES:
        if best is not None and _makespan(best) <= target:
            break
        if chain is None:
            chain = DataChain(instance)
        schedule = greedy_pass(instance, True, deadline, LOOKAHEAD, reach, chain, memo)
        if schedule is not None and (best is None or _makespan(schedule) < _makespan(best)):
            best = schedule
    return best


class _Run:
    """The arrays of one greedy run (:func:`._greedy_kernel.steps`), and its copies for trial runs."""

    def __init__(self, instance: CoupledInstance, kernel, spans: bool, lookahead: int):
        p, m = instance.p, instance.m
        self.kernel, self.instance = kernel, instance
        self.avail = np.ascontiguousarray(instance.availability, dtype=np.int8)
        self.w = np.asarray(instance.w, dtype=np.int64)
        self.cap = np.array([int(min(mu, m)) for mu in instance.mu], dtype=np.int64)
        self.tables = kernel.tables(self.avail)
        self.spans = spans
        self.state = np.zeros(kernel.DONE_AT + instance.K, dtype=np.int64)
        self.prog = np.zeros(p, dtype=np.int64)
        self.current = np.zeros(p, dtype=np.int64)
        self.starts = np.zeros(64, dtype=np.int64)
        self.allocations = np.zeros((64, p), dtype=np.int64)
        self.completions = np.zeros(instance.K, dtype=np.int64)
        self.comm = np.zeros((p, instance.horizon), dtype=np.int8)
        self.top_x = np.zeros((max(lookahead, 1), p), dtype=np.int64)
        self.top_t = np.zeros(max(lookahead, 1), dtype=np.int64)
        self.top_px = np.zeros(p, dtype=np.int64)
        self.top_pt = np.full(1, -1, dtype=np.int64)
        self.stop = instance.K

    def trial(self) -> _Run:
        """A copy that shares the realization and writes no entries nor transfers."""
        other = object.__new__(_Run)
        other.__dict__.update(self.__dict__)
        for name in ("state", "prog", "current", "completions", "top_px", "top_pt"):
            setattr(other, name, getattr(self, name).copy())
        return other

    def steps(self, record: bool, pause: bool) -> int:
        inst, (next_down, next_off, next_rise, count) = self.instance, self.tables
        return self.kernel.steps(
            self.avail,
            next_down,
            next_off,
            next_rise,
            count,
            self.w,
            self.cap,
            inst.m,
            self.stop,
            inst.n_com,
            inst.T_prog,
            inst.T_data,
            ALL_SUBSETS,
            self.spans,
            self.state,
            self.prog,
            self.current,
            self.starts,
            self.allocations,
            self.completions,
            self.comm,
            BUDGET,
            record,
            pause,
            self.top_x,
            self.top_t,
            self.top_px,
            self.top_pt,
        )

    def commit_persist(self, record: bool, x: np.ndarray | None = None, done: int = -1) -> bool:
        """Keep ``x`` (the candidate of ``top_px``) in force through its workers' DOWN slots until
        it completes at ``done`` (``top_pt[0]``)."""
        inst, (next_down, next_off, _, _) = self.instance, self.tables
        if x is None:
            x, done = self.top_px, int(self.top_pt[0])
        self.kernel.commit_persist(
            x,
            done,
            self.avail,
            next_down,
            next_off,
            self.w,
            inst.n_com,
            inst.T_prog,
            inst.T_data,
            self.state,
            self.prog,
            self.current,
            self.starts,
            self.allocations,
            self.completions,
            self.comm,
            record,
        )
        return True

    def guided(self, chain, kept: bool) -> tuple[np.ndarray, int] | None:
        """The data chain's allocation from ``t0`` (:meth:`.full_bound.DataChain.allocation`) and
        its completion when kept in force from there, or ``None``; also ``None`` when the keep
        option (``kept``) already offers that allocation (``top_px`` is stale otherwise)."""
        t0 = int(self.state[self.kernel.T0])
        x = chain.allocation(t0)
        if x is None or (kept and np.array_equal(x, self.top_px)) or (x > self.cap).any():
            return None
        inst, (next_down, next_off, _, _) = self.instance, self.tables
        done = self.kernel.kept_completion(
            x, t0, self.prog, self.avail, next_down, next_off, self.w, inst.n_com, inst.T_prog, inst.T_data
        )
        return None if done < 0 else (x, done)

    def commit(self, j: int, record: bool) -> None:
        inst, (next_down, next_off, _, count) = self.instance, self.tables
        self.kernel.commit(
            self.top_x[j],
            int(self.top_t[j]),
            self.avail,
            next_down,
            next_off,
            count,
            self.w,
            inst.n_com,
            inst.T_prog,
            inst.T_data,
            self.state,
            self.prog,
            self.current,
            self.starts,
            self.allocations,
            self.completions,
            self.comm,
            record,
        )

    def preload(self, y: np.ndarray, record: bool, until: int = -1) -> bool:
        inst, (next_down, next_off, _, count) = self.instance, self.tables
        return self.kernel.preload(
            y,
            until,
            self.avail,
            next_down,
            next_off,
            count,
            self.w,
            inst.n_com,
            inst.T_prog,
            inst.T_data,
            self.state,
            self.prog,
            self.current,
            self.starts,
            self.allocations,
            self.comm,
            record,
        )

    def rise(self) -> int:
        """The slot of the next wait option: the first after ``t0`` where some processor comes UP, if
        that is before the earliest candidate completes; else -1."""
        t0 = int(self.state[self.kernel.T0])
        rise = int(self.tables[2][t0])
        return rise if rise < int(self.top_t[0]) else -1

    def spread(self) -> np.ndarray | None:
        """A preload: the earliest candidate's workers and spare ones, one task each (the rest of
        the ``m`` tasks on the candidate's workers), or ``None``.

        Spare workers lack the program and stay UP for ``T_prog`` slots at least; those not DOWN
        for ``4 T_prog`` slots come first, then the fastest, then the lower index. The optimum
        does this on the paper realizations (``benchmarks/RESULTS.md``, session 25): a worker
        enrolled only while it receives the program keeps it when it leaves (Section III-C).
        """
        inst, (next_down, next_off) = self.instance, self.tables[:2]
        t0, chosen = int(self.state[self.kernel.T0]), self.top_x[0] > 0
        room = inst.m - int(chosen.sum())
        if room <= 0 or inst.T_prog == 0:
            return None
        spare = [
            q
            for q in range(inst.p)
            if not chosen[q]
            and next_off[q, t0] - t0 >= inst.T_prog
            and self.prog[q] < inst.T_prog
            and self.cap[q] >= 1
        ]
        if not spare:
            return None
        spare.sort(key=lambda q: (int(next_down[q, t0]) - t0 < 4 * inst.T_prog, int(self.w[q]), q))
        y = chosen.astype(np.int64)
        y[spare[:room]] = 1
        left = inst.m - int(y.sum())
        for q in np.flatnonzero(chosen).tolist():
            more = min(int(self.cap[q]) - 1, left)
            y[q] += more
            left -= more
        return None if left else y

    def key(self) -> tuple:
        """What the greedy's next steps and a rollout's options depend on: ``t0``, the completions
        so far and the last one (:func:`._greedy_kernel._open` continues a configuration completed
        at ``t0 - 1``), the programs, the allocation in force, the candidate orders and how many
        candidates a rollout tries."""
        t0, done = int(self.state[self.kernel.T0]), int(self.state[self.kernel.COMPLETED])
        last = int(self.completions[done - 1]) if done else -1
        return t0, done, last, self.prog.tobytes(), self.current.tobytes(), self.spans, len(self.top_t)

    def run(self, record: bool, pause: bool, limit: Allowance) -> int | None:
        """Steps until done, out of slots or (with ``pause``) a choice; ``None`` once ``limit`` stops it.

        Each compiled call is one unit of work (``greedy-calls``)."""
        kernel = self.kernel
        while True:
            code = self.steps(record, pause)
            if limit.charge(1):
                return None
            if code in (kernel.DONE, kernel.OUT, kernel.CHOICE):
                return code
            if code == kernel.FULL:
                self.starts = np.concatenate([self.starts, np.zeros_like(self.starts)])
                self.allocations = np.concatenate([self.allocations, np.zeros_like(self.allocations)])


@dataclass(frozen=True)
class _Trial:
    """A whole trial run (to ``K`` completions or the realization's end) as the memo keeps it.

    ``at[c]``: the steps it had taken when iteration ``c`` completed (from the trial's start; 0
    for one that the option itself completed), ``steps`` in all, ``done`` completions reached.
    """

    completions: np.ndarray
    at: np.ndarray
    steps: int
    done: int

    @classmethod
    def of(cls, trial: _Run, start: int) -> _Trial:
        kernel, state = trial.kernel, trial.state
        steps, done = int(state[kernel.STEPS]) - start, int(state[kernel.COMPLETED])
        return cls(trial.completions.copy(), state[kernel.DONE_AT :] - start, steps, done)

    def until(self, stop: int, horizon: int) -> tuple[int, int]:
        """The end of the same trial stopped at ``stop`` completions, and the compiled calls it makes."""
        reached = self.done >= stop  # else out of slots first
        end, steps = (self.completions[stop - 1], self.at[stop - 1]) if reached else (horizon, self.steps)
        return int(end), max(1, -(-int(steps) // BUDGET))

    def later(self, steps: int) -> _Trial:
        """The trial as seen ``steps`` steps on: the plain greedy's next choice at the state reached."""
        return _Trial(self.completions, self.at - steps, self.steps - steps, self.done)


#: The rollout's options besides the ``r`` earliest candidates (:func:`greedy_pass`).
PRELOAD, WAIT, KEEP, GUIDE = -1, -2, -3, -4


def _apply(run: _Run, option: int, spread, rise: int, guide, record: bool) -> bool:
    """Take a rollout option on ``run``; False if it changed nothing (a preload that cannot be)."""
    if option >= 0:
        run.commit(option, record)
    elif option == PRELOAD:
        return run.preload(spread, record)
    elif option == WAIT:
        return run.preload(run.top_x[0].copy(), record, rise)
    elif option == KEEP:
        return run.commit_persist(record)
    else:
        return run.commit_persist(record, *guide)
    return True


def greedy_pass(
    instance: CoupledInstance,
    spans: bool,
    deadline: Allowance | float | None = None,
    lookahead: int = 0,
    reach: int | None = None,
    chain=None,
    memo: dict | None = None,
) -> dict | None:
    """One pass of the greedy, with or without the span orders; ``None`` as :func:`greedy_full`.

    With ``lookahead`` ``r``, a rollout: at each step where candidates complete, each of the
    ``r`` earliest is committed in a trial run that the plain greedy then finishes, and the one
    whose trial finishes first is committed (the earliest-completing one on a tie; ``r = 1`` is
    the plain greedy). With ``r >= 2`` up to four more options are tried last. A *preload*
    (:meth:`_Run.spread`, :func:`._greedy_kernel.preload`): the earliest candidate's workers
    and spare workers get one task each only until they all hold the program, and the greedy
    chooses again. A *wait* (:meth:`_Run.rise`): the earliest candidate is in force, sending
    only programs, until the next slot where a processor comes UP, if that is before the
    candidate would complete; the greedy then chooses again among more workers. A *keep*
    (:func:`._greedy_kernel.commit_persist`), when it completes first: the candidate that
    completes earliest when kept in force through its workers' DOWN slots (the DOWN worker
    receives its program and data again, the others keep theirs; at most
    :data:`._greedy_kernel.PERSIST_SPAN` clean attempts long). The plain greedy's own choice
    is among the options and its trial is the plain greedy from there, so by induction the
    pass is never later than the plain pass. With ``chain`` (a
    :class:`.full_bound.DataChain` of the instance), a *guide* too: the allocation with which
    the relaxation completes first from ``t0``, kept in force from there.

    With ``reach`` ``h``, a trial runs only until ``h`` more iterations complete, and the
    options are compared on that completion: the induction no longer holds, and the pass may
    end later than the plain one or find no schedule.

    ``memo`` (shared by the passes of :func:`greedy_full`) keeps each whole trial by its state
    (:meth:`_Run.key`) and option, with the steps it had taken at each completion. A trial of a
    later pass from the same state and option takes the same steps up to its own ``reach``, so
    it is read from there, and charged the compiled calls that it would have made: the same
    schedule and the same work, without the steps (the passes follow the same states until
    their choices differ). The trial of the option taken at one choice is also the trial of the
    earliest candidate at the next: the run took the same steps to get there.
    """
    from . import _greedy_kernel as kernel  # numba only on first use

    limit = Allowance.of(deadline)
    if limit.charge(0):
        return None
    run = _Run(instance, kernel, spans, lookahead)
    taken = None  # the whole trial of the option taken at the last choice, and the steps then
    while True:
        code = run.run(True, lookahead > 0, limit)
        if code is None:
            return None
        if code != kernel.CHOICE:
            break
        here = run.key() if memo is not None else None
        if taken is not None:  # that trial's steps so far were the run's: its next is the earliest
            memo.setdefault((here, 0), taken[0].later(int(run.state[kernel.STEPS]) - taken[1]))
        spread = run.spread() if lookahead > 1 else None
        rise = run.rise() if lookahead > 1 else -1
        kept = lookahead > 1 and 0 <= run.top_pt[0] < run.top_t[0]
        guide = run.guided(chain, kept) if chain is not None else None
        options = (
            np.flatnonzero(run.top_t >= 0).tolist()
            + ([PRELOAD] if spread is not None else [])
            + ([WAIT] if rise >= 0 else [])
            + ([KEEP] if kept else [])
            + ([GUIDE] if guide else [])
        )
        best, best_end = 0, None
        stop = instance.K if reach is None else min(instance.K, int(run.state[kernel.COMPLETED]) + reach)
        for j in options if len(options) > 1 else ():
            known = None if memo is None else memo.get((here, j))
            if known is None:
                trial = run.trial()
                trial.stop = stop
                if not _apply(trial, j, spread, rise, guide, False):
                    if memo is not None:
                        memo[here, j] = False
                    continue
                ended = trial.run(False, False, limit)
                if ended is None:
                    return None
                end = trial.completions[stop - 1] if ended == kernel.DONE else instance.horizon
                if memo is not None and stop == instance.K:
                    memo[here, j] = _Trial.of(trial, int(run.state[kernel.STEPS]))
            elif known is False:
                continue
            else:  # the same steps as the whole trial kept, up to ``stop``
                end, calls = known.until(stop, instance.horizon)
                if limit.charge_each(calls):
                    return None
            if best_end is None or end < best_end:
                best, best_end = j, end
        _apply(run, best, spread, rise, guide, True)
        whole = None if memo is None else memo.get((here, best))
        taken = (whole, int(run.state[kernel.STEPS])) if whole else None
    if code == kernel.OUT:
        return None
    n = int(run.state[kernel.ENTRIES])
    codes = np.frombuffer(LETTERS.encode(), dtype=np.uint8)
    return {
        "configurations": [
            {"start": t, "allocation": row}
            for t, row in zip(run.starts[:n].tolist(), run.allocations[:n].tolist(), strict=True)
        ],
        "communication": [codes[row].tobytes().decode().rstrip(LETTERS[0]) for row in run.comm],
        "completions": run.completions.tolist(),
    }


__all__ = ["greedy_full", "greedy_pass"]
