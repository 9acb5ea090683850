"""OFF-LINE-COUPLED (mu = 1), Casanova et al. 2013, Section IV: the most slots in which some
``m`` processors are all UP (a fixed-size maximum biclique).

Oracles: hand-built matrices with hand-derived optima, an enumeration of all m-subsets written
here (on the letters, sharing no code with the library), and Theorem 4.1 (i)'s reduction from
ENCD checked both ways on random bipartite graphs built with networkx.
"""

import itertools
import json
import math

import networkx as nx
import numpy as np
import pytest
from oracles.cbc import fake_cbc

from volsched.instances.coupled import CoupledInstance, generate_markov, generate_planted, parse_availability
from volsched.instances.errors import InputError
from volsched.solvers import Infeasible, SolveStatus
from volsched.solvers.coupled import PROBLEMS, solve, verify_offline
from volsched.solvers.coupled.bnb import solve_bnb
from volsched.solvers.coupled.offline_milp import solve_milp
from volsched.solvers.problem import Effort


def test_problems_and_default_methods_are_the_documented_ones():
    assert {k: (p.sense, p.default_method) for k, p in PROBLEMS.items()} == {
        "offline-coupled": ("max", "bnb"),
        "offline-coupled-inf": ("min", "bnb"),
        "iterations": ("min", "chain"),
        "full": ("min", "greedy"),
    }


# ---------------------------------------------------------------------------
# Oracle and helpers


def common_up(rows: list[str], subset) -> int:
    """Slots in which every processor of ``subset`` is UP, counted on the letters."""
    return sum(all(rows[q][t] == "U" for q in subset) for t in range(len(rows[0])))


def brute_force(rows: list[str], m: int) -> tuple[int, set[tuple[int, ...]]]:
    """Optimum and the set of all optimal m-subsets, by enumerating every m-subset."""
    values = {s: common_up(rows, s) for s in itertools.combinations(range(len(rows)), m)}
    best = max(values.values())
    return best, {s for s, v in values.items() if v == best}


def instance(rows: list[str], m: int, w: int = 1, name: str = "hand") -> CoupledInstance:
    p = len(rows)
    return CoupledInstance(availability=parse_availability(rows), w=[w] * p, mu=[1] * p, m=m, name=name)


def check_optimal(result, rows: list[str], m: int, optimum: int, optimal_sets=None) -> None:
    """Everything a proven result must satisfy, recomputed from the letters."""
    assert result.status is SolveStatus.OPTIMAL, result
    assert result.verified is True
    assert result.objective == optimum and result.bound == optimum
    assert isinstance(result.objective, float)
    assert result.gap == 0.0
    chosen = result.solution["processors"]
    assert len(chosen) == m and len(set(chosen)) == m
    assert all(type(q) is int and 0 <= q < len(rows) for q in chosen)
    assert chosen == sorted(chosen)
    assert common_up(rows, chosen) == optimum
    if optimal_sets is not None:
        assert tuple(chosen) in optimal_sets


# ---------------------------------------------------------------------------
# Hand-built matrices with hand-derived optima

TIES = ["UUUUUD", "UUUURR", "DDUUUU", "RRUUUU"]


def _row(horizon: int, cols) -> str:
    return "".join("U" if t in cols else "D" for t in range(horizon))


# Optimum {0, 1, 2} share the core slots 0-2 (value 3).  Each of them shares 4 slots with a
# decoy (3, 4, 5), so greedy from any start takes a decoy pair and ends at 0; the decoys
# together share slots 15-16 (value 2).
_CORE = {0, 1, 2}
GREEDY_TRAP = [
    _row(17, _CORE | {3, 4, 5, 6}),
    _row(17, _CORE | {7, 8, 9, 10}),
    _row(17, _CORE | {11, 12, 13, 14}),
    _row(17, {3, 4, 5, 6, 15, 16}),
    _row(17, {7, 8, 9, 10, 15, 16}),
    _row(17, {11, 12, 13, 14, 15, 16}),
]

