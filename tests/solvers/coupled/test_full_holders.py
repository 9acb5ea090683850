"""Problem ``full``: the search that tracks the program holders, against the replay and brute force."""

import dataclasses

import numpy as np
import pytest
from oracles.coupled.full import brute_full, random_tiny
from oracles.coupled.holders import preloads as written_out

from volsched.instances.coupled import paper_realization
from volsched.solvers import SolveStatus
from volsched.solvers.coupled import full_holders, solve
from volsched.solvers.coupled.full_bound import DataChain
from volsched.solvers.coupled.full_holders import applies, holder_search, replay_iteration
from volsched.solvers.coupled.replay import check_claim
from volsched.solvers.problem import STOPPED_BUDGET, Allowance


def tiny_with_channels(rng, count, fewer=False):
    """Random tiny instances where the master can serve every enrolled worker at once, or, with
    ``fewer``, where it cannot (``n_com < m``)."""
    out = []
    while len(out) < count:
        instance = random_tiny(rng, max_p=3, max_h=10, max_k=3)
        if not fewer:
            out.append(dataclasses.replace(instance, n_com=max(instance.n_com, instance.m)))
        elif instance.m >= 2:
            out.append(dataclasses.replace(instance, n_com=int(rng.integers(1, instance.m))))
    return out


@pytest.mark.parametrize("fewer", [False, True])
def test_every_schedule_is_accepted_by_the_replay_and_is_never_below_the_optimum(fewer):
    rng = np.random.default_rng(5)
    found = optimal = feasible = 0
    for instance in tiny_with_channels(rng, 150, fewer):
        optimum = brute_full(instance)
        schedule = holder_search(instance, instance.horizon + 1, DataChain(instance))
        if optimum is None:
            assert schedule is None
            continue
        feasible += 1
        if schedule is not None:
            found += 1
            makespan = schedule["completions"][-1] + 1
            assert check_claim(instance, schedule) == makespan >= optimum
            optimal += makespan == optimum
    # measured: 57 feasible, a schedule and the optimum on all 57; with fewer channels than tasks,
    # 33 feasible, the optimum on 32 (the rule of whom the master serves first is not a search)
    assert feasible >= (25 if fewer else 40) and found >= 0.9 * feasible and optimal >= 0.9 * feasible


@pytest.mark.parametrize("fewer", [False, True])
def test_it_only_returns_schedules_below_the_incumbent(fewer):
    rng = np.random.default_rng(6)
    for instance in tiny_with_channels(rng, 60, fewer):
        optimum = brute_full(instance)
        if optimum is None:
            continue
        assert holder_search(instance, optimum, DataChain(instance)) is None
        schedule = holder_search(instance, optimum + 1, DataChain(instance))
        if schedule is not None:
            assert check_claim(instance, schedule) == optimum


def test_on_a_paper_realization_it_meets_the_lower_bound_the_greedy_misses():
    # Section VII-A, m = 5, n_com = 10, w_min = 1, scenario 4, trial 5: the greedy's schedule
    # ends at 130, the data chain at 126; the holder search's at 126, which proves it optimal.
    instance = paper_realization(5, 10, 1, 4, 5)
    result = solve(instance, problem="full", method="greedy")
    assert result.status == SolveStatus.OPTIMAL and result.objective == result.bound == 126
    assert result.info["source"] == "holders"


def test_with_fewer_channels_than_tasks_it_meets_the_holder_bound():
    # Section VII-A, m = 10, n_com = 5, w_min = 1, scenario 3, trial 5: the greedy's schedule ends
    # at 128; the search's, whose master serves the workers with the most left to receive first,
    # at 114, which the holder bound proves optimal.
    from volsched.solvers.coupled.full_holders_bound import holders_bound

    instance = paper_realization(10, 5, 1, 3, 5)
    chain = DataChain(instance)
    assert applies(instance)
    schedule = holder_search(instance, 128, chain)
    assert check_claim(instance, schedule) == 114 == holders_bound(instance, 114, chain)


@pytest.mark.parametrize("budget", [1, 3])
def test_a_search_stopped_by_its_budget_returns_nothing(budget):
    instance = paper_realization(5, 20, 1, 0, 5, slots=200)
    allowance = Allowance(budget)
    assert holder_search(instance, 201, DataChain(instance), allowance) is None
    assert allowance.effort.stopped == STOPPED_BUDGET and allowance.effort.work == budget


