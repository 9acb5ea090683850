"""The prescient family (Kondo, Chien, Casanova 2007) behind the :class:`~volsched.families.Family` interface.

Two generators (:mod:`.generators`: a synthetic platform, or an FTA trace,
chosen by ``--platform`` / ``--fta``), one problem (``makespan``: the optimal
prescient schedule, methods ``greedy`` and ``cpsat``), the paper's twelve
heuristics on the trace-driven simulator, and the SimGrid export.
"""

from __future__ import annotations

from volsched.heuristics.prescient import HEURISTICS, PrescientSimulator
from volsched.instances.prescient import FAMILY as NAME
from volsched.instances.prescient import PrescientInstance
from volsched.solvers.prescient import PROBLEMS
from volsched.solvers.prescient.simgrid import export_simgrid

from .. import Family, Heuristic
from .generators import GENERATORS, pick_generator

SIMULATOR = PrescientSimulator()

FAMILY = Family(
    name=NAME,
    load=PrescientInstance.from_json,
    generators=GENERATORS,
    problems=PROBLEMS,
    heuristics={name: Heuristic(name, "makespan", policy, SIMULATOR) for name, policy in HEURISTICS.items()},
    exports={"simgrid": lambda instance, folder: export_simgrid(instance, folder)},
    pick_generator=pick_generator,
)
