"""Prescient-family heuristics: the server of Section 2.1, its event-driven simulator and the twelve policies.

Kondo, Chien, Casanova (2007), Sections 2.1 and 4-7.2 (reading:
``../shared/readings/prescient.md``, section 4). :data:`HEURISTICS` maps the
paper's names to policy objects; :class:`PrescientSimulator` runs one of them
on an instance's traces and returns the schedule the family's verifier replays.
"""

from .history import History
from .laggers import IQR_FACTOR, lagger_causes, laggers
from .policies import HEURISTICS, NAMES, prediction
from .simulator import (
    HEARTBEAT,
    Assignment,
    Observation,
    Physics,
    Platform,
    PrescientPolicy,
    PrescientSimulator,
    Run,
    detection_time,
    simulate,
)

__all__ = [
    "HEARTBEAT",
    "HEURISTICS",
    "IQR_FACTOR",
    "NAMES",
    "Assignment",
    "History",
    "Observation",
    "Physics",
    "Platform",
    "PrescientPolicy",
    "PrescientSimulator",
    "Run",
    "detection_time",
    "lagger_causes",
    "laggers",
    "prediction",
    "simulate",
]
