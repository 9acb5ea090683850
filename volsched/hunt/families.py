"""The hunt's space of each family: which raw data it mutates, within which bounds.

* ``slack`` (Canon et al. 2011, Section 3.1): job sizes ``p_j`` and, with ``intervals > 0``, each
  non-free machine's availability and unavailability lengths ``a_i^k``, ``u_i^k``. Without
  intervals it is the plain problem ``P||C_max`` on which Graham's bounds hold.
* ``checkpoint`` (Bouguerra et al. 2011, Section III): slice durations ``p_j``, checkpoint costs
  ``c_j`` and the Weibull law's shape and scale.
* ``coupled`` (Casanova et al. 2013, Section III): the availability strings over U/R/D, each
  processor's Markov chain (the rows its on-line heuristics estimate from, Section V), its speed
  ``w_q``, and the communication times ``T_prog``, ``T_data``.
* ``prescient`` (Kondo et al. 2007, Section 3): each host's clock rate and its trace as segments of
  availability and unavailability.
"""

from __future__ import annotations

import numpy as np

from volsched.instances.errors import require

from .spaces import Bound, Candidate, Field, Space


class SlackSpace(Space):
    """Jobs on ``machines`` identical machines; ``intervals`` unavailabilities per non-free machine."""

    family = "slack"
    BOUNDS = (
        Bound("machines", 3, 1, 64, "m, machines"),
        Bound("jobs", 7, 1, 200, "n, jobs"),
        Bound("p_max", 20, 1, 10**6, "job sizes in 1..p_max"),
        Bound("intervals", 0, 0, 20, "unavailabilities per non-free machine (0: the plain problem)"),
        Bound("free", 1, 0, 64, "free machines (no unavailability) when intervals > 0"),
        Bound("a_max", 40, 0, 10**6, "availability lengths in 0..a_max"),
        Bound("u_max", 20, 1, 10**6, "unavailability lengths in 1..u_max"),
    )

    def validate(self) -> None:
        b = self.bounds
        require(b["free"] <= b["machines"], "--bound free", f"{b['free']} exceeds machines {b['machines']}")

    @property
    def busy(self) -> int:
        b = self.bounds
        return 0 if b["intervals"] == 0 else b["machines"] - b["free"]

    def fields(self) -> tuple[Field, ...]:
        b = self.bounds
        shape = (self.busy, b["intervals"])
        return (
            Field("p", (b["jobs"],), 1, b["p_max"]),
            Field("a", shape, 0, b["a_max"]),
            Field("u", shape, 1, b["u_max"]),
        )

    def build(self, cand: Candidate, name: str):
        from volsched.instances.slack import SlackInstance

        b = self.bounds
        machines = [np.zeros((0, 2), np.int64)] * (b["machines"] - self.busy)
        for a, u in zip(cand["a"], cand["u"], strict=True):
            e = np.cumsum(a + u)
            machines.append(np.stack([e - u, e], axis=1).astype(np.int64))
        return SlackInstance(
            machines=tuple(machines),
            p=np.asarray(cand["p"], np.int64),
            name=name,
            params={"preset": "hunt", **b},
        )

    def optimum_bound(self, instance, problem: str):
        """The family's combinatorial bound (:func:`volsched.solvers.slack.bound.lower_bound`)."""
        from volsched.solvers.slack.bound import lower_bound

        return lower_bound(instance, problem)

    def random(self, rng: np.random.Generator) -> Candidate:
        return self._canonical(super().random(rng))

    def mutate(self, cand: Candidate, rng: np.random.Generator) -> Candidate:
        return self._canonical(super().mutate(cand, rng))

    def _canonical(self, cand: Candidate) -> Candidate:
        """LPT's candidates with their sizes in non-increasing order: LPT sorts the jobs, and the
        optimum depends on the sizes only, so every order of the sizes has the same ratio (one
        candidate, scored once, stands for them all)."""
        if self.heuristic.lower() == "lpt":
            cand["p"] = -np.sort(-cand["p"])
        return cand

    def extra_moves(self):
        return [self._transfer, self._copy, self._insert, self._scale]

    def _scale(self, cand: Candidate, rng: np.random.Generator) -> None:
        """Every size times one factor, rounded: the ratios are nearly scale-free, and a finer or
        coarser grid lets the single-size moves reach what they could not."""
        p = cand["p"]
        factor = float(np.exp(rng.normal(0.0, 0.25)))
        cand["p"] = np.clip(np.rint(p * factor), 1, self.bounds["p_max"]).astype(np.int64)

    def _insert(self, cand: Candidate, rng: np.random.Generator) -> None:
        """One job moved to another place in the list: a list rule's order is its input."""
        p = cand["p"]
        if len(p) > 1:
            i, j = (int(x) for x in rng.choice(len(p), 2, replace=False))
            cand["p"] = np.insert(np.delete(p, i), j, p[i])

    def _copy(self, cand: Candidate, rng: np.random.Generator) -> None:
        """One job takes another's size: equal sizes are what ties a greedy rule's choices."""
        p = cand["p"]
        if len(p) > 1:
            i, j = rng.choice(len(p), 2, replace=False)
            p[i] = p[j]

    def _transfer(self, cand: Candidate, rng: np.random.Generator) -> None:
        """Work moved from one job to another: the total, hence the average load, stays."""
        p = cand["p"]
        if len(p) < 2:
            return
        i, j = rng.choice(len(p), 2, replace=False)
        d = int(rng.integers(1, max(2, int(p[i]))))
        d = min(d, int(p[i]) - 1, self.bounds["p_max"] - int(p[j]))
        if d > 0:
            p[i] -= d
            p[j] += d


