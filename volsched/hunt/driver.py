"""The hunt's driver: score candidates, search, compare with random search and a black-box optimiser.

**Scores.** ``ratio``: a candidate's score is the *lower end* of the heuristic's ratio interval, as
``volsched evaluate`` computes it (:func:`volsched.evaluate.evaluate`, :mod:`volsched.ratios`): the
exact ratio when the method proved the optimum, otherwise the ratio to the best known value, so
that a hunted ratio is a proven lower bound on the true one. ``work``: the exact method's work to
proof in its deterministic unit (:data:`volsched.solvers.problem.BUDGET_UNITS`), never seconds.
Every exact solve runs under a deterministic work budget (a method without a work unit, the
checkpoint DP, runs to its end) and under no clock: the hunt's ``time_limit``, its safety net, is
checked between batches, so that every score is the same on every machine.

**What is verified, and when.** Per candidate (:meth:`Scorer.score_one`), the score rests on the
values the exact method and the heuristic's simulator report themselves: the method's objective,
bound and proof (a proof is the method's finished search or its bound meeting its objective,
never a stopped search), and the run's objective metric. The family's independent verifier
(``Problem.verify``: checkpoint's quadrature of Expression 1, slack's schedule check, coupled's
replay, prescient's) does *not* run on every candidate. It runs, through
:func:`volsched.evaluate.evaluate` (:meth:`Scorer.check`), on every candidate whose score beats
every score verified before it in the run (so on the best at every moment), and on every archived
candidate; a verified score that differs from the search's beyond :data:`volsched.ratios.RATIO_RTOL`
stops the hunt with ``VerificationError``. The scores reported (``best_ratio``, the archive's) are
the verified ones; the progress curves are the search's (the same up to that rounding).

**Batches and workers.** Candidates are bred ``BATCH`` at a time from the state before the batch,
scored, then taken into the state in the batch's order. A :class:`Pool` scores a batch in this
process, on local worker processes (joblib's loky, ``--workers``) or on a Dask cluster
(``--dask-scheduler``), in contiguous chunks that come back in order: the hunt, its journal and
its archive are the same on any pool.

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
  found instead (a climber around the best, which the others may displace; after
  ``ELITE_PATIENCE`` times the climbers' patience without improving, it goes on from the best other
  climber). The population is the set of climbers; restarts keep basins other than the best's
  explored;
* ``random``: the random candidates ``0..budget-1``;
* ``blackbox``: SciPy's differential evolution over the candidate's vector form in ``[0, 1]^d``
  (:meth:`Space.encode`), a generation per batch, the same number of candidates: a plain
  black-box optimiser with no knowledge of the family's structure. (The project's dependencies
  exclude nevergrad and cma; SciPy's optimiser is the established one available.)

Why the default search is the hand-written ``hunt`` and not the library's optimiser: a candidate's
raw data are strings, integer vectors and law parameters whose useful moves (copy a job's size,
extend an unavailability, set a cost to an end of its range) have no smooth counterpart in a
``[0, 1]^d`` encoding; on the same candidates and seeds the ``hunt`` beats differential evolution in
every family (``benchmarks/RESULTS.md``, "Against black-box baselines"), so the library serves as
the baseline the hunt must beat.
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
#: The climber around the best moves to the best other climber after ``ELITE_PATIENCE`` times the
#: climbers' patience without improving.
ELITE_PATIENCE = 4
#: Candidates bred and scored together (:class:`Pool`); part of the search, so the same on every pool.
BATCH = 16
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


def _screened_above(detail: dict, threshold: float | None) -> bool:
    """A candidate screened out (:meth:`Scorer.score_one`) whose proven ceiling ``threshold`` no
    longer screens: it must be scored again."""
    return "screened" in detail and (threshold is None or detail["screened"] >= threshold * (1 - SCREEN_RTOL))


@dataclass
class Scored:
    """A scored candidate. ``score`` is ``None`` when the candidate is no valid instance."""

    index: int
    cand: Candidate
    score: float | None
    detail: dict = field(default_factory=dict)


class Scorer:
    """Scores candidates of ``space`` for one heuristic (``ratio``) or one exact method (``work``).

    :meth:`score_one` is the per-candidate score (module docstring, *Scores*): what a worker runs.
    :meth:`check` is the full, verified evaluation of one candidate. :meth:`score_batch` looks
    candidates up in the memory (and journal) first and has the others scored by ``pool``.
    """

    def __init__(
        self,
        family,
        space: Space,
        heuristic: str | None,
        objective: str,
        problem: str | None,
        method: str | None,
        solve_budget: float | None,
        base: str | None = None,
    ):
        self.family, self.space, self.heuristic, self.objective = family, space, heuristic, objective
        self.solve_budget = solve_budget
        self.base = base
        if objective == "ratio":
            found = family.heuristic(heuristic, "--heuristic", base)
            self.heuristic = heuristic = found.name  # a built-in name in its own case, or the import path
            self.found = found
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
        #: Scores by candidate key (every candidate scored, by the hunt and its baseline), and the
        #: journal they are appended to (:meth:`attach`).
        self.memory: dict[bytes, tuple[float | None, dict]] = {}
        self.journal = None
        #: Verified scores (:meth:`check`) by candidate key.
        self.verified: dict[bytes, float | None] = {}
        self.pool: Pool = Pool()

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

    @classmethod
    def from_settings(cls, settings: dict, base: str | None = None) -> Scorer:
        """The scorer of :meth:`settings` (a worker's: the same scores as the hunt's own)."""
        from volsched.families import FAMILIES

        from .families import SPACES

        family = FAMILIES[settings["family"]]
        space = SPACES[family.name].from_bounds(settings["bounds"], settings["heuristic"] or "")
        return cls(
            family,
            space,
            settings["heuristic"],
            settings["objective"],
            settings["problem"],
            settings["method"],
            settings["solve_budget"],
            base,
        )

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

    def ceiling(self, instance, value: float | None) -> float | None:
        """An upper bound on the heuristic's ratio from a cheap proven bound on the optimum, or ``None``.

        Only for a minimisation whose space gives a lower bound (:meth:`Space.optimum_bound`): the
        run's value ``value`` over that bound is at least its ratio to the optimum.
        """
        if self.objective != "ratio" or self.family.problems[self.problem].sense != "min":
            return None
        low = self.space.optimum_bound(instance, self.problem)
        if low is None or value is None:
            return None
        return ratio(value, low, "min")

    def __call__(
        self, cand: Candidate, name: str = "candidate", threshold: float | None = None
    ) -> tuple[float | None, dict]:
        """One candidate's score (:meth:`score_batch` of one)."""
        return self.score_batch([(cand, name, threshold)])[0]

    def _fresh(self, key: bytes, threshold: float | None) -> bool:
        """Whether ``key``'s candidate must be scored (not in memory, or screened above ``threshold``)."""
        return key not in self.memory or _screened_above(self.memory[key][1], threshold)

    def score_batch(
        self, items: list[tuple[Candidate, str, float | None]], keys: list[bytes] | None = None
    ) -> list[tuple[float | None, dict]]:
        """Scores of ``(candidate, name, threshold)`` items, in order (``keys``: their
        :func:`.spaces.key_of`, if known).

        A candidate in the memory is not scored again, unless it was screened at a threshold that
        no longer screens it (:meth:`score_one`); the others are scored by :attr:`pool`, each once, and
        journaled in the order of ``items``. The result does not depend on the pool.
        """
        keys = [key_of(cand) for cand, _, _ in items] if keys is None else keys
        todo: dict[bytes, tuple[Candidate, str, float | None]] = {}
        for key, item in zip(keys, items, strict=True):
            if key not in todo and self._fresh(key, item[2]):
                todo[key] = item
        if todo:
            scored = self.pool.map(self, list(todo.values()))
            for key, (cand, _, _), (score, detail) in zip(todo, todo.values(), scored, strict=True):
                self.invalid += "invalid" in detail
                self.screened += "screened" in detail
                self.memory[key] = (score, detail)
                if self.journal is not None:
                    line = {
                        "cand": {k: v.tolist() for k, v in cand.items()},
                        "score": score,
                        "detail": detail,
                    }
                    self.journal.write(json.dumps(line) + "\n")
            if self.journal is not None:
                self.journal.flush()
        return [self.memory[key] for key in keys]

    def _run(self, instance) -> float | None:
        """The heuristic's value on ``instance``, as its simulator reports it (not re-verified)."""
        sim = self.simulators[self.heuristic]
        metric = self.family.problems[self.problem].objective_metric
        _, metrics = sim.run(instance, self.found.policy, np.random.default_rng(0))
        if metrics.get("failed") or metric not in metrics:
            return self.family.simulate(instance, self.found, 0, sim)["objective"]
        return None if metrics[metric] is None else float(metrics[metric])

    def _solve(self, instance):
        """The exact method's outcome on ``instance``, its solution not re-verified (``method``, outcome)."""
        from volsched.solvers.problem import check_budget, warm_up

        chosen = self.family.problems[self.problem]
        method = self.method or chosen.method_for(instance)
        require(method in chosen.methods, "--method", f"{self.problem} has methods {list(chosen.methods)}")
        if chosen.check is not None:
            chosen.check(instance)
        warm_up(self.family.name, chosen, method)
        fn = chosen.methods[method]
        if method in chosen.budgets:
            return method, fn(instance, None, 0, check_budget(self.solve_budget))
        return method, fn(instance, None, 0)

    def score_one(self, cand: Candidate, name: str, threshold: float | None) -> tuple[float | None, dict]:
        """The candidate's score and what it rests on; ``None`` for an invalid candidate.

        With ``threshold``, a candidate whose ratio is proven below it by :meth:`ceiling` is not
        solved exactly: its score is ``None`` with ``{"screened": ceiling}`` (it could change
        nothing in the search).
        """
        from volsched.evaluate import OptimumBeaten
        from volsched.ratios import Reference, beats, best_value
        from volsched.solvers.problem import is_proof

        try:
            instance = self.instance(cand, name)
        except InputError as exc:
            return None, {"invalid": str(exc)}
        if self.objective == "ratio":
            value = self._run(instance)
            if threshold is not None:
                top = self.ceiling(instance, value)
                if top is not None and top < threshold * (1 - SCREEN_RTOL):
                    return None, {"screened": top}
            method, out = self._solve(instance)
            sense = self.family.problems[self.problem].sense
            bound = None if out.bound is None else float(out.bound)
            objective = None if out.objective is None else float(out.objective)
            proven = objective is not None and is_proof(out.proven, objective, bound)
            ref = Reference(
                sense,
                True,
                proven,
                objective,
                objective if proven else bound,
                best_value([objective, value], sense),
            )
            if proven and value is not None and beats(value, objective, sense):
                raise OptimumBeaten(
                    f"heuristic {self.heuristic}: value {value!r} beats the optimum {objective!r}"
                )
            score = ref.interval(value)
            return score.lo, {
                "value": value,
                "optimum": ref.optimum,
                "bound": ref.bound,
                "best_known": ref.best_known,
                "status": "optimal" if proven else ("unknown" if objective is None else "feasible"),
                "method": method,
                "ratio_hi": score.hi,
            }
        method, out = self._solve(instance)
        proven = out.objective is not None and out.proven
        return (None if out.work is None else float(out.work)), {
            "status": "optimal" if proven else ("unknown" if out.objective is None else "feasible"),
            "method": method,
            "objective": out.objective,
            "stopped": None if proven else out.stopped,
        }

    def check(self, cand: Candidate, score: float | None, name: str = "candidate") -> float | None:
        """The candidate's verified score: :func:`volsched.evaluate.evaluate` (``ratio``) or the
        family's ``solve`` (``work``), every solution through the family's verifier.

        Raises
        ------
        VerificationError
            The verified score disagrees with ``score`` (:meth:`score_one`'s) beyond rounding
            (:data:`volsched.ratios.RATIO_RTOL`): a method's or a simulator's claim is wrong.
        """
        from volsched.evaluate import evaluate
        from volsched.ratios import RATIO_RTOL
        from volsched.solvers import VerificationError

        key = key_of(cand)
        if key in self.verified:
            return self.verified[key]
        instance = self.instance(cand, name)
        if self.objective == "ratio":
            report = evaluate(
                self.family,
                instance,
                [self.found],
                method=self.method,
                seed=0,
                simulators=self.simulators,
                budget=self.solve_budget,
            )
            verified = report["policies"][self.heuristic]["ratio_lo"]
        else:
            result = self.family.solve(
                instance, problem=self.problem, method=self.method, budget=self.solve_budget
            )
            verified = None if result.work is None else float(result.work)
        if (verified is None) != (score is None) or (
            verified is not None and not math.isclose(verified, score, rel_tol=RATIO_RTOL)
        ):
            raise VerificationError(
                f"hunt {self.family.name}: a candidate's score {score!r} is {verified!r} once verified"
            )
        self.verified[key] = verified
        return verified


