"""Exact slack-family methods (problems ``slack`` and ``plain``) against brute force, each other,
hand-derived optima and the 3-PARTITION construction of Theorem 1 (slack.md 4.3).

Every semantic test runs against every method the registry lists.
"""

import functools
import operator
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.cbc import PREPROCESSING_STOPPED_LOG, fake_cbc
from oracles.registry import SAFETY_NET_S, limits, registered_methods, work_budget
from oracles.slack.exact import brute, falkenauer, random_instance, three_partition

from volsched.instances.errors import InputError
from volsched.instances.slack import SlackInstance
from volsched.instances.slack.generators import generate_paper, generate_planted, generate_theorem2
from volsched.solvers import SolveStatus
from volsched.solvers.problem import Effort
from volsched.solvers.slack import PROBLEMS, cpsat_patterns, solve
from volsched.solvers.slack import cpsat as cpsat_module
from volsched.solvers.slack.cpsat import solve_at
from volsched.solvers.slack.milp import solve_milp
from volsched.solvers.slack.problems import greedy, makespan_of, schedule_of
from volsched.solvers.slack.verify import verify_plain, verify_slack

SLACK = registered_methods("slack", "slack")
PLAIN = registered_methods("slack", "plain")
BOTH = [("slack", m) for m in SLACK] + [("plain", m) for m in PLAIN]
FALKENAUER = Path("/work/shared/data/falkenauer_t")


def _value(result):
    """The optimum a result proves, ``None`` for a proven ``infeasible``; fails on anything else."""
    if result.status == SolveStatus.INFEASIBLE:
        return None
    assert result.status == SolveStatus.OPTIMAL, (result.status, result.info)
    assert result.verified
    assert result.bound == result.objective
    return int(result.objective)


def test_registry_has_both_problems_and_methods():
    assert set(PROBLEMS) == {"slack", "plain"}
    assert "cpsat" in SLACK and "milp" in SLACK and SLACK == PLAIN


# --- brute force -------------------------------------------------------------------------------


@pytest.mark.parametrize(("problem", "method"), BOTH)
def test_brute_force_on_tiny_random_instances(problem, method):
    nontrivial = 0
    for seed in range(150):
        inst = random_instance(np.random.default_rng(seed), n_max=5, free_min=int(seed % 4 != 0))
        expected = brute(inst, problem)
        result = solve(inst, method=method, problem=problem)
        assert _value(result) == expected, (seed, inst.to_json(), result.info)
        schedule = result.solution.get("schedule") or []
        if any(len(inst.machines[i]) and t < int(inst.machines[i][-1][1]) for i, t in schedule):
            nontrivial += 1
    assert nontrivial >= 10  # the instances do put jobs in intervals


def test_count_model_fallback_agrees_with_brute_force(monkeypatch):
    monkeypatch.setattr(cpsat_patterns, "MAX_NODES", 0)
    for seed in range(40):
        inst = random_instance(np.random.default_rng(100 + seed), n_max=5, free_min=1)
        for problem in ("slack", "plain"):
            result = solve(inst, method="cpsat", problem=problem)
            assert _value(result) == brute(inst, problem), (seed, problem, inst.to_json())
            for phase in result.info["phases"]:
                assert phase.get("patterns", 0) == 0


# --- cross-method agreement ----------------------------------------------------------------------


@pytest.mark.parametrize("problem", ["slack", "plain"])
def test_methods_agree_on_seeded_random_instances(problem):
    methods = registered_methods("slack", problem)
    for seed in range(25):
        inst = random_instance(
            np.random.default_rng(2000 + seed),
            n_max=11,
            machines_max=4,
            intervals_max=3,
            p_max=10,
            a_max=20,
            free_min=1,
            betas=(0.0, 0.1, 0.5, 0.7, 1.0),
        )
        values = {
            m: _value(solve(inst, method=m, problem=problem, **limits("slack", problem, m))) for m in methods
        }
        assert len(set(values.values())) == 1, (seed, values, inst.to_json())


# --- hand-derived optima ---------------------------------------------------------------------------


def _inst(machines, p, beta=1.0):
    return SlackInstance(machines=machines, p=p, beta=beta)


