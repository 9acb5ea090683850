"""The prescient family's instance: volatile hosts, their traces and a bag of tasks.

Kondo, Chien, Casanova, "Scheduling Task Parallel Applications for Rapid
Application Turnaround on Enterprise Desktop Grids" (J. Grid Computing 2007),
Sections 2.1 and 3.1; the readings in ``readings/prescient.md`` (items 1.2-1.8,
2.4, 2.5) fix what the paper leaves open.

Units
-----
* **Time** is in seconds on the trace's own clock (an FTA trace: UNIX epoch
  seconds; a synthetic platform: seconds since Monday 00:00 of its first week).
  Every time is finite and ``>= 0``.
* **Clock rates** are in **MHz**.
* **Work** is in the paper's **operations**: "A dedicated 1.5GHz Pentium
  processor can perform 110.7 million such operations per second" (Section
  3.1). A task of ``x`` minutes on a dedicated 1.5 GHz host is
  ``x * 60 * 110.7e6`` operations (:func:`task_ops`), and a host of clock ``c``
  MHz given the CPU share ``s(t)`` delivers
  ``110.7e6 * (c / 1500) * s(t)`` operations per second (reading 1.4: speed in
  proportion to the clock, as the paper's clock transformations imply).

Semantics
---------
* **Host availability** is a list of up intervals ``[start, end)`` per host,
  sorted; consecutive intervals may touch (``end == next start``: the host went
  down and came back at once, which still kills a running task). Outside them
  the host is down. A task running when its interval ends **fails** and is
  restarted from scratch (no checkpointing, no migration; Section 2.1); one that
  completes exactly at the interval's end completes.
* **CPU availability** is the share of the CPU a guest task gets, piecewise
  constant on a grid of ``period`` seconds (10 s, 2 s for UCB; Section 3.1),
  stored as runs: run ``j`` of host ``h`` starts at sample ``cpu_index[j]``
  (time ``cpu_index[j] * period``) with share ``cpu_share[j]`` in [0, 1] and
  lasts until the next run; a host's first run starts at sample 0 and its last
  run lasts for ever. "Host unavailability implies CPU unavailability": the
  share matters only inside up intervals.
* **Suspension** (``suspension=True``, the default): a task is suspended while
  the share is 0 and resumes on the same host; that is never a failure
  (Section 2.1). With ``suspension=False`` (UCB: "Task suspension was disabled;
  if a task had been running, it would immediately fail with the first
  indication of user activity") a run of share 0 inside an up interval ends the
  task's availability interval as a host failure would: the *effective*
  availability intervals are the up intervals with the zero-share runs cut out
  (:class:`~volsched.instances.prescient.work.WorkProfile`).
* **Tasks** are given by their size in minutes on a dedicated 1.5 GHz host
  (Section 3.3), identical in the paper; non-identical sizes are allowed (the
  CP-SAT method is exact for them).
* **The application** is submitted at ``start``; makespans are measured from it
  (reading 1.8).
* **History.** PRI-HISTORY, EXCL-PRED's ``r`` and REP-PROB read the previous
  weekday (readings 4.4, 4.6, 4.12). The instance stores that window as a time
  interval ``history = (h0, h1)`` of the *same* traces, with ``h1 <= start``, so
  no trace is duplicated and an on-line policy that reads only
  :meth:`PrescientInstance.window` ``(h0, h1)`` cannot see the future.
  ``history = None`` when the traces hold no such window (an FTA trace started
  at its first event).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from ..errors import InputError, check_int, is_int, is_number, require
from ..io import envelope, unwrap

FAMILY = "prescient"

#: The reference host: "a dedicated 1.5GHz Pentium processor can perform 110.7
#: million such operations per second" (Section 3.1).
REF_CLOCK_MHZ = 1500.0
REF_OPS_PER_S = 110.7e6
#: CPU trace sample periods: "Every 10 seconds" (Section 3.1); UCB "every 2 seconds".
DEFAULT_PERIOD_S = 10.0
UCB_PERIOD_S = 2.0

#: Largest sizes an instance may have (a larger one is refused, not run out of memory).
MAX_HOSTS = 1_000_000
MAX_TASKS = 10_000_000
MAX_CLOCK_MHZ = 1e6
#: Largest time: about 31,700 years of seconds; UNIX epoch times fit with room.
MAX_TIME_S = 1e12
#: Largest sample index of a CPU run (``MAX_TIME_S`` at a 1 ms period).
MAX_SAMPLE = 10**15

_DATA_KEYS = (
    "clock_mhz",
    "up",
    "period",
    "cpu",
    "suspension",
    "tasks",
    "task_minutes",
    "start",
    "history",
    "horizon",
)
_OPTIONAL_KEYS = ("end_reasons", "host_names")
_NUMBER = (int, float)


def task_ops(minutes) -> np.ndarray | float:
    """Operations of a task of ``minutes`` on a dedicated 1.5 GHz host: ``minutes * 60 * 110.7e6``."""
    return (
        np.asarray(minutes, dtype=float) * 60.0 * REF_OPS_PER_S
        if np.ndim(minutes)
        else float(minutes) * 60.0 * REF_OPS_PER_S
    )


def ops_per_second(clock_mhz) -> np.ndarray | float:
    """Dedicated speed of a host in operations per second: ``110.7e6 * clock / 1500``."""
    return (
        np.asarray(clock_mhz, dtype=float) * (REF_OPS_PER_S / REF_CLOCK_MHZ)
        if np.ndim(clock_mhz)
        else float(clock_mhz) * (REF_OPS_PER_S / REF_CLOCK_MHZ)
    )


def _host_of(ptr: np.ndarray, k: int) -> tuple[int, int]:
    """``(host, local index)`` of global entry ``k`` of a CSR array with offsets ``ptr``."""
    h = int(np.searchsorted(ptr, k, side="right")) - 1
    return h, int(k - ptr[h])


def _first(mask: np.ndarray) -> int | None:
    idx = np.flatnonzero(mask)
    return int(idx[0]) if idx.size else None


def _check_ptr(ptr: Any, n: int, total: int, name: str) -> np.ndarray:
    ptr = np.asarray(ptr)
    require(
        ptr.ndim == 1 and ptr.shape[0] == n + 1 and ptr.dtype.kind in "iu",
        f"{name}_ptr",
        f"must be {n + 1} integer offsets (hosts + 1)",
    )
    ptr = ptr.astype(np.int64)
    require(
        ptr[0] == 0 and ptr[-1] == total and bool(np.all(np.diff(ptr) >= 0)),
        f"{name}_ptr",
        f"must rise from 0 to {total}",
    )
    return ptr


def _float_array(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    require(arr.ndim == 1 and arr.dtype.kind in "iuf", name, "must be a 1-D numeric array")
    return arr.astype(np.float64)


@dataclass(frozen=True, eq=False)
class PrescientInstance:
    """N hosts with clock rates and traces, T tasks, a start time (Section 2.1, 3.1).

    Traces are stored compactly in CSR form (one flat array per quantity and
    ``N + 1`` offsets); :meth:`build` takes per-host lists instead.

    Parameters
    ----------
    clock_mhz : float array, shape (N,)
        Clock rates in MHz, positive.
    up_start, up_end : float arrays, shape (M,)
        The up intervals ``[up_start[k], up_end[k])`` of all hosts, host by host,
        each host's sorted and non-overlapping (touching allowed), in seconds.
    up_ptr : int array, shape (N + 1,)
        Host ``h`` owns intervals ``up_ptr[h]:up_ptr[h + 1]``; every host has at
        least one (a host with no availability over the whole trace is an
        error; one down throughout some window is normal).
    cpu_index : int array, shape (K,)
        First sample of each CPU run, strictly increasing within a host, 0 for
        each host's first run.
    cpu_share : float array, shape (K,)
        The run's CPU share, in [0, 1].
    cpu_ptr : int array, shape (N + 1,)
        Host ``h`` owns runs ``cpu_ptr[h]:cpu_ptr[h + 1]`` (at least one).
    task_minutes : float array, shape (T,)
        Task sizes in minutes on a dedicated 1.5 GHz host, positive; ``T >= 1``.
    period : float
        CPU sample period in seconds (run ``j`` starts at ``cpu_index[j] * period``).
    start : float
        Submission time ``t0`` of the application, before ``horizon``.
    history : (float, float) or None
        The previous weekday's window ``[h0, h1)`` (``h0 < h1 <= start``) that
        history-based policies may read.
    horizon : float or None
        End of the trace (at or after every interval's end); ``None``: the last
        interval's end.
    suspension : bool
        ``False``: a share of 0 on an up host kills its task (UCB).
    end_reasons : int array, shape (M,), optional
        Why each up interval ended (FTA ``event_end_reason`` codes; -1 unknown).
    host_names : tuple of str, optional
        Host names (FTA ``node_name``).
    """

    clock_mhz: np.ndarray
    up_start: np.ndarray
    up_end: np.ndarray
    up_ptr: np.ndarray
    cpu_index: np.ndarray
    cpu_share: np.ndarray
    cpu_ptr: np.ndarray
    task_minutes: np.ndarray
    period: float = DEFAULT_PERIOD_S
    start: float = 0.0
    history: tuple[float, float] | None = None
    horizon: float | None = None
    suspension: bool = True
    end_reasons: np.ndarray | None = None
    host_names: tuple[str, ...] | None = None
    name: str = "prescient"
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        clock = _float_array(self.clock_mhz, "clock_mhz")
        n = clock.shape[0]
        require(n >= 1, "clock_mhz", "N = 0: a platform needs at least one host")
        require(n <= MAX_HOSTS, "clock_mhz", f"{n} hosts; at most {MAX_HOSTS:,}")
        bad = _first(~(np.isfinite(clock) & (clock > 0) & (clock <= MAX_CLOCK_MHZ)))
        if bad is not None:
            raise InputError(
                f"clock_mhz[{bad}]: must be a clock rate in (0, {MAX_CLOCK_MHZ:g}] MHz, "
                f"got {clock[bad].item()!r}"
            )

        s, e = _float_array(self.up_start, "up_start"), _float_array(self.up_end, "up_end")
        require(s.shape == e.shape, "up_end", f"has {e.shape[0]} entries, up_start has {s.shape[0]}")
        ptr = _check_ptr(self.up_ptr, n, s.shape[0], "up")
        empty = _first(np.diff(ptr) == 0)
        if empty is not None:
            raise InputError(f"up[{empty}]: host {empty} has no availability over the whole trace")
        _check_times(s, ptr, "up", 0)
        _check_times(e, ptr, "up", 1)
        bad = _first(e <= s)
        if bad is not None:
            h, k = _host_of(ptr, bad)
            raise InputError(
                f"up[{h}][{k}][1]: an interval must end after it starts "
                f"({e[bad].item()!r} <= {s[bad].item()!r})"
            )
        same = np.ones(max(s.shape[0] - 1, 0), dtype=bool)
        same[ptr[1:-1] - 1] = False
        bad = _first(same & (s[1:] < e[:-1]))
        if bad is not None:
            h, k = _host_of(ptr, bad + 1)
            kind = "unsorted" if s[bad + 1] < s[bad] else "overlapping"
            raise InputError(
                f"up[{h}][{k}][0]: intervals {kind}: starts at {s[bad + 1].item()!r}, before the "
                f"previous interval's end {e[bad].item()!r}"
            )

        period = self.period
        require(
            is_number(period) and 0 < period <= MAX_TIME_S,
            "period",
            f"must be a positive number of seconds, got {period!r}",
        )
        idx = np.asarray(self.cpu_index)
        require(
            idx.ndim == 1 and (idx.dtype.kind in "iu" or idx.size == 0),
            "cpu_index",
            "must be a 1-D integer array",
        )
        idx = idx.astype(np.int64)
        share = _float_array(self.cpu_share, "cpu_share")
        require(
            share.shape == idx.shape,
            "cpu_share",
            f"has {share.shape[0]} entries, cpu_index has {idx.shape[0]}",
        )
        cptr = _check_ptr(self.cpu_ptr, n, idx.shape[0], "cpu")
        empty = _first(np.diff(cptr) == 0)
        if empty is not None:
            raise InputError(f"cpu[{empty}]: host {empty} has no CPU trace (give at least [[0, share]])")
        bad = _first(idx[cptr[:-1]] != 0)
        if bad is not None:
            raise InputError(
                f"cpu[{bad}][0][0]: a host's first CPU run must start at sample 0, got {idx[cptr[bad]]!r}"
            )
        bad = _first((idx < 0) | (idx > MAX_SAMPLE))
        if bad is not None:
            h, k = _host_of(cptr, bad)
            raise InputError(
                f"cpu[{h}][{k}][0]: must be a sample index in [0, {MAX_SAMPLE}], got {idx[bad].item()!r}"
            )
        same = np.ones(max(idx.shape[0] - 1, 0), dtype=bool)
        same[cptr[1:-1] - 1] = False
        bad = _first(same & (idx[1:] <= idx[:-1]))
        if bad is not None:
            h, k = _host_of(cptr, bad + 1)
            raise InputError(
                f"cpu[{h}][{k}][0]: CPU runs must start at strictly increasing samples, "
                f"got {idx[bad + 1].item()!r} after {idx[bad].item()!r}"
            )
        bad = _first(~((share >= 0) & (share <= 1)))
        if bad is not None:
            h, k = _host_of(cptr, bad)
            raise InputError(f"cpu[{h}][{k}][1]: a CPU share must be in [0, 1], got {share[bad].item()!r}")

        tasks = _float_array(self.task_minutes, "task_minutes")
        require(tasks.shape[0] >= 1, "tasks", "T = 0: an application needs at least one task")
        require(tasks.shape[0] <= MAX_TASKS, "tasks", f"{tasks.shape[0]} tasks; at most {MAX_TASKS:,}")
        bad = _first(~(np.isfinite(tasks) & (tasks > 0) & (tasks <= MAX_TIME_S)))
        if bad is not None:
            raise InputError(
                f"task_minutes[{bad}]: a task size must be a positive number of minutes, "
                f"got {tasks[bad].item()!r}"
            )

        last_end = float(e.max())
        horizon = last_end if self.horizon is None else self.horizon
        require(
            is_number(horizon) and last_end <= horizon <= MAX_TIME_S,
            "horizon",
            f"must be a time at or after the last interval's end {last_end!r}, got {horizon!r}",
        )
        start = self.start
        require(
            is_number(start) and 0 <= start < horizon,
            "start",
            f"must be a time in [0, horizon = {horizon!r}), got {start!r}",
        )
        history = self.history
        if history is not None:
            require(
                isinstance(history, (tuple, list, np.ndarray)) and len(history) == 2,
                "history",
                "must be a [start, end] pair or null",
            )
            h0, h1 = history
            require(is_number(h0) and h0 >= 0, "history[0]", f"must be a time >= 0, got {h0!r}")
            require(
                is_number(h1) and h0 < h1 <= start,
                "history[1]",
                f"must be after history[0] and at or before start = {start!r}, got {h1!r}",
            )
            history = (float(h0), float(h1))
        require(
            isinstance(self.suspension, (bool, np.bool_)),
            "suspension",
            f"must be true or false, got {self.suspension!r}",
        )

        reasons = self.end_reasons
        if reasons is not None:
            reasons = np.asarray(reasons)
            require(
                reasons.ndim == 1
                and reasons.shape == s.shape
                and (reasons.dtype.kind in "iu" or reasons.size == 0),
                "end_reasons",
                f"must be {s.shape[0]} integers (one per interval)",
            )
            reasons = reasons.astype(np.int64)
        names = self.host_names
        if names is not None:
            require(
                isinstance(names, (list, tuple)) and len(names) == n,
                "host_names",
                f"must be {n} strings (one per host)",
            )
            bad = _first(np.array([not isinstance(x, str) for x in names], dtype=bool))
            if bad is not None:
                raise InputError(f"host_names[{bad}]: must be a string, got {names[bad]!r}")
            names = tuple(names)

        for key, value in (
            ("clock_mhz", clock),
            ("up_start", s),
            ("up_end", e),
            ("up_ptr", ptr),
            ("cpu_index", idx),
            ("cpu_share", share),
            ("cpu_ptr", cptr),
            ("task_minutes", tasks),
            ("end_reasons", reasons),
        ):
            if value is not None:
                value.setflags(write=False)
            object.__setattr__(self, key, value)
        object.__setattr__(self, "period", float(period))
        object.__setattr__(self, "start", float(start))
        object.__setattr__(self, "horizon", float(horizon))
        object.__setattr__(self, "history", history)
        object.__setattr__(self, "suspension", bool(self.suspension))
        object.__setattr__(self, "host_names", names)

    # ------------------------------------------------------------------ sizes and units
    @property
    def n_hosts(self) -> int:
        """N."""
        return self.clock_mhz.shape[0]

    @property
    def n_tasks(self) -> int:
        """T."""
        return self.task_minutes.shape[0]

    @property
    def identical(self) -> bool:
        """All tasks of one size (the paper's case, where the greedy is optimal)."""
        return bool(np.all(self.task_minutes == self.task_minutes[0]))

    @property
    def task_ops(self) -> np.ndarray:
        """Task sizes in operations, ``minutes * 60 * 110.7e6`` (Section 3.1, 3.3)."""
        return task_ops(self.task_minutes)

    @property
    def host_ops_per_s(self) -> np.ndarray:
        """Dedicated host speeds in operations per second, ``110.7e6 * clock / 1500``."""
        return ops_per_second(self.clock_mhz)

    def intervals(self, h: int) -> np.ndarray:
        """Host ``h``'s up intervals as an ``(m, 2)`` array of ``[start, end)``."""
        lo, hi = self.up_ptr[h], self.up_ptr[h + 1]
        return np.stack([self.up_start[lo:hi], self.up_end[lo:hi]], axis=1)

    def cpu_runs(self, h: int) -> tuple[np.ndarray, np.ndarray]:
        """Host ``h``'s CPU runs: first samples and shares."""
        lo, hi = self.cpu_ptr[h], self.cpu_ptr[h + 1]
        return self.cpu_index[lo:hi], self.cpu_share[lo:hi]

    def share_at(self, h: int, t: float) -> float:
        """The CPU share of host ``h`` at time ``t`` (whether or not the host is up)."""
        idx, share = self.cpu_runs(h)
        j = int(np.searchsorted(idx * self.period, t, side="right")) - 1
        return float(share[max(j, 0)])

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(
        cls,
        clock_mhz,
        up,
        *,
        tasks: int | None = None,
        task_minutes=15.0,
        cpu=None,
        period: float = DEFAULT_PERIOD_S,
        start: float = 0.0,
        history=None,
        horizon=None,
        suspension: bool = True,
        end_reasons=None,
        host_names=None,
        name: str = "prescient",
        params: dict | None = None,
    ) -> PrescientInstance:
        """An instance from per-host lists.

        ``up[h]`` is a sequence of ``(start, end)`` pairs; ``cpu[h]`` a sequence
        of ``(sample, share)`` runs (``None``: the whole CPU throughout, share
        1); ``task_minutes`` a number (with ``tasks`` = T identical tasks) or a
        sequence of T sizes; ``end_reasons[h]`` a sequence of ints per interval.
        """
        n = len(clock_mhz)
        require(len(up) == n, "up", f"has {len(up)} hosts, clock_mhz has {n}")
        ups = [np.asarray(u, dtype=float).reshape(-1, 2) for u in up]
        counts = [len(u) for u in ups]
        flat = np.concatenate(ups) if ups else np.zeros((0, 2))
        if cpu is None:
            cpu = [[(0, 1.0)]] * n
        require(len(cpu) == n, "cpu", f"has {len(cpu)} hosts, clock_mhz has {n}")
        runs = [np.asarray(c, dtype=float).reshape(-1, 2) for c in cpu]
        cflat = np.concatenate(runs) if runs else np.zeros((0, 2))
        cidx = cflat[:, 0]
        require(bool(np.all(cidx == np.round(cidx))), "cpu", "sample indices must be integers")
        if np.ndim(task_minutes) == 0:
            require(tasks is not None, "tasks", "give T with a single task size")
            tasks = check_int(tasks, "tasks", 0, MAX_TASKS)
            minutes = np.full(tasks, float(task_minutes))
        else:
            minutes = np.asarray(task_minutes, dtype=float)
            require(
                tasks is None or tasks == len(minutes),
                "tasks",
                f"is {tasks}, task_minutes has {len(minutes)} sizes",
            )
        reasons = (
            None
            if end_reasons is None
            else np.concatenate(
                [np.asarray(r, dtype=np.int64).reshape(-1) for r in end_reasons] or [np.zeros(0, np.int64)]
            )
        )
        return cls(
            clock_mhz=np.asarray(clock_mhz, dtype=float),
            up_start=flat[:, 0].copy(),
            up_end=flat[:, 1].copy(),
            up_ptr=np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]),
            cpu_index=cidx.astype(np.int64),
            cpu_share=cflat[:, 1].copy(),
            cpu_ptr=np.concatenate([[0], np.cumsum([len(r) for r in runs], dtype=np.int64)]),
            task_minutes=minutes,
            period=period,
            start=start,
            history=history,
            horizon=horizon,
            suspension=suspension,
            end_reasons=reasons,
            host_names=host_names,
            name=name,
            params=dict(params or {}),
        )

    def replace(self, **changes) -> PrescientInstance:
        """A copy with some fields changed (validated again)."""
        fields = {f: getattr(self, f) for f in self.__dataclass_fields__}
        fields.update(changes)
        return PrescientInstance(**fields)

    def with_tasks(self, tasks: int, task_minutes: float, **changes) -> PrescientInstance:
        """The same platform and traces with T identical tasks of ``task_minutes``."""
        return self.replace(
            task_minutes=np.full(check_int(tasks, "tasks", 1, MAX_TASKS), float(task_minutes)), **changes
        )

    def window(self, t0: float, t1: float) -> PrescientInstance:
        """The traces cut to ``[t0, t1)``: what a policy may read of the history (module docstring).

        Intervals are clipped to the window; a host with no up time in it keeps
        none, so the result is a :class:`TraceWindow`, not an instance.
        """
        return TraceWindow.cut(self, t0, t1)

    def history_window(self) -> TraceWindow | None:
        """The previous weekday's traces (``None`` without a history window)."""
        return None if self.history is None else TraceWindow.cut(self, *self.history)

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict:
        ups = np.stack([self.up_start, self.up_end], axis=1).tolist()
        up = [ups[a:b] for a, b in zip(self.up_ptr[:-1].tolist(), self.up_ptr[1:].tolist(), strict=True)]
        runs = [
            [int(i), float(v)] for i, v in zip(self.cpu_index.tolist(), self.cpu_share.tolist(), strict=True)
        ]
        cpu = [runs[a:b] for a, b in zip(self.cpu_ptr[:-1].tolist(), self.cpu_ptr[1:].tolist(), strict=True)]
        minutes = float(self.task_minutes[0]) if self.identical else self.task_minutes.tolist()
        data = {
            "clock_mhz": self.clock_mhz.tolist(),
            "up": up,
            "period": self.period,
            "cpu": cpu,
            "suspension": self.suspension,
            "tasks": self.n_tasks,
            "task_minutes": minutes,
            "start": self.start,
            "history": None if self.history is None else list(self.history),
            "horizon": self.horizon,
        }
        if self.end_reasons is not None:
            reasons = self.end_reasons.tolist()
            data["end_reasons"] = [
                reasons[a:b] for a, b in zip(self.up_ptr[:-1].tolist(), self.up_ptr[1:].tolist(), strict=True)
            ]
        if self.host_names is not None:
            data["host_names"] = list(self.host_names)
        return envelope(FAMILY, self.name, self.params, data)

    @classmethod
    def from_json(cls, obj: Any) -> PrescientInstance:
        data = unwrap(obj, FAMILY, _DATA_KEYS, _OPTIONAL_KEYS)
        clock = _numbers(data["clock_mhz"], "clock_mhz")
        n = len(clock)
        up_s, up_e, up_ptr = _csr_pairs(data["up"], "up", n)
        cpu_i, cpu_v, cpu_ptr = _csr_pairs(data["cpu"], "cpu", n, int_first=True)
        tasks = check_int(data["tasks"], "tasks", 1, MAX_TASKS)
        minutes = data["task_minutes"]
        if isinstance(minutes, list):
            minutes = _numbers(minutes, "task_minutes")
            require(len(minutes) == tasks, "task_minutes", f"has {len(minutes)} sizes, tasks is {tasks}")
        else:
            require(type(minutes) in _NUMBER, "task_minutes", f"must be a number or a list, got {minutes!r}")
        reasons = data.get("end_reasons")
        if reasons is not None:
            reasons = _host_lists(reasons, "end_reasons", n, 0)
            for h, r in enumerate(reasons):
                count = int(up_ptr[h + 1] - up_ptr[h])
                require(
                    len(r) == count, f"end_reasons[{h}]", f"has {len(r)} codes, up[{h}] has {count} intervals"
                )
            flat = list(chain.from_iterable(reasons))
            if not all(type(v) is int for v in flat):
                for h, r in enumerate(reasons):
                    for k, v in enumerate(r):
                        require(is_int(v), f"end_reasons[{h}][{k}]", f"must be an integer, got {v!r}")
            reasons = np.array(flat, dtype=np.int64)
        for key in ("period", "start", "horizon"):
            require(type(data[key]) in _NUMBER, key, f"must be a number, got {data[key]!r}")
        history = data["history"]
        if history is not None:
            require(
                isinstance(history, list) and len(history) == 2 and all(type(x) in _NUMBER for x in history),
                "history",
                "must be a [start, end] pair or null",
            )
        require(
            isinstance(data["suspension"], bool),
            "suspension",
            f"must be true or false, got {data['suspension']!r}",
        )
        if isinstance(minutes, list):
            minutes = np.array(minutes, dtype=float)
        else:
            minutes = np.full(tasks, float(minutes))
        names = data.get("host_names")
        return cls(
            clock_mhz=np.array(clock, dtype=float),
            up_start=up_s,
            up_end=up_e,
            up_ptr=up_ptr,
            cpu_index=cpu_i,
            cpu_share=cpu_v,
            cpu_ptr=cpu_ptr,
            task_minutes=minutes,
            period=data["period"],
            start=data["start"],
            history=None if history is None else tuple(history),
            horizon=data["horizon"],
            suspension=data["suspension"],
            end_reasons=reasons,
            host_names=names if names is None or not isinstance(names, list) else tuple(names),
            name=obj.get("name", FAMILY),
            params=obj.get("params", {}),
        )

    def __eq__(self, other) -> bool:
        if not isinstance(other, PrescientInstance):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None


