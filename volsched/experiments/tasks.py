"""Tasks: one (instance, method) pair, its deterministic key, and running it in a worker.

A task carries only plain data (picklable for joblib and Dask). Its key hashes
the family, the generator parameters with the seed (or an instance file's name
and content hash), the method with its parameters (a heuristic's RNG seed, an
exact method's problem and time limit) and the volsched version, so the same
sweep always plans the same keys and a stored row can be re-derived and re-run
from its parameters.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import socket
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from volsched import __version__
from volsched.solvers.deadline import HardStop, hard_limit
from volsched.solvers.problem import STOPPED_CLOCK

from ..families import FAMILIES

if TYPE_CHECKING:
    from ..families.base import Family
    from .config import Sweep

#: A task whose exact method overruns its time limit by this factor (plus the
#: grace) is interrupted and stored as ``timeout``; the cooperative limit comes first.
HARD_LIMIT_FACTOR = 2.0
HARD_LIMIT_GRACE_S = 10.0


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:24]


def build_tasks(sweep: Sweep) -> list[dict]:
    """Every task of a sweep: per instance, the exact method(s) then each heuristic.

    The sweep's problem is solved by its method; a heuristic scored against
    another problem of the family adds that problem's exact task (default
    method, same time limit), so every heuristic row has an optimum to link
    to. A heuristic task runs its policy with ``default_rng(seed)``, the
    instance's replicate seed, and that seed is part of its key. A heuristic
    from outside volsched is named (and keyed) by its import path as written,
    and its task carries the sweep file's folder (``base``), so that a worker,
    local or on Dask, resolves a relative path as the sweep did. Its key does
    not follow the code: to run a changed heuristic again, give it a new name
    or a new store.

    A sweep over instance files (``sweep.files``) has one instance per file,
    its parameters ``{"file": name, "sha256": hash}``: the exact methods run
    once per file (with ``volsched solve``'s default seed, 0) and each
    heuristic once per seed of the sweep. Its tasks carry the file's text
    (``text``), so that a worker needs no shared file system; the hash in
    the key makes a changed file new tasks.
    """
    fam = sweep.family
    main = fam.problem(sweep.problem).name
    exact = {main: sweep.method}
    chosen = {name: fam.heuristic(name, "heuristics", sweep.base) for name in sweep.heuristics}
    for h in chosen.values():
        exact.setdefault(h.problem, fam.problems[h.problem].default_method)
    external = {name for name, h in chosen.items() if h.source}
    instances = (
        [(f.params, f.text) for f in sweep.files] if sweep.files else [(p, None) for p in sweep.instances()]
    )
    tasks = []
    for params, text in instances:
        seeds = (params["seed"],) if text is None else sweep.seeds
        instance_key = _digest({"family": fam.name, "params": params, "version": __version__})
        methods = []
        for problem, method in exact.items():
            method_params = {} if sweep.time_limit is None else {"time_limit": sweep.time_limit}
            if sweep.budget(problem) is not None and method in fam.problems[problem].budgets:
                method_params["budget"] = sweep.budget(problem)
            if problem != next(iter(fam.problems)) or sweep.problem is not None:
                method_params["problem"] = problem
            methods.append((method, "exact", problem, method_params))
        methods += [
            (name, "heuristic", h.problem, {"seed": seed}) for name, h in chosen.items() for seed in seeds
        ]
        for method, kind, problem, method_params in methods:
            key = _digest(
                {
                    "family": fam.name,
                    "params": params,
                    "method": method,
                    "kind": kind,
                    "method_params": method_params,
                    "version": __version__,
                }
            )
            tasks.append(
                {
                    "key": key,
                    "sweep": sweep.name,
                    "family": fam.name,
                    "instance_key": instance_key,
                    "params": params,
                    "method": method,
                    "kind": kind,
                    "method_params": method_params,
                    "problem": problem,
                    "sense": fam.problems[problem].sense,
                }
            )
            if kind == "heuristic" and method in external and sweep.base is not None:
                tasks[-1]["base"] = sweep.base
            if text is not None:
                tasks[-1]["text"] = text
    return tasks


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _versions() -> dict:
    import numpy

    return {"volsched": __version__, "python": platform.python_version(), "numpy": numpy.__version__}


#: The last instance this process built, with its family and key. A sweep runs an instance's tasks
#: one after another (:func:`volsched.experiments.runner.run_order`), and building an instance from
#: its parameters can cost more than the task (a prescient platform: 0.12 s against 0.01-0.04 s
#: for a heuristic run), so a worker builds it once per run of consecutive tasks. Instances are not
#: changed by the methods that read them; ``tests/volsched/experiments/test_tasks.py`` checks that
#: rows are the same either way.
_last_built: tuple[str, str, Any] | None = None


def _instance(family: Family, task: dict) -> Any:
    global _last_built
    key = (task["family"], task["instance_key"])
    last = _last_built  # one read: Dask runs tasks in threads, which replace it between two reads
    if last is not None and last[:2] == key:
        return last[2]
    instance = (
        family.load(json.loads(task["text"])) if "text" in task else family.generate_from(task["params"])
    )
    _last_built = (*key, instance)  # one assignment: a thread reads the old pair or the new one
    return instance


def run_task(task: dict) -> dict:
    """Run one task and return its result row (never raises for the task's own failures)."""
    family = FAMILIES[task["family"]]
    row = {
        **{k: v for k, v in task.items() if k != "text"},  # a file's text is not sent back
        "instance": None,
        "status": "error",
        "objective": None,
        "bound": None,
        "runtime_s": None,
        "cpu_s": None,
        "work": None,
        "error": None,
        "metrics": {},
        "versions": _versions(),
        "host": socket.gethostname(),
    }
    begin, cpu = time.perf_counter(), time.process_time()
    try:
        instance = _instance(family, task)
        row["instance"] = getattr(instance, "name", None)
        if task["kind"] == "exact":
            limit = task["method_params"].get("time_limit")
            hard = None if limit is None else limit * HARD_LIMIT_FACTOR + HARD_LIMIT_GRACE_S
            with hard_limit(hard):  # the task's own guard, around solve's (which comes first)
                result = family.solve(
                    instance,
                    problem=task["problem"],
                    method=task["method"],
                    time_limit=limit,
                    seed=task["params"].get("seed", 0),  # a file has no replicate seed: solve's default
                    budget=task["method_params"].get("budget"),
                )
            row["objective"], row["bound"] = _finite(result.objective), _finite(result.bound)
            row["work"] = _finite(result.work)
            row["metrics"] = (
                {}
                if result.objective is None
                else {family.problems[task["problem"]].objective_metric: _finite(result.objective)}
            )
            # Only a wall-clock stop is a timeout: its row depends on the machine. A run its work
            # budget stopped keeps its status (feasible, unknown), the same on every machine.
            row["status"] = "timeout" if result.stopped == STOPPED_CLOCK else result.status.value
            row["error"] = result.info.get("stopped") or (
                None if result.stopped is None else f"stopped by the {result.stopped}"
            )
        else:
            heuristic = family.heuristic(task["method"], "heuristic", task.get("base"))
            run = family.simulate(instance, heuristic, task["method_params"]["seed"])
            row["objective"] = _finite(run["objective"])
            row["metrics"] = {k: _finite(v) for k, v in run["metrics"].items()}
            row["status"] = "ok"
    except HardStop:
        row["status"], row["error"] = "timeout", "hard time limit reached; no bound available"
    except Exception as exc:
        row["status"], row["error"] = "error", f"{type(exc).__name__}: {exc}"
    row["runtime_s"], row["cpu_s"] = time.perf_counter() - begin, time.process_time() - cpu
    row["timestamp"] = datetime.now(UTC).isoformat(timespec="seconds")
    return row