@pytest.mark.parametrize(("problem", "method"), BOTH)
def test_last_period_rule_needs_the_makespan_on_a_free_machine(problem, method):
    # One interval [0, 10) closed at e = 11 and a free machine; jobs 10, 10. Slack: a job in the
    # interval needs C_max >= 11 but the free machine then ends at 10, so both go to the free
    # machine (20). Plain: one each, 10.
    inst = _inst([[[10, 11]], []], [10, 10], beta=0.0)
    assert _value(solve(inst, method=method, problem=problem)) == (20 if problem == "slack" else 10)


@pytest.mark.parametrize("method", SLACK)
def test_line7_example_of_the_reading(method):
    # slack.md 6.1 in integers: a = 5, e = 6, jobs 6 and 5, beta = 0: 5 in the interval, 6 free.
    inst = _inst([[[5, 6]], []], [6, 5], beta=0.0)
    assert _value(solve(inst, method=method, problem="slack")) == 6


@pytest.mark.parametrize("method", SLACK)
@pytest.mark.parametrize(("beta", "expected"), [(0.0, 30), (0.25, 30), (0.3, 38), (1.0, 38)])
def test_slack_rule_scales_with_beta(method, beta, expected):
    # slack.md 6 (line 8 example): a = 10, e = 11, jobs 8 and 30. Job 8 fits the interval iff
    # 10 - 8 >= beta * 8, i.e. beta <= 1/4 (read as a decimal: 0.25 fits exactly, 0.3 does not).
    inst = _inst([[[10, 11]], []], [8, 30], beta=beta)
    assert _value(solve(inst, method=method, problem="slack")) == expected


@pytest.mark.parametrize(("problem", "method"), BOTH)
@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0])
def test_no_free_machine(problem, method, beta):
    inst = _inst([[[5, 6]], [[4, 9]]], [3, 2], beta=beta)
    result = solve(inst, method=method, problem=problem)
    if problem == "slack":
        assert result.status == SolveStatus.INFEASIBLE
        assert "lambda = 0" in result.info["reason"]
        assert result.objective is None
    else:
        assert _value(result) == 3  # 3 in [0, 5) on machine 0, 2 in [0, 4) on machine 1


@pytest.mark.parametrize(("problem", "method"), BOTH)
def test_job_longer_than_every_availability_without_free_machine(problem, method):
    inst = _inst([[[5, 6], [9, 12]]], [7, 1])
    result = solve(inst, method=method, problem=problem)
    if problem == "slack":
        assert result.status == SolveStatus.INFEASIBLE
        assert "longer than every availability period" in result.info["reason"]
    else:
        assert _value(result) == 19  # the 7 waits for the tail after 12; the 1 goes in [0, 5)


@pytest.mark.parametrize(("problem", "method"), BOTH)
def test_combinatorial_bound_reported(problem, method):
    inst = _inst([[[5, 6]], []], [3, 4])
    result = solve(inst, method=method, problem=problem)
    assert "combinatorial_bound" in result.info


# --- 3-PARTITION (Theorem 1, completed as in slack.md 4.3) -----------------------------------------

YES = [4, 4, 4, 4, 5, 5]  # B = 13: {4, 4, 5} twice
NO = [4, 4, 4, 4, 4, 6]  # no triple sums to 13
TARGET = 3 * 13 + 2 + 1


@pytest.mark.parametrize("method", SLACK)
def test_three_partition_yes_reaches_the_target(method):
    inst = three_partition(YES, 13, later=0)
    assert brute(inst, "slack") == TARGET
    assert _value(solve(inst, method=method, problem="slack")) == TARGET


@pytest.mark.parametrize("method", SLACK)
def test_three_partition_no_is_above_the_target(method):
    inst = three_partition(NO, 13, later=0)
    expected = brute(inst, "slack")
    assert expected > TARGET
    assert _value(solve(inst, method=method, problem="slack")) == expected