class CheckpointSpace(Space):
    """A job of ``slices`` slices under a Weibull failure law; the issue's generator bounds by default."""

    family = "checkpoint"
    BOUNDS = (
        Bound("slices", 10, 1, 1000, "n, slices"),
        Bound("p_max", 59, 1, 10**6, "slice durations in 1..p_max quanta"),
        Bound("c_max", 19, 1, 10**6, "checkpoint costs in 1..c_max quanta"),
        Bound("shape_min", 0.3, 0.01, 100.0, "Weibull shape, lower end"),
        Bound("shape_max", 3.0, 0.01, 100.0, "Weibull shape, upper end"),
        Bound("scale_min", 20.0, 1e-3, 1e9, "Weibull scale in quanta, lower end"),
        Bound("scale_max", 2000.0, 1e-3, 1e9, "Weibull scale in quanta, upper end"),
        Bound("alpha", 1.0, 1e-6, 1.0, "re-execution ratio (fixed)"),
    )

    def validate(self) -> None:
        b = self.bounds
        for what in ("shape", "scale"):
            require(
                b[f"{what}_min"] <= b[f"{what}_max"],
                f"--bound {what}_min",
                f"{b[f'{what}_min']} exceeds {what}_max {b[f'{what}_max']}",
            )

    def fields(self) -> tuple[Field, ...]:
        b, n = self.bounds, self.bounds["slices"]
        return (
            Field("p", (n,), 1, b["p_max"]),
            Field("c", (n,), 1, b["c_max"]),
            Field("shape", (1,), b["shape_min"], b["shape_max"], integer=False, log=True),
            Field("scale", (1,), b["scale_min"], b["scale_max"], integer=False, log=True),
        )

    def build(self, cand: Candidate, name: str):
        from volsched.instances.checkpoint import CheckpointInstance
        from volsched.instances.laws import Weibull

        law = Weibull(shape=float(cand["shape"][0]), scale=float(cand["scale"][0]))
        return CheckpointInstance(
            p=np.asarray(cand["p"], np.int64),
            c=np.asarray(cand["c"], np.int64),
            alpha=self.bounds["alpha"],
            law=law,
            name=name,
            params={"preset": "hunt", **self.bounds},
        )

    def extra_moves(self):
        return [self._extreme_cost]

    def _extreme_cost(self, cand: Candidate, rng: np.random.Generator) -> None:
        """One checkpoint cost set to an end of its range: periodic rules average the costs."""
        c = cand["c"]
        c[int(rng.integers(len(c)))] = self.bounds["c_max"] if rng.random() < 0.5 else 1


