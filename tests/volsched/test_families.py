"""The family interface (DESIGN.md, "The family interface"; docs/architecture.md), checked from outside.

Every expectation is recomputed here independently of the code under test:
common UP slots with numpy from ``availability == UP``, optima by brute force
(:mod:`oracles.coupled.full`, subset enumeration), expected waste by numerical
integration of the failure law's survival function (:mod:`oracles.checkpoint.waste`),
report statistics from the stored rows. The method, problem, generator and
heuristic lists come from the registry (``volsched.families.FAMILIES``), so a
new one is covered without editing this file, or fails here until it gets a
tiny instance.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import itertools
import json
import math
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from oracles.checkpoint.waste import intervals, survival
from oracles.cli import assert_input_error, one_json, run
from oracles.coupled.full import brute_full, brute_nocomm, random_tiny
from oracles.prescient.optimum import brute_force as prescient_brute_force
from oracles.prescient.optimum import random_instance as prescient_random_instance
from oracles.registry import limits, work_budget
from oracles.slack.brute import brute_force
from scipy import integrate

import volsched.solvers.coupled
from volsched.cli import main
from volsched.experiments.config import parse_config
from volsched.experiments.runner import run_sweep
from volsched.experiments.store import Store
from volsched.experiments.tasks import build_tasks
from volsched.families import FAMILIES
from volsched.heuristics.base import OfflinePolicy
from volsched.heuristics.checkpoint import POLICIES
from volsched.instances import checkpoint as checkpoint_model
from volsched.instances.coupled import (
    UP,
    CoupledInstance,
    generate_markov,
    generate_planted,
    parse_availability,
)
from volsched.instances.errors import InputError
from volsched.instances.io import read_json, write_json
from volsched.instances.slack.generators import generate_theorem2
from volsched.solvers import MethodOutcome, SolveStatus, VerificationError
from volsched.solvers import checkpoint as checkpoint_solvers

COUPLED = FAMILIES["coupled"]
CHECKPOINT = FAMILIES["checkpoint"]
OFFLINE = "offline-coupled"


def write_instance(path: Path, instance) -> Path:
    write_json(path, instance.to_json())
    return path


# ---------------------------------------------------------------------------
# Independent oracles


def common_up(instance: CoupledInstance, processors) -> int:
    """Slots in which every processor of ``processors`` is UP (numpy, from the availability codes)."""
    up = np.asarray(instance.availability) == UP
    return int(up[list(processors)].all(axis=0).sum())


def offline_optimum(instance: CoupledInstance) -> int:
    """OFF-LINE-COUPLED (mu = 1) by enumerating every m-subset."""
    return max(common_up(instance, rows) for rows in itertools.combinations(range(instance.p), instance.m))


def offline_inf_optimum(instance: CoupledInstance) -> int | None:
    """mu = inf: ``k`` processors hold ``ceil(m / k)`` tasks each and need that many times ``w`` common
    UP slots; the completion is one past the slot of the last of them. Every subset of size 1..m."""
    up = np.asarray(instance.availability) == UP
    w = int(instance.w[0])
    best = None
    for k in range(1, min(instance.m, instance.p) + 1):
        need = math.ceil(instance.m / k) * w
        for rows in itertools.combinations(range(instance.p), k):
            slots = np.flatnonzero(up[list(rows)].all(axis=0))
            if slots.size >= need:
                done = int(slots[need - 1]) + 1
                best = done if best is None else min(best, done)
    return best


def oracle_waste(instance, a) -> float:
    """Expected waste of vector ``a`` by quadrature of the survival function ``S``.

    A failure at ``t`` in the interval ``[s, e)`` (overhead ``sigma`` so far) wastes
    ``sigma + alpha (t - s)``; integrating by parts,
    ``E = sum sigma (S(s) - S(e)) + alpha (int_s^e S(t) dt - (e - s) S(e))``.
    """
    surv = survival(instance.law)
    total = 0.0
    for start, end, sigma in intervals(instance.p.tolist(), instance.c.tolist(), [int(v) for v in a]):
        area, _ = integrate.quad(surv, start, end, limit=200, epsabs=1e-11, epsrel=1e-11)
        total += sigma * (surv(start) - surv(end)) + instance.alpha * (area - (end - start) * surv(end))
    return total


def checkpoint_optimum(instance) -> float:
    """Minimum expected waste over every vector with ``a_n = 1`` (by quadrature)."""
    return min(
        oracle_waste(instance, [*bits, 1]) for bits in itertools.product((0, 1), repeat=instance.n - 1)
    )


# ---------------------------------------------------------------------------
# Tiny instances that every registered method of a problem accepts

#: Hand-built: 3 processors, communication on (T_prog = T_data = 1), K = 2, mixed w and mu.
#: The communication-free makespan is 3, the full one 9 (brute force, oracles.coupled.full).
HAND_ROWS = ["UUURUUUUUUUU", "UURUUUUDUUUU", "DUUUUUURUUUU"]


def hand_instance() -> CoupledInstance:
    return CoupledInstance(
        availability=parse_availability(HAND_ROWS),
        w=[1, 2, 1],
        mu=[1, None, 2],
        m=2,
        n_com=1,
        T_prog=1,
        T_data=1,
        K=2,
    )


@functools.cache
def tiny_instances(family: str, problem: str) -> tuple:
    if family == "checkpoint":
        return tuple(checkpoint_model.generate(6, seed) for seed in (0, 1))
    if family == "coupled" and problem in ("offline-coupled", "offline-coupled-inf"):
        # p = 5 <= 16 (offline brute), identical w (offline-coupled-inf).
        return tuple(generate_planted(5, 30, 2, 4, 0.6, seed) for seed in (0, 1))
    if family == "coupled" and problem in ("iterations", "full"):
        # p <= 3 <= 6 (iterations brute), p H <= 36 <= 2000 (full cpsat); random_tiny seed 2 has no
        # schedule completing K iterations in its horizon.
        tiny = (random_tiny(np.random.default_rng(s), max_p=3, max_h=10) for s in (2, 3, 4))
        return (hand_instance(), *tiny)
    if family == "slack":  # small enough for every method (the MILP included)
        return tuple(generate_theorem2(machines=3, jobs=6, seed=seed) for seed in (0, 1))
    if family == "prescient":  # 3 hosts x 3 tasks: brute force enumerates every schedule
        return tuple(prescient_random_instance(np.random.default_rng(s), hosts=3, tasks=3) for s in (0, 1))
    pytest.fail(f"no tiny instance for {family} {problem}: add one to tiny_instances()")


def oracle(family: str, problem: str, instance) -> float | None:
    """The optimum by brute force (``None``: no solution exists)."""
    if family == "checkpoint":
        return checkpoint_optimum(instance)
    if problem == "offline-coupled":
        return offline_optimum(instance)
    if problem == "offline-coupled-inf":
        return offline_inf_optimum(instance)
    if problem == "iterations":
        return brute_nocomm(instance)
    if problem == "full":
        return brute_full(instance)
    if family == "slack":
        best = brute_force(instance, problem)
        return None if best is None else best[0]
    if family == "prescient":
        best = prescient_brute_force(instance)
        return None if best is None else float(best[0])
    pytest.fail(f"no oracle for {family} {problem}")


REGISTRY = [(f.name, p, m) for f in FAMILIES.values() for p, prob in f.problems.items() for m in prob.methods]
PROBLEMS = [(f.name, p) for f in FAMILIES.values() for p in f.problems]


@functools.cache
def solved(family: str, problem: str, method: str, index: int):
    instance = tiny_instances(family, problem)[index]
    return instance, FAMILIES[family].solve(
        instance, problem=problem, method=method, seed=0, **limits(family, problem, method)
    )


def pair_sharing_more_than_one(seed_range=range(50)):
    """A tiny OFF-LINE-COUPLED instance (m = 2) and a pair sharing >= 2 UP slots, below the optimum."""
    for seed in seed_range:
        instance = generate_planted(6, 30, 2, 5, 0.5, seed)
        best = offline_optimum(instance)
        for pair in itertools.combinations(range(instance.p), 2):
            truth = common_up(instance, pair)
            if 2 <= truth < best:
                return instance, list(pair), truth, best
    raise AssertionError("no suitable instance")


# ---------------------------------------------------------------------------
# 1. A broken back end is our bug, not bad input


def twice(instance, time_limit, seed, budget=None):
    return MethodOutcome(solution={"processors": [0, 0]}, objective=30, bound=30, proven=True)


@pytest.mark.parametrize("method", [None, "broken"])
def test_back_end_returning_a_processor_twice_is_an_internal_error(capsys, tmp_path, monkeypatch, method):
    methods = volsched.solvers.coupled.PROBLEMS[OFFLINE].methods
    name = method or next(iter(methods))  # the default method itself, or a new one
    monkeypatch.setitem(methods, name, twice)
    path = write_instance(tmp_path / "i.json", generate_markov(6, 30, 2, 3))
    argv = ["solve", path, "--json", "--out", tmp_path / "result.json"]
    code, out, err = run(capsys, *(argv if method is None else [*argv, "--method", method]))
    assert code == 1
    assert out == ""
    assert err.startswith("volsched: internal error: VerificationError"), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "result.json").exists()


def test_the_same_solution_under_verify_is_the_users_file(capsys, tmp_path):
    instance = generate_markov(6, 30, 2, 3)
    path = write_instance(tmp_path / "i.json", instance)
    bad = tmp_path / "bad.json"
    write_json(bad, {"solution": {"problem": OFFLINE, "processors": [0, 0]}})
    code, out, err = run(capsys, "verify", path, bad, "--json")
    assert_input_error(code, err, "processors[1]")
    assert out == ""
    # The verifier itself is right on a valid pair: its value is the numpy count.
    good = tmp_path / "good.json"
    write_json(good, {"solution": {"problem": OFFLINE, "processors": [1, 4]}})
    code, out, err = run(capsys, "verify", path, good, "--json")
    assert code == 0, err
    assert one_json(out)["objective"] == common_up(instance, [1, 4])


@pytest.mark.parametrize(
    "returned",
    [
        ({"processors": [0, 1]}, 3, 3, True),
        {"solution": {"processors": [0, 1]}, "objective": 3, "bound": 3, "proven": True},
        None,
    ],
)
def test_a_method_returning_something_else_is_an_internal_error(capsys, tmp_path, monkeypatch, returned):
    monkeypatch.setitem(
        volsched.solvers.coupled.PROBLEMS[OFFLINE].methods, "odd", lambda instance, time_limit, seed: returned
    )
    path = write_instance(tmp_path / "i.json", generate_markov(6, 30, 2, 3))
    code, out, err = run(capsys, "solve", path, "--method", "odd", "--json")
    assert code == 1
    assert out == ""
    assert err.startswith("volsched: internal error: "), err
    with pytest.raises(VerificationError):
        COUPLED.solve(generate_markov(6, 30, 2, 3), method="odd")


# ---------------------------------------------------------------------------
# 2. finish() reports the verifier's value


def test_up_is_code_zero():
    # The oracles above read UP as code 0; the instance model must agree.
    instance = CoupledInstance(availability=parse_availability(["URD"]), w=[1], mu=[1], m=1)
    assert UP == 0
    assert (np.asarray(instance.availability) == UP).tolist() == [[True, False, False]]


@pytest.mark.parametrize(
    "bound_kind, proven",
    [("none", True), ("none", False), ("optimum", True), ("above", True), ("truth", True), ("truth", False)],
)
def test_a_wrong_claim_is_replaced_by_the_verified_value(monkeypatch, bound_kind, proven):
    instance, pair, truth, best = pair_sharing_more_than_one()
    claim = 1
    bound = {"none": None, "optimum": best, "above": truth + 1, "truth": truth}[bound_kind]
    monkeypatch.setitem(
        volsched.solvers.coupled.PROBLEMS[OFFLINE].methods,
        "liar",
        lambda i, t, s: MethodOutcome({"processors": pair}, claim, bound, proven),
    )
    result = COUPLED.solve(instance, problem=OFFLINE, method="liar")
    assert result.objective == truth
    assert result.info["claimed_objective"] == claim
    assert result.verified is True
    assert sorted(result.solution["processors"]) == sorted(pair)
    if bound_kind == "truth":
        # The method's bound meets the verified value: that proves this value, whatever it claimed.
        assert result.status == SolveStatus.OPTIMAL and result.bound == truth
    else:
        assert result.status == SolveStatus.FEASIBLE
        assert result.bound == bound


def test_a_true_claim_with_a_proof_is_optimal_and_without_one_feasible(monkeypatch):
    instance, pair, truth, best = pair_sharing_more_than_one()
    methods = volsched.solvers.coupled.PROBLEMS[OFFLINE].methods
    monkeypatch.setitem(
        methods, "honest", lambda i, t, s: MethodOutcome({"processors": pair}, truth, best, False)
    )
    result = COUPLED.solve(instance, problem=OFFLINE, method="honest")
    assert (result.status, result.objective, result.bound) == (SolveStatus.FEASIBLE, truth, best)
    assert "claimed_objective" not in result.info
    assert result.gap == pytest.approx((best - truth) / best)  # max problem: the gap scales by the bound


def test_a_bound_beaten_by_its_own_solution_is_a_verification_error(monkeypatch):
    instance, pair, truth, _ = pair_sharing_more_than_one()
    # max problem: an upper bound below the verified value.
    monkeypatch.setitem(
        volsched.solvers.coupled.PROBLEMS[OFFLINE].methods,
        "low",
        lambda i, t, s: MethodOutcome({"processors": pair}, truth, truth - 1, False),
    )
    with pytest.raises(VerificationError):
        COUPLED.solve(instance, problem=OFFLINE, method="low")
    # min problem: a lower bound above the verified value.
    job = checkpoint_model.generate(6, 0)
    a = [1] * job.n
    value = oracle_waste(job, a)
    monkeypatch.setitem(
        checkpoint_solvers.PROBLEMS["checkpoint"].methods,
        "high",
        lambda i, t, s: MethodOutcome({"a": a}, value, value * 1.5, True),
    )
    with pytest.raises(VerificationError):
        CHECKPOINT.solve(job, method="high")


@pytest.mark.parametrize("proven, status", [(True, SolveStatus.INFEASIBLE), (False, SolveStatus.UNKNOWN)])
def test_no_solution_is_infeasible_only_with_a_proof(monkeypatch, proven, status):
    monkeypatch.setitem(
        volsched.solvers.coupled.PROBLEMS[OFFLINE].methods,
        "none",
        lambda i, t, s: MethodOutcome(None, None, None, proven),
    )
    result = COUPLED.solve(generate_markov(6, 30, 2, 0), method="none")
    assert result.status == status
    assert result.objective is None and result.verified is False
    assert result.solution["problem"] == OFFLINE


def test_a_result_names_the_problem_solved_whatever_the_method_wrote(monkeypatch):
    instance, pair, truth, _ = pair_sharing_more_than_one()
    monkeypatch.setitem(
        volsched.solvers.coupled.PROBLEMS[OFFLINE].methods,
        "mislabel",
        lambda i, t, s: MethodOutcome({"problem": "full", "processors": pair}, truth, None, False),
    )
    result = COUPLED.solve(instance, problem=OFFLINE, method="mislabel")
    assert result.objective == truth
    assert result.solution["problem"] == OFFLINE


# ---------------------------------------------------------------------------
# 3. Time limits and seeds are checked once, before any method runs

BAD_TIME_LIMITS = [0, -1, 0.0, -0.5, math.nan, math.inf, -math.inf, True, False, "1", [1]]
BAD_SEEDS = [-1, 2**40, 2**31, True, 1.0, "1"]


@pytest.fixture
def recorded(monkeypatch):
    """Replace every registered method by a recorder: no method may run on a bad request."""
    calls = []
    for family in FAMILIES.values():
        for problem in family.problems.values():
            for name in list(problem.methods):

                def record(instance, time_limit, seed, budget=None, _name=name, _problem=problem.name):
                    calls.append((_problem, _name, time_limit, seed, budget))
                    return MethodOutcome(None, None, None, False)

                monkeypatch.setitem(problem.methods, name, record)
    return calls


@pytest.mark.parametrize("family, problem", PROBLEMS)
def test_bad_time_limits_and_seeds_are_input_errors_for_every_method(recorded, family, problem):
    fam = FAMILIES[family]
    instance = tiny_instances(family, problem)[0]
    for method in fam.problems[problem].methods:
        for limit in BAD_TIME_LIMITS:
            with pytest.raises(InputError, match="--time-limit"):
                fam.solve(instance, problem=problem, method=method, time_limit=limit)
        for seed in BAD_SEEDS:
            with pytest.raises(InputError, match="--seed"):
                fam.solve(instance, problem=problem, method=method, seed=seed)
    assert recorded == []
    # A good request reaches the method once, with the limit as a float and the seed as given, and
    # the budget only if the method has a work unit.
    default = fam.problems[problem].method_for(instance)  # the first method, or the size's choice
    fam.solve(instance, problem=problem, time_limit=5, seed=2**31 - 1, budget=2.5)
    fam.solve(instance, problem=problem)
    budget = None if work_budget(family, problem, default) is None else 2.5
    assert recorded == [(problem, default, 5.0, 2**31 - 1, budget), (problem, default, None, 0, None)]
    assert type(recorded[0][2]) is float


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_bad_time_limits_and_seeds_exit_2_on_the_command_line(capsys, tmp_path, recorded, family):
    problem = next(iter(FAMILIES[family].problems))
    path = write_instance(tmp_path / "i.json", tiny_instances(family, problem)[0])
    for limit in ("0", "-1", "nan", "inf", "-inf", "1e999", "True", "1s"):
        code, out, err = run(capsys, "solve", path, "--time-limit", limit, "--json")
        assert_input_error(code, err, "--time-limit")
        assert out == ""
    for seed in ("-1", str(2**40), "1.5", "x"):
        code, out, err = run(capsys, "solve", path, "--seed", seed, "--json")
        assert_input_error(code, err, "--seed")
        assert out == ""
    assert recorded == []


# ---------------------------------------------------------------------------
# 4. The registry drives the tests


@pytest.mark.parametrize("family, problem, method", REGISTRY)
def test_every_registered_method_returns_a_verified_result(family, problem, method):
    fam = FAMILIES[family]
    for index, instance in enumerate(tiny_instances(family, problem)):
        _, result = solved(family, problem, method, index)
        assert result.family == family and result.method == method
        assert result.solution["problem"] == problem
        truth = oracle(family, problem, instance)
        if result.status == SolveStatus.INFEASIBLE:
            assert truth is None, (index, "proved infeasible, but a solution exists")
            continue
        if result.objective is None:
            assert result.status == SolveStatus.UNKNOWN
            continue
        assert result.verified is True
        # The solution, as JSON, re-verifies to the reported value.
        named, value = fam.verify(instance, json.loads(json.dumps(result.solution)))
        assert named.name == problem
        assert value == pytest.approx(result.objective, rel=1e-12)
        if problem == OFFLINE:
            assert value == common_up(instance, result.solution["processors"])
        if family == "checkpoint":
            assert result.objective == pytest.approx(oracle_waste(instance, result.solution["a"]), rel=1e-7)
        # Optimal only with bound == objective; and only at the brute-force optimum.
        assert (result.status == SolveStatus.OPTIMAL) == (
            result.bound is not None and result.bound == result.objective
        )
        assert truth is not None
        sense = fam.problems[problem].sense
        if result.status == SolveStatus.OPTIMAL:
            assert result.objective == pytest.approx(truth, rel=1e-7)
        else:
            assert result.status == SolveStatus.FEASIBLE
            worse = result.objective <= truth if sense == "max" else result.objective >= truth
            assert worse or result.objective == pytest.approx(truth, rel=1e-7)
        if result.bound is not None:  # a bound is on the optimum's side
            ok = result.bound >= truth if sense == "max" else result.bound <= truth
            assert ok or result.bound == pytest.approx(truth, rel=1e-7), (result.bound, truth)


@pytest.mark.parametrize("family, problem", PROBLEMS)
def test_methods_of_one_problem_agree_on_the_proven_optimum(family, problem):
    methods = list(FAMILIES[family].problems[problem].methods)
    for index in range(len(tiny_instances(family, problem))):
        results = {m: solved(family, problem, m, index)[1] for m in methods}
        optima = {m: r.objective for m, r in results.items() if r.status == SolveStatus.OPTIMAL}
        infeasible = [m for m, r in results.items() if r.status == SolveStatus.INFEASIBLE]
        assert not (optima and infeasible), (index, optima, infeasible)
        values = list(optima.values())
        assert all(v == pytest.approx(values[0], rel=1e-9) for v in values), (index, optima)
    # Each problem's tiny instances get at least one proof, so the agreement above is not vacuous.
    assert any(
        solved(family, problem, m, i)[1].status == SolveStatus.OPTIMAL
        for m in methods
        for i in range(len(tiny_instances(family, problem)))
    )


def test_hand_instance_distinguishes_communication():
    # Guards the oracle inputs: the relaxed and the full makespans of the hand instance differ.
    assert (brute_nocomm(hand_instance()), brute_full(hand_instance())) == (3, 9)


# ---------------------------------------------------------------------------
# 5. One generator spec: `volsched generate` and the sweep grid


def bipartite_file(tmp_path: Path) -> Path:
    """A 4 x 3 bipartite edge list with a ``# |U| |V| |E|`` header."""
    path = tmp_path / "graph.txt"
    path.write_text("# 4 3 8\n0\t0\n0\t1\n1\t0\n1\t1\n1\t2\n2 2\n3\t0\n3\t2\n")
    return path


