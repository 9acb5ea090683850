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

    def extra_moves(self):
        return [self._transfer]

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


SPACES: dict[str, type[Space]] = {s.family: s for s in (SlackSpace, CheckpointSpace)}
