"""Coupled generators beyond the Markov/planted presets: the bipartite edge-list reader, Theorem 4.1's
two ENCD reductions (Casanova et al. 2013, Section IV), the Section VII-A experiment space and the
``volsched generate coupled --preset edgelist|encd|paper`` CLI.

Every claim of a reduction is checked against brute force written here (bicliques by enumerating
node subsets; the flexible-number-of-workers condition by enumerating ``k``-subsets), not against
the library's own solvers only."""

import itertools
import json
import math
from collections import Counter
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from volsched.cli import main
from volsched.instances import coupled as model
from volsched.instances.coupled import (
    DOWN,
    UP,
    CoupledInstance,
    encd_instance,
    generate_paper,
    read_bipartite,
    read_edgelist,
)
from volsched.instances.errors import InputError
from volsched.instances.io import read_json
from volsched.solvers.coupled import solve, verify_offline

REPO = Path(__file__).resolve().parents[2]
BENCHMARK = REPO.parent / "shared" / "data" / "biclique" / "random.m_100_n_100_r_0.2_p_0.8.txt"
# The published maximum edge biclique of the benchmark (its README): 24 x 19 = 456 edges.
PUBLISHED_I = [3, 4, 5, 10, 14, 15, 17, 24, 34, 35, 36, 40, 42, 49, 54, 58, 61, 64, 65, 68, 69, 73, 90, 91]
PUBLISHED_J = [8, 10, 11, 30, 37, 41, 43, 45, 56, 67, 71, 72, 77, 80, 87, 89, 92, 98, 99]