@dataclass
class Hunt:
    """A hunt's state: every scored candidate, by candidate key, and the progress curve.

    ``checked``: the best score verified so far (:meth:`Scorer.check` runs on every candidate that
    beats it).
    """

    space: Space
    scorer: Scorer
    seed: int
    budget: int
    deadline: float | None
    seen: dict[bytes, Scored] = field(default_factory=dict)
    order: list[Scored] = field(default_factory=list)
    stopped: str | None = None
    batch: int = BATCH
    checked: float | None = None

    def random_candidate(self, i: int) -> Candidate:
        return self.space.random(np.random.default_rng([self.seed, 0, i]))

    def _stale(self, hit: Scored | None, threshold: float | None) -> bool:
        return hit is None or _screened_above(hit.detail, threshold)

    def score_batch(self, items: list[tuple[Candidate, float | None]]) -> list[Scored]:
        """Score a batch of ``(candidate, threshold)`` (each once: a candidate met again costs a
        candidate but no evaluation), in order; the batch is cut to the candidates left.

        ``threshold``: the score below which the candidate changes nothing (:meth:`Scorer.score_one`
        may then skip its exact solve). A candidate screened before is scored again when the new
        threshold is lower than its proven ceiling. A candidate that beats every score verified so
        far is verified (:meth:`Scorer.check`).
        """
        left = self.budget - len(self.order)
        if left <= 0:
            raise _Stop("budget")
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.stopped = "wall clock"
            raise _Stop("wall clock")
        items = items[:left]
        keys = [key_of(cand) for cand, _ in items]
        stale = [k for k, key in enumerate(keys) if self._stale(self.seen.get(key), items[k][1])]
        todo = [(items[k][0], f"candidate-{len(self.order) + k}", items[k][1]) for k in stale]
        todo_keys = [keys[k] for k in stale]
        scores = dict(zip(todo_keys, self.scorer.score_batch(todo, todo_keys), strict=True))
        out = []
        for (cand, threshold), key in zip(items, keys, strict=True):
            hit = self.seen.get(key)
            if self._stale(hit, threshold):
                s, detail = scores[key] if key in scores else self.scorer(cand, "candidate", threshold)
                hit = self.seen[key] = Scored(len(self.order), cand, s, detail)
            self.order.append(hit)
            out.append(hit)
        for s in out:
            if s.score is not None and (self.checked is None or s.score > self.checked):
                self.scorer.check(s.cand, s.score)
                self.checked = s.score
        return out

    def score(self, cand: Candidate, threshold: float | None = None) -> Scored:
        """:meth:`score_batch` of one candidate."""
        return self.score_batch([(cand, threshold)])[0]

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
    """The random candidates ``0..budget-1``, in batches; each batch screened by the best before it."""
    best = None
    try:
        for i in range(0, h.budget, h.batch):
            batch = [(h.random_candidate(j), best) for j in range(i, min(h.budget, i + h.batch))]
            for s in h.score_batch(batch):
                if s.score is not None and (best is None or s.score > best):
                    best = s.score
    except _Stop:
        pass