def bpplib_file(tmp_path: Path) -> Path:
    """A BPPLIB file of 6 items, capacity 100 (3-PARTITION with B = 103 after --shift 1)."""
    path = tmp_path / "items.txt"
    path.write_text("6\n100\n30\n30\n40\n30\n30\n40\n")
    return path


def non_default_values(family: str, spec: str, tmp_path: Path) -> dict:
    """Every option of the generator at a small, non-default value."""
    table = {
        ("checkpoint", "paper"): {
            "slices": 5,
            "seed": 3,
            "alpha": 0.5,
            "law": "exponential",
            "slice_hours": [0.1, 0.4],
        },
        ("coupled", "markov"): {"processors": 6, "slots": 40, "tasks": 2, "seed": 3},
        ("coupled", "planted"): {
            "processors": 6,
            "slots": 40,
            "tasks": 2,
            "block": 5,
            "density": 0.25,
            "seed": 3,
        },
        ("coupled", "edgelist"): {"file": str(bipartite_file(tmp_path)), "tasks": 2, "transpose": True},
        ("coupled", "encd"): {"file": str(bipartite_file(tmp_path)), "a": 2, "b": 2, "mu": "inf"},
        ("coupled", "paper-realization"): {
            "tasks": 10,
            "n_com": 10,
            "w_min": 2,
            "scenario": 1,
            "trial": 1,
            "slots": 60,
            "seed": 3,
        },
        ("prescient", "platform"): {
            "platform": "ucb",
            "hosts": 8,
            "tasks": 5,
            "task_minutes": 5.0,
            "seed": 3,
            "days": 2,
            "calibrate": True,
        },
        ("prescient", "fta"): {
            "fta": str(Path(__file__).resolve().parents[1] / "data" / "prescient" / "fta_header_tabs.tab"),
            "tasks": 3,
            "task_minutes": 5.0,
            "clock": 2000.0,
            "start": 1100001000.0,
            "calibrate": True,
        },
        ("slack", "paper"): {
            "machines": 6,
            "jobs": 20,
            "seed": 3,
            "free_fraction": 0.5,
            "horizon": 2.0,
            "beta": 0.5,
        },
        ("slack", "theorem2"): {
            "machines": 3,
            "jobs": 5,
            "seed": 3,
            "lam": 2,
            "p_max": 3,
            "a_min": 7,
            "a_max": 9,
            "u_max": 4,
            "horizon": 2.0,
            "beta": 0.3,
        },
        ("slack", "three-partition"): {"file": str(bpplib_file(tmp_path)), "shift": 1, "u": 2, "beta": 0.9},
        ("slack", "planted"): {"groups": 2, "B": 13, "seed": 3, "answer": "no", "u": 2, "beta": 0.7},
        ("slack", "gaps-intervals"): {"groups": 2, "half": 5, "beta": 0.5},
        ("slack", "graham-lpt"): {"machines": 4},
        ("slack", "graham-list"): {"machines": 5},
        ("checkpoint", "heavy-tail"): {
            "slices": 8,
            "p": 20,
            "c_low": 2,
            "c_high": 200,
            "cheap_every": 2,
            "shape": 0.6,
            "scale": 30.0,
        },
        ("coupled", "fastest-unreliable"): {
            "slots": 300,
            "tasks": 3,
            "seed": 3,
            "n_com": 4,
            "w_min": 3,
            "slowdown": 4,
            "up_stay": 0.5,
        },
        ("prescient", "volatile-fast"): {
            "platform": "ucb-lri-p06",
            "hosts": 8,
            "tasks": 5,
            "task_minutes": 5.0,
            "edge": 0.1,
            "seed": 3,
            "days": 2,
            "up_mean": 0.8,
            "down_s": 60.0,
        },
    }
    if (family, spec) not in table:
        pytest.fail(f"generator {family} {spec}: add non-default values to this test")
    return table[(family, spec)]


