"""Problem ``full`` (Section III with communication): replay, CP-SAT model, greedy, against brute force."""

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from oracles.coupled.full import brute_full, brute_nocomm, random_tiny
from oracles.json_edit import set_item
from oracles.registry import limits

import volsched.solvers.coupled.full as full_module
from volsched.instances.coupled import CoupledInstance, generate_paper, paper_realization, parse_availability
from volsched.instances.errors import InputError
from volsched.solvers import Infeasible, SolveStatus
from volsched.solvers.coupled import PROBLEMS, solve
from volsched.solvers.coupled.full import transfer_bound
from volsched.solvers.coupled.full_cpsat import MAX_CELLS, solve_full_cpsat, trivial_bound
from volsched.solvers.coupled.full_greedy import greedy_full
from volsched.solvers.coupled.replay import check_claim, replay


def inst(rows, w, mu, m, n_com=1, T_prog=0, T_data=0, K=1):
    return CoupledInstance(
        availability=parse_availability(rows), w=w, mu=mu, m=m, n_com=n_com, T_prog=T_prog, T_data=T_data, K=K
    )


def sched(configs, comm=None, completions=None):
    out = {"configurations": [{"start": s, "allocation": list(a)} for s, a in configs]}
    if comm is not None:
        out["communication"] = comm
    if completions is not None:
        out["completions"] = completions
    return out


# ---------------------------------------------------------------- Figure 1 of the paper


def figure1():
    """p = 5, w_i = i, n_com = 2, T_prog = 2, T_data = 1, m = 5, allocation (0, 2, 2, 1, 0): W = 6.

    P1 is DOWN and P5 RECLAIMED when the configuration is chosen at slot 1. Transfers
    (slot: receivers): 1: P2 P3 (program); 2: P2 P3 (program); 3: P2 (data; P3 RECLAIMED, one
    channel unused); 4: P2 (data) P4 (program); 5: P3 (data) P4 (program); 6: P3 P4 (data).
    So P4 is idle for the first 3 slots and P3 waits at slot 4. All are ready at the start
    of 7 and compute at 7, 8, 9 (half of W); P2 RECLAIMED at 10, 11; P3 RECLAIMED at 12;
    compute at 13, 14, 15: the iteration completes at the end of slot 15 (makespan 16,
    "at time 16, the processors synchronize").
    """
    rows = [
        "DDDDUUUUUUUUUUUUUUUU",
        "UUUUUUUUUURRUUUUUUUU",
        "UUURUUUUUUUURUUUUUUU",
        "UUUUUUUUUUUUUUUUUUUU",
        "RRRUUUUUUUUUUUUUUUUU",
    ]
    instance = inst(rows, [1, 2, 3, 4, 5], [None] * 5, 5, n_com=2, T_prog=2, T_data=1)
    schedule = sched([(1, [0, 2, 2, 1, 0])], ["", ".PPDD", ".PP..DD", "....PPD", ""], [15])
    return instance, schedule


def test_figure1_reconstruction():
    instance, schedule = figure1()
    assert replay(instance, schedule) == [15]
    assert check_claim(instance, schedule) == 16


def test_figure1_cpsat_no_worse_than_the_paper():
    instance, _ = figure1()
    schedule, makespan, bound, proven = solve_full_cpsat(instance, **limits("coupled", "full", "cpsat"))
    assert proven and makespan <= 16 and bound == makespan
    assert check_claim(instance, schedule) == makespan


# ---------------------------------------------------------------- hand-built scenarios


def test_program_kept_while_reclaimed_lost_when_down():
    # One processor, one task, w = 1, T_prog = 2. "P.P": program slots 0 and 2.
    # RECLAIMED at 1 keeps g = 1, so g = 2 at the start of 3: compute at 3, done at 3.
    assert replay(inst(["URUU"], [1], [1], 1, T_prog=2), sched([(0, [1])], ["P.P"])) == [3]
    # DOWN at 1 resets g to 0; after the P at 2, g = 1 < 2: never computes.
    assert replay(inst(["UDUU"], [1], [1], 1, T_prog=2), sched([(0, [1])], ["P.P"])) == []
    # Resending both slots after the DOWN (2, 3): compute at 4.
    assert replay(inst(["UDUUU"], [1], [1], 1, T_prog=2), sched([(0, [1])], ["P.PP"])) == [4]


