"""Checkpoint heuristics: periodic policies, the single-job simulator and the bag-of-tasks simulator."""

from .policies import POLICIES, POLICY_OBJECTS, LawPolicy, daly_period, periodic_schedule, young_period
from .simulator import SingleJobSimulator

__all__ = [
    "POLICIES",
    "POLICY_OBJECTS",
    "LawPolicy",
    "SingleJobSimulator",
    "daly_period",
    "periodic_schedule",
    "young_period",
]
