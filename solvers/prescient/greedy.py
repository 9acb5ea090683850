"""The prescient greedy of Kondo, Chien, Casanova (2007), Section 3.4, vectorised.

"First, it determines the soonest time that each host would complete a task,
by looking at the future availability traces and scheduling the task as soon
as the host is available. Then, it selects the host that completes the task
the soonest, and it repeats this process until all tasks have been
completed." It knows host and CPU availability, never meets a failure and has
no heartbeat delay; a task must finish inside one availability interval
(reading 2.4-2.5), so the work a host accumulates restarts at every host-down
(and, without suspension, at every run of share 0: UCB).

Optimality for identical tasks
------------------------------
The paper states it and defers the proof to the authors' technical report
[28] (Kondo and Casanova, UCSD CS2004-0796); it is not in this paper. Our own
short proof, for ``T`` tasks of ``W`` operations each:

1. *One host.* Let ``E_h(r)`` be the earliest completion, on host ``h``, of a
   task started at or after ``r`` (in the first availability interval, from
   ``max(r, its start)``, that can finish it). The work a host delivers over
   ``[s, t]`` inside one interval grows with ``t`` and shrinks with ``s``, so
   ``E_h`` is non-decreasing. Host ``h``'s *back-to-back completions* are
   ``c_h1 = E_h(t0)``, ``c_h(i+1) = E_h(c_hi)``: a fixed increasing sequence
   that does not depend on the other hosts.
2. *Rank by rank.* In any feasible schedule, the ``i``-th completion on host
   ``h`` is at least ``c_hi``: by induction, its task starts after the
   ``(i-1)``-th completion ``>= c_h(i-1)`` and completes inside one interval,
   so no earlier than ``E_h(c_h(i-1)) = c_hi``.
3. *Exchange.* Take an optimal schedule. Give each host's ``i``-th task the
   back-to-back slot ``c_hi`` instead (no later, by 2., and feasible: the
   slots of one host do not overlap). Then, while some used slot is later than
   an unused slot ``c_gj`` whose predecessors ``c_g1 .. c_g(j-1)`` are all
   used, move the task of the latest used slot overall (the last of its
   host's used prefix) there: the makespan does not grow, the used slots stay
   prefixes of each host's sequence, and their sum decreases. This ends
   with the ``T`` smallest ``c_hi`` over all hosts, with a makespan no
   larger: the ``T``-th smallest is optimal.
4. *The greedy.* At every step it gives a task to the host whose next
   completion is soonest, and a host's next completion is its next
   back-to-back one: it takes the ``T`` smallest ``c_hi``.

Hence the optimum is the ``T``-th smallest back-to-back completion over all
hosts, and :func:`identical_optimum` computes exactly that, reading the traces
only as far as needed: a horizon ``H`` from the submission, extended until
the hosts' completions by ``H`` number at least ``T`` (a completion counted
by ``H`` is final: it depends on the traces before it only).

Non-identical tasks
-------------------
The problem is then strongly NP-hard (it contains makespan minimisation on
identical machines); :func:`greedy_schedule` is only a heuristic there: tasks
in decreasing size (LPT order, our choice; the paper has one size), each to
the host where it would complete soonest. The CP-SAT model
(:mod:`.cpsat`) is the exact method.

Implementation
--------------
:func:`identical_optimum` walks, in compiled code (:mod:`._greedy_kernel`),
the CPU runs that overlap each up interval clipped to ``[t0, H)`` (the first
run found by bisection in its host's runs, never a pass over the whole week),
in *reference seconds* (seconds on a dedicated 1.5 GHz host: ``clock / 1500 *
share * duration``, in which the paper's round figures sum exactly): work
accumulates from the interval's start and restarts at each completion (and,
without suspension, after each run of share 0); one pass writes every
completion with its start into room bounded by the work at share 1, and
``np.argpartition`` takes the ``T`` smallest. No array per piece of trace is built, so memory is the
output's. A horizon too short is extended (by the shortfall, at least 1.5
times) and walked again.

:class:`Pieces` is a second, numpy reading of the same traces (constant-rate
pieces of every interval, accumulated by one global ``cumsum``, completions
by ``searchsorted``), used by :func:`greedy_schedule`; the tests check the
two readings against each other and against an exact brute force. Neither
shares code with :class:`volsched.instances.prescient.WorkProfile`, which
:mod:`.cpsat` uses, so that the two methods check each other.
"""