@pytest.mark.parametrize(
    "rows,expected",
    [
        (["UUUUUUU", "UUUUUUU"], [2]),  # computes 0, 1, 2 (W = 3)
        (["UUUUUUU", "UURUUUU"], [3]),  # 0, 1 then suspended at 2 (c kept), 3
        (["UUUUUUU", "UUDUUUU"], [5]),  # 0, 1 lost at the DOWN of 2: new attempt at 3: 3, 4, 5
        (["UUUUUUU", "UUUUUUU", "UDDDUUU"], [2]),  # a DOWN processor that is not enrolled changes nothing
    ],
)
def test_reclaimed_suspends_down_restarts(rows, expected):
    # m = 2 on mu = 1 processors 0 and 1, w = (3, 1): W = 3, no communication.
    p = len(rows)
    alloc = [1, 1] + [0] * (p - 2)
    instance = inst(rows, [3, 1, 1][:p], [1] * p, 2)
    assert replay(instance, sched([(0, alloc)])) == expected


def test_bandwidth_queueing():
    # Three workers need program + data (2 slots each) with n_com = 2: 6 transfers in slots
    # 0, 1, 2; everybody is ready at the start of 3, computes at 3 (W = 1).
    instance = inst(["UUUUU"] * 3, [1, 1, 1], [1, 1, 1], 3, n_com=2, T_prog=1, T_data=1)
    good = sched([(0, [1, 1, 1])], ["PD", "P.D", ".PD"])
    assert replay(instance, good) == [3]
    # The third worker's data comes one slot late: compute at 4.
    assert replay(instance, sched([(0, [1, 1, 1])], ["PD", "P.D", ".P.D"])) == [4]
    with pytest.raises(Infeasible, match=r"schedule\.communication\[\*\]\[0\]: 3 transfers"):
        replay(instance, sched([(0, [1, 1, 1])], ["PD", "P.D", "P.D"]))


def test_next_iteration_needs_data_again_but_keeps_the_program():
    # w = 1, T_prog = T_data = 1, K = 2: "PD" then compute at 2 (done); the next iteration
    # starts at 3 on the same allocation and needs its data again: D at 3, compute at 4.
    instance = inst(["UUUUUU"], [1], [1], 1, T_prog=1, T_data=1, K=2)
    assert replay(instance, sched([(0, [1])], ["PD.D"])) == [2, 4]
    with pytest.raises(Infeasible, match=r"schedule\.communication\[0\]\[3\]: 'P' but processor 0 already"):
        replay(instance, sched([(0, [1])], ["PD.P"]))


def test_explicit_restart_resets_the_computation_and_keeps_the_data():
    # w = 2, T_data = 1: D at 0, compute at 1 (c = 1); a new entry at 2 with the same allocation
    # restarts the computation, and the worker keeps its data (III-C, VI-A): compute at 2, 3.
    instance = inst(["UUUUUU"], [2], [1], 1, T_data=1)
    assert replay(instance, sched([(0, [1])], ["D"])) == [2]
    assert replay(instance, sched([(0, [1]), (2, [1])], ["D"])) == [3]
    with pytest.raises(Infeasible, match=r"communication\[0\]\[2\]: 'D' but processor 0 already has"):
        replay(instance, sched([(0, [1]), (2, [1])], ["D.D"]))
    # An idle entry stops the forced computation: data at 0, idle from 1, no completion.
    assert replay(instance, sched([(0, [1]), (1, [0])], ["D"])) == []
    # Leaving loses the data: re-enrolled at 2, it needs it again (III-C), D at 2, compute 3, 4.
    assert replay(instance, sched([(0, [1]), (1, [0]), (2, [1])], ["D.D"])) == [4]


def test_a_partial_program_is_lost_on_leaving_a_complete_one_kept():
    # T_prog = 2: P0 gets one program slot at 0, leaves at 1, comes back at 2: it needs both
    # slots again (III-C, "resumed from scratch if the worker ... was removed").
    instance = inst(["UUUUUUU", "UUUUUUU"], [1, 1], [1, 1], 1, T_prog=2)
    assert replay(instance, sched([(0, [1, 0]), (1, [0, 1]), (2, [1, 0])], ["P.PP", ".P"])) == [4]
    with pytest.raises(Infeasible, match=r"communication\[0\]\[4\]: 'P' but processor 0 already"):
        replay(instance, sched([(0, [1, 0]), (1, [0, 1]), (2, [1, 0])], ["P.PPP", ".P"]))
    # A complete program survives leaving: P0 has it at 2, leaves, comes back at 4, computes at 4.
    assert replay(instance, sched([(0, [1, 0]), (2, [0, 1]), (4, [1, 0])], ["PP", "..P"])) == [4]


