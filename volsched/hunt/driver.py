"""The hunt's driver: score candidates, search, compare with random search and a black-box optimiser.

**Scores.** ``ratio``: a candidate is scored as ``volsched evaluate`` scores the heuristic
(:func:`volsched.evaluate.evaluate`: the run's verified value against the exact method's result
on the same instance), and its score is the *lower end* of the ratio interval: the exact ratio
when the method proved the optimum, otherwise the ratio to the best known value, so that a hunted
ratio is a proven lower bound on the true one (:mod:`volsched.ratios`). ``work``: the exact
method's work to proof in its deterministic unit (:data:`volsched.solvers.problem.BUDGET_UNITS`),
never seconds. Every exact solve runs under a deterministic work budget (a method without a work
unit, the checkpoint DP, runs to its end) and under no clock: the hunt's ``time_limit``, its
safety net, is checked between candidates, so that every score is the same on every machine.

**Budget.** The hunt's budget counts candidates: the same seed and budget give the same hunt on any
machine. Random candidate ``i`` is drawn from ``default_rng([seed, 0, i])`` whatever the strategy,
so that the random baseline (the worst of ``budget`` random candidates) and the hunt's random
restarts share draws, and a candidate met twice is scored once.

**Strategies.**

* ``hunt``: random restarts, then hill climbers. The first tenth of the budget is random
  candidates; the best ``POPULATION`` of them start as many climbers, which take turns: a
  family-aware mutation (:mod:`.spaces`) of the climber's candidate replaces it when at least as
  bad for the heuristic (plateaus are crossed), and a climber that has not improved for a while
  restarts from a new random candidate. Four children in five are bred from the best candidate
  found instead (a climber around the best, which the others may displace). The population is the
  set of climbers; restarts keep basins other than the best's explored;
* ``random``: the random candidates ``0..budget-1``;
* ``blackbox``: SciPy's differential evolution over the candidate's vector form in ``[0, 1]^d``
  (:meth:`Space.encode`), the same number of candidates: a plain black-box optimiser with no
  knowledge of the family's structure. (The project's dependencies exclude nevergrad and cma;
  SciPy's optimiser is the established one available.)
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from volsched.instances.errors import InputError, require
from volsched.ratios import ratio

from .spaces import Candidate, Space, key_of

OBJECTIVES = ("ratio", "work")
STRATEGIES = ("hunt", "random", "blackbox")
#: Share of the hunt's budget spent on random restarts before the population starts.
RESTART_SHARE = 0.1
#: Hill climbers; each restarts from a random candidate after ``max(PATIENCE, budget / 50)``
#: candidates without improving (plateau moves included).
POPULATION = 8
#: A candidate is screened out only when its proven ceiling is below the threshold by more than
#: rounding (a tie with the threshold can still be accepted).
SCREEN_RTOL = 1e-9
#: Share of the children bred from the best candidate found (the others: the climbers in turn).
ELITE_RATE = 0.8
PATIENCE = 40
#: The heuristics' simulator settings of a hunt's candidates: the objective only (slack: the
#: reference makespan, not the disturbed one; checkpoint: the exact expected waste, not the
#: Monte-Carlo check). The ratio is the same as under the default settings.
FAST_SIMULATOR = {"slack": {"disturbance": "none"}, "checkpoint": {"samples": 2}}
#: Default deterministic work budget of each exact solve, by family (``None``: the method has no
#: unit and runs to the end).
SOLVE_BUDGET = {"slack": 2.0, "coupled": 100_000.0, "prescient": 2.0, "checkpoint": None}
#: Default exact method of a hunt, where it is not the problem's own default. coupled ``full``: the
#: default for a short stored horizon is ``cpsat``, whose time-indexed model reads the stored slots
#: only and finds nothing when the heuristics' runs go beyond them; ``greedy`` reads the realization
#: as far as it needs, under a budget of compiled calls, and proves its schedule optimal when its
#: bound meets it (otherwise the score is the ratio interval's lower end).
HUNT_METHOD = {"coupled": {"full": "greedy"}}


class _Stop(Exception):
    """The hunt's candidates or its wall-clock safety net ran out (inside the black-box optimiser)."""


