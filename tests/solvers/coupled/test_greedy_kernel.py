"""The compiled ``full`` greedy against the Python greedy it replaced (``tests/oracles/coupled/greedy.py``).

Random tiny instances (every subset a candidate), random wider ones (more than
``ALL_SUBSETS`` processors UP: the four orders), and paper realizations read far:
the schedules must be the same, entry for entry and transfer for transfer.
"""

import dataclasses

import numpy as np
import pytest
from oracles.coupled.full import random_tiny
from oracles.coupled.greedy import greedy_full_oracle

from volsched.instances.coupled import CoupledInstance, paper_realization
from volsched.solvers.coupled import _greedy_kernel as full_greedy_kernel
from volsched.solvers.coupled import full_greedy
from volsched.solvers.coupled.full_bound import DataChain, data_chain
from volsched.solvers.coupled.full_greedy import ALL_SUBSETS, LOOKAHEAD, REACHES, greedy_full, greedy_pass
from volsched.solvers.coupled.horizon import cut
from volsched.solvers.coupled.replay import LETTERS, check_claim
from volsched.solvers.problem import Allowance


def random_wide(rng: np.random.Generator) -> CoupledInstance:
    """Up to 12 processors, mostly UP, with ties in ``w`` and caps, and enough slots for ``K`` iterations."""
    p = int(rng.integers(ALL_SUBSETS + 1, 13))
    horizon = int(rng.integers(20, 120))
    avail = rng.choice(3, size=(p, horizon), p=rng.dirichlet([12.0, 1.5, 1.0])).astype(np.int8)
    m = int(rng.integers(1, 7))
    mu = [None if v == 0 else int(v) for v in rng.integers(0, 4, p)]
    if sum(min(m, v if v is not None else m) for v in mu) < m:
        mu = [None] * p
    return CoupledInstance(
        availability=avail,
        w=rng.integers(1, 4, p).tolist(),
        mu=mu,
        m=m,
        n_com=int(rng.integers(1, 4)),
        T_prog=int(rng.integers(0, 4)),
        T_data=int(rng.integers(0, 3)),
        K=int(rng.integers(1, 4)),
    )


@pytest.mark.parametrize("seed", range(300))
def test_same_schedule_as_the_python_greedy_on_tiny_instances(seed):
    instance = random_tiny(np.random.default_rng([31, seed]), max_p=5, max_h=24, max_k=3)
    assert greedy_pass(instance, True) == greedy_full_oracle(instance)


@pytest.mark.parametrize("spans", [True, False])
@pytest.mark.parametrize("seed", range(150))
def test_same_schedule_as_the_python_greedy_on_wide_instances(seed, spans):
    instance = random_wide(np.random.default_rng([37, seed]))
    schedule = greedy_pass(instance, spans)
    assert schedule == greedy_full_oracle(instance, spans=spans)
    if schedule is not None:
        assert check_claim(instance, schedule) == schedule["completions"][-1] + 1


def guided_rollouts(instance: CoupledInstance) -> list:
    """The rollout passes of greedy_full, each with the data chain's guide."""
    chain = DataChain(instance)
    return [greedy_pass(instance, True, lookahead=LOOKAHEAD, reach=reach, chain=chain) for reach in REACHES]


def test_the_greedy_keeps_the_best_pass():
    """Over the wide instances greedy_full takes the best of the two plain passes and the rollouts;
    the span pass wins some."""
    wins = {True: 0, False: 0}
    for seed in range(150):
        instance = random_wide(np.random.default_rng([37, seed]))
        makespans = {
            spans: None if (s := greedy_full_oracle(instance, spans=spans)) is None else s["completions"][-1]
            for spans in (True, False)
        }
        rollouts = guided_rollouts(instance) if makespans[True] is not None else []
        best = greedy_full(instance)
        if best is None:
            assert makespans == {True: None, False: None}
            continue
        found = [v for v in makespans.values() if v is not None]
        found += [rollout["completions"][-1] for rollout in rollouts if rollout is not None]
        assert best["completions"][-1] == min(found)
        for spans in (True, False):
            other = makespans[not spans]
            wins[spans] += makespans[spans] is not None and (other is None or makespans[spans] < other)
    assert wins[True] > 0