from __future__ import annotations

import math

import numpy as np

from volsched.instances.prescient import REF_CLOCK_MHZ

#: A task whose work falls short of fitting an interval by this fraction only (the float rounding
#: of an exact fit: the work is a sum of products of clock, share and duration) fits, ending where
#: the interval does, at most about 1e-12 W / rate seconds early: far inside the verifier's tolerance.
FIT_RTOL = 1e-12

#: The first horizon is this many times a host's ceil(T / N) tasks at its mean dedicated speed.
_FIRST_SPAN_FACTOR = 2.0


def _last_at_most(values, lo: np.ndarray, hi: np.ndarray, x: np.ndarray, strict: bool) -> np.ndarray:
    """Per query, the last ``j`` in ``[lo, hi)`` with ``values[j] <= x`` (``< x`` if ``strict``).

    A vectorised bisection over all queries at once: ``values[lo] <= x`` is
    assumed (a host's first CPU run starts at 0).
    """
    lo = lo.copy()
    hi = hi.copy()
    while True:
        open_ = hi - lo > 1
        if not open_.any():
            return lo
        mid = (lo + hi) // 2
        v = values[np.minimum(mid, len(values) - 1)]
        go = open_ & ((v < x) if strict else (v <= x))
        lo = np.where(go, mid, lo)
        hi = np.where(open_ & ~go, mid, hi)


