"""The slack verifier: hand-derived schedules accepted, each rule violated on its own rejected."""

import pytest

from volsched.instances.slack import SlackInstance
from volsched.solvers import Infeasible
from volsched.solvers.slack.verify import verify_plain, verify_slack

# machine 0: available [0, 10), unavailable [10, 12), available [12, 20), unavailable [20, 25), then for ever
# machine 1: free
MACHINES = [[[10, 12], [20, 25]], []]
P = [5, 3, 9, 8, 8]
#  job 0 in interval 0 (slack 10 - 5 = 5 >= 5), job 1 in interval 1 (slack 20 - 15 = 5 >= 3),
#  jobs 2, 3, 4 on the free machine back to back: C_max = 25 = e of interval 1.
GOOD = [[0, 0], [0, 12], [1, 0], [1, 9], [1, 17]]


def inst(p=P, beta=1.0, machines=MACHINES):
    return SlackInstance(machines=machines, p=p, beta=beta)


def sol(schedule, **extra):
    return {"problem": "slack", "schedule": schedule, **extra}


def plain(schedule):
    return {"problem": "plain", "schedule": schedule}


def test_hand_derived_stable_schedule_is_accepted():
    assert verify_slack(inst(), sol(GOOD)) == 25
    assert verify_plain(inst(), plain(GOOD)) == 25
    assert isinstance(verify_slack(inst(), sol(GOOD)), int)


def test_an_interval_ending_exactly_at_the_makespan_is_allowed():
    # slack.md 2.2: e_i^k = C_max is allowed (Proposition 1's "i.e." clause is off by one)
    assert verify_slack(inst(), sol(GOOD)) == inst().e(0)[1]


def test_slack_rule_alone():
    bad = [[0, 0], [0, 5], [1, 0], [1, 9], [1, 17]]  # interval 0: 5 + 3, slack 2 < 1 * 5
    with pytest.raises(Infeasible, match=r"machine 0 interval 0: slack d = 2 < beta \* max p = 1 \* 5"):
        verify_slack(inst(), sol(bad))
    assert verify_plain(inst(), plain(bad)) == 25
    assert verify_slack(inst(beta=0.4), sol(bad)) == 25  # 2 >= 0.4 * 5 exactly
    with pytest.raises(Infeasible, match="slack rule"):
        verify_slack(inst(beta=0.41), sol(bad))


def test_beta_is_exact_decimal_arithmetic():
    # slack 3 against 0.3 * 10: the double 0.3 * 10 is 3.0000000000000004, the decimal is 3
    machines = [[[13, 14]], []]
    assert verify_slack(inst([10, 14], 0.3, machines), sol([[0, 0], [1, 0]])) == 14
    with pytest.raises(Infeasible, match="slack rule"):
        verify_slack(inst([10, 14], 0.31, machines), sol([[0, 0], [1, 0]]))


def test_last_period_rule_alone():
    p = [5, 3, 9, 8]  # the free machine now ends at 17 < e = 25 of interval 1
    bad = GOOD[:4]
    with pytest.raises(Infeasible, match=r"machine 0 interval 1: .*e = 25 > C_max = 17 \(last-period rule"):
        verify_slack(inst(p), sol(bad))
    with pytest.raises(Infeasible, match="last-period rule"):
        verify_slack(inst(p, beta=0.0), sol(bad))  # the rule holds at every beta (slack.md 2.3)
    assert verify_plain(inst(p), plain(bad)) == 17
    # without interval 1 the same jobs are fine: interval 0 ends at 12 <= 17
    assert verify_slack(inst(p), sol([[0, 0], [1, 17], [1, 0], [1, 9]])) == 20


def test_the_tail_after_the_last_interval_holds_no_job_of_the_slack_problem():
    bad = [[0, 0], [0, 25], [1, 0], [1, 9], [1, 17]]
    with pytest.raises(Infeasible, match="job 1 runs on machine 0 after its last unavailability"):
        verify_slack(inst(), sol(bad))
    assert verify_plain(inst(), plain(bad)) == 28  # the plain problem may use it


def test_compact_execution_alone():
    late = [[0, 0], [0, 13], [1, 0], [1, 9], [1, 17]]  # job 1 one unit late in interval 1, slack still 4
    with pytest.raises(Infeasible, match="job 1 starts at 13 on machine 0, period 1; compact execution"):
        verify_slack(inst(), sol(late))
    assert verify_plain(inst(), plain(late)) == 25
    gap = [[0, 0], [0, 12], [1, 0], [1, 9], [1, 18]]  # idle time on the free machine pushes C_max to 26
    with pytest.raises(Infeasible, match="job 4 starts at 18 on machine 1"):
        verify_slack(inst(), sol(gap))
    assert verify_plain(inst(), plain(gap)) == 26