def test_the_pass_without_span_orders_can_be_the_better():
    """(5, 5, 3, 3, 9): the span pass's first choices leave it later (373 slots against 334 in
    session 24), and greedy_full keeps the other pass."""
    instance = cut(paper_realization(5, 5, 3, scenario=3, trial=9), 2000)
    with_spans, without = (
        greedy_full_oracle(instance, spans=spans)["completions"][-1] for spans in (True, False)
    )
    assert without < with_spans
    rollouts = guided_rollouts(instance)
    assert greedy_full(instance)["completions"][-1] == min(
        [without] + [rollout["completions"][-1] for rollout in rollouts if rollout is not None]
    )


@pytest.mark.parametrize(
    ("m", "n_com", "w_min", "slots"),
    [(5, 5, 1, 2000), (10, 1, 2, 8000), (10, 10, 3, 16000), (5, 20, 6, 32000)],
)
def test_same_schedule_as_the_python_greedy_on_paper_realizations(m, n_com, w_min, slots):
    instance = cut(paper_realization(m, n_com, w_min, scenario=1, trial=2), slots)
    schedule = greedy_pass(instance, True)
    assert schedule == greedy_full_oracle(instance)
    if schedule is not None:
        assert check_claim(instance, schedule) == schedule["completions"][-1] + 1


def test_wide_instances_reach_the_orders():
    """The wide set is not vacuous: most instances have more than ALL_SUBSETS processors UP at slot 0."""
    wide = [random_wide(np.random.default_rng([37, seed])) for seed in range(150)]
    assert sum(int((inst.availability[:, 0] == 0).sum()) > ALL_SUBSETS for inst in wide) > 100
    assert sum(greedy_full(inst) is not None for inst in wide) > 50


@pytest.mark.parametrize("seed", range(60))
def test_a_rollout_of_one_candidate_is_the_plain_pass(seed):
    """Pausing at each choice and committing the earliest candidate changes nothing."""
    instance = random_wide(np.random.default_rng([37, seed]))
    for spans in (True, False):
        assert greedy_pass(instance, spans, lookahead=1) == greedy_pass(instance, spans)


@pytest.mark.parametrize("seed", range(60))
def test_the_rollout_is_never_later_than_the_plain_pass(seed):
    rng = np.random.default_rng([41, seed])
    instance = random_wide(rng) if seed % 2 else random_tiny(rng, max_p=5, max_h=24, max_k=3)
    plain = greedy_pass(instance, True)
    rollout = greedy_pass(instance, True, lookahead=LOOKAHEAD)
    if plain is not None:
        assert rollout is not None and rollout["completions"][-1] <= plain["completions"][-1]
    if rollout is not None:
        assert check_claim(instance, rollout) == rollout["completions"][-1] + 1
    for reach in REACHES:
        short = greedy_pass(instance, True, lookahead=LOOKAHEAD, reach=reach)
        if short is not None:
            assert check_claim(instance, short) == short["completions"][-1] + 1


def test_the_rollout_keeps_workers_for_the_next_iteration():
    """(5, 10, 1, 8, 8) with K = 3: the plain greedy takes the earliest first and second iterations
    (8, 18) on the fast workers 1 and 10, both lost by slot 27, and waits for the third until 95;
    the rollout starts later ({10: 4, 17: 1} completes at 12) and finishes at 42. CP-SAT proves
    the optimum 22 (``benchmarks/bench_coupled_gap_sources.py``)."""
    instance = cut(dataclasses.replace(paper_realization(5, 10, 1, scenario=8, trial=8), K=3), 2000)
    assert greedy_pass(instance, True)["completions"] == [8, 18, 95]
    rollout = greedy_pass(instance, True, lookahead=LOOKAHEAD)
    assert rollout["completions"][-1] <= 42
    assert check_claim(instance, rollout) == rollout["completions"][-1] + 1