HAND_CASES = {
    # id: (rows, m, optimum, optimal sets or None when every m-subset ties)
    "all-up-pair": (["UUUU", "UUUU", "UUUU"], 2, 4, None),
    "all-up-m-eq-p": (["UUUU", "UUUU", "UUUU"], 3, 4, {(0, 1, 2)}),
    "all-up-block-in-noise": (["DUUUDR", "RUUUDU", "DUUURD", "UDUDUD"], 3, 3, {(0, 1, 2)}),
    "ties-m1": (TIES, 1, 5, {(0,)}),
    "ties-m2": (TIES, 2, 4, {(0, 1), (2, 3)}),
    "ties-m3": (TIES, 3, 3, {(0, 2, 3)}),
    "ties-m-eq-p": (TIES, 4, 2, {(0, 1, 2, 3)}),
    "no-common-up": (["UUDD", "DDUU"], 2, 0, {(0, 1)}),
    "reclaimed-is-not-up": (["URUR", "RURU"], 2, 0, {(0, 1)}),
    "reclaimed-and-down": (["URDU", "UUUU", "DUUU"], 2, 3, {(1, 2)}),
    "m-eq-p-no-full-column": (["UUD", "DUU", "UDU"], 3, 0, {(0, 1, 2)}),
    "pairs-all-tie": (["UUD", "DUU", "UDU"], 2, 1, None),
    "m1-argmax": (["UDDD", "UUUD", "UUDD"], 1, 3, {(1,)}),
    "single-up": (["U"], 1, 1, {(0,)}),
    "single-reclaimed": (["R"], 1, 0, {(0,)}),
    "single-down": (["D"], 1, 0, {(0,)}),
    "nothing-up": (["DDR", "RRD", "DRD"], 1, 0, None),
    "greedy-trap": (GREEDY_TRAP, 3, 3, {(0, 1, 2)}),
}


def test_hand_cases_agree_with_the_oracle():
    """The hand derivations themselves, checked once against the enumeration."""
    for key, (rows, m, optimum, sets) in HAND_CASES.items():
        best, optimal = brute_force(rows, m)
        assert best == optimum, key
        if sets is not None:
            assert optimal == sets, key
        else:
            assert optimal == set(itertools.combinations(range(len(rows)), m)), key


@pytest.mark.problem("coupled", "offline-coupled")
@pytest.mark.parametrize("key", sorted(HAND_CASES))
def test_hand_built_optimum(method, key):
    rows, m, optimum, sets = HAND_CASES[key]
    result = solve(instance(rows, m, name=key), method=method)
    check_optimal(result, rows, m, optimum, sets)
    assert result.method == method and result.family == "coupled" and result.instance == key


@pytest.mark.problem("coupled", "offline-coupled")
def test_reclaimed_and_down_are_interchangeable(method):
    """Only UP counts: swapping R <-> D anywhere leaves the optimum unchanged."""
    rows = ["UURDUUD", "URUUDUU", "RUUUUDU", "UUUDRUU"]
    swapped = [r.translate(str.maketrans("RD", "DR")) for r in rows]
    both = [r.replace("R", "D") for r in rows]
    values = {solve(instance(rs, 2), method=method).objective for rs in (rows, swapped, both)}
    assert values == {float(brute_force(rows, 2)[0])}


@pytest.mark.problem("coupled", "offline-coupled")
def test_a_single_up_slot_changes_the_optimum(method):
    rows = ["UUDU", "UUDU", "DDUD"]
    assert solve(instance(rows, 2), method=method).objective == 3
    rows[1] = "UUUU"
    rows[0] = "UUUU"
    assert solve(instance(rows, 2), method=method).objective == 4
    rows[0] = "UURU"
    assert solve(instance(rows, 2), method=method).objective == 3


@pytest.mark.problem("coupled", "offline-coupled")
def test_decision_form_with_identical_w(method):
    """An iteration of ``w`` slots fits iff the optimum is at least ``w`` (Section IV)."""
    rows = TIES  # optimum 4 for m = 2
    for w, fits in ((3, True), (4, True), (5, False)):
        result = solve(instance(rows, 2, w=w), method=method)
        assert result.solution["decision"] == {"w": w, "iteration_fits": fits}


def test_no_decision_with_heterogeneous_w():
    inst = CoupledInstance(availability=parse_availability(TIES), w=[1, 2, 1, 1], mu=[1] * 4, m=2)
    result = solve(inst)
    assert result.objective == 4 and "decision" not in result.solution


# ---------------------------------------------------------------------------
# Cross-method agreement with the enumeration on seeded random instances

RANDOM_SEEDS = range(48)