@dataclass
class Scored:
    """A scored candidate. ``score`` is ``None`` when the candidate is no valid instance."""

    index: int
    cand: Candidate
    score: float | None
    detail: dict = field(default_factory=dict)


class Scorer:
    """Scores candidates of ``space`` for one heuristic (``ratio``) or one exact method (``work``)."""

    def __init__(
        self,
        family,
        space: Space,
        heuristic: str | None,
        objective: str,
        problem: str | None,
        method: str | None,
        solve_budget: float | None,
    ):
        self.family, self.space, self.heuristic, self.objective = family, space, heuristic, objective
        self.solve_budget = solve_budget
        if objective == "ratio":
            found = family.heuristic(heuristic)
            self.heuristic = heuristic = found.name  # a built-in name in its own case, or the import path
            self.problem = found.problem
            require(
                problem in (None, self.problem),
                "--problem",
                f"heuristic {heuristic} is scored against {self.problem}, not {problem}",
            )
            sim = found.simulator
            fast = {k: v for k, v in FAST_SIMULATOR.get(family.name, {}).items() if hasattr(sim, k)}
            self.simulators = {heuristic: dataclasses.replace(sim, **fast) if fast else sim}
        else:
            self.problem = family.problem(problem).name
        self.method = method or HUNT_METHOD.get(family.name, {}).get(self.problem)
        self.invalid = 0
        self.screened = 0
        #: Scores by candidate key, and the journal they are appended to (:meth:`attach`).
        self.memory: dict[bytes, tuple[float | None, dict]] | None = None
        self.journal = None

    def settings(self) -> dict:
        """What a score depends on: a journal written under other settings cannot be reused."""
        return {
            "family": self.family.name,
            "heuristic": self.heuristic,
            "objective": self.objective,
            "problem": self.problem,
            "method": self.method,
            "solve_budget": self.solve_budget,
            "bounds": self.space.describe(),
        }

    def attach(self, path) -> int:
        """Read the scores journaled at ``path`` (a hunt killed before it ended) and append new ones.

        The same seed then replays the same path, every journaled candidate costing no evaluation:
        the hunt resumes where it was killed. Returns the number of scores read.
        """
        from pathlib import Path

        path = Path(path)
        self.memory = {}
        header = {"volsched-hunt-journal": 1, "settings": self.settings()}
        if path.is_file():
            lines = path.read_text().splitlines()
            head = json.loads(lines[0]) if lines else None
            require(
                head == json.loads(json.dumps(header)),
                "--out",
                f"{path} journals a hunt with other settings (family, heuristic, objective, method, "
                "solve budget or bounds); use another folder",
            )
            fields = {f.name: f for f in self.space.fields()}
            kept = lines[:1]
            for text in lines[1:]:
                try:
                    row = json.loads(text)
                except json.JSONDecodeError:
                    break  # the line a kill cut short: dropped, the journal goes on after the last whole one
                kept.append(text)
                cand = {
                    k: np.asarray(v, dtype=np.int64 if fields[k].integer else float).reshape(fields[k].shape)
                    for k, v in row["cand"].items()
                }
                self.memory[key_of(cand)] = (row["score"], row["detail"])
            path.write_text("".join(line + "\n" for line in kept))
            self.journal = path.open("a")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.journal = path.open("w")
            self.journal.write(json.dumps(header) + "\n")
        return len(self.memory)

    def instance(self, cand: Candidate, name: str):
        return self.space.build(cand, name)

    def ceiling(self, instance) -> float | None:
        """An upper bound on the heuristic's ratio from a cheap proven bound on the optimum, or ``None``.

        Only for a minimisation whose space gives a lower bound (:meth:`Space.optimum_bound`): the
        verified run's value over that bound is at least its ratio to the optimum.
        """
        if self.objective != "ratio" or self.family.problems[self.problem].sense != "min":
            return None
        low = self.space.optimum_bound(instance, self.problem)
        if low is None:
            return None
        run = self.family.simulate(instance, self.heuristic, 0, self.simulators[self.heuristic])
        return ratio(run["objective"], low, "min")

    def __call__(
        self, cand: Candidate, name: str = "candidate", threshold: float | None = None
    ) -> tuple[float | None, dict]:
        """The candidate's score and what it rests on; ``None`` for an invalid candidate.

        With ``threshold``, a candidate whose ratio is proven below it by :meth:`ceiling` is not
        solved exactly: its score is ``None`` with ``{"screened": ceiling}`` (it could change
        nothing in the search).
        """
        key = key_of(cand) if self.memory is not None else None
        if key is not None and key in self.memory:
            score, detail = self.memory[key]
            if "screened" not in detail or (
                threshold is not None and detail["screened"] < threshold * (1 - SCREEN_RTOL)
            ):
                return score, detail
        score, detail = self._score(cand, name, threshold)
        if key is not None:
            self.memory[key] = (score, detail)
            if self.journal is not None:
                line = {"cand": {k: v.tolist() for k, v in cand.items()}, "score": score, "detail": detail}
                self.journal.write(json.dumps(line) + "\n")
                self.journal.flush()
        return score, detail

    def _score(self, cand: Candidate, name: str, threshold: float | None) -> tuple[float | None, dict]:
        from volsched.evaluate import evaluate

        try:
            instance = self.instance(cand, name)
        except InputError as exc:
            self.invalid += 1
            return None, {"invalid": str(exc)}
        if threshold is not None:
            top = self.ceiling(instance)
            if top is not None and top < threshold * (1 - SCREEN_RTOL):
                self.screened += 1
                return None, {"screened": top}
        if self.objective == "ratio":
            report = evaluate(
                self.family,
                instance,
                [self.heuristic],
                method=self.method,
                seed=0,
                simulators=self.simulators,
                budget=self.solve_budget,
            )
            ref = report["optima"][self.problem]
            pol = report["policies"][self.heuristic]
            return pol["ratio_lo"], {
                "value": pol["value"],
                "optimum": ref["optimum"],
                "bound": ref["bound"],
                "best_known": ref["best_known"],
                "status": ref["status"],
                "method": ref["method"],
                "ratio_hi": pol["ratio_hi"],
            }
        result = self.family.solve(
            instance, problem=self.problem, method=self.method, budget=self.solve_budget
        )
        return (None if result.work is None else float(result.work)), {
            "status": result.status.value,
            "method": result.method,
            "objective": result.objective,
            "stopped": result.stopped,
        }