# A hand-written edge list: header (3 x 4, 5 edges), comments, blank lines, tabs and spaces.
SMALL = """# 3 4 5
# a comment line: 7 8 9 10
0\t1

# another comment
0 3
1\t0
2 2
   2\t3
"""
SMALL_UP = [[False, True, False, True], [True, False, False, False], [False, False, True, True]]


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def edgelist_text(up, header: bool = True) -> str:
    """An edge-list file of a boolean matrix (row = U side), with a ``# |U| |V| |E|`` header."""
    up = np.asarray(up, dtype=bool)
    lines = [f"# {up.shape[0]} {up.shape[1]} {int(up.sum())}"] if header else []
    lines += [f"{u}\t{v}" for u, v in zip(*np.nonzero(up), strict=True)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Brute-force oracles (independent of the library)


def has_biclique(graph, left, right, a: int, b: int) -> bool:
    """A biclique with exactly ``a`` nodes in ``left`` and ``b`` in ``right``, by enumerating both sides."""
    for side_a in itertools.combinations(left, a):
        for side_b in itertools.combinations(right, b):
            if all(graph.has_edge(u, v) for u in side_a for v in side_b):
                return True
    return False


def flexible_iteration_fits(up: np.ndarray, m: int, w: int) -> bool:
    """Section IV, mu = inf: some ``k <= m`` processors share ``ceil(m / k) * w`` common UP slots."""
    p = up.shape[0]
    for k in range(1, min(m, p) + 1):
        need = math.ceil(m / k) * w
        for rows in itertools.combinations(range(p), k):
            if int(up[list(rows)].all(axis=0).sum()) >= need:
                return True
    return False


def random_bipartite(seed: int):
    """A small seeded random bipartite graph, its parts in a shuffled (non-sorted) order."""
    rng = np.random.default_rng(seed)
    nv, nw = int(rng.integers(3, 6)), int(rng.integers(3, 6))
    graph = nx.bipartite.random_graph(nv, nw, [0.45, 0.6, 0.75][seed % 3], seed=seed)
    left = [int(v) for v in rng.permutation(nv)]
    right = [int(v) for v in nv + rng.permutation(nw)]
    return graph, left, right


def round_trip(inst: CoupledInstance) -> CoupledInstance:
    text = json.dumps(inst.to_json(), allow_nan=False)  # valid JSON: no Infinity for mu
    again = CoupledInstance.from_json(json.loads(text))
    assert again.to_json() == inst.to_json()
    return again


# ---------------------------------------------------------------------------
# read_edgelist


def test_read_edgelist_small_file(tmp_path):
    inst = read_edgelist(write(tmp_path / "small.txt", SMALL), 2)
    assert (inst.p, inst.horizon, inst.m) == (3, 4, 2)
    assert inst.up.tolist() == SMALL_UP
    # not UP is DOWN; mu = 1, w = 1, no communication
    assert set(np.unique(inst.availability).tolist()) == {UP, DOWN}
    assert inst.w.tolist() == [1, 1, 1] and inst.mu.tolist() == [1.0, 1.0, 1.0]
    assert (inst.n_com, inst.T_prog, inst.T_data, inst.K) == (1, 0, 0, 1)
    assert inst.params == {"preset": "edgelist", "file": "small.txt", "tasks": 2, "transpose": False}
    round_trip(inst)


def test_read_edgelist_header_sizes_win_over_smaller_indices(tmp_path):
    # the largest indices give 2 x 2; the header says 4 x 5: trailing rows/slots are all DOWN
    inst = read_edgelist(write(tmp_path / "pad.txt", "# 4 5 2\n0 0\n1 1\n"), 1)
    assert (inst.p, inst.horizon) == (4, 5)
    expected = np.zeros((4, 5), dtype=bool)
    expected[0, 0] = expected[1, 1] = True
    assert inst.up.tolist() == expected.tolist()
    # without a header the sizes are the largest indices plus one
    bare = read_edgelist(write(tmp_path / "bare.txt", "0 0\n1 1\n"), 1)
    assert (bare.p, bare.horizon) == (2, 2)
    # a header smaller than the indices does not truncate the graph
    big = read_edgelist(write(tmp_path / "big.txt", "# 1 1 2\n0 0\n2 3\n"), 1)
    assert (big.p, big.horizon) == (3, 4) and big.up[2, 3]


def test_read_edgelist_transpose(tmp_path):
    path = write(tmp_path / "small.txt", SMALL)
    inst = read_edgelist(path, 4, transpose=True)
    assert (inst.p, inst.horizon, inst.m) == (4, 3, 4)
    assert inst.up.tolist() == np.asarray(SMALL_UP).T.tolist()
    assert inst.params["transpose"] is True
    # m = 4 only fits the transposed reading (3 processors otherwise)
    with pytest.raises(InputError, match=r"^tasks: m = 4 exceeds the 3 processors"):
        read_edgelist(path, 4)


@pytest.mark.parametrize("line", ["1 x", "0 1 2", "0", "-1 2", "0,1", "1.0 2"])
def test_read_edgelist_malformed_line_names_file_and_line(tmp_path, line):
    path = write(tmp_path / "bad.txt", f"# 3 3 2\n0 0\n\n{line}\n1 1\n")
    with pytest.raises(InputError) as info:
        read_edgelist(path, 1)
    message = str(info.value)
    assert message.startswith("bad.txt: line 4: "), message
    assert repr(line) in message


@pytest.mark.parametrize("text", ["", "\n\n", "# 3 3 0\n# only comments\n"])
def test_read_edgelist_without_edges(tmp_path, text):
    with pytest.raises(InputError, match=r"^empty\.txt: has no edge"):
        read_edgelist(write(tmp_path / "empty.txt", text), 1)


def test_read_edgelist_missing_file(tmp_path):
    path = tmp_path / "nowhere.txt"
    with pytest.raises(InputError) as info:
        read_edgelist(path, 1)
    assert str(info.value) == f"{path}: no such file"


@pytest.mark.parametrize(
    "tasks, transpose, fragment",
    [
        (4, False, "tasks: m = 4 exceeds the 3 processors"),
        (5, True, "tasks: m = 5 exceeds the 4 processors"),
        (0, False, "tasks: must be an integer >= 1"),
        (True, False, "tasks: must be an integer >= 1"),
    ],
)
def test_read_edgelist_bad_tasks(tmp_path, tasks, transpose, fragment):
    with pytest.raises(InputError) as info:
        read_edgelist(write(tmp_path / "small.txt", SMALL), tasks, transpose=transpose)
    assert str(info.value).startswith(fragment), str(info.value)


@pytest.fixture(scope="module")
def benchmark_path() -> Path:
    if not BENCHMARK.is_file():
        pytest.skip(f"shared biclique benchmark not found at {BENCHMARK} (needs ../shared/data/biclique/)")
    return BENCHMARK


def test_benchmark_reads_as_100_by_100_with_8092_up(benchmark_path):
    inst = read_edgelist(benchmark_path, 24)
    assert (inst.p, inst.horizon) == (100, 100)
    assert int(inst.up.sum()) == 8092
    # cross-check the reader against a plain parse of the file
    edges = {
        tuple(map(int, line.split()))
        for line in benchmark_path.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert len(edges) == 8092
    assert {(int(u), int(v)) for u, v in zip(*np.nonzero(inst.up), strict=True)} == edges


def test_benchmark_published_biclique(benchmark_path):
    inst = read_edgelist(benchmark_path, 24)
    common = np.flatnonzero(inst.up[PUBLISHED_I].all(axis=0))
    assert common.tolist() == PUBLISHED_J  # exactly 19 common UP slots: the published J
    assert verify_offline(inst, PUBLISHED_I) == 19

    transposed = read_edgelist(benchmark_path, 19, transpose=True)
    assert (transposed.p, transposed.m) == (100, 19)
    common_t = np.flatnonzero(transposed.up[PUBLISHED_J].all(axis=0))
    assert common_t.tolist() == PUBLISHED_I  # 24 common slots
    assert verify_offline(transposed, PUBLISHED_J) == 24


# ---------------------------------------------------------------------------
# read_bipartite


def test_read_bipartite_tags_parts_and_keeps_edges(tmp_path):
    graph, left, right = read_bipartite(write(tmp_path / "small.txt", SMALL))
    assert left == [("v", i) for i in range(3)] and right == [("w", j) for j in range(4)]
    assert set(graph.nodes) == set(left) | set(right)
    assert all(graph.nodes[v]["bipartite"] == 0 for v in left)
    assert all(graph.nodes[w]["bipartite"] == 1 for w in right)
    expected = {
        frozenset({("v", u), ("w", v)})
        for u, row in enumerate(SMALL_UP)
        for v, is_up in enumerate(row)
        if is_up
    }
    assert {frozenset(e) for e in graph.edges} == expected and graph.number_of_edges() == 5
    assert nx.is_bipartite(graph)


def test_read_bipartite_keeps_isolated_nodes_of_the_header(tmp_path):
    graph, left, right = read_bipartite(write(tmp_path / "pad.txt", "# 3 4 1\n0 0\n"))
    assert (len(left), len(right), graph.number_of_nodes(), graph.number_of_edges()) == (3, 4, 7, 1)
    assert graph.degree(("v", 2)) == 0 and graph.degree(("w", 3)) == 0


def test_read_bipartite_round_trips_through_encd(tmp_path):
    """read_bipartite + encd_instance(mu = 1, a = |V|... ) reproduces the edge-list matrix."""
    graph, left, right = read_bipartite(write(tmp_path / "small.txt", SMALL))
    inst = encd_instance(graph, left, right, 1, 1)
    assert inst.up.tolist() == SMALL_UP == read_edgelist(tmp_path / "small.txt", 1).up.tolist()


# ---------------------------------------------------------------------------
# encd_instance, mu = 1 (Theorem 4.1 part i)


@pytest.mark.parametrize("seed", range(8))
def test_encd_mu1_construction_and_reduction(seed):
    graph, left, right = random_bipartite(seed)
    outcomes = set()
    for a in range(1, len(left) + 1):
        for b in range(1, len(right) + 1):
            inst = encd_instance(graph, left, right, a, b, mu="1")
            assert (inst.p, inst.horizon, inst.m) == (len(left), len(right), a)
            assert inst.w.tolist() == [b] * len(left) and inst.mu.tolist() == [1.0] * len(left)
            expected = [[graph.has_edge(v, w) for w in right] for v in left]
            assert inst.up.tolist() == expected  # UP iff edge, in the given orders
            assert set(np.unique(inst.availability).tolist()) <= {UP, DOWN}
            assert (inst.n_com, inst.T_prog, inst.T_data, inst.K) == (1, 0, 0, 1)

            exists = has_biclique(graph, left, right, a, b)
            result = solve(inst, method="brute")
            assert (result.objective >= b) == exists, (seed, a, b)
            assert result.solution["decision"] == {"w": b, "iteration_fits": exists}
            outcomes.add(exists)
    assert outcomes == {True, False}  # both directions of the equivalence were exercised


def test_encd_mu1_json_and_params():
    graph = nx.complete_bipartite_graph(2, 3)
    inst = encd_instance(graph, [0, 1], [2, 3, 4], 2, 3)
    assert inst.up.all()
    obj = inst.to_json()
    assert obj["data"]["mu"] == [1, 1] and obj["data"]["w"] == [3, 3]
    assert obj["params"] == {"preset": "encd", "mu": "1", "a": 2, "b": 3, "V": 2, "W": 3}
    round_trip(inst)


# ---------------------------------------------------------------------------
# encd_instance, mu = inf (Theorem 4.1 part ii)


@pytest.mark.parametrize("seed", range(8))
def test_encd_mu_inf_construction_and_reduction(seed):
    graph, left, right = random_bipartite(seed)
    nw = len(right)
    outcomes = set()
    for a in range(1, len(left) + 1):
        for b in range(1, nw + 1):
            inst = encd_instance(graph, left, right, a, b, mu="inf")
            assert (inst.p, inst.horizon, inst.m) == (len(left), 2 * nw + 1, a)
            assert inst.w.tolist() == [b + nw + 1] * len(left)
            assert np.isinf(inst.mu).all()
            edges = [[graph.has_edge(v, w) for w in right] for v in left]
            assert inst.up[:, :nw].tolist() == edges
            assert inst.up[:, nw:].all()  # the |W| + 1 extra slots: everyone UP

            exists = has_biclique(graph, left, right, a, b)
            fits = flexible_iteration_fits(inst.up, inst.m, int(inst.w[0]))
            assert fits == exists, (seed, a, b)
            outcomes.add(exists)
    assert outcomes == {True, False}


def test_encd_mu_inf_is_null_in_json():
    graph = nx.complete_bipartite_graph(2, 2)
    inst = encd_instance(graph, [0, 1], [2, 3], 1, 2, mu="inf")
    obj = inst.to_json()
    assert obj["data"]["mu"] == [None, None]
    assert obj["params"]["mu"] == "inf"
    again = round_trip(inst)
    assert np.isinf(again.mu).all()


def test_encd_mu_inf_smaller_configurations_never_fit():
    """The proof's key step: with k < a workers the workload 2w exceeds the horizon 2|W| + 1."""
    graph = nx.complete_bipartite_graph(3, 3)
    for a in range(1, 4):
        for b in range(1, 4):
            inst = encd_instance(graph, [0, 1, 2], [3, 4, 5], a, b, mu="inf")
            assert 2 * int(inst.w[0]) > inst.horizon
            assert int(inst.w[0]) <= inst.horizon  # and a = |V| processors do fit (complete graph)
            assert flexible_iteration_fits(inst.up, a, int(inst.w[0]))


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"a": 0}, "a: must be in [1, |V| = 3], got 0"),
        ({"a": 4}, "a: must be in [1, |V| = 3], got 4"),
        ({"a": True}, "a: must be in [1, |V| = 3]"),
        ({"a": 1.0}, "a: must be in [1, |V| = 3]"),
        ({"b": 0}, "b: must be in [1, |W| = 2], got 0"),
        ({"b": 3}, "b: must be in [1, |W| = 2], got 3"),
        ({"b": "1"}, "b: must be in [1, |W| = 2]"),
        ({"mu": 1}, "mu: must be '1' or 'inf', got 1"),
        ({"mu": "infinity"}, "mu: must be '1' or 'inf'"),
        ({"mu": None}, "mu: must be '1' or 'inf'"),
    ],
)
def test_encd_bad_parameters_name_the_field(kwargs, fragment):
    graph = nx.complete_bipartite_graph(3, 2)
    args = {"a": 1, "b": 1, "mu": "1"}
    args.update(kwargs)
    with pytest.raises(InputError) as info:
        encd_instance(graph, [0, 1, 2], [3, 4], **args)
    assert str(info.value).startswith(fragment), str(info.value)