def random_rows(seed: int) -> tuple[list[str], int]:
    rng = np.random.default_rng(1000 + seed)
    p = int(rng.integers(1, 11))
    horizon = int(rng.integers(1, 41))
    m = int(rng.integers(1, p + 1))
    density = float(rng.uniform(0.3, 1.0))
    up = rng.random((p, horizon)) < density
    other = np.where(rng.random((p, horizon)) < 0.5, "R", "D")
    rows = ["".join("U" if up[q, t] else other[q, t] for t in range(horizon)) for q in range(p)]
    return rows, m


def test_random_instances_cover_the_parameter_space():
    shapes = [random_rows(s) for s in RANDOM_SEEDS]
    ps = {len(rows) for rows, _ in shapes}
    assert min(ps) <= 2 and max(ps) == 10
    assert max(len(rows[0]) for rows, _ in shapes) >= 35
    assert any(m == len(rows) for rows, m in shapes) and any(m == 1 for rows, m in shapes)
    assert any(1 < m < len(rows) for rows, m in shapes)
    optima = [brute_force(rows, m)[0] for rows, m in shapes]
    assert 0 in optima and max(optima) >= 10  # both the empty and the rich case occur
    assert sum(any("R" in r for r in rows) for rows, _ in shapes) >= 40


@pytest.mark.problem("coupled", "offline-coupled")
@pytest.mark.parametrize("seed", RANDOM_SEEDS)
def test_random_instance_matches_brute_force(method, seed):
    rows, m = random_rows(seed)
    optimum, optimal_sets = brute_force(rows, m)
    result = solve(instance(rows, m), method=method, seed=seed)
    check_optimal(result, rows, m, optimum, optimal_sets)


@pytest.mark.parametrize("seed", range(4))
def test_bnb_matches_brute_on_markov_instances(seed):
    """The paper's chains: long sticky runs, so many near-ties between subsets."""
    inst = generate_markov(13, 150, 2 + seed, seed)
    rows = inst.to_json()["data"]["availability"]
    optimum, optimal_sets = brute_force(rows, inst.m)
    for method in ("bnb", "brute"):
        check_optimal(solve(inst, method=method), rows, inst.m, optimum, optimal_sets)


@pytest.mark.parametrize("seed", range(3))
def test_bnb_finds_hidden_planted_blocks(seed):
    inst = generate_planted(14, 60, 4, 12, 0.55, seed)
    rows = inst.to_json()["data"]["availability"]
    optimum, optimal_sets = brute_force(rows, 4)
    assert optimum >= 12
    result = solve(inst, method="bnb")
    check_optimal(result, rows, 4, optimum, optimal_sets)
    assert result.solution["decision"] == {"w": 12, "iteration_fits": True}


# ---------------------------------------------------------------------------
# Time limits


@pytest.mark.parametrize("time_limit", [1e-4, 1e-3, 1e-2])
@pytest.mark.parametrize("seed", [0, 1])
def test_bnb_time_limit_never_overclaims(time_limit, seed):
    inst = generate_markov(40, 1000, 6, seed)
    _, optimum, proven, _ = solve_bnb(inst.up, inst.m)
    assert proven == optimum

    result = solve(inst, method="bnb", time_limit=time_limit)
    assert result.verified is True
    assert result.bound >= result.objective
    assert result.bound >= optimum  # the reported bound is a real upper bound
    assert result.objective <= optimum
    if result.status is SolveStatus.OPTIMAL:
        assert result.bound == result.objective == optimum
    else:
        assert result.status is SolveStatus.FEASIBLE and result.bound > result.objective
    assert verify_offline(inst, result.solution["processors"]) == result.objective

    chosen, value, bound, nodes = solve_bnb(inst.up, inst.m, time_limit)
    assert bound >= optimum >= value and nodes >= 1
    assert verify_offline(inst, [int(q) for q in chosen], value) == value


def test_tiny_time_limit_on_a_large_instance_is_not_claimed_optimal():
    """p=60, H=2000, m=10: the greedy start alone outlasts 1e-4 s, so nothing is proven."""
    inst = generate_markov(60, 2000, 10, 3)
    result = solve(inst, method="bnb", time_limit=1e-4)
    assert result.status is SolveStatus.FEASIBLE
    assert result.bound > result.objective >= 0 and result.gap > 0
    assert result.verified is True
    assert verify_offline(inst, result.solution["processors"]) == result.objective
    assert result.solution["decision"]["iteration_fits"] is (True if result.objective >= 1 else None)