def _check_times(values: np.ndarray, ptr: np.ndarray, name: str, col: int) -> None:
    bad = _first(~(np.isfinite(values) & (values >= 0) & (values <= MAX_TIME_S)))
    if bad is not None:
        h, k = _host_of(ptr, bad)
        raise InputError(
            f"{name}[{h}][{k}][{col}]: must be a time in [0, {MAX_TIME_S:g}] s, got {values[bad].item()!r}"
        )


def _numbers(values: Any, name: str) -> list:
    require(isinstance(values, list), name, "must be a list of numbers")
    for i, v in enumerate(values):
        if type(v) not in _NUMBER:
            raise InputError(f"{name}[{i}]: must be a number, got {v!r}")
    return values


def _csr_pairs(values: Any, name: str, n: int, int_first: bool = False):
    """Per-host lists of ``[a, b]`` pairs as two flat arrays and offsets (the slow path names a bad entry)."""
    require(isinstance(values, list), name, "must be a list with one entry per host")
    require(len(values) == n, name, f"has {len(values)} hosts, clock_mhz has {n}")
    arr = None
    if all(type(rows) is list for rows in values):
        rows = list(chain.from_iterable(values))
        if all(type(r) is list and len(r) == 2 for r in rows):
            flat = list(chain.from_iterable(rows))
            firsts = set(map(type, flat[0::2]))
            seconds = set(map(type, flat[1::2]))
            if firsts <= ({int} if int_first else {int, float}) and seconds <= {int, float}:
                try:
                    arr = np.array(flat, dtype=float).reshape(-1, 2) if flat else np.zeros((0, 2))
                except OverflowError:
                    arr = None
                if arr is not None and not (np.all(np.isfinite(arr)) and np.all(np.abs(arr) <= MAX_SAMPLE)):
                    arr = None
    if arr is None:
        _host_lists(values, name, n, 2)
        if int_first:
            for h, runs in enumerate(values):
                for k, run in enumerate(runs):
                    require(
                        is_int(run[0]),
                        f"{name}[{h}][{k}][0]",
                        f"must be an integer sample index, got {run[0]!r}",
                    )
        flat = [v for rows in values for row in rows for v in row]
        arr = np.array(flat, dtype=float).reshape(-1, 2) if flat else np.zeros((0, 2))
    ptr = np.concatenate([[0], np.cumsum([len(r) for r in values])]).astype(np.int64)
    first = arr[:, 0].astype(np.int64) if int_first else arr[:, 0].copy()
    return first, arr[:, 1].copy(), ptr