@pytest.mark.parametrize("method", SLACK)
def test_three_partition_no_becomes_feasible_below_beta_one(method):
    # slack.md 4.3: at beta = 0.9 two B+1 jobs fit one interval (0.9 * 14 <= 13), the reduction breaks.
    inst = three_partition(NO, 13, later=0, beta=0.9)
    assert brute(inst, "slack") == TARGET
    assert _value(solve(inst, method=method, problem="slack")) == TARGET


@pytest.mark.parametrize("method", SLACK)
def test_planted_no_instance_at_falkenauer_scale(method):
    # B = 1003 and every element = 1 (mod 3): three elements never sum to B = 1 (mod 3). m = 3.
    elements = [334] * 8 + [337]
    assert sum(elements) == 3 * 1003
    inst = three_partition(elements, 1003)
    target = 3 * 1003 + 3
    result = solve(inst, method=method, problem="slack", **limits("slack", "slack", method))
    assert _value(result) > target


@pytest.mark.skipif(not FALKENAUER.is_dir(), reason="the Falkenauer T files are not in ../shared/data")
def test_falkenauer_t60_reaches_its_target():
    # cpsat only: the compact MILP is for small cases (its speed is not this test's subject).
    inst, target = falkenauer(FALKENAUER / "Falkenauer_t60_00.txt")
    result = solve(inst, method="cpsat", problem="slack")
    assert _value(result) == target


@pytest.mark.skipif(not FALKENAUER.is_dir(), reason="the Falkenauer T files are not in ../shared/data")
def test_falkenauer_t60_perturbed_is_proven_infeasible_at_the_target():
    # One element + 1: the elements sum to m B + 1, more than the m intervals can take beside their
    # B+1 jobs, and the free machine is full with the filler: no schedule reaches the target.
    inst, target = falkenauer(FALKENAUER / "Falkenauer_t60_00.txt")
    p = inst.p.copy()
    p[0] += 1
    bumped = SlackInstance(machines=inst.machines, p=p, beta=1.0)
    # The model of the cpsat method at one target, with that method's work budget: the same search
    # on every machine (one worker), the clock a safety net only.
    budget = work_budget("slack", "slack", "cpsat")
    status, contents, _, bound, _ = solve_at(
        bumped, "slack", target, target, SAFETY_NET_S, 0, 1, time.perf_counter(), budget=budget
    )
    assert status == "infeasible" and contents is None and bound == target + 1
    # the unperturbed instance at the same target: a schedule, verified
    status, contents, value, _, _ = solve_at(
        inst, "slack", target, target, SAFETY_NET_S, 0, 1, time.perf_counter(), budget=budget
    )
    assert status == "optimal" and value == target
    assert verify_slack(inst, {"schedule": schedule_of(inst, contents)}) == target


# --- invariants (hypothesis) -------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), method=st.sampled_from(SLACK))
def test_optimum_is_monotone_in_beta_and_above_the_plain_one(seed, method):
    # A schedule feasible at beta is feasible at every smaller beta, and every slack schedule is
    # a plain one; the beta-independent bound is below all of them.
    inst = random_instance(
        np.random.default_rng(seed), n_max=7, machines_max=3, intervals_max=3, p_max=9, a_max=18, free_min=1
    )
    plain = _value(solve(inst, method=method, problem="plain"))
    values = [_value(solve(inst.with_beta(b), method=method, problem="slack")) for b in (0.0, 0.4, 0.7, 1.0)]
    assert values == sorted(values)
    assert plain <= values[0]
    bound = solve(inst, method=method, problem="plain").info["combinatorial_bound"]
    assert bound is None or bound <= plain


# --- the generators' 3-PARTITION instances (instances.slack.generators) ------------------------------


@pytest.mark.parametrize("method", SLACK)
@pytest.mark.parametrize("groups", [2, 3])
def test_planted_three_partition_every_method(method, groups):
    for seed in range(2):
        yes = generate_planted(groups=groups, B=100, seed=seed, answer="yes")
        assert _value(solve(yes, method=method, **limits("slack", "slack", method))) == yes.target
        no = generate_planted(groups=groups, B=100, seed=seed, answer="no")  # certified NO
        assert _value(solve(no, method=method, **limits("slack", "slack", method))) > no.target


