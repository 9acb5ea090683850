"""The disturbed makespan of one disturbance in Python: the oracle of the compiled executor.

Runs :func:`volsched.heuristics.slack.execute` (Section 3.3's execution rules, event by event, in
Python) machine by machine, where :func:`volsched.heuristics.slack.disturbed_makespans` runs the
same rules compiled over many disturbances at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from volsched.heuristics.slack import execute, machine_plans

if TYPE_CHECKING:
    from volsched.heuristics.slack import Schedule
    from volsched.instances.slack import SlackInstance


def disturbed_makespan_reference(
    instance: SlackInstance, schedule: Schedule, delta: np.ndarray, executor: str = "planned"
) -> float:
    """The disturbed makespan for one ``delta`` (a value per row of ``instance.table``), in Python."""
    plans, floor = machine_plans(instance, schedule)
    delta = np.asarray(delta, dtype=float)
    return max([float(floor)] + [execute(pl, delta[pl.rows], executor) for pl in plans])