def run_hunt(h: Hunt) -> None:
    """Random restarts and hill climbers, and a climber around the best found (module docstring).

    Each round breeds one batch from the state before it (restarts first, then children), then
    updates the climbers in the batch's order: the same path whatever scores the batch.
    """
    rng = np.random.default_rng([h.seed, 1])
    n0 = max(1, min(h.budget, math.ceil(RESTART_SHARE * h.budget)))
    patience = max(PATIENCE, h.budget // 50)
    next_random = n0

    def floor(x: float) -> float | None:
        return None if x == -math.inf else x

    try:
        for i in range(0, n0, h.batch):
            h.score_batch([(h.random_candidate(j), None) for j in range(i, min(n0, i + h.batch))])
        ranked = sorted({id(s): s for s in h.order}.values(), key=lambda s: (-_val(s), s.index))
        climbers = ranked[:POPULATION]
        age = [0] * len(climbers)
        best, turn, stuck = climbers[0], 0, 0
        while True:
            if stuck > ELITE_PATIENCE * patience:
                # The elite climber leaves a basin it has not improved in for long: it goes on from
                # the best of the other climbers (the best found stays in the hunt's record).
                best, stuck = min(climbers, key=lambda s: (-_val(s), s.index)), 0
            restart = [j for j in range(len(climbers)) if age[j] > patience]
            plan: list[tuple[int | None, bool, Candidate, float | None]] = []
            for j in restart:
                plan.append((j, True, h.random_candidate(next_random), None))
                next_random += 1
            bred: set[bytes] = set()
            while len(plan) < h.batch:
                elite = len(restart) == len(climbers) or rng.random() < ELITE_RATE
                j = None
                if not elite:
                    while turn % len(climbers) in restart:
                        turn += 1
                    j, turn = turn % len(climbers), turn + 1
                parent = best if j is None else climbers[j]
                child = h.space.mutate(parent.cand, rng)
                for _ in range(10):
                    key = key_of(child)
                    if key not in h.seen and key not in bred:
                        break
                    child = h.space.mutate(parent.cand, rng)
                bred.add(key_of(child))
                plan.append((j, False, child, floor(_val(parent))))
            got = h.score_batch([(cand, threshold) for _, _, cand, threshold in plan])
            for (j, fresh, _, _), c in zip(plan, got, strict=False):
                stuck = 0 if _val(c) > _val(best) else stuck + 1
                if _val(c) >= _val(best) and c is not best and (not fresh or _val(c) > _val(best)):
                    best = c  # ties too: the elite climber walks plateaus
                if j is None:
                    continue
                if fresh:
                    climbers[j], age[j] = c, 0
                elif _val(c) >= _val(climbers[j]) and c is not climbers[j]:
                    age[j] = 0 if _val(c) > _val(climbers[j]) else age[j] + 1
                    climbers[j] = c
                else:
                    age[j] += 1
    except _Stop:
        pass


def run_blackbox(h: Hunt) -> None:
    """SciPy's differential evolution on the vector form, until the candidates run out.

    Its population is scored as one batch per generation (``updating="deferred"``).
    """
    from scipy.optimize import differential_evolution

    d = h.space.dimension()

    def energies(_, ys) -> list[float]:
        ys = list(ys)
        got = h.score_batch([(h.space.decode(np.asarray(y)), None) for y in ys])
        if len(got) < len(ys):
            raise _Stop("budget")
        return [-_val(s) for s in got]

    with contextlib.suppress(_Stop):
        differential_evolution(
            lambda y: -_val(h.score(h.space.decode(y))),
            [(0.0, 1.0)] * d,
            popsize=max(1, math.ceil(16 / max(d, 1))),
            maxiter=10**9,
            tol=0.0,
            atol=0.0,
            polish=False,
            init="random",
            rng=np.random.default_rng([h.seed, 2]),
            updating="deferred",
            workers=energies,
        )
    # DE may converge before the budget: the rest goes to random candidates (none is wasted).
    i = h.budget
    try:
        while True:
            h.score_batch([(h.random_candidate(j), None) for j in range(i, i + h.batch)])
            i += h.batch
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
    batch: int = BATCH,
) -> Hunt:
    """Run ``strategy`` for ``budget`` candidates from ``seed`` (``time_limit``: the safety net).

    ``seen``: candidates already scored (by key), reused without a new evaluation. ``batch``:
    candidates bred and scored together (module docstring).
    """
    require(strategy in RUNNERS, "--strategy", f"choose from {', '.join(RUNNERS)}, got {strategy!r}")
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    h = Hunt(space, scorer, seed, budget, deadline, seen=dict(seen or {}), batch=batch)
    RUNNERS[strategy](h)
    return h


