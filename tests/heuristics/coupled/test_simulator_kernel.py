"""The compiled simulator and the proactive shortcuts against the pure-Python code they replaced.

``tests/oracles/coupled/online.py`` keeps the simulator loop and the policies as they were; every
run here must give the same schedule, makespan, decisions and switches, bit for bit.
"""

import dataclasses

import numpy as np
import pytest
from oracles.coupled.online import policy_oracle, simulate_oracle

from volsched.heuristics.coupled import NAMES, policy, simulate
from volsched.heuristics.coupled.estimates import FORMULAS
from volsched.heuristics.coupled.passive import CRITERIA, Criterion, Random, assign, estimates_for
from volsched.heuristics.coupled.proactive import components
from volsched.heuristics.coupled.simulator import Configuration, Observation, Platform, PolicyDefaults
from volsched.instances.coupled import CoupledInstance, paper_realization, parse_availability

FIGURE1 = ["DDDDDDDDDDDDDDDD", "UUUUUUUUUURRUUUU", "UUUUURUUUUUURUUU", "UUUUUUUUUUUUUUUU", "RRRRRRRRRRRRRRRR"]


class Fixed(PolicyDefaults):
    """A given configuration from a given slot on (``test_coupled_simulator.py``)."""

    proactive = False

    def __init__(self, order, start=0, name="fixed"):
        self.order, self.start, self.name = tuple(order), start, name

    def decide(self, observation, rng):
        return Configuration(self.order) if observation.t >= self.start else None


def figure1(m=5, K=1):
    return CoupledInstance(
        availability=parse_availability(FIGURE1),
        w=[1, 2, 3, 4, 5],
        mu=[None] * 5,
        m=m,
        n_com=2,
        T_prog=2,
        T_data=1,
        K=K,
    )


PASSIVE = [n for n in NAMES if "-" not in n]
PROACTIVE = [n for n in NAMES if "-" in n]


def same_run(instance, name, seed, cap, formula="printed"):
    full = name if formula == "printed" else f"{name}[{formula}]"
    new = simulate(instance, policy(full), np.random.default_rng(seed), cap=cap)
    old = simulate_oracle(instance, policy_oracle(name, formula), np.random.default_rng(seed), cap=cap)
    assert dataclasses.asdict(new) == dataclasses.asdict(old), (name, instance.params)
    return new


def sample(count, seed=0):
    """Seeded paper realizations over the whole (m, n_com, w_min) grid."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        m, n_com = int(rng.choice([5, 10])), int(rng.choice([5, 10, 20]))
        w_min, scenario, trial = (int(v) for v in rng.integers((1, 0, 0), (11, 10, 10)))
        yield paper_realization(m, n_com, w_min, scenario, trial, slots=int(rng.choice([200, 2000])))


def test_figure1_and_hand_cases_as_before():
    for order, start in (([1, 2, 3, 1, 2], 1), ([1, 1, 2, 2, 3], 1), ([3], 0)):
        instance = figure1() if len(order) == 5 else figure1(m=1, K=2)
        new = simulate(instance, Fixed(order, start), np.random.default_rng(0))
        old = simulate_oracle(instance, Fixed(order, start), np.random.default_rng(0))
        assert dataclasses.asdict(new) == dataclasses.asdict(old)
    waiting = CoupledInstance(
        availability=parse_availability(["DDUUUUUUUU", "UDDRUUDUUU"]),
        w=[2, 1],
        mu=[None, 1],
        m=2,
        n_com=1,
        T_prog=1,
        T_data=1,
        K=2,
    )
    for seed in range(5):
        new = simulate(waiting, Random(), np.random.default_rng(seed))
        old = simulate_oracle(waiting, Random(), np.random.default_rng(seed))
        assert dataclasses.asdict(new) == dataclasses.asdict(old)


@pytest.mark.parametrize("name", PASSIVE)
def test_passive_runs_are_bit_identical(name):
    # eight realizations here, thirty in test_many_runs_are_bit_identical (--runslow)
    for i, instance in enumerate(sample(8)):
        same_run(instance, name, i, cap=4000)


def test_runs_that_read_the_realization_in_several_prefixes():
    """Past the first 8,192 slots read, and up to the cap, the kernel resumes where it stopped."""
    instance = paper_realization(10, 5, 8, 3, 1, slots=300)
    for name in ("RANDOM", "IE"):
        run = same_run(instance, name, 0, cap=12_000)
        assert run.slots > 8192


@pytest.mark.parametrize("name", PROACTIVE)
def test_proactive_runs_are_bit_identical(name):
    # two realizations here, thirty in test_many_runs_are_bit_identical (--runslow)
    for i, instance in enumerate(sample(2, seed=1)):
        same_run(instance, name, i, cap=800)


@pytest.mark.parametrize("name", ["IE", "IY", "P-IE", "E-IE"])
def test_conditional_runs_are_bit_identical(name):
    """IE on the conditional E learns no power it does not read; the runs are the same."""
    for i, instance in enumerate(sample(8 if "-" not in name else 3, seed=3)):
        same_run(instance, name, i, cap=4000 if "-" not in name else 800, formula="conditional")


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_many_runs_are_bit_identical(name):
    for i, instance in enumerate(sample(30, seed=2)):
        same_run(instance, name, i, cap=6000)
        if name != "RANDOM":
            same_run(instance, name, i, cap=3000, formula="conditional")


def _random_observation(rng, instance, reason="iteration"):
    platform = Platform.of(instance)
    p = instance.p
    t = int(rng.integers(0, instance.horizon))
    x = np.zeros(p, dtype=np.int64)
    if rng.random() < 0.5:
        np.add.at(x, rng.integers(0, p, instance.m), 1)
    program = rng.random(p) < 0.5
    data = np.where(rng.random(p) < 0.3, rng.integers(0, 3 * instance.T_data + 1, p), 0).astype(np.int64)
    needs = np.where(x > 0, instance.T_prog * ~program + np.maximum(x * instance.T_data - data, 0), 0)
    workload = int((x * instance.w).max())
    return Observation(
        t=t,
        reason=reason,
        platform=platform,
        states=instance.availability[:, : t + 1],
        iteration=0,
        iteration_start=int(rng.integers(0, t + 1)),
        allocation=x,
        program=program,
        data=data,
        needs=needs.astype(np.int64),
        progress=int(rng.integers(0, max(workload, 1))),
        workload=workload,
    )


@pytest.mark.parametrize("formula", FORMULAS)
@pytest.mark.parametrize("name", CRITERIA)
def test_compiled_evaluation_gives_the_numpy_bits(name, formula):
    """:class:`SetEstimates` (compiled) against :meth:`Criterion.scores` and the estimates' numpy methods."""
    rng = np.random.default_rng(CRITERIA.index(name) + 10 * FORMULAS.index(formula))
    for instance in sample(8, seed=3):
        platform = Platform.of(instance)
        compiled, numpy_only = Criterion(name, formula), Criterion(name, formula)
        compiled.prepare(platform, estimates_for(platform, name))
        numpy_only.estimates = estimates_for(platform, name)
        assert compiled.engine is not None
        for _ in range(25):
            obs = _random_observation(rng, instance)
            for fresh in (False, True):
                assert assign(obs, compiled, fresh) == assign(obs, numpy_only, fresh)
            if obs.workload:
                remaining = obs.workload - obs.progress
                args = (platform, formula, obs.allocation, obs.needs, remaining)
                fast = components(compiled.estimates, *args, compiled)
                assert fast == components(numpy_only.estimates, *args)


