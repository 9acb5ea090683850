"""The prescient family's :class:`~volsched.families.Family` object, ``FAMILY`` (see the package).

The registry (:data:`volsched.families.FAMILIES`) imports this module on the family's first use;
the package itself stays light, so that the CLI builds its parser without loading solvers.
"""

from __future__ import annotations

from volsched.heuristics.prescient import HEURISTICS, NAMES, PrescientSimulator, lagger_causes
from volsched.instances.prescient import FAMILY as NAME
from volsched.instances.prescient import PrescientInstance
from volsched.solvers.prescient import PROBLEMS
from volsched.solvers.prescient.simgrid import export_simgrid

from .. import Extras, Family, Heuristic
from .generators import GENERATORS, pick_generator

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
    generators=GENERATORS,
    problems=PROBLEMS,
    heuristics={name: Heuristic(name, "makespan", policy, SIMULATOR) for name, policy in HEURISTICS.items()},
    pick_generator=pick_generator,
    extras=Extras(
        presets=PRESETS,
        exports={"simgrid": lambda instance, folder: export_simgrid(instance, folder)},
        diagnose=diagnose,
    ),
)
