"""Prescient family (Kondo, Chien, Casanova 2007): hosts, traces, tasks, and the work primitive.

``model``: :class:`PrescientInstance` and its units; ``work``: :class:`WorkProfile`,
the per-host cumulative available work that the exact methods and the simulators share.
"""

from .model import (
    DEFAULT_PERIOD_S,
    FAMILY,
    REF_CLOCK_MHZ,
    REF_OPS_PER_S,
    UCB_PERIOD_S,
    PrescientInstance,
    TraceWindow,
    ops_per_second,
    task_ops,
)
from .work import WorkProfile

__all__ = [
    "DEFAULT_PERIOD_S",
    "FAMILY",
    "REF_CLOCK_MHZ",
    "REF_OPS_PER_S",
    "UCB_PERIOD_S",
    "PrescientInstance",
    "TraceWindow",
    "WorkProfile",
    "ops_per_second",
    "task_ops",
]