SPECS = [(f.name, g.name) for f in FAMILIES.values() for g in f.generators.values() if not g.many]


def cli_args(spec, values: dict) -> list[str]:
    argv = []
    for o in spec.options:
        v = values[o.name]
        if o.flag:
            argv += [o.cli] if v else []
        elif o.nargs:
            argv += [o.cli, *(str(x) for x in v)]
        else:
            argv += [o.cli, str(v)]
    return argv


@pytest.mark.parametrize("family, spec_name", SPECS)
def test_generate_command_and_grid_point_make_the_same_instance(capsys, tmp_path, family, spec_name):
    fam = FAMILIES[family]
    spec = fam.generators[spec_name]
    values = non_default_values(family, spec_name, tmp_path)
    assert set(values) == {o.name for o in spec.options}, "every option of the spec is exercised"
    for o in spec.options:
        assert values[o.name] != o.default, o.name
    preset = ["--preset", spec_name] if len(fam.generators) > 1 else []
    out_path = tmp_path / "out.json"
    code, out, err = run(
        capsys, "generate", family, *preset, *cli_args(spec, values), "--out", out_path, "--json"
    )
    assert code == 0, err
    written = read_json(out_path)
    assert one_json(out)["params"] == written["params"]
    # The grid point: option names (`-` as `_`), `preset`, and `seed` as the replicate seed.
    point = {"preset": spec_name, **values, "seed": values.get("seed", 7)}
    made = fam.generate_from(point)
    assert written == json.loads(json.dumps(made.to_json()))
    # Every option is stored under its name, with its value.
    for name, value in values.items():
        assert written["params"][name] == value, name
    assert written["params"]["preset"] == spec_name
    # The file loads back to the same instance.
    assert json.loads(json.dumps(fam.load(written).to_json())) == written


