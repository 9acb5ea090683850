"""Coupled on-line heuristics: the Section V Markov estimates, the simulator and the policies.

Casanova, Dufossé, Robert, Vivien, HCW 2013, Sections V-VI (readings:
``../shared/readings/coupled-online.md``).
"""

from .passive import CRITERIA, Passive, Random
from .proactive import MEASURES, Proactive
from .simulator import CoupledSimulator, simulate

#: The 17 heuristics of Section VI in Table I's naming: RANDOM, the passive IP, IE, IY, IAY, and
#: the proactive C-H for C in P, E, Y and H a passive one ("3 x 4 proactive heuristics ... plus
#: the RANDOM heuristic", VI-C).
NAMES = ("RANDOM", *CRITERIA, *(f"{c}-{h}" for c in MEASURES for h in CRITERIA))


def policy(name: str, formula: str = "printed"):
    """A fresh policy object for heuristic ``name`` (``formula``: the form of ``E^(S)(W)``)."""
    if name == "RANDOM":
        return Random()
    if name in CRITERIA:
        return Passive(name, formula)
    measure, _, criterion = name.partition("-")
    if measure in MEASURES and criterion in CRITERIA:
        return Proactive(measure, criterion, formula)
    raise ValueError(f"unknown coupled heuristic {name!r}; the heuristics are {list(NAMES)}")


__all__ = ["NAMES", "CoupledSimulator", "policy", "simulate"]