def random_worst(
    space: Space,
    scorer: Scorer,
    budget: int,
    seed: int,
    hunt: Hunt | None = None,
    time_limit: float | None = None,
    batch: int = BATCH,
) -> Hunt:
    """The random baseline: candidates ``0..budget-1`` of the same stream (cached scores reused)."""
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    h = Hunt(space, scorer, seed, budget, deadline, seen=dict(hunt.seen) if hunt else {}, batch=batch)
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


def _score_chunk(settings: dict, base: str | None, chunk: list) -> list[tuple[float | None, dict]]:
    """A worker's scores of ``chunk`` (``(candidate, name, threshold)``) under the hunt's ``settings``."""
    key = json.dumps([settings, base], sort_keys=True)
    scorer = _WORKER_SCORERS.get(key)
    if scorer is None:
        scorer = _WORKER_SCORERS[key] = Scorer.from_settings(settings, base)
    return [scorer.score_one(*item) for item in chunk]


#: Each worker process's scorers, built once per hunt's settings.
_WORKER_SCORERS: dict[str, Scorer] = {}


class Pool:
    """Where a batch's candidates are scored: in this process (``workers=1``), on local worker
    processes (joblib's loky, as ``volsched sweep --workers``) or on a Dask cluster
    (``--dask-scheduler``, as the sweep's). A batch is cut into contiguous chunks, one per worker,
    and the scores come back in the batch's order: the hunt is the same on any pool.
    """

    def __init__(self, workers: int = 1, dask_scheduler: str | None = None, base: str | None = None):
        from volsched.experiments.runner import MAX_WORKERS

        require(
            workers == -1 or 1 <= workers <= MAX_WORKERS,
            "--workers",
            f"must be -1 (all cores) or in [1, {MAX_WORKERS}], got {workers}",
        )
        self.base = base
        self.client = self.parallel = None
        if dask_scheduler is not None:
            from volsched.experiments.runner import _dask_client

            self.client = _dask_client(dask_scheduler)
            self.workers = max(1, len(self.client.scheduler_info()["workers"]))
        else:
            import os

            self.workers = (os.cpu_count() or 1) if workers == -1 else workers
            if self.workers > 1:
                from joblib.externals.loky import ProcessPoolExecutor

                # loky's executor itself, not joblib.Parallel (which polls for results every 10 ms, as
                # long as a small batch takes); its workers keep their scorers between batches. A pool
                # of the hunt's own, not loky's reusable one: joblib.Parallel (the sweeps) shares that
                # one and expects its own bookkeeping on it.
                self.parallel = ProcessPoolExecutor(max_workers=self.workers)

    def map(self, scorer: Scorer, items: list) -> list[tuple[float | None, dict]]:
        if (self.workers == 1 and self.client is None) or len(items) < 2:
            return [scorer.score_one(*item) for item in items]
        k = min(self.workers, len(items))
        cuts = np.linspace(0, len(items), k + 1).round().astype(int)
        chunks = [items[cuts[i] : cuts[i + 1]] for i in range(k)]
        settings = scorer.settings()
        if self.client is not None:
            futures = self.client.map(_score_chunk, [settings] * k, [self.base] * k, chunks, pure=False)
            parts = self.client.gather(futures)
        else:
            futures = [self.parallel.submit(_score_chunk, settings, self.base, c) for c in chunks]
            parts = [f.result() for f in futures]
        return [r for part in parts for r in part]

    def warm(self, scorer: Scorer, item: tuple) -> None:
        """Each worker builds its scorer and scores ``item`` once (kernels compiled, back ends
        loaded), so that the hunt's clock does not count it; nothing is recorded."""
        settings = scorer.settings()
        if self.client is not None:
            self.client.run(_score_chunk, settings, self.base, [item])
        elif self.parallel is not None:
            for f in [
                self.parallel.submit(_score_chunk, settings, self.base, [item]) for _ in range(self.workers)
            ]:
                f.result()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.parallel is not None:
            self.parallel.shutdown(wait=True)
            self.parallel = None
