"""Oracles of the compiled coupled on-line code: verbatim copies of the pure-Python code it replaced.

Copied from commit 2d7d3f5 (``solvers/coupled/replay.py``'s slot loop, ``heuristics/coupled/simulator.py``'s
``simulate``, ``passive.py``'s criterion and ``proactive.py``'s C-H) before the compiled kernels and the
proactive shortcuts. The new code must give the same traces, errors and schedules, bit for bit.
Only names were changed (``_oracle`` suffixes) and imports adapted; the parsing of a schedule
(``_configurations``, ``_communication``, ``replay_horizon``) is the verifier's own and stays shared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from volsched.heuristics.base import past
from volsched.heuristics.coupled.estimates import FORMULAS, MarkovEstimates
from volsched.heuristics.coupled.passive import CRITERIA, candidates, estimates_for
from volsched.heuristics.coupled.simulator import Configuration, Observation, Platform, Run, check_cap
from volsched.instances.coupled import DOWN, UP, CoupledInstance
from volsched.solvers.coupled.replay import LETTERS, Trace, _communication, _configurations, replay_horizon
from volsched.solvers.result import reject_unless

IDLE, PROG, DATA = 0, 1, 2
_FIRST_READ = 8192
_STATE = ("UP", "RECLAIMED", "DOWN")
MEASURES = ("P", "E", "Y")


# ---------------------------------------------------------------- the replay's slot loop


def replay_trace_oracle(instance: CoupledInstance, schedule, *, communication: bool = True) -> Trace:
    """Replay ``schedule`` slot by slot and return everything it did (see the module docstring).

    The replay reads the realization over :func:`replay_horizon` slots.

    Raises
    ------
    Infeasible
        The schedule is malformed or breaks a rule; the message names the field.
    """
    reject_unless(isinstance(schedule, Mapping), "schedule", "must be an object with 'configurations'")
    horizon = replay_horizon(instance, schedule)
    entries = _configurations(instance, schedule.get("configurations"), horizon)
    comm = _communication(instance, schedule.get("communication"), communication, horizon)
    p = instance.p
    t_prog, t_data = (instance.T_prog, instance.T_data) if communication else (0, 0)
    avail, w = instance.realization(horizon), instance.w
    trace = Trace(
        entry=np.zeros(horizon, dtype=bool),
        new_attempt=np.zeros(horizon, dtype=bool),
        progress=np.zeros(horizon, dtype=np.int64),
        transfer=comm,
        compute=np.zeros(horizon, dtype=bool),
        complete=np.zeros(horizon, dtype=bool),
        completions=[],
    )
    x = np.zeros(p, dtype=np.int64)
    workload = 0
    g = np.zeros(p, dtype=np.int64)
    d = np.zeros(p, dtype=np.int64)
    c = 0
    restart = False
    for t in range(horizon):
        if t in entries:
            previous, x = x, entries[t]
            workload = int((x * w).max())
            trace.entry[t] = restart = True
            leaving = (previous > 0) & (x == 0)
            g[leaving & (g < t_prog)] = 0
            np.minimum(d, x * t_data, out=d)
        if restart:
            c = 0
            trace.new_attempt[t] = True
        enrolled = x > 0
        state = avail[:, t]
        trace.progress[t] = c

        sends = comm[:, t]
        for q in np.flatnonzero(sends):
            letter = LETTERS[sends[q]]
            field = f"schedule.communication[{q}][{t}]"
            reject_unless(state[q] == UP, field, f"{letter!r} while processor {q} is {_STATE[state[q]]}")
            reject_unless(
                enrolled[q], field, f"{letter!r} to processor {q}, which is not enrolled at slot {t}"
            )
            if sends[q] == PROG:
                reject_unless(
                    g[q] < t_prog, field, f"'P' but processor {q} already has the program (T_prog = {t_prog})"
                )
            else:
                reject_unless(
                    d[q] < x[q] * t_data,
                    field,
                    f"'D' but processor {q} already has the data of its {x[q]} task(s) (T_data = {t_data})",
                )
        busy = int(np.count_nonzero(sends))
        reject_unless(
            busy <= instance.n_com,
            f"schedule.communication[*][{t}]",
            f"{busy} transfers at slot {t}, the master sends at most n_com = {instance.n_com}",
        )

        # State at the start of t decides; this slot's transfers only count from t + 1 (no overlap).
        if (
            workload > 0
            and bool(np.all(state[enrolled] == UP))
            and bool(np.all(g[enrolled] >= t_prog))
            and bool(np.all(d[enrolled] >= x[enrolled] * t_data))
            and not np.any(sends[enrolled])
        ):
            trace.compute[t] = True
            c += 1
        done = trace.compute[t] and c == workload
        if done:
            trace.complete[t] = True
            if len(trace.completions) < instance.K:
                trace.completions.append(t)
        g += sends == PROG
        d += sends == DATA
        lost = state == DOWN
        g[lost] = 0
        d[lost] = 0
        if done:
            d[:] = 0
        restart = bool(done or np.any(lost & enrolled))
    return trace


# ---------------------------------------------------------------- the simulator


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


def simulate_oracle(
    instance: CoupledInstance, policy, rng: np.random.Generator, cap: int | None = None
) -> Run:
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
            obs = Observation(
                t=t,
                reason=ask,
                platform=platform,
                states=past(states, t),
                iteration=done,
                iteration_start=iteration_start,
                allocation=x.copy(),
                program=g >= t_prog,
                data=d.copy(),
                needs=needs.copy(),
                progress=c,
                workload=workload,
            )
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
                    g[(x > 0) & (g < t_prog)] = 0
                    d[:] = 0
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
    return Run(
        schedule=schedule,
        makespan=makespan,
        failed=makespan is None,
        iterations=done,
        slots=length,
        decisions=decisions,
        switches=switches,
        switches_per_iteration=per_iteration,
    )


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


# ---------------------------------------------------------------- the policies


class RandomOracle:
    """RANDOM: "allocates tasks to UP processors randomly using a uniform distribution" (VI-C).

    Each of the ``m`` tasks goes to a worker drawn uniformly among the UP
    workers that hold fewer than ``mu_q`` tasks (with replacement). Read as
    passive: it draws at an iteration's start and after a DOWN only.
    """

    name = "RANDOM"
    proactive = False

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None:
        up = candidates(observation)
        if up is None:
            return None
        mu = observation.platform.mu
        held = np.zeros(observation.platform.p, dtype=np.int64)
        order = []
        for _ in range(observation.platform.m):
            open_ = up[held[up] < mu[up]]
            q = int(open_[rng.integers(open_.size)])
            held[q] += 1
            order.append(q)
        return Configuration(tuple(order))


@dataclass
class CriterionOracle:
    """Scores of one more task on each candidate worker (Section VI-A), given the tasks placed so far.

    For a candidate ``P_q`` and the set ``S' = S U {P_q}`` with one more task
    on ``P_q``, ``W_q = max_{r in S'} x'_r w_r`` and ``n_r`` the communication
    slots ``r`` still needs (``T_prog`` if it lacks the program, plus the data
    it does not hold: a worker re-chosen after a DOWN keeps its data, Sections
    III-C and VI-A):

    * ``P^(S)(q) = P_+(S')^(W_q - 1) x P_comm(S')``,
    * ``E^(S)(q) = E_comm(S') + E^(S')(W_q)``,

    and the four criteria: IP maximises ``P``; IE minimises ``E``; IY
    maximises ``P / (t + E)``, ``t`` the slots since the iteration began,
    failed attempts included; IAY maximises ``P / E``. ``formula`` is the
    form of ``E^(S)(W)`` (:data:`~.estimates.FORMULAS`; the paper's printed
    one by default).
    """

    name: str
    formula: str = "printed"
    estimates: MarkovEstimates | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.name not in CRITERIA or self.formula not in FORMULAS:
            raise ValueError(f"criterion {self.name!r} with formula {self.formula!r}")

    def scores(
        self,
        platform: Platform,
        x: np.ndarray,
        cands: np.ndarray,
        held_program: np.ndarray,
        held_data: np.ndarray,
        elapsed: int,
    ) -> np.ndarray:
        """One score per candidate, larger is better (``-E`` for IE)."""
        w = platform.w
        k = cands.size
        grown = np.repeat(x[None, :], k, axis=0)
        grown[np.arange(k), cands] += 1
        masks = grown > 0
        work = (grown * w).max(axis=1)
        needs = np.where(
            masks, platform.T_prog * ~held_program + np.maximum(grown * platform.T_data - held_data, 0), 0
        ).astype(np.int64)
        est = self.estimates
        comm = est.communication(masks, needs, platform.n_com, self.formula)
        if self.name == "IE":
            return -(comm.time + est.expected_span(masks, work, self.formula))
        prob = est.success_probability(masks, work) * comm.success
        if self.name == "IP":
            return prob
        span = comm.time + est.expected_span(masks, work, self.formula)
        with np.errstate(divide="ignore", invalid="ignore"):
            score = prob / (elapsed + span) if self.name == "IY" else prob / span
        return np.where(np.isfinite(score), score, 0.0)


def assign_oracle(
    observation: Observation, criterion: CriterionOracle, fresh: bool = False
) -> Configuration | None:
    """Section VI-A's passive construction: the ``m`` tasks one by one, each to the best UP worker.

    Candidates are the UP workers holding fewer than ``mu_q`` tasks; ties go
    to the lowest index. ``fresh`` computes "from scratch ... as if no task
    were allocated to any worker" (VI-B): no credit for data held (programs,
    which persist, still count).
    """
    up = candidates(observation)
    if up is None:
        return None
    platform = observation.platform
    x = np.zeros(platform.p, dtype=np.int64)
    data = np.zeros(platform.p, dtype=np.int64) if fresh else observation.data
    elapsed = observation.t - observation.iteration_start
    order = []
    for _ in range(platform.m):
        cands = up[x[up] < platform.mu[up]]
        scores = criterion.scores(platform, x, cands, observation.program, data, elapsed)
        q = int(cands[int(np.argmax(scores))])  # argmax keeps the first (lowest index) of ties
        x[q] += 1
        order.append(q)
    return Configuration(tuple(order))


class PassiveOracle:
    """IP, IE, IY or IAY (Section VI-A): a configuration at an iteration's start and after a DOWN."""

    proactive = False

    def __init__(self, criterion: str, formula: str = "printed"):
        self.criterion = CriterionOracle(criterion, formula)
        self.name = criterion if formula == "printed" else f"{criterion}[{formula}]"

    def begin(self, platform: Platform) -> None:
        self.criterion.estimates = estimates_for(platform, self.name)

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None:
        return assign_oracle(observation, self.criterion)


