"""Slack generators: the Section 6 stand-in, Theorem 2's own, the 3-PARTITION reduction (files, planted)."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.slack.brute import brute_force

from volsched.instances.errors import InputError
from volsched.instances.slack import SlackInstance
from volsched.instances.slack.generators import (
    generate_paper,
    generate_planted,
    generate_theorem2,
    lpt_free_bound,
    solve_three_partition,
    three_partition_from_file,
    three_partition_instance,
)

DATA = Path(__file__).resolve().parents[2] / "data"
BPPLIB = DATA / "broken" / "slack" / "bpplib"
EXPECTED = json.loads((BPPLIB / "EXPECTED.json").read_text())
FALKENAUER = Path("/work/shared/data/falkenauer_t")


def _json(inst) -> str:
    return json.dumps(inst.to_json(), sort_keys=True)


# --- paper ----------------------------------------------------------------------------------------


def test_paper_is_seeded_and_round_trips():
    a, b = generate_paper(40, 300, seed=5), generate_paper(40, 300, seed=5)
    assert _json(a) == _json(b)
    assert _json(a) != _json(generate_paper(40, 300, seed=6))
    assert _json(SlackInstance.from_json(json.loads(_json(a)))) == _json(a)


def test_paper_matches_section_6():
    inst = generate_paper(300, 3000, seed=0)
    assert (inst.m, inst.n, inst.lam) == (300, 3000, 60)  # 20 % free, counted among the m
    assert inst.free == tuple(range(240, 300))
    assert int(inst.p.min()) >= 30 * 60  # jobs of at least 30 minutes, in seconds
    assert inst.params["time_unit"] == "second"
    horizon = 10 * lpt_free_bound(inst.p, inst.lam)
    for i in range(240):  # every non-free machine extends past the horizon; its last interval crosses it
        e = inst.e(i)
        assert e[-1] >= horizon and (len(e) == 1 or e[-2] < horizon)
    t = inst.table
    assert (t["u"] >= 1).all() and (t["a"] >= 0).all()
    short = float(np.mean(t["a"] < 30 * 60))
    assert 0.40 < short < 0.50  # Table I's Weibull: about 45 % of availability periods under 30 min
    assert not inst.theorem2_assumption  # slack.md 5.4: it essentially never holds


def test_paper_rejects_a_horizon_beyond_the_dates():
    with pytest.raises(InputError, match="--horizon"):
        generate_paper(5, 3000, seed=0, horizon=1e6)


def test_paper_free_fraction():
    assert generate_paper(4, 10, seed=0).lam == 1  # round(0.8) = 1
    assert generate_paper(4, 10, seed=0, free_fraction=0.01).lam == 1  # at least one when positive
    assert generate_paper(4, 10, seed=0, free_fraction=0.0, horizon=0.5).lam == 0
    assert generate_paper(3, 10, seed=0, free_fraction=1.0).n_intervals == 0


# --- theorem2 -------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), p_max=st.integers(1, 6), extra=st.integers(0, 10), lam=st.integers(1, 3))
def test_theorem2_assumption_holds_by_construction(seed, p_max, extra, lam):
    inst = generate_theorem2(
        machines=lam + 2,
        jobs=10,
        seed=seed,
        lam=lam,
        p_max=p_max,
        a_min=2 * p_max + extra,
        a_max=2 * p_max + extra + 5,
        u_max=4,
    )
    assert inst.theorem2_assumption and 2 * inst.p_max <= inst.a_min
    t = inst.table
    assert (t["a"] >= 2 * p_max + extra).all() and (t["a"] <= 2 * p_max + extra + 5).all()
    assert (t["u"] >= 1).all() and (t["u"] <= 4).all() and inst.lam == lam
    assert inst.gamma == inst.u_max / inst.a_min


def test_theorem2_rejects_parameters_that_break_the_assumption():
    with pytest.raises(InputError, match=r"--a-min: Theorem 2 needs 2 p_max <= a_min: 2 x 6 = 12 > 11"):
        generate_theorem2(p_max=6, a_min=11)
    with pytest.raises(InputError, match="--a-max"):
        generate_theorem2(a_min=10, a_max=9)
    with pytest.raises(InputError, match="--lam"):
        generate_theorem2(machines=2, lam=3)


# --- BPPLIB and the reduction -------------------------------------------------------------------


def test_every_broken_bpplib_file_has_an_expected_error():
    assert {p.name for p in BPPLIB.glob("*.txt")} - {"valid.txt"} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_bpplib_file_is_rejected_naming_file_and_line(name):
    with pytest.raises(InputError) as err:
        three_partition_from_file(BPPLIB / name)
    assert str(err.value).startswith(str(BPPLIB / name))
    assert EXPECTED[name] in str(err.value)


def test_valid_bpplib_file_builds_the_completion():
    inst = three_partition_from_file(BPPLIB / "valid.txt", u=3)
    B, m, A = 100, 2, 302
    assert inst.target == A + 3 and inst.beta == 1.0 and inst.lam == 1 and inst.m == m + 1
    assert [row.tolist() for row in inst.machines] == [[[A, A + 3]], [[A, A + 3]], []]
    assert inst.p.tolist() == [30, 30, 40, 30, 30, 40, B + 1, B + 1, A + 3]


def test_missing_bpplib_file():
    with pytest.raises(InputError, match="no such file"):
        three_partition_from_file(BPPLIB / "absent.txt")


@pytest.mark.skipif(not FALKENAUER.exists(), reason="shared data not mounted")
def test_falkenauer_files_need_and_take_the_shift():
    path = FALKENAUER / "Falkenauer_t60_19.txt"
    with pytest.raises(InputError, match=r"line 62: weight 250 is not strictly between .*--shift 1"):
        three_partition_from_file(path)
    inst = three_partition_from_file(path, shift=1)
    assert inst.m == 21 and inst.n == 81 and inst.target == 3 * 1003 + 2 + 1
    assert int(inst.p[:60].sum()) == 20 * 1003


def _reduction_brute(elements, B, beta):
    inst = three_partition_instance(elements, B, beta=beta)
    best = brute_force(inst, "slack")
    return best is not None and best[0] <= inst.target, inst


@pytest.mark.parametrize("elements, yes", [([4, 4, 4, 4, 5, 5], True), ([4, 4, 4, 4, 4, 6], False)])
def test_reduction_agrees_with_brute_force_at_beta_one(elements, yes):
    # slack.md 4.3 and checks/slack_reduction_brute.py: B = 13, one YES and one NO instance
    assert (solve_three_partition(elements, 13) is not None) is yes
    feasible, inst = _reduction_brute(elements, 13, 1.0)
    assert feasible is yes
    assert brute_force(inst, "slack")[0] >= inst.target  # the filler alone lasts the target


def test_reduction_breaks_below_beta_one():
    # B = 13 >= beta / (1 - beta) = 9 at beta = 0.9: two jobs of B + 1 share an interval
    feasible, _ = _reduction_brute([4, 4, 4, 4, 4, 6], 13, 0.9)
    assert feasible


@pytest.mark.parametrize("seed", range(4))
def test_planted_answers_hold(seed):
    yes = generate_planted(2, 13, seed, "yes")
    no = generate_planted(2, 13, seed, "no")
    for inst, answer in ((yes, True), (no, False)):
        elements = [int(x) for x in inst.p[:6]]
        assert sum(elements) == 26 and all(13 < 4 * s and 2 * s < 13 for s in elements)
        assert (solve_three_partition(elements, 13) is not None) is answer
        best = brute_force(inst, "slack")
        assert (best is not None and best[0] <= inst.target) is answer


def test_planted_is_seeded_and_larger_sizes_work():
    a = generate_planted(6, 1000, 7, "no")
    assert _json(a) == _json(generate_planted(6, 1000, 7, "no"))
    assert solve_three_partition([int(x) for x in a.p[:18]], 1000) is None
    b = generate_planted(30, 1000, 7, "yes")
    assert solve_three_partition([int(x) for x in b.p[:90]], 1000) is not None


def test_planted_rejects_bad_parameters():
    with pytest.raises(InputError, match="--B: no three integers"):
        generate_planted(2, 8, 0)
    with pytest.raises(InputError, match="--groups"):
        generate_planted(40, 1000, 0, "no")


def test_three_partition_search_is_exact_on_small_cases():
    rng = np.random.default_rng(0)
    for _ in range(60):
        B = int(rng.integers(9, 30))
        lo, hi = B // 4 + 1, (B - 1) // 2
        elements = [int(x) for x in rng.integers(lo, hi + 1, size=6)]
        if sum(elements) != 2 * B:
            continue
        expected = any(sum(elements[j] for j in c) == B for c in itertools.combinations(range(6), 3))
        found = solve_three_partition(elements, B)
        assert (found is not None) is expected
        if found:
            assert all(sum(elements[j] for j in t) == B for t in found)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    groups=st.integers(1, 6),
    B=st.integers(9, 500),
    shift=st.integers(0, 3),
    u=st.integers(1, 5),
)
def test_bpplib_files_of_planted_instances_read_back(tmp_path_factory, seed, groups, B, shift, u):
    planted = generate_planted(groups, B, seed)
    elements = [int(x) for x in planted.p[: 3 * groups]]
    path = tmp_path_factory.mktemp("bpp") / "items.txt"
    lines = [str(3 * groups), str(B - 3 * shift), *(str(w - shift) for w in elements)]
    if min(elements) - shift < 1 or B - 3 * shift < 1:
        return
    path.write_text("\n".join(lines) + "\n")
    inst = three_partition_from_file(path, shift=shift, u=u)
    A = 3 * B + 2
    assert inst.p.tolist() == [*elements, *[B + 1] * groups, A + u]
    assert inst.target == A + u and inst.lam == 1 and inst.m == groups + 1
    assert all(row.tolist() == [[A, A + u]] for row in inst.machines[:groups])
    assert solve_three_partition(elements, B) is not None


@pytest.mark.parametrize(
    "make",
    [
        lambda h: generate_paper(12, 60, seed=2, horizon=h),
        lambda h: generate_theorem2(machines=5, jobs=9, seed=2, lam=2, horizon=h),
    ],
)
def test_a_longer_horizon_extends_the_same_intervals(make):
    short, long = make(2.0), make(6.0)
    assert short.p.tolist() == long.p.tolist()
    for a, b in zip(short.machines, long.machines, strict=True):
        assert len(b) >= len(a) and b[: len(a)].tolist() == a.tolist()
    assert long.horizon > short.horizon
