"""GAPS(beta) (Algorithm 1) and the LPT / list baselines: hand traces, the literal oracle, the verifier."""

import numpy as np
import pytest
from hypothesis import given, settings
from oracles.registry import limits
from oracles.slack.gaps import gaps_reference
from oracles.slack.heuristics import instances, random_instance

from volsched.heuristics.slack import gaps, list_schedule, lpt, plain_list
from volsched.instances.errors import InputError
from volsched.instances.slack import SlackInstance
from volsched.solvers import Infeasible
from volsched.solvers.slack.verify import verify_plain, verify_slack

BETAS = [i / 10 for i in range(11)]


def pairs(schedule):
    return [[int(i), int(t)] for i, t in zip(schedule.machine, schedule.start, strict=True)]


def slack_solution(schedule):
    return {"problem": "slack", **schedule.to_solution()}


# --- hand traces of Algorithm 1 ----------------------------------------------------------------------


def test_line7_skips_the_job_and_goes_on():
    """slack.md 6.1 scaled by 2: one interval a = 10, e = 11, lambda = 1, jobs {12, 10}, beta = 0.

    Line 7 for 12: e = 11 <= (22 - 12) / 1 = 10 fails: 12 is skipped. For 10: 11 <= 22 - 10 = 12 holds;
    line 8: 10 - 0 - 10 = 0 >= 0 * 10: 10 goes in the interval. 12 on the free machine: C_max = 12 >= e.
    (Stopping at the first failure, the prose's reading, would put both on the free machine: 22.)
    """
    inst = SlackInstance(machines=[[[10, 11]], []], p=[12, 10], beta=0.0)
    for algo in (gaps, gaps_reference):
        assert pairs(algo(inst)) == [[1, 0], [0, 0]]
    assert verify_slack(inst, slack_solution(gaps(inst))) == 12


def test_line8_the_first_job_leaves_its_own_slack():
    """slack.md 6, line 8: one interval a = 10, e = 11, lambda = 1, jobs {30, 8}, beta = 1.

    30 fails line 7 (11 > 38 - 30). 8 passes line 7 (11 <= 30) but line 8 with the max over pi U {j}:
    10 - 0 - 8 = 2 < 1 * 8. Both on the free machine, 30 then 8: C_max = 38. (The literal empty max
    would accept 8 with slack 2 < 8, a schedule the slack rule rejects.)
    """
    inst = SlackInstance(machines=[[[10, 11]], []], p=[30, 8], beta=1.0)
    for algo in (gaps, gaps_reference):
        assert pairs(algo(inst)) == [[1, 0], [1, 30]]
    literal = {"problem": "slack", "beta": 1.0, "schedule": [[1, 0], [0, 0]]}
    with pytest.raises(Infeasible, match="slack rule"):
        verify_slack(inst, literal)


def test_two_machines_traced_line_by_line():
    """Machine 0: intervals (a=6, e=7), (a=6, e=14); machine 1: (a=8, e=10); machine 2 free; beta = 0.5.

    Jobs p = [3, 4, 2, 2, 5, 1], line 2 order j4(5) j1(4) j0(3) j2(2) j3(2) j5(1), sum 17.
    Line 1 order: (0,0) e=7, (1,0) e=10, (0,1) e=14.
    (0,0): j4 line 7: 7 <= 12 ok; line 8: 6 - 5 = 1 < 0.5 * 5: no (first-job slack).
           j1: 7 <= 13; 6 - 4 = 2 >= 0.5 * 4: in (M = 4, sum S = 13).
           j0: 6 - 4 - 3 < 0; j2, j3: 6 - 4 - 2 = 0 < 2; j5: 6 - 4 - 1 = 1 < 2: no.
    (1,0): j4 line 7: 10 <= 13 - 5 = 8 fails: skipped (line 7), the scan goes on.
           j0: 10 <= 10; 8 - 3 = 5 >= 1.5: in (sum S = 10). j2: 10 <= 8 fails; j3 too; j5: 10 <= 9 fails.
    (0,1): line 7 fails for every job (14 > 10 - 1).
    Line 15, LPT on machine 2: j4 [0,5), j2 [5,7), j3 [7,9), j5 [9,10): C_max = 10 >= e = 10 and 7.
    """
    inst = SlackInstance(machines=[[[6, 7], [13, 14]], [[8, 10]], []], p=[3, 4, 2, 2, 5, 1], beta=0.5)
    expect = [[1, 0], [0, 0], [2, 5], [2, 7], [2, 0], [2, 9]]
    for algo in (gaps, gaps_reference):
        assert pairs(algo(inst)) == expect
    assert verify_slack(inst, slack_solution(gaps(inst))) == 10