@pytest.mark.problem("coupled", "offline-coupled", exclude=("bnb", "brute"))
def test_model_methods_under_a_time_limit_never_overclaim(method):
    inst = generate_markov(30, 300, 6, 2)
    _, optimum, _, _ = solve_bnb(inst.up, inst.m)
    result = solve(inst, method=method, time_limit=0.5)
    if result.objective is None:  # nothing found in time (slow machine)
        assert result.status is SolveStatus.UNKNOWN and not result.verified
        assert result.solution == {"problem": "offline-coupled"}
        return
    assert result.verified is True
    assert result.objective <= optimum
    assert verify_offline(inst, result.solution["processors"]) == result.objective
    if result.bound is not None:
        assert result.bound >= optimum
    if result.status is SolveStatus.OPTIMAL:
        assert result.objective == result.bound == optimum
    else:
        assert result.status is SolveStatus.FEASIBLE


@pytest.mark.problem("coupled", "offline-coupled", exclude=("brute",))
def test_no_solution_in_time_gives_no_false_bound(method):
    """Stopped before any solution: status unknown (or a valid result), never a bound below the optimum."""
    inst = generate_markov(30, 300, 6, 0)
    _, optimum, _, _ = solve_bnb(inst.up, inst.m)
    result = solve(inst, method=method, time_limit=1e-6)
    assert result.bound is None or result.bound >= optimum, result.to_dict()
    if result.objective is None:
        assert result.status is SolveStatus.UNKNOWN and not result.verified
    else:
        assert result.verified and result.objective <= optimum


def test_bnb_proves_the_same_value_as_cpsat_on_a_medium_instance():
    inst = generate_markov(30, 300, 5, 0)
    by_bnb = solve(inst, method="bnb")
    by_cpsat = solve(inst, method="cpsat")
    for result in (by_bnb, by_cpsat):
        assert result.status is SolveStatus.OPTIMAL and result.verified
        assert result.objective == result.bound
    assert by_bnb.objective == by_cpsat.objective
    chosen, value, bound, nodes = solve_bnb(inst.up, 5)
    assert value == bound == by_bnb.objective and nodes >= 1
    assert verify_offline(inst, [int(q) for q in chosen]) == value
    # a bnb solution is optimal: no single swap of a chosen processor improves it
    up = inst.up
    for out in chosen:
        for inn in set(range(inst.p)) - set(chosen):
            trial = [q for q in chosen if q != out] + [inn]
            assert np.logical_and.reduce(up[trial], axis=0).sum() <= value


# ---------------------------------------------------------------------------
# Theorem 4.1 (i): ENCD <= OFF-LINE-COUPLED (mu = 1)


def encd_matrix(graph: nx.Graph, left: list, right: list) -> list[str]:
    """Processor v_i is UP in slot w_j iff (v_i, w_j) is an edge; non-edges alternate R/D."""
    return [
        "".join("U" if graph.has_edge(v, w) else "RD"[(i + j) % 2] for j, w in enumerate(right))
        for i, v in enumerate(left)
    ]


def has_biclique(graph: nx.Graph, left: list, right: list, a: int, b: int) -> bool:
    """ENCD by enumeration: a biclique with exactly ``a`` nodes of V and ``b`` of W."""
    return any(
        all(graph.has_edge(u, w) for u in u1 for w in u2)
        for u1 in itertools.combinations(left, a)
        for u2 in itertools.combinations(right, b)
    )


def random_bipartite(seed: int) -> tuple[nx.Graph, list, list]:
    rng = np.random.default_rng(seed)
    n_v, n_w = int(rng.integers(2, 6)), int(rng.integers(2, 7))
    graph = nx.bipartite.random_graph(n_v, n_w, float(rng.uniform(0.3, 0.85)), seed=seed)
    left = sorted(v for v, side in graph.nodes(data="bipartite") if side == 0)
    right = sorted(v for v, side in graph.nodes(data="bipartite") if side == 1)
    assert len(left) == n_v and len(right) == n_w
    return graph, left, right