def test_a_down_worker_loses_its_data_the_others_keep_theirs():
    """The DOWN of P1 at 3 restarts the attempt; P0 keeps the data it received at 0 and 1.

    Under the old reading (every new attempt zeroes every worker's data) the optimum was 9:
    four data slots again from 4, compute at 8. Now P1's two slots at 4, 5 suffice: 7.
    """
    instance = inst(["UUUUUUUUUU", "UUUDUUUUUU"], [1, 1], [1, 1], 2, n_com=1, T_data=2)
    schedule = sched([(0, [1, 1])], ["DD", "..D.DD"], [6])
    assert check_claim(instance, schedule) == 7
    assert brute_full(instance) == 7
    found, makespan, _, proven = solve_full_cpsat(instance)
    assert proven and makespan == 7 and check_claim(instance, found) == 7


def test_computation_is_forced_and_no_overlap():
    # Two tasks of w = 2 (W = 4): data at 0, 1, then it must compute at 2, 3, 4, 5.
    instance = inst(["UUUUUU"], [2], [None], 2, T_data=1)
    assert replay(instance, sched([(0, [2])], ["DD"])) == [5]
    # One task: its data is complete at the start of 1, it computes at 1, a D at 1 is useless.
    instance = inst(["UUUU"], [2], [None], 1, T_data=1)
    with pytest.raises(Infeasible, match=r"schedule\.communication\[0\]\[1\]: 'D' but processor 0"):
        replay(instance, sched([(0, [1])], ["DD"]))


def test_communication_free_replay():
    instance = inst(["UUU", "URU"], [1, 1], [1, 1], 2, T_prog=3, T_data=1)
    schedule = sched([(0, [1, 1])])
    assert replay(instance, schedule) == []  # never receives anything
    assert replay(instance, schedule, communication=False) == [0]
    with pytest.raises(Infeasible, match=r"communication\[1\]\[0\]: no transfer"):
        replay(instance, sched([(0, [1, 1])], ["", "P"]), communication=False)


# ---------------------------------------------------------------- broken schedules


def valid():
    """Two processors, P1 RECLAIMED at 1 and DOWN at 3; mu = (2, 1), m = 2, T_prog = T_data = 1.

    Allocation (1, 1) from 0; P0: program 0, data 1; P1: program 4, data 5. The DOWN of
    enrolled P1 at 3 starts a new attempt at 4; P0 was not DOWN and keeps its data (Sections
    III-C and VI-A), so everybody is ready at the start of 6: done at 6.
    """
    instance = inst(["UUUUUUUU", "URUDUUUU"], [1, 1], [2, 1], 2, n_com=1, T_prog=1, T_data=1)
    schedule = sched([(0, [1, 1])], ["PD", "....PD"], [6])
    return instance, schedule


def test_valid_base():
    instance, schedule = valid()
    assert replay(instance, schedule) == [6]
    assert check_claim(instance, schedule) == 7
    # P0's data at 6 instead: everybody ready at the start of 7, W = 1: done at 7.
    schedule["communication"] = ["P.....D", "....PD"]
    assert replay(instance, schedule) == [7]
    schedule["completions"] = [7]
    assert check_claim(instance, schedule) == 8


def broken(mutate):
    instance, schedule = valid()
    schedule["communication"] = ["P.....D", "....PD"]
    schedule["completions"] = [7]
    mutate(schedule)
    return instance, schedule


def setitem(path, value):
    return lambda s: set_item(s, path, value)


