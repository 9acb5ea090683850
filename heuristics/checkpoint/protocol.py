"""The checkpoint family's policy protocol: what a checkpoint heuristic sees and returns.

Bouguerra et al. 2011, Sections III-B and IV-A-2: a checkpoint policy places
checkpoints on a job of ``n`` slices before the job runs; the failure time is
drawn afterwards. :class:`CheckpointPolicy` is the contract; a policy written
outside volsched (``volsched simulate JOB --heuristic mine.py:EveryOther``) runs
behind :func:`checked`, which refuses a wrong return value with an
:class:`~volsched.instances.errors.InputError` naming the policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ..base import CheckedPolicy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from volsched.instances.checkpoint import CheckpointInstance

#: The problem a checkpoint heuristic is scored against (the family's only one).
PROBLEM = "checkpoint"


@runtime_checkable
class CheckpointPolicy(Protocol):
    """An off-line checkpoint policy: one plan per job, made before the run (Section IV-A-2).

    What it sees
        ``plan`` is called once, before the run, with the whole job
        (:class:`~volsched.instances.checkpoint.CheckpointInstance`): ``n``,
        the slice durations ``p`` and checkpoint costs ``c`` (integer quanta),
        the re-execution ratio ``alpha`` and the failure ``law`` (its ``mean``,
        ``cdf``...). It never sees a failure time: the simulator draws them from
        the law, with the same ``rng``, after the plan.
    What it returns
        A sequence of ``n`` values 0 or 1 (a list, a tuple or a numpy array of
        bools or integers): ``a_i = 1`` places a checkpoint after slice ``i``
        (``a`` of Section III-B). ``a_n`` must be 1: the job's result is
        checkpointed at its end.
    Randomness
        Draw only from ``rng`` (a ``numpy.random.Generator``): the same seed
        gives the same plan.

    Attributes
    ----------
    problem : str, optional
        Class attribute: the problem it is scored against. The family has one,
        ``"checkpoint"`` (the expected waste, Expression (1)), also the default.
    name : str, optional
        Its name in tables; by default the import path it was named by.

    Examples
    --------
    A policy that checkpoints after every other slice, and after the last one:

    >>> class EveryOther:
    ...     def plan(self, instance, rng):
    ...         a = [i % 2 for i in range(1, instance.n + 1)]
    ...         a[-1] = 1
    ...         return a
    >>> from volsched.families import FAMILIES
    >>> family = FAMILIES["checkpoint"]
    >>> job = family.generate_from({"slices": 6, "seed": 0})
    >>> run = family.simulate(job, family.heuristic(EveryOther), seed=0)
    >>> run["solution"]["a"]
    [1, 0, 1, 0, 1, 1]

    On the command line, with the class in ``mine.py``:
    ``volsched evaluate job.json --heuristic mine.py:EveryOther``.
    """

    problem: ClassVar[str]

    def plan(self, instance: CheckpointInstance, rng: np.random.Generator) -> Sequence[int] | np.ndarray: ...


EXPECTED = "a sequence of n = {n} values 0/1 (a_i = 1: a checkpoint after slice i) with a_n = 1"


def check_plan(policy: CheckedPolicy, value: Any, n: int) -> np.ndarray:
    """``value`` as the boolean vector ``a``, or ``InputError`` saying what ``plan`` must return."""
    expected = EXPECTED.format(n=n)
    if not isinstance(value, (list, tuple, np.ndarray)):
        raise policy.bad("plan", expected, value)
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):
        raise policy.bad("plan", expected, value) from None
    if a.ndim != 1 or a.shape[0] != n:
        raise policy.bad("plan", expected, value)
    if a.dtype != bool and (a.dtype.kind not in "iuf" or not np.all((a == 0) | (a == 1))):
        found = [v for v in a.tolist() if v not in (0, 1)][:1]
        raise policy.bad("plan", expected + (f" (found {found[0]!r})" if found else ""), value)
    a = a.astype(bool)
    if not a[-1]:
        raise policy.bad("plan", expected + " (a_n is 0)", value)
    return a


class CheckedCheckpointPolicy(CheckedPolicy):
    """A :class:`CheckpointPolicy` from outside volsched, its plan checked (:func:`check_plan`)."""

    def plan(self, instance: CheckpointInstance, rng: np.random.Generator) -> np.ndarray:
        return check_plan(self, self.call("plan", instance, rng), instance.n)


def checked(policy: Any, name: str) -> CheckedCheckpointPolicy:
    """``policy`` behind the protocol's checks, running as heuristic ``name``."""
    return CheckedCheckpointPolicy(policy, name)


__all__ = ["PROBLEM", "CheckedCheckpointPolicy", "CheckpointPolicy", "check_plan", "checked"]