def test_planted_three_partition_larger_cpsat():
    # cpsat only: the compact MILP does not prove m = 4 NO instances within a minute.
    for answer in ("yes", "no"):
        inst = generate_planted(groups=10, B=1000, seed=0, answer=answer)
        value = _value(solve(inst, method="cpsat", **limits("slack", "slack", "cpsat")))
        assert value == inst.target if answer == "yes" else value > inst.target


# --- limits: what a method does when it cannot finish ---------------------------------------------


def test_time_limited_paper_instance_keeps_a_verified_schedule_and_a_bound():
    inst = generate_paper(20, 100, seed=1)
    for problem in ("slack", "plain"):
        result = solve(inst, method="cpsat", problem=problem, time_limit=3)
        assert result.status in (SolveStatus.FEASIBLE, SolveStatus.OPTIMAL)
        assert result.verified and result.bound is not None and result.bound <= result.objective


def test_model_too_large_leaves_the_target_unknown(monkeypatch):
    monkeypatch.setattr(cpsat_patterns, "MAX_NODES", 0)
    monkeypatch.setattr(cpsat_module, "MAX_COUNT_VARS", 0)
    from volsched.solvers.slack import problems as problems_module

    # the beta phases (cut, primal heuristic, column generation) prove this instance before CP-SAT
    monkeypatch.setattr(problems_module, "_beta_phases", lambda inst, best, hi, lo, *rest: (best, hi, lo))
    inst = SlackInstance(machines=[[[10, 11]], []], p=[8, 30, 3], beta=0.0)
    result = solve(inst, method="cpsat", problem="slack")
    assert result.status == SolveStatus.FEASIBLE  # the greedy schedule, not proven
    assert "would pass" in result.info["phases"][-1]["reason"]
    assert result.bound <= result.objective


def test_milp_refuses_a_large_instance_as_bad_input():
    inst = generate_paper(30, 400, seed=0)
    with pytest.raises(InputError, match="milp is the cross-check for small instances"):
        solve(inst, method="milp", problem="slack")


@pytest.mark.parametrize("problem", ["slack", "plain"])
def test_model_at_every_target_agrees_with_brute_force(problem):
    # The pattern pruning depends on the target T (forced jobs, open room, pigeonhole, work); the
    # model at T must have a schedule iff the optimum is <= T, and then find the optimum.
    checked = 0
    for seed in range(40):
        inst = random_instance(np.random.default_rng(7000 + seed), n_max=5, free_min=1)
        best = brute(inst, problem)
        for target in range(max(1, best - 4), best + 4):
            status, contents, value, _, _ = solve_at(
                inst, problem, 0, target, None, 0, 2, time.perf_counter()
            )
            if target < best:
                assert status == "infeasible", (seed, target, best, inst.to_json())
            else:
                assert status == "optimal" and value == best, (seed, target, best, status, inst.to_json())
                schedule = {"schedule": schedule_of(inst, contents)}
                verify = verify_slack if problem == "slack" else verify_plain
                assert verify(inst, schedule) == best
            checked += 1
    assert checked >= 300


# --- the search's incumbent -------------------------------------------------------------------


def test_incumbent_counts_a_later_longer_job_in_the_slack_rule():
    # a = 100 at beta = 1/2: the first job may be at most 66, so 10 is taken first; 80 then fits
    # beside it (100 - 10 - 5 >= 80) but, as the interval's longest job, needs 40 of slack, not 5.
    inst = SlackInstance(machines=[[[100, 101]], []], p=[200, 80, 10], beta=0.5, name="lead")
    contents = greedy(inst, "slack")
    verify_slack(inst, {"schedule": schedule_of(inst, contents)})
    assert sorted(functools.reduce(operator.iadd, contents["intervals"].values(), [])) == [2]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), beta=st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.7, 1.0]))
def test_incumbents_verify_at_every_beta(seed, beta):
    # The search returns its incumbent when time runs out, so it must meet both rules on its own.
    rng = np.random.default_rng(seed)
    for inst in (
        random_instance(rng, n_max=8, free_min=1).with_beta(beta),
        generate_paper(machines=12, jobs=60, seed=seed % 1000).with_beta(beta),
    ):
        for problem, check in (("slack", verify_slack), ("plain", verify_plain)):
            check(inst, {"schedule": schedule_of(inst, greedy(inst, problem))})