class Pieces:
    """Constant-rate pieces of every host's availability over ``[t0, until)``, grouped.

    Attributes
    ----------
    host, start, end, rate : arrays, one entry per piece (rate in reference seconds per second)
    cum : float array
        Work (reference seconds) accumulated over all pieces up to each piece's end.
    g_first, g_last : int arrays
        First and last piece of each group (a group: one availability interval, restarted work).
    g_host, g_start, g_end, g_base, g_work : arrays
        Its host, start, end, the ``cum`` before it and the work it delivers.
    """

    def __init__(self, instance, t0: float, until: float):
        n = instance.n_hosts
        speed = np.asarray(instance.clock_mhz, dtype=float) / REF_CLOCK_MHZ
        up_host = np.repeat(np.arange(n), np.diff(instance.up_ptr))
        sel = (instance.up_end > t0) & (instance.up_start < until)
        a = np.maximum(instance.up_start[sel], t0)
        b = np.minimum(instance.up_end[sel], until)
        ih = up_host[sel]
        period = instance.period

        def times(j):
            return instance.cpu_index[j] * period

        values = _LazyTimes(instance.cpu_index, period)
        lo, hi = instance.cpu_ptr[ih], instance.cpu_ptr[ih + 1]
        j_lo = _last_at_most(values, lo, hi, a, strict=False)
        j_hi = _last_at_most(values, lo, hi, b, strict=True)
        count = j_hi - j_lo + 1
        iv = np.repeat(np.arange(len(a)), count)
        offset = np.concatenate([[0], np.cumsum(count)[:-1]])
        run = j_lo[iv] + (np.arange(int(count.sum())) - offset[iv])
        host = ih[iv]
        nxt = run + 1
        has_next = nxt < instance.cpu_ptr[host + 1]
        start = np.maximum(times(run), a[iv])
        next_time = times(np.minimum(nxt, len(instance.cpu_index) - 1))
        end = np.minimum(np.where(has_next, next_time, np.inf), b[iv])
        share = instance.cpu_share[run]
        if instance.suspension:
            key = iv
        else:
            zeros = np.cumsum(share == 0)
            keep = share > 0
            key = iv * (len(zeros) + 1) + zeros
            iv, host, start, end, share, key = (x[keep] for x in (iv, host, start, end, share, key))
        rate = speed[host] * share
        work = rate * (end - start)
        self.host, self.start, self.end, self.rate = host, start, end, rate
        self.cum = np.cumsum(work)
        m = len(key)
        first = np.ones(m, dtype=bool)
        first[1:] = key[1:] != key[:-1]
        self.g_first = np.flatnonzero(first)
        self.g_last = np.append(self.g_first[1:] - 1, m - 1) if m else np.zeros(0, np.int64)
        self.g_host = host[self.g_first]
        self.g_start = start[self.g_first]
        self.g_end = end[self.g_last]
        self.g_base = self.cum[self.g_first] - work[self.g_first]
        self.g_work = self.cum[self.g_last] - self.g_base
        self.t0, self.until = float(t0), float(until)

    def times_at(self, groups: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """When the accumulated work of ``groups`` first reaches ``targets`` (``<= `` their end)."""
        j = np.searchsorted(self.cum, targets, side="left")
        j = np.clip(j, self.g_first[groups], self.g_last[groups])
        before = self.cum[j] - self.rate[j] * (self.end[j] - self.start[j])
        with np.errstate(divide="ignore", invalid="ignore"):
            t = self.start[j] + (targets - before) / self.rate[j]
        return np.minimum(np.where(self.rate[j] > 0, t, self.start[j]), self.end[j])


class _LazyTimes:
    """``cpu_index[j] * period`` on demand, so that a bisection never converts a whole week of runs."""

    def __init__(self, index: np.ndarray, period: float):
        self.index, self.period = index, period

    def __len__(self):
        return len(self.index)

    def __getitem__(self, j):
        return self.index[j] * self.period


def back_to_back(pieces: Pieces, work: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every host's back-to-back completions of tasks of ``work`` reference seconds in ``pieces``.

    Returns ``(group, j, time)``: completion ``j`` (1-based) of group ``group``, at ``time``.
    """
    k = np.floor(pieces.g_work / work * (1.0 + FIT_RTOL)).astype(np.int64)
    k = np.maximum(k, 0)
    groups = np.repeat(np.arange(len(k)), k)
    offset = np.concatenate([[0], np.cumsum(k)[:-1]])
    j = np.arange(int(k.sum())) - offset[groups] + 1
    targets = np.minimum(pieces.g_base[groups] + j * work, pieces.g_base[groups] + pieces.g_work[groups])
    return groups, j, pieces.times_at(groups, targets)


def _clipped_intervals(instance, t0: float, until: float):
    """The up intervals that overlap ``[t0, until)``, clipped to it: starts, ends, hosts."""
    host = np.repeat(np.arange(instance.n_hosts), np.diff(instance.up_ptr))
    sel = (instance.up_end > t0) & (instance.up_start < until)
    return np.maximum(instance.up_start[sel], t0), np.minimum(instance.up_end[sel], until), host[sel]


def identical_optimum(instance) -> dict | None:
    """The optimal schedule of ``T`` identical tasks (module docstring); ``None``: the traces cannot hold it.

    Returns
    -------
    dict
        ``makespan`` (seconds from submission), ``host``, ``start``, ``end``
        (arrays over the ``T`` tasks, in completion order) and ``horizon``
        (how far the traces were read).
    """
    # numba loads on first use, not when the package is imported (start-up time)
    from . import _greedy_kernel as kernel

    t0, T = float(instance.start), instance.n_tasks
    work = float(instance.task_minutes[0]) * 60.0
    speed = np.asarray(instance.clock_mhz, dtype=float) / REF_CLOCK_MHZ
    mean_speed = float(np.mean(speed))
    span = _FIRST_SPAN_FACTOR * math.ceil(T / instance.n_hosts) * work / mean_speed + instance.period
    end = float(instance.horizon)
    index, share, ptr = instance.cpu_index, instance.cpu_share, instance.cpu_ptr
    period, suspension = float(instance.period), bool(instance.suspension)
    while True:
        until = min(t0 + span, end)
        a, b, h = _clipped_intervals(instance, t0, until)
        room = np.floor(speed[h] * (b - a) / work).astype(np.int64) + 1
        offset = np.concatenate([[0], np.cumsum(room)[:-1]])
        begin, done = np.empty(int(room.sum())), np.empty(int(room.sum()))
        counts = kernel.fill(
            a,
            b,
            ptr[h],
            ptr[h + 1],
            index,
            share,
            period,
            speed[h],
            work,
            suspension,
            offset,
            room,
            begin,
            done,
            work * (1.0 - FIT_RTOL),
        )
        if np.any(counts > room):  # pragma: no cover - the bound is the work at share 1
            raise AssertionError("identical_optimum: more completions than the work at share 1 allows")
        total = int(counts.sum())
        if total >= T:
            break
        if until >= end:
            return None
        # Completions grow about linearly with the span once every host has started: aim past T.
        span *= min(8.0, max(1.5, 1.3 * T / max(total, 1)))
    iv = np.repeat(np.arange(len(counts)), counts)
    at = offset[iv] + (np.arange(total) - np.concatenate([[0], np.cumsum(counts)[:-1]])[iv])
    begin, done = begin[at], done[at]
    pick = np.argpartition(done, T - 1)[:T] if total > T else np.arange(total)
    pick = pick[np.argsort(done[pick], kind="stable")]
    host = h[iv][pick]
    return {
        "makespan": float(done[pick[-1]]) - t0,
        "host": host,
        "start": begin[pick],
        "end": done[pick],
        "horizon": until,
    }


def greedy_schedule(instance, span: float | None = None) -> dict | None:
    """Section 3.4's rule for any task sizes: largest task first, to the host that completes it soonest.

    One step per task over the availability groups of ``[t0, t0 + span)`` (a
    heuristic for non-identical sizes; for identical ones it reproduces
    :func:`identical_optimum`). A completion found inside the span is final,
    so when a task fits nowhere in it the whole run starts again on twice the
    span, until the trace's end: the answer is the whole trace's. Returns the
    same fields, tasks in their own order, or ``None`` if a task fits nowhere.
    """
    t0, end = float(instance.start), float(instance.horizon)
    span = end - t0 if span is None else span
    while True:
        until = min(t0 + span, end)
        found = _greedy_until(instance, t0, until)
        if found is not None or until >= end:
            return found
        span *= 2.0


def _greedy_until(instance, t0: float, until: float) -> dict | None:
    pieces = Pieces(instance, t0, until)
    n_tasks = instance.n_tasks
    sizes = np.asarray(instance.task_minutes, dtype=float) * 60.0
    ready = np.full(instance.n_hosts, t0)
    host = np.zeros(n_tasks, dtype=np.int64)
    begin = np.zeros(n_tasks)
    done = np.zeros(n_tasks)
    span = (pieces.until - t0) + 1.0
    keys = pieces.host * span + (pieces.start - t0)
    for task in np.argsort(-sizes, kind="stable"):
        r = ready[pieces.g_host]
        s = np.maximum(pieces.g_start, r)
        alive = s < pieces.g_end
        j = np.searchsorted(keys, pieces.g_host * span + (s - t0), side="right") - 1
        j = np.clip(j, pieces.g_first, pieces.g_last)
        before = pieces.cum[j] - pieces.rate[j] * (pieces.end[j] - pieces.start[j])
        c0 = before + pieces.rate[j] * np.clip(s - pieces.start[j], 0.0, pieces.end[j] - pieces.start[j])
        target = c0 + sizes[task]
        fits = alive & (target <= pieces.g_base + pieces.g_work + FIT_RTOL * sizes[task])
        if not fits.any():
            return None
        cand = np.flatnonzero(fits)
        when = pieces.times_at(cand, target[cand])
        best = int(np.argmin(when))
        g = cand[best]
        host[task], begin[task], done[task] = pieces.g_host[g], s[g], when[best]
        ready[pieces.g_host[g]] = when[best]
    return {
        "makespan": float(done.max()) - t0,
        "host": host,
        "start": begin,
        "end": done,
        "horizon": pieces.until,
    }


def attempts_of(schedule: dict) -> list[dict]:
    """The verifier's schedule format (:mod:`.verify`): one completed attempt per task."""
    return [
        {"task": i, "host": int(h), "start": float(s), "end": float(e), "outcome": "completed"}
        for i, (h, s, e) in enumerate(
            zip(schedule["host"].tolist(), schedule["start"].tolist(), schedule["end"].tolist(), strict=True)
        )
    ]
