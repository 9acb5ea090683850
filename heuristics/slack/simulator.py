"""The slack family's policies and simulator: a schedule, its verifier format, and its stability.

A policy plans the whole schedule off-line (:class:`OfflinePolicy`):
``gaps`` (GAPS at the instance's ``beta``, scored against the ``slack``
problem) and the baselines ``lpt`` and ``list`` (scored against ``plain``).
:class:`SlackSimulator` then runs the schedule under disturbances
(:mod:`.disturbance`) and reports the slack problem's metrics:

* ``makespan``: the reference makespan ``C_max`` (Section 3.3);
* ``disturbed_makespan``: under ``disturbance="none"`` the reference itself;
  ``"sampled"`` the median over ``draws`` uniform disturbances (Section 6);
  ``"worst"`` the exact supremum over all disturbances (the definition, L154;
  small instances only);
* ``stability``: ``disturbed_makespan / makespan``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from volsched.instances.errors import InputError, check_int

from .baselines import lpt, plain_list
from .disturbance import EXECUTORS, sampled_makespans, worst_case
from .gaps import Schedule, gaps

if TYPE_CHECKING:
    from collections.abc import Callable

    from volsched.instances.slack import SlackInstance

DISTURBANCES = ("none", "sampled", "worst")
#: Most draws a sampled evaluation takes (each is a full disturbed run).
MAX_DRAWS = 100_000


@dataclass(frozen=True)
class SchedulePolicy:
    """An off-line policy: ``rule(instance) -> Schedule`` (no random draw), scored against ``problem``."""

    name: str
    rule: Callable[[SlackInstance], Schedule]
    problem: str

    def plan(self, instance: SlackInstance, rng: np.random.Generator) -> Schedule:
        return self.rule(instance)


POLICIES = {
    "gaps": SchedulePolicy("gaps", gaps, "slack"),
    "lpt": SchedulePolicy("lpt", lpt, "plain"),
    "list": SchedulePolicy("list", plain_list, "plain"),
}


@dataclass(frozen=True)
class SlackSimulator:
    """Plans with the policy, then evaluates the schedule under ``disturbance``.

    Attributes
    ----------
    disturbance : str
        ``"none"``, ``"sampled"`` (the paper's median of ``draws`` uniform
        disturbances; the default) or ``"worst"`` (exact supremum).
    draws : int
        Disturbed runs of a sampled evaluation (the paper's 30).
    executor : str
        ``"planned"`` (the rules of :mod:`.disturbance`, default) or
        ``"compact"`` (an interrupted job restarts first, its followers shift).
    """

    disturbance: str = "sampled"
    draws: int = 30
    executor: str = "planned"

    def run(
        self, instance: SlackInstance, policy: SchedulePolicy, rng: np.random.Generator
    ) -> tuple[dict, dict[str, float]]:
        if self.disturbance not in DISTURBANCES:
            raise InputError(
                f"--disturbance: choose from {', '.join(DISTURBANCES)}, got {self.disturbance!r}"
            )
        if self.executor not in EXECUTORS:
            raise InputError(f"--executor: choose from {', '.join(EXECUTORS)}, got {self.executor!r}")
        draws = check_int(self.draws, "--draws", 1, MAX_DRAWS)
        schedule = policy.plan(instance, rng)
        ref = schedule.makespan(instance.p)
        if self.disturbance == "none":
            disturbed = float(ref)
        elif self.disturbance == "sampled":
            disturbed = float(np.median(sampled_makespans(instance, schedule, rng, draws, self.executor)))
        else:
            disturbed = float(worst_case(instance, schedule, executor=self.executor).makespan)
        metrics = {"makespan": float(ref), "disturbed_makespan": disturbed, "stability": disturbed / ref}
        return schedule.to_solution(), metrics
