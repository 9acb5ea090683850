"""The on-line simulator of the coupled family: Section III, slot by slot, on the instance's realization.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Sections III-B, III-C and VI.
The simulator advances one slot at a time on the availability realization the
instance holds (its stored slots, then its deterministic continuation up to the
cap, :meth:`CoupledInstance.realization`) and asks an on-line policy for a
configuration at the decision points of Section VI. It returns the run as a
schedule in the format of :mod:`volsched.solvers.coupled.replay`, which the
verifier replays independently: the simulator and the replay are two readings
of Section III that must agree.

Rules (each one shared with the replay; ``../shared/readings/coupled-online.md``):

* **Decision points** (VI-B). A configuration is chosen at the start of every
  iteration and after an enrolled worker was DOWN (the iteration restarts),
  and, for a proactive policy, at every slot. A decision at slot ``t`` sees the
  states of slot ``t`` and slot ``t`` is usable (Figure 1: the configuration "is
  selected at time 1" and communication starts at 1). A policy that cannot
  form a configuration (no UP worker can take the tasks) returns ``None``: the
  master waits, nothing is enrolled, and it asks again at the next slot.
* **What a worker keeps** (III-B, III-C, VI-A; issue 15, part 0). The program
  until the worker is DOWN (a partial one is also lost when it leaves the
  configuration); the data received in the current iteration while it stays
  enrolled and is not DOWN, up to ``x_q T_data`` of its new allocation; nothing
  across iterations. A new configuration restarts the computation.
* **Channels** (III-B). At most ``n_com`` messages per slot, one message to a
  worker at a time, only to enrolled UP workers. The paper does not say which
  messages go first; here the master keeps a FIFO queue of messages in
  task-assignment order: when the policy assigns a task to ``P_q``, ``P_q``'s
  program (if it lacks it and it is not queued yet) and then one data message
  join the queue. In each slot the master walks the queue and serves the first
  message of each worker that is UP, up to ``n_com`` of them. A RECLAIMED
  worker's message is suspended and frees its channel (it "does not lose any
  state"). This rule reproduces Figure 1's idle pattern for the order
  ``(P_2, P_3, P_4, P_2, P_3)``; lowest-index-first and the other usual
  priorities do not (the reading, 5.4).
* **Computation** (III-A, III-C). In a slot where every enrolled worker is UP
  and holds the program and all its data; ``W = max_q x_q w_q`` such slots
  complete the iteration; no overlap with communication. A RECLAIMED enrolled
  worker suspends everybody.
* **The cap** (VII-A). The paper stops a run at "1,000,000 seconds"; its slots
  have no duration ("our approach is agnostic to the time-slot duration"), so
  the cap is read as 10^6 slots. A run that has not completed ``K`` iterations
  before the cap has failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from volsched.instances.coupled import DOWN, PAPER_CAP, RECLAIMED, UP, CoupledInstance
from volsched.instances.errors import InputError, check_int

from ..base import past

IDLE, PROG, DATA = 0, 1, 2
_FIRST_READ = 8192
LETTERS = ".PD"

#: Why the policy is asked: a new iteration, a restart after a DOWN, waiting for a configuration,
#: or a proactive policy's every-slot check of the configuration in force.
REASONS = ("iteration", "down", "wait", "slot")


@dataclass(frozen=True)
class Platform:
    """What a policy may know before the run: everything but the realization (Section III-A, V)."""

    p: int
    w: np.ndarray
    mu: np.ndarray
    m: int
    n_com: int
    T_prog: int
    T_data: int
    K: int
    transitions: np.ndarray | None

    @classmethod
    def of(cls, instance: CoupledInstance) -> Platform:
        return cls(instance.p, instance.w, instance.mu, instance.m, instance.n_com, instance.T_prog,
                   instance.T_data, instance.K, instance.transitions)


@dataclass(frozen=True)
class Observation:
    """The state of the run at the start of slot ``t``, and the past of the realization.

    ``states`` is a read-only view of the realization's slots ``0..t``;
    ``program`` says who holds the complete program, ``data`` the data slots
    each worker holds for the current iteration (counted for the allocation in
    force), ``needs`` the communication slots each enrolled worker still needs
    (``n_q`` of Section V-B). ``iteration_start`` is the slot the current
    iteration began, failed attempts included (IY's ``t``, Section VI-A).
    """

    t: int
    reason: str
    platform: Platform
    states: np.ndarray
    iteration: int
    iteration_start: int
    allocation: np.ndarray
    program: np.ndarray
    data: np.ndarray
    needs: np.ndarray
    progress: int
    workload: int

    @property
    def now(self) -> np.ndarray:
        """The states of slot ``t``."""
        return self.states[:, -1]


@dataclass(frozen=True)
class Configuration:
    """A configuration as a policy builds it: the workers of the ``m`` tasks, in assignment order."""

    order: tuple[int, ...]

    def allocation(self, p: int) -> np.ndarray:
        return np.bincount(np.asarray(self.order, dtype=np.int64), minlength=p).astype(np.int64)


@runtime_checkable
class CoupledPolicy(Protocol):
    """An on-line policy of Section VI: ``decide`` returns a configuration, or ``None``.

    ``None`` keeps the configuration in force; at a decision point where
    nothing is in force (an iteration start, after a DOWN) it means "wait".
    ``proactive`` policies are asked at every slot.
    """

    name: str
    proactive: bool

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None: ...


@dataclass
class Run:
    """A finished simulation: the replay schedule and what the experiment records."""

    schedule: dict
    makespan: int | None
    failed: bool
    iterations: int
    slots: int
    decisions: int
    switches: int
    switches_per_iteration: list[int] = field(default_factory=list)

    @property
    def metrics(self) -> dict[str, Any]:
        return {"makespan": self.makespan, "failed": self.failed, "iterations": self.iterations,
                "decisions": self.decisions, "switches": self.switches}


def check_cap(instance: CoupledInstance, cap: int | None) -> int:
    """The cap of a run: ``cap`` if the realization reaches it; by default the paper's ``10^6``
    slots, or the stored horizon for an instance that cannot continue its realization.

    Raises
    ------
    InputError
        ``cap`` is not a positive integer, or the realization ends before it.
    """
    limit = instance.max_realization()
    if cap is None:
        return min(PAPER_CAP, limit)
    cap = check_int(cap, "--cap", 1)
    if cap > limit:
        why = ("" if instance.extendable
               else " and the instance has no chains to continue it (transitions and continuation_seed)")
        raise InputError(f"--cap: the realization ends at slot {limit}{why}; ask for at most {limit} slots")
    return cap


class _Queue:
    """The master's FIFO of messages (worker, kind, slots left), in task-assignment order."""

    def __init__(self):
        self.items: list[list[int]] = []

    def build(self, order, p: int, g, d, t_prog: int, t_data: int) -> np.ndarray:
        """Queue the messages a configuration still needs; returns ``n_q`` per worker."""
        self.items = []
        held = d.copy()
        queued_prog = np.zeros(p, dtype=bool)
        needs = np.zeros(p, dtype=np.int64)
        for q in order:
            if g[q] < t_prog and not queued_prog[q]:
                queued_prog[q] = True
                self.items.append([q, PROG, t_prog - int(g[q])])
                needs[q] += t_prog - int(g[q])
            credit = min(int(held[q]), t_data)
            held[q] -= credit
            if t_data - credit > 0:
                self.items.append([q, DATA, t_data - credit])
                needs[q] += t_data - credit
        return needs

    def serve(self, up_now: np.ndarray, n_com: int, p: int) -> list[tuple[int, int]]:
        """This slot's transfers: the first message of each UP worker, in queue order, ``n_com`` at most."""
        seen = np.zeros(p, dtype=bool)
        sent = []
        for item in self.items:
            if len(sent) == n_com:
                break
            q = item[0]
            if seen[q]:
                continue
            seen[q] = True
            if up_now[q]:
                sent.append((q, item[1]))
                item[2] -= 1
        if sent:
            self.items = [item for item in self.items if item[2] > 0]
        return sent


def simulate(instance: CoupledInstance, policy: CoupledPolicy, rng: np.random.Generator,
             cap: int | None = None) -> Run:
    """Run ``policy`` on ``instance``'s realization until ``K`` iterations complete or the cap.

    Parameters
    ----------
    instance : CoupledInstance
    policy : CoupledPolicy
    rng : numpy.random.Generator
        Passed to every decision (RANDOM draws from it).
    cap : int, optional
        Slots before the run is declared failed (:func:`check_cap`).

    Returns
    -------
    Run
        The schedule (replay format, over the slots used), its makespan (``None`` when failed).
    """
    cap = check_cap(instance, cap)
    p, big_k = instance.p, instance.K
    t_prog, t_data, n_com, w = instance.T_prog, instance.T_data, instance.n_com, instance.w
    platform = Platform.of(instance)
    # The realization is read in growing prefixes: most runs end long before the cap.
    states = instance.realization(min(cap, max(instance.horizon, _FIRST_READ)))
    begin = getattr(policy, "begin", None)
    if begin is not None:
        begin(platform)

    g = np.zeros(p, dtype=np.int64)
    d = np.zeros(p, dtype=np.int64)
    x = np.zeros(p, dtype=np.int64)
    order: tuple[int, ...] = ()
    needs = np.zeros(p, dtype=np.int64)
    queue = _Queue()
    workload = c = done = 0
    iteration_start = 0
    reason: str | None = "iteration"
    entries: list[dict] = []
    comm_t: list[int] = []
    comm_q: list[int] = []
    comm_k: list[int] = []
    completions: list[int] = []
    decisions = switches = 0
    per_iteration = [0]
    t = 0
    while t < cap:
        if t == states.shape[1]:
            states = instance.realization(min(cap, 4 * t))
        now = states[:, t]
        ask = reason if reason is not None else ("slot" if policy.proactive and x.any() else None)
        if ask is not None:
            obs = Observation(t=t, reason=ask, platform=platform, states=past(states, t), iteration=done,
                              iteration_start=iteration_start, allocation=x.copy(), program=g >= t_prog,
                              data=d.copy(), needs=needs.copy(), progress=c, workload=workload)
            decision = policy.decide(obs, rng)
            decisions += 1
            if decision is not None:
                new = _checked(decision, platform, now)
                if ask == "slot":
                    switches += 1
                    per_iteration[-1] += 1
                leaving = (x > 0) & (new == 0)
                g[leaving & (g < t_prog)] = 0
                np.minimum(d, new * t_data, out=d)
                x, order = new, tuple(int(q) for q in decision.order)
                workload, c = int((x * w).max()), 0
                needs = queue.build(order, p, g, d, t_prog, t_data)
                entries.append({"start": t, "allocation": x.tolist()})
                reason = None
            elif ask != "slot":
                if x.any():
                    x, order, workload, c = np.zeros(p, dtype=np.int64), (), 0, 0
                    queue.items = []
                    needs[:] = 0
                    entries.append({"start": t, "allocation": [0] * p})
                reason = "wait"
        enrolled = x > 0
        sent = queue.serve((now == UP) & enrolled, n_com, p) if queue.items else []
        for q, kind in sent:
            comm_t.append(t)
            comm_q.append(q)
            comm_k.append(kind)
            needs[q] -= 1
        completed = False
        if workload and not sent and not queue.items and bool(np.all(now[enrolled] == UP)):
            c += 1
            if c == workload:
                completed = True
                completions.append(t)
                done += 1
        for q, kind in sent:
            if kind == PROG:
                g[q] += 1
            else:
                d[q] += 1
        lost = now == DOWN
        if lost.any():
            g[lost] = 0
            d[lost] = 0
        t += 1
        if completed:
            if done == big_k:
                break
            d[:] = 0
            c = 0
            iteration_start = t
            reason = "iteration"
            per_iteration.append(0)
        elif np.any(lost & enrolled):
            c = 0
            reason = "down"
    makespan = t if done == big_k else None
    if x.any() and t < instance.max_realization():
        # The run ends here (K iterations, or the cap): an idle entry says so, so that the replay,
        # which reads an extendable realization as far as the schedule's entries reach, reads it
        # all and sees nothing go on computing after it.
        entries.append({"start": t, "allocation": [0] * p})
    length = t
    comm = np.zeros((p, length), dtype=np.int8)
    if comm_t:
        comm[np.asarray(comm_q), np.asarray(comm_t)] = np.asarray(comm_k, dtype=np.int8)
    letters = np.frombuffer(LETTERS.encode(), dtype=np.uint8)
    schedule = {
        "configurations": entries,
        "communication": [letters[row].tobytes().decode().rstrip(".") for row in comm],
        "completions": completions,
    }
    return Run(schedule=schedule, makespan=makespan, failed=makespan is None, iterations=done,
               slots=length, decisions=decisions, switches=switches, switches_per_iteration=per_iteration)


def _checked(decision: Configuration, platform: Platform, now: np.ndarray) -> np.ndarray:
    """The allocation of ``decision``: ``m`` tasks on UP workers within ``mu`` (else a policy's bug)."""
    x = decision.allocation(platform.p)
    if len(decision.order) != platform.m or x.size != platform.p:
        raise ValueError(f"a configuration assigns the m = {platform.m} tasks, got order {decision.order}")
    if np.any(x > platform.mu):
        raise ValueError(f"allocation {x.tolist()} exceeds mu")
    if np.any((x > 0) & (now != UP)):
        raise ValueError(f"allocation {x.tolist()} enrolls a worker that is not UP")
    return x




@dataclass(frozen=True)
class CoupledSimulator:
    """:class:`~volsched.heuristics.base.Simulator` of the coupled family: :func:`simulate` up to ``cap``.

    The solution is ``{"schedule": ...}`` in the replay format; the metrics are
    the makespan (``None`` when the run failed), ``failed``, the completed
    ``iterations`` and the proactive ``switches``.
    """

    cap: int | None = None

    def run(self, instance: CoupledInstance, policy: CoupledPolicy,
            rng: np.random.Generator) -> tuple[dict, dict[str, Any]]:
        result = simulate(instance, policy, rng, self.cap)
        return {"schedule": result.schedule}, {"makespan": result.makespan, "failed": result.failed,
                                               "iterations": result.iterations, "switches": result.switches}


__all__ = ["DOWN", "RECLAIMED", "UP", "Configuration", "CoupledPolicy", "CoupledSimulator", "Observation",
           "Platform", "Run", "check_cap", "simulate"]