BROKEN = [
    ("bandwidth", setitem(("communication",), ["P...D", "....PD"]), r"communication\[\*\]\[4\]: 2 transfers"),
    (
        "reclaimed",
        setitem(("communication",), ["P.....D", ".P..PD"]),
        r"communication\[1\]\[1\]: 'P' while processor 1 is RECLAIMED",
    ),
    (
        "down",
        setitem(("communication",), ["P.....D", "...PPD"]),
        r"communication\[1\]\[3\]: 'P' while processor 1 is DOWN",
    ),
    (
        "unenrolled",
        setitem(("configurations", 0, "allocation"), [2, 0]),
        r"communication\[1\]\[4\]: 'P' to processor 1, which is not enrolled at slot 4",
    ),
    (
        "not-enrolled-before-start",
        lambda s: s["configurations"][0].update(start=1),
        r"communication\[0\]\[0\]: 'P' to processor 0, which is not enrolled",
    ),
    (
        "useless-program",
        setitem(("communication",), ["PP....D", "....PD"]),
        r"communication\[0\]\[1\]: 'P' but processor 0 already has the program",
    ),
    (
        "useless-data",
        setitem(("communication",), ["P.....D", "....PDD"]),
        r"communication\[1\]\[6\]: 'D' but processor 1 already has the data",
    ),
    (
        "over-mu",
        setitem(("configurations", 0, "allocation"), [0, 2]),
        r"configurations\[0\]\.allocation\[1\]: 2 tasks exceed mu\[1\] = 1",
    ),
    (
        "sum",
        setitem(("configurations", 0, "allocation"), [1, 0]),
        r"configurations\[0\]\.allocation: must be all zero \(idle\) or sum to m = 2, sums to 1",
    ),
    (
        "negative",
        setitem(("configurations", 0, "allocation"), [1, -1]),
        r"configurations\[0\]\.allocation\[1\]: must be a non-negative integer",
    ),
    (
        "bool",
        setitem(("configurations", 0, "allocation"), [True, True]),
        r"configurations\[0\]\.allocation\[0\]: must be a non-negative integer",
    ),
    (
        "float",
        setitem(("configurations", 0, "allocation"), [1.0, 1]),
        r"configurations\[0\]\.allocation\[0\]: must be a non-negative integer",
    ),
    (
        "length",
        setitem(("configurations", 0, "allocation"), [1, 1, 0]),
        r"configurations\[0\]\.allocation: must list one integer per processor \(2\)",
    ),
    ("start-type", setitem(("configurations", 0, "start"), "0"), r"configurations\[0\]\.start: must be"),
    ("start-negative", setitem(("configurations", 0, "start"), -1), r"configurations\[0\]\.start: must be"),
    ("start-beyond", setitem(("configurations", 0, "start"), 8), r"configurations\[0\]\.start: must be"),
    (
        "starts-equal",
        lambda s: s["configurations"].append({"start": 0, "allocation": [1, 1]}),
        r"configurations\[1\]\.start: starts must be strictly increasing",
    ),
    (
        "starts-decreasing",
        lambda s: s["configurations"].insert(0, {"start": 3, "allocation": [2, 0]}),
        r"configurations\[1\]\.start: starts must be strictly increasing, 0 follows 3",
    ),
    ("entry-type", setitem(("configurations", 0), [0, [1, 1]]), r"configurations\[0\]: must be an object"),
    ("entry-key", setitem(("configurations", 0, "alloc"), [1, 1]), r"configurations\[0\]: unknown keys"),
    (
        "entry-missing",
        lambda s: s["configurations"][0].pop("allocation"),
        r"configurations\[0\]\.allocation: must list",
    ),
    ("configurations-type", setitem(("configurations",), {"start": 0}), r"schedule\.configurations: must be"),
    ("configurations-missing", lambda s: s.pop("configurations"), r"schedule\.configurations: must be"),
    (
        "strings-count",
        setitem(("communication",), ["P.....D"]),
        r"schedule\.communication: must list one string per processor \(2\)",
    ),
    ("string-type", setitem(("communication", 1), 7), r"communication\[1\]: must be a string"),
    ("string-long", setitem(("communication", 1), "....PD..."), r"communication\[1\]: has 9 slots"),
    ("string-letter", setitem(("communication", 1), "....Pd"), r"communication\[1\]\[5\]: 'd' is not"),
    ("completions-type", setitem(("completions",), "7"), r"schedule\.completions: must be a list"),
]


