"""A worker builds an instance once for its consecutive tasks, and the rows are those of fresh builds."""

import pytest

import volsched.experiments.tasks as tasks_mod
from volsched.experiments.config import parse_config
from volsched.experiments.presets import preset
from volsched.experiments.runner import run_order
from volsched.experiments.store import VOLATILE_COLUMNS
from volsched.experiments.tasks import build_tasks, run_task
from volsched.families import FAMILIES
from volsched.families.base import Family


def _first_instances(family: str, count: int) -> list[dict]:
    """The tasks of the first ``count`` instances of the family's part of the smoke preset, in run order."""
    tasks = [
        t for s in parse_config({"sweep": preset("smoke")}) for t in build_tasks(s) if t["family"] == family
    ]
    ordered = run_order(tasks)
    keys = list(dict.fromkeys(t["instance_key"] for t in ordered))[:count]
    return [t for t in ordered if t["instance_key"] in keys]


def _rows(rows):
    return [{k: v for k, v in r.items() if k not in VOLATILE_COLUMNS} for r in rows]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_rows_are_the_same_with_the_instance_reused_or_built_for_each_task(family, monkeypatch):
    todo = _first_instances(family, 2)
    assert len({t["instance_key"] for t in todo}) == 2 and len(todo) > 2
    builds = []
    real = Family.generate_from
    monkeypatch.setattr(Family, "generate_from", lambda self, p: builds.append(1) or real(self, p))
    monkeypatch.setattr(tasks_mod, "_last_built", None)
    reused = [run_task(t) for t in todo]
    assert len(builds) == 2  # one build per instance, however many tasks it has

    def fresh(task):
        monkeypatch.setattr(tasks_mod, "_last_built", None)
        return run_task(task)

    rebuilt = [fresh(t) for t in todo]
    assert len(builds) == 2 + len(todo)
    assert all(r["status"] not in ("error", "timeout") for r in reused), [r["error"] for r in reused]
    assert _rows(reused) == _rows(rebuilt)


def test_a_build_that_fails_is_not_reused(monkeypatch):
    (task, *_) = _first_instances("checkpoint", 1)
    monkeypatch.setattr(tasks_mod, "_last_built", None)

    def broken(self, params):
        raise ValueError("no such instance")

    monkeypatch.setattr(Family, "generate_from", broken)
    first = run_task(task)
    assert first["status"] == "error" and "no such instance" in first["error"]
    assert tasks_mod._last_built is None
    monkeypatch.undo()
    monkeypatch.setattr(tasks_mod, "_last_built", None)
    assert run_task(task)["status"] != "error"