def test_the_rollout_preloads_programs(monkeypatch):
    """(5, 5, 1, 8, 0) with K = 5: the rollout's preload option sends programs to spare workers
    (one task each, only until they hold it) and finishes earlier than the rollout without it;
    the replay accepts the schedule, whose first entry is a preload that computes nothing."""
    instance = cut(dataclasses.replace(paper_realization(5, 5, 1, scenario=8, trial=0), K=5), 2000)
    with_preload = greedy_pass(instance, True, lookahead=LOOKAHEAD)
    monkeypatch.setattr(full_greedy._Run, "spread", lambda self: None)
    without = greedy_pass(instance, True, lookahead=LOOKAHEAD)
    assert with_preload["completions"][-1] < without["completions"][-1]
    assert check_claim(instance, with_preload) == with_preload["completions"][-1] + 1
    first, second = with_preload["configurations"][:2]
    assert second["start"] <= with_preload["completions"][0]
    assert sum(first["allocation"]) == instance.m and first["allocation"] != second["allocation"]


def test_the_rollout_waits_for_a_worker_that_comes_up(monkeypatch):
    """(5, 5, 2, 4, 6) with K = 5: at slot 143 every candidate has a slow worker, and P3 (w 10) and
    P10 (w 7) come UP at 145. The rollout's wait option keeps {P13: 5} in force, sending its
    program, and at 145 enrolls {3: 1, 10: 1, 13: 2, 18: 1}: the fifth iteration completes at 166,
    where the data chain proves the optimum (CP-SAT found 168 in 200 s). Without the wait option
    the rollout completes it at 183."""
    instance = cut(dataclasses.replace(paper_realization(5, 5, 2, scenario=4, trial=6), K=5), 400)
    with_wait = greedy_pass(instance, True, lookahead=LOOKAHEAD)
    assert with_wait["completions"][-1] == data_chain(instance)[-1] == 166
    assert check_claim(instance, with_wait) == 167
    starts = {entry["start"]: entry["allocation"] for entry in with_wait["configurations"]}
    assert {q: x for q, x in enumerate(starts[145]) if x} == {3: 1, 10: 1, 13: 2, 18: 1}
    assert instance.availability[3, 144] != 0 and instance.availability[10, 144] != 0
    monkeypatch.setattr(full_greedy._Run, "rise", lambda self: -1)
    without = greedy_pass(instance, True, lookahead=LOOKAHEAD)
    assert without["completions"][-1] == 183


def test_a_shorter_reach_can_be_the_better():
    """(5, 20, 2, 1, 3): judged by the last completion, the rollout's early steps follow the plain
    greedy's noisy tail (626 slots); judged two iterations on it finishes at 368, and greedy_full
    keeps the best pass."""
    instance = cut(paper_realization(5, 20, 2, scenario=1, trial=3), 700)
    whole, short = (
        greedy_pass(instance, True, lookahead=LOOKAHEAD, reach=reach)["completions"][-1] + 1
        for reach in (None, 2)
    )
    assert short < whole
    best = greedy_full(instance)
    assert best["completions"][-1] + 1 <= short
    assert check_claim(instance, best) == best["completions"][-1] + 1


@pytest.mark.parametrize("seed", range(40))
def test_a_pass_that_meets_the_lower_bound_ends_the_search(seed):
    """greedy_full stops once a pass meets ``target``: with the data chain's bound as the target
    it finds the same makespan as with none, and without any rollout when the span pass meets it."""
    rng = np.random.default_rng([43, seed])
    instance = random_wide(rng) if seed % 2 else random_tiny(rng, max_p=5, max_h=24, max_k=3)
    chain = data_chain(instance)
    if len(chain) < instance.K:
        return
    lower = chain[-1] + 1
    full, early = greedy_full(instance), greedy_full(instance, target=lower)
    assert (full is None) == (early is None)
    if full is not None:
        assert early["completions"][-1] == full["completions"][-1]
        span = greedy_pass(instance, True)
        if span is not None and span["completions"][-1] + 1 == lower:
            assert early == span