@pytest.mark.parametrize("extra_edge", [(0, 1), (0, 9)], ids=["V-V edge", "edge to a node outside"])
def test_encd_edge_not_joining_the_parts(extra_edge):
    graph = nx.complete_bipartite_graph(3, 2)
    graph.add_edge(*extra_edge)
    for mu in ("1", "inf"):
        with pytest.raises(InputError, match=r"^graph: edge .* does not join the two parts"):
            encd_instance(graph, [0, 1, 2], [3, 4], 1, 1, mu=mu)


def test_encd_empty_part():
    graph = nx.complete_bipartite_graph(2, 2)
    with pytest.raises(InputError, match=r"^graph: both parts must be non-empty"):
        encd_instance(graph, [0, 1], [], 1, 1)


@pytest.mark.parametrize(
    "case",
    [
        "W-W edge",
        "V node missing",
        "duplicate W node",
    ],
)
def test_encd_malformed_parts_raise_input_error(case):
    graph = nx.complete_bipartite_graph(2, 2)  # V = {0, 1}, W = {2, 3}
    left, right = [0, 1], [2, 3]
    if case == "W-W edge":
        graph.add_edge(2, 3)
    elif case == "V node missing":
        left = [0, 1, 7]
    else:
        right = [2, 2, 3]
    with pytest.raises(InputError, match=r"^graph: "):
        encd_instance(graph, left, right, 1, 1)


