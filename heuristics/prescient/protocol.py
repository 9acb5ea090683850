"""The prescient family's policy protocol: what an on-line server policy sees and returns.

Kondo, Chien, Casanova (2007), Sections 2.1 and 4-6: a server assigns the
``T`` tasks of an application to desktop hosts as they become ready, and may
replicate them. :class:`PrescientPolicy` is the contract, with the types a
policy uses (from :mod:`.simulator`); a policy written outside volsched runs
behind :func:`checked`, which refuses a wrong return value with an
:class:`~volsched.instances.errors.InputError` naming the policy.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ..base import CheckedPolicy, describe
from .history import History
from .simulator import Assignment, Observation, Platform
from .simulator import PrescientPolicy as _SimulatedPolicy

#: The problem a prescient heuristic is scored against by default: the application's makespan.
PROBLEM = "makespan"


@runtime_checkable
class PrescientPolicy(_SimulatedPolicy, Protocol):
    """An on-line server policy of Sections 4-6: assignments now, and when to be asked again.

    What it sees
        ``decide(observation, rng)`` after the events of an instant ``t`` when
        a host is ready and there is a task to place (a task waiting for its
        original or, for a policy with ``replicates = True``, any unfinished
        task), and at the instants it asked to be woken at. The
        :class:`Observation` is the server's state at ``t``, read-only: the
        ``ready`` hosts (idle and up, in order of arrival), the tasks waiting
        for an original (``primary``), which tasks are ``done``, each task's
        running ``original`` host and its start, its running and sent
        ``replicas``, the completion instants so far, the instances the server
        believes running (a failure is known only at the next heartbeat), a
        ``memory`` dict for the policy's own state, and the :class:`Platform`:
        what is known before the run (``N``, ``T``, the task size ``s``, the
        ``clock`` rates and ``speed``, the submission time, the previous
        weekday's :class:`History`). Never the traces after ``t``.
    What it returns
        A pair ``(assignments, wake)``. ``assignments`` is a list of
        :class:`Assignment` (or ``(host, task)`` / ``(host, task, replica)``
        tuples): distinct ready hosts; a task waiting for its original gets it
        (``replica=False``), a task with a running original may get a replica.
        ``wake`` is a time after ``t`` at which to be asked even if nothing
        happens, or ``None``.
    Randomness
        Draw only from ``rng``: the same seed gives the same run.

    Attributes
    ----------
    replicates : bool, optional
        Asked whenever a host is ready and a task is unfinished; default ``False``.
    problem : str, optional
        Class attribute: the problem it is scored against; default ``"makespan"``.
    name : str, optional
        Its name in tables; by default the import path it was named by.

    Examples
    --------
    First come, first served: the waiting tasks go to the ready hosts in order.

    >>> from volsched.heuristics.prescient.protocol import Assignment
    >>> class FirstCome:
    ...     def decide(self, observation, rng):
    ...         pairs = zip(observation.ready.tolist(), observation.primary.tolist())
    ...         return [Assignment(host, task) for host, task in pairs], None
    >>> from volsched.families import FAMILIES
    >>> family = FAMILIES["prescient"]
    >>> inst = family.generate_from({"preset": "platform", "platform": "sdsc", "hosts": 20, "tasks": 10})
    >>> run = family.simulate(inst, family.heuristic(FirstCome), seed=0)
    >>> run["problem"], run["metrics"]["failed"]
    ('makespan', False)
    """

    problem: ClassVar[str]


EXPECTED = (
    "a pair (assignments, wake): a list of Assignment(host, task, replica) on distinct ready hosts "
    "(an original for a task waiting for one, else a replica), and None or a time after t = {t}"
)


def _assignment(policy: CheckedPolicy, item: Any, expected: str, value: Any) -> Assignment:
    if isinstance(item, Assignment):
        host, task, replica = item.host, item.task, item.replica
    elif isinstance(item, (tuple, list)) and len(item) in (2, 3):
        host, task, replica = (*item, False) if len(item) == 2 else item
    else:
        raise policy.bad("decide", expected + f" (an assignment is {describe(item)})", value)
    ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (host, task))
    if not ok or not isinstance(replica, (bool, np.bool_)):
        raise policy.bad(
            "decide", expected + f" (assignment {item!r}: integers host, task and a bool replica)", value
        )
    return Assignment(int(host), int(task), bool(replica))


def check_decision(
    policy: CheckedPolicy, value: Any, observation: Observation
) -> tuple[list[Assignment], float | None]:
    """``value`` as ``(assignments, wake)``, or ``InputError`` saying what ``decide`` must return."""
    t = observation.t
    expected = EXPECTED.format(t=t)
    if not (isinstance(value, (tuple, list)) and len(value) == 2):
        raise policy.bad("decide", expected, value)
    items, wake = value
    if not isinstance(items, (list, tuple)):
        raise policy.bad("decide", expected + f" (assignments is {describe(items)})", value)
    if wake is not None and not (
        isinstance(wake, (int, float, np.number)) and not isinstance(wake, bool) and not math.isnan(wake)
    ):
        raise policy.bad("decide", expected + f" (wake is {describe(wake)})", value)
    ready = set(observation.ready.tolist())
    primary = set(observation.primary.tolist())
    hosts: set[int] = set()
    sent: set[int] = set()
    out = []
    for item in items:
        a = _assignment(policy, item, expected, value)
        if a.host not in ready or a.host in hosts:
            raise policy.bad("decide", expected + f" (host {a.host} is not ready, or is used twice)", value)
        hosts.add(a.host)
        if not (0 <= a.task < observation.platform.T) or observation.done[a.task]:
            raise policy.bad("decide", expected + f" (task {a.task} does not exist or is completed)", value)
        waiting = a.task in primary and a.task not in sent
        if a.replica == waiting:
            why = "waits for its original, not a replica" if a.replica else "has a running original"
            raise policy.bad("decide", expected + f" (task {a.task} {why})", value)
        if not a.replica:
            sent.add(a.task)
        out.append(a)
    return out, None if wake is None else float(wake)


class CheckedPrescientPolicy(CheckedPolicy):
    """A :class:`PrescientPolicy` from outside volsched, its decisions checked (:func:`check_decision`)."""

    @property
    def replicates(self) -> bool:
        return bool(getattr(self.policy, "replicates", False))

    def decide(
        self, observation: Observation, rng: np.random.Generator
    ) -> tuple[list[Assignment], float | None]:
        return check_decision(self, self.call("decide", observation, rng), observation)


def checked(policy: Any, name: str) -> CheckedPrescientPolicy:
    """``policy`` behind the protocol's checks, running as heuristic ``name``."""
    return CheckedPrescientPolicy(policy, name)


__all__ = [
    "PROBLEM",
    "Assignment",
    "CheckedPrescientPolicy",
    "History",
    "Observation",
    "Platform",
    "PrescientPolicy",
    "check_decision",
    "checked",
]