@pytest.mark.parametrize("mutate,pattern", [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_schedule_names_the_field(mutate, pattern):
    instance, schedule = broken(mutate)
    with pytest.raises(Infeasible, match=pattern):
        check_claim(instance, schedule)


def test_schedule_not_an_object():
    instance, _ = valid()
    with pytest.raises(Infeasible, match=r"^schedule: must be an object"):
        replay(instance, [])


@pytest.mark.parametrize("claimed", [[6], [7, 9], []])
def test_wrong_claim_is_rejected_by_the_verifier(claimed):
    instance, schedule = broken(setitem(("completions",), claimed))
    with pytest.raises(Infeasible, match=r"schedule.completions: claimed"):
        check_claim(instance, schedule)


def test_fewer_than_k_iterations_is_rejected_by_the_verifier():
    instance, schedule = valid()
    schedule["communication"] = ["PD", "....P"]  # P1 never gets its data
    assert replay(instance, schedule) == []
    schedule["completions"] = []
    with pytest.raises(Infeasible, match="completes 0 of the K = 1"):
        check_claim(instance, schedule)


def test_replay_does_not_mutate_the_schedule():
    instance, schedule = broken(lambda s: None)
    before = copy.deepcopy(schedule)
    check_claim(instance, schedule)
    assert schedule == before


# ---------------------------------------------------------------- CP-SAT against brute force


@pytest.mark.parametrize(
    "rows,T_prog,expected",
    [
        (["URUU"], 2, 4),  # P at 0 and 2 (kept while RECLAIMED), compute at 3
        (["UDUUU"], 2, 5),  # the program is lost at 1: P at 2, 3, compute at 4
        (["UDUU"], 2, None),  # too short after the DOWN
    ],
)
def test_hand_optima(rows, T_prog, expected):
    instance = inst(rows, [1], [1], 1, T_prog=T_prog)
    assert brute_full(instance) == expected
    _schedule, makespan, bound, proven = solve_full_cpsat(instance)
    assert proven and makespan == expected
    assert bound == (expected if expected is not None else len(rows[0]) + 1)


TINY = [random_tiny(np.random.default_rng([7, seed]), max_p=3, max_h=10) for seed in range(48)]


def test_tiny_set_mixes_feasible_and_infeasible():
    answers = [brute_full(i) for i in TINY[:24]]
    assert sum(a is None for a in answers) >= 3 and sum(a is not None for a in answers) >= 8
    assert any(i.T_prog and i.T_data for i in TINY) and any(i.K == 2 for i in TINY)


@pytest.mark.parametrize("seed", range(len(TINY)))
def test_cpsat_matches_brute_force(seed):
    instance = TINY[seed]
    expected = brute_full(instance)
    schedule, makespan, bound, proven = solve_full_cpsat(instance, seed=seed)
    assert proven
    assert makespan == expected
    if expected is None:
        assert schedule is None and bound == instance.horizon + 1
    else:
        assert bound == expected and check_claim(instance, schedule) == expected
        assert trivial_bound(instance) <= expected
        assert transfer_bound(instance) <= expected


@pytest.mark.parametrize("seed", range(16))
def test_cpsat_without_communication_matches_the_attempt_oracle(seed):
    instance = random_tiny(np.random.default_rng([11, seed]), max_p=4, max_h=12, comm=False)
    expected = brute_nocomm(instance)
    if instance.p <= 3:
        assert brute_full(instance) == expected  # the two oracles agree
    schedule, makespan, _, proven = solve_full_cpsat(instance)
    assert proven and makespan == expected
    if schedule is not None:
        assert check_claim(instance, schedule, communication=False) == expected


def test_model_size_limit():
    instance = inst(["U" * (MAX_CELLS // 2 + 1)] * 2, [1, 1], [1, 1], 1)
    with pytest.raises(InputError, match=r"^horizon: p x H = 2 x 1001"):
        solve_full_cpsat(instance)


# ---------------------------------------------------------------- greedy


@pytest.mark.parametrize("seed", range(0, len(TINY), 2))
def test_greedy_is_an_upper_bound(seed):
    instance = TINY[seed]
    schedule = greedy_full(instance)
    _, optimum, _, _ = solve_full_cpsat(instance, hint=schedule)
    if schedule is None:
        return
    value = check_claim(instance, schedule)
    assert optimum is not None and value >= optimum


def test_greedy_finds_most_tiny_optima():
    found = optimal = 0
    for instance in TINY[:24]:
        schedule = greedy_full(instance)
        if schedule is not None:
            found += 1
            optimal += check_claim(instance, schedule) == brute_full(instance)
    assert found >= 8 and optimal >= found // 2


def test_greedy_on_figure1_and_a_paper_instance():
    instance, _ = figure1()
    schedule = greedy_full(instance)
    assert schedule is not None and check_claim(instance, schedule) <= 20
    paper = generate_paper(3, scenarios=1, trials=1, slots=2000)[0]  # p = 20, m = 5, K = 10
    schedule = greedy_full(paper)
    assert schedule is not None and len(schedule["completions"]) == 10
    assert check_claim(paper, schedule) == schedule["completions"][-1] + 1
    assert greedy_full(paper) == schedule  # deterministic


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(150))
def test_wider_sweep_cpsat_greedy_brute(seed):
    instance = random_tiny(np.random.default_rng([13, seed]), max_p=3, max_h=12)
    expected = brute_full(instance)
    greedy = greedy_full(instance)
    _schedule, makespan, _, proven = solve_full_cpsat(instance, hint=greedy)
    assert proven and makespan == expected
    if greedy is not None:
        assert check_claim(instance, greedy) >= expected


# ---------------------------------------------------------------------------
# solve(problem="full"): bounds, status and gap around the model and the greedy


def test_the_default_method_of_full_follows_the_size():
    small = inst(["UUUU"], [1], [1], 1)
    assert PROBLEMS["full"].method_for(small) == "cpsat"
    assert PROBLEMS["full"].method_for(paper_realization(5, 5, 1, 0, 0)) == "greedy"


def test_solve_full_is_optimal_on_tiny_instances_and_agrees_with_brute_force():
    rng = np.random.default_rng(31)
    seen = set()
    for _ in range(25):
        instance = random_tiny(rng, max_p=3, max_h=9)
        expected = brute_full(instance)
        result = solve(instance, problem="full")
        seen.add(result.status)
        if expected is None:
            assert result.status == SolveStatus.INFEASIBLE and result.objective is None
        else:
            assert result.status == SolveStatus.OPTIMAL and result.verified
            assert result.objective == result.bound == expected
            assert check_claim(instance, result.solution["schedule"]) == expected
    assert seen == {SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE}


@pytest.mark.parametrize("holders_first", [0, 10**9])
def test_the_greedy_method_in_either_order_is_never_below_brute_force(holders_first, monkeypatch):
    """The holder methods before the rollouts (every schedule long) or after them (none is)."""
    monkeypatch.setattr(full_module, "HOLDERS_FIRST", holders_first)
    rng = np.random.default_rng(41)
    feasible = proven = 0
    for _ in range(150):
        instance = random_tiny(rng, max_p=3, max_h=10, max_k=3)
        expected = brute_full(instance)
        result = solve(instance, problem="full", method="greedy")
        if expected is None:
            assert result.objective is None
            continue
        feasible += 1
        assert result.bound <= expected
        if result.objective is not None:
            assert check_claim(instance, result.solution["schedule"]) == result.objective >= expected
            proven += result.status == SolveStatus.OPTIMAL
    # measured: 57 feasible, 55 proven in both orders
    assert feasible >= 40 and proven >= 0.9 * feasible


def test_after_a_long_greedy_schedule_the_holder_methods_run_before_the_rollouts(monkeypatch):
    # Section VII-A, m = 5, n_com = 10, w_min = 1, scenario 4, trial 5: the holder search proves 126.
    calls = []

    def spy(name):
        real = getattr(full_module, name)
        return lambda *args: calls.append(name) or real(*args)

    for name in ("rollout_passes", "holder_search"):
        monkeypatch.setattr(full_module, name, spy(name))
    instance = paper_realization(5, 10, 1, 4, 5)
    after = solve(instance, problem="full", method="greedy")
    assert calls[:2] == ["rollout_passes", "holder_search"]  # 126 slots: the rollouts first
    calls.clear()
    monkeypatch.setattr(full_module, "HOLDERS_FIRST", 0)
    before = solve(instance, problem="full", method="greedy")
    assert "holder_search" in calls and "rollout_passes" not in calls  # proven without a rollout
    assert (before.status, before.objective, before.bound) == (after.status, after.objective, after.bound)
    assert before.status == SolveStatus.OPTIMAL and before.work < after.work


def test_solve_full_on_a_paper_realization_reports_bounds_and_a_gap():
    """Too large for the model: cpsat refuses it by name, and without --method greedy runs instead."""
    instance = paper_realization(5, 5, 1, 0, 0)
    with pytest.raises(InputError, match=r"^--method: cpsat builds a time-indexed model .* --method greedy"):
        solve(instance, problem="full", method="cpsat")
    result = solve(instance, problem="full")
    relaxed = solve(instance, problem="iterations")
    assert result.method == "greedy" and result.solution["model"] == "not requested (method greedy)"
    assert result.bound >= relaxed.objective == result.solution["lower_bounds"]["iterations"]
    if result.objective is None:
        assert result.status == SolveStatus.UNKNOWN
    else:
        assert check_claim(instance, result.solution["schedule"]) == result.objective >= result.bound
        assert (result.status == SolveStatus.OPTIMAL) == (result.objective == result.bound)
        assert result.gap == pytest.approx((result.objective - result.bound) / result.objective)


def test_solve_full_without_k_relaxed_iterations_is_infeasible():
    instance = inst(["UUDUUDUU", "UDUUDUUD"], [2, 2], [1, 1], 2, K=1)
    result = solve(instance, problem="full")
    assert result.status == SolveStatus.INFEASIBLE and brute_full(instance) is None
    assert result.solution["completed_iterations_without_communication"] == 0


def test_solve_full_lower_bound_is_never_above_brute_force():
    rng = np.random.default_rng(8)
    for _ in range(15):
        instance = random_tiny(rng, max_p=3, max_h=9)
        expected = brute_full(instance)
        result = solve(instance, problem="full", time_limit=0.01)
        if expected is not None and result.bound is not None:
            assert result.bound <= expected
        if result.objective is not None:
            assert expected is not None and result.objective >= expected


@pytest.mark.parametrize("seed", range(40))
def test_the_transfer_bound_never_exceeds_brute_force(seed):
    """A proof on tiny instances must hold: the bandwidth bound, against the BFS over every decision."""
    rng = np.random.default_rng([21, seed])
    instance = random_tiny(rng, max_p=3, max_h=9)
    expected = brute_full(instance)
    if expected is not None:
        assert transfer_bound(instance) <= expected


def test_the_repro_without_a_proof_is_proven_at_once():
    path = (
        Path(__file__).resolve().parents[3].parent
        / "shared"
        / "data"
        / "repro"
        / "coupled-full-6x12-no-proof.json"
    )
    if not path.exists():
        pytest.skip(f"{path} is absent")
    instance = CoupledInstance.from_json(json.loads(path.read_text()))
    method = PROBLEMS["full"].method_for(instance)
    result = solve(instance, problem="full", method=method, **limits("coupled", "full", method))
    assert (result.status, result.objective, result.bound) == (SolveStatus.OPTIMAL, 9.0, 9.0)
    assert result.info["model"].startswith("not needed") and transfer_bound(instance) == 9


def test_huge_allocations_do_not_wrap_around_to_m():
    """2^62 tasks on three processors, 2^62 + 4 on a fourth and 1 on a fifth: m = 5, no int64 wrap."""
    instance = paper_realization(5, 5, 1, 0, 0)
    big = 2**62
    alloc = [big, big, big, big + 4, 1] + [0] * (instance.p - 5)
    assert np.asarray(alloc, dtype=np.uint64).astype(np.int64).sum() == 5  # the wrap the verifier must avoid
    schedule = {
        "configurations": [{"start": 0, "allocation": alloc}],
        "communication": [],
        "completions": [9],
    }
    with pytest.raises(Infeasible, match=r"allocation\[0\]: .* exceed the m = 5"):
        check_claim(instance, schedule, communication=False)


def test_the_greedy_takes_fast_workers_that_stay_up():
    """(5, 5, 1, 0, 0) read to 14 slots, one iteration: the five fastest workers include two that
    are DOWN or RECLAIMED within 6 slots, and the four first orders took 3 tasks on P17 (11 slots).
    The fastest among those UP for 8 slots (P6, P7, P13, P17, P18: 6 transfer slots, then W = 3)
    meet the data chain's bound 9, which CP-SAT also proved optimal (47 s, session 24)."""
    instance = paper_realization(5, 5, 1, 0, 0)
    instance = CoupledInstance(
        availability=instance.availability[:, :14],
        w=instance.w,
        mu=instance.mu,
        m=5,
        n_com=5,
        T_prog=instance.T_prog,
        T_data=instance.T_data,
        K=1,
    )
    result = solve(instance, problem="full", method="greedy")
    assert result.status is SolveStatus.OPTIMAL and result.objective == 9
    first = result.solution["schedule"]["configurations"][0]["allocation"]
    assert np.flatnonzero(first).tolist() == [6, 7, 13, 17, 18]