# ---------------------------------------------------------------------------
# generate_paper (Section VII-A)


@pytest.fixture(scope="module")
def paper():
    return generate_paper(3, scenarios=1, trials=2, slots=50)


def test_generate_paper_count_and_fields(paper):
    assert len(paper) == 2 * 3 * 10 * 1 * 2
    cells = Counter()
    for inst in paper:
        pr = inst.params
        assert pr["preset"] == "paper-realization" and pr["seed"] == 3 and pr["slots"] == 50
        w_min = pr["w_min"]
        assert (inst.p, inst.horizon, inst.K) == (20, 50, 10)
        assert (inst.m, inst.n_com) == (pr["tasks"], pr["n_com"])
        assert inst.T_data == w_min and inst.T_prog == 5 * w_min
        assert np.isinf(inst.mu).all()
        assert all(w_min <= w <= 10 * w_min for w in inst.w.tolist()), (pr, inst.w.tolist())
        assert (inst.availability[:, 0] == UP).all()  # every processor starts UP (documented choice)
        cells[(pr["tasks"], pr["n_com"], w_min)] += 1
        assert pr["scenario"] == 0 and pr["trial"] in (0, 1)
    assert set(cells) == set(itertools.product((5, 10), (5, 10, 20), range(1, 11)))
    assert set(cells.values()) == {2}
    assert len({inst.name for inst in paper}) == len(paper)