@pytest.mark.parametrize("family, spec_name", [(f, s) for f, s in SPECS])
def test_stored_params_are_exactly_the_options_and_make_the_instance_again(tmp_path, family, spec_name):
    fam = FAMILIES[family]
    spec = fam.generators[spec_name]
    values = non_default_values(family, spec_name, tmp_path)
    made = fam.generate_from({"preset": spec_name, **values})
    assert set(made.params) == {"preset", *(o.name for o in spec.options)}
    # An instance's params are a grid point: they make the same instance again.
    assert fam.generate_from(dict(made.params)).to_json() == made.to_json()


def test_an_option_the_preset_does_not_use_exits_2(capsys, tmp_path):
    out_path = tmp_path / "out.json"
    code, out, err = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "markov",
        "--processors",
        6,
        "--slots",
        40,
        "--tasks",
        2,
        "--density",
        0.3,
        "--out",
        out_path,
        "--json",
    )
    assert_input_error(code, err, "--density")
    assert out == "" and not out_path.exists()


@pytest.mark.parametrize(
    "grid, key",
    [
        ({"preset": "paper"}, "grid.preset"),
        ({"preset": ["markov", "paper"]}, "grid.preset"),
        ({"preset": "markov", "block": 5}, "grid.block"),
        ({"preset": "markov", "n_com": [5, 10]}, "grid.n_com"),
        ({"processors": 6, "file": "x.txt"}, "grid.file"),  # the default generator (markov) has no file
        ({"preset": "markov", "seed": [1, 2]}, "grid.seed"),
    ],
)
def test_grid_rejects_many_instance_generators_and_foreign_options(grid, key):
    with pytest.raises(InputError) as info:
        parse_config({"name": "g", "family": "coupled", "grid": grid, "exact": {"method": "bnb"}})
    assert key in str(info.value), str(info.value)


