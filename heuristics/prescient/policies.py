"""The resource-selection heuristics of Sections 4-6, on the server of :mod:`.simulator`.

Kondo, Chien, Casanova (2007), Sections 4 (prioritization), 5 (exclusion), 6
(replication) and 7.2 (the prototype's queues); the rules the paper leaves open
follow ``../shared/readings/prescient.md`` section 4, and each choice is stated
in its class's docstring.

Every policy is an immutable object (``name``, ``replicates``); what it
remembers during a run lives in the observation's ``memory``. A policy is asked
at the instants when a host is ready and it has something to place, and at the
instants it asked to be woken at (PRI-CR-WAIT's end of wait, EXCL-PRED's
revert, EXCL-PRED-TO's and REP-PROB's timeouts), even with no host ready; it
sees only the server's state at that instant and what was known before the run
(:class:`~.simulator.Platform`). The re-predictions "after every N tasks are
completed" take the instant of the N-th completion from the observed completion
instants, and EXCL-PRED checks each past prediction's revert instant against
the interval that prediction was in force, so neither depends on when the
policy happens to be asked.

Common units: ``s`` is a task's size in operations; a host's dedicated speed
is ``110.7e6 x clock / 1500 MHz`` operations per second (reading 1.4), so
``s / speed`` is a task's time on the host when it is dedicated to it.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from .simulator import Assignment, Observation

#: PRI-CR-WAIT: "waits for a fixed period of 10 minutes", "A threshold ratio of 10 to 1" (Section 4).
WAIT_S = 600.0
WAIT_RATIO = 10.0
#: EXCL-PRED: reverts to PRI-CR at "θ − .95 * meanops" (Section 5.2; reading 4.9).
REVERT_FRACTION = 0.95
#: REP-PROB: "Remove the task from the queue if its probability of completion is above 80%" (Section 6).
REP_THRESHOLD = 0.8


def by_clock(obs: Observation, hosts: np.ndarray) -> np.ndarray:
    """``hosts`` (in ready-queue order) by decreasing clock rate; equal clocks keep their queue order."""
    return hosts[np.argsort(-obs.platform.clock[hosts], kind="stable")]


def pair(tasks, hosts) -> list[Assignment]:
    """The originals of ``tasks`` on ``hosts``, in order, as many as both allow."""
    return [Assignment(int(h), int(task)) for task, h in zip(tasks, hosts, strict=False)]


# --------------------------------------------------------------------------- Section 4
@dataclass(frozen=True)
class FCFS:
    """FCFS: "application tasks are assigned to hosts in a greedy fashion" (Section 2.1).

    "FCFS ... which one can view as random resource prioritization" (Section 1):
    the hosts of the ready queue in order of arrival, those that arrived at the
    same instant in the order of the seeded draw (reading 4.1).
    """

    name: str = "FCFS"
    replicates: bool = False

    def decide(self, obs: Observation, rng: np.random.Generator):
        return pair(obs.primary, obs.ready), None


@dataclass(frozen=True)
class PriCR:
    """PRI-CR: "hosts in the server's ready queue are prioritized by their clock rates" (Section 4).

    Fastest first; hosts of equal clock rate in ready-queue order.
    """

    name: str = "PRI-CR"
    replicates: bool = False

    def decide(self, obs: Observation, rng: np.random.Generator):
        return pair(obs.primary, by_clock(obs, obs.ready)), None


@dataclass(frozen=True)
class PriCRWait:
    """PRI-CR-WAIT: PRI-CR after an initial wait (Section 4; reading 4.3).

    "The scheduler waits for a fixed period of 10 minutes before assigning tasks
    to hosts ... The scheduler stops waiting if the ratio of ready hosts to
    tasks is above some threshold. A threshold ratio of 10 to 1 was used". The
    wait is the initial one only ("The initial waiting period of 10 minutes is
    costly"): from the submission ``t0``, nothing is assigned before ``t0 + 600``
    s unless the ready hosts outnumber the tasks to schedule more than 10 to 1;
    from then on, PRI-CR. The wait counts in the makespan.
    """

    name: str = "PRI-CR-WAIT"
    replicates: bool = False
    wait: float = WAIT_S
    ratio: float = WAIT_RATIO

    def decide(self, obs: Observation, rng: np.random.Generator):
        if not obs.memory.get("waited"):
            end = obs.platform.submission + self.wait
            if obs.t < end and len(obs.ready) <= self.ratio * len(obs.primary):
                return [], end
            obs.memory["waited"] = True
        return pair(obs.primary, by_clock(obs, obs.ready)), None


@dataclass(frozen=True)
class PriHistory:
    """PRI-HISTORY: two priority queues from the previous weekday (Section 4; reading 4.4).

    "For each host, the scheduler calculates the expected operations per
    availability interval ... using the previous weekday's trace. ... If the
    expected number of operations per intervals is greater than or equal to the
    number of operations of an application task, then the host is placed in the
    higher of two priority queues. Otherwise, the request is put in the low
    priority queue. ... The scheduler picks hosts in the lower priority queue
    only if the higher priority queue is empty."

    Within a queue the paper orders hosts by "the expected operations per
    interval divided by expected operations per second; this way, hosts in each
    queue are prioritized according to their speed". That quotient is an
    interval's expected *duration*, not a speed; the stated intent is followed
    here: hosts by decreasing expected operations per second of up time in the
    history (:attr:`.history.History.ops_per_second`), then clock rate, then
    ready-queue order.
    """

    name: str = "PRI-HISTORY"
    replicates: bool = False

    def decide(self, obs: Observation, rng: np.random.Generator):
        hist = obs.platform.history
        hist.require(self.name)
        ready = obs.ready
        low = hist.ops_per_interval[ready] < obs.platform.s
        order = np.lexsort(
            (np.arange(len(ready)), -obs.platform.clock[ready], -hist.ops_per_second[ready], low)
        )
        return pair(obs.primary, ready[order]), None


# --------------------------------------------------------------------------- Section 5
@dataclass(frozen=True)
class ExclS:
    """EXCL-S``k``: exclude hosts slower than the mean clock minus ``k`` standard deviations (Section 5.1).

    "excludes hosts whose clock rates are lower than the mean clock rate over all
    hosts (1.2GHz for the SDSC platform) minus some factor of the standard
    deviation of clock rates (730MHz for the SDSC platform) ... EXCL-S1.5,
    EXCL-S1, EXCL-S.5, and EXCL-S.25 exclude those hosts that are 1.5, 1, .5,
    and .25 standard deviations below the mean clock rate." The mean and the
    (population) standard deviation are over all N hosts; the hosts kept are
    ordered as in PRI-CR (reading 4.5).
    """

    k: float
    name: str = ""
    replicates: bool = False

    def __post_init__(self):
        if not self.name:
            object.__setattr__(self, "name", "EXCL-S" + f"{self.k:g}".removeprefix("0"))

    def threshold(self, clock: np.ndarray) -> float:
        return float(np.mean(clock) - self.k * np.std(clock))

    def decide(self, obs: Observation, rng: np.random.Generator):
        clock = obs.platform.clock
        ready = obs.ready[clock[obs.ready] >= self.threshold(clock)]
        return pair(obs.primary, by_clock(obs, ready)), None


def prediction(obs: Observation) -> float:
    """The predicted completion instant θ of Section 5.2 (readings 4.6, 4.7).

    "we compute the average operations completed per second for each host
    taking into account host load and availability using the traces and then
    computing the average over all hosts (call this average r) ... μ = ⌈T/N⌉
    (s/r)", with ``r`` from the previous weekday (:class:`.history.History`),
    so θ = t0 + μ at the submission ``t0``. "after every N tasks are completed,
    it recomputes the projected makespan": at the completion instant ``c`` of
    the ``kN``-th task, θ = c + ⌈(T − kN)/N⌉ s/r. ``inf`` when ``r = 0``.
    """
    p = obs.platform
    return _epoch_prediction(obs, obs.completed // p.N)


def _epoch_prediction(obs: Observation, k: int) -> float:
    p = obs.platform
    r = p.history.r
    if r <= 0:
        return math.inf
    left = p.T - k * p.N
    since = p.submission if k == 0 else float(obs.completions[k * p.N - 1])
    return since + math.ceil(left / p.N) * p.s / r


@dataclass(frozen=True)
class ExclPred:
    """EXCL-PRED: exclude the hosts that cannot complete a task by the predicted completion (Section 5.2).

    "the heuristic predicts the application's makespan, and then excludes those
    resources that cannot complete a task by the predicted completion time". By
    Section 5 ("These criteria only use host clock rates") the test is
    clock-only (reading 4.8): host ``h`` may take a task at ``t`` iff ``t + s /
    speed_h <= θ`` (:func:`prediction`); the eligible hosts are ordered by clock
    rate.

    "if there are still tasks remaining at time θ − .95 * meanops, where θ is
    the predicted application completion time and meanops is the mean clock
    rate over all hosts, the EXCL-PRED heuristic reverts to PRI-CR at that
    time." A clock rate cannot be subtracted from a time (reading 4.9): the
    revert instant is θ − 0.95 s / speed(mean clock), 0.95 times a task's
    dedicated time on a host of the mean clock rate; "tasks remaining" are
    unfinished tasks, and the switch is permanent. The revert instant of each
    prediction is checked against the interval during which that prediction
    was in force, so the switch does not depend on when the policy is asked.
    """

    name: str = "EXCL-PRED"
    replicates: bool = False

    def reverted(self, obs: Observation) -> bool:
        """Whether the revert instant of a prediction in force has passed (then for ever)."""
        mem = obs.memory
        if mem.get("reverted"):
            return True
        p = obs.platform
        back = REVERT_FRACTION * p.s / p.mean_speed
        now = obs.completed // p.N
        for k in range(mem.get("epoch", 0), now + 1):
            at = _epoch_prediction(obs, k) - back
            if (at < float(obs.completions[(k + 1) * p.N - 1])) if k < now else (at <= obs.t):
                mem["reverted"] = True
                return True
        mem["epoch"] = now
        return False

    def hosts(self, obs: Observation) -> tuple[np.ndarray, float | None]:
        """The ready hosts EXCL-PRED may use now, fastest first, and the revert instant to wake at."""
        obs.platform.history.require(self.name)
        if self.reverted(obs):
            return by_clock(obs, obs.ready), None
        theta = prediction(obs)
        p = obs.platform
        ready = obs.ready[obs.t + p.s / p.speed[obs.ready] <= theta]
        return by_clock(obs, ready), theta - REVERT_FRACTION * p.s / p.mean_speed

    def decide(self, obs: Observation, rng: np.random.Generator):
        hosts, wake = self.hosts(obs)
        return pair(obs.primary, hosts), wake


# --------------------------------------------------------------------------- Section 6
@dataclass(frozen=True)
class ExclPredDup(ExclPred):
    """EXCL-PRED-DUP: EXCL-PRED with one proactive replica per task (Section 6; reading 4.10).

    "uses EXCL-PRED but replicates each task whenever the number of ready hosts
    is greater than the number of tasks to schedule"; "the heuristic could create
    a single replica as in the EXCL-PRED-DUP heuristic"; "EXCL-PRED-DUP
    replicates tasks immediately as soon as the original task instance is
    assigned to a host". At a decision where the ready hosts outnumber the
    tasks in the primary queue, the originals are placed first (as EXCL-PRED),
    then every unfinished task with a running original that never had a replica
    gets one, oldest original first (those placed now last), on the remaining
    hosts EXCL-PRED may use, fastest first. At most one replica per task: a
    failed replica is not replaced.
    """

    name: str = "EXCL-PRED-DUP"
    replicates: bool = True

    def decide(self, obs: Observation, rng: np.random.Generator):
        hosts, wake = self.hosts(obs)
        primary = obs.primary
        out = pair(primary, hosts)
        if len(obs.ready) > len(primary) and len(hosts) > len(out):
            old = np.flatnonzero((obs.original >= 0) & (obs.replicas_sent == 0) & ~obs.done)
            old = old[np.argsort(obs.original_start[old], kind="stable")]
            fresh = [a.task for a in out]
            spare = hosts[len(out) :]
            out += [
                Assignment(int(h), int(task), True)
                for task, h in zip([*old.tolist(), *fresh], spare, strict=False)
            ]
        return out, wake


@dataclass(frozen=True)
class ExclPredTO(ExclPred):
    """EXCL-PRED-TO: EXCL-PRED with a replica when an original times out (Sections 6 and 7.2; reading 4.11).

    Section 6: "whenever a task is scheduled, a timeout occurs if the task has
    not been completed by the predicted makespan. Upon timeout, the task is
    replicated". The queues are the Section 7.2 prototype's: "an instance of
    each task is placed in the primary queue ... a timeout is associated with
    each original task instance when it is scheduled on a host. When this time
    out expires, a task replica is placed in the secondary queue. ... the
    scheduler will first schedule tasks in the primary queue before those in
    the secondary queue ... only original task instances are allowed to time
    out. Also, when the original task instance fails, a new corresponding
    instance is placed in the primary queue; however, if a replica fails,
    nothing more is done."

    Choices (reading 4.11): an original's timeout is the prediction θ in force
    when it is sent, fixed then (an original sent after θ times out at once);
    a re-issued original gets a new timeout and may time out again; each
    timeout puts one replica in the secondary queue, which is served in timeout
    order after the primary queue, on the hosts EXCL-PRED may use, fastest first
    ("the replica is assigned to a host based on its clock rate"); a queued
    replica waits while its task has no running original and is dropped when
    the task completes.
    """

    name: str = "EXCL-PRED-TO"
    replicates: bool = True

    def decide(self, obs: Observation, rng: np.random.Generator):
        hosts, wake = self.hosts(obs)
        mem = obs.memory
        T = obs.platform.T
        if "timeout" not in mem:
            # Per task: the start of the original that has a timer, and when it fires (inf: none).
            mem["timer_start"], mem["timeout"] = np.full(T, np.nan), np.full(T, np.inf)
        start, timeout = mem["timer_start"], mem["timeout"]
        secondary: list[tuple[float, int]] = mem.setdefault("secondary", [])
        t = obs.t
        out = pair(obs.primary, hosts)
        theta = prediction(obs)
        armed = np.isfinite(timeout)
        timeout[armed & (obs.done | (obs.original_start != start))] = np.inf  # completed, or it failed
        for a in out:
            start[a.task], timeout[a.task] = t, theta
        fired = np.flatnonzero(timeout <= t)
        secondary += zip(timeout[fired].tolist(), fired.tolist(), strict=True)
        timeout[fired] = np.inf
        secondary.sort()
        placed = {a.task for a in out}
        spare = list(hosts[len(out) :])
        keep = []
        for at, task in secondary:
            if obs.done[task]:
                continue
            if spare and (obs.original[task] >= 0 or task in placed):
                out.append(Assignment(int(spare.pop(0)), task, True))
            else:
                keep.append((at, task))
        mem["secondary"] = keep
        nxt = float(timeout.min())
        if nxt < np.inf:
            wake = nxt if wake is None else min(wake, nxt)
        return out, wake


@dataclass(frozen=True)
class RepProb:
    """REP-PROB: replicate the least likely tasks on the most likely hosts (Section 6; reading 4.12).

    Per host, from the previous day by random incidence (:class:`.history.History`):
    ``p``, the probability that an attempt completes, and ``L``, "the expected
    time to task failure ... plus the expected length of unavailability"; ``X``,
    "execution time of a task on a particular host", is the dedicated time ``s
    / speed`` (reading 4.12: clock-based, as the rest). An instance started at
    ``u`` has ``A = ⌊(D − u − X)/L⌋ + 1`` attempts before the desired
    completion ``D`` (none if ``D − u < X``; unbounded if ``L = 0``) and
    completes by ``D`` with probability ``Σ_{a=1..A} (1−p)^{a−1} p = 1 −
    (1−p)^A`` (Equation 1); a task, with probability ``1 − Π_j P(c_ij > D)``
    over its running instances (Equations 2-5).

    The procedure (Section 6): "1. Predict the application completion time D
    using the makespan predictor. 2. Prioritize tasks according to the
    probability of task completion by time D ... Unassigned tasks have the
    highest priority. Tasks that have timed out have the second highest
    priority. 3. Prioritize hosts according to the probability of completing a
    task by time D. 4. While there are tasks remaining in the queue: a) Assign
    an instance of the task with the lowest probability of completion to the
    host with the highest probability. b) Assign a timeout D to that task. ...
    c) Recompute the task's probability of completion. d) Remove the task from
    the queue if its probability of completion is above 80%".

    Choices: ``D`` is EXCL-PRED's θ (:func:`prediction`, re-predicted after
    every N completions); when it has passed with tasks remaining, every host's
    probability would be 0, so ``D`` is re-predicted then as ``t + ⌈T_rem/N⌉
    s/r`` (until the next N-th completion). The queue holds, at each decision,
    the unassigned tasks (waiting for an original), the timed-out ones, and
    the others whose probability is at most 80 %; within a class, lowest
    probability first. A task is "assigned" while it has a running instance
    the server knows of; only the instances it knows of count in its
    probability. Hosts: decreasing probability, then clock rate, then
    ready-queue order. The loop ends when the queue or the ready hosts run out:
    "replicating the task with lowest probability of completion on the host
    with the highest, until there are no remaining hosts left"; replicas go
    only to hosts left over once every unassigned task has one (Section 6:
    "All of our heuristics only replicate when there are more hosts than
    tasks").
    """

    name: str = "REP-PROB"
    replicates: bool = True
    threshold: float = REP_THRESHOLD

    @staticmethod
    def success(obs: Observation, hosts: np.ndarray, starts: np.ndarray, D: float) -> np.ndarray:
        """``P(c <= D)`` of instances started at ``starts`` on ``hosts`` (Equation 1)."""
        p = obs.platform
        hist = p.history
        slack = D - starts - p.s / p.speed[hosts]
        length = hist.L[hosts]
        attempts = np.full(slack.shape, np.inf)  # L = 0: the host never failed, any number of attempts
        finite = length > 0
        attempts[finite] = np.floor(slack[finite] / length[finite]) + 1
        attempts[slack < 0] = 0.0
        fail = (1.0 - hist.p[hosts]) ** attempts  # 0 ** inf = 0, x ** 0 = 1, 1 ** inf = 1
        return 1.0 - fail

    def horizon(self, obs: Observation) -> float:
        """``D``: the prediction in force, or its re-prediction once it has passed (class docstring)."""
        p = obs.platform
        epoch = obs.completed // p.N
        mem = obs.memory
        D = mem["D"] if mem.get("epoch") == epoch else prediction(obs)
        if D <= obs.t and p.history.r > 0:
            D = obs.t + math.ceil(obs.remaining / p.N) * p.s / p.history.r
        mem["epoch"], mem["D"] = epoch, D
        return D

    def decide(self, obs: Observation, rng: np.random.Generator):
        p = obs.platform
        p.history.require(self.name)
        D = self.horizon(obs)
        t = obs.t
        timeouts = obs.memory.get("timeouts")
        if timeouts is None:
            timeouts = obs.memory["timeouts"] = np.full(p.T, math.inf)
        ready = obs.ready
        out: list[Assignment] = []
        if len(ready):
            fail = np.ones(p.T)
            if len(obs.live_task):
                np.multiply.at(fail, obs.live_task, 1.0 - self.success(obs, obs.live_host, obs.live_start, D))
            unassigned = np.zeros(p.T, dtype=bool)
            unassigned[obs.primary] = True
            open_ = np.flatnonzero(~obs.done)
            prob = 1.0 - fail[open_]
            rank = np.where(
                unassigned[open_],
                0,
                np.where(timeouts[open_] <= t, 1, np.where(prob <= self.threshold, 2, 3)),
            )
            keep = rank < 3
            queue = list(zip(rank[keep].tolist(), prob[keep].tolist(), open_[keep].tolist(), strict=True))
            heapq.heapify(queue)
            host_p = self.success(obs, ready, np.full(len(ready), t), D)
            order = np.lexsort((np.arange(len(ready)), -p.clock[ready], -host_p))
            for i in order.tolist():
                if not queue:
                    break
                _, _, task = heapq.heappop(queue)
                out.append(Assignment(int(ready[i]), task, not unassigned[task]))
                unassigned[task] = False
                timeouts[task] = D
                fail[task] *= 1.0 - host_p[i]
                if 1.0 - fail[task] <= self.threshold:
                    heapq.heappush(queue, (2, 1.0 - fail[task], task))
        pending = timeouts[(timeouts > t) & ~obs.done]
        return out, (float(pending.min()) if pending.size else None)


#: The twelve heuristics of Sections 4-6 by the paper's names.
HEURISTICS = {
    policy.name: policy
    for policy in (
        FCFS(),
        PriCR(),
        PriCRWait(),
        PriHistory(),
        ExclS(1.5),
        ExclS(1.0),
        ExclS(0.5),
        ExclS(0.25),
        ExclPred(),
        ExclPredDup(),
        ExclPredTO(),
        RepProb(),
    )
}
NAMES = tuple(HEURISTICS)

__all__ = [
    "FCFS",
    "HEURISTICS",
    "NAMES",
    "ExclPred",
    "ExclPredDup",
    "ExclPredTO",
    "ExclS",
    "PriCR",
    "PriCRWait",
    "PriHistory",
    "RepProb",
    "prediction",
]