def test_generate_paper_w_spreads_over_the_range(paper):
    # w_q ~ U{w_min, ..., 10 w_min}: over the 60 scenarios the draws reach both halves of the range
    low = high = 0
    for inst in paper:
        w_min = inst.params["w_min"]
        low += int((inst.w < 5 * w_min).sum())
        high += int((inst.w > 6 * w_min).sum())
    assert low > 100 and high > 100


def test_generate_paper_realizations_follow_sticky_chains(paper):
    # P_xx ~ U[0.90, 0.99]: about 94.5 % of transitions stay in the same state
    states = np.stack([inst.availability for inst in paper])
    stay = float((states[:, :, 1:] == states[:, :, :-1]).mean())
    assert 0.92 < stay < 0.97, stay
    assert set(np.unique(states).tolist()) == {0, 1, 2}  # UP, RECLAIMED and DOWN all occur


def test_generate_paper_trials_share_the_scenario(paper):
    by_scenario = {}
    for inst in paper:
        pr = inst.params
        by_scenario.setdefault((pr["tasks"], pr["n_com"], pr["w_min"], pr["scenario"]), []).append(inst)
    assert len(by_scenario) == 60
    for group in by_scenario.values():
        first, second = sorted(group, key=lambda i: i.params["trial"])
        assert first.w.tolist() == second.w.tolist()  # same scenario: same w_q
        assert not np.array_equal(first.availability, second.availability)  # another realization


