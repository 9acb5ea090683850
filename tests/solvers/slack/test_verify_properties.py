"""Property tests of the slack verifier on random allocations (hypothesis)."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volsched.instances.slack import SlackInstance
from volsched.solvers import Infeasible
from volsched.solvers.slack.verify import verify_plain, verify_slack


@st.composite
def allocations(draw):
    """A tiny instance and a compact schedule of a random allocation of its jobs to periods."""
    machines = []
    for _ in range(draw(st.integers(1, 3))):
        rows, end = [], 0
        for _ in range(draw(st.integers(0, 3))):
            s = end + draw(st.integers(0, 12))
            end = s + draw(st.integers(1, 5))
            rows.append([s, end])
        machines.append(rows)
    p = draw(st.lists(st.integers(1, 6), min_size=1, max_size=6))
    beta = draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))
    inst = SlackInstance(machines=machines, p=p, beta=beta)
    periods = []  # (machine, start, end or None, e or None)
    for i, rows in enumerate(machines):
        prev = 0
        for s, e in rows:
            periods.append((i, prev, s, e))
            prev = e
        periods.append((i, prev, None, None))
    where = [draw(st.integers(0, len(periods) - 1)) for _ in p]
    schedule = [None] * len(p)
    loads = {}
    for b in sorted(set(where)):
        clock = periods[b][1]
        jobs = sorted((j for j in range(len(p)) if where[j] == b), key=lambda j: -p[j])
        for j in jobs:
            schedule[j] = [periods[b][0], clock]
            clock += p[j]
        loads[b] = jobs
    return inst, periods, loads, schedule


def expected(inst, periods, loads, problem):
    """The makespan if the allocation obeys the problem's rules, else None (rules of slack.md 2)."""
    p = [int(x) for x in inst.p]
    for b, jobs in loads.items():
        _, start, end, _ = periods[b]
        if end is not None and start + sum(p[j] for j in jobs) > end:
            return None
    cmax = max(periods[b][1] + sum(p[j] for j in jobs) for b, jobs in loads.items())
    if problem == "slack":
        beta = Fraction(repr(inst.beta))
        for b, jobs in loads.items():
            i, start, end, e = periods[b]
            if end is None:
                if len(inst.machines[i]):
                    return None
                continue
            if end - start - sum(p[j] for j in jobs) < beta * max(p[j] for j in jobs) or e > cmax:
                return None
    return cmax


@settings(max_examples=400, deadline=None)
@given(allocations())
def test_verifiers_accept_exactly_the_allocations_that_obey_the_rules(case):
    inst, periods, loads, schedule = case
    for problem, verify in (("plain", verify_plain), ("slack", verify_slack)):
        want = expected(inst, periods, loads, problem)
        sol = {"problem": problem, "schedule": schedule}
        if want is None:
            with pytest.raises(Infeasible):
                verify(inst, sol)
        else:
            assert verify(inst, sol) == want


@settings(max_examples=300, deadline=None)
@given(allocations(), st.data())
def test_a_delayed_job_breaks_compact_execution_but_not_the_plain_problem(case, data):
    inst, periods, loads, schedule = case
    if expected(inst, periods, loads, "slack") is None:
        return
    j = data.draw(st.integers(0, inst.n - 1))
    late = [list(x) for x in schedule]
    late[j][1] += 1
    with pytest.raises(Infeasible):
        verify_slack(inst, {"problem": "slack", "schedule": late})
    try:
        value = verify_plain(inst, {"problem": "plain", "schedule": late})
    except Infeasible:  # the job now overlaps its successor or crosses an unavailability
        return
    assert value == max(t + int(pj) for (_, t), pj in zip(late, inst.p, strict=True))


@settings(max_examples=200, deadline=None)
@given(allocations())
def test_a_slack_schedule_is_a_plain_schedule_of_the_same_makespan(case):
    inst, _periods, _loads, schedule = case
    try:
        value = verify_slack(inst, {"problem": "slack", "schedule": schedule})
    except Infeasible:
        return
    assert verify_plain(inst, {"problem": "plain", "schedule": schedule}) == value
    assert inst.lam >= 1  # slack.md 2.4: no slack schedule without a free machine