def first_completion(ready, members, tasks, need):
    """The definition, slot by slot: the first slot at which ``need`` slots since the last one with
    a member DOWN have every member ready for its tasks (-1 if none)."""
    done = 0
    for i in range(ready.shape[1]):
        levels = [ready[q, i] for q in members]
        if -2 in levels:
            done = 0
        elif all(level >= x for level, x in zip(levels, tasks, strict=True)):
            done += 1
            if done >= need:
                return i
    return -1


@pytest.mark.parametrize("seed", range(6))
def test_the_compiled_scan_is_the_definition_across_words(seed):
    from volsched.solvers.coupled import _holders_kernel

    rng = np.random.default_rng(seed)
    p, m, span = 6, 3, int(rng.integers(1, 300))
    ready = rng.choice([-2, -1, 0, 1, 2, 3], size=(p, span), p=[0.01, 0.1, 0.1, 0.3, 0.3, 0.19])
    rows = []
    for _ in range(200):
        k = int(rng.integers(1, m + 1))
        members = sorted(rng.choice(p, size=k, replace=False).tolist())
        tasks = rng.integers(1, m + 1, size=k).tolist()
        rows.append((members, tasks, int(rng.integers(1, 90))))
    members = np.full((len(rows), m), -1, dtype=np.int64)
    tasks = np.zeros_like(members)
    for a, (mem, tk, _) in enumerate(rows):
        members[a, : len(mem)], tasks[a, : len(tk)] = mem, tk
    work = np.array([need for _, _, need in rows], dtype=np.int64)
    out = np.empty(len(rows), dtype=np.int64)
    _holders_kernel.completions(ready.astype(np.int64), members, tasks, work, 7, out)
    expected = [first_completion(ready, mem, tk, need) for mem, tk, need in rows]
    assert out.tolist() == [-1 if e < 0 else 7 + e for e in expected]
    assert any(e >= 64 for e in expected) and any(e < 0 for e in expected)


@pytest.mark.parametrize("seed", range(3))
def test_the_replayed_iteration_without_spares_completes_where_the_scan_says(seed):
    from volsched.solvers.coupled import _holders_kernel
    from volsched.solvers.coupled.allocations import allocations

    rng = np.random.default_rng(seed)
    for _ in range(4):
        instance = paper_realization(3, 5, int(rng.integers(1, 4)), int(rng.integers(10)), 0, slots=400)
        chain = DataChain(instance)
        table = allocations(instance)[1:]
        members = np.full((len(table), instance.m), -1, dtype=np.int64)
        tasks = np.zeros_like(members)
        for a, x in enumerate(table):
            enrolled = [q for q in range(instance.p) if x[q]]
            members[a, : len(enrolled)] = enrolled
            tasks[a, : len(enrolled)] = [x[q] for q in enrolled]
        work = np.array([max(v * int(w) for v, w in zip(x, instance.w, strict=True)) for x in table])
        start, held = int(rng.integers(150)), int(rng.integers(1 << 20))
        holder = np.array([(held >> q) & 1 for q in range(20)], dtype=np.bool_)
        last = start + 150
        args = (chain.avail, chain.count, chain.since, start, holder, instance.T_prog, instance.T_data)
        ready = _holders_kernel.readiness(*args, instance.m, last)
        out = np.empty(len(members), dtype=np.int64)
        _holders_kernel.completions(ready, members, tasks, work, start, out)
        replayed = [replay_iteration(instance, chain.avail, start, holder, x, (), last)[0] for x in table]
        assert replayed == out.tolist()


@pytest.mark.parametrize("scenario, trial", [(1, 0), (9, 5)])
def test_with_fewer_channels_than_tasks_iterations_end_where_the_replay_says(scenario, trial):
    from volsched.solvers.coupled import _holders_kernel
    from volsched.solvers.coupled.allocations import completable
    from volsched.solvers.coupled.full_holders import _settings, iteration_ends

    rng = np.random.default_rng(scenario)
    instance = paper_realization(10, 5, 1, scenario, trial, slots=400)  # 5 channels, m = 10 tasks
    chain = DataChain(instance)
    scanned = crowded_late = 0
    for _ in range(4):
        start = int(rng.integers(200))
        held = int(rng.integers(1 << 20)) if rng.random() < 0.5 else 0
        holder = np.array([(held >> q) & 1 for q in range(20)], dtype=np.bool_)
        last = start + int(rng.integers(40, 200))
        args = (chain.avail, chain.count, chain.since, start, holder, instance.T_prog, instance.T_data)
        ready = _holders_kernel.readiness(*args, instance.m, last)
        rows = completable(instance, ready)
        replayed = np.empty(len(rows.work), dtype=np.int64)
        _holders_kernel.served(chain.avail, start, holder, *rows[:3], _settings(instance, last), replayed)
        ends = iteration_ends(instance, chain.avail, ready, start, holder, rows, last)
        assert ends.tolist() == replayed.tolist()
        scan = np.empty(len(rows.work), dtype=np.int64)
        _holders_kernel.completions(ready, *rows[:3], start, scan)
        crowded = rows.members[:, instance.n_com] >= 0
        scanned += int((~crowded & (replayed >= 0)).sum())
        crowded_late += int((crowded & (scan != replayed)).sum())
    # both kinds of allocation, and allocations the master must serve in turn that the scan gets wrong
    assert scanned > 100 and crowded_late > 100