def test_delaying_a_job_cannot_satisfy_the_last_period_rule():
    # jobs 10 and 6, one interval [0, 10) closed at e = 11: 10 in the interval needs C_max >= 11;
    # the 6 on the free machine started at 5 would end at 11, but compact execution starts it at 0.
    machines = [[[10, 11]], []]
    with pytest.raises(Infeasible, match="compact execution"):
        verify_slack(inst([10, 6], 0.0, machines), sol([[0, 0], [1, 5]]))
    assert verify_slack(inst([10, 6], 0.0, machines), sol([[1, 0], [1, 10]])) == 16


def test_non_increasing_order_inside_an_interval_alone():
    bad = [[0, 3], [0, 0], [1, 0], [1, 9], [1, 17]]  # job 1 (3) before job 0 (5), slack 2 >= 0
    with pytest.raises(Infeasible, match=r"job 0 \(p = 5\) runs after job 1 \(p = 3\)"):
        verify_slack(inst(beta=0.0), sol(bad))
    assert verify_plain(inst(), plain(bad)) == 25
    # order on a free machine is free (it is never disturbed)
    assert verify_slack(inst(), sol([[0, 0], [0, 12], [1, 16], [1, 8], [1, 0]])) == 25


def test_spanning_an_unavailability_is_rejected_by_both():
    bad = [[0, 8], [0, 12], [1, 0], [1, 9], [1, 17]]  # job 0 runs [8, 13) across [10, 12)
    for verify, make in ((verify_slack, sol), (verify_plain, plain)):
        with pytest.raises(Infeasible, match=r"job 0 runs \[8, 13\) on machine 0 across unavailability 0"):
            verify(inst(), make(bad))


def test_starting_inside_an_unavailability_is_rejected_by_both():
    bad = [[0, 0], [0, 21], [1, 0], [1, 9], [1, 17]]
    for verify, make in ((verify_slack, sol), (verify_plain, plain)):
        with pytest.raises(Infeasible, match=r"job 1 starts at 21, inside machine 0.s unavailability 1"):
            verify(inst(), make(bad))


def test_overlap_is_rejected_by_both():
    bad = [[0, 0], [0, 12], [1, 0], [1, 8], [1, 17]]
    for verify, make in ((verify_slack, sol), (verify_plain, plain)):
        with pytest.raises(Infeasible, match=r"jobs 2 \[0, 9\) and 3 \[8, 16\) overlap on machine 1"):
            verify(inst(), make(bad))


def test_no_free_machine_makes_every_slack_schedule_infeasible():
    machines = [[[10, 12]], [[10, 11]]]
    schedule = [[0, 0], [1, 0]]
    for beta in (0.0, 0.5, 1.0):
        with pytest.raises(Infeasible, match="last-period rule"):
            verify_slack(inst([3, 4], beta, machines), sol(schedule))
    assert verify_plain(inst([3, 4], 1.0, machines), plain(schedule)) == 4


@pytest.mark.parametrize(
    "schedule, fragment",
    [
        (GOOD[:4], "schedule: has 4 entries, the instance has 5 jobs"),
        ([[0, 0], [0, 12], [2, 0], [1, 9], [1, 17]], r"schedule\[2\]\[0\]: job 2: machine must be an index"),
        ([[0, 0], [0, 12], [True, 0], [1, 9], [1, 17]], r"schedule\[2\]\[0\]"),
        (
            [[0, 0], [0, -1], [1, 0], [1, 9], [1, 17]],
            r"schedule\[1\]\[1\]: job 1: start must be an integer >= 0",
        ),
        ([[0, 0], [0, 12.0], [1, 0], [1, 9], [1, 17]], r"schedule\[1\]\[1\]"),
        ([[0, 0], [0], [1, 0], [1, 9], [1, 17]], r"schedule\[1\]: must be a pair"),
        ("x", "schedule: must be a list"),
    ],
)
def test_malformed_schedules(schedule, fragment):
    for verify, make in ((verify_slack, sol), (verify_plain, plain)):
        with pytest.raises(Infeasible, match=fragment):
            verify(inst(), make(schedule))


def test_problem_field_and_missing_schedule():
    with pytest.raises(Infeasible, match="problem: must be 'slack'"):
        verify_slack(inst(), plain(GOOD))
    with pytest.raises(Infeasible, match="problem: must be 'plain'"):
        verify_plain(inst(), sol(GOOD))
    with pytest.raises(Infeasible, match="schedule: must be a list"):
        verify_slack(inst(), {"problem": "slack"})
    with pytest.raises(Infeasible, match="solution: must be a JSON object"):
        verify_slack(inst(), [1])


def test_the_solution_beta_is_the_one_checked():
    bad = [[0, 0], [0, 5], [1, 0], [1, 9], [1, 17]]  # slack 2 for a job of 5
    assert verify_slack(inst(beta=1.0), sol(bad, beta=0.4)) == 25
    with pytest.raises(Infeasible, match="slack rule"):
        verify_slack(inst(beta=0.0), sol(bad, beta=1.0))
    with pytest.raises(Infeasible, match=r"beta: must be a number in \[0, 1\]"):
        verify_slack(inst(), sol(GOOD, beta=2))
