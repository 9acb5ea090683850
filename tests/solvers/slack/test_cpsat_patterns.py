"""The CP-SAT model's structure (solvers/slack/cpsat_patterns.py): the pruning data in numpy against
the integer loop and against exact fractions, and a too-large model given up before it is built."""

from fractions import Fraction

import numpy as np
import pytest
from ortools.sat.python import cp_model

from volsched.instances.slack.generators import generate_paper
from volsched.solvers.slack import cpsat, cpsat_patterns
from volsched.solvers.slack.bound import lower_bound

#: A beta whose decimal has sixteen digits: ``den a`` passes int64, so the pruning keeps Python ints.
LONG_BETA = 0.1234567890123456


def _data(st):
    return st.forced, st.open_room, st.infeasible, [(c.count_cap, c.need, c.min_load) for c in st.classes]


def _cases():
    for seed in range(6):
        for beta in (0.0, 0.3, 0.7, 1.0, LONG_BETA):
            for machines, jobs in ((5, 12), (12, 60), (30, 240)):
                yield seed, beta, machines, jobs


@pytest.mark.parametrize("problem", ["slack", "plain"])
def test_the_numpy_pruning_is_the_integer_loop(monkeypatch, problem):
    checked = 0
    for seed, beta, machines, jobs in _cases():
        inst = generate_paper(machines, jobs, seed, beta=beta)
        lo = lower_bound(inst, problem)
        if lo is None:
            continue
        for target in (lo, lo + 40, 2 * lo):
            fast = cpsat_patterns.build(inst, problem, target, inst.beta_ratio)
            with monkeypatch.context() as m:
                m.setattr(cpsat_patterns, "_exact_in_int64", lambda st: False)
                loop = cpsat_patterns.build(inst, problem, target, inst.beta_ratio)
            assert _data(fast) == _data(loop), (seed, beta, machines, problem, target)
            checked += bool(fast.classes)
    assert checked >= 100


def test_the_count_caps_are_those_of_exact_fractions():
    """``K(v)``: the most jobs of length ``v`` a bin holds, ``k v + beta v <= a`` and ``k v <= cap``."""
    for beta in (0.0, 0.3, 1.0, LONG_BETA):
        inst = generate_paper(12, 60, 3, beta=beta)
        target = 2 * lower_bound(inst, "slack")
        st = cpsat_patterns.build(inst, "slack", target, inst.beta_ratio)
        assert st.classes
        b = Fraction(repr(beta))
        forced = set(st.forced)
        n_ge = np.cumsum([0 if t in forced else n for t, n in enumerate(st.counts)])
        for c in st.classes:
            for t, v in enumerate(st.sizes):
                room = c.a - b * v
                k = 0 if room < v else min(int(room // v), c.cap // v)
                assert c.count_cap[t] == min(k, int(n_ge[t])), (beta, c.a, v)


def test_a_model_past_the_count_limit_is_given_up_before_any_bin_is_built(monkeypatch):
    inst = generate_paper(12, 60, 0, beta=0.5)
    target = 2 * lower_bound(inst, "slack")
    st = cpsat_patterns.build(inst, "slack", target, inst.beta_ratio)
    assert len(st.classes) >= 2
    monkeypatch.setattr(cpsat_patterns, "MAX_NODES", 0)  # every class needs the count model
    # the open bins and the first class fit the limit, all the classes do not
    limit = max(len(st.open), st.classes[0].m) * len(st.sizes)
    assert sum(c.m for c in st.classes) * len(st.sizes) > limit
    monkeypatch.setattr(cpsat, "MAX_COUNT_VARS", limit)
    made = []
    real = cp_model.CpModel.new_int_var

    def counted(self, *args, **kwargs):
        made.append(args[-1])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(cp_model.CpModel, "new_int_var", counted)
    with pytest.raises(cpsat.TooLarge):
        cpsat._model(st, target // 2)
    assert made == ["C"]
