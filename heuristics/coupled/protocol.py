"""The coupled family's policy protocol: what an on-line coupled heuristic sees and returns.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Sections III and VI: the master
of an iterative application picks, at decision points, a *configuration*: the
worker of each of the ``m`` tasks of an iteration. :class:`CoupledPolicy` is
the contract, with the types a policy uses (from :mod:`.simulator`); a policy
written outside volsched runs behind :func:`checked`, which refuses a wrong
return value with an :class:`~volsched.instances.errors.InputError` naming the
policy.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from volsched.instances.coupled import DOWN, RECLAIMED, UP

from ..base import CheckedPolicy
from .simulator import Configuration, Hold, Observation, Platform
from .simulator import CoupledPolicy as _SimulatedPolicy

#: The problem a coupled heuristic is scored against by default: the makespan of the full model.
PROBLEM = "full"


@runtime_checkable
class CoupledPolicy(_SimulatedPolicy, Protocol):
    """An on-line policy of Section VI: at each decision point, a configuration or ``None``.

    What it sees
        Before the run, if it has the method, ``begin(platform)`` with the
        :class:`Platform`: everything but the realization (``p``, the speeds
        ``w``, the task limits ``mu``, ``m``, ``n_com``, ``T_prog``, ``T_data``,
        the iterations ``K``, the Markov ``transitions`` or ``None``). Then
        ``decide(observation, rng)`` at each decision point (Section VI-B): an
        iteration's start, after an enrolled worker went DOWN, at every slot
        while the master waits and, for a policy with ``proactive = True``, at
        every slot. The :class:`Observation` holds the slot ``t`` and why it is
        asked (``reason``: ``iteration``, ``down``, ``wait`` or ``slot``), the
        realization's past ``states[:, :t + 1]`` (read-only; ``now`` is slot
        ``t``; ``UP = 0``, ``RECLAIMED = 1``, ``DOWN = 2``), the ``allocation`` in
        force, who holds the ``program``, the ``data`` held, the communication
        slots each worker still ``needs``, the ``iteration`` count and its start
        slot, and the computation's ``progress`` out of ``workload`` slots.
        Never a slot after ``t``.
    What it returns
        A :class:`Configuration` (or a sequence of ``m`` worker indices): the
        worker of each task, in assignment order (the order of its messages);
        a worker appears at most ``mu_q`` times and must be UP at ``t``. Or
        ``None``: keep the configuration in force, or wait when there is none.
        A new configuration restarts the iteration's computation (III-C).
    Randomness
        Draw only from ``rng`` (a ``numpy.random.Generator``): the same seed
        gives the same run.

    Attributes
    ----------
    proactive : bool, optional
        Asked at every slot (Section VI-B); default ``False`` (passive, VI-A).
    problem : str, optional
        Class attribute: the problem it is scored against; default ``"full"``
        (the makespan of the full model, as the built-in heuristics).
    name : str, optional
        Its name in tables; by default the import path it was named by.

    Examples
    --------
    A passive policy that gives the tasks to the fastest UP workers, each up to ``mu_q`` tasks:

    >>> import numpy as np
    >>> from volsched.heuristics.coupled.protocol import UP, Configuration
    >>> class Fastest:
    ...     def decide(self, observation, rng):
    ...         platform = observation.platform
    ...         up = np.flatnonzero(observation.now == UP)
    ...         by_speed = up[np.argsort(platform.w[up], kind="stable")]
    ...         order = [int(q) for q in by_speed for _ in range(int(platform.mu[q]))]
    ...         return Configuration(tuple(order[: platform.m])) if len(order) >= platform.m else None
    >>> from volsched.families import FAMILIES
    >>> family = FAMILIES["coupled"]
    >>> params = {"preset": "markov", "processors": 8, "slots": 200, "tasks": 3, "seed": 0}
    >>> inst = family.generate_from(params)
    >>> run = family.simulate(inst, family.heuristic(Fastest), seed=0)
    >>> run["problem"], run["metrics"]["failed"]
    ('full', False)
    """

    problem: ClassVar[str]


def _check_order(policy: CheckedPolicy, value: Any, observation: Observation) -> Configuration:
    platform = observation.platform
    expected = (
        f"None (keep the configuration, or wait) or a Configuration of the m = {platform.m} tasks' "
        f"workers (indices in [0, {platform.p})), each UP at t = {observation.t} and given at most "
        "mu_q tasks"
    )
    order = value.order if isinstance(value, Configuration) else value
    if not isinstance(order, (list, tuple, np.ndarray)):
        raise policy.bad("decide", expected, value)
    try:
        array = np.asarray(order)
    except (TypeError, ValueError):
        raise policy.bad("decide", expected, value) from None
    if array.shape != (platform.m,) or (array.size and array.dtype.kind not in "iu"):
        raise policy.bad("decide", expected, value)
    array = array.astype(np.int64)
    if np.any((array < 0) | (array >= platform.p)):
        raise policy.bad("decide", expected + " (an index is out of range)", value)
    down = [int(q) for q in array if observation.now[q] != UP]
    if down:
        raise policy.bad("decide", expected + f" (worker {down[0]} is not UP)", value)
    counts = np.bincount(array, minlength=platform.p)
    over = np.flatnonzero(counts > platform.mu)
    if over.size:
        q = int(over[0])
        raise policy.bad(
            "decide", expected + f" (worker {q} gets {counts[q]} > mu = {platform.mu[q]})", value
        )
    return Configuration(tuple(int(q) for q in array))


class CheckedCoupledPolicy(CheckedPolicy):
    """A :class:`CoupledPolicy` from outside volsched, its decisions checked.

    It is asked in Python at every decision point (the compiled rules are the
    built-in heuristics'). ``proactive`` defaults to ``False``.
    """

    def compiled(self) -> tuple | None:
        """``None``: the simulator's compiled rules are for the built-in policies only."""
        return None

    @property
    def proactive(self) -> bool:
        return bool(getattr(self.policy, "proactive", False))

    @property
    def hold(self) -> Hold | None:
        return getattr(self.policy, "hold", None)

    def begin(self, platform: Platform) -> None:
        if callable(getattr(self.policy, "begin", None)):
            self.call("begin", platform)

    def decide(self, observation: Observation, rng: np.random.Generator) -> Configuration | None:
        value = self.call("decide", observation, rng)
        return None if value is None else _check_order(self, value, observation)


def checked(policy: Any, name: str) -> CheckedCoupledPolicy:
    """``policy`` behind the protocol's checks, running as heuristic ``name``."""
    return CheckedCoupledPolicy(policy, name)


__all__ = [
    "DOWN",
    "PROBLEM",
    "RECLAIMED",
    "UP",
    "CheckedCoupledPolicy",
    "Configuration",
    "CoupledPolicy",
    "Hold",
    "Observation",
    "Platform",
    "checked",
]