def test_needs_too_long_to_tabulate_use_numpy():
    instance = paper_realization(5, 5, 1, 0, 0, slots=200)
    huge = CoupledInstance(
        availability=instance.availability,
        w=instance.w,
        mu=instance.mu,
        m=5,
        n_com=5,
        T_prog=5,
        T_data=20_000,
        K=2,
        transitions=instance.transitions,
    )
    crit = Criterion("IE")
    crit.prepare(Platform.of(huge), estimates_for(Platform.of(huge), "IE"))
    assert crit.engine is None
    same_run(huge, "IE", 0, cap=200)
    same_run(huge, "P-IE", 0, cap=200)


def test_the_powers_that_promises_rely_on_are_exact():
    """``1^s = 1`` and ``0^s = 0`` (``0^0 = 1``) in numpy's power, as the proactive promises assume."""
    steps = np.arange(0.0, 5000.0)
    assert np.all(np.ones_like(steps) ** steps == 1.0)
    assert np.all(np.zeros_like(steps) ** steps == (steps == 0))


def test_promises_are_used():
    """The kernel keeps the configuration without asking a P or E policy at most slots of a run."""
    instance = paper_realization(5, 5, 3, 1, 1, slots=2000)
    for name in ("P-IE", "E-IAY", "Y-IP"):
        pol = policy(name)
        calls = 0
        decide = pol.decide

        def counted(observation, rng, decide=decide):
            nonlocal calls
            calls += 1
            return decide(observation, rng)

        pol.decide = counted
        run = simulate(instance, pol, np.random.default_rng(0), cap=3000)
        assert calls < run.decisions


def test_small_memos_change_nothing(monkeypatch):
    """Emptying the fresh-configuration memos (Python's and the compiled rule's) when full is harmless."""
    from volsched.heuristics.coupled import proactive

    monkeypatch.setattr(proactive, "_FRESH", 3)
    monkeypatch.setattr(proactive, "_RULE_MEMO", 2)
    for i, instance in enumerate(sample(2, seed=4)):
        for name in ("P-IE", "E-IP", "Y-IAY"):
            same_run(instance, name, i, cap=600)