def test_checkpoint_grid_rejects_an_option_of_another_family():
    with pytest.raises(InputError, match=r"grid\.density"):
        parse_config({"name": "g", "family": "checkpoint", "grid": {"density": 0.3}})


def test_every_point_of_a_mixed_preset_grid_is_an_instance():
    grid = {"preset": ["markov", "planted"], "processors": 6, "slots": 40, "tasks": 2, "density": 0.3}
    try:
        sweep = parse_config({"name": "g", "family": "coupled", "grid": grid})[0]
    except InputError as exc:  # rejecting the grid, naming the key, is as good
        assert "grid.density" in str(exc)
        return
    for params in sweep.instances():
        COUPLED.generate_from(params)


# ---------------------------------------------------------------------------
# 6. Heuristic sweep tasks carry their seed; 9. report --metric

SWEEP_TOML = """\
name = "interface"
family = "checkpoint"
seeds = [0, 1]
[grid]
slices = [4, 6]
slice_hours = [[0.05, 0.5]]
"""


def sweep():
    return parse_config(tomllib.loads(SWEEP_TOML))


@pytest.fixture(scope="module")
def two_stores(tmp_path_factory):
    base = tmp_path_factory.mktemp("stores")
    paths = [base / "a.db", base / "b.db"]
    for path in paths:
        summary = run_sweep(sweep(), path, workers=1, quiet=True)
        assert summary["failed"] == 0 and summary["pending"] == 0
    return paths