@pytest.mark.parametrize("scenario", [3, 5])
def test_schedules_with_preloads_are_accepted_by_the_replay(scenario):
    # m = 3, n_com = 5, w_min = 1, trial 0, the first 150 slots: the best schedule preloads once
    instance = paper_realization(3, 5, 1, scenario, 0, slots=150)
    schedule = holder_search(instance, 151, DataChain(instance))
    assert len(schedule["configurations"]) > len(schedule["completions"])
    assert check_claim(instance, schedule) == schedule["completions"][-1] + 1


def test_a_spare_that_goes_down_is_preloaded_after_its_return():
    """Member 0 holds the program and both tasks (w = 3, T_data = 1): alone it completes at 7.
    Spare 1 (T_prog = 2) is DOWN at slot 2. Preloaded from slot 0 it holds the program at 2 and
    loses it there (the iteration completes at 8 without it); joining at its return, slot 3, it
    holds it from 5 on, and the member, back to its two tasks, completes at 11 (by hand)."""
    from volsched.instances.coupled import CoupledInstance

    rows = np.zeros((3, 30), dtype=np.int8)
    rows[1, 2] = rows[2, :] = 2  # DOWN
    instance = CoupledInstance(
        availability=rows, w=[3, 1, 1], mu=[None] * 3, m=2, n_com=2, T_prog=2, T_data=1, K=1
    )
    chain = DataChain(instance)
    x = (2, 0, 0)
    holder = np.array([True, False, False])
    assert replay_iteration(instance, chain.avail, 0, holder, x, (), 29)[:2] == (7, 0)
    early, sigma, _, _ = replay_iteration(instance, chain.avail, 0, holder, x, [1], 29)
    assert (early, sigma) == (8, 2) and chain.since[1, early + 1] > sigma  # lost at once
    late, sigma, preloads, left = replay_iteration(instance, chain.avail, 0, holder, x, [1], 29, None, 3)
    assert (late, sigma, left.tolist()) == (11, 5, [5]) and chain.since[1, late + 1] <= sigma
    assert [(first, y.tolist()) for first, y in preloads] == [(3, [1, 1, 0])]


def test_a_late_preload_reaches_the_holder_bound():
    # Section VII-A, m = 5, n_com = 10, w_min = 6, scenario 9, trial 3: with preloads from the
    # iteration's start only, the best schedule ended at 1,330 (the stored row); spares DOWN early in an
    # iteration are preloaded after their return, and the search's schedule (with such a
    # preload: three configurations in one iteration) meets the holder bound, 1,141.
    from volsched.solvers.coupled.full_holders_bound import holders_bound

    instance = paper_realization(5, 10, 6, 9, 3)
    chain = DataChain(instance)
    schedule = holder_search(instance, 1330, chain)
    assert check_claim(instance, schedule) == 1141 == holders_bound(instance, 1141, chain)
    starts = [entry["start"] for entry in schedule["configurations"]]
    ends = [-1, *schedule["completions"]]
    per_iteration = [sum(ends[i] < t <= ends[i + 1] for t in starts) for i in range(instance.K)]
    assert max(per_iteration) >= 3


def test_preloading_spare_workers_finds_the_optimum_the_search_without_it_misses():
    # Section VII-A, m = 5, n_com = 10, w_min = 1, scenario 1, trial 4: without preloads the
    # search's best ends at 53; CP-SAT's time-indexed model found 52 (84 s), and the holder
    # bound proves 52 optimal.
    from unittest import mock

    from volsched.solvers.coupled.full_holders_bound import holders_bound

    instance = paper_realization(5, 10, 1, 1, 4)
    chain = DataChain(instance)
    with mock.patch("volsched.solvers.coupled.full_holders.PRELOAD_ALLOCATIONS", 0):
        assert holder_search(instance, 54, chain)["completions"][-1] == 52
        assert holder_search(instance, 53, chain) is None
    schedule = holder_search(instance, 53, chain)
    assert check_claim(instance, schedule) == 52 == holders_bound(instance, 52, chain)
    preloads = len(schedule["configurations"]) - instance.K
    assert preloads >= 1


