"""The checkpoint DP on the reachable overheads only, and the exact methods' memory budget.

A valid job may have checkpoint costs up to 10^9 quanta: the DP indexes its
arrays by the subset sums of the costs, not by the range ``0 .. sum c``, and a
job whose states do not fit :data:`states.MEMORY_BUDGET` is bad input (exit 2).
"""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest
from oracles.cli import assert_input_error, run

from volsched.instances.checkpoint import CheckpointInstance, generate
from volsched.instances.errors import InputError
from volsched.instances.laws import Exponential, HyperExponential, LogNormal, Weibull
from volsched.solvers.checkpoint import METHODS, dp, solve, states
from volsched.solvers.checkpoint.dp import solve_dp

HUGE_FIRST = [10**9, 1, 1, 1, 1, 1]


def _close(x, y, rel=1e-9):
    return abs(x - y) <= rel * max(abs(x), abs(y))


def _huge_first_job() -> CheckpointInstance:
    inst = generate(6, 1)
    return CheckpointInstance(p=inst.p, c=HUGE_FIRST, alpha=inst.alpha, law=inst.law, name="huge-c")


def test_a_checkpoint_cost_of_a_billion_quanta_is_solved_by_every_method():
    inst = _huge_first_job()
    # U = {0..4} and {10^9 .. 10^9 + 4}: ten columns, not 10^9.
    assert states.reachable_overheads(inst, "dp").tolist() == [0, 1, 2, 3, 4] + [10**9 + k for k in range(5)]
    tracemalloc.start()
    try:
        res = solve(inst, "dp")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2**25, peak  # kilobytes of arrays (7.45 GiB before)
    others = {m: solve(inst, m) for m in ("graph", "brute")}
    for m, other in others.items():
        assert res.solution["a"] == other.solution["a"], m
        assert _close(res.objective, other.objective), (m, res.objective, other.objective)
    assert res.status.value == "optimal" and res.verified


def _law(rng, work):
    kind = rng.integers(4)
    scale = work * float(rng.uniform(0.2, 5.0))
    if kind == 0:
        return Exponential(rate=1.0 / scale)
    if kind == 1:
        return Weibull(shape=float(rng.uniform(0.4, 3.0)), scale=scale)
    if kind == 2:
        return LogNormal(mu=float(np.log(scale)), sigma=float(rng.uniform(0.3, 2.0)))
    return HyperExponential(probs=[0.7, 0.3], rates=[1.0 / scale, 10.0 / scale])


def _mixed_job(seed: int) -> CheckpointInstance:
    """n <= 12 slices; one to three checkpoint costs of 10^5..10^9 quanta among costs of 1..9."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 13))
    p = rng.integers(1, 31, n)
    c = rng.integers(1, 10, n)
    huge = rng.choice(n, size=min(n, int(rng.integers(1, 4))), replace=False)
    c[huge] = rng.integers(10**5, 10**9 + 1, len(huge))
    # The law's scale is the small part of the job (placement matters there) or the whole job.
    work = int(p.sum()) if seed % 2 else int(p.sum() + c.sum())
    alpha = 1.0 if seed % 3 == 0 else float(rng.uniform(0.05, 1.0))
    law = _law(rng, work)
    try:
        return CheckpointInstance(p=p, c=c, alpha=alpha, law=law, name=f"mixed-{seed}")
    except InputError:  # a light-tailed law on the whole job's scale that cannot fail in time
        return CheckpointInstance(p=p, c=c, alpha=alpha, law=Exponential(rate=1.0 / work), name="mixed")


@pytest.mark.parametrize("seed", range(40))
def test_dp_equals_graph_and_brute_with_a_few_huge_costs(seed):
    inst = _mixed_job(seed)
    results = {m: solve(inst, m) for m in METHODS}
    oracle = results["brute"].objective
    for m, res in results.items():
        assert res.verified and res.status.value == "optimal", m
        assert _close(res.objective, oracle), (m, res.objective, oracle)
        assert _close(inst.expected_waste(res.solution["a"]), oracle), m


@pytest.mark.parametrize("seed", range(20))
def test_compressed_columns_give_the_dense_result(monkeypatch, seed):
    # Small costs: U is (nearly) the whole range and the DP indexes by value. Forced onto the
    # compressed index (and row-by-row law evaluation), it returns the same vector and waste.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    p, c = rng.integers(1, 31, n), rng.integers(1, 10, n)
    inst = CheckpointInstance(
        p=p, c=c, alpha=float(rng.uniform(0.1, 1.0)), law=_law(rng, int(p.sum() + c.sum()))
    )
    a_dense, v_dense = solve_dp(inst)
    monkeypatch.setattr(dp, "DENSE_RATIO", 0)
    a_sparse, v_sparse = solve_dp(inst)
    assert a_sparse.tolist() == a_dense.tolist() and v_sparse == v_dense


def _powers_of_two_job(n: int = 60) -> CheckpointInstance:
    """Distinct costs 2^0 .. 2^29 (twice): U is every integer up to 2^31 - 2."""
    c = [2 ** (k % 30) for k in range(n)]
    return CheckpointInstance(p=[10] * n, c=c, alpha=1.0, law=Weibull(shape=0.7, scale=5e8), name="pow2")


@pytest.mark.parametrize("method", ["dp", "graph"])
def test_a_job_beyond_the_memory_budget_is_refused_before_allocating(method):
    inst = _powers_of_two_job()
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="too large for an exact method") as info:
            solve(inst, method)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < states.MEMORY_BUDGET / 8, peak  # U's growth stopped early
    assert "GiB" in str(info.value) and "2 GiB" in str(info.value)
    if method == "dp":
        assert "n x |U| = 60 x at least" in str(info.value)


def test_the_refusal_exits_2_on_the_command_line_and_writes_nothing(capsys, tmp_path):
    job, out = tmp_path / "job.json", tmp_path / "result.json"
    job.write_text(json.dumps(_powers_of_two_job().to_json()))
    for method in ("dp", "graph"):
        code, stdout, err = run(capsys, "solve", job, "--method", method, "--out", out)
        assert_input_error(code, err, f"method: {method} needs at least")
        assert stdout == "" and not out.exists()
    code, stdout, err = run(capsys, "solve", job, "--json", "--out", out)
    assert_input_error(code, err, "too large for an exact method")
    assert stdout == "" and not out.exists()


def test_the_refusal_names_a_method_that_still_fits(monkeypatch):
    # 16 distinct large costs: 2^15 sigmas. Under a 1 MiB budget neither dp nor graph fits; brute does.
    inst = CheckpointInstance(
        p=[10] * 16, c=[1000 * 2**k for k in range(16)], alpha=1.0, law=Weibull(shape=0.7, scale=1e7)
    )
    monkeypatch.setattr(states, "MEMORY_BUDGET", 2**20)
    with pytest.raises(InputError, match=r"use --method brute\)$"):
        solve(inst, "dp")
    assert solve(inst, "brute").status.value == "optimal"
    # With a graph that costs (pretend) one byte an edge, graph fits and is named.
    monkeypatch.setattr(states, "GRAPH_BYTES_PER_EDGE", 1)
    with pytest.raises(InputError, match=r"use --method graph\)$"):
        solve(inst, "dp")


def test_the_default_budget_still_takes_the_usual_jobs():
    # The paper's largest jobs the generator makes by default sizes: well inside the budget.
    inst = generate(200, 0)
    columns = len(states.reachable_overheads(inst, "dp"))
    assert states.dp_bytes(inst.n, columns) < states.MEMORY_BUDGET / 10
    assert solve(inst, "dp").status.value == "optimal"
