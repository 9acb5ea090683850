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
* **What a worker keeps** (III-B, III-C, VI-A). The program
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
        return cls(
            instance.p,
            instance.w,
            instance.mu,
            instance.m,
            instance.n_com,
            instance.T_prog,
            instance.T_data,
            instance.K,
            instance.transitions,
        )


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


@dataclass(frozen=True)
class Hold:
    """A proactive policy's promise, made when it keeps its configuration at a slot ``t0``.

    It will keep it again at every later slot of the same attempt (no switch, no DOWN of an
    enrolled worker, no completed iteration in between) whose decision sees the same UP
    workers ``up`` and, unless ``None``, the same holders of the program ``program`` and the
    same communication needs ``needs`` as at ``t0``. The simulator then counts those decisions
    without asking (:func:`simulate`); the policy must be able to prove the promise from
    what it knew at ``t0`` (:mod:`.proactive`).
    """

    up: np.ndarray
    program: np.ndarray | None = None
    needs: np.ndarray | None = None


@runtime_checkable
class CoupledPolicy(Protocol):
    """An on-line policy of Section VI: ``decide`` returns a configuration, or ``None``.

    ``None`` keeps the configuration in force; at a decision point where
    nothing is in force (an iteration start, after a DOWN) it means "wait".
    ``proactive`` policies are asked at every slot; one that has just kept its configuration
    at a slot may leave a :class:`Hold` in its attribute ``hold`` (``None`` otherwise).
    The simulator calls ``begin(platform)`` once before the run, and ``compiled()`` for the
    compiled form of the policy's rules (``None``: ``decide`` is asked in Python).
    :class:`PolicyDefaults` gives the hooks a policy does not need.
    """

    name: str
    proactive: bool
    hold: Hold | None

    def begin(self, platform: Platform) -> None: ...

    def compiled(self) -> tuple | None: ...

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None: ...


class PolicyDefaults:
    """The hooks of :class:`CoupledPolicy` that a policy may leave out: passive, no promise,
    nothing to prepare, and no compiled rules."""

    proactive: bool = False
    hold: Hold | None = None

    def begin(self, platform: Platform) -> None:
        """Nothing to prepare before the run."""

    def compiled(self) -> tuple | None:
        """No compiled form: the simulator asks :meth:`decide` in Python."""
        return None


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
        return {
            "makespan": self.makespan,
            "failed": self.failed,
            "iterations": self.iterations,
            "decisions": self.decisions,
            "switches": self.switches,
        }


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
        why = (
            ""
            if instance.extendable
            else " and the instance has no chains to continue it (transitions and continuation_seed)"
        )
        raise InputError(f"--cap: the realization ends at slot {limit}{why}; ask for at most {limit} slots")
    return cap


#: Most tasks per iteration the on-line policies take: they place the ``m`` tasks one by one at every
#: decision (Section VI-A), so a decision costs ``O(m p)``; the paper's ``m`` is 5 or 10.
MAX_TASKS = 10_000


def check_tasks(instance: CoupledInstance) -> None:
    """Refuse an ``m`` the one-by-one construction cannot place in reasonable time (``InputError``)."""
    if instance.m > MAX_TASKS:
        raise InputError(
            f"m: the on-line heuristics place the m tasks one by one at each decision "
            f"(Section VI-A); m = {instance.m:,} is beyond {MAX_TASKS:,}"
        )