def test_encd_reduction_on_a_hand_built_graph():
    # K_{2,3} on {v0, v1} x {w0, w1, w2}, plus v2 - w3 and v0 - w3
    graph = nx.Graph()
    graph.add_nodes_from(["v0", "v1", "v2"], bipartite=0)
    graph.add_nodes_from(["w0", "w1", "w2", "w3"], bipartite=1)
    graph.add_edges_from([(v, w) for v in ("v0", "v1") for w in ("w0", "w1", "w2")])
    graph.add_edges_from([("v2", "w3"), ("v0", "w3")])
    left, right = ["v0", "v1", "v2"], ["w0", "w1", "w2", "w3"]
    rows = encd_matrix(graph, left, right)
    assert rows == ["UUUU", "UUUR", "RDRU"]
    assert solve_bnb(parse_availability(rows) == 0, 1)[1] == 4  # a = 1: v0 has degree 4
    assert solve_bnb(parse_availability(rows) == 0, 2)[1] == 3  # a = 2: the K_{2,3}
    assert solve_bnb(parse_availability(rows) == 0, 3)[1] == 0  # no w adjacent to all of V
    assert has_biclique(graph, left, right, 2, 3) and not has_biclique(graph, left, right, 2, 4)


@pytest.mark.parametrize("seed", range(16))
def test_encd_reduction_both_ways(seed):
    graph, left, right = random_bipartite(seed)
    rows = encd_matrix(graph, left, right)
    up = parse_availability(rows) == 0
    for a in range(1, len(left) + 1):
        chosen, optimum, bound, _ = solve_bnb(up, a)
        assert bound == optimum
        for b in range(1, len(right) + 1):
            assert has_biclique(graph, left, right, a, b) == (optimum >= b), (a, b, optimum)
        # the certificate: the chosen processors and their common UP slots form a biclique
        slots = [right[t] for t in range(len(right)) if all(up[q, t] for q in chosen)]
        assert len(slots) == optimum
        assert all(graph.has_edge(left[q], w) for q in chosen for w in slots)


@pytest.mark.problem("coupled", "offline-coupled")
@pytest.mark.parametrize("seed", range(4))
def test_encd_decision_for_every_method(method, seed):
    """``m = a``, ``w = b``: the iteration fits iff G has an (a, b) biclique."""
    graph, left, right = random_bipartite(100 + seed)
    rows = encd_matrix(graph, left, right)
    for a in range(1, len(left) + 1):
        for b in range(1, len(right) + 1):
            result = solve(instance(rows, a, w=b), method=method)
            assert result.solution["decision"] == {
                "w": b,
                "iteration_fits": has_biclique(graph, left, right, a, b),
            }, (a, b)


# ---------------------------------------------------------------------------
# The verifier


@pytest.fixture
def four():
    return instance(["UUUD", "UURU", "DUUU", "UUUU"], 2)


def test_verify_counts_common_up_slots(four):
    assert verify_offline(four, [0, 1]) == 2
    assert verify_offline(four, [1, 0]) == 2
    assert verify_offline(four, (2, 3)) == 3
    assert verify_offline(four, [0, 2]) == 2
    assert verify_offline(four, [0, 3], 3) == 3


@pytest.mark.parametrize(
    "processors, fragment",
    [
        ([0], "processors: has 1 processors, an iteration needs m = 2"),
        ([0, 1, 2], "processors: has 3 processors, an iteration needs m = 2"),
        ([], "processors: has 0 processors"),
        ([1, 1], "processors[1]: processor 1 is chosen twice"),
        ([0, 4], "processors[1]: must be a processor index in [0, 4), got 4"),
        ([-1, 0], "processors[0]: must be a processor index in [0, 4), got -1"),
        ([True, 2], "processors[0]: must be a processor index in [0, 4), got True"),
        ([0, 1.0], "processors[1]: must be a processor index in [0, 4), got 1.0"),
        ([0, "1"], "processors[1]: must be a processor index"),
        ([None, 1], "processors[0]: must be a processor index"),
        ("01", "processors: must be a list"),
        ({0, 1}, "processors: must be a list"),
        (None, "processors: must be a list"),
    ],
)
def test_verify_rejects_malformed_solutions(four, processors, fragment):
    with pytest.raises(Infeasible) as exc:
        verify_offline(four, processors)
    assert fragment in str(exc.value), str(exc.value)


@pytest.mark.parametrize("claimed", [0, 1, 3, 4])
def test_verify_rejects_a_wrong_claimed_value(four, claimed):
    message = f"claimed {claimed} common UP slots but the processors have 2"
    with pytest.raises(Infeasible, match=message):
        verify_offline(four, [0, 1], claimed)


def test_verify_is_independent_of_the_up_property(four):
    """A RECLAIMED slot is not UP for the verifier either."""
    assert verify_offline(four, [1, 3]) == 3  # slot 2 of processor 1 is R