def test_beta_zero_fills_the_interval_and_a_later_interval_starts_at_its_e():
    """Same machines at beta = 0: (0,0) takes j4 (6 - 5 = 1 >= 0) then j5 (6 - 5 - 1 = 0 >= 0), sum S = 11;
    (1,0): line 7 fails for j1 (10 > 7), j0 (10 > 8), j2 and j3 (10 > 9); LPT: j1 [0,4) j0 [4,7)
    j2 [7,9) j3 [9,11). And an interval k = 1 starts at e^0: machine [[1,2],[8,9]], jobs [4, 2, 5]:
    (0,0) has a = 1 < every p; (0,1) (a = 6, e = 9): 5 fails line 7 (9 > 11 - 5), 4 too (9 > 7),
    2 passes (9 <= 9) and runs from e^0 = 2; LPT: 5 [0,5), 4 [5,9): C_max = 9 = e^1.
    """
    inst = SlackInstance(machines=[[[6, 7], [13, 14]], [[8, 10]], []], p=[3, 4, 2, 2, 5, 1], beta=0.0)
    for algo in (gaps, gaps_reference):
        assert pairs(algo(inst)) == [[2, 4], [2, 0], [2, 7], [2, 9], [0, 0], [0, 5]]
    inst = SlackInstance(machines=[[[1, 2], [8, 9]], []], p=[4, 2, 5], beta=0.0)
    for algo in (gaps, gaps_reference):
        assert pairs(algo(inst)) == [[1, 5], [0, 2], [1, 0]]
    assert verify_slack(inst, slack_solution(gaps(inst))) == 9


def test_ties_intervals_by_machine_and_jobs_by_index():
    # two identical intervals ending at 5 on machines 0 and 1: machine 0 is filled first; equal jobs by index
    inst = SlackInstance(machines=[[[4, 5]], [[4, 5]], []], p=[2, 2, 2, 9], beta=0.0)
    for algo in (gaps, gaps_reference):
        assert pairs(algo(inst)) == [[0, 0], [0, 2], [1, 0], [2, 0]]


def test_beta_argument_overrides_the_instance():
    inst = SlackInstance(machines=[[[6, 7], [13, 14]], [[8, 10]], []], p=[3, 4, 2, 2, 5, 1], beta=0.0)
    assert pairs(gaps(inst, beta=0.5)) == pairs(gaps(inst.with_beta(0.5)))
    assert gaps(inst, beta=0.5).beta == 0.5


def test_gaps_needs_a_free_machine():
    inst = SlackInstance(machines=[[[10, 11]]], p=[3], beta=1.0)
    for algo in (gaps, gaps_reference):
        with pytest.raises(InputError, match="free machine"):
            algo(inst)
    # the baselines are defined without one (the tail after the last interval takes every job)
    assert verify_plain(inst, {"problem": "plain", **lpt(inst).to_solution()}) == 3


# --- the literal oracle and the verifier --------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(instances())
def test_gaps_equals_the_literal_algorithm(inst):
    assert pairs(gaps(inst)) == pairs(gaps_reference(inst))


@settings(max_examples=150, deadline=None)
@given(instances(beta=0.0))
def test_gaps_is_accepted_by_the_verifier_at_every_beta(inst):
    for b in BETAS:
        sched = gaps(inst, beta=b)
        sol = slack_solution(sched)
        assert sol["beta"] == b
        assert verify_slack(inst, sol) == sched.makespan(inst.p)


@pytest.mark.parametrize("seed", range(6))
def test_gaps_equals_the_literal_algorithm_on_larger_instances(seed):
    rng = np.random.default_rng(seed)
    inst = random_instance(rng, busy=12, free=3, n=120, k=8, beta=[0.0, 0.3, 0.7, 1.0][seed % 4])
    ref = gaps_reference(inst)
    got = gaps(inst)
    assert pairs(got) == pairs(ref)
    assert verify_slack(inst, slack_solution(got)) == got.makespan(inst.p)


# --- baselines ----------------------------------------------------------------------------------------