def test_the_rollout_keeps_a_configuration_through_its_workers_down_slots(monkeypatch):
    """(5, 10, 3, 2, 0) with K = 3: from slot 197 the rollout keeps {P14: 3, P19: 2} in force
    while P14 goes DOWN and comes back (Section III-C: the survivor keeps its data, P14 receives
    its program again), and completes at 436; no single attempt does better, and without that
    option the rollout completes at 449. The replay accepts the schedule."""
    instance = cut(dataclasses.replace(paper_realization(5, 10, 3, scenario=2, trial=0), K=3), 1500)
    kept = greedy_pass(instance, True, lookahead=LOOKAHEAD)
    assert kept["completions"] == [33, 126, 436]
    assert check_claim(instance, kept) == 437
    last = kept["configurations"][-1]
    assert last["start"] == 197 and {q: x for q, x in enumerate(last["allocation"]) if x} == {14: 3, 19: 2}
    assert kept["communication"][14][197:].count("P") > 2 * instance.T_prog
    assert (instance.availability[14, 197:437] == 2).any()
    monkeypatch.setattr(full_greedy._Run, "commit_persist", lambda self, record: False)
    assert greedy_pass(instance, True, lookahead=LOOKAHEAD)["completions"][-1] == 449


@pytest.mark.parametrize("seed", range(80))
def test_a_configuration_kept_through_down_slots_replays_as_claimed(seed):
    """The keep option's simulation against the replay: a random allocation over the processors
    UP at slot 0, kept in force from there (one entry, K = 1), completes where the replay says."""
    rng = np.random.default_rng([47, seed])
    instance = dataclasses.replace(random_wide(rng), K=1)
    up = np.flatnonzero(instance.availability[:, 0] == 0)
    cap = [int(min(mu, instance.m)) for mu in instance.mu]
    if sum(cap[q] for q in up) < instance.m:
        return
    x = np.zeros(instance.p, dtype=np.int64)
    while x.sum() < instance.m:
        q = int(rng.choice(up))
        x[q] += x[q] < cap[q]
    run = full_greedy._Run(instance, full_greedy_kernel, True, 2)
    run.top_px[:] = x
    scratch = full_greedy_kernel._scratch(instance.p, 1)
    next_down, next_off = run.tables[:2]
    done, _ = full_greedy_kernel._persist(
        x,
        0,
        run.prog,
        instance.horizon,
        0,
        False,
        run.avail,
        next_down,
        next_off,
        run.w,
        instance.n_com,
        instance.T_prog,
        instance.T_data,
        *scratch,
    )
    if done < 0:
        return
    run.top_pt[0] = done
    run.commit_persist(True)
    schedule = {
        "configurations": [{"start": 0, "allocation": x.tolist()}],
        "communication": ["".join(LETTERS[c] for c in row).rstrip(".") for row in run.comm],
        "completions": [done],
    }
    assert check_claim(instance, schedule) == done + 1


def test_the_data_chains_allocation_guides_the_rollout():
    """(5, 10, 2, 5, 7): the rollouts alone end at 430; with the data chain's allocation from each
    step's slot among the options (kept in force through DOWN slots), the reach-1 rollout ends at
    298, the data chain's bound: proven optimal. The replay accepts it."""
    instance = cut(paper_realization(5, 10, 2, scenario=5, trial=7), 442)
    plain = [greedy_pass(instance, True, lookahead=LOOKAHEAD, reach=reach) for reach in REACHES]
    assert min(s["completions"][-1] for s in plain) == 430
    guided = guided_rollouts(instance)
    best = min(guided, key=lambda s: s["completions"][-1])
    assert best["completions"][-1] == data_chain(instance)[-1] == 298
    assert check_claim(instance, best) == 299
    assert greedy_full(instance)["completions"][-1] == 298


