"""Exact methods of the slack family (Canon et al. 2011): problems ``slack`` and ``plain``.

See :mod:`.problems` for the problems and their methods, :mod:`.cpsat` for
the main model, :mod:`.milp` for the cross-check, :mod:`.verify` for the
independent verifier and the solution format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from volsched.instances.slack import FAMILY, SlackInstance

from ..problem import solve as solve_problem
from .problems import PROBLEMS

if TYPE_CHECKING:
    from ..result import SolveResult


def solve(
    instance: SlackInstance,
    method: str | None = None,
    time_limit: float | None = None,
    seed: int | None = None,
    problem: str | None = None,
    budget: float | None = None,
) -> SolveResult:
    """Minimum reference makespan of ``instance`` for ``problem`` (default ``slack``, at its ``beta``)."""
    return solve_problem(FAMILY, PROBLEMS, instance, problem, method, time_limit, seed, budget)


__all__ = ["PROBLEMS", "solve"]
