"""Independent verifier for OFF-LINE-COUPLED solutions: recount the common UP slots."""

from __future__ import annotations

from volsched.instances.coupled import UP, CoupledInstance
from volsched.instances.errors import require

from ..result import VerificationError


def verify_offline(instance: CoupledInstance, processors, claimed: int | None = None) -> int:
    """Number of slots in which every chosen processor is UP; raise if ``claimed`` differs."""
    require(isinstance(processors, (list, tuple)), "processors", "must be a list of processor indices")
    seen = set()
    for i, q in enumerate(processors):
        ok = isinstance(q, int) and not isinstance(q, bool) and 0 <= q < instance.p
        require(ok, f"processors[{i}]", f"must be a processor index in [0, {instance.p}), got {q!r}")
        require(q not in seen, f"processors[{i}]", f"processor {q} is chosen twice (mu = 1)")
        seen.add(q)
    require(len(processors) == instance.m, "processors",
            f"has {len(processors)} processors, an iteration needs m = {instance.m}")
    value = sum(all(instance.availability[q, t] == UP for q in processors) for t in range(instance.horizon))
    if claimed is not None and value != claimed:
        raise VerificationError(f"coupled: claimed {claimed} common UP slots but the processors have {value}")
    return value
