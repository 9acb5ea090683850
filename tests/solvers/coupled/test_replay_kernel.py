"""The compiled replay loop against the pure-Python loop it replaced (``tests/oracles/coupled/online.py``).

Random small instances and random schedules, built slot by slot so that most of them follow the
rules for a while and then break one (or never do): the new replay must raise the same message,
or return the same trace, in every case. Then long on-line runs of paper realizations.
"""

import numpy as np
import pytest
from oracles.coupled.online import replay_trace_oracle

from volsched.heuristics.coupled import policy, simulate
from volsched.instances.coupled import CoupledInstance, generate_markov, paper_realization
from volsched.solvers import Infeasible
from volsched.solvers.coupled.replay import (
    _configurations,
    _entries,
    check_claim,
    replay_horizon,
    replay_trace,
)


def outcome(fn, instance, schedule, communication=True):
    try:
        trace = fn(instance, schedule, communication=communication)
    except Infeasible as exc:
        return ("error", str(exc))
    return (
        "trace",
        trace.entry.tolist(),
        trace.new_attempt.tolist(),
        trace.progress.tolist(),
        trace.transfer.tolist(),
        trace.compute.tolist(),
        trace.complete.tolist(),
        trace.completions,
    )


def random_case(rng):
    """A tiny instance and a schedule that follows the rules with high probability at each slot."""
    p = int(rng.integers(1, 5))
    horizon = int(rng.integers(3, 40))
    avail = rng.choice(3, size=(p, horizon), p=rng.dirichlet([4, 1, 1]))
    w = rng.integers(1, 4, p)
    mu = [int(v) if v < 4 else None for v in rng.integers(1, 5, p)]
    cap = sum(min(v or 99, 4) for v in mu)
    m = int(rng.integers(1, min(cap, 5) + 1))
    instance = CoupledInstance(
        availability=avail.astype(np.int8),
        w=w.tolist(),
        mu=mu,
        m=m,
        n_com=int(rng.integers(1, 4)),
        T_prog=int(rng.integers(0, 3)),
        T_data=int(rng.integers(0, 3)),
        K=int(rng.integers(1, 4)),
    )
    slip = float(rng.choice([0.0, 0.01, 0.05]))  # how often a transfer breaks a rule on purpose
    confs, comm = [], np.full((p, horizon), ".", dtype="<U1")
    x = np.zeros(p, dtype=np.int64)
    g = np.zeros(p, dtype=np.int64)
    d = np.zeros(p, dtype=np.int64)
    for t in range(horizon):
        if rng.random() < 0.15:
            new = np.zeros(p, dtype=np.int64)
            if rng.random() < 0.85:
                for _ in range(m):
                    room = [q for q in range(p) if mu[q] is None or new[q] < mu[q]]
                    new[int(rng.choice(room))] += 1
            g[(x > 0) & (new == 0) & (g < instance.T_prog)] = 0
            d = np.minimum(d, new * instance.T_data)
            x = new
            confs.append({"start": t, "allocation": x.tolist()})
        sent = 0
        for q in rng.permutation(p):
            bad = rng.random() < slip
            up_enrolled = avail[q, t] == 0 and x[q] > 0
            if sent >= instance.n_com and not bad:
                break
            if g[q] < instance.T_prog and (up_enrolled or bad) and rng.random() < 0.7:
                comm[q, t] = "P"
            elif d[q] < x[q] * instance.T_data and (up_enrolled or bad) and rng.random() < 0.7:
                comm[q, t] = "D"
            elif bad:
                comm[q, t] = rng.choice(["P", "D"])
            if comm[q, t] != ".":
                sent += 1
                g[q] += comm[q, t] == "P"
                d[q] += comm[q, t] == "D"
        down = avail[:, t] == 2
        g[down] = 0
        d[down] = 0
    schedule = {
        "configurations": confs,
        "communication": ["".join(row).rstrip(".") for row in comm],
        "completions": [],
    }
    return instance, schedule


@pytest.mark.parametrize("seed", range(6))
def test_random_schedules_replay_as_the_python_loop(seed):
    rng = np.random.default_rng(seed)
    kinds = set()
    for _ in range(400):
        instance, schedule = random_case(rng)
        for communication in (True, False):
            old = outcome(replay_trace_oracle, instance, schedule, communication)
            assert outcome(replay_trace, instance, schedule, communication) == old
            kinds.add(old[0] if old[0] == "trace" else old[1].split(": ")[1][:6])
    assert "trace" in kinds and len(kinds) >= 4  # valid replays and several broken rules met


