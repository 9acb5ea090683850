"""Coupled on-line heuristics: the Section V Markov estimates, the simulator and the policies.

Casanova, Dufossé, Robert, Vivien, HCW 2013, Sections V-VI (readings:
``../shared/readings/coupled-online.md``).
"""

from .estimates import FORMULAS
from .passive import CRITERIA, Passive, Random
from .proactive import MEASURES, Proactive
from .simulator import CoupledSimulator, simulate

#: The 17 heuristics of Section VI in Table I's naming: RANDOM, the passive IP, IE, IY, IAY, and
#: the proactive C-H for C in P, E, Y and H a passive one ("3 x 4 proactive heuristics ... plus
#: the RANDOM heuristic", VI-C).
NAMES = ("RANDOM", *CRITERIA, *(f"{c}-{h}" for c in MEASURES for h in CRITERIA))


#: The same heuristics with the conditional E^(S)(W) of Definition 2 instead of the printed one
#: (reading 2.4): the sensitivity of the results to the paper's formula.
CONDITIONAL = tuple(f"{name}[conditional]" for name in NAMES if name != "RANDOM")


def policy(name: str):
    """A fresh policy object for heuristic ``name``: one of :data:`NAMES`, or ``NAME[conditional]``."""
    base, formula = name, "printed"
    if name.endswith("]") and "[" in name:
        base, _, formula = name[:-1].partition("[")
    if base == "RANDOM" and formula == "printed":
        return Random()
    if formula in FORMULAS:
        if base in CRITERIA:
            return Passive(base, formula)
        measure, _, criterion = base.partition("-")
        if measure in MEASURES and criterion in CRITERIA:
            return Proactive(measure, criterion, formula)
    raise ValueError(
        f"unknown coupled heuristic {name!r}; the heuristics are {list(NAMES)}, each but RANDOM "
        "also as NAME[conditional]"
    )


__all__ = ["CONDITIONAL", "NAMES", "CoupledSimulator", "policy", "simulate"]
