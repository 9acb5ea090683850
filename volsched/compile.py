"""``volsched compile``: every numba kernel compiled ahead of time, for CI images and cluster workers.

A fresh install has no compiled kernels: numba compiles each one on its first call and caches
it (:mod:`volsched.solvers.jit`). ``solve`` already compiles a method's kernels before its
clock starts; this command does it for every exact method and every heuristic at once, by
running each on a tiny instance of its family, so that a CI image or a Dask worker starts warm
(:func:`volsched.experiments.runner` runs it on each worker before the first task).
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from volsched.instances.errors import MissingData
from volsched.solvers.problem import warm_up

from .families import FAMILIES, with_fields

if TYPE_CHECKING:
    from collections.abc import Callable


def _tiny() -> dict[str, Callable[[], Any]]:
    """A tiny instance of each family, with what its heuristics need (chains, a history window)."""
    # Imported here: the generators (scipy, the prescient platforms) load when kernels are compiled,
    # not whenever the sweep runner, which imports this module, starts.
    from volsched.instances.checkpoint import generate
    from volsched.instances.coupled import paper_realization
    from volsched.instances.prescient.platforms import generate_platform
    from volsched.instances.slack.generators import generate_theorem2

    return {
        "checkpoint": lambda: generate(6, seed=0),
        "coupled": lambda: paper_realization(5, 5, 1, 0, 0, slots=200),
        "prescient": lambda: generate_platform("sdsc", 8, 8, 5.0, 0, days=2),
        "slack": lambda: generate_theorem2(2, 6, 0),
    }


#: Slots a coupled heuristic runs on the tiny realization: enough to call every kernel.
TINY_CAP = 3000


def _simulator(family, name: str):
    sim = family.heuristics[name].simulator
    return with_fields(sim, {"cap": TINY_CAP}, family.name) if family.name == "coupled" else sim


def step_name(family: str, method: str, problem: str | None = None) -> str:
    """The name of :func:`compile_all`'s step for an exact ``method`` of ``problem``, or a heuristic."""
    return f"{family} {method}" if problem is None else f"{family} {problem} {method}"


def steps() -> list[tuple[str, Callable[[], Any]]]:
    """:func:`compile_all`'s steps: each exact method and each heuristic, by :func:`step_name`."""
    out: list[tuple[str, Callable[[], Any]]] = []
    tiny = _tiny()
    for family in FAMILIES.values():
        for problem in family.problems.values():
            for method in problem.methods:
                out.append(
                    (
                        step_name(family.name, method, problem.name),
                        lambda f=family, p=problem, m=method: warm_up(f.name, p, m),
                    )
                )
        if family.name not in tiny:
            continue
        made: dict = {}

        def instance(f=family, made=made):
            if "instance" not in made:
                made["instance"] = tiny[f.name]()
            return made["instance"]

        for name in family.heuristics:

            def run(f=family, n=name, get=instance):
                # a heuristic the tiny instance cannot feed compiles nothing new
                with contextlib.suppress(MissingData):
                    f.simulate(get(), n, 0, _simulator(f, n))

            out.append((step_name(family.name, name), run))
    return out


def compile_all(quiet: bool = False, only: set[str] | None = None) -> dict:
    """Compile (or load from the cache) every kernel of every method and heuristic.

    ``only``, if given, keeps the steps of those names (:func:`step_name`): what a sweep's
    tasks will call. Returns ``{"elapsed_s", "steps"}``: the seconds and the number of
    methods and heuristics run.
    """
    begin = time.perf_counter()
    todo = steps()
    if only is not None:
        todo = [s for s in todo if s[0] in only]
    for _, step in tqdm(todo, desc="compiling kernels", disable=quiet, unit="step"):
        step()
    return {"elapsed_s": time.perf_counter() - begin, "steps": len(todo)}


__all__ = ["TINY_CAP", "compile_all", "step_name", "steps"]
