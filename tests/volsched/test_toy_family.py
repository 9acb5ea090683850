"""A newcomer's family, end to end: what docs/architecture.md says to write.

A toy family — one machine with a 0/1 availability string, ``jobs`` unit jobs,
minimise the makespan — registered with one generator, one problem, one exact
method, two on-line policies and one simulator, then driven through
``generate``, ``solve``, ``simulate``, ``evaluate``, ``sweep`` and ``report``
exactly as a user would. Its optimum is recomputed here from the letters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pytest
from oracles.cli import run

import volsched.families
from volsched.families import Extras, Family, GeneratorSpec, Heuristic, Option
from volsched.heuristics.base import OnlinePolicy, past
from volsched.instances.errors import check_int, require
from volsched.instances.io import envelope, unwrap
from volsched.solvers import MethodOutcome, Metric, Problem, reject_unless


@dataclass(frozen=True)
class ToyInstance:
    slots: str
    jobs: int
    name: str = "toy"
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        ok = isinstance(self.slots, str) and set(self.slots) <= {"0", "1"}
        require(ok, "slots", "must be a 0/1 string")
        require(self.slots.count("1") >= check_int(self.jobs, "jobs", 1), "jobs", "more jobs than free slots")

    def to_json(self) -> dict:
        return envelope("toy", self.name, self.params, {"slots": self.slots, "jobs": self.jobs})

    @classmethod
    def from_json(cls, obj) -> ToyInstance:
        data = unwrap(obj, "toy", ("slots", "jobs"))
        return cls(data["slots"], data["jobs"], obj.get("name", "toy"), obj.get("params", {}))


def make(p: dict) -> ToyInstance:
    rng = np.random.default_rng(p["seed"])
    bits = rng.random(p["slots"]) < 0.5
    bits[-p["jobs"] :] = True  # enough free slots
    return ToyInstance("".join("1" if b else "0" for b in bits), p["jobs"], f"toy-{p['slots']}-{p['seed']}")


def scan(instance: ToyInstance, time_limit, seed) -> MethodOutcome:
    runs = [t for t, c in enumerate(instance.slots) if c == "1"][: instance.jobs]
    return MethodOutcome({"runs": runs}, runs[-1] + 1, runs[-1] + 1, proven=True)


def verify(instance: ToyInstance, solution: dict) -> int:
    runs = solution.get("runs") if isinstance(solution, dict) else None
    reject_unless(
        isinstance(runs, list) and len(runs) == instance.jobs, "runs", f"needs {instance.jobs} slots"
    )
    for i, t in enumerate(runs):
        ok = isinstance(t, int) and 0 <= t < len(instance.slots) and instance.slots[t] == "1"
        reject_unless(ok, f"runs[{i}]", f"slot {t!r} is not a free slot")
    reject_unless(len(set(runs)) == len(runs), "runs", "a slot runs two jobs")
    return max(runs) + 1


@dataclass(frozen=True)
class ToyObservation:
    t: int
    free: np.ndarray  # slots 0..t only


@dataclass(frozen=True)
class Coin:
    """Runs a job on a free slot with probability ``p``: uses its RNG."""

    name: str
    p: float

    def decide(self, observation: ToyObservation, rng: np.random.Generator) -> bool:
        assert len(observation.free) == observation.t + 1  # never the future
        return bool(observation.free[-1]) and rng.random() < self.p


class ToySimulator:
    def run(self, instance: ToyInstance, policy: OnlinePolicy, rng: np.random.Generator):
        free = np.array([c == "1" for c in instance.slots])
        runs: list[int] = []
        for t in range(len(free)):
            if len(runs) < instance.jobs and policy.decide(ToyObservation(t, past(free, t)), rng):
                runs.append(t)
        if len(runs) < instance.jobs:  # the policy waited too long: finish on the last free slots
            rest = [t for t in np.flatnonzero(free)[::-1] if t not in runs][: instance.jobs - len(runs)]
            runs = sorted(runs + [int(t) for t in rest])
        return {"runs": runs}, {"idle_slots": int(max(runs) + 1 - len(runs))}


SIM = ToySimulator()
TOY = Family(
    name="toy",
    load=ToyInstance.from_json,
    generators={
        "random": GeneratorSpec(
            "random",
            (
                Option("slots", lambda v, k: check_int(v, k, 1), 30, "horizon", int),
                Option("jobs", lambda v, k: check_int(v, k, 1), 5, "unit jobs", int),
                Option("seed", lambda v, k: check_int(v, k, 0), 0, "random seed", int),
            ),
            make,
        )
    },
    problems={
        "makespan": Problem(
            "makespan", "min", {"scan": scan}, verify, (Metric("makespan", "min"), Metric("idle_slots", None))
        )
    },
    heuristics={
        "greedy": Heuristic("greedy", "makespan", Coin("greedy", 1.0), SIM),
        "coin": Heuristic("coin", "makespan", Coin("coin", 0.5), SIM),
    },
    extras=Extras(
        presets={
            "toy-smoke": [{"name": "toy-smoke", "family": "toy", "seeds": 3, "grid": {"slots": [20, 40]}}]
        }
    ),
)


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(volsched.families.FAMILIES, "toy", TOY)
    return TOY


def optimum(slots: str, jobs: int) -> int:
    """The ``jobs``-th free slot, plus one: the earliest makespan."""
    count = 0
    for t, c in enumerate(slots):
        count += c == "1"
        if count == jobs:
            return t + 1
    raise AssertionError("infeasible")


def test_a_toy_family_runs_every_command_end_to_end(toy, capsys, tmp_path):
    path = tmp_path / "toy.json"
    code, _, err = run(capsys, "generate", "toy", "--slots", 25, "--jobs", 4, "--seed", 7, "--out", path)
    assert code == 0, err
    obj = json.loads(path.read_text())
    assert obj["params"] == {"preset": "random", "slots": 25, "jobs": 4, "seed": 7}
    best = optimum(obj["data"]["slots"], 4)

    code, out, err = run(capsys, "solve", path, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["status"], result["objective"], result["bound"]) == ("optimal", best, best)
    assert result["solution"]["problem"] == "makespan" and result["verified"] is True

    code, out, err = run(capsys, "simulate", path, "--heuristic", "coin", "--seed", 3, "--json")
    assert code == 0, err
    sim = json.loads(out)
    assert sim["objective"] >= best and sim["metrics"]["makespan"] == sim["objective"]
    assert sim["metrics"]["idle_slots"] == sim["objective"] - 4
    again = run(capsys, "simulate", path, "--heuristic", "coin", "--seed", 3, "--json")[1]
    assert json.loads(again) == sim  # the policy's RNG is the seed's

    code, out, err = run(capsys, "evaluate", path, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["optimum"] == best and report["policies"]["greedy"]["ratio"] == 1.0
    assert report["policies"]["coin"]["ratio"] == pytest.approx(report["policies"]["coin"]["value"] / best)

    code, _, err = run(capsys, "verify", path, tmp_path / "nope.json")
    assert code == 2
    (tmp_path / "bad.json").write_text(json.dumps({"solution": {"runs": [0, 0, 0, 0]}}))
    code, _, err = run(capsys, "verify", path, tmp_path / "bad.json")
    assert code == 2 and "solution.runs" in err

    config = tmp_path / "sweep.toml"
    config.write_text('family = "toy"\nseeds = 3\n[grid]\nslots = [20, 40]\njobs = 3\n')
    store = tmp_path / "s.db"
    code, _, err = run(capsys, "sweep", config, "--store", store, "--workers", 1, "--quiet")
    assert code == 0, err
    code, out, err = run(capsys, "report", store, "--json")
    assert code == 0, err
    rows = {r["method"]: r for r in json.loads(out)["rows"]}
    assert rows["scan"]["optimal"] == 6
    assert rows["greedy"]["proven"] == 6 and rows["greedy"]["ratio_max"] == 1.0
    assert rows["coin"]["ratio_mean"] >= 1.0
    code, out, err = run(capsys, "report", store, "--metric", "idle_slots", "--json")
    assert code == 0, err
    assert {r["metric"] for r in json.loads(out)["rows"] if r["kind"] == "heuristic"} == {"idle_slots"}

    code, _, err = run(
        capsys, "sweep", "--preset", "toy-smoke", "--store", tmp_path / "p.db", "--workers", 1, "--quiet"
    )
    assert code == 0, err


def test_an_on_line_policy_sees_only_the_past(toy):
    free = np.array([True, False, True, True])
    seen = []

    class Spy:
        name = "spy"

        def decide(self, observation, rng):
            seen.append(observation.free.copy())
            with pytest.raises(ValueError):
                observation.free[0] = False  # read-only: the realization cannot be changed either
            return True

    assert isinstance(Spy(), OnlinePolicy)
    SIM.run(ToyInstance("1011", 2), Spy(), np.random.default_rng(0))
    assert [len(s) for s in seen] == [1, 2]  # stops asking once both jobs ran (at t = 0 and t = 2)
    assert all(np.array_equal(s, free[: len(s)]) for s in seen)