class _Fixed:
    """A stand-in for :class:`DataChain` whose allocation is ``x`` at every slot."""

    def __init__(self, x: np.ndarray):
        self.x = x

    def allocation(self, t0: int) -> np.ndarray:
        return self.x.copy()


@pytest.mark.parametrize("kept", [True, False])
def test_the_guide_is_dropped_only_when_the_keep_option_offers_it(kept):
    """The guide equal to the keep candidate ``top_px`` is a duplicate only while the keep option is
    offered; a stale ``top_px`` (no keep this step) must not hide the guide."""
    instance = dataclasses.replace(cut(paper_realization(5, 10, 2, scenario=5, trial=7), 442), K=1)
    run = full_greedy._Run(instance, full_greedy_kernel, True, LOOKAHEAD)
    x = np.zeros(instance.p, dtype=np.int64)
    x[np.flatnonzero(instance.availability[:, 0] == 0)[0]] = instance.m  # the paper sets no mu
    run.top_px[:] = x
    guide = run.guided(_Fixed(x), kept)
    if kept:
        assert guide is None
    else:
        assert guide is not None and np.array_equal(guide[0], x)


def _rollouts_with(instance, memo, budget, chain):
    """The rollout passes of greedy_full on one allowance, sharing ``memo`` (``None``: none)."""
    allowance = Allowance(budget)
    passes = [greedy_pass(instance, True, allowance, LOOKAHEAD, reach, chain, memo) for reach in REACHES]
    return passes, allowance.effort.work, allowance.effort.stopped


def _counting_trials(monkeypatch) -> list:
    """Count the trial runs (runs that record nothing) of the passes."""
    runs = [0]
    run = full_greedy._Run.run

    def counted(self, record, pause, limit):
        runs[0] += not record
        return run(self, record, pause, limit)

    monkeypatch.setattr(full_greedy._Run, "run", counted)
    return runs


@pytest.mark.parametrize("steps", [1, 3])
def test_trials_read_from_the_memo_give_the_same_schedules_and_charge_the_same_work(monkeypatch, steps):
    """A trial that an earlier pass ran whole, from the same state and option, is read from the
    memo and charged the compiled calls it would have made: every pass returns the same schedule,
    the allowance books the same work, and a budget stops the passes at the same call, whether
    the memo is shared or not. With one or three greedy steps per compiled call, a trial spans
    many calls; the memo spares trial runs on most instances."""
    monkeypatch.setattr(full_greedy, "BUDGET", steps)
    runs = _counting_trials(monkeypatch)
    spared = checked = 0
    for seed in range(40):
        rng = np.random.default_rng([47, seed])
        instance = random_wide(rng) if seed % 2 else random_tiny(rng, max_p=5, max_h=24, max_k=3)
        instance = dataclasses.replace(instance, K=instance.K + 2)
        chain = DataChain(instance)
        runs[0] = 0
        shared = _rollouts_with(instance, {}, None, chain)
        with_memo, runs[0] = runs[0], 0
        assert _rollouts_with(instance, None, None, chain) == shared
        spared += runs[0] > with_memo
        work = int(shared[1])
        for budget in sorted({1, work // 3, work // 2, work - 1, work} - {0}):
            stopped = _rollouts_with(instance, {}, budget, chain)
            assert stopped == _rollouts_with(instance, None, budget, chain)
            checked += stopped[2] is not None
    assert spared >= 20 and checked >= 60


def test_the_memo_spares_the_trials_of_a_paper_realization(monkeypatch):
    """(m, n_com, w_min, scenario, trial) = (5, 10, 3, 2, 1) on 4,000 slots: the same schedules and
    work with the memo, in fewer trial runs."""
    runs = _counting_trials(monkeypatch)
    instance = cut(paper_realization(5, 10, 3, scenario=2, trial=1), 4000)
    chain = DataChain(instance)
    shared = _rollouts_with(instance, {}, None, chain)
    with_memo, runs[0] = runs[0], 0
    assert _rollouts_with(instance, None, None, chain) == shared
    assert any(schedule is not None for schedule in shared[0])
    assert with_memo < runs[0]
