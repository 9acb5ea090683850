"""The local sweep's workers: each loads its tasks' kernels once and is not replaced as it runs."""

from __future__ import annotations

import inspect

import pytest
from joblib.externals.loky import process_executor

from volsched.compile import compile_all, step_name, steps
from volsched.experiments.config import parse_config
from volsched.experiments.presets import presets
from volsched.experiments.runner import WORKER_GROWTH_BYTES, _start_worker, warm_steps
from volsched.experiments.tasks import build_tasks


@pytest.mark.parametrize("name", sorted(presets()))
def test_every_task_of_a_preset_has_a_warm_up_step(name):
    tasks = [t for s in parse_config({"sweep": presets()[name]}) for t in build_tasks(s)]
    missing = warm_steps(tasks) - {n for n, _ in steps()}
    assert not missing, f"no compile step for {sorted(missing)}: the workers would load them mid-sweep"


def test_warm_steps_name_exact_methods_by_problem_and_heuristics_alone():
    tasks = [
        {"family": "coupled", "method": "greedy", "kind": "exact", "problem": "full"},
        {"family": "coupled", "method": "IE", "kind": "heuristic", "problem": "full"},
    ]
    assert warm_steps(tasks) == {step_name("coupled", "greedy", "full"), step_name("coupled", "IE")}


def test_compile_all_runs_only_the_steps_asked():
    names = [n for n, _ in steps()]
    assert len(names) == len(set(names))
    assert compile_all(quiet=True, only={step_name("coupled", "IE")})["steps"] == 1
    assert compile_all(quiet=True, only=set())["steps"] == 0


def test_a_worker_start_relaxes_the_leak_limit_that_loky_reads_in_its_worker_loop(monkeypatch):
    # loky replaces a worker past this growth; the runner relies on the loop reading the constant
    # at each check, so a joblib that renames or stops reading it must fail here, not slow sweeps.
    assert "_MAX_MEMORY_LEAK_SIZE" in inspect.getsource(process_executor._process_worker)
    monkeypatch.setattr(process_executor, "_MAX_MEMORY_LEAK_SIZE", int(3e8))
    _start_worker(set())
    assert process_executor._MAX_MEMORY_LEAK_SIZE == WORKER_GROWTH_BYTES > 3 * 10**8
