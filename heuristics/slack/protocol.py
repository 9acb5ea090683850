"""The slack family's policy protocol: what an off-line slack heuristic sees and returns.

Canon, Essafi, Mounié, Trystram (2011), Sections 3 and 5: jobs are placed off
line on machines with known unavailabilities, and the schedule is then run
under disturbances. :class:`SlackPolicy` is the contract; a policy written
outside volsched runs behind :func:`checked`, which refuses a wrong return
value with an :class:`~volsched.instances.errors.InputError` naming the policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ..base import CheckedPolicy
from .gaps import Schedule

if TYPE_CHECKING:
    from collections.abc import Sequence

    from volsched.instances.slack import SlackInstance

#: The problem a slack heuristic is scored against by default: the makespan under the slack rule (GAPS').
PROBLEM = "slack"


@runtime_checkable
class SlackPolicy(Protocol):
    """An off-line slack policy: one schedule per instance, made before the run (Section 5).

    What it sees
        ``plan`` is called once with the whole instance
        (:class:`~volsched.instances.slack.SlackInstance`): the ``m`` machines'
        unavailability intervals ``machines[i]`` (an ``(K_i, 2)`` array of
        ``(s, e)`` dates; empty for a free machine; ``lam`` free machines), the
        processing times ``p`` of the ``n`` jobs and the slack rule's ``beta``.
        It never sees the disturbances: the simulator draws them from ``rng``
        afterwards.
    What it returns
        A :class:`Schedule` (``machine`` and ``start`` arrays of length ``n``),
        or a sequence of ``n`` pairs ``(machine, start)`` of integers: job ``j``
        runs on ``machine`` from ``start`` (the verifier's format). The
        problem's verifier then checks it: jobs inside availability periods
        without overlap, and for the ``slack`` problem the slack rule at the
        instance's ``beta`` and the last-period rule.
    Randomness
        Draw only from ``rng``: the same seed gives the same schedule.

    Attributes
    ----------
    problem : str, optional
        Class attribute: ``"slack"`` (the default: the slack rule, as GAPS) or
        ``"plain"`` (unavailabilities only, as LPT).
    name : str, optional
        Its name in tables; by default the import path it was named by.

    Examples
    --------
    Every job back to back on the first free machine, scored against the plain problem:

    >>> import numpy as np
    >>> class OneFreeMachine:
    ...     problem = "plain"
    ...     def plan(self, instance, rng):
    ...         free = next(i for i, gaps in enumerate(instance.machines) if len(gaps) == 0)
    ...         starts = [0, *np.cumsum(instance.p)[:-1].tolist()]
    ...         return [(free, start) for start in starts]
    >>> from volsched.families import FAMILIES
    >>> family = FAMILIES["slack"]
    >>> inst = family.generate_from({"preset": "paper", "machines": 5, "jobs": 8, "seed": 0})
    >>> run = family.simulate(inst, family.heuristic(OneFreeMachine), seed=0)
    >>> run["problem"], run["objective"] == int(inst.p.sum())
    ('plain', True)
    """

    problem: ClassVar[str]

    def plan(
        self, instance: SlackInstance, rng: np.random.Generator
    ) -> Schedule | Sequence[tuple[int, int]]: ...


EXPECTED = "a Schedule, or a sequence of n = {n} pairs (machine, start) of integers, machine in [0, {m})"


def check_schedule(policy: CheckedPolicy, value: Any, instance: SlackInstance) -> Schedule:
    """``value`` as a :class:`Schedule`, or ``InputError`` saying what ``plan`` must return."""
    expected = EXPECTED.format(n=instance.n, m=instance.m)
    if isinstance(value, Schedule):
        machine, start = np.asarray(value.machine), np.asarray(value.start)
    elif isinstance(value, (list, tuple, np.ndarray)):
        try:
            pairs = np.asarray(value)
        except (TypeError, ValueError):
            raise policy.bad("plan", expected, value) from None
        if pairs.shape != (instance.n, 2):
            raise policy.bad("plan", expected, value)
        machine, start = pairs[:, 0], pairs[:, 1]
    else:
        raise policy.bad("plan", expected, value)
    if (
        machine.shape != (instance.n,)
        or start.shape != (instance.n,)
        or machine.dtype.kind not in "iu"
        or start.dtype.kind not in "iu"
    ):
        raise policy.bad("plan", expected, value)
    if np.any((machine < 0) | (machine >= instance.m)) or np.any(start < 0):
        raise policy.bad("plan", expected + " (a machine out of range or a negative start)", value)
    return Schedule(machine.astype(np.int64), start.astype(np.int64), None)


class CheckedSlackPolicy(CheckedPolicy):
    """A :class:`SlackPolicy` from outside volsched, its schedule checked (:func:`check_schedule`)."""

    def plan(self, instance: SlackInstance, rng: np.random.Generator) -> Schedule:
        return check_schedule(self, self.call("plan", instance, rng), instance)


def checked(policy: Any, name: str) -> CheckedSlackPolicy:
    """``policy`` behind the protocol's checks, running as heuristic ``name``."""
    return CheckedSlackPolicy(policy, name)


__all__ = ["PROBLEM", "CheckedSlackPolicy", "Schedule", "SlackPolicy", "check_schedule", "checked"]
