"""Independent verifier for OFF-LINE-COUPLED solutions: recount the common UP slots."""

from __future__ import annotations

from volsched.instances.coupled import UP, CoupledInstance
from volsched.instances.errors import is_int

from ..result import Infeasible, reject_unless


def _check_processors(instance: CoupledInstance, processors) -> None:
    """A list of distinct processor indices (a processor appears once in a configuration)."""
    reject_unless(isinstance(processors, (list, tuple)), "processors", "must be a list of processor indices")
    seen = set()
    for i, q in enumerate(processors):
        ok = is_int(q) and 0 <= q < instance.p
        reject_unless(ok, f"processors[{i}]", f"must be a processor index in [0, {instance.p}), got {q!r}")
        reject_unless(q not in seen, f"processors[{i}]", f"processor {q} is chosen twice")
        seen.add(q)


def verify_offline(instance: CoupledInstance, processors, claimed: int | None = None) -> int:
    """Number of slots in which every chosen processor is UP; raise if ``claimed`` differs."""
    _check_processors(instance, processors)
    reject_unless(
        len(processors) == instance.m,
        "processors",
        f"has {len(processors)} processors, an iteration needs m = {instance.m}",
    )
    value = sum(all(instance.availability[q, t] == UP for q in processors) for t in range(instance.horizon))
    if claimed is not None and value != claimed:
        raise Infeasible(f"coupled: claimed {claimed} common UP slots but the processors have {value}")
    return value


def verify_offline_inf(instance: CoupledInstance, processors, claimed: int | None = None) -> int:
    """Completion slot count ``T`` of one iteration on ``processors`` with unbounded ``mu``.

    ``k = len(processors)`` processors hold ``ceil(m / k)`` tasks each and need
    ``ceil(m / k) w`` slots in which all are UP; ``T`` is one past the slot of
    the last of them. Raises ``Infeasible`` if they never share that many.
    """
    import math

    _check_processors(instance, processors)
    reject_unless(len(processors) >= 1, "processors", "must name at least one processor")
    reject_unless(
        len(processors) <= instance.m, "processors", f"more processors than the m = {instance.m} tasks"
    )
    w = int(instance.w[0])
    reject_unless(all(int(x) == w for x in instance.w), "w", "offline-coupled-inf needs identical w")
    need = math.ceil(instance.m / len(processors)) * w
    shared = 0
    for t in range(instance.horizon):
        shared += all(instance.availability[q, t] == UP for q in processors)
        if shared == need:
            if claimed is not None and t + 1 != claimed:
                raise Infeasible(
                    f"coupled: claimed completion {claimed} but the processors complete at {t + 1}"
                )
            return t + 1
    raise Infeasible(f"processors: they share {shared} UP slots, an iteration needs {need}")