# ---------------------------------------------------------------------------
# solve(): bad input and the result object


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"problem": "makespan"}, "--problem: must be one of ['offline-coupled', 'offline-coupled-inf'"),
        (
            {"problem": "offline-coupled-inf", "method": "cpsat"},
            "--method: offline-coupled-inf has methods ['bnb', 'brute']",
        ),
        ({"method": "dp"}, "--method: offline-coupled has methods ['bnb', 'cpsat', 'milp', 'brute']"),
    ],
)
def test_solve_rejects_unknown_problem_and_method(kwargs, fragment):
    with pytest.raises(InputError) as exc:
        solve(instance(TIES, 2), **kwargs)
    assert fragment in str(exc.value), str(exc.value)


def test_solve_rejects_more_tasks_than_processors():
    inst = CoupledInstance(availability=parse_availability(TIES), w=[1] * 4, mu=[None] * 4, m=5)
    with pytest.raises(InputError, match="m: m = 5 exceeds the 4 processors"):
        solve(inst)


def test_brute_refuses_more_than_16_processors():
    inst = generate_markov(17, 20, 2, 0)
    with pytest.raises(InputError, match="method: brute enumerates"):
        solve(inst, method="brute")
    assert solve(generate_markov(16, 20, 2, 0), method="brute").status is SolveStatus.OPTIMAL


@pytest.mark.problem("coupled", "offline-coupled")
def test_result_dict_is_json_and_complete(method):
    result = solve(instance(TIES, 2, w=4), problem="offline-coupled", method=method)
    obj = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert set(obj) == {
        "family",
        "instance",
        "method",
        "status",
        "objective",
        "bound",
        "gap",
        "runtime_s",
        "solution",
        "verified",
        "stopped",
        "work",
        "info",
    }
    assert obj["status"] == "optimal" and obj["objective"] == obj["bound"] == 4.0
    assert obj["gap"] == 0.0 and obj["verified"] is True
    assert obj["solution"]["processors"] in ([0, 1], [2, 3])
    assert obj["solution"]["decision"] == {"w": 4, "iteration_fits": True}
    assert math.isfinite(obj["runtime_s"]) and obj["runtime_s"] >= 0


def test_heavy_back_ends_are_imported_on_first_use_only():
    """``import volsched`` and its CLI load neither OR-Tools nor PuLP (PyJobShop's lazy pattern)."""
    import subprocess
    import sys

    code = (
        "import sys, volsched.cli, volsched.families, volsched.solvers.coupled; "
        "print(sorted(m for m in ('ortools', 'pulp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_missing_back_end_is_bad_input_with_an_install_hint(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pulp(name, *args, **kwargs):
        if name == "pulp" or name.startswith("pulp."):
            raise ImportError("No module named 'pulp'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pulp)
    monkeypatch.delitem(__import__("sys").modules, "volsched.solvers.coupled.offline_milp", raising=False)
    monkeypatch.delitem(__import__("sys").modules, "pulp", raising=False)
    with pytest.raises(InputError, match=r"^--method: this method needs pulp.*pip install pulp"):
        solve(instance(TIES, 2), method="milp")


# ---------------------------------------------------------------------------
# milp: a proof only from a CBC search that finished


def test_milp_node_budget_stops_unproven_within_the_optimum():
    # markov 12 x 100, m = 4, seed 5: CBC's root does not close the model (it needs nodes).
    inst = generate_markov(12, 100, 4, 5)
    rows = ["".join("U" if u else "D" for u in row) for row in inst.up]
    optimum, _ = brute_force(rows, inst.m)
    effort = Effort()
    chosen, value, bound, proven = solve_milp(inst.up, inst.m, max_nodes=0, effort=effort)
    assert not proven and bound is None and effort.stopped == "budget"
    assert value is None or (len(chosen) == inst.m and value <= common_up(rows, chosen) <= optimum)


def test_milp_stopped_without_a_solution_is_unknown_and_says_the_clock_stopped_it(tmp_path, monkeypatch):
    fake_cbc(
        monkeypatch,
        tmp_path,
        "Result - Stopped on time limit\nEnumerated nodes: 0\n",
        "Stopped on time (no integer solution - continuous used) - objective value 3.00000000",
    )
    result = solve(instance(TIES, 2), method="milp", time_limit=1.0)
    assert result.status == SolveStatus.UNKNOWN and result.objective is None
    assert result.stopped == "wall clock"