def rows_of(path: Path) -> list[dict]:
    with Store(path, create=False) as store:
        return store.rows()


def test_heuristic_tasks_carry_their_seed():
    (s,) = sweep()
    tasks = build_tasks(s)
    heuristic = [t for t in tasks if t["kind"] == "heuristic"]
    assert len(heuristic) == 2 * 2 * len(CHECKPOINT.heuristics)
    for t in heuristic:
        assert t["method_params"] == {"seed": t["params"]["seed"]}
        assert t["problem"] == CHECKPOINT.heuristics[t["method"]].problem
    by_run = {}
    for t in heuristic:
        by_run.setdefault((t["method"], t["params"]["slices"]), {})[t["params"]["seed"]] = t["key"]
    for keys in by_run.values():
        assert set(keys) == {0, 1} and keys[0] != keys[1]
    assert len({t["key"] for t in tasks}) == len(tasks)
    # Planning is deterministic.
    assert [t["key"] for t in build_tasks(sweep()[0])] == [t["key"] for t in tasks]


def test_two_runs_store_the_same_values(two_stores):
    a, b = ({r["key"]: r for r in rows_of(p)} for p in two_stores)
    assert set(a) == set(b) and len(a) == len(build_tasks(sweep()[0]))
    for key in a:
        assert (a[key]["objective"], a[key]["metrics"]) == (b[key]["objective"], b[key]["metrics"]), key


