"""Two baselines without slack: LPT and plain list scheduling around the unavailabilities.

The paper runs only GAPS; these are the issue's additions, to show what the
slack buys. Both are list scheduling on all ``m`` machines (free ones
included) that respects the unavailabilities and nothing else: no slack is
reserved and the last-period rule is ignored, so their schedules belong to the
**plain** problem (``verify_plain``). Each job, in list order, goes to the
machine where it can start (hence finish) earliest, lowest index on ties,
after the last job already on that machine: in the availability period where
the machine's last job ended if it fits before the unavailability, otherwise at
the start ``e_i^{k-1}`` of the first later period ``a_i^k >= p_j``, or in the
machine's tail after its last interval (available for ever, so every job finds
a place). Jobs of a period therefore run back to back from its start.

* ``lpt`` (**LPT ignoring unavailability slack**): the list is the jobs by
  non-increasing ``p`` (ties by index), as GAPS' line 2;
* ``list`` (**plain list scheduling**): the jobs in their index order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .gaps import Schedule

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance


def list_schedule(instance: SlackInstance, order: np.ndarray) -> Schedule:
    """List scheduling of the jobs in ``order`` (see the module docstring), compiled."""
    # numba loads on first use, not when the package is imported (start-up time)
    from ._list_kernel import list_kernel

    counts = np.array([len(v) for v in instance.machines], dtype=np.int64)
    off = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    both = np.concatenate(instance.machines) if off[-1] else np.zeros((0, 2), np.int64)
    machine, start = list_kernel(
        np.asarray(order, dtype=np.int64),
        instance.p.astype(np.int64),
        np.ascontiguousarray(both[:, 0]),
        np.ascontiguousarray(both[:, 1]),
        off,
    )
    return Schedule(machine, start, None)


def lpt(instance: SlackInstance) -> Schedule:
    """LPT: list scheduling of the jobs by non-increasing ``p`` (ties by index)."""
    return list_schedule(instance, np.argsort(-instance.p, kind="stable"))


def plain_list(instance: SlackInstance) -> Schedule:
    """Plain list scheduling: the jobs in index order."""
    return list_schedule(instance, np.arange(instance.n))