def test_small_tables_change_nothing(monkeypatch):
    """Emptying the compiled evaluation's tables of sets and powers when half full is harmless: the
    runs are those of the pure-Python simulator."""
    from volsched.heuristics.coupled import passive

    forgets = []
    forget = passive.SetEstimates._forget
    monkeypatch.setattr(passive.SetEstimates, "_forget", lambda self: forgets.append(1) or forget(self))
    for i, instance in enumerate(sample(3, seed=6)):
        # As small as can be while each half holds any one batch: an allocation's value with its
        # workloads learned ahead (a row each, W <= m max w), or a step's candidates with theirs.
        ahead = instance.m * max(instance.w)
        monkeypatch.setattr(passive, "_SETS", 1 << int(np.log2(4 * ahead)) + 1)
        monkeypatch.setattr(
            passive, "_POWERS", 1 << int(np.log2(4 * (ahead + instance.p * instance.m**2))) + 1
        )
        for name in ("IE", "P-IY", "E-IE", "Y-IP"):
            same_run(instance, name, i, cap=1500)
    assert forgets  # the tables were emptied


def test_a_learned_set_brings_every_workload_the_construction_can_give_it():
    """``_workloads`` lists, for a set, every ``W = max_q x_q w_q`` of an allocation ``x`` of at most
    ``m`` tasks within ``mu`` on exactly that set."""
    rng = np.random.default_rng(5)
    for instance in sample(6, seed=5):
        pf = Platform.of(instance)
        crit = Criterion("IE")
        crit.prepare(pf, estimates_for(pf, "IE"))
        engine = crit.engine
        cap = np.minimum(pf.mu, pf.m)
        for _ in range(200):
            x = np.zeros(pf.p, dtype=np.int64)
            for _ in range(int(rng.integers(1, pf.m + 1))):
                open_ = np.flatnonzero(x < cap)
                x[rng.choice(open_)] += 1
            rows, works = engine._workloads(x[None, :], np.array([0]))
            assert int((x * pf.w).max()) in set(works[rows == 0].tolist())
            members = x > 0
            assert np.all(works[1:] >= pf.w[members].max())


def test_the_compiled_rule_takes_the_decisions_of_decide():
    """Runs with the compiled slot rule and with every slot decided in Python are the same."""
    for i, instance in enumerate(sample(4, seed=5)):
        for name in ("P-IP", "E-IE", "Y-IY", "P-IY"):
            pol = policy(name)
            pol.compiled = lambda: None
            python = simulate(instance, pol, np.random.default_rng(i), cap=2000)
            compiled = simulate(instance, policy(name), np.random.default_rng(i), cap=2000)
            assert dataclasses.asdict(python) == dataclasses.asdict(compiled)


def counting(pol):
    """``pol`` with its ``decide`` calls counted in ``pol.calls``."""
    decide = pol.decide
    pol.calls = 0

    def counted(observation, rng):
        pol.calls += 1
        return decide(observation, rng)

    pol.decide = counted
    return pol


def test_the_kernel_takes_the_passive_and_random_decisions():
    """RANDOM always decides in the compiled loop; H does once the values it needs are known."""
    instance = paper_realization(10, 5, 6, 2, 3, slots=2000)
    for name in ("RANDOM", "IE", "IAY"):
        pol = counting(policy(name))
        run = simulate(instance, pol, np.random.default_rng(1), cap=50_000)
        assert run.decisions > 100
        assert pol.calls < run.decisions / 2, (name, pol.calls, run.decisions)
        if name == "RANDOM":
            assert pol.calls == 0


@pytest.mark.parametrize("name", ["RANDOM", "IP", "IY", "P-IAY", "Y-IE"])
def test_decisions_taken_in_python_or_in_the_kernel_are_the_same(name):
    """With no compiled decisions (every decision asked of ``decide``, but those a proactive policy's
    own promises cover) the runs are the same."""
    for i, instance in enumerate(sample(4, seed=7)):
        pol = counting(policy(name))
        pol.compiled = lambda: None
        python = simulate(instance, pol, np.random.default_rng(i), cap=2000)
        assert pol.calls == python.decisions or pol.proactive
        compiled = simulate(instance, policy(name), np.random.default_rng(i), cap=2000)
        assert dataclasses.asdict(python) == dataclasses.asdict(compiled)


@pytest.mark.parametrize(
    ("order", "fragment"),
    [
        ((1, 2, 3, 1), "a configuration assigns the m = 5 tasks"),
        ((1, 2, 3, 1, 9), "a configuration assigns the m = 5 tasks"),
        ((0, 1, 1, 2, 3), "enrolls a worker that is not UP"),
        ((4, 1, 1, 2, 3), "enrolls a worker that is not UP"),
    ],
)
def test_a_policy_configuration_that_breaks_a_rule_is_refused(order, fragment):
    """P_0 is DOWN and P_4 RECLAIMED at slot 0 of Figure 1: a policy may not enroll them."""
    with pytest.raises(ValueError, match=fragment):
        simulate(figure1(), Fixed(order), np.random.default_rng(0))


def test_a_configuration_beyond_mu_is_refused():
    instance = dataclasses.replace(figure1(), mu=[1, 1, 1, 1, 1])
    with pytest.raises(ValueError, match=r"allocation \[0, 2, 1, 1, 1\] exceeds mu"):
        simulate(instance, Fixed((1, 1, 2, 3, 4)), np.random.default_rng(0))