def _host_lists(values: Any, name: str, n: int, width: int) -> list:
    """Per-host lists of ``width``-number rows (``width = 0``: scalars), types checked with their index."""
    require(isinstance(values, list), name, "must be a list with one entry per host")
    require(len(values) == n, name, f"has {len(values)} hosts, clock_mhz has {n}")
    for h, rows in enumerate(values):
        require(isinstance(rows, list), f"{name}[{h}]", "must be a list")
        if width == 0:
            continue
        for k, row in enumerate(rows):
            if not (isinstance(row, list) and len(row) == width):
                raise InputError(
                    f"{name}[{h}][{k}]: must be a [{', '.join(['number'] * width)}] pair, got {row!r}"
                )
            for c, v in enumerate(row):
                if type(v) not in _NUMBER:
                    raise InputError(f"{name}[{h}][{k}][{c}]: must be a number, got {v!r}")
                if type(v) is int and abs(v) > MAX_SAMPLE:
                    shown = str(v) if len(str(v)) <= 24 else str(v)[:20] + "..."
                    raise InputError(f"{name}[{h}][{k}][{c}]: must be at most {MAX_SAMPLE:g}, got {shown}")
                if isinstance(v, float) and not math.isfinite(v):
                    raise InputError(f"{name}[{h}][{k}][{c}]: must be finite, got {v!r}")
    return values