def test_generate_paper_scenarios_differ():
    insts = generate_paper(0, scenarios=2, trials=1, slots=10)
    assert len(insts) == 120
    by_cell = {}
    for inst in insts:
        pr = inst.params
        by_cell.setdefault((pr["tasks"], pr["n_com"], pr["w_min"]), {})[pr["scenario"]] = inst
    for scenarios in by_cell.values():
        assert scenarios[0].w.tolist() != scenarios[1].w.tolist()


def test_generate_paper_is_deterministic(paper):
    again = generate_paper(3, scenarios=1, trials=2, slots=50)
    assert [i.to_json() for i in again] == [i.to_json() for i in paper]
    other = generate_paper(4, scenarios=1, trials=2, slots=50)
    pairs = list(zip(paper, other, strict=True))
    assert sum(not np.array_equal(a.availability, b.availability) for a, b in pairs) >= 100
    assert sum(a.w.tolist() != b.w.tolist() for a, b in pairs) >= 50


def test_generate_paper_json_round_trip(paper):
    for inst in paper:
        again = round_trip(inst)
        assert again.to_json()["data"]["mu"] == [None] * 20
        assert np.array_equal(again.availability, inst.availability)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"scenarios": 0}, "scenarios: must be an integer >= 1"),
        ({"scenarios": 1.5}, "scenarios: must be an integer >= 1"),
        ({"trials": 0}, "trials: must be an integer >= 1"),
        ({"trials": True}, "trials: must be an integer >= 1"),
        ({"slots": 0}, "slots: must be an integer >= 1"),
        ({"slots": "50"}, "slots: must be an integer >= 1"),
        ({"seed": -1}, "seed: must be a non-negative integer"),
        ({"seed": 1.0}, "seed: must be a non-negative integer"),
        ({"seed": None}, "seed: must be a non-negative integer"),
    ],
)
def test_generate_paper_rejects_bad_parameters(kwargs, fragment):
    args = {"seed": 0, "scenarios": 1, "trials": 1, "slots": 5}
    args.update(kwargs)
    with pytest.raises(InputError) as info:
        generate_paper(**args)
    assert str(info.value).startswith(fragment), str(info.value)


# ---------------------------------------------------------------------------
# CLI: volsched generate coupled --preset paper|encd|edgelist


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_input_error(code: int, out: str, err: str, fragment: str) -> None:
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("volsched: error: "), err
    assert fragment in lines[0], (fragment, lines[0])


