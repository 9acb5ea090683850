"""The prescient family's :class:`~volsched.families.Family` object, ``FAMILY`` (see the package).

The registry (:data:`volsched.families.FAMILIES`) imports this module on the family's first use;
the package itself stays light, so that the CLI builds its parser without loading solvers.
"""

from __future__ import annotations

from volsched.heuristics.prescient import HEURISTICS, NAMES, PrescientSimulator, lagger_causes
from volsched.instances import pathological
from volsched.instances.errors import check_choice, check_int, check_number, require
from volsched.instances.prescient import FAMILY as NAME
from volsched.instances.prescient import PrescientInstance
from volsched.solvers.prescient import PROBLEMS
from volsched.solvers.prescient.simgrid import export_simgrid

from .. import Extras, Family, GeneratorSpec, Heuristic, Option
from .generators import GENERATORS, TASKS, pick_generator


def _edge(value, key: str) -> float:
    edge = check_number(value, key, 0.0, 1.0)
    require(edge > 0, key, f"must be positive (the volatile hosts are the faster ones), got {value!r}")
    return edge


VOLATILE_FAST = GeneratorSpec(
    name="volatile-fast",
    help="Section 6.2's pathological case of EXCL-PRED-TO: a UCB-LRI platform whose volatile half all "
    "runs slightly faster than its stable half and is extremely volatile (short up windows)",
    options=(
        Option(
            "platform",
            lambda v, k: check_choice(v, k, pathological.VOLATILE_FAST_PLATFORMS),
            "ucb-lri-n06",
            f"one of {', '.join(pathological.VOLATILE_FAST_PLATFORMS)}",
            choices=pathological.VOLATILE_FAST_PLATFORMS,
        ),
        Option("hosts", lambda v, k: check_int(v, k, 2, 100_000), 40, "number of hosts N", int),
        TASKS,
        Option(
            "task_minutes", lambda v, k: check_number(v, k, 1e-3, 1e6), 15.0, "task size in minutes", float
        ),
        Option("edge", _edge, 0.05, "the volatile hosts' clock is (1 + edge) x the stable hosts'", float),
        Option("seed", lambda v, k: check_int(v, k, 0), 0, "random seed", int),
        Option("days", lambda v, k: check_int(v, k, 2, 366), 7, "days of traces from Monday 00:00", int),
        Option(
            "up_mean",
            lambda v, k: check_number(v, k, 0.01, 100.0),
            0.5,
            "volatile hosts' mean up window, in a task's dedicated time on them",
            float,
        ),
        Option(
            "down_s", lambda v, k: check_number(v, k, 1.0, 86_400.0), 120.0, "seconds down after each", float
        ),
    ),
    make=lambda p: pathological.volatile_fast(
        p["platform"],
        p["hosts"],
        p["tasks"],
        p["task_minutes"],
        p["edge"],
        p["seed"],
        p["days"],
        p["up_mean"],
        p["down_s"],
    ),
)


SIMULATOR = PrescientSimulator()

#: Section 3.3: T in {100, 200, 400}, tasks of 5, 15, 35 minutes, on about 200 hosts, at 100 start
#: times in each platform's weekday window (each seed draws a week of traces and a start in it, with
#: the previous weekday as history); Section 6.2's UCB-LRI platforms run EXCL-PRED-TO and REP-PROB only.
REAL = ["sdsc", "deug", "lri", "ucb", "gimps", "lri-wisc"]
UCB_LRI = [f"ucb-lri-{tag}" for tag in ("n33", "n15", "n06", "p06", "p15", "p33")]
EXACT = {"problem": "makespan", "method": "greedy"}
PRESETS = {
    "kondo2007": [
        {
            "name": "kondo2007",
            "family": NAME,
            "seeds": 100,
            "exact": EXACT,
            "heuristics": list(NAMES),
            "grid": {
                "preset": "platform",
                "platform": REAL,
                "hosts": 200,
                "tasks": [100, 200, 400],
                "task_minutes": [5.0, 15.0, 35.0],
            },
        },
        {
            "name": "kondo2007-ucb-lri",
            "family": NAME,
            "seeds": 100,
            "exact": EXACT,
            "heuristics": ["EXCL-PRED-TO", "REP-PROB"],
            "grid": {
                "preset": "platform",
                "platform": UCB_LRI,
                "hosts": 200,
                "tasks": [100, 200, 400],
                "task_minutes": [5.0, 15.0, 35.0],
            },
        },
    ],
    "kondo2007-smoke": [
        {
            "name": "kondo2007-smoke",
            "family": NAME,
            "seeds": 2,
            "exact": EXACT,
            "heuristics": list(NAMES),
            "grid": {
                "preset": "platform",
                "platform": ["sdsc", "ucb"],
                "hosts": 60,
                "tasks": 30,
                "task_minutes": 5.0,
            },
        },
    ],
}


def diagnose(instance: PrescientInstance, solution: dict, optimum: dict) -> dict:
    """Section 3.4's lagger causes of a run: failure, and a host slower than the slowest the optimum uses."""
    return lagger_causes(
        solution["attempts"],
        instance.clock_mhz,
        float(instance.start),
        slow_below=optimum["slowest_clock_used_mhz"],
    )


FAMILY = Family(
    name=NAME,
    load=PrescientInstance.from_json,
    generators={**GENERATORS, VOLATILE_FAST.name: VOLATILE_FAST},
    problems=PROBLEMS,
    heuristics={name: Heuristic(name, "makespan", policy, SIMULATOR) for name, policy in HEURISTICS.items()},
    pick_generator=pick_generator,
    extras=Extras(
        presets=PRESETS,
        exports={"simgrid": lambda instance, folder: export_simgrid(instance, folder)},
        diagnose=diagnose,
    ),
)