@dataclass(frozen=True, eq=False)
class TraceWindow:
    """The traces of an instance cut to a time window ``[t0, t1)`` (the history a policy may read).

    Same CSR layout as :class:`PrescientInstance`; a host may have no interval
    in the window. CPU runs are kept whole (they are cheap): read them only
    inside the window's up intervals.
    """

    t0: float
    t1: float
    clock_mhz: np.ndarray
    up_start: np.ndarray
    up_end: np.ndarray
    up_ptr: np.ndarray
    cpu_index: np.ndarray
    cpu_share: np.ndarray
    cpu_ptr: np.ndarray
    period: float
    suspension: bool

    @classmethod
    def cut(cls, inst: PrescientInstance, t0: float, t1: float) -> TraceWindow:
        require(
            is_number(t0) and is_number(t1) and t0 < t1, "window", f"must satisfy t0 < t1, got {t0!r}, {t1!r}"
        )
        s = np.maximum(inst.up_start, t0)
        e = np.minimum(inst.up_end, t1)
        keep = e > s
        host = np.repeat(np.arange(inst.n_hosts), np.diff(inst.up_ptr))
        counts = np.bincount(host[keep], minlength=inst.n_hosts)
        return cls(
            float(t0),
            float(t1),
            inst.clock_mhz,
            s[keep],
            e[keep],
            np.concatenate([[0], np.cumsum(counts)]),
            inst.cpu_index,
            inst.cpu_share,
            inst.cpu_ptr,
            inst.period,
            inst.suspension,
        )

    @property
    def n_hosts(self) -> int:
        return self.clock_mhz.shape[0]