def test_cli_paper_writes_one_file_per_instance(capsys, tmp_path):
    out_dir = tmp_path / "paper"
    code, out, err = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "paper",
        "--scenarios",
        1,
        "--trials",
        1,
        "--slots",
        40,
        "--out",
        out_dir,
        "--json",
    )
    assert code == 0, err
    summary = json.loads(out)  # exactly one JSON document
    assert summary == {"family": "coupled", "out": str(out_dir), "instances": 60}
    files = sorted(out_dir.iterdir())
    assert len(files) == 60 and all(f.suffix == ".json" for f in files)
    expected = {inst.name: inst.to_json() for inst in generate_paper(0, 1, 1, 40)}  # default seed 0
    for f in files:
        obj = read_json(f)
        inst = CoupledInstance.from_json(obj)
        assert f.name == f"{inst.name}.json"
        assert (inst.p, inst.horizon, inst.K) == (20, 40, 10)
        assert obj == expected[inst.name]
    assert len(expected) == 60


def test_cli_paper_without_dir_exits_2(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "paper",
        "--scenarios",
        1,
        "--trials",
        1,
        "--slots",
        5,
        "--json",
    )
    assert_input_error(code, out, err, "--dir")
    assert list(tmp_path.iterdir()) == []


def test_cli_paper_dir_is_an_existing_file(capsys, tmp_path):
    target = tmp_path / "taken.json"
    target.write_text("keep me")
    code, out, err = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "paper",
        "--scenarios",
        1,
        "--trials",
        1,
        "--slots",
        5,
        "--dir",
        target,
    )
    assert_input_error(code, out, err, "--dir")
    assert target.read_text() == "keep me"
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--scenarios", "0"], "scenarios: must be an integer >= 1"),
        (["--trials", "0"], "trials: must be an integer >= 1"),
        (["--slots", "0"], "slots: must be an integer >= 1"),
        (["--seed", "-1"], "--seed: must be an integer >= 0"),
    ],
)
def test_cli_paper_bad_arguments_write_nothing(capsys, tmp_path, extra, fragment):
    out_dir = tmp_path / "paper"
    code, out, err = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "paper",
        "--scenarios",
        1,
        "--trials",
        1,
        "--slots",
        5,
        *extra,
        "--out",
        out_dir,
    )
    assert_input_error(code, out, err, fragment)
    assert not out_dir.exists()


# A graph without a 2 x 2 biclique (rows {0,1}, {1,2}, {2}) and the same plus edge (2, 1): rows 1, 2
# then share slots {1, 2}.
ZIGZAG = [[1, 1, 0], [0, 1, 1], [0, 0, 1]]
ZIGZAG_PLUS = [[1, 1, 0], [0, 1, 1], [0, 1, 1]]


def _encd_graphs():
    cases = [("zigzag", ZIGZAG), ("zigzag-plus", ZIGZAG_PLUS)]
    for seed in range(4):
        rng = np.random.default_rng(100 + seed)
        cases.append((f"random{seed}", (rng.random((4, 4)) < 0.45).astype(int).tolist()))
    return cases


@pytest.mark.parametrize("name, matrix", _encd_graphs(), ids=[c[0] for c in _encd_graphs()])
def test_cli_encd_decision_iff_2x2_biclique(capsys, tmp_path, name, matrix):
    up = np.asarray(matrix, dtype=bool)
    if not up.any():
        up[0, 0] = True  # the reader needs an edge
    graph_file = write(tmp_path / f"{name}.txt", edgelist_text(up))
    inst_file = tmp_path / "encd.json"
    code, _, err = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "encd",
        "--file",
        graph_file,
        "--a",
        2,
        "--b",
        2,
        "--out",
        inst_file,
    )
    assert code == 0, err
    inst = CoupledInstance.from_json(read_json(inst_file))
    assert inst.up.tolist() == up.tolist() and inst.m == 2 and inst.w.tolist() == [2] * up.shape[0]

    rows, cols = range(up.shape[0]), range(up.shape[1])
    biclique = any(
        up[np.ix_(list(r), list(c))].all()
        for r in itertools.combinations(rows, 2)
        for c in itertools.combinations(cols, 2)
    )
    if name == "zigzag":
        assert not biclique
    if name == "zigzag-plus":
        assert biclique
    code, out, err = run(capsys, "solve", inst_file, "--method", "brute", "--json")
    assert code == 0, err
    decision = json.loads(out)["solution"]["decision"]
    assert decision == {"w": 2, "iteration_fits": biclique}


