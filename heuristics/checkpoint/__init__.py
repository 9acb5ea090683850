"""Checkpoint heuristics: periodic policies and the bag-of-tasks simulator."""

from .policies import POLICIES, daly_period, periodic_schedule, young_period

__all__ = ["POLICIES", "daly_period", "periodic_schedule", "young_period"]