@dataclass
class Hunt:
    """A hunt's state: every scored candidate, by candidate key, and the progress curve."""

    space: Space
    scorer: Scorer
    seed: int
    budget: int
    deadline: float | None
    seen: dict[bytes, Scored] = field(default_factory=dict)
    order: list[Scored] = field(default_factory=list)
    stopped: str | None = None

    def random_candidate(self, i: int) -> Candidate:
        return self.space.random(np.random.default_rng([self.seed, 0, i]))

    def score(self, cand: Candidate, threshold: float | None = None) -> Scored:
        """Score ``cand`` (once: a candidate met again costs a candidate but no evaluation).

        ``threshold``: the score below which the candidate changes nothing (:meth:`Scorer.__call__`
        may then skip its exact solve). A candidate screened before is scored again when the new
        threshold is lower than its proven ceiling.
        """
        if len(self.order) >= self.budget:
            raise _Stop("budget")
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.stopped = "wall clock"
            raise _Stop("wall clock")
        key = key_of(cand)
        hit = self.seen.get(key)
        stale = (
            hit is not None
            and "screened" in hit.detail
            and (threshold is None or hit.detail["screened"] >= threshold * (1 - SCREEN_RTOL))
        )
        if hit is None or stale:
            s, detail = self.scorer(cand, f"candidate-{len(self.order)}", threshold)
            hit = self.seen[key] = Scored(len(self.order), cand, s, detail)
        self.order.append(hit)
        return hit

    def best(self, k: int = 1) -> list[Scored]:
        """The ``k`` best distinct candidates of this run, the earliest first among equals."""
        valid = [s for s in {id(s): s for s in self.order}.values() if s.score is not None]
        return sorted(valid, key=lambda s: (-s.score, s.index))[:k]

    def progress(self) -> list[float | None]:
        """Best score after each candidate."""
        out, best = [], None
        for s in self.order:
            if s.score is not None and (best is None or s.score > best):
                best = s.score
            out.append(best)
        return out


def _val(s: Scored) -> float:
    return -math.inf if s.score is None else s.score


