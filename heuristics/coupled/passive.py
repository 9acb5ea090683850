"""Passive heuristics of Section VI-A: a configuration at each iteration start and after a DOWN.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Section VI-A: "Passive heuristics
assign tasks to workers, which must be in the UP state, one by one until m tasks
are assigned", and "the current configuration is changed only when one of the
enrolled processors becomes DOWN" (or a new iteration begins, VI-B). A worker
can take a task while it holds fewer than ``mu_q``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from volsched.instances.errors import MissingData

from .estimates import FORMULAS, MarkovEstimates
from .simulator import UP, Configuration, Observation, Platform, PolicyDefaults


def candidates(observation: Observation) -> np.ndarray | None:
    """The UP workers, or ``None`` when they cannot hold the ``m`` tasks (the master waits)."""
    platform = observation.platform
    up = np.flatnonzero(observation.now == UP)
    if np.minimum(platform.mu[up], platform.m).sum() < platform.m:
        return None
    return up


class Random(PolicyDefaults):
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
            open_ = self._open(up, held, mu)
            q = int(open_[rng.integers(open_.size)])
            held[q] += 1
            order.append(q)
        return Configuration(tuple(order))

    @staticmethod
    def _open(up: np.ndarray, held: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """The workers the next task is drawn among: the UP ones holding fewer than ``mu_q`` tasks."""
        return up[held[up] < mu[up]]

    def compiled(self) -> tuple:
        """The same draws in the simulator's compiled loop (:mod:`._decision_kernel`)."""
        return ("random",)


CRITERIA = ("IP", "IE", "IY", "IAY")


def estimates_for(platform: Platform, name: str) -> MarkovEstimates:
    """The Section V estimates of the platform's chains, or a clear error when it has none."""
    if platform.transitions is None:
        raise MissingData(
            f"data.transitions: heuristic {name} estimates from the processors' Markov chains "
            "(Section V), and this instance has none (generate it with the markov or "
            "paper-realization preset)"
        )
    return MarkovEstimates(platform.transitions)


#: Largest ``n_q`` tabulated for the compiled evaluation (``T_prog + m T_data``); beyond, numpy.
_MAX_NEEDS = 1 << 16
#: Rows of the compiled evaluation's tables of sets and of powers by set and ``W`` (powers of 2;
#: emptied when half full).
_SETS, _POWERS = 1 << 18, 1 << 20
#: Most workloads whose powers :meth:`SetEstimates.value` learns ahead at once.
_AHEAD = 4096