def test_heuristic_rows_report_the_declared_metrics(two_stores):
    rows = rows_of(two_stores[0])
    heuristic = [r for r in rows if r["kind"] == "heuristic"]
    assert heuristic and all(r["status"] == "ok" for r in heuristic)
    for r in heuristic:
        problem = CHECKPOINT.problems[r["problem"]]
        assert set(r["metrics"]) == {m.name for m in problem.metrics}
        assert r["metrics"][problem.objective_metric] == r["objective"]
        # The value is the policy's vector's expected waste, by quadrature.
        instance = CHECKPOINT.generate_from(r["params"])
        a = POLICIES[r["method"]](instance)
        assert r["objective"] == pytest.approx(oracle_waste(instance, a), rel=1e-7)
        assert r["metrics"]["checkpoints"] == int(np.sum(a))
    for r in rows:
        if r["kind"] == "exact":
            instance = CHECKPOINT.generate_from(r["params"])
            assert r["status"] == "optimal"
            assert r["objective"] == pytest.approx(checkpoint_optimum(instance), rel=1e-7)
            assert r["metrics"] == {CHECKPOINT.problems[r["problem"]].objective_metric: r["objective"]}


def test_report_on_a_declared_metric(capsys, two_stores):
    path = two_stores[0]
    rows = rows_of(path)
    code, out, err = run(capsys, "report", path, "--metric", "monte_carlo_waste", "--json")
    assert code == 0, err
    report = one_json(out)
    heuristic = [r for r in report["rows"] if r["kind"] == "heuristic"]
    assert {r["method"] for r in heuristic} == set(CHECKPOINT.heuristics)
    for r in heuristic:
        mine = [
            x["metrics"]["monte_carlo_waste"]
            for x in rows
            if x["kind"] == "heuristic" and x["method"] == r["method"] and x["status"] == "ok"
        ]
        assert r["metric"] == "monte_carlo_waste"
        assert r["value_mean"] == pytest.approx(float(np.mean(mine)), rel=1e-12)
        for column in (
            "ratio_mean",
            "ratio_median",
            "ratio_p90",
            "ratio_max",
            "within_1_1",
            "unproven_ratio_lo_mean",
            "unproven_ratio_hi_mean",
            "unproven_ratio_hi_max",
        ):
            assert r[column] is None, column
        assert r["proven"] == 0


def test_report_on_a_declared_metric_still_knows_every_instance_has_an_exact_row(capsys, two_stores):
    rows = rows_of(two_stores[0])
    assert {r["instance_key"] for r in rows if r["kind"] == "exact" and r["status"] == "optimal"} == {
        r["instance_key"] for r in rows if r["kind"] == "heuristic"
    }
    code, out, err = run(capsys, "report", two_stores[0], "--metric", "monte_carlo_waste", "--json")
    assert code == 0, err
    for r in (x for x in one_json(out)["rows"] if x["kind"] == "heuristic"):
        assert r["no_exact"] == 0, (r["method"], r["no_exact"])


def test_report_on_the_objective_keeps_the_ratio(capsys, two_stores):
    path = two_stores[0]
    rows = rows_of(path)
    optimum = {r["instance_key"]: r["objective"] for r in rows if r["kind"] == "exact"}
    code, out, err = run(capsys, "report", path, "--json")
    assert code == 0, err
    for r in (x for x in one_json(out)["rows"] if x["kind"] == "heuristic"):
        mine = [x for x in rows if x["kind"] == "heuristic" and x["method"] == r["method"]]
        assert r["value_mean"] == pytest.approx(float(np.mean([x["objective"] for x in mine])), rel=1e-12)
        ratios = [x["objective"] / optimum[x["instance_key"]] for x in mine]
        assert r["ratio_mean"] == pytest.approx(float(np.mean(ratios)), rel=1e-9)
        assert r["proven"] == len(mine)


def test_report_on_an_undeclared_metric_exits_2(capsys, two_stores):
    code, out, err = run(capsys, "report", two_stores[0], "--metric", "nonsense", "--json")
    assert_input_error(code, err, "--metric")
    assert out == ""