def test_every_error_of_the_loop_is_met():
    """The random schedules reach each of the loop's five rule messages (the test above is not vacuous)."""
    rng = np.random.default_rng(100)
    seen = set()
    for _ in range(3000):
        instance, schedule = random_case(rng)
        result = outcome(replay_trace_oracle, instance, schedule)
        if result[0] == "error":
            message = result[1]
            for key in (
                "while processor",
                "not enrolled",
                "already has the program",
                "already has the data",
                "transfers at slot",
            ):
                if key in message:
                    seen.add(key)
    assert len(seen) == 5


@pytest.mark.parametrize(
    "name,case", [("RANDOM", (10, 5, 5, 0, 0)), ("IE", (10, 20, 10, 1, 2)), ("E-IAY", (5, 5, 3, 2, 1))]
)
def test_long_on_line_runs_replay_as_the_python_loop(name, case):
    instance = paper_realization(*case, slots=500)
    run = simulate(instance, policy(name), np.random.default_rng(0), cap=30_000)
    new = outcome(replay_trace, instance, run.schedule)
    assert new == outcome(replay_trace_oracle, instance, run.schedule)
    if not run.failed:
        assert check_claim(instance, run.schedule) == run.makespan


def _parsed(fn, instance, confs, horizon):
    try:
        out = fn(instance, confs, horizon)
    except Infeasible as exc:
        return str(exc)
    if isinstance(out, dict):
        return list(out), [v.tolist() for v in out.values()]
    return out[0].tolist(), out[1].tolist()


@pytest.mark.parametrize("seed", range(3))
def test_bulk_entry_parsing_agrees_with_the_field_by_field_one(seed):
    """``_entries`` (bulk checks of plain JSON) returns what ``_configurations`` returns, or its error."""
    rng = np.random.default_rng(seed)
    instance = CoupledInstance(
        availability=np.zeros((3, 50), dtype=np.int8), w=[1, 2, 3], mu=[2, None, 1], m=3, n_com=1
    )
    odd = [-1, 4, 2**70, True, 1.0, np.int64(1), "1", None]
    for _ in range(500):
        starts = np.sort(rng.choice(60, int(rng.integers(1, 6)), replace=False)).tolist()
        confs = [{"start": s, "allocation": [1, 1, 1] if rng.random() < 0.5 else [2, 1, 0]} for s in starts]
        for _ in range(int(rng.integers(0, 3))):
            i = int(rng.integers(len(confs)))
            what = rng.integers(5)
            if what == 0:
                alloc = confs[i]["allocation"]
                alloc[int(rng.integers(len(alloc)))] = odd[int(rng.integers(len(odd)))]
            elif what == 1:
                confs[i]["start"] = odd[int(rng.integers(len(odd)))]
            elif what == 2:
                confs[i] = {"start": confs[i]["start"], "allocation": confs[i]["allocation"], "x": 1}
            elif what == 3:
                confs[i]["allocation"] = [0, 0, 0]
            else:
                confs[i]["allocation"] = confs[i]["allocation"][:2]
        assert _parsed(_entries, instance, confs, 50) == _parsed(_configurations, instance, confs, 50)


@pytest.mark.parametrize("seed", range(3))
def test_bulk_horizon_agrees_with_the_entry_by_entry_one(seed):
    """``replay_horizon`` reads a plain JSON list of entries in bulk; a tuple of the same entries goes
    entry by entry, and both read as far."""
    rng = np.random.default_rng(seed)
    instance = generate_markov(3, 20, 3, seed, 3)
    assert instance.extendable
    limit = instance.max_realization()
    odd = [-5, 2**70, True, 1.0, np.int64(30), "1", None, limit + 7]
    for _ in range(300):
        starts = rng.integers(0, 3 * instance.horizon, int(rng.integers(1, 6))).tolist()
        confs = [{"start": s, "allocation": [1, 1, 1]} for s in starts]
        for _ in range(int(rng.integers(0, 3))):
            i = int(rng.integers(len(confs)))
            if rng.random() < 0.7:
                confs[i]["start"] = odd[int(rng.integers(len(odd)))]
            else:
                confs[i] = {"start": confs[i]["start"]}
        bulk = replay_horizon(instance, {"configurations": confs})
        assert bulk == replay_horizon(instance, {"configurations": tuple(confs)})
        plain = [c["start"] for c in confs if type(c["start"]) is int and c["start"] >= 0]
        assert bulk == min(max([instance.horizon, *(min(s, limit - 1) + 1 for s in plain)]), limit) or any(
            type(c["start"]) is not int for c in confs
        )