def simulate(
    instance: CoupledInstance, policy: CoupledPolicy, rng: np.random.Generator, cap: int | None = None
) -> Run:
    """Run ``policy`` on ``instance``'s realization until ``K`` iterations complete or the cap.

    A compiled loop (:func:`._decision_kernel.play`) plays the slots and takes the decisions
    of a policy that describes them (a method ``compiled`` returning the arguments of
    :func:`._decision_kernel.arguments`, or ``None``); Python asks the policy's ``decide``
    for the others (a policy with no compiled decisions, or a value the compiled evaluation
    does not know yet) and applies its answer with the same compiled code. After a proactive
    policy kept its configuration at a slot, its :class:`Hold` (if any) lets the kernel count
    the next decisions it covers as kept, without asking the policy.

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
    # numba loads on first use, not when the heuristics are imported (start-up time)
    from . import _decision_kernel as dk
    from . import _simulator_kernel as kernel

    check_tasks(instance)
    cap = check_cap(instance, cap)
    p, big_k = instance.p, instance.K
    platform = Platform.of(instance)
    # The realization is read in growing prefixes: most runs end long before the cap.
    states = instance.realization(min(cap, max(instance.horizon, _FIRST_READ)))
    comm = np.zeros((p, states.shape[1]), dtype=np.int8)
    policy.begin(platform)
    proactive = bool(policy.proactive)
    rules = dk.arguments(
        p,
        instance.m,
        instance.mu,
        instance.w,
        instance.n_com,
        proactive,
        policy.compiled(),
    )

    g, d, x, needs, new = (np.zeros(p, dtype=np.int64) for _ in range(5))
    queue = np.zeros((3, p + instance.m), dtype=np.int64)
    hold = np.zeros((kernel.HOLD_ROWS, p), dtype=np.int64)
    st = np.zeros(dk.REGISTER, dtype=np.int64)
    st[[kernel.N_COM, kernel.T_PROG, kernel.T_DATA, kernel.K]] = (
        instance.n_com,
        instance.T_prog,
        instance.T_data,
        big_k,
    )
    st[dk.REASON] = dk.R_ITERATION
    log_start = np.zeros(64, dtype=np.int64)
    log_alloc = np.zeros((64, p), dtype=np.int64)
    completions = np.zeros(big_k, dtype=np.int64)
    per_iter = np.zeros(big_k + 1, dtype=np.int64)
    play = None
    while True:
        st[kernel.STOP] = min(cap, states.shape[1])
        args = (
            states,
            comm,
            x,
            g,
            d,
            needs,
            queue,
            st,
            hold,
            new,
            log_start,
            log_alloc,
            completions,
            per_iter,
            rng,
            rules,
        )
        if play is None:
            play = dk.entry(args)
        code = play(*args)
        if code == kernel.FINISHED:
            break
        t = int(st[kernel.T])
        if code == kernel.LIMIT:
            if t >= cap:
                break
            states = instance.realization(min(cap, 4 * t))
            comm = np.concatenate([comm, np.zeros((p, states.shape[1] - t), dtype=np.int8)], axis=1)
            play = None
        elif code == dk.FULL:
            log_start = np.concatenate([log_start, np.zeros_like(log_start)])
            log_alloc = np.concatenate([log_alloc, np.zeros_like(log_alloc)])
            play = None
        elif code == dk.BAD:
            raise ValueError(_rejected(int(st[dk.ERROR]), new))
        else:
            ask = int(st[dk.ASKED])
            obs = Observation(
                t=t,
                reason=REASONS[ask],
                platform=platform,
                states=past(states, t),
                iteration=int(st[kernel.DONE]),
                iteration_start=int(st[kernel.ITER_START]),
                allocation=x.copy(),
                program=g >= instance.T_prog,
                data=d.copy(),
                needs=needs.copy(),
                progress=int(st[kernel.C]),
                workload=int(st[kernel.WORKLOAD]),
            )
            decision = policy.decide(obs, rng)
            st[dk.DECIDED] = 1
            st[dk.DECISIONS] += 1
            if decision is not None:
                order = _order(decision, platform)
                if not dk.configure(
                    order, states, x, g, d, needs, queue, st, rules.mu, rules.w, new, log_start, log_alloc
                ):
                    raise ValueError(_rejected(int(st[dk.ERROR]), new))
                if ask == dk.R_SLOT:
                    st[dk.SWITCHES] += 1
                    per_iter[st[kernel.DONE]] += 1
            elif ask == dk.R_SLOT:
                st[kernel.HOLD] = kernel.NO_HOLD
                if policy.hold is not None:
                    _promise(policy.hold, hold, st)
            else:
                dk.wait(x, g, d, needs, st, log_start, log_alloc)
    t = int(st[kernel.T])
    done = int(st[kernel.DONE])
    makespan = t if done == big_k else None
    n = int(st[dk.ENTRIES])
    entries = [
        {"start": s, "allocation": a}
        for s, a in zip(log_start[:n].tolist(), log_alloc[:n].tolist(), strict=True)
    ]
    if x.any() and t < instance.max_realization():
        # The run ends here (K iterations, or the cap): an idle entry says so, so that the replay,
        # which reads an extendable realization as far as the schedule's entries reach, reads it
        # all and sees nothing go on computing after it.
        entries.append({"start": t, "allocation": [0] * p})
    letters = np.frombuffer(LETTERS.encode(), dtype=np.uint8)
    schedule = {
        "configurations": entries,
        "communication": [letters[row].tobytes().decode().rstrip(".") for row in comm[:, :t]],
        "completions": completions[:done].tolist(),
    }
    return Run(
        schedule=schedule,
        makespan=makespan,
        failed=makespan is None,
        iterations=done,
        slots=t,
        decisions=int(st[dk.DECISIONS] + st[kernel.HELD]),
        switches=int(st[dk.SWITCHES]),
        switches_per_iteration=per_iter[: min(done + 1, big_k)].tolist(),
    )


def _order(decision: Configuration, platform: Platform) -> np.ndarray:
    """The workers of ``decision``'s ``m`` tasks (else a policy's bug: ``ValueError``)."""
    order = np.asarray(decision.order, dtype=np.int64)
    if order.shape != (platform.m,) or np.any((order < 0) | (order >= platform.p)):
        raise ValueError(f"a configuration assigns the m = {platform.m} tasks, got order {decision.order}")
    return order


def _rejected(error: int, allocation: np.ndarray) -> str:
    # numba loads on first use, not when the heuristics are imported (start-up time)
    from . import _decision_kernel as dk

    what = "exceeds mu" if error == dk.BAD_MU else "enrolls a worker that is not UP"
    return f"allocation {allocation.tolist()} {what}"


def _promise(promise: Hold, hold: np.ndarray, st: np.ndarray) -> None:
    """Install a proactive policy's :class:`Hold` for :func:`._simulator_kernel.advance`."""
    # numba loads on first use, not when the heuristics are imported (start-up time)
    from . import _simulator_kernel as kernel

    hold[kernel.HOLD_UP] = promise.up
    mode = kernel.HOLD_UP_SET
    if promise.program is not None:
        hold[kernel.HOLD_PROGRAM] = promise.program
        mode = kernel.HOLD_KEY
        if promise.needs is not None:
            hold[kernel.HOLD_NEEDS] = promise.needs
            mode = kernel.HOLD_KEY_NEEDS
    st[kernel.HOLD] = mode


@dataclass(frozen=True)
class CoupledSimulator:
    """:class:`~volsched.heuristics.base.Simulator` of the coupled family: :func:`simulate` up to ``cap``.

    The solution is ``{"schedule": ...}`` in the replay format; the metrics are
    the makespan (``None`` when the run failed), ``failed``, the completed
    ``iterations`` and the proactive ``switches``.
    """

    cap: int | None = None

    def run(
        self, instance: CoupledInstance, policy: CoupledPolicy, rng: np.random.Generator
    ) -> tuple[dict, dict[str, Any]]:
        result = simulate(instance, policy, rng, self.cap)
        return {"schedule": result.schedule}, {
            "makespan": result.makespan,
            "failed": result.failed,
            "iterations": result.iterations,
            "switches": result.switches,
        }


__all__ = [
    "DOWN",
    "RECLAIMED",
    "UP",
    "Configuration",
    "CoupledPolicy",
    "CoupledSimulator",
    "Hold",
    "Observation",
    "Platform",
    "Run",
    "check_cap",
    "simulate",
]