def earliest_start_reference(inst, order):
    """List scheduling the long way: every machine, every period, append after the machine's last job."""
    m = inst.m
    cur = [0] * m
    out = [None] * inst.n
    for j in order:
        pj = int(inst.p[j])
        best = None
        for i in range(m):
            s, e = inst.s(i).tolist(), inst.e(i).tolist()
            t = cur[i]
            for k in range(len(s) + 1):
                begin = e[k - 1] if k > 0 else 0
                end = s[k] if k < len(s) else None
                t0 = max(t, begin)
                if end is None or t0 + pj <= end:
                    break
            if best is None or t0 < best[0]:
                best = (t0, i)
        out[j] = [best[1], best[0]]
        cur[best[1]] = best[0] + pj
    return out


@settings(max_examples=200, deadline=None)
@given(instances(min_free=0))
def test_baselines_are_earliest_start_list_scheduling(inst):
    order = np.argsort(-inst.p, kind="stable")
    assert pairs(lpt(inst)) == earliest_start_reference(inst, order.tolist())
    assert pairs(plain_list(inst)) == earliest_start_reference(inst, list(range(inst.n)))
    for sched in (lpt(inst), plain_list(inst)):
        assert sched.beta is None
        assert verify_plain(inst, {"problem": "plain", **sched.to_solution()}) == sched.makespan(inst.p)


@pytest.mark.parametrize("seed", range(4))
def test_baselines_on_larger_instances(seed):
    inst = random_instance(np.random.default_rng(seed), busy=10, free=seed % 3, n=80, k=6)
    for order in (np.argsort(-inst.p, kind="stable"), np.random.default_rng(seed).permutation(inst.n)):
        assert pairs(list_schedule(inst, order)) == earliest_start_reference(inst, order.tolist())


def test_lpt_hand_example():
    # machine 0: [0,10) [12,20) then for ever; machine 1 free. LPT order 25, 6, 4, 3:
    # 25 -> machine 1 at 0 (machine 0 only at 25); 6 -> machine 0 at 0; 4 -> machine 0 at 6 (ends 10 <= 10);
    # 3 -> machine 0 at 12 (10 + 3 > 10) rather than machine 1 at 25.
    inst = SlackInstance(machines=[[[10, 12], [20, 25]], []], p=[6, 3, 4, 25])
    assert pairs(lpt(inst)) == [[0, 0], [0, 12], [0, 6], [1, 0]]
    # list order 6, 3, 4, 25: 6 -> m0 0; 3 -> m1 0 (earlier than m0 at 6); 4 -> m1 3; 25 -> m1 7
    assert pairs(plain_list(inst)) == [[0, 0], [1, 0], [1, 3], [1, 7]]


# --- against the exact side (another helper's code: a cross-check of both) ---------------------------


@settings(max_examples=100, deadline=None)
@given(instances())
def test_heuristics_are_never_below_the_lower_bounds(inst):
    from volsched.solvers.slack.bound import lower_bound

    plain = lower_bound(inst, "plain")
    assert gaps(inst).makespan(inst.p) >= lower_bound(inst, "slack") >= plain
    assert min(lpt(inst).makespan(inst.p), plain_list(inst).makespan(inst.p)) >= plain


@pytest.mark.parametrize("seed", range(8))
def test_heuristics_are_never_below_the_proven_optimum(seed):
    from volsched.solvers.slack import PROBLEMS, solve

    inst = random_instance(
        np.random.default_rng(100 + seed),
        busy=2,
        free=1,
        n=6,
        k=3,
        a_hi=14,
        u_hi=4,
        p_hi=6,
        beta=[0.0, 0.5, 1.0][seed % 3],
    )
    slack, plain = (
        solve(inst, problem=p, method=m, **limits("slack", p, m))
        for p, m in ((p, PROBLEMS[p].default_method) for p in ("slack", "plain"))
    )
    assert (slack.status.value, plain.status.value) == ("optimal", "optimal")
    assert gaps(inst).makespan(inst.p) >= slack.objective
    assert min(lpt(inst).makespan(inst.p), plain_list(inst).makespan(inst.p)) >= plain.objective


def test_a_beta_with_a_long_decimal_is_exact():
    # beta = 0.123456789012345 has den = 10^15: a * den overflows int64; the tests stay exact in Python ints
    rng = np.random.default_rng(9)
    inst = random_instance(
        rng, busy=6, free=2, n=50, k=6, a_hi=10**6, u_hi=1000, p_hi=10**5, beta=0.123456789012345
    )
    got = gaps(inst)
    assert pairs(got) == pairs(gaps_reference(inst))
    assert verify_slack(inst, slack_solution(got)) == got.makespan(inst.p)