class CoupledSpace(Space):
    """Section VII-A's setting, shrunk: ``processors`` workers with 3-state chains, ``mu = inf``.

    A candidate holds each processor's chain (``stay``: ``P_xx``; ``split``: the share of
    ``1 - P_xx`` that goes to the first other state), its speed ``w_q``, ``T_prog`` and ``T_data``,
    and the realization over ``slots`` slots; beyond them the chains continue from a fixed seed
    (:meth:`CoupledInstance.realization`). A random candidate's realization is drawn from its
    chains, as the paper's are; mutations then edit the strings, the chains or both.
    """

    family = "coupled"
    BOUNDS = (
        Bound("processors", 6, 1, 200, "p, processors"),
        Bound("slots", 60, 1, 10_000, "H, stored slots of the realization"),
        Bound("tasks", 3, 1, 200, "m, tasks per iteration"),
        Bound("iterations", 1, 1, 100, "K, iterations"),
        Bound("n_com", 2, 1, 200, "n_com, simultaneous master communications"),
        Bound("w_max", 3, 1, 1000, "w_q in 1..w_max"),
        Bound("t_max", 2, 0, 1000, "T_prog and T_data in 0..t_max"),
        Bound("stay_min", 0.5, 0.0, 1.0, "P_xx in [stay_min, 0.99]"),
    )

    def validate(self) -> None:
        b = self.bounds
        require(b["tasks"] <= b["processors"] * 1000, "--bound tasks", "too many tasks")

    def fields(self) -> tuple[Field, ...]:
        b, p = self.bounds, self.bounds["processors"]
        return (
            Field("availability", (p, b["slots"]), 0, 2),
            Field("stay", (p, 3), b["stay_min"], 0.99, integer=False),
            Field("split", (p, 3), 0.0, 1.0, integer=False),
            Field("w", (p,), 1, b["w_max"]),
            Field("T", (2,), 0, b["t_max"]),
        )

    def chains(self, cand: Candidate) -> np.ndarray:
        stay, split = cand["stay"], cand["split"]
        trans = np.zeros((len(stay), 3, 3))
        for x in range(3):
            y, z = (x + 1) % 3, (x + 2) % 3
            trans[:, x, x] = stay[:, x]
            trans[:, x, y] = (1.0 - stay[:, x]) * split[:, x]
            trans[:, x, z] = 1.0 - stay[:, x] - trans[:, x, y]
        return np.clip(trans, 0.0, 1.0)

    def random(self, rng: np.random.Generator) -> Candidate:
        from volsched.instances.coupled import markov_realization

        cand = super().random(rng)
        cand["availability"] = markov_realization(rng, self.chains(cand), self.bounds["slots"]).astype(
            np.int64
        )
        return cand

    def build(self, cand: Candidate, name: str):
        from volsched.instances.coupled import CoupledInstance

        b = self.bounds
        trans = self.chains(cand)
        trans /= trans.sum(axis=2, keepdims=True)  # rows exactly stochastic after rounding
        return CoupledInstance(
            availability=np.asarray(cand["availability"], np.int8),
            w=[int(v) for v in cand["w"]],
            mu=[None] * b["processors"],
            m=b["tasks"],
            n_com=b["n_com"],
            T_prog=int(cand["T"][0]),
            T_data=int(cand["T"][1]),
            K=b["iterations"],
            transitions=trans,
            continuation_seed=0,
            name=name,
            params={"preset": "hunt", **b},
        )

    def extra_moves(self):
        return [self._segment, self._segment, self._redraw]

    def _segment(self, cand: Candidate, rng: np.random.Generator) -> None:
        """A run of slots of one processor set to one state: availability changes in blocks."""
        a = cand["availability"]
        q, t = int(rng.integers(a.shape[0])), int(rng.integers(a.shape[1]))
        length = int(rng.integers(1, max(2, a.shape[1] // 4)))
        a[q, t : t + length] = int(rng.integers(3))

    def _redraw(self, cand: Candidate, rng: np.random.Generator) -> None:
        """One processor's chain perturbed and its string redrawn from it."""
        from volsched.instances.coupled import markov_realization

        q = int(rng.integers(cand["w"].shape[0]))
        cand["stay"][q] = np.clip(cand["stay"][q] + rng.normal(0, 0.05, 3), self.bounds["stay_min"], 0.99)
        row = markov_realization(rng, self.chains(cand)[q : q + 1], cand["availability"].shape[1])
        cand["availability"][q] = row[0]


class PrescientSpace(Space):
    """``hosts`` desktop hosts with their clock rates and traces of ``segments`` up/down segments.

    Host ``h``'s trace alternates up and down periods from time 0 (``up[h, k]``, ``down[h, k]``
    seconds); after its last one it stays up until the horizon, far beyond any schedule, so every
    schedule ends. ``tasks`` identical tasks of ``task_minutes`` (the paper's 15 on a dedicated
    1.5 GHz host). With ``history`` the trace repeats over a previous day (the window that the
    history-based policies read, Section 3.4): the application starts on the second copy.
    """

    family = "prescient"
    BOUNDS = (
        Bound("hosts", 6, 1, 1000, "N, hosts"),
        Bound("tasks", 10, 1, 10_000, "T, identical tasks"),
        Bound("segments", 6, 1, 1000, "up/down periods per host before it stays up"),
        Bound("clock_min", 500.0, 1.0, 1e5, "clock rates in MHz, lower end"),
        Bound("clock_max", 3000.0, 1.0, 1e5, "clock rates in MHz, upper end"),
        Bound("up_max", 3600.0, 1.0, 1e7, "up periods in 1..up_max seconds"),
        Bound("down_max", 3600.0, 1.0, 1e7, "down periods in 1..down_max seconds"),
        Bound("task_minutes", 15.0, 0.01, 1e4, "task size in minutes on a dedicated 1.5 GHz host"),
        Bound("history", 0, 0, 1, "1: the trace repeats over a previous window the history policies read"),
    )

    def validate(self) -> None:
        b = self.bounds
        require(b["clock_min"] <= b["clock_max"], "--bound clock_min", "exceeds clock_max")

    def fields(self) -> tuple[Field, ...]:
        b, shape = self.bounds, (self.bounds["hosts"], self.bounds["segments"])
        return (
            Field("clock", (b["hosts"],), b["clock_min"], b["clock_max"], integer=False, log=True),
            Field("up", shape, 1, int(b["up_max"])),
            Field("down", shape, 1, int(b["down_max"])),
        )

    def build(self, cand: Candidate, name: str):
        from volsched.instances.prescient import PrescientInstance

        b = self.bounds
        ends = np.cumsum(cand["up"] + cand["down"], axis=1)
        span = float(ends[:, -1].max())
        day = span + 1.0
        horizon = 2 * day + 10 * 86_400.0 if b["history"] else day + 10 * 86_400.0
        up = []
        for h in range(b["hosts"]):
            starts = np.concatenate([[0.0], ends[h, :-1]])
            pairs = [(float(s), float(s + u)) for s, u in zip(starts, cand["up"][h], strict=True)]
            tail = float(ends[h, -1])
            if b["history"]:
                # The previous window, then the same trace again from the application's start.
                pairs = pairs + [(day + s0, day + e0) for s0, e0 in pairs]
                tail = day + tail
            up.append([*pairs, (tail, horizon)])
        return PrescientInstance.build(
            [float(c) for c in cand["clock"]],
            up,
            tasks=b["tasks"],
            task_minutes=b["task_minutes"],
            start=day if b["history"] else 0.0,
            history=(0.0, day) if b["history"] else None,
            horizon=horizon,
            name=name,
            params={"preset": "hunt", **b},
        )

    def extra_moves(self):
        return [self._host_swap]

    def _host_swap(self, cand: Candidate, rng: np.random.Generator) -> None:
        """Two hosts exchange clock rates: the fast host gets the other's trace."""
        c = cand["clock"]
        if len(c) > 1:
            i, j = rng.choice(len(c), 2, replace=False)
            c[i], c[j] = c[j], c[i]


SPACES: dict[str, type[Space]] = {
    s.family: s for s in (SlackSpace, CheckpointSpace, CoupledSpace, PrescientSpace)
}