def test_spares_other_than_the_fastest_are_worth_preloading():
    # Section VII-A, m = 5, n_com = 20, w_min = 1, scenario 3, trial 0. Preloading only the fastest
    # eligible spare, the best ends at 85: the fastest (w = 2) are RECLAIMED or DOWN within a few
    # slots, processor 5 (w = 5, UP throughout) preloaded alone gives 84. CP-SAT's time-indexed
    # model found 84 and proved it optimal (a probe, 171 s); so does the holder bound.
    from unittest import mock

    from volsched.solvers.coupled.full_holders_bound import holders_bound

    instance = paper_realization(5, 20, 1, 3, 0)
    chain = DataChain(instance)
    with mock.patch("volsched.solvers.coupled.full_holders.SINGLE_SPARES", 1):
        assert holder_search(instance, 85, chain) is None
    schedule = holder_search(instance, 85, chain)
    assert check_claim(instance, schedule) == 84 == holders_bound(instance, 84, chain)


def test_preloads_on_allocations_that_complete_later_are_worth_trying():
    # Section VII-A, m = 5, n_com = 10, w_min = 1, scenario 6, trial 7: with preloads tried on the
    # 8 allocations that complete first, the best ends at 54; an allocation further down the order
    # carries the preload to 53, which the holder bound proves optimal.
    from unittest import mock

    from volsched.solvers.coupled.full_holders_bound import holders_bound

    instance = paper_realization(5, 10, 1, 6, 7)
    chain = DataChain(instance)
    with mock.patch("volsched.solvers.coupled.full_holders.PRELOAD_ALLOCATIONS", 8):
        assert holder_search(instance, 54, chain) is None
    schedule = holder_search(instance, 54, chain)
    assert check_claim(instance, schedule) == 53 == holders_bound(instance, 53, chain)


def test_each_spare_leaves_as_soon_as_it_holds_the_program():
    """Member 0 takes all 3 tasks (w = 1, T_data = 1, T_prog = 2); spares 1 and 2 take one each
    at first. Spare 1 holds the program at 2 and leaves, its task going back to the member, which
    receives the second task's data at once; spare 2 (RECLAIMED to 3) holds it at 6. The member
    then receives its last data at 6 and completes at 9; waiting for both spares before giving the
    tasks back would complete at 10 (by hand). The replay accepts the three configurations."""
    from volsched.instances.coupled import CoupledInstance
    from volsched.solvers.coupled.replay import LETTERS

    rows = np.zeros((3, 20), dtype=np.int8)
    rows[2, :4] = 1  # RECLAIMED
    instance = CoupledInstance(
        availability=rows, w=[1, 1, 1], mu=[None] * 3, m=3, n_com=3, T_prog=2, T_data=1, K=1
    )
    chain = DataChain(instance)
    holder = np.zeros(3, dtype=np.bool_)
    letters = np.zeros((3, 20), dtype=np.int8)
    c, sigma, preloads, left = replay_iteration(
        instance, chain.avail, 0, holder, (3, 0, 0), [1, 2], 19, letters
    )
    assert (c, sigma, left.tolist()) == (9, 6, [2, 6])
    assert [(first, y.tolist()) for first, y in preloads] == [(0, [1, 1, 1]), (2, [2, 0, 1])]
    configurations = [{"start": first, "allocation": y.tolist()} for first, y in preloads]
    schedule = {
        "configurations": [*configurations, {"start": sigma, "allocation": [3, 0, 0]}],
        "communication": ["".join(LETTERS[v] for v in row) for row in letters[:, : c + 1].tolist()],
        "completions": [c],
    }
    assert check_claim(instance, schedule) == 10