class SetEstimates:
    """The Section V values of sets for one platform, in compiled loops (:mod:`._estimates_kernel`).

    The same arithmetic as :meth:`Criterion.scores` and :func:`.proactive.components`, in the
    same order, on values that numpy computes here: per set ``P_+`` and ``E_c`` (from the
    estimates' memo, on the batches the numpy path asks for), ``P_+^(W-1)`` per set and
    ``W``, and a table of the per-worker spans ``E^(q)(n)`` for ``n <= T_prog + m T_data``;
    it reads the estimates' tables of ``M_q^t`` and ``M_q^(2^j)``. The values it keeps are
    those of the estimates' memo: when that memo is emptied (it holds ``2^18`` sets), these
    are too, so that a set is computed again in the same batch as by the numpy path.
    """

    def __init__(
        self, estimates: MarkovEstimates, platform: Platform, criterion: str, formula: str, n_max: int
    ):
        # numba loads on first use, not when the heuristics are imported (start-up time)
        from ._estimates_kernel import IAY, IE, IP, IY

        self.estimates, self.platform = estimates, platform
        self.criterion = {"IP": IP, "IE": IE, "IY": IY, "IAY": IAY}[criterion]
        self.conditional = formula == "conditional"
        grid = np.repeat(np.arange(n_max + 1, dtype=np.int64)[:, None], platform.p, axis=1)
        self.span1 = np.ascontiguousarray(estimates.single_expected_span(grid, formula))
        self.mu = np.asarray(platform.mu, dtype=float)
        self.w = np.asarray(platform.w, dtype=np.int64)
        # Open-addressing tables (-1: an empty row): set key -> (P_+, E_c); (set key, W) -> P_+^(W-1).
        self.set_keys = np.full(_SETS, -1, dtype=np.int64)
        self.set_values = np.zeros((_SETS, 2))
        self.power_keys = np.full((_POWERS, 2), -1, dtype=np.int64)
        self.power_values = np.zeros(_POWERS)
        self._filled = [0, 0]
        self.bits = np.int64(1) << np.arange(platform.p, dtype=np.int64)
        self._memo_size = len(estimates.memo)
        self.tables = (
            self.span1,
            estimates.rows,
            estimates.pow2,
            estimates.T,
            self.conditional,
            self.set_keys,
            self.set_values,
            self.power_keys,
            self.power_values,
        )

    def _forget(self) -> None:
        self.set_keys[:] = -1
        self.power_keys[:] = -1
        self._filled = [0, 0]

    @classmethod
    def of(
        cls, estimates: MarkovEstimates, platform: Platform, criterion: str, formula: str
    ) -> SetEstimates | None:
        """The compiled evaluation, or ``None`` (more than 62 processors, or needs too long to tabulate)."""
        n_max = platform.T_prog + platform.m * platform.T_data
        if platform.p > 62 or n_max >= _MAX_NEEDS:
            return None
        return cls(estimates, platform, criterion, formula, n_max)

    def _learn(self, grown: np.ndarray, work: np.ndarray, ahead: bool = False) -> None:
        """Compute the values of a batch of sets, as the numpy path would (one ``_gaps`` call).

        ``grown`` (k, p) allocations, ``work`` their ``W``. ``ahead`` also learns the powers
        ``P_+^(W'-1)`` of every workload ``W'`` the construction can give these sets
        (:meth:`_workloads`), so that a set met again with another ``W'`` needs no round trip.
        """
        # numba loads on first use, not when the heuristics are imported (start-up time)
        from ._estimates_kernel import remember

        est = self.estimates
        masks = grown > 0
        _, _, p_plus, e_c = est.gap_sets(masks)
        keys = (masks * self.bits).sum(axis=1)
        if ahead:
            rows, work = self._workloads(grown, work)
            keys, p_plus, e_c = keys[rows], p_plus[rows], e_c[rows]
        if (
            len(est.memo) < self._memo_size
            or 2 * (self._filled[0] + len(masks)) > _SETS
            or 2 * (self._filled[1] + len(keys)) > _POWERS
        ):
            # The estimates' memo was emptied (a set met again is computed again, in its new batch,
            # as the numpy path does), or a table is half full: start the tables afresh.
            self._forget()
        self._memo_size = len(est.memo)
        with np.errstate(under="ignore", over="ignore", divide="ignore", invalid="ignore"):
            power = p_plus ** (work.astype(float) - 1.0)
        new_sets, new_powers = remember(
            *self.tables[5:],
            keys,
            work.astype(np.int64),
            np.ascontiguousarray(p_plus),
            np.ascontiguousarray(e_c),
            np.ascontiguousarray(power),
        )
        self._filled = [self._filled[0] + new_sets, self._filled[1] + new_powers]

    def _workloads(self, grown: np.ndarray, work: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (row of ``grown``, ``W'``): each row with its ``work``, then with every workload the
        construction can give its set ``S``: ``W' = j w_q`` for a member ``q``, ``j <= min(mu_q, m -
        |S| + 1)`` (every member holds a task), and ``W' >= max_{r in S} w_r``."""
        m = self.platform.m
        members = grown > 0
        j = np.arange(1, m + 1, dtype=np.int64)
        most = np.minimum(self.mu[None, :], m - members.sum(axis=1)[:, None] + 1)  # (k, p)
        least = np.where(members, self.w, 0).max(axis=1)  # (k,)
        value = j[:, None] * self.w[None, :]  # (m, p)
        allowed = (
            members[:, None, :]
            & (j[None, :, None] <= most[:, None, :])
            & (value[None] >= least[:, None, None])
        )
        i, jj, q = np.nonzero(allowed)
        rows = np.concatenate([np.arange(len(grown)), i])
        return rows, np.concatenate([work, value[jj, q]])

    def assign(self, up: np.ndarray, program: np.ndarray, data: np.ndarray, elapsed: int) -> tuple[int, ...]:
        """:func:`assign`'s order of the ``m`` tasks (``up`` the candidates, ascending)."""
        # numba loads on first use, not when the heuristics are imported (start-up time)
        from ._estimates_kernel import assign_tasks

        pf = self.platform
        order = np.empty(pf.m, dtype=np.int64)
        batch = np.empty((pf.p, pf.p), dtype=np.int64)
        up = np.ascontiguousarray(up, dtype=np.int64)
        program = np.ascontiguousarray(program, dtype=bool)
        data = np.ascontiguousarray(data, dtype=np.int64)
        while True:
            k = assign_tasks(
                up,
                self.mu,
                pf.m,
                self.w,
                program,
                data,
                pf.T_prog,
                pf.T_data,
                pf.n_com,
                self.span1,
                self.estimates.rows,
                self.estimates.pow2,
                self.estimates.T,
                self.conditional,
                self.criterion,
                elapsed,
                self.set_keys,
                self.set_values,
                self.power_keys,
                self.power_values,
                order,
                batch,
            )
            if k < 0:
                return tuple(int(q) for q in order)
            self._learn(batch[:k], (batch[:k] * self.w).max(axis=1), ahead=True)

    def value(self, x: np.ndarray, needs: np.ndarray, work: int) -> tuple[float, float]:
        """``(P, E)`` of allocation ``x`` with ``needs`` and ``work >= 1`` computation slots left."""
        # numba loads on first use, not when the heuristics are imported (start-up time)
        from ._estimates_kernel import value_of

        pf = self.platform
        out = np.empty(2)
        x = np.ascontiguousarray(x, dtype=np.int64)
        needs = np.ascontiguousarray(needs, dtype=np.int64)
        while not value_of(
            x,
            needs,
            work,
            self.w,
            pf.n_com,
            self.span1,
            self.estimates.rows,
            self.estimates.pow2,
            self.estimates.T,
            self.conditional,
            self.set_keys,
            self.set_values,
            self.power_keys,
            self.power_values,
            out,
        ):
            # The numpy path's batch for one allocation is that set alone. A proactive policy then
            # values the same configuration at every slot with one computation slot less: its
            # powers for the smaller workloads come along (an elementwise power's bits do not
            # depend on its batch; the set's values are in the estimates' memo by now).
            self._learn(x[None, :], np.array([work], dtype=np.int64))
            if 1 < work <= _AHEAD:
                self._learn(np.repeat(x[None, :], work - 1, axis=0), np.arange(1, work, dtype=np.int64))
        return float(out[0]), float(out[1])


@dataclass
class Criterion:
    """Scores of one more task on each candidate worker (Section VI-A), given the tasks placed so far.

    For a candidate ``P_q`` and the set ``S' = S U {P_q}`` with one more task
    on ``P_q``, ``W_q = max_{r in S'} x'_r w_r`` and ``n_r`` the communication
    slots ``r`` still needs (``T_prog`` if it lacks the program, plus the data
    it does not hold: a worker re-chosen after a DOWN keeps its data,
    Section III-C):

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
    engine: SetEstimates | None = field(default=None, repr=False)

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
        """One score per candidate, larger is better (``-E`` for IE): the numpy reference."""
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

    def prepare(self, platform: Platform, estimates: MarkovEstimates) -> None:
        """Use ``estimates`` for ``platform`` from now on, with the compiled evaluation when it applies."""
        self.estimates = estimates
        self.engine = SetEstimates.of(estimates, platform, self.name, self.formula)


def assign(observation: Observation, criterion: Criterion, fresh: bool = False) -> Configuration | None:
    """Section VI-A's passive construction: the ``m`` tasks one by one, each to the best UP worker.

    Candidates are the UP workers holding fewer than ``mu_q`` tasks; ties go
    to the lowest index. ``fresh`` computes "from scratch ... as if no task
    were allocated to any worker" (VI-B): no credit for data held (programs,
    which persist, still count). Compiled (:class:`SetEstimates`) once the
    criterion is prepared for a platform, else by :meth:`Criterion.scores`.
    """
    up = candidates(observation)
    if up is None:
        return None
    platform = observation.platform
    data = np.zeros(platform.p, dtype=np.int64) if fresh else observation.data
    elapsed = observation.t - observation.iteration_start
    if criterion.engine is not None:
        return Configuration(criterion.engine.assign(up, observation.program, data, elapsed))
    x = np.zeros(platform.p, dtype=np.int64)
    order = []
    for _ in range(platform.m):
        cands = up[x[up] < platform.mu[up]]
        scores = criterion.scores(platform, x, cands, observation.program, data, elapsed)
        q = int(cands[int(np.argmax(scores))])  # argmax keeps the first (lowest index) of ties
        x[q] += 1
        order.append(q)
    return Configuration(tuple(order))


class Passive(PolicyDefaults):
    """IP, IE, IY or IAY (Section VI-A): a configuration at an iteration's start and after a DOWN."""

    proactive = False

    def __init__(self, criterion: str, formula: str = "printed"):
        self.criterion = Criterion(criterion, formula)
        self.name = criterion if formula == "printed" else f"{criterion}[{formula}]"

    def begin(self, platform: Platform) -> None:
        self.criterion.prepare(platform, estimates_for(platform, self.name))

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None:
        return assign(observation, self.criterion)

    def compiled(self) -> tuple | None:
        """The construction in the simulator's compiled loop (:mod:`._decision_kernel`), on the values
        of the compiled evaluation; ``None`` without it."""
        engine = self.criterion.engine
        return None if engine is None else ("assign", engine)


__all__ = ["CRITERIA", "Criterion", "Passive", "Random", "assign", "candidates", "estimates_for"]
