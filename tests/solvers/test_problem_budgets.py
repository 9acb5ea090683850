"""Work budgets: the same instance, budget and seed give the same result on a quiet and a loaded machine.

Every (problem, method) of the registry runs twice with the same budget, the second time beside two
CPU-bound processes; status, objective, bound, solution, stop cause and work must be identical. Each
budget is given at two sizes, one small enough to stop most searches (so that a stopped search is
what is compared) and one that lets them finish.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import time
from pathlib import Path

import numpy as np
import pytest

from volsched.families import FAMILIES
from volsched.instances.checkpoint import generate
from volsched.instances.coupled import CoupledInstance, generate_markov, parse_availability
from volsched.instances.io import read_json
from volsched.instances.prescient.platforms import generate_platform
from volsched.instances.slack.generators import generate_theorem2
from volsched.solvers.problem import STOPPED_BUDGET

REPRO = Path(__file__).resolve().parents[3] / "shared" / "data" / "repro"


def _iterations_instance() -> CoupledInstance:
    rng = np.random.default_rng(7)
    rows = ["".join(rng.choice(list("URD"), size=40, p=[0.7, 0.15, 0.15])) for _ in range(5)]
    return CoupledInstance(availability=parse_availability(rows), w=[1, 2, 1, 3, 2], mu=[None] * 5, m=3, K=3)


def _instances() -> dict[tuple[str, str], object]:
    full = FAMILIES["coupled"].load(read_json(REPRO / "coupled-full-6x12-no-proof.json"))
    return {
        ("checkpoint", "checkpoint"): generate(12, seed=3),
        ("coupled", "offline-coupled"): generate_markov(14, 120, 5, 1),
        ("coupled", "offline-coupled-inf"): generate_markov(12, 100, 4, 2),
        ("coupled", "iterations"): _iterations_instance(),
        ("coupled", "full"): full,
        ("prescient", "makespan"): generate_platform("sdsc", 12, 12, 15.0, 1, days=2),
        ("slack", "slack"): generate_theorem2(3, 9, 1),
        ("slack", "plain"): generate_theorem2(4, 12, 0),
    }


#: Small and larger budgets per unit: the small ones stop most searches of these instances.
BUDGETS = {
    "cpsat": (0.002, 5.0),
    "nodes": (1, 100_000),
    "greedy-calls": (2, 100_000),
    "cbc-nodes": (1, 10_000),
    "states": (50, 1_000_000),
}


def _cases():
    for (family, problem), _ in sorted(_instances().items(), key=lambda kv: kv[0]):
        spec = FAMILIES[family].problems[problem]
        for method in spec.methods:
            unit = spec.budgets.get(method)
            for budget in (None,) if unit is None else BUDGETS[unit]:
                name = f"{family}-{problem}-{method}-{budget}"
                yield pytest.param(family, problem, method, budget, id=name)


def _spin(on, spinning) -> None:
    """Burn a core while ``on`` is set, saying so through ``spinning``; idle (polling) otherwise."""
    while True:
        if on.is_set():
            spinning.set()
            end = time.time() + 0.05
            while time.time() < end:
                pass
        else:
            spinning.clear()
            on.wait(0.05)


def _fingerprint(result) -> str:
    obj = result.to_dict()
    obj.pop("runtime_s")
    return json.dumps(obj, sort_keys=True)


@pytest.fixture(scope="module")
def instances():
    return _instances()


@pytest.fixture(scope="module")
def load():
    """Two CPU-bound processes, started once for the module (a spawn costs seconds), that burn a core
    each inside ``with load():`` and idle outside it."""
    ctx = multiprocessing.get_context("spawn")
    on = ctx.Event()
    spinning = [ctx.Event() for _ in range(2)]
    busy = [ctx.Process(target=_spin, args=(on, flag), daemon=True) for flag in spinning]
    for proc in busy:
        proc.start()

    @contextlib.contextmanager
    def loaded():
        on.set()
        try:
            for flag in spinning:  # the load is on before the solve starts
                assert flag.wait(60)
            yield
        finally:
            on.clear()

    yield loaded
    for proc in busy:
        proc.terminate()


@pytest.mark.parametrize(("family", "problem", "method", "budget"), list(_cases()))
def test_the_same_budget_gives_the_same_result_under_load(instances, load, family, problem, method, budget):
    fam = FAMILIES[family]
    instance = instances[family, problem]
    quiet = fam.solve(instance, problem=problem, method=method, budget=budget, seed=3)
    with load():
        loaded = fam.solve(instance, problem=problem, method=method, budget=budget, seed=3)
    assert _fingerprint(loaded) == _fingerprint(quiet)
    assert loaded.stopped in (None, STOPPED_BUDGET)


def test_a_small_budget_stops_a_search_and_says_so():
    """The t60 Falkenauer file needs several CP-SAT targets: a budget far below one stops it."""
    t60 = FAMILIES["slack"].load(read_json(REPRO / "slack-t60_00-milp-false-optimal.json"))
    result = FAMILIES["slack"].solve(t60, method="cpsat", budget=1e-4)
    assert result.stopped == STOPPED_BUDGET and result.status.value != "optimal"
    assert result.work is not None and result.work >= 1e-4
    assert result.bound is not None and result.bound <= result.objective


def test_a_node_budget_stops_the_bnb_where_it_would_search_further():
    instance = generate_markov(24, 300, 8, 5)
    free = FAMILIES["coupled"].solve(instance, method="bnb")
    assert free.stopped is None and free.work > 3
    cut = FAMILIES["coupled"].solve(instance, method="bnb", budget=3)
    assert cut.stopped == STOPPED_BUDGET and cut.work <= free.work
    assert cut.bound >= free.objective >= cut.objective