def test_on_a_paper_realization_leaving_spares_meet_the_holder_bound():
    # Section VII-A, m = 5, n_com = 5, w_min = 3, scenario 4, trial 2, the first two iterations:
    # preloading slow spares, each leaving once it holds the program, ends at 112, which the
    # holder bound proves optimal (with all spares leaving together the best ended at 206).
    from volsched.solvers.coupled.full_holders_bound import holders_bound

    instance = dataclasses.replace(paper_realization(5, 5, 3, 4, 2), K=2)
    chain = DataChain(instance)
    schedule = holder_search(instance, 206, chain)
    assert check_claim(instance, schedule) == 112 == holders_bound(instance, 112, chain)
    # one configuration per iteration and one per preload: one more when the spares leave apart
    assert len(schedule["configurations"]) >= instance.K + 2


def test_a_member_holding_the_program_lends_its_task_to_a_spare():
    """Both tasks have a member (w = 1, T_prog = 2, T_data = 1); member 1 holds the program and
    needs one data slot. It lends its task to spare 2 while member 0 receives its program: both
    programs arrive in slots 0-1, the spare leaves at 2 with the program, member 1 takes its task
    back and receives its data with member 0 at 2, and the iteration computes at 3 (by hand): no
    later than without the spare. Without a member holding a program there is no task to lend."""
    from volsched.instances.coupled import CoupledInstance

    instance = CoupledInstance(
        availability=np.zeros((3, 10), dtype=np.int8),
        w=[1, 1, 1],
        mu=[None] * 3,
        m=2,
        n_com=3,
        T_prog=2,
        T_data=1,
        K=1,
    )
    chain = DataChain(instance)
    holder = np.array([False, True, False])
    letters = np.zeros((3, 10), dtype=np.int8)
    c, sigma, preloads, left = replay_iteration(instance, chain.avail, 0, holder, (1, 1, 0), [2], 9, letters)
    assert (c, sigma, left.tolist()) == (3, 2, [2])
    assert [(first, y.tolist()) for first, y in preloads] == [(0, [1, 0, 1])]
    assert letters[:, :4].tolist() == [[1, 1, 2, 0], [0, 0, 2, 0], [1, 1, 0, 0]]
    nobody = np.zeros(3, dtype=np.bool_)
    assert replay_iteration(instance, chain.avail, 0, nobody, (1, 1, 0), [2], 9)[:2] == (-1, -1)


def test_on_a_paper_realization_lending_tasks_meets_the_holder_bound():
    # Section VII-A, m = 5, n_com = 5, w_min = 4, scenario 2, trial 3, the first six iterations: the
    # fifth, on four members, preloads two spares, one of them on the task of a member that holds
    # the program and needs only its data late; the sixth then ends at 324, and the holder bound
    # proves 325 optimal (with one spare per free task the best ended at 464).
    from volsched.solvers.coupled.full_holders_bound import holders_bound

    instance = dataclasses.replace(paper_realization(5, 5, 4, 2, 3), K=6)
    chain = DataChain(instance)
    schedule = holder_search(instance, 464, chain)
    assert check_claim(instance, schedule) == 325 == holders_bound(instance, 325, chain)


def test_an_allocation_without_free_tasks_preloads_on_lent_ones():
    # Section VII-A, m = 5, n_com = 5, w_min = 2, scenario 7, trial 8: in the eighth iteration, on
    # five members, two members holding the program lend their tasks to spares 12 and 14 (14 lost
    # its program to a DOWN); the last iteration then ends at 175, and the holder bound proves 176
    # optimal (preloading only on allocations with a free task, the best ended at 204).
    from volsched.solvers.coupled.full_holders_bound import holders_bound

    instance = paper_realization(5, 5, 2, 7, 8)
    chain = DataChain(instance)
    schedule = holder_search(instance, 204, chain)
    assert check_claim(instance, schedule) == 176 == holders_bound(instance, 176, chain)


@pytest.mark.parametrize("m, key", [(5, (10, 1, 4, 5)), (5, (5, 2, 3, 1)), (10, (5, 1, 3, 5))])
def test_the_compiled_preloads_are_the_rules_written_out(monkeypatch, m, key):
    # states the search meets on paper realizations (holder sets grow along it; at m = 10 with
    # n_com = 5 the master chooses whom to serve), every fourth compared, up to 10
    compiled, compared, calls = full_holders._preloads, [], []

    def both(instance, chain, start, holder, rows, out, last, order):
        tried, spares = compiled(instance, chain, start, holder, rows, out, last, order)
        calls.append(start)
        if len(calls) % 4 == 1 and len(compared) < 10:
            got = [
                (c, a, join, tuple(q for q in chosen if q >= 0), gained)
                for (c, a, join, gained), chosen in zip(tried.tolist(), spares.tolist(), strict=True)
            ]
            assert got == written_out(instance, chain, start, holder, rows, out, last, order)
            compared.append((len(got), int(holder.sum())))
        return tried, spares

    monkeypatch.setattr(full_holders, "_preloads", both)
    solve(paper_realization(m, *key), problem="full", method="greedy")
    assert len(compared) == 10
    assert sum(rows for rows, _ in compared) > 100 and any(held for _, held in compared)