# ---------------------------------------------------------------------------
# 7. Old stores are refused, untouched


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_a_layout_1_store_is_refused_and_left_unchanged(capsys, tmp_path, journal):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA journal_mode={journal}")
    db.execute("CREATE TABLE results (key TEXT PRIMARY KEY, sweep TEXT, method TEXT, objective REAL)")
    db.execute("INSERT INTO results VALUES ('k', 's', 'dp', 1.5)")
    db.commit()
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    db.close()
    before, listing = path.read_bytes(), sorted(p.name for p in tmp_path.iterdir())

    with pytest.raises(InputError) as info:
        Store(path)
    assert "start a new store" in str(info.value).lower()
    assert path.read_bytes() == before

    code, out, err = run(capsys, "report", path, "--json")
    assert_input_error(code, err, "old.db")
    assert "start a new store" in err.lower() and out == ""

    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP_TOML)
    code, out, err = run(capsys, "sweep", config, "--store", path, "--workers", 1, "--quiet", "--json")
    assert_input_error(code, err, "old.db")
    assert out == ""

    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*listing, "sweep.toml"])
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert db.execute("SELECT key, objective FROM results").fetchall() == [("k", 1.5)]
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    db.close()


# ---------------------------------------------------------------------------
# 8. Policies with their own RNG


@pytest.mark.parametrize("name", sorted(CHECKPOINT.heuristics))
def test_checkpoint_heuristics_use_only_the_rng_they_are_given(name):
    instance = checkpoint_model.generate(8, 5)
    heuristic = CHECKPOINT.heuristics[name]
    assert isinstance(heuristic.policy, OfflinePolicy)
    assert heuristic.policy.name == name

    # The legacy global RNG must be left alone (DESIGN.md: no global RNG).
    np.random.seed(12345)  # noqa: NPY002
    state = np.random.get_state()  # noqa: NPY002
    first = CHECKPOINT.simulate(instance, name, 0)
    after = np.random.get_state()  # noqa: NPY002
    assert all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
        for x, y in zip(state, after, strict=True)
    ), "the global RNG was used"
    again = CHECKPOINT.simulate(instance, name, 0)
    other = CHECKPOINT.simulate(instance, name, 1)
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    assert other["metrics"]["monte_carlo_waste"] != first["metrics"]["monte_carlo_waste"]
    assert other["solution"] == first["solution"]  # the plan needs no draw: only the estimate moves

    a = first["solution"]["a"]
    assert first["objective"] == checkpoint_solvers.verify(instance, a)
    assert first["objective"] == pytest.approx(oracle_waste(instance, a), rel=1e-7)
    assert first["metrics"]["expected_waste"] == first["objective"]
    assert a == [int(v) for v in POLICIES[name](instance)]
    # The Monte-Carlo mean estimates the expected waste (6 standard errors, fixed seeds).
    for run_ in (first, other):
        m = run_["metrics"]
        assert abs(m["monte_carlo_waste"] - run_["objective"]) <= 6 * m["monte_carlo_stderr"]


def test_the_objective_metric_is_the_verifiers_value_not_the_simulators():
    instance = checkpoint_model.generate(6, 0)

    class Misreporting:
        def run(self, instance, policy, rng):
            a = [int(v) for v in policy.plan(instance, rng)]
            return {"a": a}, {"expected_waste": -1.0}

    try:
        out = CHECKPOINT.simulate(instance, "daly", 0, simulator=Misreporting())
    except RuntimeError:  # refusing the misreport is as good
        return
    assert out["metrics"]["expected_waste"] == out["objective"]


@pytest.mark.parametrize("name", list(FAMILIES))
def test_the_light_run_option_declarations_are_the_familys_own(name):
    """The CLI's parser reads a family's run options from its light ``options`` module; they must be
    the ones the loaded family applies (:meth:`Family.setup`)."""
    module = f"volsched.families.{name}.options"
    declared = importlib.import_module(module).RUN_OPTIONS if importlib.util.find_spec(module) else ()
    assert FAMILIES[name].run_options == declared


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["solve", "x.json"],
        ["evaluate", "x.json"],
        ["verify", "x.json", "y.json"],
        ["generate", "checkpoint"],
    ],
)
def test_the_parser_loads_no_solver_for_a_command_that_needs_none(argv):
    """``volsched --help`` and the parser of a run command import no family and no solver: the
    instance's own family loads after the file is read (a fresh interpreter, so nothing is cached)."""
    code = (
        "import sys; from volsched.cli import build_parser; build_parser(sys.argv[1:]); "
        "print(sorted(m for m in sys.modules "
        "if m.startswith(('volsched.solvers', 'volsched.heuristics')) or m.endswith('.family')))"
    )
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True)
    loaded = ast.literal_eval(out.stdout)
    expected = ["volsched.families.checkpoint.family"] if argv[0] == "generate" else []
    assert [m for m in loaded if m.endswith(".family")] == expected
    if argv[0] != "generate":
        assert not [m for m in loaded if m.split(".")[:3] in (["volsched", "solvers", f] for f in FAMILIES)]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_generate_help_prints(capsys, family):
    """``volsched generate FAMILY --help`` lists the generators and options (argparse %-formats help
    texts: a literal "%" in a generator's description must not break it)."""
    with pytest.raises(SystemExit) as stop:
        main(["generate", family, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert all(o.cli in out for o in FAMILIES[family].options().values())