def test_cli_encd_mu_inf(capsys, tmp_path):
    graph_file = write(tmp_path / "g.txt", edgelist_text(ZIGZAG_PLUS))
    inst_file = tmp_path / "encd.json"
    code, _, err = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "encd",
        "--file",
        graph_file,
        "--a",
        2,
        "--b",
        2,
        "--mu",
        "inf",
        "--out",
        inst_file,
    )
    assert code == 0, err
    obj = read_json(inst_file)
    assert obj["data"]["mu"] == [None, None, None]
    inst = CoupledInstance.from_json(obj)
    assert (inst.horizon, int(inst.w[0]), inst.m) == (7, 6, 2)
    assert flexible_iteration_fits(inst.up, 2, 6)


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--a", "2", "--b", "2"], "--file"),
        (["--file", "{graph}"], "--a"),
        (["--file", "{graph}", "--a", "2"], "--b"),
        (["--file", "{graph}", "--b", "2"], "--a"),
        (["--file", "{graph}", "--a", "4", "--b", "1"], "a: must be in [1, |V| = 3], got 4"),
        (["--file", "{missing}", "--a", "1", "--b", "1"], "no such file"),
    ],
)
def test_cli_encd_missing_options_exit_2(capsys, tmp_path, extra, fragment):
    graph_file = write(tmp_path / "g.txt", edgelist_text(ZIGZAG))
    extra = [e.format(graph=graph_file, missing=tmp_path / "missing.txt") for e in extra]
    out_file = tmp_path / "encd.json"
    code, out, err = run(capsys, "generate", "coupled", "--preset", "encd", *extra, "--out", out_file)
    assert_input_error(code, out, err, fragment)
    assert not out_file.exists()


def test_cli_edgelist_preset(capsys, tmp_path):
    graph_file = write(tmp_path / "small.txt", SMALL)
    code, out, err = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "edgelist",
        "--file",
        graph_file,
        "--tasks",
        2,
        "--transpose",
        "--json",
    )
    assert code == 0, err
    inst = CoupledInstance.from_json(json.loads(out))
    assert inst.up.tolist() == np.asarray(SMALL_UP).T.tolist() and inst.m == 2
    code, out, err = run(capsys, "generate", "coupled", "--preset", "edgelist", "--tasks", 2)
    assert_input_error(code, out, err, "--file")


def test_paper_realization_refuses_a_w_min_no_run_can_finish_within_the_cap():
    # K = 10 iterations need T_prog + K (T_data + w_min) = 25 w_min slots (Section VII-A's
    # T_prog = 5 w_min, T_data = w_min), so the paper's cap of 10^6 slots admits w_min <= 40,000.
    last = model.PAPER_CAP // 25
    assert model.paper_realization(5, 5, last, 0, 0, slots=10).T_data == last
    with pytest.raises(InputError, match=r"^w_min: at most 40,000, got 40,001"):
        model.paper_realization(5, 5, last + 1, 0, 0, slots=10)


def test_generate_refuses_a_w_min_beyond_the_cap_in_one_line(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(
        ["generate", "coupled", "--preset", "paper-realization", "--w-min", "1000000", "--out", str(out)]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("volsched: error: --w-min: at most 40,000") and err.count("\n") == 1
    assert not out.exists()