def test_incumbent_of_the_paper_size_instance_that_broke_it_verifies():
    # canon2011 at 300 x 3,000, seed 0, beta = 0.5: the verifier rejected the time-limited search's
    # incumbent (an interval's slack counted against its first job, not its longest).
    inst = generate_paper(machines=300, jobs=3000, seed=0).with_beta(0.5)
    verify_slack(inst, {"schedule": schedule_of(inst, greedy(inst, "slack"))})


# --- milp: a proof only from a CBC search that finished -----------------------------------------


def test_milp_proves_nothing_when_the_time_limit_cuts_cbc_preprocessing(tmp_path, monkeypatch):
    # CBC 2.10.3, stopped by its time limit in the pre-processing, logs "Pre-processing says
    # infeasible" and writes "Integer infeasible": PuLP reads "Infeasible", and the cutoff model
    # C <= greedy - 1 was taken as proof that nothing beats the greedy (replayed by a stand-in CBC).
    inst = SlackInstance(machines=[[], [[12, 14], [24, 28]]], p=[8, 8, 6, 6], beta=0.0, name="beaten-greedy")
    optimum = brute(inst, "slack")
    incumbent = max(t + int(inst.p[j]) for j, (_, t) in enumerate(schedule_of(inst, greedy(inst, "slack"))))
    assert incumbent > optimum
    fake_cbc(monkeypatch, tmp_path, PREPROCESSING_STOPPED_LOG, "Integer infeasible - objective value 0.0")
    result = solve(inst, method="milp", problem="slack", time_limit=0.2)
    assert result.status == SolveStatus.FEASIBLE and result.verified
    assert result.objective == incumbent
    assert result.bound <= optimum
    assert result.stopped == "wall clock"


def test_milp_node_budget_stops_unproven_and_the_same_way_twice():
    # theorem2 4 x 16, seed 2: CBC's root does not close the cutoff model (greedy 31, optimum 27).
    inst = generate_theorem2(4, 16, 2)
    optimum = _value(solve(inst, method="cpsat", problem="slack"))
    hi = makespan_of(inst, greedy(inst, "slack"))
    runs = []
    for _ in range(2):
        effort = Effort()
        contents, value, bound, proven, info = solve_milp(inst, "slack", hi, max_nodes=0, effort=effort)
        assert info["cbc_result"] == "Stopped on node limit"
        assert not proven and bound is None and effort.stopped == "budget"
        assert contents is None or makespan_of(inst, contents) >= optimum
        runs.append((contents, value, info, effort))
    assert runs[0] == runs[1]
    contents, value, bound, proven, info = solve_milp(inst, "slack", hi)
    assert proven and value == bound == optimum == makespan_of(inst, contents)


REPRO = Path(__file__).resolve().parents[3] / "shared/data/repro/slack-t60_00-milp-false-optimal.json"


@pytest.mark.skipif(not REPRO.is_file(), reason="the shared repro inputs are not in ../shared/data")
@pytest.mark.parametrize("time_limit", [0.01, 0.05])
def test_milp_on_the_shared_repro_keeps_the_greedy_unproven_under_a_short_limit(time_limit):
    # The model takes longer to build than the limit: milp stops before CBC, with the greedy
    # schedule and the combinatorial bound, never "optimal" above the optimum cpsat proves.
    from volsched.families import FAMILIES
    from volsched.instances.io import read_json

    inst = FAMILIES["slack"].load(read_json(REPRO))
    optimum = _value(solve(inst, method="cpsat", problem="slack"))
    result = solve(inst, method="milp", problem="slack", time_limit=time_limit)
    if result.status == SolveStatus.OPTIMAL:
        assert result.objective == optimum
    else:
        assert result.status == SolveStatus.FEASIBLE and result.verified
        assert result.objective == makespan_of(inst, greedy(inst, "slack")) > optimum
        assert result.bound <= optimum and result.stopped == "wall clock"