def test_a_lender_whose_program_was_lost_before_the_spares_join_leaves_without_it():
    # Section VII-A, m = 5, n_com = 5, w_min = 3, scenario 5, trial 4: an iteration entered at 219
    # lets processor 0 (which held a program) lend its task to spares joining at 247; processor 0
    # is DOWN at 239-241 and receives 5 of the program's 15 slots before 247. It leaves the
    # configuration there, so those 5 slots are lost (III-C): a replay that kept them claimed a
    # completion the verifier rejects.
    instance = paper_realization(5, 5, 3, 5, 4)
    result = solve(instance, problem="full", method="greedy")
    assert result.status == SolveStatus.OPTIMAL and result.objective == result.bound
    schedule = holder_search(instance, 1106, DataChain(instance))  # from the greedy's makespan
    assert check_claim(instance, schedule) == schedule["completions"][-1] + 1


def _two_iterations(rng):
    """A random 2-iteration schedule as the search builds one, or ``None``: the first iteration
    on a random allocation from nobody holding a program, the second from its members holding one,
    on another allocation with spares that hold none joining at a random slot (members lend their
    tasks when the spares outnumber the free ones)."""
    from volsched.instances.coupled import CoupledInstance
    from volsched.solvers.coupled.full_holders import _schedule

    p, m, h = int(rng.integers(4, 7)), int(rng.integers(2, 5)), 80
    down = float(rng.choice([0.05, 0.15, 0.3]))
    avail = rng.choice(np.arange(3), size=(p, h), p=[0.85 - down, 0.15, down]).astype(np.int8)
    costs = {"T_prog": int(rng.integers(1, 4)), "T_data": int(rng.integers(1, 3))}
    w = rng.integers(1, 4, size=p).tolist()
    instance = CoupledInstance(avail, w, [None] * p, m=m, n_com=int(rng.integers(1, m + 2)), K=2, **costs)
    chain = DataChain(instance)

    def allocation():
        size = int(rng.integers(1, min(m, p) + 1))
        cuts = np.sort(rng.choice(np.arange(1, m), size=size - 1, replace=False)) if size > 1 else []
        counts = np.diff([0, *cuts, m])
        x = [0] * p
        for q, v in zip(rng.permutation(p)[:size].tolist(), counts.tolist(), strict=True):
            x[q] = v
        return tuple(x)

    first = allocation()
    c1 = replay_iteration(instance, chain.avail, 0, np.zeros(p, dtype=np.bool_), first, (), h - 1)[0]
    if c1 < 0 or c1 > h - 20:
        return None
    holder = np.array([v > 0 for v in first], dtype=np.bool_)  # the members hold it at the completion
    second = allocation()
    free = [q for q in range(p) if not second[q] and not holder[q]]
    if not free:
        return None
    spares = tuple(int(q) for q in rng.permutation(free)[: int(rng.integers(1, min(3, len(free)) + 1))])
    join = c1 + 1 + int(rng.integers(0, 12))
    c2 = replay_iteration(instance, chain.avail, c1 + 1, holder, second, spares, h - 1, None, join)[0]
    if c2 < 0:
        return None
    held = sum(1 << q for q in range(p) if holder[q])
    nodes = [(0, 0, -1, (), -1, ()), (c1 + 1, held, 0, first, c1, ())]
    nodes.append((c2 + 1, 0, 1, second, c2, (join, spares)))
    lends = any(holder[q] and second[q] for q in range(p)) and len(spares) > m - sum(v > 0 for v in second)
    return instance, _schedule(instance, chain.avail, nodes, 2), c2, lends


def test_an_iteration_with_lenders_and_late_spares_is_the_one_the_verifier_replays():
    # the replay of the search (with holders, lenders, spares joining late, DOWN slots between)
    # against the independent verifier, on the schedules the search would build from its states
    rng = np.random.default_rng(0)
    built = lent = 0
    for _ in range(3000):
        drawn = _two_iterations(rng)
        if drawn is None:
            continue
        instance, schedule, c2, lends = drawn
        assert check_claim(instance, schedule) == c2 + 1
        built += 1
        lent += lends
    assert built > 400 and lent > 50