def run_random(h: Hunt) -> None:
    best = None
    try:
        for i in range(h.budget):
            s = h.score(h.random_candidate(i), best)
            if s.score is not None and (best is None or s.score > best):
                best = s.score
    except _Stop:
        pass


def run_hunt(h: Hunt) -> None:
    """Random restarts and hill climbers, and a climber around the best found (module docstring)."""
    rng = np.random.default_rng([h.seed, 1])
    n0 = max(1, min(h.budget, math.ceil(RESTART_SHARE * h.budget)))
    patience = max(PATIENCE, h.budget // 50)
    next_random = n0

    def floor(x: float) -> float | None:
        return None if x == -math.inf else x

    try:
        for i in range(n0):
            h.score(h.random_candidate(i))
        ranked = sorted({id(s): s for s in h.order}.values(), key=lambda s: (-_val(s), s.index))
        climbers = ranked[:POPULATION]
        age = [0] * len(climbers)
        best, turn = climbers[0], 0
        while True:
            elite = rng.random() < ELITE_RATE
            j = None if elite else turn % len(climbers)
            turn += 0 if elite else 1
            parent = best if elite else climbers[j]
            child = h.space.mutate(parent.cand, rng)
            for _ in range(10):
                if key_of(child) not in h.seen:
                    break
                child = h.space.mutate(parent.cand, rng)
            c = h.score(child, floor(_val(parent)))
            if _val(c) >= _val(best) and c is not best:
                best = c  # ties too: the elite climber walks plateaus
            if not elite:
                if _val(c) >= _val(parent) and c is not parent:
                    age[j] = 0 if _val(c) > _val(parent) else age[j] + 1
                    climbers[j] = c
                else:
                    age[j] += 1
                if age[j] > patience:
                    climbers[j], age[j] = h.score(h.random_candidate(next_random)), 0
                    next_random += 1
                    if _val(climbers[j]) > _val(best):
                        best = climbers[j]
    except _Stop:
        pass


def run_blackbox(h: Hunt) -> None:
    """SciPy's differential evolution on the vector form, until the candidates run out."""
    from scipy.optimize import differential_evolution

    d = h.space.dimension()

    def f(y):
        return -_val(h.score(h.space.decode(y)))

    with contextlib.suppress(_Stop):
        differential_evolution(
            f,
            [(0.0, 1.0)] * d,
            popsize=max(1, math.ceil(16 / max(d, 1))),
            maxiter=10**9,
            tol=0.0,
            atol=0.0,
            polish=False,
            init="random",
            rng=np.random.default_rng([h.seed, 2]),
            updating="immediate",
        )
    # DE may converge before the budget: the rest goes to random candidates (none is wasted).
    i = 0
    try:
        while True:
            h.score(h.random_candidate(h.budget + i))
            i += 1
    except _Stop:
        pass


RUNNERS = {"hunt": run_hunt, "random": run_random, "blackbox": run_blackbox}


def search(
    space: Space,
    scorer: Scorer,
    strategy: str,
    budget: int,
    seed: int,
    time_limit: float | None = None,
    seen: dict | None = None,
) -> Hunt:
    """Run ``strategy`` for ``budget`` candidates from ``seed`` (``time_limit``: the safety net).

    ``seen``: candidates already scored (by key), reused without a new evaluation.
    """
    require(strategy in RUNNERS, "--strategy", f"choose from {', '.join(RUNNERS)}, got {strategy!r}")
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    h = Hunt(space, scorer, seed, budget, deadline, seen=dict(seen or {}))
    RUNNERS[strategy](h)
    return h


def random_worst(
    space: Space,
    scorer: Scorer,
    budget: int,
    seed: int,
    hunt: Hunt | None = None,
    time_limit: float | None = None,
) -> Hunt:
    """The random baseline: candidates ``0..budget-1`` of the same stream (cached scores reused)."""
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    h = Hunt(space, scorer, seed, budget, deadline, seen=dict(hunt.seen) if hunt else {})
    run_random(h)
    return h


def summary_of(h: Hunt) -> dict[str, Any]:
    best = h.best()
    return {
        "best": None if not best else best[0].score,
        "candidates": len(h.order),
        "evaluated": len(h.seen),
        "stopped": h.stopped,
    }