def measure(
    est: MarkovEstimates,
    platform: Platform,
    name: str,
    formula: str,
    x: np.ndarray,
    needs: np.ndarray,
    remaining: int,
    elapsed: int,
) -> float:
    """C's value of allocation ``x``: ``needs`` communication slots, ``remaining`` computation slots."""
    mask = x > 0
    if remaining <= 0 and not needs.any():
        prob, span = 1.0, 0.0
    else:
        comm = est.communication(mask[None, :], needs[None, :].astype(np.int64), platform.n_com, formula)
        work = max(int(remaining), 1)
        prob = float(comm.success[0] * est.success_probability(mask, work))
        span = float(comm.time[0] + (est.expected_span(mask, work, formula) if remaining > 0 else 0.0))
    if name == "P":
        return prob
    if name == "E":
        return span
    with np.errstate(divide="ignore", invalid="ignore"):
        value = prob / (elapsed + span)
    return float(value) if np.isfinite(value) else 0.0


def _better(name: str, fresh: float, current: float) -> bool:
    return fresh < current if name == "E" else fresh > current


class ProactiveOracle:
    """C-H: H builds the configurations; C decides, at every slot, whether a fresh one replaces it."""

    proactive = True

    def __init__(self, measure_name: str, criterion: str, formula: str = "printed"):
        if measure_name not in MEASURES:
            raise ValueError(f"proactive measure must be one of {MEASURES}, got {measure_name!r}")
        self.measure, self.formula = measure_name, formula
        self.criterion = CriterionOracle(criterion, formula)
        base = f"{measure_name}-{criterion}"
        self.name = base if formula == "printed" else f"{base}[{formula}]"
        self._fresh: dict = {}

    def begin(self, platform: Platform) -> None:
        self.criterion.estimates = estimates_for(platform, self.name)
        self._fresh = {}

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None:
        if observation.reason != "slot":
            return assign_oracle(observation, self.criterion)
        platform, est = observation.platform, self.criterion.estimates
        elapsed = observation.t - observation.iteration_start
        timed = self.criterion.name == "IY" or self.measure == "Y"
        key = (observation.now.tobytes(), observation.program.tobytes(), elapsed if timed else None)
        if key not in self._fresh:
            fresh = assign_oracle(observation, self.criterion, fresh=True)
            value = None
            if fresh is not None:
                x2 = fresh.allocation(platform.p)
                needs2 = np.where(x2 > 0, platform.T_prog * ~observation.program + x2 * platform.T_data, 0)
                value = measure(
                    est,
                    platform,
                    self.measure,
                    self.formula,
                    x2,
                    needs2,
                    int((x2 * platform.w).max()),
                    elapsed,
                )
            self._fresh[key] = (fresh, value)
        fresh, value = self._fresh[key]
        if fresh is None or np.array_equal(fresh.allocation(platform.p), observation.allocation):
            return None
        current = measure(
            est,
            platform,
            self.measure,
            self.formula,
            observation.allocation,
            observation.needs,
            observation.workload - observation.progress,
            elapsed,
        )
        return fresh if _better(self.measure, value, current) else None


def policy_oracle(name: str, formula: str = "printed"):
    """The heuristic ``name`` as it was (:func:`volsched.heuristics.coupled.policy`)."""
    if name == "RANDOM":
        return RandomOracle()
    if name in CRITERIA:
        return PassiveOracle(name, formula)
    measure_name, _, criterion = name.partition("-")
    return ProactiveOracle(measure_name, criterion, formula)
