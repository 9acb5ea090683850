"""The trace-driven simulator of the prescient family: the server of Section 2.1, event by event.

Kondo, Chien, Casanova, "Scheduling Task Parallel Applications for Rapid
Application Turnaround on Enterprise Desktop Grids" (J. Grid Computing 2007),
Section 2.1; ``../shared/readings/prescient.md`` items 1.5-1.9, 4.1-4.12, 5.

The server model
----------------
* **The ready queue.** "When a host becomes available for executing an
  application task it sends a notification to the server. The server maintains
  a queue of available hosts, the 'ready queue', and may choose to send a task
  to one of them at any given time" (2.1). A host joins the queue when it comes
  up and again when its task completes or is cancelled (reading 1.9a); it is in
  the queue while it is up and idle, whatever its CPU share (1.9b: a task given
  to a host whose CPU is busy starts suspended). Its place in the queue is the
  time it joined (the submission time for a host already up then) and, among
  hosts that joined at the same instant, a draw from the run's seeded
  generator (reading 4.1: "ties broken randomly").
* **Dispatch** costs nothing (1.9c): a task sent at ``t`` starts at ``t``.
* **Execution** (2.1, 3.1). A task runs at ``110.7e6 * clock / 1500 MHz *
  share(t)`` operations per second, is suspended while the share is 0 ("the
  task is suspended and can be resumed on the same host at a later time",
  never a failure) and fails when its host goes down ("the application task
  fails and must be restarted from scratch"). Its completion instant is read
  from the instance's cumulative available work of the availability interval it
  started in (restarted at every host-down, reading 2.5), by ``searchsorted``.
  Without suspension (UCB) a share of 0 ends the interval as a host-down would
  (the instance's effective intervals).
* **Failure detection: the next heartbeat tick.** "While an application task is
  running on a host, the host sends a 'heart-beat' to the server every minute;
  in the worst case it takes 1 minute before a server determines that a task
  has been terminated" (2.1). The paper gives only the worst case (reading
  1.7). Here the heartbeats of an attempt started at ``s`` are due at ``s +
  60 k`` (``k >= 1``); the server learns of a failure at ``f`` at the first tick
  strictly after it, :func:`detection_time` ``= s + 60 (floor((f - s) / 60) +
  1)``, a delay in ``(0, 60]`` s. Every part of the family that needs the
  server's knowledge uses this function. Until then the server believes the
  attempt is running; the host itself may come back up sooner and join the
  ready queue (a new notification), and the heartbeat still decides when the
  server gives up on the old attempt.
* **Restarts** (reading 1.6). A failed original returns to the queue of tasks
  when the failure is detected and any ready host may take it, the same host
  included once it is back up. "When the original task instance fails, a new
  corresponding instance is placed in the primary queue; however, if a replica
  fails, nothing more is done" (7.2): a failed replica is never restarted by the
  server (REP-PROB may still decide to replicate its task again, by its own
  rule).
* **Cancellation** (reading 4.11c; the paper does not say). When an instance of
  a task completes, the server cancels the task's other running instances at
  that instant; their hosts join the ready queue at once. An instance whose host
  has already gone down keeps its outcome ``failed``.
* **Originals and replicas** (Section 6): "We refer to the first task instance
  created as the *original* and the replicated task instances as *replicas*."
  An instance sent for a task that waits in the primary queue (never started,
  or its original failed) is an original; any other instance is a replica.

Metrics (Section 3.4, 6; reading 5)
-----------------------------------
* ``makespan``: seconds from the submission to the last task's first
  completion (reading 1.8: PRI-CR-WAIT's initial wait counts).
* ``waste``: ``100 x`` the number of replica instances sent, failed and
  cancelled ones included, ``/ T`` ("the percent of tasks replicated (including
  those that fail)", Section 6; the paper's example has a "waste of 300%").
  Re-issued originals are not replicas.
* ``laggers``: the tasks completed after ``Q3 + 1 x IQR`` of the task
  completion times, failed executions excluded ("We choose an intermediate IQR
  factor of 1", 3.4). A diagnostic: "When comparing our heuristics we do not
  consider the number of laggings".
* ``laggers_failure``: the laggers whose task failed after the upper quartile
  (3.4's failure cause, :mod:`.laggers`). The slow-host cause needs the
  optimum's slowest host, so the application layer classifies it.
* ``failed``: the traces ended before every task completed (then ``makespan``
  is ``None``; the schedule holds the attempts made).

A policy sees a :class:`Platform` (what is known before the run: clock rates,
the task size, the previous weekday's :class:`~.history.History`) and, at each
decision, an :class:`Observation` of the server's state at ``t``; it never sees
the instance or the traces after ``t``.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from volsched.instances.errors import InputError
from volsched.instances.prescient import PrescientInstance, WorkProfile, ops_per_second

from .history import History
from .laggers import lagger_causes

#: The heartbeat period (Section 2.1: "every minute"), seconds.
HEARTBEAT = 60.0
#: Most tasks a run takes: the server decides at every completion, and a decision costs O(N + T),
#: so a run costs about N T (200 x 400: 0.1 s; 200 x 20,000: 7 s). The paper's T is at most 400.
MAX_TASKS = 100_000
OUTCOMES = ("completed", "failed", "cancelled")


def detection_time(start: float, failure: float, heartbeat: float = HEARTBEAT) -> float:
    """When the server learns that the attempt started at ``start`` died at ``failure``.

    The first heartbeat tick ``start + k heartbeat`` (``k >= 1``) strictly after
    ``failure``: the delay is in ``(0, heartbeat]`` (module docstring).
    """
    return start + heartbeat * (math.floor((failure - start) / heartbeat) + 1)


@dataclass(frozen=True)
class Platform:
    """What a policy may know before the run: everything but the traces (Sections 2.1, 4-6).

    Attributes
    ----------
    N, T : int
        Hosts and tasks.
    s : float
        A task's size in operations (the mean size when the tasks differ; the
        paper's tasks are identical).
    clock : ndarray
        Clock rates, MHz.
    speed : ndarray
        Dedicated speeds, operations per second (``110.7e6 x clock / 1500``).
    submission : float
        The application's submission time on the trace clock.
    mean_speed : float
        The dedicated speed of a host of the mean clock rate (EXCL-PRED's "meanops", reading 4.9).
    history : History
        Statistics of the previous weekday (PRI-HISTORY, EXCL-PRED's ``r``, REP-PROB).
    """

    N: int
    T: int
    s: float
    clock: np.ndarray
    speed: np.ndarray
    submission: float
    mean_speed: float
    history: History

    @classmethod
    def of(cls, instance: PrescientInstance) -> Platform:
        ops = instance.task_ops
        return cls(
            N=instance.n_hosts,
            T=instance.n_tasks,
            s=float(ops.mean()),
            clock=_frozen(np.asarray(instance.clock_mhz, dtype=float)),
            speed=_frozen(ops_per_second(instance.clock_mhz)),
            submission=float(instance.start),
            mean_speed=float(ops_per_second(float(np.mean(instance.clock_mhz)))),
            history=History.of(instance, float(ops.mean())),
        )


@dataclass(frozen=True)
class Observation:
    """The server's state at ``t`` as a policy sees it (read-only arrays).

    Attributes
    ----------
    t : float
    platform : Platform
    ready : ndarray of int
        The ready queue: idle hosts that are up, in order of arrival (ties: the seeded draw).
    primary : ndarray of int
        Tasks waiting for an original instance, in the order they entered the queue.
    done : ndarray of bool, shape (T,)
    original : ndarray of int, shape (T,)
        Host of each task's running original as the server knows it, ``-1`` if none.
    original_start : ndarray of float, shape (T,)
        Its start (``nan`` if none).
    replicas : ndarray of int, shape (T,)
        Running replicas of each task as the server knows them.
    replicas_sent : ndarray of int, shape (T,)
        Replicas sent so far for each task.
    completions : ndarray of float
        Task completion instants so far, in order.
    live_task, live_host : ndarray of int
    live_start : ndarray of float
        Every instance the server believes running (failures not yet detected included).
    memory : dict
        The policy's own state for this run (empty at the start).
    """

    t: float
    platform: Platform
    ready: np.ndarray
    primary: np.ndarray
    done: np.ndarray
    original: np.ndarray
    original_start: np.ndarray
    replicas: np.ndarray
    replicas_sent: np.ndarray
    completions: np.ndarray
    live_task: np.ndarray
    live_host: np.ndarray
    live_start: np.ndarray
    memory: dict

    @property
    def completed(self) -> int:
        return int(self.completions.shape[0])

    @property
    def remaining(self) -> int:
        """Tasks not completed."""
        return self.platform.T - self.completed


@dataclass(frozen=True)
class Assignment:
    """Send an instance of ``task`` to ``host``: its original (it waits in the primary queue) or a replica."""

    host: int
    task: int
    replica: bool = False


@runtime_checkable
class PrescientPolicy(Protocol):
    """An on-line policy of Sections 4-6.

    ``decide`` returns the assignments to make now and the next instant it
    wants to be asked even if nothing happens (``None``: no such instant); at
    that instant it is asked even when no host is ready (its timers, such as a
    timeout, then fire on time). ``replicates``: it may send replicas, so it is
    asked whenever a host is ready and a task is unfinished, not only when the
    primary queue is not empty.
    """

    name: str
    replicates: bool

    def decide(
        self, observation: Observation, rng: np.random.Generator
    ) -> tuple[list[Assignment], float | None]: ...


@dataclass
class Run:
    """A finished simulation: the attempts (the verifier's schedule) and the metrics."""

    attempts: list[dict]
    makespan: float | None
    waste: float
    laggers: int
    laggers_failure: int
    completions: np.ndarray
    decisions: int
    events: int

    @property
    def failed(self) -> bool:
        """The traces ended before every task completed."""
        return self.makespan is None

    @property
    def metrics(self) -> dict[str, Any]:
        return {
            "makespan": self.makespan,
            "waste": self.waste,
            "laggers": self.laggers,
            "laggers_failure": self.laggers_failure,
            "failed": self.failed,
        }


# Event kinds, in the order they are handled at one instant: a longer trace first (its hosts'
# intervals are then known), completions (a host that completes at t is ready at t), hosts
# coming up, detections, wake-ups.
_GROW, _COMPLETE, _UP, _DETECT, _WAKE = 0, 1, 2, 3, 4
_RUNNING, _COMPLETED, _FAILED, _CANCELLED = 0, 1, 2, 3
_OUTCOME = {_COMPLETED: "completed", _FAILED: "failed", _CANCELLED: "cancelled"}


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _view(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.setflags(write=False)
    return v


class Physics:
    """The traces as the simulator reads them: effective availability intervals and their work.

    A :class:`~volsched.instances.prescient.WorkProfile` built over ``[start,
    start + span]`` only, doubled whenever the run reaches its end: a run lasts
    hours, a trace may last a week. Interval ``k`` of host ``h`` is the host's
    ``k``-th effective interval, the same in every profile that contains it.
    """

    FIRST_SPAN = 4 * 3600.0

    def __init__(self, instance: PrescientInstance, span: float = FIRST_SPAN):
        self.instance = instance
        self.span = float(span)
        self._build()

    def _build(self) -> None:
        inst = self.instance
        until = inst.start + self.span
        if until >= inst.horizon:
            self.profile, self.until = WorkProfile(inst), math.inf
        else:
            self.profile, self.until = WorkProfile(inst, until), until
        p = self.profile
        self.iv_start, self.iv_end, self.iv_ptr = p.iv_start, p.iv_end, p.iv_ptr

    def grow(self) -> None:
        """Read twice as far into the traces."""
        self.span *= 2.0
        self._build()

    def count(self, h: int) -> int:
        """Effective intervals of ``h`` known so far."""
        return int(self.iv_ptr[h + 1] - self.iv_ptr[h])

    def bounds(self, h: int, k: int) -> tuple[float, float]:
        i = int(self.iv_ptr[h]) + k
        return float(self.iv_start[i]), float(self.iv_end[i])

    def first_after(self, h: int, t: float) -> int:
        """Local index of ``h``'s first interval ending after ``t`` (``count(h)`` if none is known)."""
        lo, hi = int(self.iv_ptr[h]), int(self.iv_ptr[h + 1])
        return int(np.searchsorted(self.iv_end[lo:hi], t, side="right"))

    def finish(
        self, hosts: np.ndarray, ks: np.ndarray, t: float, works: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Ends and outcomes of ``works`` operations started at ``t`` in intervals ``ks`` of ``hosts``.

        Returns ``(end, completes)``: the completion instant, or the interval's
        end (the host-down) when the work does not fit before it.
        """
        if hosts.shape[0] == 1:
            end, completes = self.finish_one(int(hosts[0]), int(ks[0]), t, float(works[0]))
            return np.array([end]), np.array([completes])
        while True:
            g = self.iv_ptr[hosts] + ks
            done, _, chosen = self.profile.earliest_completion(hosts, np.full(hosts.shape, t), works)
            completes = chosen == g
            # An interval cut at the profile's end goes on beyond it: a completion inside is
            # certain, a failure at the cut is not.
            if not np.any(~completes & (self.iv_end[g] >= self.until)):
                return np.where(completes, done, self.iv_end[g]), completes
            self.grow()

    def finish_one(self, h: int, k: int, t: float, work: float) -> tuple[float, bool]:
        """:meth:`finish` for one task: two ``searchsorted`` in the interval's breakpoints, no batch overhead.

        The profile's ``C`` on the pieces of effective interval ``g``: the piece
        holding ``t`` gives ``C(t)``; the first breakpoint where ``C`` reaches
        ``C(t) + work`` gives the completion, interpolated on its piece (whose
        rate is positive, since ``C`` rises there).
        """
        while True:
            p = self.profile
            g = int(p.iv_ptr[h]) + k
            lo, hi = int(p.iv_bp0[g]), int(p.iv_bp1[g])
            j = max(lo + int(np.searchsorted(p.bp_time[lo:hi], t, side="right")) - 1, lo)
            target = (
                p.bp_cum[j]
                + np.longdouble(t - p.bp_time[j]) * np.longdouble(p.bp_rate[j])
                + np.longdouble(work)
            )
            end = float(p.iv_end[g])
            if target <= p.iv_cum1[g]:
                q = max(lo + int(np.searchsorted(p.bp_cum[lo : hi + 1], target, side="left")) - 1, j)
                done = float(p.bp_time[q]) + float((target - p.bp_cum[q]) / np.longdouble(p.bp_rate[q]))
                return min(max(done, t), end), True
            if end < self.until:
                return end, False
            self.grow()


class _Instances:
    """Growable columns of the task instances sent in a run."""

    def __init__(self, capacity: int):
        self.n = 0
        self.task = np.zeros(capacity, dtype=np.int64)
        self.host = np.zeros(capacity, dtype=np.int64)
        self.start = np.zeros(capacity)
        self.end = np.zeros(capacity)
        self.fails = np.zeros(capacity, dtype=bool)
        self.replica = np.zeros(capacity, dtype=bool)
        self.state = np.zeros(capacity, dtype=np.int8)

    def add(self, task, host, start, end, fails, replica) -> np.ndarray:
        m = len(task)
        while self.n + m > self.task.shape[0]:
            for name in ("task", "host", "start", "end", "fails", "replica", "state"):
                a = getattr(self, name)
                setattr(self, name, np.concatenate([a, np.zeros_like(a)]))
        ids = np.arange(self.n, self.n + m)
        self.task[ids], self.host[ids], self.start[ids] = task, host, start
        self.end[ids], self.fails[ids], self.replica[ids] = end, fails, replica
        self.state[ids] = _RUNNING
        self.n += m
        return ids


def simulate(
    instance: PrescientInstance,
    policy: PrescientPolicy,
    rng: np.random.Generator,
    platform: Platform | None = None,
    physics: Physics | None = None,
) -> Run:
    """Run ``policy`` on ``instance``'s traces from its submission until every task completes.

    Event-driven (module docstring): hosts coming up, completions, detected
    failures and the policy's own wake-up instants; the policy is asked after
    the events of each instant when a host is ready and it has something to
    place (a task in the primary queue or, for a replicating policy, an
    unfinished task), and at the instants it asked to be woken at.

    Parameters
    ----------
    instance : PrescientInstance
    policy : PrescientPolicy
    rng : numpy.random.Generator
        The ready queue's tie-breaking draws and the policy's own draws.
    platform, physics : optional
        Built from ``instance`` when ``None``; they depend on the instance only,
        so a caller running many policies on one instance may share them.

    Returns
    -------
    Run
        ``makespan`` is ``None`` when the traces end first.
    """
    if instance.n_tasks > MAX_TASKS:
        raise InputError(
            f"tasks: the on-line simulator decides at every completion, at a cost that "
            f"grows with T; T = {instance.n_tasks:,} is beyond {MAX_TASKS:,}"
        )
    platform = Platform.of(instance) if platform is None else platform
    physics = Physics(instance) if physics is None else physics
    return _Server(instance, policy, rng, platform, physics).run()


class _Server:
    """One run of the server of Section 2.1 (module docstring): its state and its event handlers.

    Host ``h`` is in the ready queue while ``idle[h]`` and up (``up_from[h] <= t < up_until[h]``),
    ordered by ``(arrival, tie)``. Events are ``(t, kind, seq, item)`` on a heap: kinds in
    their order at one instant (``_GROW`` first), ``seq`` the order of pushing.
    """

    def __init__(
        self,
        instance: PrescientInstance,
        policy: PrescientPolicy,
        rng: np.random.Generator,
        platform: Platform,
        physics: Physics,
    ):
        self.instance, self.policy, self.rng = instance, policy, rng
        self.platform, self.physics = platform, physics
        n, n_tasks = platform.N, platform.T
        self.n, self.n_tasks, self.t0 = n, n_tasks, platform.submission
        self.work = instance.task_ops

        self.interval = np.full(n, -1, dtype=np.int64)  # current (or last) interval of each host
        self.up_from = np.full(n, math.inf)
        self.up_until = np.full(n, -math.inf)
        self.idle = np.zeros(n, dtype=bool)
        self.arrival = np.full(n, math.inf)
        self.tie = np.zeros(n)
        self.running_on = np.full(n, -1, dtype=np.int64)  # the instance physically on each host
        self.waiting: set[int] = set()  # hosts whose next interval lies beyond the profile

        self.done = np.zeros(n_tasks, dtype=bool)
        self.original = np.full(n_tasks, -1, dtype=np.int64)
        self.original_start = np.full(n_tasks, math.nan)
        self.replicas = np.zeros(n_tasks, dtype=np.int64)
        self.replicas_sent = np.zeros(n_tasks, dtype=np.int64)
        self.completions = np.zeros(n_tasks)
        self.primary: dict[int, None] = dict.fromkeys(range(n_tasks))
        self.live: dict[int, None] = {}  # instances the server believes running
        self.by_task: dict[int, list[int]] = {}
        self.inst = _Instances(2 * n_tasks + 16)
        self.n_done = 0

        self.events: list[tuple[float, int, int, int]] = []
        self.seq = 0
        self.decisions = self.n_events = 0
        self.wakes: set[float] = set()
        self.woke = False
        self.memory: dict = {}

    # --- events and the ready queue -------------------------------------------------------
    def push(self, t: float, kind: int, item: int) -> None:
        heapq.heappush(self.events, (t, kind, self.seq, item))
        self.seq += 1

    def join(self, h: int, t: float) -> None:
        """Host ``h`` joins the ready queue at ``t`` (its tie among same-instant arrivals drawn now)."""
        self.idle[h] = True
        self.arrival[h] = t
        self.tie[h] = self.rng.random()

    def schedule_next(self, h: int, k: int) -> None:
        """Push host ``h``'s interval ``k`` coming up, or wait for a longer profile."""
        physics = self.physics
        if k < physics.count(h):
            self.push(physics.bounds(h, k)[0], _UP, k * self.n + h)
        elif math.isfinite(physics.until):
            self.waiting.add(h)

    def come_up(self, h: int, k: int, t: float) -> None:
        self.interval[h] = k
        self.up_from[h], self.up_until[h] = self.physics.bounds(h, k)
        self.join(h, t)
        self.schedule_next(h, k + 1)

    def refresh(self) -> None:
        """After the profile grew: current intervals' true ends, hosts whose next interval is now known."""
        physics, interval = self.physics, self.interval
        on = np.flatnonzero(interval >= 0)
        g = physics.iv_ptr[on] + interval[on]
        self.up_until[on] = physics.iv_end[g]
        for h in sorted(self.waiting):
            self.waiting.discard(h)
            self.schedule_next(
                h, int(interval[h]) + 1 if interval[h] >= 0 else physics.first_after(h, self.t0)
            )
        if math.isfinite(physics.until):
            self.push(physics.until, _GROW, 0)

    def start(self) -> None:
        """The hosts at the submission, the profile's first end, and the first decision."""
        physics, t0 = self.physics, self.t0
        for h in range(self.n):
            k = physics.first_after(h, t0)
            if k < physics.count(h) and physics.bounds(h, k)[0] <= t0:
                self.come_up(h, k, t0)
            else:
                self.schedule_next(h, k)
        if math.isfinite(physics.until):
            self.push(physics.until, _GROW, 0)
        self.push(t0, _WAKE, -1)  # the submission: the first decision

    # --- the tasks ------------------------------------------------------------------------
    def finish_task(self, i: int, t: float) -> None:
        """Instance ``i`` completed its task at ``t``: the task's other instances are cancelled."""
        inst = self.inst
        task = int(inst.task[i])
        self.done[task] = True
        self.completions[self.n_done] = t
        self.n_done += 1
        self.primary.pop(task, None)
        for j in self.by_task.pop(task, ()):
            self.live.pop(j, None)
            if j == i or inst.state[j] != _RUNNING:
                continue
            if inst.fails[j] and inst.end[j] <= t:
                continue  # its host went down before: it failed, undetected yet
            inst.state[j] = _CANCELLED
            inst.end[j] = t
            hj = int(inst.host[j])
            self.running_on[hj] = -1
            self.join(hj, t)
        self.original[task] = -1
        self.original_start[task] = math.nan
        self.replicas[task] = 0

    def dispatch(self, assignments: list[Assignment], t: float) -> None:
        """Start the policy's assignments at ``t``: each ends in a completion or a detected failure."""
        physics = self.physics
        hosts = np.fromiter((a.host for a in assignments), dtype=np.int64, count=len(assignments))
        tasks = np.fromiter((a.task for a in assignments), dtype=np.int64, count=len(assignments))
        rep = np.fromiter((a.replica for a in assignments), dtype=bool, count=len(assignments))
        before = physics.until
        end, completes = physics.finish(hosts, self.interval[hosts], t, self.work[tasks])
        if physics.until != before:
            self.refresh()
        ids = self.inst.add(tasks, hosts, t, end, ~completes, rep)
        for i, h, task, r, e, c in zip(
            ids.tolist(),
            hosts.tolist(),
            tasks.tolist(),
            rep.tolist(),
            end.tolist(),
            completes.tolist(),
            strict=True,
        ):
            self.idle[h] = False
            self.running_on[h] = i
            self.live[i] = None
            self.by_task.setdefault(task, []).append(i)
            if r:
                self.replicas[task] += 1
                self.replicas_sent[task] += 1
            else:
                self.primary.pop(task)
                self.original[task] = h
                self.original_start[task] = t
            if c:
                self.push(e, _COMPLETE, i)
            else:
                self.push(detection_time(t, e), _DETECT, i)

    # --- one event ------------------------------------------------------------------------
    def complete(self, i: int, t: float) -> None:
        inst = self.inst
        if inst.state[i] == _RUNNING:
            inst.state[i] = _COMPLETED
            h = int(inst.host[i])
            self.running_on[h] = -1
            self.finish_task(i, t)
            self.join(h, t)

    def host_up(self, item: int, t: float) -> None:
        n = self.n
        h, k = item % n, item // n
        j = int(self.running_on[h])
        if j >= 0:
            self.inst.state[j] = _FAILED  # it died when the host went down
            self.running_on[h] = -1
        self.come_up(h, k, t)

    def detect(self, i: int) -> None:
        """The server notices instance ``i``'s failure (a missed heartbeat): its task waits again."""
        if i in self.live:
            inst = self.inst
            del self.live[i]
            task = int(inst.task[i])
            inst.state[i] = _FAILED
            if self.running_on[inst.host[i]] == i:
                self.running_on[inst.host[i]] = -1
            self.by_task[task].remove(i)
            if inst.replica[i]:
                self.replicas[task] -= 1
            else:
                self.original[task] = -1
                self.original_start[task] = math.nan
                self.primary[task] = None

    def handle(self, kind: int, item: int, t: float) -> None:
        self.n_events += 1
        if kind == _COMPLETE:
            self.complete(item, t)
        elif kind == _UP:
            self.host_up(item, t)
        elif kind == _DETECT:
            self.detect(item)
        elif kind == _GROW:
            if t >= self.physics.until:
                self.physics.grow()
                self.refresh()
        else:
            self.woke = True
            self.wakes.discard(t)

    # --- the policy -----------------------------------------------------------------------
    def decide(self, t: float, ready_mask: np.ndarray) -> None:
        """Ask the policy at ``t`` (the ready queue in its order) and apply its answer."""
        ready = np.flatnonzero(ready_mask)
        ready = ready[np.lexsort((self.tie[ready], self.arrival[ready]))]
        inst, live = self.inst, self.live
        if live:
            ids = np.fromiter(live, dtype=np.int64, count=len(live))
            lt, lh, ls = inst.task[ids], inst.host[ids], inst.start[ids]
        else:
            lt, lh, ls = _EMPTY_I, _EMPTY_I, _EMPTY_F
        primary = self.primary
        obs = Observation(
            t=t,
            platform=self.platform,
            ready=_frozen(ready),
            primary=_frozen(np.fromiter(primary, dtype=np.int64, count=len(primary))),
            done=_view(self.done),
            original=_view(self.original),
            original_start=_view(self.original_start),
            replicas=_view(self.replicas),
            replicas_sent=_view(self.replicas_sent),
            completions=_view(self.completions[: self.n_done]),
            live_task=_frozen(lt),
            live_host=_frozen(lh),
            live_start=_frozen(ls),
            memory=self.memory,
        )
        assignments, wake = self.policy.decide(obs, self.rng)
        self.decisions += 1
        if assignments:
            _check(assignments, ready_mask, self.done, primary, self.policy.name, t)
            self.dispatch(assignments, t)
        if wake is not None and t < wake < math.inf and wake not in self.wakes:
            self.wakes.add(wake)
            self.push(wake, _WAKE, -1)

    def run(self) -> Run:
        """Handle the events instant by instant, asking the policy after each instant's events."""
        self.start()
        events, n_tasks = self.events, self.n_tasks
        while self.n_done < n_tasks and events:
            t = events[0][0]
            while events and events[0][0] == t:
                _, kind, _, item = heapq.heappop(events)
                self.handle(kind, item, t)
            if self.n_done == n_tasks:
                break
            ready_mask = self.idle & (self.up_from <= t) & (self.up_until > t)
            if not self.woke and not ((self.primary or self.policy.replicates) and ready_mask.any()):
                continue
            self.woke = False
            self.decide(t, ready_mask)
        return self.result()

    def result(self) -> Run:
        inst, n_done, n_tasks, t0 = self.inst, self.n_done, self.n_tasks, self.t0
        attempts = []
        for i in range(inst.n):
            state = int(inst.state[i])
            if state == _RUNNING:
                # Unresolved when the run stopped: every completion was handled, so its host went down.
                state = _FAILED
            attempts.append(
                {
                    "task": int(inst.task[i]),
                    "host": int(inst.host[i]),
                    "start": float(inst.start[i]),
                    "end": float(inst.end[i]),
                    "outcome": _OUTCOME[state],
                    "replica": bool(inst.replica[i]),
                }
            )
        finished = n_done == n_tasks
        comp = self.completions[:n_done].copy()
        lag = lagger_causes(attempts, self.instance.clock_mhz, t0)
        return Run(
            attempts=attempts,
            makespan=float(comp.max() - t0) if finished else None,
            waste=100.0 * int(inst.replica[: inst.n].sum()) / n_tasks,
            laggers=lag["laggers"],
            laggers_failure=lag["laggers_failure"],
            completions=comp,
            decisions=self.decisions,
            events=self.n_events,
        )


_EMPTY_I, _EMPTY_F = _frozen(np.zeros(0, dtype=np.int64)), _frozen(np.zeros(0))


def _check(assignments, ready_mask, done, primary, name, t) -> None:
    """A policy's assignments must use distinct ready hosts and unfinished tasks (else: the policy's bug)."""
    hosts = set()
    sent = set()  # originals of this decision: their tasks may be replicated in it too
    for a in assignments:
        if not (0 <= a.host < len(ready_mask)) or not ready_mask[a.host] or a.host in hosts:
            raise ValueError(f"{name} at t={t}: host {a.host} is not ready or is used twice")
        hosts.add(a.host)
        if not (0 <= a.task < len(done)) or done[a.task]:
            raise ValueError(f"{name} at t={t}: task {a.task} does not exist or is completed")
        waiting = a.task in primary and a.task not in sent
        if a.replica == waiting:
            raise ValueError(
                f"{name} at t={t}: task {a.task} "
                + ("waits for its original, not a replica" if a.replica else "has a running original")
            )
        if not a.replica:
            sent.add(a.task)


@dataclass(frozen=True)
class PrescientSimulator:
    """:class:`~volsched.heuristics.base.Simulator` of the prescient family: :func:`simulate`.

    The solution is ``{"makespan", "attempts"}`` in the format of the
    family's verifier (each attempt also says whether it was a ``replica``;
    ``makespan`` is left out when the traces ended first); the metrics are
    ``makespan`` (``None`` when the traces ended first), ``waste``, ``laggers``,
    ``laggers_failure`` and ``failed`` (the traces ended first; the coupled family's convention,
    whose failed runs the problem's partial verifier checks).
    """

    def run(
        self, instance: PrescientInstance, policy: PrescientPolicy, rng: np.random.Generator
    ) -> tuple[dict, dict[str, Any]]:
        result = simulate(instance, policy, rng)
        solution: dict[str, Any] = {"attempts": result.attempts}
        if result.makespan is not None:
            solution["makespan"] = result.makespan
        return solution, result.metrics


__all__ = [
    "HEARTBEAT",
    "MAX_TASKS",
    "Assignment",
    "Observation",
    "Physics",
    "Platform",
    "PrescientPolicy",
    "PrescientSimulator",
    "Run",
    "detection_time",
    "simulate",
]
